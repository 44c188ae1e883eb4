"""Pure views of the planning graph: children, open questions, found evidence, drawings.

The planner's offline rule, the prompts' graph description P_state(G) and the trace's
mermaid drawing all read the node list through these functions; nothing is counted in
state that could drift from the nodes themselves.
"""

from __future__ import annotations

from collections.abc import Sequence

from nodes.core.prompts import as_data
from state.core import llm_calls
from state.mmapg_state import Evidence, MMAPGState, PlanNode

CONTENT_CHARS = 240
"""How much of a node's content the graph description shows."""
LABEL_CHARS = 60
"""How much of a node's content a mermaid label shows."""


def children(nodes: Sequence[PlanNode], node_id: int) -> list[PlanNode]:
    """Return the nodes built on a node, in growth order."""
    return [node for node in nodes if node_id in node["parents"]]


def of_type(nodes: Sequence[PlanNode], kind: str) -> list[PlanNode]:
    """Return the nodes of one type, in growth order."""
    return [node for node in nodes if node["type"] == kind]


def next_id(nodes: Sequence[PlanNode]) -> int:
    """Return the id the next node gets."""
    return max((node["id"] for node in nodes), default=-1) + 1


def question_of(nodes: Sequence[PlanNode], node: PlanNode) -> PlanNode | None:
    """Return the Question node a node descends from (the nearest one up its first parents)."""
    by_id = {n["id"]: n for n in nodes}
    current: PlanNode | None = node
    while current is not None:
        if current["type"] == "question":
            return current
        current = by_id.get(current["parents"][0]) if current["parents"] else None
    return None


def retrievals_under(nodes: Sequence[PlanNode], question: PlanNode) -> list[PlanNode]:
    """Return the Retrieval nodes that descend from a Question node."""
    return [
        node
        for node in of_type(nodes, "retrieval")
        if (owner := question_of(nodes, node)) is not None and owner["id"] == question["id"]
    ]


def open_questions(nodes: Sequence[PlanNode]) -> list[PlanNode]:
    """Return the Question nodes no Retrieval node has been grown from yet."""
    return [
        question
        for question in of_type(nodes, "question")
        if not any(child["type"] == "retrieval" for child in children(nodes, question["id"]))
    ]


def leaf_questions(nodes: Sequence[PlanNode]) -> list[PlanNode]:
    """Return the Question nodes without sub-questions (those retrieval must answer)."""
    return [
        q
        for q in of_type(nodes, "question")
        if not any(c["type"] == "question" for c in children(nodes, q["id"]))
    ]


def found_evidence(nodes: Sequence[PlanNode]) -> list[Evidence]:
    """Return every kept candidate of every Retrieval node, in the order nodes grew."""
    return [item for node in of_type(nodes, "retrieval") for item in node["found"]]


def retrieved_docs(nodes: Sequence[PlanNode]) -> set[str]:
    """Return the documents whose components some Retrieval node kept."""
    return {item["doc_id"] for item in found_evidence(nodes)}


def last_answer(nodes: Sequence[PlanNode]) -> PlanNode | None:
    """Return the most recent Answer node."""
    answers = of_type(nodes, "answer")
    return answers[-1] if answers else None


def llm_calls_used(state: MMAPGState) -> int:
    """Return the LLM calls the run has spent so far (from its cost tally)."""
    return llm_calls(state)


def planner_steps(state: MMAPGState) -> int:
    """Return how many planner steps the run has taken (from its trace)."""
    return sum(1 for step in state.get("trace", []) if step["node"] == "planner")


def describe_graph(nodes: Sequence[PlanNode]) -> str:
    """Render the graph for a prompt (P_state(G)): one line per node with its parents."""
    lines = []
    for node in nodes:
        parents = ", ".join(str(p) for p in node["parents"]) or "none"
        content = " ".join(node["content"].split())[:CONTENT_CHARS]
        lines.append(
            f"[{node['id']}] {node['type'].capitalize()} ({node['status']}; parents: {parents}) "
            f"instruction: {node['instruction']} | content: {content}"
        )
    return as_data("\n".join(lines), "planning graph with what its nodes found")


def mermaid(nodes: Sequence[PlanNode]) -> str:
    """Draw the planning graph as a mermaid flowchart: nodes with type and status, parent edges."""
    lines = ["flowchart TD"]
    for node in nodes:
        text = " ".join((node["content"] or node["instruction"]).split())[:LABEL_CHARS]
        label = f"{node['id']} {node['type']} [{node['status']}]: {text}".replace('"', "'")
        lines.append(f'    n{node["id"]}["{label}"]')
    for node in nodes:
        lines.extend(f"    n{parent} --> n{node['id']}" for parent in node["parents"])
    return "\n".join(lines)


def llm_budget_left(state: MMAPGState, max_llm_calls: int, max_tokens: int) -> bool:
    """Tell whether another LLM call fits the run's call and token budgets."""
    cost = state.get("cost", {})
    spent = int(cost.get("input_tokens", 0) + cost.get("output_tokens", 0))
    return llm_calls_used(state) < max_llm_calls and spent < max_tokens
