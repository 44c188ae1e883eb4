"""How `fif build` builds an index: one options object, every field with an offline default."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from corpus_builder.pdf_pages import PdfLimits
from corpus_builder.splitters import FixedCrops, RegionProposer
from corpus_builder.summaries import ExtractiveSummarizer
from corpus_builder.summarizer import Summarizer
from corpus_builder.triplet_extraction import TripletExtractor
from tools.embedders import DEFAULT_TEXT_EMBEDDER
from tools.ray_cluster import RayTarget


@dataclass
class BuildOptions:
    """How to build an index; every field has a working offline default."""

    text_embedder: str = DEFAULT_TEXT_EMBEDDER
    image_embedder: str | None = None
    chroma_url: str | None = None
    name: str | None = None
    link_mentions: Literal["auto", "on", "off"] = "auto"
    rebuild: bool = False
    update: bool = False
    """Refuse to start without a finished index to update (`fif build --update`)."""
    allow_download: bool = False
    show_progress: bool = True
    summarizer: Summarizer = field(default_factory=ExtractiveSummarizer)
    region_proposer: RegionProposer = field(default_factory=FixedCrops)
    pdf_limits: PdfLimits = field(default_factory=PdfLimits)
    """File size and page count above which a PDF is skipped (reported in the manifest)."""
    ocr: bool = True
    """OCR PDF pages without a text layer and raster regions, when Tesseract is installed;
    the results are cached in the index folder's `ocr-cache/`."""
    contextual_sentences: bool | None = None
    """Embed a paragraph's sentences from the paragraph's own pass (corpus_builder.contextual):
    ~1.5x faster to build; sharper on sentences that lean on their paragraph, blurrier
    between similar pages. None (auto): for the paragraphs of PDF documents only, where it
    cuts embedding CPU at equal page recall (docs/corpora.md); web pages keep standalone
    sentences."""
    triplets: TripletExtractor | None = None
    """Build the triplet text KB (MMAPG, seed 003 §3.2) with this chat model
    (corpus_builder.triplet_kb); None: no triplet KB, sentences and rows stand in."""
    ray: RayTarget | None = None
    """Parse (PDFs, OCR included) and embed on this Ray cluster (corpus_builder.ray_embed,
    corpus_builder.ray_parse); None: in this process. The index is written here either way."""

    def keeping_encoder(self, built_with: str | None) -> BuildOptions:
        """Return these options with the index's own text encoder if they name the default.

        An index keeps the encoder that built it (its queries use that one too), so a new
        default never re-embeds an index; naming another spec or `rebuild` changes it.
        """
        if built_with is None or self.rebuild or self.text_embedder != DEFAULT_TEXT_EMBEDDER:
            return self
        return replace(self, text_embedder=built_with)
