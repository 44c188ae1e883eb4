"""ReAgent through the entry points: `fif ask --system reagent`, and forks listed by replay."""

from __future__ import annotations

import json

from reagent_bundle import MUSEUM_QUESTION, RENOVATION_QUESTION

from graph_agent.reagent_graph import ask_reagent
from graph_agent.replay import list_checkpoints, sqlite_checkpointer


def test_fif_ask_runs_reagent_and_prints_its_trace(run_fif_main, reagent_index_dir):
    code, out, err = run_fif_main(
        "ask", MUSEUM_QUESTION, "--index", reagent_index_dir, "--system", "reagent", "--json"
    )
    assert code == 0, err
    printed = json.loads(out)
    assert [step["node"] for step in printed["trace"]][0] == "decomposer"
    assert printed["trace"][-1]["node"] == "assembler"
    assert len(printed["ranking"]) == 10
    assert "thread:" in err


def test_an_unknown_system_is_a_usage_error(run_fif_main, reagent_index_dir):
    code, _, err = run_fif_main("ask", "q", "--index", reagent_index_dir, "--system", "nope")
    assert code != 0
    assert "unknown system" in err and "reagent" in err


def test_replay_lists_a_global_backtrack_as_a_fork(context, reagent_index_dir):
    one = context.model_copy(update={"assertions_per_agent": 1})
    subquestions = [
        {"index": 0, "text": MUSEUM_QUESTION},
        {"index": 1, "text": RENOVATION_QUESTION},
    ]
    with sqlite_checkpointer(reagent_index_dir) as saver:
        ask_reagent(
            MUSEUM_QUESTION, one, thread_id="fork-1", checkpointer=saver, subquestions=subquestions
        )
    rows = list_checkpoints(reagent_index_dir, "fork-1")
    previous = [None, *(row.checkpoint_id for row in rows[:-1])]
    forks = [row for row, before in zip(rows, previous, strict=True) if row.parent_id != before]
    assert len(forks) == 1
    assert forks[0].last_action.startswith("supervisor: roll every agent back to round 0")
    assert forks[0].next_nodes == ("retriever",)
    assert rows[-1].next_nodes == ()
