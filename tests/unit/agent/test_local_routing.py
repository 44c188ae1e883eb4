"""The local backend asks its small model only the decisions `tools.local_routes` gives it."""

from __future__ import annotations

from pathlib import Path

from agent_runs import NOBEL_QUESTION, Run, llm_context
from scripted_model import ScriptedChatModel, plan, ranking, search, verdict

from tools.local_routes import LOCAL_ROUTES


def test_a_local_run_asks_the_model_only_the_routed_decisions(mini_index: Path) -> None:
    model = ScriptedChatModel(defaults={"evaluator": verdict("answerable")})
    run = Run(NOBEL_QUESTION, llm_context(mini_index, model, backend="local"))
    assert set(model.roles_called()) == {"evaluator"}  # no planner, orchestrator or reranker
    assert model.calls[0][2]["max_tokens"] == LOCAL_ROUTES["Evaluation"].max_tokens
    state = run.state
    notes = [note for step in state["history"] for note in step["notes"]]
    assert state["history"] and not any(n.startswith("evaluator:") for n in notes)  # the LLM judged
    first = state["decisions"][0]
    assert first["decided_by"] == "offline"
    assert "leaves Decision to its offline twin" in first["reason"]
    assert state["fallbacks"] == [] and state["cost"]["llm_calls"] == len(model.calls)


def test_the_same_run_on_the_openai_backend_asks_every_decision(mini_index: Path) -> None:
    model = ScriptedChatModel(
        defaults={
            "planner": plan(NOBEL_QUESTION),
            "orchestrator": search(NOBEL_QUESTION),
            "evaluator": verdict("answerable"),
            "reranker": ranking(0),
        }
    )
    Run(NOBEL_QUESTION, llm_context(mini_index, model))
    assert {"planner", "orchestrator", "reranker"} <= set(model.roles_called())
    assert all("max_tokens" not in kwargs for _, _, kwargs in model.calls)  # local caps only
