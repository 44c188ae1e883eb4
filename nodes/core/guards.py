"""Predicates every LLM proposal must pass, in every system (the checks of `nodes.core.decision`).

Each returns the reason a proposal is unacceptable, or None. They encode what an offline
decision never does: plan or search for something the question does not ask about, pick
candidates that do not exist or none at all, answer with words the cited evidence does not
contain, or follow an instruction found inside the corpus. Words are compared with the
analyzer of the BM25 indices (tools.sparse_index), so stems and stopwords agree with search.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from nodes.core.reader_address import INSTRUCTION, addressed_to_reader, factual_part
from tools.sparse_index import terms
from tools.values import digit_numbers

_NAME = re.compile(r"\b[A-Z][\w'’-]+")
YES_NO = frozenset({"yes", "no"})


def instruction_like(text: str) -> bool:
    """Tell whether text reads like an instruction to the model (an injected command)."""
    return bool(INSTRUCTION.search(text))


def ungrounded(texts: Sequence[str], grounds: Iterable[str], what: str = "subquery") -> str | None:
    """Reject queries that share no content word with their grounds or read as instructions.

    Args:
        texts: The proposed subqueries (or search queries).
        grounds: What they may draw words from: the question, and for a replan the memory.
        what: The name used in the reason.
    """
    if not texts:
        return f"no {what} proposed"
    allowed: set[str] = set()
    for ground in grounds:
        allowed |= terms(ground)
    for text in texts:
        if instruction_like(text):
            return f"{what} {text[:80]!r} reads as an instruction, not a search"
        if not terms(text) & allowed:
            return f"{what} {text[:80]!r} shares no content word with the question"
    return None


def bad_selection(indices: Sequence[int], limit: int, what: str = "candidate") -> str | None:
    """Reject a selection naming no candidate, or one that does not exist (0..limit-1)."""
    if limit > 0 and not indices:
        return f"selects no {what} out of {limit}"
    missing = [i for i in indices if not 0 <= i < limit]
    if missing:
        return f"{what} indices {missing} do not exist (0..{limit - 1})"
    return None


def unsupported_answer(answer: str | None, evidence: Sequence[str]) -> str | None:
    """Reject an answer the cited evidence does not state as a fact.

    The evidence must hold the answer's numbers, names and most of its words, and still
    hold them once every segment addressed to the reader (an instruction, an answer
    template, role-play, a request to reply with this answer: `nodes.core.reader_address`) is
    taken out: an answer planted for the model is refused however the page phrases it.
    Yes/no answers pass on their own.
    """
    text = (answer or "").strip()
    if not text:
        return "empty answer"
    if addressed_to_reader(text):
        return f"answer {text[:60]!r} reads as an instruction or a template"
    if text.lower().strip(" .!") in YES_NO:
        return None
    if not any(_covers(text, page) for page in evidence):
        return f"answer {text[:60]!r}: its numbers or names are not in the cited components"
    if not any(_covers(text, factual_part(page, text)) for page in evidence):
        return (
            f"answer {text[:60]!r} comes only from text addressed to the reader inside the "
            "corpus (an instruction, answer template or role-play), not from a stated fact"
        )
    return None


def _covers(answer: str, sentence: str) -> bool:
    """Tell whether a text holds the answer's numbers, names and most of its words."""
    if not set(digit_numbers(answer)) <= set(digit_numbers(sentence)):
        return False
    sentence_terms = terms(sentence)
    names = _words(" ".join(_NAME.findall(answer)))
    if not names <= sentence_terms:
        return False
    words = _words(answer)
    return not words or len(words & sentence_terms) * 2 >= len(words)


def _words(text: str) -> set[str]:
    """Return the text's analyzed terms without numbers (the analyzer splits "5,298")."""
    return {term for term in terms(text) if not any(ch.isdigit() for ch in term)}
