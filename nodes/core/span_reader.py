"""The offline extractive reader: the answer span (a phrase or a table cell), not a sentence.

Candidates are the spans of the top components' sentences (dates, numbers, names, noun
phrases) and the cells of their best-matching table rows. Each is scored by how well its
kind fits the question's answer type, how close it sits to the question's words, how well
its sentence or row (and its component's rank) matches the question, and how much of it
the question does not already say. "A or B?" questions pick an option by the years or
numbers found next to each; yes/no questions answer yes unless the evidence disagrees.
The weights are a `ReaderTuning` (state/reader_tuning.py), `RunSettings.reader` in a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nodes.core.answer_types import (
    AnswerKind,
    QuestionShape,
    content_stems,
    content_tokens,
    tokens,
)
from nodes.core.cell_reader import cell_candidates
from nodes.core.choice_reader import choose_option, yes_or_no
from nodes.core.question import analyze_question
from nodes.core.span_candidates import Evidence, Span, SpanKind, sentence_spans
from nodes.core.span_shapes import (
    Seen,
    answer_text,
    joined_places,
    name_factor,
    place_factor,
    plain,
    token_marks,
)
from state.reader_tuning import ReaderTuning
from tools.sparse_index import stem_words

KIND_FIT: dict[AnswerKind, dict[SpanKind, float]] = {
    "date": {"date": 1.0, "year": 0.9, "number": 0.1, "name": 0.05, "phrase": 0.02},
    "year": {"year": 1.0, "date": 0.9, "number": 0.1, "name": 0.05, "phrase": 0.02},
    "number": {"number": 1.0, "year": 0.3, "date": 0.1, "name": 0.05, "phrase": 0.05},
    "person": {"name": 1.0, "phrase": 0.05, "date": 0.01, "year": 0.01, "number": 0.01},
    "place": {"name": 1.0, "phrase": 0.1, "date": 0.01, "year": 0.01, "number": 0.01},
    "entity": {"name": 1.0, "phrase": 0.6, "date": 0.3, "year": 0.3, "number": 0.3},
}
"""How well a span kind answers each answer type (rows: the question's, columns: the span's)."""


@dataclass(frozen=True)
class Scored:
    """A candidate answer with its score."""

    text: str
    score: float


def read_answer(
    question: str, evidence: Sequence[Evidence], tuning: ReaderTuning = ReaderTuning()
) -> str | None:
    """Return the best answer span for a question from ranked evidence, or None."""
    if not evidence:
        return None
    shape = analyze_question(question).answer
    if shape.kind == "choice":
        return choose_option(shape, evidence, tuning.option_share)
    if shape.kind == "yesno":
        return yes_or_no(question, evidence, tuning.option_share)
    found = candidates(question, shape, evidence, tuning)
    best = max(found, key=lambda c: c.score, default=None)
    return best.text if best and best.score > 0 else None


def candidates(
    question: str, shape: QuestionShape, evidence: Sequence[Evidence], tuning: ReaderTuning
) -> list[Scored]:
    """Score every span of the evidence's sentences and every cell of its best rows."""
    if shape.kind not in KIND_FIT:  # a closed question's spans: score them as entities
        shape = QuestionShape("entity", pivot=shape.pivot)
    asked = content_stems(question)
    lowercase = " ".join(w for w in tokens(question) if w.islower())
    relation = content_stems(lowercase)
    titles = {plain(item.title) for item in evidence}
    found: list[Scored] = []
    for item in evidence:
        weight = 1.0 / (1.0 + tuning.rank_decay * item.rank)
        seen = Seen(asked, relation, plain(item.title), titles - {plain(item.title)}, tuning)
        for sentence in item.sentences:
            found += _sentence_candidates(sentence, shape, seen, weight)
        if item.rows:
            cells = cell_candidates(
                item, shape, seen, weight, KIND_FIT[shape.kind], _share, _novelty
            )
            found += [Scored(text, score) for text, score in cells]
    return found


def _sentence_candidates(
    sentence: str, shape: QuestionShape, seen: Seen, weight: float
) -> list[Scored]:
    words = tokens(sentence)
    spans = sentence_spans(sentence, words)
    marks = token_marks(words, spans)
    hits = [i for i, mark in enumerate(marks) if mark & seen.asked]
    near_to = [i for i in hits if marks[i] & seen.relation] or hits
    overlap = len(set().union(*(marks[i] for i in hits)) & seen.asked) / max(len(seen.asked), 1)
    if shape.kind == "place":
        spans += joined_places(spans, words)
    pivots = pivot_ends(words, shape.pivot)
    scored = []
    for span in spans:
        fit = KIND_FIT[shape.kind][span.kind] * _novelty(span.text, seen.asked)
        if span.kind == "name":
            fit *= name_factor(span, words, shape.kind, seen.tuning) * seen.title_factor(span.text)
            if shape.kind == "place":
                fit *= place_factor(span, words, shape.region, seen.tuning)
        if fit > 0:
            near = _proximity(span, near_to, seen.tuning) * _pivot_bonus(span, pivots, seen.tuning)
            text = answer_text(span, shape.kind)
            scored.append(Scored(text, weight * (0.5 + overlap) * fit * near))
    return scored


def pivot_ends(words: Sequence[str], pivot: Sequence[str]) -> list[int]:
    """Return the token positions right after each occurrence of the pivot words."""
    if not pivot:
        return []
    want = stem_words(list(pivot))
    have = stem_words([w.lower() for w in words])
    size = len(want)
    return [i + size for i in range(len(have) - size + 1) if have[i : i + size] == want]


def _pivot_bonus(span: Span, pivots: Sequence[int], tuning: ReaderTuning) -> float:
    follows = any(0 <= span.start - end < tuning.pivot_reach for end in pivots)
    return tuning.pivot_bonus if follows else 1.0


def _novelty(text: str, asked: set[str]) -> float:
    """Return the share of a span's content words the question does not contain."""
    words = content_tokens(text)
    if not words:
        return 0.0
    return sum(stem not in asked for stem in stem_words(words)) / len(words)


def _proximity(span: Span, hits: Sequence[int], tuning: ReaderTuning) -> float:
    """Return 1 / (1 + distance / scale) from the span to the nearest question word outside it."""
    outside = [i for i in hits if not span.start <= i < span.end]
    if not outside:
        return tuning.no_match_proximity
    distance = min(span.start - i if i < span.start else i - span.end + 1 for i in outside)
    return 1.0 / (1.0 + distance / tuning.proximity_scale)


def _share(text: str, asked: set[str]) -> float:
    """Return the share of the question's content stems that a text contains."""
    if not asked:
        return 0.0
    return len(asked & content_stems(text)) / len(asked)
