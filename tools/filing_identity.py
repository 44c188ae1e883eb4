"""A filing's identity read from its own first pages: registrant, form, fiscal period.

Rules only, no model. The cover of an SEC filing prints the form ("FORM 10-K"), the period
("For the fiscal year ended June 30, 2023", "For the quarterly period ended ...", "Date of
Report ...") and the registrant (the line above "Exact name of registrant as specified in
its charter"); an earnings release opens with "COMPANY reports fourth quarter and full year
2022 results" and names its ticker ("(NYSE: MGM)"). Every field keeps where it was read
(page and rule), so a wrong identity can be traced to its line.

The same reader serves the build (`corpus_builder.filing_identity` stores it on the
document node) and an index built before it (`tools.filing_catalog` reads it on demand).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from tools.filing_periods import fiscal_quarter_of_10q, fiscal_year_of_end
from tools.values import QUARTER_WORDS, parse_date

FIRST_PAGES = 4
"""Pages read for the form and period: the cover is page 0 or 1."""
REGISTRANT_PAGES = 12
"""Pages searched for the registrant's caption: a glossy annual report's 10-K cover comes late."""
FORM_LINE_CHARS = 80
"""A cover's form line is short; a sentence citing "Form 10-Q" is not the form."""

_FORM = re.compile(
    r"^\W*(?:(?:19|20)\d{2}\s+)?(?:annual report on\s+)?FORM\s+(10-K|10-Q|8-K|20-F|40-F|6-K)\b",
    re.I,
)
"""A cover's form line (a mention inside a sentence, "see our Form 10-Q", is no cover)."""
_ANNUAL_REPORT = re.compile(r"\bannual report\b", re.I)
_EARNINGS = re.compile(
    r"\b(?:reports?|announces?|reported)\b[^.]{0,80}?\b(?:results|earnings)\b"
    r"|\bfor immediate release\b|\bearnings release\b",
    re.I,
)
PERIOD_ENDED = re.compile(
    r"(fiscal year|quarterly period|year|quarter|period)\s+ended:?\s+"
    r"(?P<date>[A-Z][a-z]+\.?\s+\d{1,2},?\s+\d{4})",
    re.I,
)
"""A cover's period: its kind (group 1) and end date (group 2, "date"); the build's title too."""
_REPORT_DATE = re.compile(r"Date of Report[^:]{0,60}:\s*([A-Z][a-z]+\.?\s+\d{1,2},?\s+\d{4})", re.I)
_REPORT_YEAR = re.compile(r"\b((?:19|20)\d{2})\s+annual report\b", re.I)
REGISTRANT_CAPTION = re.compile(r"\(?\s*exact name of (?:the )?registrant", re.I)
"""The caption under a cover's registrant name (the name is before it or on a line above)."""
_TICKER = re.compile(r"\((?:NYSE|NASDAQ|Nasdaq|NYSE American|ASX)\s*:\s*([A-Z]{1,5})\)")
_TRADING_SYMBOL_ROW = re.compile(
    r"\b(?:Common Stock|Ordinary Shares|Class [AB] Common Stock)[^;]{0,60}?\s([A-Z]{2,5})\s+"
    r"(?:New York Stock Exchange|NYSE|The Nasdaq|Nasdaq)",
)
_HEADLINE_FILER = re.compile(
    r"^\s*(?:Exhibit\s+99\.\d\s+)?([A-Z][\w&.,' -]{1,60}?)\s+(?:reports?|announces?)\b", re.I
)
_RELEASE_PERIOD = re.compile(
    r"\b(?:(" + "|".join(QUARTER_WORDS) + r")[- ]quarter\b[^.]{0,40}?\b((?:19|20)\d{2})\b"
    r"|((?:19|20)\d{2})\s+(" + "|".join(QUARTER_WORDS) + r")[- ]quarter\b"
    r"|(?:fiscal|full[- ]year)\s+((?:19|20)\d{2})\b)",
    re.I,
)


@dataclass(frozen=True)
class FilingIdentity:
    """Who filed a document, which form it is and which period it covers; '' when unread."""

    registrant: str = ""
    tickers: tuple[str, ...] = ()
    form: str = ""
    """10-K, 10-Q, 8-K, 20-F, annual report, earnings release."""
    fiscal_year: int = 0
    fiscal_quarter: int = 0
    """1-4 for a quarter's filing (a 10-Q, a quarterly release); 0 for a year or unknown."""
    period_end: str = ""
    """ISO date the period ends (a 10-K's fiscal year end, an 8-K's report date)."""
    published: str = ""
    """ISO date a release prints at its top (its publication day), '' when none."""
    read_from: tuple[str, ...] = ()
    """One note per field found: 'field: page N, rule'."""

    def as_dict(self) -> dict[str, object]:
        """Return the identity as JSON-ready values (the graph stores it on the document)."""
        values = asdict(self)
        values["tickers"] = list(self.tickers)
        values["read_from"] = list(self.read_from)
        return values

    @classmethod
    def from_dict(cls, values: dict[str, object]) -> FilingIdentity:
        """Rebuild an identity from `as_dict`'s values."""
        return cls(
            registrant=str(values.get("registrant", "")),
            tickers=tuple(str(t) for t in values.get("tickers", []) or []),  # type: ignore[attr-defined]
            form=str(values.get("form", "")),
            fiscal_year=int(values.get("fiscal_year", 0) or 0),  # type: ignore[call-overload]
            fiscal_quarter=int(values.get("fiscal_quarter", 0) or 0),  # type: ignore[call-overload]
            period_end=str(values.get("period_end", "")),
            published=str(values.get("published", "")),
            read_from=tuple(str(t) for t in values.get("read_from", []) or []),  # type: ignore[attr-defined]
        )


PageText = tuple[int, str]
"""A zero-indexed page number and one line (or paragraph) of its text, in reading order."""


def read_identity(texts: Sequence[PageText], title: str = "") -> FilingIdentity:
    """Read a filing's identity from its first pages' texts (and the build's title).

    Args:
        texts: (page, text) in reading order; only pages below FIRST_PAGES are read.
        title: The document title the build chose (a cover's "FILER Form 10-K PERIOD").
    """
    wide = [(page, text) for page, text in texts if page < REGISTRANT_PAGES and text.strip()]
    first = [(page, text) for page, text in wide if page < FIRST_PAGES]
    notes: list[str] = []
    form, form_note = _form(first)
    if form:
        notes.append(form_note)
    registrant, registrant_note = _registrant(wide, title)
    if registrant:
        notes.append(registrant_note)
    tickers = _tickers(first)
    if tickers:
        notes.append(f"tickers: page {tickers[1]}, exchange symbol")
    year, quarter, end, period_note = _period(first, form, wide)
    if year:
        notes.append(period_note)
    opening = " ".join(text for page, text in first if page == 0)[:400]
    published = parse_date(opening) if form == "earnings release" else None
    return FilingIdentity(
        registrant,
        tickers[0] if tickers else (),
        form,
        year,
        quarter,
        end,
        published.isoformat() if published else "",
        tuple(notes),
    )


def _form(first: Sequence[PageText]) -> tuple[str, str]:
    for page, text in first:
        found = _FORM.search(text) if len(text) <= FORM_LINE_CHARS else None
        if found and _cover_form(text[found.end() :]):
            form = found.group(1).upper()
            if page == 0 and _ANNUAL_REPORT.search(found.group(0)):
                return "annual report", "form: page 0, 'annual report on form 10-K'"
            return form, f"form: page {page}, 'FORM {form}' on the cover"
    opening = " ".join(text for page, text in first if page == 0)[:1500]
    if _EARNINGS.search(opening):
        return "earnings release", "form: page 0, 'reports ... results' headline"
    if _ANNUAL_REPORT.search(opening[:300]):
        return "annual report", "form: page 0, 'annual report'"
    return "", ""


def _cover_form(rest: str) -> bool:
    """Tell whether what follows "FORM 10-K" on its line leaves it a cover's form line."""
    rest = rest.strip()
    return not rest or not (rest[0] in ")," or rest[0].islower() or rest.split()[0].islower())


def _registrant(first: Sequence[PageText], title: str) -> tuple[str, str]:
    for index, (page, text) in enumerate(first):
        found = REGISTRANT_CAPTION.search(text)
        if not found:
            continue
        before = text[: found.start()].strip()
        name = _last_name(before) if before else ""
        back = index - 1
        while not name and back >= max(0, index - 4):
            candidate = first[back][1]
            name = "" if _NOT_A_NAME.search(candidate) else _last_name(candidate)
            back -= 1
        if name:
            return name, f"registrant: page {page}, line above 'exact name of registrant'"
    for page, text in first:
        if found := re.search(r"([A-Z][\w&.,' -]{1,60}?)\s*\((?:NYSE|NASDAQ|Nasdaq)\s*:", text):
            name = re.split(r"\s[-\u2013\u2014]\s", found.group(1))[-1]
            return _clean(name), f"registrant: page {page}, name before its ticker"
    for page, text in first[:5]:
        if page == 0 and (found := _HEADLINE_FILER.search(text)):
            return _clean(found.group(1)), "registrant: page 0, 'NAME reports' headline"
    if title and " Form " in title:
        return title.split(" Form ")[0].strip(), "registrant: document title"
    return "", ""


_NOT_A_NAME = re.compile(
    r"transition period|commission file|mark one|pursuant to|exchange act|^\W*(?:or|\d+)\W*$",
    re.I,
)
"""Cover lines between a registrant's name and its caption that are not the name."""
_FILE_NUMBER = re.compile(r"(?:file\s+(?:number|no\.?)\s*:?\s*[\d-]+|\d{2}-\d{7})\s*", re.I)


def _last_name(text: str) -> str:
    """Return the company name ending a text (a paragraph joined from cover lines)."""
    tail = _FILE_NUMBER.split(text)[-1]
    tail = re.split(r"\s(?:OR|or)\s|\)|(?:to\s*_+)", tail)[-1]
    return _clean(tail)


def _clean(name: str) -> str:
    name = re.sub(r"\b([A-Z]) (?=[A-Z]{2,}\b)", r"\1", name)  # small caps: "R ESORTS"
    return re.sub(r"^[_\s•(]+|[_\s,(]+$", "", name).strip()


def _tickers(first: Sequence[PageText]) -> tuple[tuple[str, ...], int] | None:
    for page, text in first:
        found = _TICKER.findall(text) or _TRADING_SYMBOL_ROW.findall(text)
        if found:
            return tuple(dict.fromkeys(found)), page
    return None


def _period(
    lines: Sequence[PageText], form: str, wide: Sequence[PageText] = ()
) -> tuple[int, int, str, str]:
    """Return (fiscal year, fiscal quarter, ISO end date, note) from the cover or headline."""
    pages = sorted({page for page, _ in lines})
    first = [(p, "\n".join(t for q, t in lines if q == p)) for p in pages]
    for page, text in first:
        if found := PERIOD_ENDED.search(text):
            end = parse_date(found.group(2))
            if end is None:
                continue
            quarter = 0
            if form == "10-Q" or "quarter" in found.group(1).lower():
                quarter = fiscal_quarter_of_10q(" ".join(t for _, t in (wide or lines)))
            year = fiscal_year_of_end(end, quarter)
            note = " ".join(found.group(0).split())
            return year, quarter, end.isoformat(), f"period: page {page}, '{note}'"
    for page, text in first:
        if found := _REPORT_DATE.search(text):
            end = parse_date(found.group(1))
            if end is not None:
                return end.year, 0, end.isoformat(), f"period: page {page}, 'Date of Report'"
    for page, text in first:
        if page == 0 and (found := _RELEASE_PERIOD.search(text)):
            note = " ".join(found.group(0).split())
            return _release_period(found) + (f"period: page 0, '{note}'",)
        if page == 0 and (found := _REPORT_YEAR.search(text[:300])):
            return int(found.group(1)), 0, "", f"period: page 0, '{found.group(0)}'"
    return 0, 0, "", ""


def _release_period(found: re.Match[str]) -> tuple[int, int, str]:
    word = (found.group(1) or found.group(4) or "").lower()
    year = int(found.group(2) or found.group(3) or found.group(5))
    return year, QUARTER_WORDS.index(word) % 4 + 1 if word else 0, ""


def first_page_texts(parts: Sequence[tuple[int, Sequence[str], str]]) -> list[PageText]:
    """Return (page, text) lines from components: each new heading, then the content.

    Args:
        parts: (first page, section titles outermost first, text) of each component in
            reading order; a PDF heading is a section title, not a component, so a cover's
            registrant line often arrives as a heading.
    """
    texts: list[PageText] = []
    seen: set[tuple[str, ...]] = set()
    for page, section, text in parts:
        if page >= FIRST_PAGES:
            continue
        for depth in range(1, len(section) + 1):
            if tuple(section[:depth]) not in seen:
                seen.add(tuple(section[:depth]))
                texts.append((page, section[depth - 1]))
        texts.append((page, text))
    return texts
