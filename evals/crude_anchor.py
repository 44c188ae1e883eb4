"""The crude page anchor: a PDF's raw page text cut into 90-word chunks, a page scored by its best.

The reference any page ranking of filings must beat: no layout, no sections, no tables;
pypdfium2's text of each page, consecutive 90-word chunks, each embedded with the index's
text embedder, a page's score the best cosine of its chunks to the question. The chunk
vectors are kept in a cache folder (`anchor_vectors.npy`, `anchor_chunks.json`), so a
second run embeds only the questions.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from state.ids import page_key
from tools.corpus_index import CorpusIndex

logger = logging.getLogger(__name__)

CHUNK_WORDS = 90
BATCH = 256


class CrudeAnchor:
    """Page ranking by the best 90-word chunk of each page's raw text."""

    def __init__(self, index: CorpusIndex, pdf_dir: Path, cache: Path) -> None:
        """Load the chunk vectors from `cache`, embedding the PDFs' chunks on first use."""
        self.index = index
        chunks_file, vectors_file = cache / "anchor_chunks.json", cache / "anchor_vectors.npy"
        if chunks_file.is_file() and vectors_file.is_file():
            self.pages: list[str] = json.loads(chunks_file.read_text(encoding="utf-8"))
            self.vectors = np.load(vectors_file)
            return
        pages, texts = _chunks(sorted(pdf_dir.glob("*.pdf")))
        logger.info("crude anchor: embedding %d chunks of %d pages", len(texts), len(set(pages)))
        parts = [
            index.text_embedder.embed(texts[start : start + BATCH])
            for start in range(0, len(texts), BATCH)
        ]
        self.pages, self.vectors = pages, np.vstack(parts).astype(np.float32)
        cache.mkdir(parents=True, exist_ok=True)
        chunks_file.write_text(json.dumps(pages), encoding="utf-8")
        np.save(vectors_file, self.vectors)

    def rank(self, question: str, doc_ids: Sequence[str] | None = None, k: int = 10) -> list[str]:
        """Return the top-k pages ("DOC#PAGE") for a question, inside doc_ids if given."""
        query = self.index.embed_query(question)
        scores = self.vectors @ query
        best: dict[str, float] = {}
        wanted = set(doc_ids) if doc_ids else None
        for position in np.argsort(-scores):
            key = self.pages[int(position)]
            if wanted is not None and key.rsplit("#", 1)[0] not in wanted:
                continue
            best.setdefault(key, float(scores[position]))
            if len(best) >= k:
                break
        return list(best)


def _chunks(paths: Sequence[Path]) -> tuple[list[str], list[str]]:
    import pypdfium2 as pdfium

    pages: list[str] = []
    texts: list[str] = []
    for path in paths:
        document = pdfium.PdfDocument(str(path))
        for number in range(len(document)):
            page = document[number]
            textpage = page.get_textpage()
            words = textpage.get_text_range().split()
            textpage.close()
            page.close()
            for start in range(0, len(words), CHUNK_WORDS):
                pages.append(page_key(path.stem, number))
                texts.append(" ".join(words[start : start + CHUNK_WORDS]))
        document.close()
    return pages, texts
