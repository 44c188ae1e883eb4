"""The triplet text KB of `fif build --triplets` (seed 003, §3.2, eqs. 1–2): extract, keep, embed.

Eq. 1, T_i = M(P_tri ⊕ F_tri ⊕ S_i): corpus_builder.triplet_extraction asks the chat model
for the triplets of every text unit (a paragraph, or a table row under its header), and
corpus_builder.triplet_store keeps each answer in `triplets.sqlite` as soon as its call
returns, so a rebuild asks only for new or changed text and a failing server loses
nothing already extracted. Eq. 2, e_ij = f_text(τ_ij): every triplet is embedded by the
index's text embedder into the `triplet` collection, carrying the doc_id and component_id
of its unit, so a hit maps back to its component; MMAPG scores a component by its best
triplet (tools.triplet_search). A unit without triplets (the model found none, its call
failed, or the build stopped asking) is embedded as its own text, as the seed embeds short
texts directly, so every paragraph and row stays reachable; the manifest counts each case.
Images are not units: MMAPG's image pool searches their captions and pixels.

What stands in offline: without `--triplets` (or without a chat model, when `--triplets`
refuses to start) there is no triplet KB, and MMAPG's text KB is the subcomponent layer:
sentences and table rows, the finest text entries every index has.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from corpus_builder.embed_stage import EmbedItem, IncrementalIndexer
from corpus_builder.layer_items import metadata
from corpus_builder.triplet_extraction import (
    MAX_FAILURES_IN_A_ROW,
    TripletExtractor,
    TripletUnit,
    batches,
    text_units,
)
from corpus_builder.triplet_store import TripletStore
from state.corpus import Document, Subcomponent
from state.ids import triplet_id
from tools.embedders import Embedder
from tools.llm_calls import LLMFailure
from tools.manifest import TRIPLETS_FILE, TripletKB

logger = logging.getLogger(__name__)

COUNTS = ("reused", "asked", "empty", "failed", "not_asked")
MAX_PROBLEMS = 5
"""Failure reasons kept in the manifest (every one is logged)."""


@dataclass
class _Extraction:
    """What one build's extraction found and how (digest -> triplets)."""

    found: dict[str, list[str]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNTS, 0))
    problems: list[str] = field(default_factory=list)
    failures_in_a_row: int = 0


def sync_triplet_kb(
    indexer: IncrementalIndexer,
    index_dir: Path,
    documents: list[Document],
    subcomponents: dict[str, list[Subcomponent]],
    embedder: Embedder,
    extractor: TripletExtractor | None,
) -> TripletKB | None:
    """Bring the triplet layer in line with the corpus; return what the manifest records.

    Without an extractor the layer is dropped (a build without --triplets has no triplet
    KB); the stored triplets stay, so building with --triplets again asks for nothing old.
    """
    if extractor is None:
        if indexer.layers.has("triplet"):
            logger.warning("this build has no --triplets: dropping the index's triplet KB "
                           "(the triplets stay in %s)", TRIPLETS_FILE)  # fmt: skip
            indexer.layers.drop("triplet")
        return None
    units = text_units(documents, subcomponents)
    store = TripletStore(index_dir / TRIPLETS_FILE)
    try:
        run = extract_all(units, extractor, store)
        store.keep_only(unit.digest for unit in units)
    finally:
        store.close()
    items = kb_items(units, run.found)
    indexer.sync("triplet", items, embedder)
    return _info(units, run, items, extractor)


def extract_all(
    units: Sequence[TripletUnit], extractor: TripletExtractor, store: TripletStore
) -> _Extraction:
    """Return every unit's triplets: stored ones reused, the others asked batch by batch."""
    run = _Extraction()
    run.found = store.get(extractor.extractor_id, (unit.digest for unit in units))
    todo = list({u.digest: u for u in units if u.digest not in run.found}.values())
    run.counts["reused"] = sum(1 for unit in units if unit.digest in run.found)
    if todo:
        logger.info("triplets: asking %s for %d units (%d stored)",
                    extractor.extractor_id, len(todo), len(run.found))  # fmt: skip
    for batch in batches(todo):
        if run.failures_in_a_row >= MAX_FAILURES_IN_A_ROW:
            run.counts["not_asked"] += len(batch)
            continue
        _ask(batch, extractor, store, run)
    if run.counts["not_asked"]:
        logger.warning("triplets: %d calls failed in a row, %d units not asked; they are "
                       "embedded as text, and the next build asks for them again",
                       MAX_FAILURES_IN_A_ROW, run.counts["not_asked"])  # fmt: skip
    return run


def _ask(
    batch: list[TripletUnit], extractor: TripletExtractor, store: TripletStore, run: _Extraction
) -> None:
    """Ask for one batch; store and count what came back, report what did not."""
    run.counts["asked"] += len(batch)
    try:
        answers = extractor.extract(batch)
    except LLMFailure as failure:
        run.failures_in_a_row += 1
        run.counts["failed"] += len(batch)
        _report(run, f"{batch[0].owner} and {len(batch) - 1} more: {failure}")
        return
    run.failures_in_a_row = 0
    missing = [unit.owner for i, unit in enumerate(batch) if i not in answers]
    if missing:
        run.counts["failed"] += len(missing)
        _report(run, f"no passage for {', '.join(missing[:3])} in the reply")
    kept = {batch[i].digest: triplets for i, triplets in answers.items()}
    run.counts["empty"] += sum(1 for triplets in kept.values() if not triplets)
    store.put(extractor.extractor_id, kept)
    run.found.update(kept)


def _report(run: _Extraction, problem: str) -> None:
    logger.warning("triplets skipped (asked again next build): %s", problem)
    if len(run.problems) < MAX_PROBLEMS:
        run.problems.append(problem)


def kb_items(units: Sequence[TripletUnit], found: dict[str, list[str]]) -> list[EmbedItem]:
    """Return the triplet layer: each unit's triplets, or the unit's own text when it has none."""
    items: list[EmbedItem] = []
    for unit in units:
        triplets = found.get(unit.digest) or []
        if triplets:
            meta = metadata(unit.doc_id, unit.component_id, "triplet", unit.pages)
            items += [
                EmbedItem(triplet_id(unit.owner, n), text, meta) for n, text in enumerate(triplets)
            ]
        else:
            meta = metadata(unit.doc_id, unit.component_id, "text", unit.pages)
            items.append(EmbedItem(unit.owner, unit.text, meta))
    return items


def _info(
    units: Sequence[TripletUnit],
    run: _Extraction,
    items: Sequence[EmbedItem],
    extractor: TripletExtractor,
) -> TripletKB:
    with_triplets = sum(1 for unit in units if run.found.get(unit.digest))
    return TripletKB(
        extractor=extractor.extractor_id,
        units=len(units),
        with_triplets=with_triplets,
        as_text=len(units) - with_triplets,
        triplets=sum(1 for item in items if item.metadata["type"] == "triplet"),
        **run.counts,
        **extractor.usage(),
        llm_seconds=round(extractor.meter.llm_ms / 1000.0, 3),
        problems=run.problems,
    )
