"""A run SIGKILLed after a node saved its writes, before the next checkpoint, resumes to a result.

LangGraph reports no next node for such a checkpoint (its tasks all hold their writes), so
`fif replay THREAD --resume` used to call the run finished and print an empty ranking.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from graph_agent.registry import replayable_systems
from graph_agent.replay import list_checkpoints, resume

pytestmark = pytest.mark.integration
KILLER = Path(__file__).with_name("killed_run.py")


@pytest.mark.parametrize("system", replayable_systems())
def test_a_killed_run_says_it_did_not_finish_and_resumes(
    mini_index: Path, tmp_path: Path, system: str
) -> None:
    index = Path(shutil.copytree(mini_index, tmp_path / "index"))
    killed = subprocess.run(
        [sys.executable, str(KILLER), str(index), system, "killed", "2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert list_checkpoints(index, "killed"), "the run saved its input before it died"
    result = resume(index, "killed")
    assert not result.finished, "a killed run is not reported as finished"
    assert result.ranking, "resuming reaches the run's ranking"
    assert resume(index, "killed").finished
