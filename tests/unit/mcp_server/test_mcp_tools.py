"""The MCP tools as plain functions on the mini index (hash embedder) and a synthetic PDF."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from mcp_server import browse, tools
from mcp_server.budget import size
from mcp_server.lookup import ToolInputError
from mcp_server.settings import ServerSettings
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE, Manifest

PDF_DOC = "acme_2023_10k"


@pytest.fixture(scope="module")
def settings(mini_index: Path) -> ServerSettings:
    return ServerSettings(mini_index)


@pytest.fixture(scope="module")
def graph(mini_index: Path) -> LayeredGraph:
    return LayeredGraph.load(mini_index / GRAPH_FILE)


@pytest.fixture
def own_index(mini_index: Path, tmp_path: Path) -> ServerSettings:
    """A private copy: `ask` checkpoints its runs next to the index."""
    return ServerSettings(Path(shutil.copytree(mini_index, tmp_path / "index")))


@pytest.fixture
def pdf_settings(
    tmp_path: Path, filing_writer: Callable[..., Path], hash_build: Callable[..., Manifest]
) -> ServerSettings:
    pdf = filing_writer(tmp_path / f"{PDF_DOC}.pdf")
    hash_build(pdf, tmp_path / "pdf-index")
    return ServerSettings(tmp_path / "pdf-index")


@pytest.mark.parametrize("mode", ["dense", "sparse", "hybrid"])
def test_search_ranks_components_with_their_place_and_a_snippet(
    settings: ServerSettings, graph: LayeredGraph, mode: tools.SearchMode
) -> None:
    result = tools.search(settings, "  polonium   discovered ", 4, mode, 8000)
    assert result.query == "polonium discovered" and result.mode == mode
    assert [hit.rank for hit in result.hits] == [1, 2, 3, 4] and not result.truncated
    assert "polonium::p0" in [hit.component_id for hit in result.hits]
    for hit in result.hits:
        view = graph.node(hit.component_id)
        assert view.layer == 1 and (hit.doc_id, hit.type) == (view.doc_id, view.kind)
        assert hit.document_title == graph.title(view.doc_id) and hit.pages is None
        assert " ".join(view.text.split()).startswith(hit.snippet.rstrip("…")[:40])
    scores = [hit.score for hit in result.hits]
    assert scores == sorted(scores, reverse=True)


def test_search_fits_max_chars_and_says_so(settings: ServerSettings) -> None:
    result = tools.search(settings, "Curie", 20, "dense", 1000)
    assert result.truncated and "raise max_chars" in result.note
    assert 0 < len(result.hits) < 20 and size(result) <= 1000


def test_an_empty_query_is_a_tool_input_error(settings: ServerSettings) -> None:
    with pytest.raises(ToolInputError, match="query is empty"):
        tools.search(settings, " \n ", 3, "dense", 8000)


def test_get_component_gives_full_text_parent_children_and_links(
    settings: ServerSettings, graph: LayeredGraph
) -> None:
    result = browse.get_component(settings, "marie_curie::p1", 8000)
    assert result.text == graph.node("marie_curie::p1").text and not result.truncated
    assert result.parent_id == "marie_curie" and result.type == "paragraph"
    assert result.children_ids == graph.children("marie_curie::p1")
    assert result.children_total == len(result.children_ids) > 1
    assert {"pierre_curie", "polonium", "radium"} <= set(result.links_to_documents)
    sentence = browse.get_component(settings, result.children_ids[0], 8000)
    assert sentence.parent_id == "marie_curie::p1" and sentence.type == "sentence"


def test_get_component_renders_a_table_whole(settings: ServerSettings) -> None:
    result = browse.get_component(settings, "nobel_prize_physics::t0", 8000)
    assert result.type == "table" and "Wilhelm Röntgen" in result.text
    assert "Year: 1902" in result.text and not result.truncated


@pytest.mark.parametrize(
    ("wanted", "message"),
    [
        ("marie_curie::p9", "close ids: marie_curie::p"),
        ("marie_curei::p1", "no document 'marie_curei'.*close ids: marie_curie"),
        ("zzzz::p0", "no id is close; search returns"),
        ("marie_curie", "is a document; call get_document"),
        ("", "component_id is empty"),
    ],
)
def test_get_component_errors_name_close_ids_or_the_tool_to_call(
    settings: ServerSettings, wanted: str, message: str
) -> None:
    with pytest.raises(ToolInputError, match=message):
        browse.get_component(settings, wanted, 8000)


def test_get_document_lists_components_in_reading_order(
    settings: ServerSettings, graph: LayeredGraph
) -> None:
    result = browse.get_document(settings, "warsaw", 0, 8000)
    assert result.title == "Warsaw" and result.summary and result.page_count is None
    assert [c.component_id for c in result.components] == graph.children("warsaw")
    assert result.components_total == 3 and result.next_offset is None
    assert [c.type for c in result.components] == ["paragraph", "paragraph", "image"]


def test_get_document_pages_through_a_small_budget(
    settings: ServerSettings, graph: LayeredGraph
) -> None:
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        result = browse.get_document(settings, "marie_curie", offset, 1000)
        assert size(result) <= 1000 and result.offset == offset
        seen += [c.component_id for c in result.components]
        offset = result.next_offset
    assert seen == graph.children("marie_curie")


def test_get_document_errors(settings: ServerSettings) -> None:
    with pytest.raises(ToolInputError, match="close ids: pierre_curie"):
        browse.get_document(settings, "pierre_cury", 0, 8000)
    with pytest.raises(ToolInputError, match="is a component, not a document.*'polonium'"):
        browse.get_document(settings, "polonium::p0", 0, 8000)
    with pytest.raises(ToolInputError, match="offset 9 is past the 2 components"):
        browse.get_document(settings, "polonium", 9, 8000)


def test_get_page_refuses_documents_without_pages(settings: ServerSettings) -> None:
    with pytest.raises(ToolInputError, match="no pages .*not built from a PDF.*get_document"):
        browse.get_page(settings, "polonium", 0, 8000)


def test_pdf_pages_list_their_components_in_reading_order(pdf_settings: ServerSettings) -> None:
    document = browse.get_document(pdf_settings, PDF_DOC, 0, 8000)
    assert document.page_count == 3
    order = [c.component_id for c in document.components]
    for page in range(3):
        result = browse.get_page(pdf_settings, PDF_DOC, page, 8000)
        ids = [c.component_id for c in result.components]
        assert ids and ids == sorted(ids, key=order.index)
        for component in result.components:
            assert component.pages is not None and component.pages[0] <= page <= component.pages[1]
    table = next(c for c in document.components if c.type == "table")
    assert table.pages is not None and table.pages[0] < table.pages[1]
    first, second = (
        next(
            c.text
            for c in browse.get_page(pdf_settings, PDF_DOC, p, 8000).components
            if c.component_id == table.component_id
        )
        for p in table.pages
    )
    assert "Anvil model A0" in first and "Anvil model A0" not in second
    with pytest.raises(ToolInputError, match=r"page 3 is out of range .*0\.\.2 \(3 pages\)"):
        browse.get_page(pdf_settings, PDF_DOC, 3, 8000)


def test_pdf_hits_carry_pages_and_sections(pdf_settings: ServerSettings) -> None:
    result = tools.search(pdf_settings, "revenue recognition anvil ships", 3, "sparse", 8000)
    assert result.hits and all(hit.pages is not None for hit in result.hits)
    assert any(hit.section for hit in result.hits)
    component = browse.get_component(pdf_settings, result.hits[0].component_id, 8000)
    assert component.pages == result.hits[0].pages and component.section


def test_ask_runs_fif_offline_with_trace_and_cost(own_index: ServerSettings) -> None:
    result = tools.ask(own_index, "Who discovered polonium?", "fif", 5, True, 8000)
    assert result.system == "fif" and result.thread_id and not result.truncated
    assert 0 < len(result.ranking) <= 5 and result.ranking[0].rank == 1
    assert "polonium::p0" in [hit.component_id for hit in result.ranking]
    assert result.trace and result.trace[0].subquery and "/" in result.trace[0].strategy
    assert result.answer and "llm_calls" in result.cost and result.latency_ms > 0


def test_ask_runs_another_system_and_fits_a_small_budget(own_index: ServerSettings) -> None:
    result = tools.ask(own_index, "Who discovered polonium?", "dense", 20, False, 1000)
    assert result.system == "dense" and result.answer is None and result.trace == []
    assert result.truncated and "ranking" in result.note and size(result) <= 1000


def test_ask_errors_name_the_known_systems(own_index: ServerSettings) -> None:
    with pytest.raises(ToolInputError, match="unknown system 'hippo'; choose one of fif, "):
        tools.ask(own_index, "Who?", "hippo", 5, False, 8000)
    with pytest.raises(ToolInputError, match="question is empty"):
        tools.ask(own_index, "   ", "fif", 5, False, 8000)


def test_warm_opens_the_index_once_with_its_bm25_layers(own_index: ServerSettings) -> None:
    own_index.warm()
    index = own_index.index()
    assert "sparse" in index._loaded and own_index.index() is index


def test_search_answers_from_the_index_a_build_published_meanwhile(
    mini_index: Path, mini_bundle: Path, tmp_path: Path, hash_build: Callable[..., object]
) -> None:
    index = Path(shutil.copytree(mini_index, tmp_path / "index", symlinks=True))
    served = ServerSettings(index)
    query = "Quillfeather lighthouse keeper"
    before = tools.search(served, query, 3, "sparse", 4000)
    assert all(not h.component_id.startswith("quillfeather") for h in before.hits)
    page = {
        "doc_id": "quillfeather_light",
        "title": "Quillfeather Light",
        "components": [
            {
                "component_id": "quillfeather_light::p0",
                "type": "paragraph",
                "text": "Quillfeather Light is a lighthouse whose last keeper left in 1961.",
            }
        ],
    }
    corpus = mini_bundle / "corpus.jsonl"
    corpus.write_text(corpus.read_text() + json.dumps(page) + "\n")
    hash_build(mini_bundle, index, update=True)
    after = tools.search(served, query, 3, "sparse", 4000)
    assert after.hits[0].component_id.startswith("quillfeather_light")
