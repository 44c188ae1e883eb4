"""ReAgent's retriever agents A_R: hybrid evidence per pending sub-question, read as assertions.

Each pending sub-question q_i is queried sparse + dense, fused by reciprocal rank
(`tools.search.score_nodes(mode="hybrid")`), keeping the top-M components with the sentence
or row that matched. Agent `q<i>` then reads assertions from its best evidence (offline:
the matched sentence/row of each top component; LLM: the extraction prompt) and adds them to
its knowledge set, sending each to the verifier as an `assert`. Only pending sub-questions
are queried, so a local backtrack re-queries just the affected one.
"""

from __future__ import annotations

from langgraph.runtime import Runtime

from nodes.core.decision import CostUpdate, decision_record
from nodes.core.guards import instruction_like, unsupported_answer
from nodes.core.prompts import as_data
from nodes.reagent.knowledge import offline_assertion
from nodes.reagent.prompts import EXTRACT_SYSTEM, EXTRACT_USER, EXTRACT_VERSION
from nodes.reagent.protocol import Decision, decide, message
from nodes.reagent.schemas import MAX_ASSERTIONS, Assertions
from state.reagent_state import (
    Assertion,
    Evidence,
    LogEntry,
    Message,
    ReAgentContext,
    ReAgentState,
    ReAgentStep,
    SubQuestion,
)
from tools.component_terms import full_text
from tools.corpus_index import CorpusIndex, open_index
from tools.cost import CostMeter
from tools.llm_calls import StructuredCaller
from tools.search import score_nodes

EXTRACT_CANDIDATES = 5
"""How many evidence passages the LLM extraction prompt shows an agent."""
UNIT_CHARS = 400
"""Characters of one evidence sentence/row shown in a prompt."""


def agent_name(index: int) -> str:
    """Return the name of the retriever agent answering sub-question `index`."""
    return f"q{index}"


def retrieve(index: CorpusIndex, text: str, m: int, meter: CostMeter) -> list[Evidence]:
    """Return the top-m components for a sub-question by hybrid (dense + BM25, RRF) score."""
    found = score_nodes(index, text, "component", "subcomponent", m, "hybrid", meter=meter)
    return [
        {
            "component_id": n.node_id,
            "doc_id": n.doc_id,
            "type": n.kind,
            "score": n.score,
            "unit": n.evidence,
        }
        for n in found
    ]


def passage(index: CorpusIndex, item: Evidence) -> str:
    """Render one evidence item for a prompt: document title, then the matched sentence/row."""
    return (
        f"{index.graph.title(item['doc_id'])}: {index.graph.node(item['unit']).text[:UNIT_CHARS]}"
    )


def usable(evidence: list[Evidence], rejected: set[str]) -> list[Evidence]:
    """Return the evidence whose matched sentence/row has not been rejected."""
    return [e for e in evidence if e["unit"] not in rejected]


class RetrieverUpdate(CostUpdate, total=False):
    """The keys the retriever writes."""

    step: int
    pending: list[int]
    evidence: dict[str, list[Evidence]]
    knowledge: dict[str, list[Assertion]]
    log: list[LogEntry]
    messages: list[Message]
    trace: list[ReAgentStep]


def retriever(state: ReAgentState, runtime: Runtime[ReAgentContext]) -> RetrieverUpdate:
    """Query every pending sub-question and let its agent assert what the evidence says."""
    context = runtime.context
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    meter = CostMeter()
    step = state.get("step", 0) + 1
    rejected = set(state.get("rejected", []))
    subquestions = {s["index"]: s for s in state.get("subquestions", [])}
    update: RetrieverUpdate = {"step": step, "pending": [], "evidence": {}, "knowledge": {}}
    messages: list[Message] = []
    log: list[LogEntry] = []
    deciders: dict[str, str] = {}
    notes: list[str] = []
    for position in state.get("pending", []):
        subquestion = subquestions[position]
        agent = agent_name(position)
        m = context.evidence_m + len(rejected)
        evidence = retrieve(index, subquestion["text"], m, meter)
        decision = _assertions(state, context, index, subquestion, evidence, step, meter)
        new = decision.value
        held = [*state.get("knowledge", {}).get(agent, []), *new]
        update["evidence"][str(position)] = evidence[: context.evidence_m]
        update["knowledge"][agent] = held
        log.append({"agent": agent, "step": step, "assertions": [a["id"] for a in held]})
        messages += [message("assert", agent, "verifier", step, a["text"], a["id"]) for a in new]
        deciders[agent] = decision.decided_by
        notes += [f"{agent}: {decision.note}"] if decision.note else []
    return {
        **update,
        "log": log,
        "messages": messages,
        "trace": [_trace(deciders, notes, step, len(messages))],
        "cost": meter.as_dict(),
    }


def _trace(deciders: dict[str, str], notes: list[str], step: int, asserted: int) -> ReAgentStep:
    kinds = set(deciders.values())
    decided_by = kinds.pop() if len(kinds) == 1 else "mixed"
    reason = "; ".join([f"round {step}: queried {sorted(deciders)}, {asserted} assertions", *notes])
    return decision_record(
        "retriever", decided_by, reason, EXTRACT_VERSION, step=step, agents=deciders
    )


def read_assertion(
    index: CorpusIndex, subquestion: SubQuestion, item: Evidence, step: int
) -> Assertion:
    """Read the offline assertion of one evidence item: its matched sentence/row and slot."""
    unit = index.graph.node(item["unit"])
    return offline_assertion(
        agent=agent_name(subquestion["index"]),
        subquestion=subquestion["index"],
        subquestion_text=subquestion["text"],
        title=index.graph.title(item["doc_id"]),
        unit_text=unit.text,
        unit_is_row=unit.kind == "row",
        evidence=[item["component_id"], item["unit"]],
        step=step,
    )


def llm_assertions(
    caller: StructuredCaller,
    index: CorpusIndex,
    subquestion: SubQuestion,
    candidates: list[Evidence],
    limit: int,
    step: int,
    meter: CostMeter,
) -> list[Assertion]:
    """Ask the chat model which claims the numbered evidence makes about the sub-question."""
    shown = candidates[:EXTRACT_CANDIDATES]
    passages = as_data(
        "\n".join(f"[{n}] {passage(index, e)}" for n, e in enumerate(shown, start=1)),
        "numbered passages",
    )
    answer = caller.call(
        Assertions,
        EXTRACT_SYSTEM.format(max_assertions=limit),
        EXTRACT_USER.format(evidence=passages, subquestion=subquestion["text"]),
        meter,
        validate=lambda a: _check_numbers(a, len(shown)),
    )
    return [
        {
            **read_assertion(index, subquestion, shown[a.evidence - 1], step),
            "entity": a.entity,
            "attribute": a.attribute.lower(),
            "value": a.value,
            "text": a.statement,
        }
        for a in answer.assertions[:limit]
    ]


def _assertions(
    state: ReAgentState,
    context: ReAgentContext,
    index: CorpusIndex,
    subquestion: SubQuestion,
    evidence: list[Evidence],
    step: int,
    meter: CostMeter,
) -> Decision[list[Assertion]]:
    """Read the agent's new assertions from its usable evidence, by LLM or offline."""
    candidates = usable(evidence, set(state.get("rejected", [])))
    limit = min(context.assertions_per_agent, MAX_ASSERTIONS)

    def offline() -> list[Assertion]:
        return [read_assertion(index, subquestion, item, step) for item in candidates[:limit]]

    def llm(caller: StructuredCaller) -> list[Assertion]:
        return llm_assertions(caller, index, subquestion, candidates, limit, step, meter)

    def check(assertions: list[Assertion]) -> str | None:
        if candidates and not assertions:
            return f"reads no assertion from {len(candidates)} usable evidence items"
        for assertion in assertions:
            source = [full_text(index.graph, assertion["evidence"][0])]
            claim = assertion["value"] or assertion["entity"]
            problem = unsupported_answer(claim, source) or (
                "reads as an instruction" if instruction_like(assertion["text"]) else None
            )
            if problem:
                return f"assertion {assertion['id']}: {problem}"
        return None

    decision = decide(state, context, meter, llm, offline, [check])
    return Decision(_distinct(decision.value), decision.decided_by, decision.note)


def _check_numbers(answer: Assertions, shown: int) -> None:
    bad = [a.evidence for a in answer.assertions if a.evidence > shown]
    if bad:
        raise ValueError(f"passage numbers {bad} do not exist; use 1 to {shown}")


def _distinct(assertions: list[Assertion]) -> list[Assertion]:
    by_id = {a["id"]: a for a in assertions}
    return list(by_id.values())
