"""Turn `fif build` options into BuildOptions: embedders, summaries, regions, the triplet KB.

The chat model of the LLM build stages is configured as for `fif ask`: `--backend`
(or `$FIF_BACKEND`), `--chat-model`, `--base-url`, `--local-model` and the other `FIF_*`
settings. `--summaries openai|local` names its own backend; `--triplets` uses `--backend`,
else `$FIF_BACKEND`, else the backend `--summaries` names, and refuses to start (before
anything is written) when that leaves no chat model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from corpus_builder.build import BuildOptions
from corpus_builder.pdf_pages import MIB, PdfLimits
from state.settings import RunSettings
from tools.ray_cluster import ray_target


@dataclass(frozen=True)
class BuildChoices:
    """What the `fif build` command line asked for, before any model or plugin is loaded."""

    embedder: str | None = None
    image_embedder: str | None = None
    chroma_url: str | None = None
    link_mentions: str = "auto"
    rebuild: bool = False
    update: bool = False
    allow_download: bool = False
    progress: bool = True
    summaries: str = "extractive"
    regions: str = "fixed"
    contextual: bool | None = None
    triplets: bool = False
    backend: str | None = None
    chat_model: str | None = None
    base_url: str | None = None
    local_model: str | None = None
    pdf_max_pages: int = PdfLimits.max_pages
    pdf_max_mb: int = PdfLimits.max_bytes // MIB
    ocr: bool = True
    ray: bool = False


def build_options(choices: BuildChoices) -> BuildOptions:
    """Return the BuildOptions of a command line, checking the triplet KB's model first.

    Raises:
        ConfigError: If `--triplets` is given and no chat model is configured.
    """
    from corpus_builder.region_proposers import load_region_proposer
    from corpus_builder.summaries import load_summarizer
    from corpus_builder.triplet_extraction import load_triplet_extractor
    from tools.embedders import DEFAULT_TEXT_EMBEDDER

    llm: dict[str, Any] = {
        "chat_model": choices.chat_model,
        "base_url": choices.base_url,
        "local_model_path": choices.local_model,
    }
    context = RunSettings.from_env({**llm, "backend": choices.backend})
    triplets = None
    if choices.triplets:
        if context.backend == "offline" and choices.summaries in ("openai", "local"):
            context = context.model_copy(update={"backend": choices.summaries})
        triplets = load_triplet_extractor(context)
    return BuildOptions(
        text_embedder=choices.embedder or DEFAULT_TEXT_EMBEDDER,
        image_embedder=choices.image_embedder,
        chroma_url=choices.chroma_url,
        link_mentions=choices.link_mentions,  # type: ignore[arg-type]
        rebuild=choices.rebuild,
        update=choices.update,
        allow_download=choices.allow_download,
        show_progress=choices.progress,
        summarizer=load_summarizer(choices.summaries, RunSettings.from_env(llm)),
        region_proposer=load_region_proposer(choices.regions),
        contextual_sentences=choices.contextual,
        triplets=triplets,
        pdf_limits=PdfLimits(max_bytes=choices.pdf_max_mb * MIB, max_pages=choices.pdf_max_pages),
        ocr=choices.ocr,
        ray=ray_target(choices.ray),
    )
