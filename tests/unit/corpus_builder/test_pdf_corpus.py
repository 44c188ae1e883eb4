import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from corpus_builder.bundle import read_bundle
from corpus_builder.bundle_write import document_record
from corpus_builder.images import ImageGuard
from corpus_builder.ingest import corpus_kind, read_corpus
from corpus_builder.splitters import FixedCrops, sentence_subcomponents, split_components
from corpus_builder.summaries import ExtractiveSummarizer
from state.corpus import Component, IngestReport
from tools.index import ChromaLayers
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE, Manifest

HTML_PAGE = "<html><head><title>Anvils</title></head><body><p>Anvils are heavy.</p></body></html>"


def mixed_folder(tmp_path: Path, filing_pdf: Path) -> Path:
    folder = tmp_path / "corpus"
    folder.mkdir()
    shutil.copy(filing_pdf, folder / filing_pdf.name)
    (folder / "anvils.html").write_text(HTML_PAGE, encoding="utf-8")
    return folder


def test_a_pdf_file_a_pdf_folder_and_a_mixed_folder_are_corpora(
    tmp_path: Path, filing_pdf: Path
) -> None:
    assert corpus_kind(filing_pdf) == "pdf"
    assert corpus_kind(filing_pdf.parent) == "pdf"
    folder = mixed_folder(tmp_path, filing_pdf)
    kind, documents = read_corpus(folder, IngestReport())
    assert kind == "html"
    assert sorted(d.doc_id for d in documents) == ["acme_2023_10k", "anvils"]


def test_bundle_records_carry_pages_sections_and_references(
    tmp_path: Path, filing_pdf: Path
) -> None:
    _, [document] = read_corpus(filing_pdf, IngestReport())
    bundle = tmp_path / "corpus.jsonl"
    bundle.write_text(json.dumps(document_record(document)) + "\n", encoding="utf-8")
    [back] = read_bundle(bundle, IngestReport(), ImageGuard(tmp_path))
    assert replace(back, source=document.source) == document
    table = next(c for c in back.components if c.kind == "table")
    assert table.pages == (0, 1) and table.table is not None and table.table.row_pages


def test_sentences_and_rows_get_the_page_they_are_printed_on() -> None:
    text = "First page sentence ends here. Second page sentence goes on. Third one."
    component = Component(
        "d::p0", "d", "paragraph", 0, text=text, pages=(3, 4), page_starts=(text.index("Second"),)
    )
    subs = sentence_subcomponents(component)
    assert [s.pages for s in subs] == [(3, 3), (4, 4), (4, 4)]


def test_built_graph_maps_every_pdf_node_to_its_pages(
    tmp_path: Path, filing_pdf: Path, hash_build: Callable[..., Manifest]
) -> None:
    folder = mixed_folder(tmp_path, filing_pdf)
    index_dir = tmp_path / "index"
    manifest = hash_build(folder, index_dir)
    assert manifest.complete and manifest.counts["edges_refers_to"] >= 2
    graph = LayeredGraph.load(index_dir / GRAPH_FILE)
    assert graph.node("acme_2023_10k").attrs["page_count"] == 3
    table = "acme_2023_10k::t0"
    assert graph.pages(table) == (0, 1)
    assert graph.page_keys(table) == ["acme_2023_10k#0", "acme_2023_10k#1"]
    assert graph.node(table).section == ("Item 7. Management's Discussion and Analysis",)
    rows = graph.children(table)
    assert graph.section(rows[0]) == graph.node(table).section
    assert graph.pages(rows[0]) == (0, 0) and graph.pages(rows[-1]) == (1, 1)
    for layer in (1, 2):
        pdf_nodes = [n for n in graph.nodes_at(layer) if n.startswith("acme_2023_10k")]
        assert pdf_nodes and all(graph.pages(n) is not None for n in pdf_nodes)
    html = next(n for n in graph.nodes_at(1) if n.startswith("anvils"))
    assert graph.pages(html) is None and graph.page_keys(html) == []


def test_pdf_summary_names_title_and_sections(filing_pdf: Path) -> None:
    _, [document] = read_corpus(filing_pdf, IngestReport())
    summary = ExtractiveSummarizer().summarize(document)
    assert summary.startswith("ACME Corp Annual Report 2023.")
    assert "Item 7. Management's Discussion and Analysis" in summary
    assert "Item 8. Financial Statements" in summary


def test_split_components_keeps_pdf_row_pages(filing_pdf: Path) -> None:
    _, documents = read_corpus(filing_pdf, IngestReport())
    subs = split_components(documents, FixedCrops())
    rows = subs["acme_2023_10k::t0"]
    assert {s.pages for s in rows} == {(0, 0), (1, 1)}


def test_pdf_vectors_carry_their_pages_in_chroma(
    tmp_path: Path, filing_pdf: Path, hash_build: Callable[..., Manifest]
) -> None:
    manifest = hash_build(filing_pdf, tmp_path / "index")
    layers = ChromaLayers.open(tmp_path / "index", None, manifest.name)
    for layer in ("document", "component", "subcomponent"):
        layers.collection(layer)
    table = layers.stored_metadata("component")["acme_2023_10k::t0"]
    assert (table["page_first"], table["page_last"]) == (0, 1)
    rows = layers.stored_metadata("subcomponent")
    assert rows["acme_2023_10k::t0::r0"]["page_last"] == 0
    assert "page_first" not in layers.stored_metadata("document")["acme_2023_10k"]


def test_fif_build_pdf_limits_come_from_the_command_line(tmp_path: Path, filing_pdf: Path) -> None:
    from typer.testing import CliRunner

    from fif import cli

    folder = mixed_folder(tmp_path, filing_pdf)
    args = ["build", str(folder), "--embedder", "hash:64", "--no-progress", "--index"]
    result = CliRunner().invoke(cli.app, [*args, str(tmp_path / "i1"), "--pdf-max-pages", "1"])
    assert result.exit_code == 0, result.output
    skipped = Manifest.load(tmp_path / "i1").skipped
    assert any("over the 1-page limit" in s and "--pdf-max-pages" in s for s in map(str, skipped))
    assert LayeredGraph.load(tmp_path / "i1" / GRAPH_FILE).counts()["document"] == 1  # the HTML
    result = CliRunner().invoke(cli.app, [*args, str(tmp_path / "i2"), "--pdf-max-pages", "50"])
    assert result.exit_code == 0, result.output
    assert LayeredGraph.load(tmp_path / "i2" / GRAPH_FILE).counts()["document"] == 2


def test_by_default_only_pdf_sentences_are_embedded_in_their_paragraph(
    tmp_path: Path, filing_pdf: Path
) -> None:
    from corpus_builder.build import BuildOptions, build
    from corpus_builder.contextual import contextual_documents
    from corpus_builder.embed_content import SentenceInContext
    from corpus_builder.layer_items import embed_items
    from tools.embedders import HashEmbedder

    folder = mixed_folder(tmp_path, filing_pdf)
    _, documents = read_corpus(folder, IngestReport())
    pdf_only = contextual_documents(documents, None, HashEmbedder(8))
    assert pdf_only == {"acme_2023_10k"}
    assert contextual_documents(documents, True, HashEmbedder(8)) == {"acme_2023_10k", "anvils"}
    assert contextual_documents(documents, False, HashEmbedder(8)) == set()
    subs = split_components(documents, FixedCrops())
    _, _, items = embed_items(documents, subs, {d.doc_id: d.title for d in documents}, pdf_only)
    marked = {i.metadata["doc_id"] for i in items if isinstance(i.content, SentenceInContext)}
    assert marked == {"acme_2023_10k"}
    options = BuildOptions(text_embedder="hash:64", show_progress=False)
    manifest = build(folder, tmp_path / "index", options)
    assert manifest.options["sentence_vectors"] == "contextual in PDFs (1 of 2)"
