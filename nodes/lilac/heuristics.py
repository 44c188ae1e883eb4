"""LILaC's offline decomposer: clause splitting for subqueries, keyword rules for modalities.

The offline twin of the LLM decomposition (seed 001, §4.2.1): no model rewrites the
question, so subqueries are its clauses, cut at relative pronouns, subordinators and
coordinated clauses; fragments too small to target a component are merged back. The
modality rules are the paper's Appendix F heuristics: numbers, years and totals →
table; looks, colours and logos → image; everything else → text.
"""

from __future__ import annotations

import re
from itertools import pairwise

from state.lilac_state import LilacSubquery, Modality
from tools.fragments import merge_fragments

MIN_CONTENT_WORDS = 2
"""A clause with fewer content words is merged into its neighbour: it cannot target a component."""

_CLAUSE_BREAK = re.compile(
    r"\s*,\s*(?:and|but|while|whereas)\s+"  # ", and that ..."
    r"|\s*[,;:]\s+"  # plain punctuation
    r"|\s+(?=(?:that|which|who|whose|whom|where)\s)"  # relative clauses
    r"|\s+(?:and|but)\s+(?=(?:that|which|who|whose|whom|where|was|is|were|are|has|had|"
    r"did|does)\s)",  # coordinated clauses, not coordinated nouns ("Bosnia and Herzegovina")
    re.IGNORECASE,
)
_WORD = re.compile(r"[\w'’\-–.]+", re.UNICODE)
_STOPWORDS = frozenset(
    "a an the of in on at to for by with from as and or but is are was were be been being "
    "that which who whose whom where when what how why this these those it its he she they "
    "his her their him them has have had do does did".split()
)
_IMAGE = re.compile(
    r"\b(?:colou?rs?|colou?red|look(?:s|ed)?\s+like|logo|picture[sd]?|photo(?:graph)?s?|"
    r"image|appearance|shape[sd]?|wear(?:s|ing)?|painted|depict(?:s|ed)?|visible|drawn|"
    r"red|blue|green|yellow|black|white|orange|purple)\b",
    re.IGNORECASE,
)
_TABLE = re.compile(
    r"\b(?:how\s+many|how\s+much|number\s+of|total|sum|percent(?:age)?|average|rank(?:ed|ing)?|"
    r"score[sd]?|points?|goals?|population|capacity|attendance|records?|statistics?|"
    r"highest|lowest|most|least|largest|smallest|fewest)\b"
    r"|%|\b\d+(?:[.,]\d+)*\b",
    re.IGNORECASE,
)


def guess_modality(text: str) -> Modality:
    """Return the modality a subquery most likely targets, by the paper's keyword heuristics."""
    if _IMAGE.search(text):
        return "image"
    if _TABLE.search(text):
        return "table"
    return "text"


def content_word_count(text: str) -> int:
    """Count the words of a text that are not function words."""
    return sum(1 for word in _WORD.findall(text) if word.lower() not in _STOPWORDS)


def split_clauses(question: str) -> list[str]:
    """Cut a question into clauses, merging fragments too small to target a component."""
    text = " ".join(question.split()).rstrip(" ?.!")
    pieces = [p.strip(" ,;:") for p in _CLAUSE_BREAK.split(text)]
    # a lead-in too small to stand alone ("when was") joins the next piece
    clauses = merge_fragments(filter(None, pieces), _too_small)
    return clauses or [text or question]


def _too_small(clause: str) -> bool:
    return content_word_count(clause) < MIN_CONTENT_WORDS


def merge_to_limit(clauses: list[str], limit: int) -> list[str]:
    """Merge the shortest adjacent pair of clauses until at most `limit` remain."""
    merged = list(clauses)
    while len(merged) > max(1, limit):
        sizes = [content_word_count(a) + content_word_count(b) for a, b in pairwise(merged)]
        at = sizes.index(min(sizes))
        merged[at : at + 2] = [f"{merged[at]} {merged[at + 1]}"]
    return merged


def offline_subqueries(question: str, max_subqueries: int) -> list[LilacSubquery]:
    """Decompose a question without a model: the question itself, then its clauses.

    The whole question comes first because a clause cut out of it loses its context
    (the offline twin cannot de-contextualise it the way the LLM prompt asks); a
    single-clause question yields one subquery, the paper's "no unnecessary splitting".
    """
    question = " ".join(question.split())
    clauses = split_clauses(question)
    texts = (
        [question]
        if len(clauses) == 1
        else [question, *merge_to_limit(clauses, max_subqueries - 1)]
    )
    texts = list(dict.fromkeys(texts))[: max(1, max_subqueries)]
    return [
        {"index": i, "text": text, "modality": guess_modality(text)} for i, text in enumerate(texts)
    ]
