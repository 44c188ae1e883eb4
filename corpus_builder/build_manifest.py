"""The manifest of a build: what it starts with (name, corpus, encoders) and what it did."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from corpus_builder.build_options import BuildOptions
from corpus_builder.embed_stage import EmbedStats
from state.corpus import IngestReport
from tools.embedders import Embedder
from tools.index import collection_prefix
from tools.manifest import EmbedderInfo, Manifest, Problem, fif_version


def start_manifest(
    index_dir: Path,
    previous: Manifest | None,
    options: BuildOptions,
    info: object,
    text: Embedder,
    image: Embedder | None,
) -> Manifest:
    """Return a new build's manifest: its name (kept from the previous build), corpus, encoders."""
    text_info = EmbedderInfo(spec=options.text_embedder, model_id=text.model_id, dim=text.dim)
    name = options.name or (previous.name if previous else collection_prefix(index_dir.name))
    manifest = Manifest(
        name=name,
        corpus=info,
        text_embedder=text_info,  # type: ignore[arg-type]
        chroma_url=options.chroma_url,
    )
    if image is not None:
        manifest.image_embedder = EmbedderInfo(
            spec=options.image_embedder or "", model_id=image.model_id, dim=image.dim
        )
    return manifest


def finish_manifest(
    manifest: Manifest, report: IngestReport, stats: EmbedStats, timings: dict[str, float]
) -> None:
    """Record what the build did (counts, stage timings, problems, when, which fif); complete."""
    manifest.embedding = dict(stats.counts)
    if manifest.triplets is not None:  # the extraction model's time (counted in total only)
        timings = {**timings, "triplets_llm": manifest.triplets.llm_seconds}
    manifest.timings = {k: round(v, 3) for k, v in timings.items()}
    manifest.skipped = [Problem(where=s.where, problem=s.problem) for s in report.skipped]
    manifest.repaired = [Problem(where=s.where, problem=s.problem) for s in report.repaired]
    manifest.unresolved_links = report.unresolved_links
    manifest.unresolved_examples = report.unresolved_examples
    manifest.built_at = datetime.now(UTC).isoformat(timespec="seconds")
    manifest.fif_version = fif_version()
    manifest.complete = True
