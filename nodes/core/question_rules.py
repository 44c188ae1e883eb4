"""Question rules: registered scorers over the question's analysis, weighted by the tuning.

A rule lifts the rows or sentences a question's wording singles out where cosine and BM25
cannot see it (a superlative names no word the right row holds). Each rule is one line of
`RULES`: its name, the tuning field that weighs it (0 turns it off), and a scorer that
reads the analysis (`nodes.core.question.QuestionAnalysis`) and returns a value in [0, 1]
for the nodes it singles out. Every system that scores rows asks `rule_scores`; adding a
rule is a scorer, a line here, a tuning field and its table of tests.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from nodes.core.question import QuestionAnalysis
from nodes.core.superlatives import superlative_nodes
from tools.layered_graph import LayeredGraph

Scorer = Callable[[LayeredGraph, QuestionAnalysis, Sequence[str]], Mapping[str, float]]


@dataclass(frozen=True)
class QuestionRule:
    """One registered rule."""

    name: str
    weight_field: str
    """The tuning object's field that weighs the rule."""
    score: Scorer


def superlative_rule(
    graph: LayeredGraph, analysis: QuestionAnalysis, nodes: Sequence[str]
) -> dict[str, float]:
    """Score 1 for the table rows holding the value the question's superlative picks."""
    if analysis.superlative is None:
        return {}
    return dict.fromkeys(sorted(superlative_nodes(graph, analysis.superlative, nodes)), 1.0)


RULES: tuple[QuestionRule, ...] = (
    QuestionRule("superlative", "superlative_weight", superlative_rule),
)


def rule_weights(tuning: object) -> dict[str, float]:
    """Return each rule's weight as a tuning object sets it (0 where it has no such field)."""
    return {rule.name: float(getattr(tuning, rule.weight_field, 0.0)) for rule in RULES}


def rule_scores(
    graph: LayeredGraph,
    analysis: QuestionAnalysis,
    nodes: Sequence[str],
    weights: Mapping[str, float],
) -> dict[str, float]:
    """Return the weighted sum of the rules' scores for the nodes any rule singles out."""
    total: dict[str, float] = {}
    for rule in RULES:
        weight = weights.get(rule.name, 0.0)
        if weight <= 0:
            continue
        for node, value in rule.score(graph, analysis, nodes).items():
            total[node] = total.get(node, 0.0) + weight * value
    return total
