"""Resolve the hrefs of an HTML folder's pages to doc ids of that folder."""

from __future__ import annotations

import logging
import posixpath
from dataclasses import dataclass, field
from urllib.parse import SplitResult, unquote, urlsplit

from state.corpus import IngestReport

logger = logging.getLogger(__name__)

PAGE_SUFFIXES = (".html", ".htm")
IGNORED_SCHEMES = ("javascript:",)
"""Script pseudo-links go nowhere, so they are neither links nor unresolved links."""
WIKI_PREFIX = "/wiki/"


def title_key(title: str) -> str:
    """Return a Wikipedia-style title in comparable form: decoded, `_` as space, casefolded."""
    return " ".join(unquote(title).replace("_", " ").split()).casefold()


def url_key(url: str) -> str | None:
    """Return an absolute http(s) url without scheme, fragment and trailing slash, or None."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:  # e.g. "http://[bad": not a url anyone can follow
        return None
    if parts.scheme.lower() not in ("http", "https", "") or not parts.netloc:
        return None
    query = f"?{parts.query}" if parts.query else ""
    return f"{parts.netloc.lower()}{unquote(parts.path).rstrip('/')}{query}"


def strip_page_suffix(path: str) -> str:
    """Return a path without its .html/.htm extension (any case)."""
    lowered = path.lower()
    for suffix in PAGE_SUFFIXES:
        if lowered.endswith(suffix):
            return path[: -len(suffix)]
    return path


@dataclass
class LinkIndex:
    """The doc ids and canonical urls of a folder's pages, used to turn hrefs into doc ids."""

    doc_ids: set[str] = field(default_factory=set)
    by_url: dict[str, str] = field(default_factory=dict)
    """Normalised canonical url (see `url_key`) -> doc id of the first page claiming it."""
    by_title: dict[str, str] = field(default_factory=dict)
    """Title key of every `/`-suffix of a doc id and of a url's `/wiki/` title -> doc id."""

    def add(self, doc_id: str, url: str) -> str | None:
        """Register a page; return the doc id that claimed the same canonical url first, if any."""
        self.doc_ids.add(doc_id)
        segments = doc_id.split("/")
        for start in range(len(segments)):
            self.by_title.setdefault(title_key("/".join(segments[start:])), doc_id)
        key = url_key(url) if url else None
        if key is None:
            return None
        owner = self.by_url.setdefault(key, doc_id)
        path = urlsplit(url).path
        if WIKI_PREFIX in path:
            self.by_title.setdefault(title_key(path.split(WIKI_PREFIX, 1)[1]), doc_id)
        return owner if owner != doc_id else None

    def follow(self, href: str, source: str, where: str, report: IngestReport) -> str | None:
        """Return the other page of the corpus an href points to, counting targets outside it.

        Args:
            href: The raw `href` attribute.
            source: The doc id of the page holding the link; relative paths start from it.
            where: Where the link is, for the report.
            report: Receives `unresolved` for a target that is not a page of the corpus.

        Returns:
            The target doc id, or None for fragments, script links, self-links and
            targets outside the corpus.
        """
        href = href.strip()
        if not href or href.startswith("#") or href.lower().startswith(IGNORED_SCHEMES):
            return None
        target = self.resolve(href, source)
        if target is None:
            report.unresolved(where, href)
            return None
        return None if target == source else target

    def resolve(self, href: str, source: str) -> str | None:
        """Return the doc id an href points to (possibly `source` itself), or None."""
        try:
            parts = urlsplit(href)
        except ValueError:
            return None
        if parts.scheme or parts.netloc:
            return self._by_absolute(parts)
        path = unquote(parts.path)
        if not path:
            return source
        if path.startswith("/"):
            return self._by_path(path.lstrip("/")) or self._by_wiki(path)
        return self._by_path(posixpath.join(posixpath.dirname(source), path))

    def _by_absolute(self, parts: SplitResult) -> str | None:
        if parts.scheme.lower() not in ("http", "https", ""):
            return None
        for candidate in (parts._replace(fragment=""), parts._replace(fragment="", query="")):
            key = url_key(candidate.geturl())
            if key is not None and key in self.by_url:
                return self.by_url[key]
        return self._by_wiki(unquote(parts.path))

    def _by_path(self, path: str) -> str | None:
        path = posixpath.normpath(path) if path else "."
        if path == ".." or path.startswith("../"):
            return None
        if path == ".":
            return "index" if "index" in self.doc_ids else None
        stem = strip_page_suffix(path)
        for candidate in (stem, f"{stem}/index"):
            if candidate in self.doc_ids:
                return candidate
        return None

    def _by_wiki(self, path: str) -> str | None:
        if WIKI_PREFIX not in path:
            return None
        title = path.split(WIKI_PREFIX, 1)[1]
        return self.by_title.get(title_key(title)) if title else None
