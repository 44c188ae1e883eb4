"""Which HTML tags hold content, chrome or inline text, and how to read an element's text."""

from __future__ import annotations

from bs4 import Tag

REMOVED_TAGS = (
    "script",
    "style",
    "nav",
    "header",
    "footer",
    "aside",
    "noscript",
    "template",
    "svg",
    "canvas",
    "iframe",
    "object",
    "embed",
    "video",
    "audio",
    "select",
    "button",
    "input",
    "textarea",
)
"""Page chrome and widgets: their text is navigation, code or controls, not content."""
PARAGRAPH_TAGS = frozenset({"p", "blockquote", "pre", "address"})
LIST_TAGS = frozenset({"ul", "ol", "dl"})
HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
"""Headings are section titles, not content: dropped rather than made one-line paragraphs."""
INLINE_TAGS = frozenset(
    {
        "a",
        "abbr",
        "b",
        "bdi",
        "bdo",
        "big",
        "cite",
        "code",
        "data",
        "del",
        "dfn",
        "em",
        "font",
        "i",
        "ins",
        "kbd",
        "label",
        "mark",
        "q",
        "s",
        "samp",
        "small",
        "span",
        "strike",
        "strong",
        "sub",
        "sup",
        "time",
        "tt",
        "u",
        "var",
        "wbr",
    }
)
CONTENT_TAGS = sorted(
    PARAGRAPH_TAGS
    | LIST_TAGS
    | HEADING_TAGS
    | {"article", "div", "figure", "img", "main", "section", "table"}
)
SPACED_TAGS = sorted(
    PARAGRAPH_TAGS
    | LIST_TAGS
    | HEADING_TAGS
    | {
        "article",
        "caption",
        "dd",
        "div",
        "dt",
        "figcaption",
        "figure",
        "li",
        "main",
        "section",
        "table",
        "td",
        "th",
        "tr",
    }
)
"""Block elements whose text must not run into a neighbour's ("<td>a</td><td>b</td>")."""


def element_text(element: Tag) -> str:
    """Return an element's text with whitespace collapsed to single spaces."""
    return " ".join(element.get_text().split())
