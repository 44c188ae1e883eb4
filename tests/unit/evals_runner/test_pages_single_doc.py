"""Page metrics and the single-document setting, on two synthetic filings built with fpdf2."""

import json
from pathlib import Path

import pytest

from evals.report import write_report
from evals.runner import run
from tools.errors import ConfigError
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE

QUESTION = "How is revenue recognised when an anvil ships?"


@pytest.fixture
def filings(tmp_path: Path, filing_writer, hash_build) -> tuple[Path, Path]:  # type: ignore[no-untyped-def]
    folder = tmp_path / "filings"
    folder.mkdir()
    filing_writer(folder / "acme_2023_10k.pdf")
    filing_writer(folder / "zeta_2022_10k.pdf")
    hash_build(folder, tmp_path / "index")
    return folder, tmp_path / "index"


def write_questions(folder: Path, graph: LayeredGraph, with_docs: bool = True) -> Path:
    note = next(
        n
        for n in graph.nodes_at(1)
        if n.startswith("zeta") and "revenue" in graph.node(n).text.lower()
    )
    record = {
        "qid": "q1",
        "question": QUESTION,
        "answers": ["when an anvil ships"],
        "gold_components": [note],
        "gold_pages": graph.page_keys(note),
    }
    if with_docs:
        record["question_docs"] = ["zeta_2022_10k"]
    bundle = folder / ("bundle" if with_docs else "bundle_no_docs")
    bundle.mkdir(exist_ok=True)
    (bundle / "questions.jsonl").write_text(json.dumps(record) + "\n")
    return bundle


def test_results_carry_pages_and_the_report_scores_them(
    filings: tuple[Path, Path], tmp_path: Path
) -> None:
    _, index = filings
    graph = LayeredGraph.load(index / GRAPH_FILE)
    bundle = write_questions(tmp_path, graph)
    run(["dense", "fif"], bundle, index, tmp_path / "out", progress=False, single_doc=True)
    lines = [
        json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()
    ]
    for line in lines:
        assert line["ranking"] and all(c.startswith("zeta_2022_10k") for c in line["ranking"])
        expected = list(dict.fromkeys(p for c in line["ranking"] for p in graph.page_keys(c)))
        assert line["pages"] == expected and all(
            p.startswith("zeta_2022_10k#") for p in line["pages"]
        )
    report = write_report(tmp_path / "out", plots=False)
    assert report.report.has_pages
    assert {"PageR@1", "PageR@10", "AllPages@10", "PageMRR@10"} <= set(
        report.report.systems[0].quality
    )
    assert "PageR@5" in report.markdown


def test_shared_store_may_leave_the_question_filing(
    filings: tuple[Path, Path], tmp_path: Path
) -> None:
    _, index = filings
    bundle = write_questions(tmp_path, LayeredGraph.load(index / GRAPH_FILE))
    run(["dense"], bundle, index, tmp_path / "out", progress=False)
    line = json.loads((tmp_path / "out" / "results.jsonl").read_text().splitlines()[0])
    assert {c.split("::")[0] for c in line["ranking"]} == {"acme_2023_10k", "zeta_2022_10k"}


def test_single_doc_needs_question_docs(filings: tuple[Path, Path], tmp_path: Path) -> None:
    _, index = filings
    bundle = write_questions(tmp_path, LayeredGraph.load(index / GRAPH_FILE), with_docs=False)
    with pytest.raises(ConfigError, match="question_docs"):
        run(["dense"], bundle, index, tmp_path / "out", progress=False, single_doc=True)
