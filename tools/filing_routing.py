"""Route a question to the filings it asks about: company first, then period and form.

A filing matches a question when the question names its registrant: the name without its
legal suffix ("The Boeing Company" -> "boeing"), run together ("pepsico"), its initials
("Advanced Micro Devices" -> "amd"; "Johnson & Johnson" -> "j&j", "jnj"), the first two
letters of each of its two words ("American Express" -> "amex"), its first word when that
word is distinctive, or its ticker as printed on the cover ("MGM", "JNJ"). Among the
matching filings, the period and form the question asks about (`tools.filing_query`)
order them. No filing matches -> None, and the search runs over every filing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from tools.filing_identity import FilingIdentity
from tools.filing_query import FilingAsked, read_question

_SUFFIXES = re.compile(
    r"[,.\s]+(?:inc|incorporated|corporation|corp|company|co|plc|ltd|limited|holdings|"
    r"international|group|n\.?v|s\.?a|llc|l\.?p)\.?$",
    re.I,
)
_GENERIC_FIRST_WORDS = frozenset(
    "the american united general first national international global new north south "
    "east west central pacific atlantic royal standard".split()
)
"""First words shared by many companies' names: never a name on their own."""
MIN_WORD_NAME = 3
"""Shortest first word or initials taken as a name on their own (AMD, CVS, MGM)."""
ANNUAL_FORMS = frozenset({"10-K", "annual report", "20-F", "40-F"})
EVENT_DAYS = 7
"""An 8-K's report date may trail the event it reports by a few days."""


@dataclass(frozen=True)
class FilingRoute:
    """The filings a question names, best first, with each one's period-and-form score."""

    documents: tuple[str, ...]
    scores: dict[str, float]

    def best(self) -> tuple[str, ...]:
        """Return the filings sharing the best score."""
        top = max(self.scores.values())
        return tuple(doc for doc in self.documents if self.scores[doc] == top)


@lru_cache(maxsize=4096)
def company_names(registrant: str) -> tuple[str, ...]:
    """Return the lower-case forms a question may name a registrant by, longest first."""
    full, short = _name_forms(registrant)
    return tuple(sorted(full | short, key=len, reverse=True))


@lru_cache(maxsize=4096)
def _name_forms(registrant: str) -> tuple[frozenset[str], frozenset[str]]:
    """Return (full forms, short forms): initials, 2+2 letters and the first word are short."""
    core = registrant.strip().replace("\u2019", "'")
    while (trimmed := _SUFFIXES.sub("", core)) != core:
        core = trimmed
    core = re.sub(r"^the\s+", "", core, flags=re.I).strip(" ,.&")
    full, short = _forms_of(core)
    plain = core.replace("'", "")  # "Lowe's" is also written "Lowes"
    if plain != core:
        more_full, more_short = _forms_of(plain)
        full, short = full | more_full, short | more_short
    return frozenset(full), frozenset(short - full)


def _forms_of(core: str) -> tuple[set[str], set[str]]:
    """Return (full forms, short forms) of a name stripped of its legal suffixes."""
    words = re.findall(r"[A-Za-z0-9]+", core)
    if not words:
        return set(), set()
    lowered = [w.lower() for w in words]
    full = {" ".join(lowered), "".join(lowered), core.lower()}
    short: set[str] = set()
    if len(words) >= 2:
        initials = "".join(w[0] for w in lowered)
        if len(initials) >= MIN_WORD_NAME:
            short.add(initials)
        if "&" in core:
            short |= {"&".join(w[0] for w in lowered), "n".join(w[0] for w in lowered)}
        if len(words) == 2 and all(len(w) >= 2 for w in lowered):
            short.add(lowered[0][:2] + lowered[1][:2])
        if len(lowered[0]) >= MIN_WORD_NAME and lowered[0] not in _GENERIC_FIRST_WORDS:
            short.add(lowered[0])
    return full, short


def names_question(identity: FilingIdentity, question: str) -> bool:
    """Tell whether a question names the filing's registrant (or prints its ticker).

    A short form counts only where the question writes it as a name, with a capital
    ("Best Buy" -> "Best", never "the best"; "AMD", "JnJ", "Amex").
    """
    full, short = _name_forms(identity.registrant)
    question = question.replace("\u2019", "'")
    lowered = question.lower()
    for name in full:
        if re.search(r"(?<![\w&])" + re.escape(name) + r"(?![\w&])", lowered):
            return True
    for name in short:
        pattern = r"(?<![\w&])" + re.escape(name) + r"(?![\w&])"
        if any(not found.group(0).islower() for found in re.finditer(pattern, question, re.I)):
            return True
    return any(re.search(rf"\b{re.escape(t)}\b", question) for t in identity.tickers)


def period_score(identity: FilingIdentity, asked: FilingAsked) -> float:
    """Score how well a filing's period fits the period a question asks about.

    An 8-K reports an event, not a period: it fits a dated question by its report date
    and a year's question only as a document published that year. A question looking
    ahead ("expected in FY2023") is answered by the filings of the year before.
    """
    if identity.form == "8-K":
        if asked.event_date and identity.period_end:
            gap = abs(_days(identity.period_end) - _days(asked.event_date))
            return 3.0 - gap / EVENT_DAYS if gap <= EVENT_DAYS else 0.0
        return 1.0 if asked.years and identity.fiscal_year == asked.year else 0.0
    if not asked.years:
        return 0.0
    wanted = {asked.year, asked.year - 1} if asked.ahead else {asked.year}
    score = 0.0
    if identity.fiscal_year in wanted:
        score += 2.0
    elif identity.published and int(identity.published[:4]) in wanted:
        score += 1.0
    elif identity.fiscal_year in asked.years:
        score += 1.0
    if asked.quarter:
        if identity.fiscal_quarter == asked.quarter:
            score += 1.0
        elif asked.quarter == 4 and identity.form in ANNUAL_FORMS:
            score += 0.5
    elif identity.fiscal_quarter and identity.fiscal_quarter != 4:
        score -= 0.5  # a year's question: the year's filing (a Q4 release covers the year)
    return score


def _days(iso: str) -> int:
    return date.fromisoformat(iso).toordinal()


def form_score(identity: FilingIdentity, asked: FilingAsked) -> float:
    """Score how well a filing's form fits the forms a question names or implies."""
    form = "10-K" if identity.form in ANNUAL_FORMS else identity.form
    if not asked.forms or form not in asked.forms:
        return 0.0
    return 2.0 if asked.forms[0] == form else 1.0


def _form_rank(identity: FilingIdentity) -> int:
    """Order of forms among equal scores: periodic reports before event reports."""
    if identity.form in ANNUAL_FORMS:
        return 0
    return 2 if identity.form == "8-K" else 1


def route(filings: dict[str, FilingIdentity], question: str) -> FilingRoute | None:
    """Return the filings of the companies a question names, best fitting first; None if none.

    Args:
        filings: Each document's identity (documents that are no filing have none).
        question: The question as the user wrote it.
    """
    asked = read_question(question)
    named = [doc for doc, identity in filings.items() if names_question(identity, question)]
    if not named:
        return None
    scores = {
        doc: period_score(filings[doc], asked) + form_score(filings[doc], asked) for doc in named
    }
    ordered = sorted(
        named,
        key=lambda doc: (-scores[doc], _form_rank(filings[doc]), -filings[doc].fiscal_year, doc),
    )
    return FilingRoute(tuple(ordered), scores)
