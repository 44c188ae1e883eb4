"""The loop with a scripted chat model: needs → answer, honest fail, calculator, cap, fallback."""

from __future__ import annotations

import json

from extraction_bundle import MARGIN_QUESTION
from scripted_chat import Scripted, choose, extracted, finding, findings_shown, llm_context, verdict

from graph_agent.extraction_graph import ask_extraction, graph

REVENUE = finding("Net sales FY2022", 5298, 20)
OPERATING = finding("Operating income FY2022", 1060, 20)


def run(index_dir: str, replies: list, **update):  # type: ignore[no-untyped-def]
    model = Scripted(replies=replies)
    context = llm_context(index_dir, model, **update)
    final = graph.invoke({"question": MARGIN_QUESTION}, context=context)
    return final, model


def test_needs_then_answer_appends_findings_and_the_calculator_corrects_the_margin(filings_index):
    replies = [
        choose("Statements of Income"),
        extracted(REVENUE),
        verdict("needs", needs="ACME operating income FY2022", reason="have net sales only"),
        choose("Statements of Income"),
        extracted(OPERATING),
        verdict(
            "answer",
            answer="ACME's operating margin was 25.0%",
            sources=["f1", "f2"],
            confidence="high",
            calculation="f2 / f1 * 100",
        ),
    ]
    final, model = run(filings_index, replies)
    assert [f["label"] for f in final["findings"]] == [
        "Net sales FY2022",
        "Operating income FY2022",
    ]
    assert [f["iteration"] for f in final["findings"]] == [1, 2]  # appended, never overwritten
    assert findings_shown(model.sent[-1]) == ["f1", "f2"]
    assert "Net sales grew" not in model.sent[-1]  # synthesis sees findings, not page text
    assert "Shopping item: ACME operating income FY2022" in model.sent[3]
    check = final["verdicts"][-1]["calculation"]
    assert check["agreed"] is False and abs(check["result"] - 20.007) < 0.01
    assert final["answer"] == "ACME's operating margin was 20.01%"
    assert final["verdicts"][-1]["sources"] == ["acme_2022_10k#20"] * 2
    assert final["ranking"][0]["component_id"] == "acme_2022_10k::t0"
    assert final["cost"]["llm_calls"] == 6 and final["cost"]["input_tokens"] == 1800
    prompt = model.sent[1]
    assert prompt.index("[p.20]") < prompt.index("Question:")  # evidence before the question


def test_an_honest_fail_ends_the_loop_without_an_answer(filings_index):
    replies = [
        choose("Risk Factors"),
        json.dumps({"findings": [], "fail": "the risk factors state no amounts"}),
        verdict("fail", reason="no operating income or revenue found"),
    ]
    final, _ = run(filings_index, replies)
    assert final["verdicts"][-1]["status"] == "fail"
    assert final.get("answer") is None
    assert final["failed_searches"][0]["reason"] == "the risk factors state no amounts"
    assert final["failed_searches"][0]["sections_tried"][0].endswith("Item 1A. Risk Factors")
    assert final["ranking"]  # what it searched is still ranked


def test_the_iteration_cap_stops_a_loop_that_keeps_needing(filings_index):
    replies = []
    for n in range(2):
        replies += [
            choose("Results of Operations"),
            extracted(finding(f"Net sales {n}", 5298, 10)),
            verdict("needs", needs=f"ACME operating figure {n}", reason="more"),
        ]
    final, _ = run(filings_index, replies, max_iterations=2)
    extractions = [s for s in final["trace"] if s["node"] == "extractor"]
    assert len(extractions) == 2
    assert "reached max_iterations=2" in final["trace"][-1]["reason"]
    assert final.get("answer") is None


def test_malformed_json_falls_back_to_the_offline_twin_and_says_so(filings_index):
    replies = ["{not json", "also not json", '{"status": "maybe"}']
    final, _ = run(filings_index, replies, max_iterations=1)
    nodes = [note.split(":")[0] for note in final["fallbacks"]]
    assert nodes == ["extractor", "extractor", "synthesizer"]  # choice, extraction, verdict
    assert all("offline fallback" in note for note in final["fallbacks"])
    assert final["trace"][0]["decided_by"] == "offline-fallback"
    assert final["findings"] and final["ranking"]


def test_a_finding_on_a_page_not_fetched_is_sent_back_for_repair(filings_index):
    replies = [
        choose("Statements of Income"),
        extracted(finding("Net sales FY2022", 5298, 99)),
        extracted(REVENUE),
        verdict("answer", answer="5,298", sources=["f1"], confidence="high"),
    ]
    final, model = run(filings_index, replies, llm_retries=1)
    assert "pages [99] were not fetched" in model.sent[2] or final["findings"][0]["page"] == 20
    assert final["findings"][0]["page"] == 20


def test_a_needs_repeating_a_searched_item_is_sent_back(filings_index):
    replies = [
        choose("Statements of Income"),
        extracted(REVENUE),
        verdict("needs", needs=MARGIN_QUESTION.upper(), reason="again"),
        verdict("fail", reason="operating income is not stated"),
    ]
    final, model = run(filings_index, replies, llm_retries=1)
    assert "already searched for" in model.sent[3]
    assert final["verdicts"][-1]["status"] == "fail"


def test_without_answer_the_verdict_keeps_the_answer_but_the_run_does_not(filings_index):
    replies = [
        choose("Statements of Income"),
        extracted(REVENUE),
        verdict("answer", answer="5,298", sources=["f1"], confidence="high"),
    ]
    final, _ = run(filings_index, replies, answer=False)
    assert final.get("answer") is None and final["verdicts"][-1]["answer"] == "5,298"


def test_ask_extraction_returns_trace_and_verdicts(filings_index):
    model = Scripted(
        replies=[
            choose("Statements of Income"),
            extracted(REVENUE, OPERATING),
            verdict("answer", answer="20.0%", sources=["f2"], calculation="f2 / f1 * 100"),
        ]
    )
    result = ask_extraction(MARGIN_QUESTION, llm_context(filings_index, model))
    assert result.answer == "20.0%"
    assert [s["node"] for s in result.history] == ["extractor", "synthesizer", "ranker"]
    assert result.subqueries[0]["calculation"]["agreed"] is True
