"""The loop offline: rules find findings with pages, coverage decides, the ranking cites pages."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

from extraction_bundle import MARGIN_QUESTION

from evals.systems import RunConfig, every_system, make_system
from graph_agent.extraction_graph import ask_extraction, graph
from nodes.extraction.findings import row_value, sentence_value
from nodes.extraction.synthesis import offline_synthesis
from state.extraction_state import ExtractionContext, Finding
from tools.values import modern_years

ROOT = Path(__file__).resolve().parents[3]


def test_offline_run_finds_values_with_pages_and_ranks_their_components_first(offline_context):
    final = graph.invoke({"question": MARGIN_QUESTION}, context=offline_context)
    assert final["findings"], final["trace"]
    assert all(f["page"] is not None for f in final["findings"])
    first = final["findings"][0]["component_id"]
    assert final["ranking"][0]["component_id"] == first
    assert {r["doc_id"] for r in final["ranking"][:3]} == {"acme_2022_10k"}
    iterations = [s["step"] for s in final["trace"] if s["node"] == "extractor"]
    assert iterations == list(range(1, len(iterations) + 1)) and len(iterations) <= 3
    assert final["trace"][0]["query"] == MARGIN_QUESTION  # the first item is the question
    assert final["cost"]["llm_calls"] == 0


def test_offline_answer_is_the_best_finding_as_value_and_unit(offline_context):
    result = ask_extraction("ACME net sales 2022", offline_context)
    assert result.answer is not None and "5,298" in result.answer
    verdict = result.subqueries[-1]
    assert verdict["status"] == "answer" and verdict["sources"][0].startswith("acme_2022_10k#")


def test_rows_take_the_period_column_and_sentences_need_an_amount():
    label, value, period = row_value(
        "column 1: Operating income | 2022: $1,060 | 2021: $950", {"2021"}
    )
    assert (label, value, period) == ("Operating income", "$950", "2021")
    assert sentence_value("Net sales grew 8% to $5,298 million in 2022.") == "8%"
    assert sentence_value("See Note 6 on page 17.") is None
    assert sentence_value("In 2022, we spent $765 million.") == "$765 million"
    assert modern_years("FY22 and fiscal 2021") == {"2022", "2021"}


def finding(label: str, context: str, value: float | str = 1.0) -> Finding:
    return {
        "label": label,
        "value": value,
        "unit": None,
        "page": 3,
        "section": "s",
        "context": context,
        "component_id": "d::p0",
        "doc_id": "d",
        "iteration": 1,
        "score": 1.0,
    }


def test_offline_synthesis_answers_needs_or_fails_by_coverage():
    question = "What was the operating income of ACME in 2022?"
    covered = offline_synthesis(
        question, [finding("Operating income (2022)", "ACME operating income")], [], set(), False
    )
    assert covered.status == "answer" and covered.sources == ("d#3",)
    partial = offline_synthesis(
        question, [finding("Net sales", "ACME net sales")], [], {question.lower()}, False
    )
    assert partial.status == "needs" and "operating" in (partial.needs or "")
    assert offline_synthesis(question, [], [], {question.lower()}, True).status == "fail"


def test_a_named_metric_asks_for_its_inputs_one_at_a_time():
    question = "What was ACME's operating margin in FY2022?"
    first = offline_synthesis(question, [], [], {question.lower()}, False)
    assert (first.status, first.needs) == ("needs", "operating income")
    found = [finding("Operating income", "ACME operating income 2022")]
    second = offline_synthesis(question, found, [], {question.lower(), "operating income"}, False)
    assert (second.status, second.needs) == ("needs", "revenue")
    tried = {question.lower(), "operating income", "revenue"}
    third = offline_synthesis(question, found, [], tried, False)
    assert third.status == "needs" and third.needs not in tried  # back to the question's words


def test_extraction_is_registered_for_langgraph_eval_and_compare(filings_index):
    spec = json.loads((ROOT / "langgraph.json").read_text())["graphs"]["extraction"]
    path, name = spec.split(":")
    module = importlib.import_module(path.removeprefix("./").removesuffix(".py").replace("/", "."))
    assert getattr(module, name).name == "extraction"
    assert getattr(module, name).checkpointer is None
    built = make_system("extraction", RunConfig(index_dir=filings_index, top_k=7))
    assert isinstance(built.context, ExtractionContext) and built.context.top_k == 7  # type: ignore[attr-defined]
    assert "extraction" in every_system()


def test_fif_ask_runs_the_extraction_system_and_replay_lists_its_thread(
    filings_index, tmp_path, run_fif_main
):  # type: ignore[no-untyped-def]
    import shutil

    own = shutil.copytree(filings_index, tmp_path / "index")
    code, out, err = run_fif_main(
        "ask", MARGIN_QUESTION, "--index", str(own), "--system", "extraction", "--json"
    )
    assert code == 0, err
    thread = json.loads(out)["thread_id"]
    assert json.loads(out)["trace"][0]["node"] == "extractor"
    code, out, err = run_fif_main("replay", thread, "--index", str(own))
    assert code == 0, err
    assert "extractor" in out
