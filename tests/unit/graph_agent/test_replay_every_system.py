"""`fif replay` lists, resumes and forks a thread of every system, told nothing but the thread."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from graph_agent.registry import get_system, replayable_systems
from graph_agent.replay import list_checkpoints, resume, run_config, sqlite_checkpointer
from graph_agent.systems import run_system

QUESTION = "What colours are the stripes on the flag of the city where Marie Curie was born?"


@pytest.fixture
def index(mini_index: Path, tmp_path: Path) -> Path:
    """A private copy of the mini index: checkpointed runs write their SQLite file into it."""
    return Path(shutil.copytree(mini_index, tmp_path / "index"))


def interrupted_run(index: Path, system: str, thread: str) -> None:
    """Start a run that stops after its first node, as a killed process leaves it."""
    spec = get_system(system)
    context = spec.context_type(index_dir=str(index), top_k=3, max_steps=2)
    with sqlite_checkpointer(index) as saver:
        config = {**run_config(thread, context, graph_name=system), **spec.run_config(context)}
        spec.compiled(saver).invoke(
            {"question": QUESTION}, config, context=context, interrupt_after="*"
        )


def test_every_graph_system_is_replayable() -> None:
    assert set(replayable_systems()) == {"fif", "lilac", "ircot", "mmapg", "reagent", "extraction"}


@pytest.mark.parametrize("system", replayable_systems())
def test_an_unfinished_run_resumes_to_its_result(index: Path, system: str) -> None:
    interrupted_run(index, system, "cut")
    assert list_checkpoints(index, "cut")[-1].next_nodes, "the run stopped midway"
    result = resume(index, "cut")
    assert result.ranking and not result.finished
    assert not list_checkpoints(index, "cut")[-1].next_nodes  # now it has finished
    again = resume(index, "cut")
    assert again.finished and again.ranking == result.ranking  # says so, runs nothing


@pytest.mark.parametrize("system", replayable_systems())
def test_a_fork_from_a_middle_checkpoint_runs_a_branch(index: Path, system: str) -> None:
    context = get_system(system).context_type(index_dir=str(index), top_k=3, max_steps=2)
    run_system(system, QUESTION, context, "t")
    rows = list_checkpoints(index, "t")
    middle = next(row for row in rows if row.next_nodes and row.step >= 1)
    fork = resume(index, "t", middle.checkpoint_id, {"top_k": 2})
    assert fork.ranking and len(fork.ranking) <= 2 and not fork.finished
    branched = list_checkpoints(index, "t")
    assert len(branched) > len(rows)  # the original branch is kept beside the fork
    parents = [row.parent_id for row in branched]
    assert parents.count(middle.checkpoint_id) >= 2, "two branches leave the fork point"


def test_the_cli_replays_any_thread_without_being_told_its_system(
    index: Path, run_fif_main
) -> None:
    context = get_system("lilac").context_type(index_dir=str(index), top_k=3)
    run_system("lilac", QUESTION, context, "L")
    code, out, err = run_fif_main("replay", "L", "--index", str(index))
    assert code == 0 and "system: lilac" in err, err
    code, out, err = run_fif_main("replay", "L", "--index", str(index), "--resume")
    assert code == 0, err
    assert "had finished" in err and "time 0 ms" not in out


@pytest.mark.parametrize("system", replayable_systems())
def test_a_finished_thread_replays_the_step_records_its_run_returned(
    index: Path, system: str
) -> None:
    context = get_system(system).context_type(index_dir=str(index), top_k=3, max_steps=2)
    ran = run_system(system, QUESTION, context, "done")
    stored = resume(index, "done")
    assert stored.finished and ran.history, "the run kept step records"
    assert stored.history == ran.history  # read from the spec's history key
