"""`fif build`: corpus → components → subcomponents → summaries → layered graph → layer indices.

Every layer gets a Chroma collection of vectors and a BM25 index (tools.sparse_index), and
every component its analysed words (tools.component_terms); the vectors are also copied to
numpy files for fast opening (tools.vector_mirror).
With `BuildOptions.triplets` the text units also get an LLM-extracted triplet KB in its own
collection (corpus_builder.triplet_kb); its model is checked before anything is written.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import cast

from corpus_builder.build_manifest import finish_manifest, start_manifest
from corpus_builder.build_options import BuildOptions
from corpus_builder.contextual import ContextualEmbedding, contextual_documents, sentence_vectors
from corpus_builder.document_hashes import DOCUMENTS_FILE, document_changes, save_hashes
from corpus_builder.embed_stage import EmbedStats, IncrementalIndexer
from corpus_builder.filing_identity import sync_terms
from corpus_builder.graph_build import build_layered_graph, has_hyperlinks
from corpus_builder.image_layer import sync_image_layer
from corpus_builder.ingest import corpus_info, read_corpus
from corpus_builder.layer_items import embed_items, sparse_items
from corpus_builder.pdf_ingest import read_pdfs
from corpus_builder.pdf_ocr import OCR_CACHE, OcrOptions
from corpus_builder.ray_embed import ray_embedder
from corpus_builder.ray_parse import ray_read_pdfs
from corpus_builder.region_proposers import proposer_id
from corpus_builder.sentence_store import SENTENCES_FILE, split_with_store
from corpus_builder.summary_store import summarize_documents
from corpus_builder.triplet_kb import sync_triplet_kb
from state.corpus import Document, IngestReport, Subcomponent
from tools.embedders import (
    ContextEmbedder,
    Embedder,
    load_embedder,
)
from tools.errors import CorpusFormatError, IndexMismatchError
from tools.index import INDEX_LAYERS, ChromaLayers
from tools.index_lock import writer_lock
from tools.index_versions import check_updatable, publish, start_version
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE, SUMMARIES_FILE, CorpusInfo, Manifest
from tools.ray_cluster import ray_session
from tools.server_versions import start_server_version
from tools.sparse_index import sync_sparse_layers
from tools.vector_mirror import update_mirror

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Parsed:
    """What the stages before embedding made: documents, their splits, summaries and graph."""

    documents: list[Document]
    subcomponents: dict[str, list[Subcomponent]]
    summaries: dict[str, str]
    graph: LayeredGraph


class _Clock:
    def __init__(self) -> None:
        self.timings: dict[str, float] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        logger.info("stage %s", name)
        yield
        self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - started


def build(corpus: Path, index_dir: Path, options: BuildOptions | None = None) -> Manifest:
    """Build (or bring up to date) the index of a corpus and return its manifest.

    The index folder's writer lock is held throughout (tools.index_lock). The build writes
    a staging copy of the live version and publishes it at the end (tools.index_versions),
    so readers see the old index until then. With `options.update`, an index must exist.

    Raises:
        IndexBusyError: If another build is writing the same folder.
        IndexNotFoundError: If `options.update` is set and there is no index to update.
    """
    options = options or BuildOptions()
    if options.triplets is not None:  # before anything is written: never a half-built index
        options.triplets.check()
    with writer_lock(index_dir), ray_session(options.ray):
        if options.update:
            check_updatable(index_dir)
        manifest, staging = _build(corpus, index_dir, options)
        publish(index_dir, staging)
        return manifest


def _build(corpus: Path, index_dir: Path, options: BuildOptions) -> tuple[Manifest, Path]:
    """Build into a staging version of `index_dir` (tools.index_versions); return both."""
    clock, report = _Clock(), IngestReport()
    started = time.perf_counter()
    with clock.stage("copy"):
        target = start_version(index_dir)
    with clock.stage("parse"):
        kind, documents, info = _parse(corpus, index_dir, options, report)
        hashes, changed = document_changes(documents, target / DOCUMENTS_FILE)
    with clock.stage("split"):
        sentences = target / SENTENCES_FILE
        subcomponents = split_with_store(documents, options.region_proposer, sentences)
    with clock.stage("summarize"):
        run = summarize_documents(documents, options.summarizer, target / SUMMARIES_FILE)
    mentions = _wants_mentions(options, documents)
    with clock.stage("graph"):
        graph = build_layered_graph(documents, subcomponents, run.summaries, report, mentions)
        graph.save(target / GRAPH_FILE)
    previous = Manifest.load(target) if (target / "manifest.json").is_file() else None
    options = options.keeping_encoder(previous.text_embedder.spec if previous else None)
    text_embedder, image_embedder = _load_embedders(options)
    options = _follow_embedder_change(index_dir, previous, options, text_embedder)
    manifest = start_manifest(index_dir, previous, options, info, text_embedder, image_embedder)
    with clock.stage("copy"):  # a Chroma server's vectors: into this version's collections
        start_server_version(previous, manifest, target, options.rebuild)
    manifest.save(target)  # complete=False until the last stage finishes
    manifest.documents = changed
    manifest.counts = graph.counts()
    manifest.options = {
        "link_mentions": mentions,
        "summarizer": options.summarizer.summarizer_id,
        "regions": proposer_id(options.region_proposer),
    }
    manifest.summaries = run.counts
    parsed = _Parsed(documents, subcomponents, run.summaries, graph)
    embedders = (text_embedder, image_embedder)
    indexer = _index((index_dir, target), manifest, parsed, embedders, options, report)
    stats = indexer.stats
    clock.timings.update(embed=stats.embed_seconds, index=stats.index_seconds)
    _index_words(target, manifest, parsed, options.rebuild, clock)
    with clock.stage("vectors"):  # the copy is read back from Chroma: it must come last
        manifest.vectors_token = _copy_vectors(target, previous, indexer, graph)
    clock.timings["total"] = time.perf_counter() - started
    finish_manifest(manifest, report, stats, clock.timings)
    save_hashes(target / DOCUMENTS_FILE, hashes)
    manifest.save(target)
    return manifest, target


def _copy_vectors(
    target: Path, previous: Manifest | None, indexer: IncrementalIndexer, graph: LayeredGraph
) -> str:
    """Write the build's copy of every layer's vectors, rows in the graph's reading order."""
    token = previous.vectors_token if previous and previous.complete else None
    order = graph.reading_order()
    return update_mirror(target, indexer.layers, indexer.synced, token, indexer.written, order)


def _wants_mentions(options: BuildOptions, documents: list[Document]) -> bool:
    """Tell whether to add mention edges: asked for, or `auto` on a corpus without links."""
    return options.link_mentions == "on" or (
        options.link_mentions == "auto" and not has_hyperlinks(documents)
    )


def _parse(
    corpus: Path, index_dir: Path, options: BuildOptions, report: IngestReport
) -> tuple[str, list[Document], CorpusInfo]:
    """Read the corpus (OCR cached in the index folder); refuse one without usable documents."""
    ocr = OcrOptions(index_dir / OCR_CACHE) if options.ocr else None
    pdfs = read_pdfs if options.ray is None else ray_read_pdfs
    kind, documents = read_corpus(corpus, report, options.pdf_limits, ocr, pdfs)
    if not documents:
        first = "; ".join(f"{s.where}: {s.problem}" for s in report.skipped[:3])
        raise CorpusFormatError(
            f"{corpus}: no usable documents ({len(report.skipped)} inputs "
            f"skipped{': ' + first if first else ''})"
        )
    return kind, documents, corpus_info(corpus, kind)


def _index_words(
    index_dir: Path, manifest: Manifest, parsed: _Parsed, rebuild: bool, clock: _Clock
) -> None:
    """Build the lexical side: each layer's BM25 index, then each component's terms."""
    with clock.stage("sparse"):
        items = sparse_items(parsed.documents, parsed.subcomponents, parsed.summaries)
        manifest.sparse = sync_sparse_layers(index_dir, items, rebuild)
    with clock.stage("terms"):
        sync_terms(index_dir / GRAPH_FILE, parsed.graph)


def _follow_embedder_change(
    index_dir: Path, previous: Manifest | None, options: BuildOptions, text: Embedder
) -> BuildOptions:
    """Return the options to build with when the index was embedded by another model.

    The same spec computed differently by a new release (int8 per channel instead of per
    matrix) re-embeds everything: the user asked for nothing new. Another spec needs
    --rebuild, so an index is never re-embedded by a typo.

    Raises:
        IndexMismatchError: If another embedder built the index and rebuild is off.
    """
    if options.rebuild or previous is None or previous.text_embedder.model_id == text.model_id:
        return options
    if previous.text_embedder.spec != options.text_embedder:
        raise IndexMismatchError(
            f"{index_dir} was built with {previous.text_embedder.model_id}, not {text.model_id}; "
            "pass --rebuild to re-embed everything, or choose another --index"
        )
    logger.warning(
        "%s: %s now embeds as %s (was %s); re-embedding everything",
        index_dir, options.text_embedder, text.model_id, previous.text_embedder.model_id,
    )  # fmt: skip
    return replace(options, rebuild=True)


def _load_embedders(options: BuildOptions) -> tuple[Embedder, Embedder | None]:
    spec, allow = options.text_embedder, options.allow_download
    text = load_embedder(spec, allow) if options.ray is None else ray_embedder(spec, allow)
    if not options.image_embedder:
        return text, None
    return text, load_embedder(options.image_embedder, options.allow_download)


def _index(
    dirs: tuple[Path, Path],
    manifest: Manifest,
    parsed: _Parsed,
    embedders: tuple[Embedder, Embedder | None],
    options: BuildOptions,
    report: IngestReport,
) -> IncrementalIndexer:
    """Sync every layer collection of the staging folder; calibrate image scores too.

    `dirs` is the index folder (its triplet store and page images stay there) and the
    staging folder.
    """
    (index_dir, target), text = dirs, embedders[0]
    documents, subcomponents, graph = parsed.documents, parsed.subcomponents, parsed.graph
    layers = ChromaLayers.open(target, options.chroma_url, manifest.prefix)
    if options.rebuild:
        for layer in INDEX_LAYERS:
            layers.drop(layer)
    stats = EmbedStats()
    indexer = IncrementalIndexer(layers, stats, options.show_progress)
    in_context = contextual_documents(documents, options.contextual_sentences, text)
    embed = ContextualEmbedding(cast(ContextEmbedder, text)).embed if in_context else None
    manifest.options["sentence_vectors"] = sentence_vectors(len(in_context), len(documents))
    docs, comps, subs = embed_items(documents, subcomponents, parsed.summaries, in_context)
    # Sentences first: their paragraph passes also give the paragraphs' own vectors.
    indexer.sync("subcomponent", subs, text, embed=embed)
    indexer.sync("component", comps, text, embed=embed)
    indexer.sync("document", docs, text, embed=embed)
    sync_image_layer(
        indexer, (index_dir, manifest, report), (documents, subcomponents, graph), embedders
    )
    manifest.triplets = sync_triplet_kb(
        indexer, index_dir, documents, subcomponents, text, options.triplets
    )
    return indexer
