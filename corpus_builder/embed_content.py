"""What an index item embeds: a text, a paragraph or sentence embedded in one pass, or an image.

A sentence can be embedded from its paragraph's own pass (corpus_builder.contextual), so what
decides its vector is the whole paragraph, the span and the standalone text to fall back on;
an image item is a file (and a crop box for a region). `content_key` renders each as the
string the builder hashes to know whether to re-embed: it is the format indices were built with,
so vectors already stored stay valid.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

MARK = "\x1e"
"""Opens a contextual item's key (an ASCII record separator, absent from page text)."""
PARAGRAPH_MARK, SENTENCE_MARK = f"{MARK}p", f"{MARK}s"


@dataclass(frozen=True)
class ParagraphInContext:
    """A paragraph whose vector comes from the pass that embeds its sentences."""

    text: str


@dataclass(frozen=True)
class SentenceInContext:
    """A sentence located in its paragraph's text."""

    context: str
    span: tuple[int, int]
    prefix_chars: int
    standalone: str


@dataclass(frozen=True)
class ImageCrop:
    """An image file (identified by its content digest), or a region of it."""

    digest: str
    path: str
    box: tuple[int, int, int, int] | None = None


EmbedContent = str | ParagraphInContext | SentenceInContext | ImageCrop
"""The content of an index item; a plain string is embedded as it is."""


def content_key(content: EmbedContent) -> str:
    """Return the string that identifies a content for the builder's hash."""
    if isinstance(content, ParagraphInContext):
        return f"{PARAGRAPH_MARK}{content.text}"
    if isinstance(content, SentenceInContext):
        payload = [content.context, *content.span, content.prefix_chars, content.standalone]
        return f"{SENTENCE_MARK}{json.dumps(payload, ensure_ascii=False)}"
    if isinstance(content, ImageCrop):
        box = ",".join(str(v) for v in content.box or ())
        return f"{content.digest}|{content.path}|{box}"
    return content


def standalone_text(content: EmbedContent) -> str:
    """Return the text a plain embedder would embed for a content.

    Raises:
        TypeError: For an image, which has no text.
    """
    if isinstance(content, ParagraphInContext):
        return content.text
    if isinstance(content, SentenceInContext):
        return content.standalone
    if isinstance(content, ImageCrop):
        raise TypeError(f"image {content.path!r} has no text to embed; use an image embedder")
    return content
