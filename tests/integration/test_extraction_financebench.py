"""The extraction loop offline on a real FinanceBench filing (the packaged embedder, a PDF).

AMCOR's FY2023 Q4 earnings release is built into an index of its own; the loop must cite
real pages, and the release's evidence page for adjusted EBITDA must rank in its top 10.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from corpus_builder.build import BuildOptions, build
from graph_agent.extraction_graph import ask_extraction
from state.extraction_state import ExtractionContext
from tools.corpus_index import open_index

pytestmark = pytest.mark.integration

DATA = Path(
    os.environ.get("FIF_FINANCEBENCH_DIR")
    or Path(os.environ.get("FIF_DATA_DIR", "data")) / "financebench-dev"
)
RELEASE = "AMCOR_2023Q4_EARNINGS"
QUESTION = "What Was AMCOR's Adjusted Non GAAP EBITDA for FY 2023"
EVIDENCE_PAGE = 11
"""Zero-indexed evidence page of the question (financebench_open_source.jsonl)."""


@pytest.fixture(scope="module")
def release_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pdf = DATA / "pdfs" / f"{RELEASE}.pdf"
    if not pdf.is_file():
        pytest.skip(f"FinanceBench dev set not at {DATA}; set FIF_DATA_DIR or FIF_FINANCEBENCH_DIR")
    folder = tmp_path_factory.mktemp("release")
    shutil.copy(pdf, folder / pdf.name)
    index_dir = folder / "index"
    build(folder / pdf.name, index_dir, BuildOptions(show_progress=False))
    return index_dir


def test_the_loop_cites_real_pages_and_ranks_the_evidence_page(release_index: Path) -> None:
    context = ExtractionContext(index_dir=str(release_index), answer=True)
    result = ask_extraction(QUESTION, context)
    graph = open_index(release_index).graph
    pages = graph.page_ranking([r["component_id"] for r in result.ranking])
    assert f"{RELEASE}#{EVIDENCE_PAGE}" in pages[:10], pages[:10]
    verdict = result.subqueries[-1]
    assert verdict["status"] in {"answer", "fail"}
    if verdict["status"] == "answer":
        assert result.answer and verdict["sources"][0].startswith(f"{RELEASE}#")
    assert [s["node"] for s in result.history][0] == "extractor"
    assert result.cost["llm_calls"] == 0
