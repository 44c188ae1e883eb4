"""Filings by fold: page R@5 and "right filing first" of each system, per company fold.

The questions are a FinanceBench bundle's (`fif convert financebench`); each belongs to the
fold of its company (`evals.filing_folds`). A system here is a function from a question
and a setting (shared store, or single document: the question's own filings) to a page
ranking ("DOC#PAGE", best first). Figures are pooled per fold, over all questions, and the
worst fold is named.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from evals.filing_folds import FOLDS, fold_of
from evals.metrics import recall_at_k

PAGE_K = 5


@dataclass(frozen=True)
class FilingQuestion:
    """One question with its gold pages, its filings and its fold."""

    qid: str
    question: str
    gold_pages: frozenset[str]
    docs: tuple[str, ...]
    fold: str

    @property
    def gold_docs(self) -> frozenset[str]:
        """Return the filings holding a gold page."""
        return frozenset(key.rsplit("#", 1)[0] for key in self.gold_pages)


PageSystem = Callable[[FilingQuestion, bool], list[str]]
"""(question, single_doc) -> pages, best first."""


def load_questions(bundle: Path) -> list[FilingQuestion]:
    """Return a bundle's questions that have gold pages, with their folds."""
    found = []
    with (bundle / "questions.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            gold = frozenset(record.get("gold_pages") or [])
            docs = tuple(record.get("question_docs") or [])
            if gold:
                found.append(
                    FilingQuestion(record["qid"], record["question"], gold, docs, fold_of(docs))
                )
    return found


@dataclass(frozen=True)
class FoldFigures:
    """A system's figures in one setting: per fold, over all questions, and the worst fold."""

    recall: dict[str, float]
    right_first: dict[str, float]
    hits: dict[str, tuple[int, int]]

    def worst(self) -> str:
        """Return the fold with the lowest page R@5."""
        return min(FOLDS, key=lambda fold: (self.recall.get(fold, 0.0), fold))


def evaluate(
    system: PageSystem, questions: Sequence[FilingQuestion], single: bool
) -> tuple[FoldFigures, dict[str, list[str]]]:
    """Run a system on every question; return its fold figures and its page rankings."""
    rankings = {q.qid: system(q, single) for q in questions}
    return figures(questions, rankings), rankings


def figures(questions: Sequence[FilingQuestion], rankings: dict[str, list[str]]) -> FoldFigures:
    """Return page R@5 and right-filing-first per fold and over all ('all')."""
    groups: dict[str, list[FilingQuestion]] = {fold: [] for fold in FOLDS}
    for question in questions:
        groups.setdefault(question.fold, []).append(question)
    groups["all"] = list(questions)
    recall, first, hits = {}, {}, {}
    for name, group in groups.items():
        if not group:
            continue
        found = [recall_at_k(rankings[q.qid], q.gold_pages, PAGE_K) for q in group]
        right = [_right_first(rankings[q.qid], q) for q in group]
        recall[name] = sum(found) / len(group)
        first[name] = sum(right) / len(group)
        hits[name] = (int(sum(found)), len(group))
    return FoldFigures(recall, first, hits)


def _right_first(pages: Sequence[str], question: FilingQuestion) -> float:
    return 1.0 if pages and pages[0].rsplit("#", 1)[0] in question.gold_docs else 0.0


def table_rows(results: Iterable[tuple[str, str, FoldFigures]]) -> list[str]:
    """Return a markdown table: system, setting, R@5 per fold (hits/n), all, worst, right first."""
    folds = list(FOLDS)
    head = [
        "system",
        "setting",
        *(f"fold {f}" for f in folds),
        "all",
        "worst fold",
        "right filing first",
    ]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, setting, fig in results:
        cells = [f"{fig.recall[f]:.3f} ({fig.hits[f][0]}/{fig.hits[f][1]})" for f in folds]
        worst = fig.worst()
        rows.append(
            "| "
            + " | ".join(
                [
                    name,
                    setting,
                    *cells,
                    f"{fig.recall['all']:.3f}",
                    f"{worst} {fig.recall[worst]:.3f}",
                    f"{fig.right_first['all']:.3f}" if setting == "shared" else "-",
                ]
            )
            + " |"
        )
    return rows
