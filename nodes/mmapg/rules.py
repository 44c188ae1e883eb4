"""The offline planner: a rule over the planning graph so far that picks the next node(s).

The offline twin of the seed's planning module (seed 003, §3.3), in order of precedence:
1. Stop after an Answer node (the planner node itself stops at the iteration cap).
2. The plan's sub-questions become Question nodes (the first step).
3. One Retrieval node per open Question node (all at once: they run in parallel).
4. From Retrieval leaves: a "no result" node grows a retry with the instruction's key
   words (the failed node stays); a found first-hop node grows one follow-up Retrieval
   per bridge entity — a document its best evidence links to that no node has found yet.
5. Answer once every leaf question has a found node under it; otherwise Stop (the
   finisher then answers from the whole graph).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from nodes.core.lexical import content_words
from nodes.mmapg.graph_view import (
    children,
    leaf_questions,
    of_type,
    open_questions,
    question_of,
    retrievals_under,
    retrieved_docs,
)
from nodes.mmapg.schemas import MAX_PARALLEL
from state.mmapg_state import NodeAction, NodeType, PlanNode
from tools.corpus_index import CorpusIndex
from tools.graph_nav import neighbors
from tools.search import similarities

MAX_RETRIES = 1
"""Retries grown along one chain of "no result" nodes before the chain is given up."""
MAX_HOPS = 2
"""Found Retrieval nodes along one path: a question's hit and one bridge from it."""
BRIDGE_SOURCES = 2
"""Kept candidates of a found node whose links are followed (best first)."""


@dataclass(frozen=True)
class RuleInputs:
    """What the rule reads besides the graph and the corpus: the plan and the bridge limit."""

    sub_questions: Sequence[str]
    max_bridges: int


def action(
    node_id: int, kind: NodeType, parents: list[int], instruction: str, why: str
) -> NodeAction:
    """Return one planned node, decided by the offline rule."""
    return {
        "id": node_id,
        "type": kind,
        "parents": parents,
        "instruction": instruction,
        "decided_by": "offline",
        "reason": why,
    }


def first_parent_chain(nodes: Sequence[PlanNode], node: PlanNode) -> list[PlanNode]:
    """Return a node and its ancestors along first parents, nearest first."""
    by_id = {n["id"]: n for n in nodes}
    chain = [node]
    while chain[-1]["parents"] and chain[-1]["parents"][0] in by_id:
        chain.append(by_id[chain[-1]["parents"][0]])
    return chain


def failed_depth(nodes: Sequence[PlanNode], node: PlanNode) -> int:
    """Count the "no result" Retrieval nodes on a node's first-parent chain (itself included)."""
    return sum(1 for n in first_parent_chain(nodes, node) if n["status"] == "no_result")


def found_depth(nodes: Sequence[PlanNode], node: PlanNode) -> int:
    """Count the found Retrieval nodes on a node's first-parent chain (itself included)."""
    return sum(1 for n in first_parent_chain(nodes, node) if n["status"] == "found")


def bridge_docs(
    index: CorpusIndex, nodes: Sequence[PlanNode], node: PlanNode, question: str, limit: int
) -> list[str]:
    """Return up to `limit` documents the node's best evidence links to and no node has found.

    Links leave the matched sentence or row first (the cell a table row links from), then
    the whole component; candidates are ordered by their summary's similarity to the question.
    """
    graph = index.graph
    seen = retrieved_docs(nodes)
    linked: dict[str, None] = {}
    for item in node["found"][:BRIDGE_SOURCES]:
        sources = [item["evidence"]] if item["evidence"] != item["component_id"] else []
        found = neighbors(graph, [item["doc_id"]], sources) if sources else {}
        if not found:
            parts = [item["component_id"], *graph.children(item["component_id"])]
            found = neighbors(graph, [item["doc_id"]], parts)
        linked.update(dict.fromkeys(doc for doc in found if doc not in seen))
    if not linked or limit <= 0:
        return []
    scores = similarities(index, question, "document", list(linked))
    return sorted(linked, key=lambda doc: -scores.get(doc, -1.0))[:limit]


def grow_from_leaves(
    index: CorpusIndex, nodes: Sequence[PlanNode], start_id: int, max_bridges: int
) -> list[NodeAction]:
    """Plan retries from "no result" leaves and bridge follow-ups from found first-hop leaves."""
    planned: list[NodeAction] = []
    for node in of_type(nodes, "retrieval"):
        if children(nodes, node["id"]):
            continue
        next_id = start_id + len(planned)
        if node["status"] == "no_result" and failed_depth(nodes, node) <= MAX_RETRIES:
            words = " ".join(content_words(node["instruction"]))
            if words and words != node["instruction"].lower():
                why = f"node {node['id']} found nothing; retry with its key words"
                planned.append(action(next_id, "retrieval", [node["id"]], words, why))
            continue
        if node["status"] != "found" or found_depth(nodes, node) >= MAX_HOPS:
            continue
        owner = question_of(nodes, node)
        question = owner["content"] if owner else node["instruction"]
        for doc in bridge_docs(index, nodes, node, question, max_bridges):
            title = index.graph.title(doc)
            why = f"node {node['id']} names the bridge entity {title!r}"
            planned.append(
                action(
                    start_id + len(planned), "retrieval", [node["id"]], f"{title}: {question}", why
                )
            )
    return planned[:MAX_PARALLEL]


def all_questions_found(nodes: Sequence[PlanNode]) -> bool:
    """Tell whether every leaf question has a found Retrieval node under it."""
    return all(
        any(r["status"] == "found" for r in retrievals_under(nodes, q))
        for q in leaf_questions(nodes)
    )


def offline_next(
    index: CorpusIndex, nodes: Sequence[PlanNode], inputs: RuleInputs
) -> list[NodeAction]:
    """Return the next node(s) to build, by the rule in this module's docstring."""
    start = max((n["id"] for n in nodes), default=-1) + 1
    last = nodes[-1]
    if last["type"] == "answer":
        return [action(start, "stop", [last["id"]], "", "an answer was written")]
    questions = of_type(nodes, "question")
    extra = [q for q in inputs.sub_questions if q != questions[0]["content"]]
    if len(questions) == 1 and not of_type(nodes, "retrieval") and extra:
        root = questions[0]["id"]
        return [
            action(start + i, "question", [root], text, "a sub-question of the overall plan")
            for i, text in enumerate(extra)
        ]
    opened = open_questions(nodes)
    if opened:
        return [
            action(start + i, "retrieval", [q["id"]], q["content"], f"question {q['id']} is open")
            for i, q in enumerate(opened[:MAX_PARALLEL])
        ]
    grown = grow_from_leaves(index, nodes, start, inputs.max_bridges)
    if grown:
        return grown
    found = [n["id"] for n in of_type(nodes, "retrieval") if n["status"] == "found"]
    if found and all_questions_found(nodes):
        why = "every question has a found node"
        return [action(start, "answer", found, questions[0]["content"], why)]
    return [action(start, "stop", [last["id"]], "", "nothing left to try")]
