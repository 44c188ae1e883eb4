"""MMAPG's planner node: read the plan and the graph, choose the next node(s) (seed 003, §3.3).

The LLM sees the overall plan, the graph description P_state(G) and the node options and
returns the type, parents and instruction of one node (or several independent Retrieval
nodes); its offline twin is `rules.offline_next`. Question nodes are added here directly
(their instruction is their content); Retrieval, Answer and Stop go to their nodes through
the graph's router. At the iteration cap the planner stops whatever the model proposes.
"""

from __future__ import annotations

from collections.abc import Sequence

from langgraph.runtime import Runtime

from nodes.core.decision import DecisionUpdate
from nodes.core.guards import ungrounded
from nodes.core.reasoning import Decided, decide_within, fallbacks_of
from nodes.mmapg.graph_view import describe_graph, llm_budget_left, next_id, planner_steps
from nodes.mmapg.prompts import PLANNER_SYSTEM, PLANNER_USER, PLANNER_VERSION
from nodes.mmapg.rules import RuleInputs, action, offline_next
from nodes.mmapg.schemas import MAX_PARALLEL, PlannerReply
from state.mmapg_state import MMAPGContext, MMAPGState, MMAPGStep, NodeAction, PlanNode
from tools.corpus_index import open_index
from tools.cost import CostMeter
from tools.llm_calls import StructuredCaller


class PlannerUpdate(DecisionUpdate, total=False):
    """The keys the planner writes."""

    pending: list[NodeAction]
    nodes: list[PlanNode]
    trace: list[MMAPGStep]


def check_reply(reply: PlannerReply, known: set[int]) -> None:
    """Reject parents that do not exist and several nodes that are not all Retrieval."""
    for node in reply.nodes:
        unknown = [p for p in node.parents if p not in known]
        if unknown:
            raise ValueError(f"parents {unknown} do not exist; use ids {sorted(known)}")
    if len(reply.nodes) > 1 and any(n.type != "retrieval" for n in reply.nodes):
        raise ValueError("only Retrieval nodes may be created several at a time")


def llm_actions(caller: StructuredCaller, state: MMAPGState, meter: CostMeter) -> list[NodeAction]:
    """Ask the model for the next node(s) and number them after the existing ones."""
    nodes = state["nodes"]
    user = PLANNER_USER.format(
        plan=state["plan"]["text"] or "\n".join(state["plan"]["sub_questions"]),
        graph=describe_graph(nodes),
        question=state["question"],
    )
    known = {n["id"] for n in nodes}
    reply = caller.call(
        PlannerReply,
        PLANNER_SYSTEM.format(max_parallel=MAX_PARALLEL),
        user,
        meter,
        validate=lambda r: check_reply(r, known),
    )
    start = next_id(nodes)
    last = nodes[-1]["id"]
    return [
        {
            "id": start + i,
            "type": node.type,
            "parents": node.parents or [last],
            "instruction": node.instruction or state["question"],
            "decided_by": "llm",
            "reason": reply.analysis[:300],
        }
        for i, node in enumerate(reply.nodes)
    ]


def question_nodes(actions: Sequence[NodeAction]) -> list[PlanNode]:
    """Return the Question nodes among the actions, ready to add to the graph."""
    return [
        {
            "id": a["id"],
            "type": "question",
            "parents": a["parents"],
            "instruction": a["instruction"],
            "content": a["instruction"],
            "status": "open",
            "found": [],
            "others": [],
            "detail": {},
            "decided_by": a["decided_by"],
        }
        for a in actions
        if a["type"] == "question"
    ]


def actions_refusal(actions: Sequence[NodeAction], state: MMAPGState) -> str | None:
    """Refuse a stop before anything was found, and searches the question does not ask for."""
    nodes = state["nodes"]
    if any(a["type"] == "stop" for a in actions) and not any(n["found"] for n in nodes):
        return "stop with nothing retrieved while budget remains"
    grounds = [state["question"], *state["plan"]["sub_questions"], *(n["content"] for n in nodes)]
    searches = [a["instruction"] for a in actions if a["type"] in ("retrieval", "question")]
    return ungrounded(searches, grounds, "instruction") if searches else None


def next_actions(
    state: MMAPGState, context: MMAPGContext, meter: CostMeter
) -> tuple[list[NodeAction], list[Decided]]:
    """Return the next node(s): Stop at the iteration cap, else the LLM's or the rule's choice."""
    nodes = state["nodes"]
    if planner_steps(state) + 1 >= context.max_iterations:
        stop = action(next_id(nodes), "stop", [nodes[-1]["id"]], "", "iteration cap reached")
        return [{**stop, "decided_by": "rule"}], []
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    # a single path works on the question itself: sub-questions would start side branches
    plan = [state["question"]] if context.single_path else state["plan"]["sub_questions"]
    inputs = RuleInputs(plan, context.max_bridges)
    decided = decide_within(
        llm_budget_left(state, context.max_llm_calls, context.max_tokens),
        context,
        meter,
        lambda caller: llm_actions(caller, state, meter),
        lambda: offline_next(index, nodes, inputs),
        [lambda proposed: actions_refusal(proposed, state)],
    )
    actions: list[NodeAction] = decided.value
    if decided.decided_by == "offline-fallback":
        actions = [{**a, "decided_by": "offline-fallback"} for a in actions]
    if context.single_path:
        actions = on_one_path(actions, nodes)
    return actions, [decided]


def on_one_path(actions: Sequence[NodeAction], nodes: Sequence[PlanNode]) -> list[NodeAction]:
    """Keep the first planned node and build it on the last node (the single-path ablation)."""
    first = actions[0]
    return [{**first, "parents": [nodes[-1]["id"]]}]


def planner(state: MMAPGState, runtime: Runtime[MMAPGContext]) -> PlannerUpdate:
    """Choose the next node(s) of the planning graph."""
    meter = CostMeter()
    actions, decisions = next_actions(state, runtime.context, meter)
    by_llm = any(d.decided_by != "offline" for d in decisions)
    step: MMAPGStep = {
        "node": "planner",
        "decided_by": actions[0]["decided_by"],
        "reason": "; ".join(dict.fromkeys(a["reason"] for a in actions)),
        "prompt_version": PLANNER_VERSION if by_llm else None,
        "detail": {
            "step": planner_steps(state) + 1,
            "new": [{"id": a["id"], "type": a["type"], "parents": a["parents"]} for a in actions],
        },
    }
    return {
        "pending": actions,
        "nodes": question_nodes(actions),
        "trace": [step],
        "cost": meter.as_dict(),
        **fallbacks_of("planner", *decisions),
    }
