import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from corpus_builder.ingest import read_corpus
from evals.datasets import ConversionJob, get_adapter, load_questions
from state.corpus import IngestReport
from tools.errors import DatasetFormatError


def question(qid: str, doc: str, page: int, evidence: str) -> dict[str, Any]:
    return {
        "financebench_id": qid,
        "company": "ACME",
        "doc_name": doc,
        "question_type": "metrics-generated",
        "question": f"What does {doc} say about revenue?",
        "answer": "It grew.",
        "justification": "Read off the page.",
        "evidence": [{"evidence_text": evidence, "doc_name": doc, "evidence_page_num": page}],
    }


def write_raw(
    raw: Path, filing_writer: Callable[..., Path], questions: list[dict[str, Any]]
) -> None:
    (raw / "pdfs").mkdir(parents=True)
    filing_writer(raw / "pdfs" / "ACME_2023_10K.pdf")
    lines = [json.dumps(q) for q in questions]
    (raw / "financebench_open_source.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    info = {"doc_name": "ACME_2023_10K", "company": "ACME", "doc_link": "https://example/acme"}
    (raw / "financebench_document_information.jsonl").write_text(json.dumps(info) + "\n", "utf-8")


def test_convert_writes_pages_and_derived_gold_components(
    tmp_path: Path, filing_writer: Callable[..., Path]
) -> None:
    raw, out = tmp_path / "raw", tmp_path / "out"
    write_raw(raw, filing_writer, [
        question("fb_1", "ACME_2023_10K", 2, "We recognise revenue when an anvil ships"),
        question("fb_2", "OTHER_2023_10K", 0, "absent"),
    ])  # fmt: skip
    report = get_adapter("financebench")(ConversionJob(raw, out, split="dev"))
    assert (report.documents, report.questions) == (1, 1)
    assert report.problems_by_kind == {"pdf_missing": 1}
    [doc] = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert doc["url"] == "https://example/acme" and doc["page_count"] == 3
    comps = {c["component_id"]: c for c in doc["components"]}
    [record] = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    assert record["qid"] == "fb_1" and record["answers"] == ["It grew."]
    assert record["gold_pages"] == ["ACME_2023_10K#2"]
    assert record["question_docs"] == ["ACME_2023_10K"]
    assert record["question_type"] == "metrics-generated"
    assert record["gold_docs"] == ["ACME_2023_10K"]
    assert record["gold_components"]
    for cid in record["gold_components"]:
        assert comps[cid]["pages"][0] <= 2 <= comps[cid]["pages"][1]
    assert any(
        "We recognise revenue" in comps[c].get("text", "") for c in record["gold_components"]
    )
    [example] = load_questions(out / "questions.jsonl").examples
    assert example.gold_pages == ("ACME_2023_10K#2",)
    assert example.question_docs == ("ACME_2023_10K",)


def test_bundle_and_direct_build_hold_the_same_documents(
    tmp_path: Path, filing_writer: Callable[..., Path]
) -> None:
    raw, out = tmp_path / "raw", tmp_path / "out"
    write_raw(raw, filing_writer, [question("fb_1", "ACME_2023_10K", 0, "ACME")])
    get_adapter("financebench")(ConversionJob(raw, out))
    _, from_bundle = read_corpus(out, IngestReport())
    _, direct = read_corpus(raw / "pdfs", IngestReport())
    assert [d.components for d in from_bundle] == [d.components for d in direct]


def test_the_bundle_carries_each_pdf_so_an_index_shows_its_pages(
    tmp_path: Path, filing_writer: Callable[..., Path]
) -> None:
    from tools.layered_graph import LayeredGraph

    raw, out = tmp_path / "raw", tmp_path / "out"
    write_raw(raw, filing_writer, [question("fb_1", "ACME_2023_10K", 0, "ACME")])
    get_adapter("financebench")(ConversionJob(raw, out))
    [doc] = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert doc["source_file"] == "files/ACME_2023_10K.pdf"
    copied = out / doc["source_file"]
    assert copied.read_bytes() == (raw / "pdfs" / "ACME_2023_10K.pdf").read_bytes()
    shutil.rmtree(raw)  # the raw download may go: the bundle is enough
    _, [document] = read_corpus(out, IngestReport())
    assert document.source == str(copied.resolve())
    graph = LayeredGraph()
    graph.add_document(document, "")
    assert graph.node("ACME_2023_10K").attrs["source"] == str(copied.resolve())


def test_a_source_file_outside_the_bundle_is_reported_and_left_out(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (tmp_path / "secret.pdf").write_bytes(b"%PDF-1.4")
    line = {
        "doc_id": "d1",
        "source_file": "../secret.pdf",
        "components": [
            {"component_id": "d1::paragraph0", "type": "paragraph", "text": "Some text."}
        ],
    }
    (bundle / "corpus.jsonl").write_text(json.dumps(line) + "\n")
    report = IngestReport()
    _, [document] = read_corpus(bundle, report)
    assert not document.source.endswith(".pdf")
    assert any("outside the bundle" in item.problem for item in report.repaired)


def test_no_usable_question_is_an_error(tmp_path: Path, filing_writer: Callable[..., Path]) -> None:
    raw = tmp_path / "raw"
    write_raw(raw, filing_writer, [question("fb_9", "MISSING_10K", 0, "x")])
    with pytest.raises(DatasetFormatError, match="no usable question"):
        get_adapter("financebench")(ConversionJob(raw, tmp_path / "out"))
