"""Contextual sentence vectors: a paragraph and its sentences embedded in one pass.

A sentence of a paragraph is embedded from the paragraph's own pass (tools.span_pooling),
so "It reached number 3" keeps the song it is about; the paragraph's vector comes from the
same pass. Such items hold typed contents (corpus_builder.embed_content: the paragraph, the
span and the standalone text to fall back on when the sentence lies past the window). Items
of other nodes keep their plain text, and one `embed` serves every layer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from corpus_builder.embed_content import (
    EmbedContent,
    ParagraphInContext,
    SentenceInContext,
    standalone_text,
)
from corpus_builder.texts import TITLE_IN_LEAD_CHARS
from state.corpus import Document
from tools.embedders import ContextEmbedder, Embedder
from tools.span_pooling import ContextRequest, ContextVectors


def locate_sentences(
    title: str, paragraph: str, sentences: Sequence[str], standalone: Sequence[str]
) -> list[SentenceInContext | None]:
    """Find each sentence in the paragraph's text, in order (None when it is not there)."""
    at = paragraph.lower().find(title.lower()) if title else -1
    prefix_chars = at + len(title) if 0 <= at < TITLE_IN_LEAD_CHARS else 0
    found: list[SentenceInContext | None] = []
    cursor = 0
    for sentence, alone in zip(sentences, standalone, strict=True):
        begin = paragraph.find(sentence, cursor)
        if begin < 0 or not sentence:
            found.append(None)
            continue
        cursor = begin + len(sentence)
        found.append(SentenceInContext(paragraph, (begin, cursor), prefix_chars, alone))
    return found


def contents_in_context(
    title: str, paragraph: str, sentences: Sequence[str], standalone: Sequence[str]
) -> tuple[EmbedContent, list[EmbedContent]]:
    """Return the item contents of a paragraph and its sentences, embedded in one pass.

    A sentence not found in the paragraph's text keeps its standalone text; when none is
    found, the paragraph keeps its plain text too.
    """
    located = locate_sentences(title, paragraph, sentences, standalone)
    if not any(located):
        return paragraph, list[EmbedContent](standalone)
    contents: list[EmbedContent] = [
        found or alone for found, alone in zip(located, standalone, strict=True)
    ]
    return ParagraphInContext(paragraph), contents


class ContextualEmbedding:
    """Embed item contents of any layer: plain texts, paragraphs, sentences in context.

    A paragraph's vector made while embedding its sentences is kept until the component
    layer asks for it, so the builder embeds sentences first and runs each paragraph once.
    """

    def __init__(self, embedder: ContextEmbedder) -> None:
        self.embedder = embedder
        self._paragraphs: dict[bytes, np.ndarray] = {}
        """Digest of a paragraph's text -> its vector, until the component layer takes it."""

    def embed(self, contents: Sequence[EmbedContent]) -> np.ndarray:
        """Return unit vectors for the contents, in order."""
        vectors: list[np.ndarray | None] = [None] * len(contents)
        self._embed_sentences(contents, vectors)
        paragraphs = {
            i: c.text for i, c in enumerate(contents) if isinstance(c, ParagraphInContext)
        }
        unique = list(dict.fromkeys(paragraphs.values()))
        self._passes([ContextRequest(t, ()) for t in unique if _key(t) not in self._paragraphs])
        whole = {text: self._paragraphs.pop(_key(text)) for text in unique}
        for i, text in paragraphs.items():
            vectors[i] = whole[text]
        alone = [i for i, v in enumerate(vectors) if v is None]  # plain, or past the window
        if alone:
            texts = [standalone_text(contents[i]) for i in alone]
            for i, vector in zip(alone, self.embedder.embed(texts), strict=True):
                vectors[i] = vector
        return np.stack([v for v in vectors if v is not None]).astype(np.float32)

    def _embed_sentences(
        self, contents: Sequence[EmbedContent], vectors: list[np.ndarray | None]
    ) -> None:
        """Fill the vectors of sentence contents, one pass per paragraph."""
        by_context: dict[tuple[str, int], list[tuple[int, tuple[int, int]]]] = {}
        for i, content in enumerate(contents):
            if isinstance(content, SentenceInContext):
                key = (content.context, content.prefix_chars)
                by_context.setdefault(key, []).append((i, content.span))
        requests = [
            ContextRequest(context, tuple(span for _, span in members), prefix)
            for (context, prefix), members in by_context.items()
        ]
        for members, result in zip(by_context.values(), self._passes(requests), strict=True):
            for (i, _), vector in zip(members, result.spans, strict=True):
                vectors[i] = vector

    def _passes(self, requests: list[ContextRequest]) -> list[ContextVectors]:
        """Run one pass per request, keeping each paragraph's whole-text vector."""
        results = self.embedder.embed_in_context(requests) if requests else []
        for request, result in zip(requests, results, strict=True):
            self._paragraphs[_key(request.text)] = result.text
        return results


def _key(text: str) -> bytes:
    return hashlib.sha1(text.encode()).digest()


def contextual_documents(
    documents: list[Document], choice: bool | None, embedder: Embedder
) -> set[str]:
    """Return the documents whose sentences are embedded in their paragraph's pass.

    `choice` True: all, False: none, None: the PDF documents; none if the embedder
    cannot pool spans.
    """
    if choice is False or not isinstance(embedder, ContextEmbedder):
        return set()
    return {d.doc_id for d in documents if choice or d.page_count}


def sentence_vectors(contextual: int, documents: int) -> str:
    """Name how sentences were embedded, for the manifest."""
    if contextual == 0:
        return "standalone"
    return (
        "contextual"
        if contextual == documents
        else f"contextual in PDFs ({contextual} of {documents})"
    )
