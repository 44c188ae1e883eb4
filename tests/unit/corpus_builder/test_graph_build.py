from pathlib import Path

import pytest

from corpus_builder.graph_build import build_layered_graph, has_hyperlinks
from corpus_builder.ingest import read_corpus
from corpus_builder.splitters import FixedCrops, split_components
from corpus_builder.summaries import ExtractiveSummarizer
from state.corpus import Document, IngestReport, Subcomponent
from tools.layered_graph import LayeredGraph

MINI = Path(__file__).resolve().parents[2] / "fixtures" / "mini_bundle"


def split(documents: list[Document]) -> dict[str, list[Subcomponent]]:
    return split_components(documents, FixedCrops())


def graph_of(corpus: Path, mentions: bool = False) -> tuple[LayeredGraph, IngestReport]:
    report = IngestReport()
    _, documents = read_corpus(corpus, report)
    summaries = {d.doc_id: ExtractiveSummarizer().summarize(d) for d in documents}
    return build_layered_graph(documents, split(documents), summaries, report, mentions), report


@pytest.fixture(scope="module")
def mini() -> tuple[LayeredGraph, IngestReport]:
    return graph_of(MINI)


def test_mini_bundle_graph_counts(mini) -> None:
    graph, _ = mini
    assert graph.counts() == {
        "document": 8,
        "paragraph": 17,
        "table": 1,
        "image": 1,
        "sentence": 27,
        "row": 6,
        "region": 4,
        "edges_contains": 19 + 27 + 6 + 4,
        "edges_links_to": 22 + 3,  # component hyperlinks + table rows' cell links
    }


def test_contains_edges_form_a_tree_from_documents_down(mini) -> None:
    graph, _ = mini
    g = graph.g
    for node, data in g.nodes(data=True):
        parents = [u for u in g.predecessors(node) if g.edges[u, node]["kind"] == "contains"]
        if data["layer"] == 0:
            assert parents == []
        elif data["layer"] == 1:
            assert parents == [data["doc_id"]]
        else:
            assert parents == [data["component_id"]]
            assert g.nodes[data["component_id"]]["doc_id"] == data["doc_id"]
    assert graph.children("warsaw") == ["warsaw::p0", "warsaw::p1", "warsaw::i0"]
    assert graph.children("warsaw::i0") == [f"warsaw::i0::o{n}" for n in range(4)]


def test_links_to_edges_come_from_components_and_table_rows(mini) -> None:
    graph, _ = mini
    g = graph.g
    linked = {v for v in g.successors("nobel_prize_physics::t0") if g.edges[
        "nobel_prize_physics::t0", v]["kind"] == "links_to"}  # fmt: skip
    assert linked == {"henri_becquerel", "pierre_curie", "marie_curie"}
    assert g.edges["nobel_prize_physics::t0::r4", "marie_curie"] == {
        "kind": "links_to",
        "origin": "hyperlink",
    }
    assert all(
        g.nodes[v]["layer"] == 0 for _, v, d in g.edges(data=True) if d["kind"] == "links_to"
    )
    assert not any(
        g.nodes[u]["layer"] == 0 for u, _, d in g.edges(data=True) if d["kind"] == "links_to"
    )


def test_node_attributes_keep_the_raw_content(mini) -> None:
    graph, _ = mini
    table = graph.node("nobel_prize_physics::t0")
    assert (table.layer, table.kind, table.doc_id) == (1, "table", "nobel_prize_physics")
    assert table.attrs["header"] == ["Year", "Laureate", "Country", "Rationale"]
    assert table.attrs["rows"][4][1] == "Marie Curie"
    region = graph.node("warsaw::i0::o3")
    assert region.attrs["box"] == [16, 16, 32, 32] and region.layer == 2
    assert graph.node("warsaw::i0").attrs["image_path"].endswith("warsaw_flag.png")
    assert graph.title("nobel_prize_physics") == "Nobel Prize in Physics"
    assert graph.node("polonium").text.startswith("Polonium. Polonium is a chemical element")


def test_unresolved_links_are_counted_with_examples(mini) -> None:
    _, report = mini
    assert report.unresolved_links == 1
    assert report.unresolved_examples == ["henri_becquerel::p0 -> uranium"]


def test_self_links_are_ignored_and_not_counted_as_unresolved(write_bundle, records) -> None:
    folder = write_bundle(
        [
            records.document(
                "warsaw", records.paragraph("warsaw::p0", "Warsaw.", ["warsaw", "krakow", "gone"])
            ),
            records.document("krakow", records.paragraph("krakow::p0", "Kraków.", ["warsaw"])),
        ]
    )
    graph, report = graph_of(folder)
    assert not graph.g.has_edge("warsaw::p0", "warsaw")
    assert graph.g.has_edge("warsaw::p0", "krakow") and graph.g.has_edge("krakow::p0", "warsaw")
    assert (report.unresolved_links, report.unresolved_examples) == (1, ["warsaw::p0 -> gone"])


def test_unresolved_examples_are_capped_but_all_counted(write_bundle, records) -> None:
    targets = [f"missing_{n}" for n in range(30)]
    folder = write_bundle([records.document("a", records.paragraph("a::p0", "A.", targets))])
    _, report = graph_of(folder)
    assert report.unresolved_links == 30 and len(report.unresolved_examples) == 20


def test_mention_links_join_sentences_to_named_documents(write_bundle, records) -> None:
    folder = write_bundle(
        [
            records.document(
                "demon_dice",
                records.paragraph(
                    "dd::p0", "Demon Dice is a dice game. Its demons recall Lilu of old myths."
                ),
                title="Demon Dice",
            ),
            records.document(
                "lilu", records.paragraph("lilu::p0", "Lilu is a demon."), title="Lilu (mythology)"
            ),
        ]
    )
    plain, _ = graph_of(folder)
    assert plain.counts().get("edges_links_to", 0) == 0
    graph, report = graph_of(folder, mentions=True)
    assert graph.g.edges["dd::p0::s1", "lilu"] == {"kind": "links_to", "origin": "mention"}
    assert graph.g.edges["dd::p0", "lilu"]["origin"] == "mention"
    assert not graph.g.has_edge("dd::p0::s0", "demon_dice")
    assert graph.counts()["edges_links_to"] == 2 and report.unresolved_links == 0


def test_mention_links_join_table_rows_by_their_cells(write_bundle, records) -> None:
    folder = write_bundle(
        [
            records.document(
                "draft",
                records.table("draft::t0", ["Player", "Club"], [["Matthew Kreuzer", "Carlton"]]),
                title="2007 AFL draft",
            ),
            records.document(
                "kreuzer",
                records.paragraph("kreuzer::p0", "A footballer."),
                title="Matthew Kreuzer",
            ),
            records.document("club", records.paragraph("club::p0", "A word."), title="Club"),
        ]
    )
    graph, _ = graph_of(folder, mentions=True)
    assert graph.g.edges["draft::t0::r0", "kreuzer"]["origin"] == "mention"
    assert graph.g.edges["draft::t0", "kreuzer"]["origin"] == "mention"
    assert not graph.g.has_edge("draft::t0::r0", "club")  # a column name is not a mention


def test_has_hyperlinks(write_bundle, records) -> None:
    _, documents = read_corpus(MINI, IngestReport())
    assert has_hyperlinks(documents)
    folder = write_bundle([records.document("a", records.paragraph("a::p0", "No links."))])
    _, documents = read_corpus(folder, IngestReport())
    assert not has_hyperlinks(documents)
