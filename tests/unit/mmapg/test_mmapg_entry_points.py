"""MMAPG through its entry points: `fif eval` systems (with ablations) and `fif ask --system`."""

from __future__ import annotations

import json
import shutil

from evals.datasets.questions import EvalExample
from evals.systems import RunConfig, make_system
from state.mmapg_state import MMAPGContext

QUESTION = "What is the atomic number of the element named after Marie Curie's native country?"


def test_eval_systems_build_mmapg_and_its_ablations(mini_index):
    config = RunConfig(str(mini_index), top_k=5)
    switches = {
        "mmapg": ("fixed_top_k", None),
        "mmapg-top-k": ("fixed_top_k", 10),
        "mmapg-no-split": ("no_modality_split", True),
        "mmapg-no-examination": ("no_examination", True),
        "mmapg-single-path": ("single_path", True),
        "mmapg-no-triplets": ("triplet_kb", False),
    }
    for name, (field, value) in switches.items():
        system = make_system(name, config)
        assert system.name == name
        context = system.context  # type: ignore[attr-defined]
        assert isinstance(context, MMAPGContext) and getattr(context, field) == value
        assert context.top_k == 5


def test_the_mmapg_system_ranks_an_example(mini_index):
    system = make_system("mmapg", RunConfig(str(mini_index), top_k=5))
    example = EvalExample("mb3", QUESTION, ("84",), ("polonium::p0",))
    output = system.retrieve(example, want_answer=False)
    assert output.ranking[0] == "polonium::p0" and len(output.ranking) == 5
    assert output.answer is None and output.latency_ms > 0


def test_fif_ask_runs_mmapg_checkpointed(mini_index, tmp_path, run_fif_main):
    index = shutil.copytree(mini_index, tmp_path / "index")  # the run writes checkpoints beside it
    code, out, err = run_fif_main(
        "ask", QUESTION, "--index", str(index), "--system", "mmapg", "--json"
    )
    assert code == 0, err
    printed = json.loads(out)
    assert printed["ranking"][0]["component_id"] == "polonium::p0"
    assert [step["node"] for step in printed["trace"]][0] == "plan_writer"
    assert "flowchart TD" in printed["trace"][-1]["detail"]["graph"]
    assert (index / "checkpoints.sqlite").is_file() and "thread:" in err


def test_fif_ask_prints_mmapg_trace_and_graph(mini_index, tmp_path, run_fif_main):
    index = shutil.copytree(mini_index, tmp_path / "index")
    code, out, _ = run_fif_main("ask", QUESTION, "--index", str(index), "--system", "mmapg")
    assert code == 0
    assert "plan_writer" in out and "finisher" in out and "n1 --> n2" in out


def test_fif_ask_refuses_an_unknown_system(mini_index, run_fif_main):
    code, _, err = run_fif_main("ask", QUESTION, "--index", str(mini_index), "--system", "nope")
    assert code == 2
    assert "unknown system 'nope'" in err and "mmapg" in err
