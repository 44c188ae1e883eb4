"""The IRCoT graph's state (question, chain of thought, evidence pool, ranking) and context.

IRCoT (Trivedi et al., ACL 2023) interleaves retrieval with chain-of-thought reasoning:
the question retrieves K components, then each reasoning step writes one new sentence
of the chain from the question and the evidence so far, and that sentence is the next
query. Like `FiFState`, everything here is plain JSON-like data so checkpoints stay
pickle-free; what happened only grows (`operator.add` reducers).
"""

from __future__ import annotations

import operator
from typing import Annotated, Literal, NotRequired

from pydantic import Field, with_config
from typing_extensions import TypedDict

from state.core import FIELD_DOCS, DecidedOutput, QuestionState, Ranked
from state.settings import RunSettings
from state.tuning import SearchMode

IrcotNode = Literal["retriever", "reasoner", "ranker"]


class PoolEntry(TypedDict):
    """A component of the evidence pool, in the order IRCoT retrieved it."""

    component_id: str
    doc_id: str
    type: str
    score: float
    """Its score for the query that first retrieved it."""
    step: int
    """The retrieval step that first retrieved it (0 = the question)."""
    evidence: str
    """The subcomponent whose similarity earned the score."""


class ChainSentence(TypedDict):
    """One sentence of the chain of thought and who wrote it."""

    text: str
    source: str | None
    """The subcomponent the offline twin took it from; None when an LLM wrote it."""
    decided_by: str
    """"llm", "offline" or "offline-fallback"."""


class IrcotStep(TypedDict):
    """One trace record: a retrieval, a reasoning step or the final ranking."""

    node: IrcotNode
    step: int
    """The loop step: retrieval t uses the sentence of reasoning step t (t = 0: the question)."""
    decided_by: str
    reason: str
    query: NotRequired[str]
    """retriever: what it searched with."""
    retrieved: NotRequired[list[str]]
    """retriever: the K components the query found, best first."""
    new_components: NotRequired[list[str]]
    """retriever: those not in the pool before this step."""
    sentence: NotRequired[str | None]
    """reasoner: the new chain sentence (None when it found none)."""
    answer: NotRequired[str | None]
    """reasoner: the answer the sentence states ("So the answer is ..."), if any."""
    prompt_version: NotRequired[str | None]
    """reasoner: the prompt version, when an LLM was asked."""


@with_config(FIELD_DOCS)
class IrcotOutputState(DecidedOutput, total=False):
    """What a caller gets back: ranking, chain, optional answer, trace and costs."""

    ranking: list[Ranked]
    """The final top-k components (ranker)."""
    chain: Annotated[list[ChainSentence], operator.add]
    """The chain of thought so far (reasoner appends one sentence per step)."""
    answer: str | None
    """The answer the chain reached, or a reader's answer when asked for (reasoner, ranker)."""
    history: Annotated[list[IrcotStep], operator.add]
    """What each node did and who decided (every node appends, fallbacks included)."""


class IrcotState(IrcotOutputState, QuestionState, total=False):
    """The whole checkpointed state of one IRCoT run: its output and its working fields."""

    query: str
    """The next retrieval query: the latest chain sentence (reasoner; last write wins)."""
    pool: Annotated[list[PoolEntry], operator.add]
    """Every component retrieved so far, first-retrieved first (retriever appends new ones)."""
    reserve: list[Ranked]
    """The question's hits past the first K, to fill a short ranking (retriever, step 0)."""


class IrcotContext(RunSettings):
    """Run settings of IRCoT: the shared RunSettings plus the loop's own knobs.

    The paper tunes K ∈ {2, 4, 6, 8} per data set on held-out questions; we keep one K
    for every corpus (no per-data-set tuning) and at most 4 reasoning steps by default,
    each of which costs an LLM call with a chat model.
    """

    search_mode: SearchMode = Field(
        "sparse",
        description=(
            "How each query retrieves components (by their best subcomponent): sparse = BM25, "
            "as the paper; dense = vectors; hybrid = both fused by reciprocal rank."
        ),
    )
    retrieve_k: int = Field(
        4, ge=1, le=50, description="K: components each query retrieves (the paper's K)."
    )
    max_chain_steps: int = Field(
        4,
        ge=0,
        le=20,
        description="Reasoning steps (chain sentences) at most; 0 = retrieve with Q only.",
    )
    pad_ranking: bool = Field(
        True,
        description=(
            "Fill a ranking shorter than top_k with the question's next hits, after every "
            "collected component (the paper returns the pool only)."
        ),
    )
