import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from corpus_builder import pdf_ocr
from evals.datasets import ConversionJob, get_adapter, load_questions
from evals.datasets.mmlongbench import question_id, source_label
from tools.errors import DatasetFormatError

BOX = {"page": 0, "page_size": [612, 792], "bbox": [70, 200, 380, 420]}


def sample(doc: str, question: str, pages: str, **extra: Any) -> dict[str, Any]:
    return {
        "doc_id": doc,
        "doc_type": "Research report / Introduction",
        "question": question,
        "answer": "5",
        "evidence_pages": pages,
        "evidence_sources": "['Chart', 'Pure-text (Plain-text)']",
        "answer_format": "Int",
        **extra,
    }


@pytest.fixture
def raw(
    tmp_path: Path, report_writer: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> Path:
    monkeypatch.setattr(pdf_ocr, "ocr_unavailable", lambda: "not in unit tests")
    folder = tmp_path / "raw"
    (folder / "documents").mkdir(parents=True)
    report_writer(folder / "documents" / "report.pdf")
    samples = [
        sample(
            "report.pdf", "How many bars has the chart?", "[1]", evidence_pages_zero_indexed=[0]
        ),
        sample("absent.pdf", "What is missing?", "[2]"),
        sample("report.pdf", "What does the scan say?", "[3]", evidence_sources="['Figure']"),
    ]
    (folder / "samples.json").write_text(json.dumps(samples), "utf-8")
    layouts = {
        "doc_name": "report.pdf",
        "questions": [
            {"Q": "How many bars has the chart?", "page_id": [0], "layout_mapping": [BOX]}
        ],
    }
    (folder / "mmdocir_layouts.jsonl").write_text(json.dumps(layouts) + "\n", "utf-8")
    return folder


def test_qid_is_mmlb_and_twelve_hex_digits_of_sha1_of_doc_newline_question() -> None:
    digest = hashlib.sha1(b"report.pdf\nHow many bars?").hexdigest()
    assert question_id("report.pdf", "How many bars?") == "mmlb-" + digest[:12]


def test_convert_writes_pages_regions_sources_and_skips_missing_pdfs(
    raw: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    report = get_adapter("mmlongbench")(ConversionJob(raw, out))
    assert (report.documents, report.questions) == (1, 2)
    assert report.problems_by_kind == {"pdf_missing": 1}
    [doc] = [json.loads(line) for line in (out / "corpus.jsonl").read_text().splitlines()]
    assert doc["doc_id"] == "report" and doc["textless_pages"] == [2]
    comps = {c["component_id"]: c for c in doc["components"]}
    chart, scan = [json.loads(line) for line in (out / "questions.jsonl").read_text().splitlines()]
    assert chart["qid"] == question_id("report.pdf", "How many bars has the chart?")
    assert chart["gold_pages"] == ["report#0"] and scan["gold_pages"] == ["report#2"]
    assert chart["gold_regions"] == [
        {"doc": "report", "page": 0, "bbox": [70.0, 200.0, 380.0, 420.0]}
    ]
    assert scan["gold_regions"] == []
    assert chart["answers"] == ["5"] and chart["answer_format"] == "Int"
    assert chart["evidence_sources"] == ["Chart", "Pure-text (Plain-text)"]
    assert chart["modalities"] == ["chart", "text"] and scan["modalities"] == ["figure"]
    assert (chart["textless_evidence"], scan["textless_evidence"]) == (False, True)
    for cid in chart["gold_components"]:
        assert comps[cid]["pages"] == [0, 0]
    assert any(comps[c]["type"] == "image" and "box" in comps[c] for c in chart["gold_components"])
    [page] = scan["gold_components"]
    assert comps[page]["box"] == [0.0, 0.0, 612.0, 792.0]
    examples = load_questions(out / "questions.jsonl").examples
    assert examples[0].gold_pages == ("report#0",)
    assert examples[0].extra["gold_regions"][0]["page"] == 0


def test_limit_and_a_missing_samples_file(raw: Path, tmp_path: Path) -> None:
    report = get_adapter("mmlongbench")(ConversionJob(raw, tmp_path / "one", limit=1))
    assert report.questions == 1
    (raw / "samples.json").unlink()
    with pytest.raises(DatasetFormatError, match="samples.json"):
        get_adapter("mmlongbench")(ConversionJob(raw, tmp_path / "none"))


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("Pure-text (Plain-text)", "text"),
        ("Generalized-text (Layout)", "layout"),
        ("Table", "table"),
        ("Chart", "chart"),
        ("Figure", "figure"),
        ("Something else", None),
    ],
)
def test_evidence_source_labels(name: str, label: str | None) -> None:
    assert source_label(name) == label


def test_questions_on_an_unreadable_pdf_are_told_apart_from_missing_ones(
    raw: Path, tmp_path: Path
) -> None:
    (raw / "documents" / "broken.pdf").write_bytes(b"not a pdf")
    samples = json.loads((raw / "samples.json").read_text())
    samples.append(sample("broken.pdf", "What is broken?", "[1]"))
    (raw / "samples.json").write_text(json.dumps(samples), "utf-8")
    report = get_adapter("mmlongbench")(ConversionJob(raw, tmp_path / "out"))
    assert report.problems_by_kind == {"pdf_missing": 1, "pdf_skipped": 1, "pdf_unreadable": 1}
