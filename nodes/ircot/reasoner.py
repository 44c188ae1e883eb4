"""IRCoT's reasoner node: write the next chain-of-thought sentence from Q and the evidence.

With a chat model the sentence comes from one structured call (`NextSentence`: sentence,
answer or null), validated, repaired and retried by `StructuredCaller`; the evidence pool
goes before the question, as in the paper's prompt. Without a model, or when the call
fails or the LLM budget is spent, the offline twin (`nodes.ircot.chain`) picks the
sentence from the evidence pool, and the fallback is recorded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from langgraph.runtime import Runtime

from nodes.core.decision import DecisionUpdate
from nodes.core.guards import ungrounded, unsupported_answer
from nodes.core.reasoning import decide, fallbacks_of, numbered, with_images
from nodes.ircot.chain import Thought, answer_in, offline_thought
from nodes.ircot.prompts import EMPTY_CHAIN, REASON_SYSTEM, REASON_USER, REASON_VERSION
from nodes.ircot.rules import reasoning_steps
from nodes.ircot.schemas import NextSentence
from state.ircot_state import ChainSentence, IrcotContext, IrcotState, IrcotStep
from tools.component_terms import full_text
from tools.corpus_index import CorpusIndex, open_index
from tools.cost import CostMeter
from tools.llm_calls import StructuredCaller

logger = logging.getLogger(__name__)

MAX_PROMPT_COMPONENTS = 15
"""Evidence shown to the model, first-retrieved first: the paper caps its reader at 15
paragraphs."""


class ReasonerUpdate(DecisionUpdate, total=False):
    """The keys the reasoner writes."""

    query: str
    chain: list[ChainSentence]
    answer: str | None
    history: list[IrcotStep]


def chain_text(chain: Sequence[ChainSentence]) -> str:
    """Render the chain so far for the prompt."""
    return " ".join(sentence["text"] for sentence in chain) or EMPTY_CHAIN


def not_a_repeat(chain: Sequence[ChainSentence]) -> Callable[[NextSentence], None]:
    """Return a validator sending a sentence the chain already holds back for repair."""
    seen = {sentence["text"].lower() for sentence in chain}

    def check(reply: NextSentence) -> None:
        if reply.sentence.lower() in seen:
            raise ValueError("that sentence is already in the chain; write a new one")

    return check


def llm_thought(
    index: CorpusIndex,
    state: IrcotState,
    context: IrcotContext,
    meter: CostMeter,
    caller: StructuredCaller,
) -> Thought:
    """Ask the chat model for the next sentence over the pool (evidence before the question)."""
    evidence = [entry["component_id"] for entry in state.get("pool", [])][:MAX_PROMPT_COMPONENTS]
    chain = state.get("chain", [])
    user = REASON_USER.format(
        evidence=numbered(index.graph, evidence),
        question=state["question"],
        chain=chain_text(chain),
    )
    reply = caller.call(
        NextSentence,
        REASON_SYSTEM,
        with_images(user, index.graph, evidence, context),
        meter,
        validate=not_a_repeat(chain),
    )
    answer = reply.answer or answer_in(reply.sentence)
    return Thought(reply.sentence, answer, None, "written by the chat model")


def offline_step(index: CorpusIndex, state: IrcotState, meter: CostMeter) -> Thought:
    """Take the next sentence from the evidence pool (what the model's prompt would show)."""
    pool = state.get("pool", [])
    components = [entry["component_id"] for entry in pool]
    used = {s["source"] for s in state.get("chain", []) if s["source"]}
    covered = {entry["doc_id"] for entry in pool}
    return offline_thought(index, state["question"], components, used, covered, meter)


def thought_refusal(index: CorpusIndex, state: IrcotState, thought: Thought) -> str | None:
    """Return why a model's chain sentence is refused, or None.

    The sentence becomes the next query, so it must share words with the question or the
    evidence shown and not read as an instruction; an answer must be in that evidence.
    """
    shown = [e["component_id"] for e in state.get("pool", [])][:MAX_PROMPT_COMPONENTS]
    texts = [full_text(index.graph, node) for node in shown]
    problem = ungrounded([thought.sentence or ""], [state["question"], *texts], "chain sentence")
    if problem is None and thought.answer:
        problem = unsupported_answer(thought.answer, texts)
    return problem


def reasoner(state: IrcotState, runtime: Runtime[IrcotContext]) -> ReasonerUpdate:
    """Write one new chain sentence; it becomes the next query unless the chain stops."""
    context = runtime.context
    meter = CostMeter()
    index = open_index(context.index_dir, context.chroma_url, context.doc_scope)
    decided = decide(
        state,
        context,
        meter,
        lambda caller: llm_thought(index, state, context, meter, caller),
        lambda: offline_step(index, state, meter),
        [lambda thought: thought_refusal(index, state, thought)],
    )
    thought: Thought = decided.value
    record: IrcotStep = {
        "node": "reasoner",
        "step": reasoning_steps(state) + 1,
        "decided_by": decided.decided_by,
        "reason": "; ".join(filter(None, [thought.reason, decided.note])),
        "sentence": thought.sentence,
        "answer": thought.answer,
        "prompt_version": REASON_VERSION if meter.llm_calls else None,  # a model was asked
    }
    update: ReasonerUpdate = {"history": [record], "cost": meter.as_dict()}
    update.update(fallbacks_of("reasoner", decided))
    if thought.sentence:
        sentence: ChainSentence = {
            "text": thought.sentence,
            "source": thought.source,
            "decided_by": decided.decided_by,
        }
        update.update({"query": thought.sentence, "chain": [sentence]})
    if thought.answer:
        update["answer"] = thought.answer
    return update
