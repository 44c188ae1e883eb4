"""The systems an evaluation compares, all behind one `retrieve(example)` interface.

Every system (dense, sparse, hybrid, FiF, LILaC, IRCoT, MMAPG, ReAgent, the extraction loop,
ablations) is built by a factory from one `RunConfig`, so a comparison runs them on one index
with the same settings. Graphs are imported inside their factories (importing one compiles it).

A conversational example (MMCoQA) is asked as its turns' questions, one per line (a baseline).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from evals.datasets.questions import EvalExample
from nodes.core.answering import answer_text, decide_answer
from state.settings import Backend, RunSettings
from tools.cost import CostMeter
from tools.errors import ConfigError

if TYPE_CHECKING:
    from tools.search import SearchMode

logger = logging.getLogger(__name__)

COST_KEYS: tuple[str, ...] = tuple(CostMeter().as_dict())
"""The cost fields every result line carries (llm_calls, tokens, usd, *_ms, fallbacks)."""


@dataclass(frozen=True)
class RunConfig:
    """What every system of one evaluation run shares: the index, the backend, k."""

    index_dir: str
    chroma_url: str | None = None
    backend: Backend = "offline"
    top_k: int = 10
    single_doc: bool = False
    """FinanceBench's single-document setting: every search stays in the question's filings."""


@dataclass(frozen=True)
class SystemOutput:
    """What a system returns for one example."""

    ranking: list[str]
    """Component ids, best first."""
    answer: str | None = None
    cost: dict[str, float] = field(default_factory=dict)
    latency_ms: float = 0.0
    """Wall time of the whole call, measured by the system."""
    trace: list[dict[str, Any]] = field(default_factory=list)
    """The run's step records (graph systems), kept in the eval's traces sidecar."""


class System(Protocol):
    """A retrieval system the runner can drive."""

    name: str

    def retrieve(self, example: EvalExample, want_answer: bool) -> SystemOutput:
        """Rank components for one example (and answer it when asked and able)."""
        ...


SystemFactory = Callable[[RunConfig], System]
"""Build a system from the run config."""


def question_text(example: EvalExample) -> str:
    """Return what a system is asked: earlier turns' questions, then the current one."""
    return "\n".join([*example.history, example.question])


def full_cost(cost: Mapping[str, float]) -> dict[str, float]:
    """Return a cost dict with every COST_KEYS field present (missing fields are 0)."""
    merged = {key: 0.0 for key in COST_KEYS}
    merged.update({key: float(value) for key, value in cost.items()})
    return merged


def example_scope(example: EvalExample, config: RunConfig) -> tuple[str, ...] | None:
    """Return the documents a system may search for an example (None: the whole index).

    Raises:
        ConfigError: In the single-document setting, if the example names no documents.
    """
    if not config.single_doc:
        return None
    if not example.question_docs:
        raise ConfigError(
            f"question {example.qid} has no question_docs, which --single-doc needs; "
            "bundles from `fif convert financebench` have them"
        )
    return example.question_docs


def make_context(config: RunConfig, kind: type[RunSettings] = RunSettings, **settings: Any) -> Any:
    """Return a system's settings for a run config, with extra fields (variants, answer) set.

    FIF_* settings from the environment apply as in `fif ask` (FIF_CHAT_MODEL, FIF_BASE_URL,
    FIF_TUNING, ...); the run config and `settings` override them.
    """
    run = {"index_dir": config.index_dir, "chroma_url": config.chroma_url,
           "backend": config.backend, "top_k": config.top_k}  # fmt: skip
    return kind.from_env({**run, **settings})


class DenseSystem:
    """Single-shot: components scored by their best subcomponent, top k, in one search.

    `mode` is dense (one embedding), sparse (BM25) or hybrid (both, fused by reciprocal rank).
    """

    def __init__(self, name: str, config: RunConfig, mode: SearchMode = "dense") -> None:
        from tools.corpus_index import open_index

        self.name = name
        self.config = config
        self.mode = mode
        self.index = open_index(config.index_dir, config.chroma_url)
        self.context = make_context(config, answer=True)

    def retrieve(self, example: EvalExample, want_answer: bool) -> SystemOutput:
        """Rank components with one search at subcomponent granularity."""
        from tools.search import dense_search

        started = time.perf_counter()
        meter = CostMeter()
        question = question_text(example)
        index = self.index.scoped(example_scope(example, self.config))
        found = dense_search(
            index, question, "subcomponent", self.config.top_k, meter, mode=self.mode
        )
        ranking = [node.node_id for node in found]
        answer = None
        if want_answer:
            answer = answer_text(decide_answer(index, question, ranking, self.context, meter))
        latency = (time.perf_counter() - started) * 1000.0
        return SystemOutput(ranking, answer, full_cost(meter.as_dict()), latency)


@dataclass
class GraphSystem:
    """A LangGraph system (FiF, an ablation, LILaC, IRCoT) called through its `ask` function."""

    name: str
    ask: Callable[..., Any]
    context: RunSettings
    config: RunConfig
    declares_queries: bool = False
    """Whether its runs declare query texts ahead to the embedding helper (FiF's do)."""

    def retrieve(self, example: EvalExample, want_answer: bool) -> SystemOutput:
        """Run the graph once on a fresh thread (no checkpointer) and keep its ranking."""
        scope = example_scope(example, self.config)
        context = self.context.model_copy(update={"answer": want_answer, "doc_scope": scope})
        started = time.perf_counter()
        result = self.ask(question_text(example), context)
        latency = (time.perf_counter() - started) * 1000.0
        ranking = [entry["component_id"] for entry in result.ranking]
        answer = result.answer if want_answer else None
        return SystemOutput(ranking, answer, full_cost(result.cost), latency, result.history)


def _single_shot(mode: SearchMode, config: RunConfig) -> System:
    return DenseSystem(mode, config, mode)


def _graph_system(name: str, config: RunConfig) -> System:
    """Build a registered graph system, or one of its variants, for a run."""
    from graph_agent.registry import variant_of

    spec, settings = variant_of(name)
    context = make_context(config, spec.context_type, **settings)
    return GraphSystem(name, spec.ask(), context, config, declares_queries=spec.name == "fif")


def _graph_systems() -> dict[str, SystemFactory]:
    from graph_agent.registry import SYSTEMS as SPECS

    names = [n for spec in SPECS.values() if spec.replayable for n in (spec.name, *spec.variants)]
    return {name: partial(_graph_system, name) for name in names}


SYSTEMS: dict[str, SystemFactory] = {
    "dense": partial(_single_shot, "dense"),
    "sparse": partial(_single_shot, "sparse"),
    "hybrid": partial(_single_shot, "hybrid"),
    **_graph_systems(),
}
"""Every system the runner knows, by name; tests register fakes here."""


def every_system() -> list[str]:
    """Return what `--compare all` runs: every registered system but ablations and variants.

    An ablation or variant is named `<system>-<what changes>` (fif-no-planner, ircot-dense,
    reagent-depth-1); a system's own name has no hyphen.
    """
    return [name for name in SYSTEMS if "-" not in name]


def make_system(name: str, config: RunConfig) -> System:
    """Build the named system for a run.

    Raises:
        ConfigError: If the name is unknown.
    """
    factory = SYSTEMS.get(name)
    if factory is None:
        raise ConfigError(f"unknown system {name!r}; known systems: {', '.join(sorted(SYSTEMS))}")
    return factory(config)
