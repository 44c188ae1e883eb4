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
from graph_agent.api import answer_from_components
from state.context import Backend, Context
from state.tuning import FiFTuning
from tools.cost import CostMeter
from tools.errors import ConfigError

if TYPE_CHECKING:
    from tools.search import SearchMode

logger = logging.getLogger(__name__)

COST_KEYS: tuple[str, ...] = tuple(CostMeter().as_dict())
"""The cost fields every result line carries (llm_calls, tokens, usd, *_ms, fallbacks)."""

ABLATIONS: dict[str, str] = {
    "fif-no-backtracking": "no_backtracking",
    "fif-no-llm-traversal": "no_llm_traversal",
    "fif-no-global-hop": "no_global_hop",
    "fif-fixed-granularity": "fixed_granularity",
    "fif-no-planner": "no_planner",
}
"""System name of each FiF ablation → the Context switch it turns on."""

VARIANTS: dict[str, dict[str, Any]] = {
    "fif-dense-global": {"tuning": FiFTuning(global_search="dense")},
    "fif-sparse-global": {"tuning": FiFTuning(global_search="sparse")},
    "fif-keep-first-hop": {"tuning": FiFTuning(first_hop_slots=2)},
    "fif-hybrid-components": {"tuning": FiFTuning(component_search="hybrid")},
    "fif-no-lexical-facet": {"tuning": FiFTuning(rerank_lexical_weight=0.0)},
}
"""System name of each FiF variant → the Context settings it changes (not a part switched off)."""


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


def make_context(config: RunConfig, **switches: Any) -> Context:
    """Return the FiF Context of a run config, with extra fields (ablations, answer) set.

    FIF_* settings from the environment apply as in `fif ask` (FIF_CHAT_MODEL, FIF_BASE_URL,
    FIF_TUNING, ...); the run config and the switches override them.
    """
    run = {"index_dir": config.index_dir, "chroma_url": config.chroma_url,
           "backend": config.backend, "top_k": config.top_k}  # fmt: skip
    return Context.from_env({**run, **switches})


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
            answer = answer_from_components(index, question, ranking, self.context, meter)
        latency = (time.perf_counter() - started) * 1000.0
        return SystemOutput(ranking, answer, full_cost(meter.as_dict()), latency)


@dataclass
class GraphSystem:
    """A LangGraph system (FiF, an ablation, LILaC, IRCoT) called through its `ask` function."""

    name: str
    ask: Callable[..., Any]
    context: Context
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


def _fif(name: str, config: RunConfig) -> System:
    from graph_agent.api import ask

    switch = ABLATIONS.get(name)
    context = make_context(config, **({switch: True} if switch else VARIANTS.get(name, {})))
    return GraphSystem(name, ask, context, config, declares_queries=True)


def _lilac(config: RunConfig) -> System:
    from graph_agent.lilac_graph import ask_lilac
    from state.lilac_state import LilacContext

    context = LilacContext(**make_context(config).model_dump())
    return GraphSystem("lilac", ask_lilac, context, config)


def _ircot(name: str, config: RunConfig, **settings: Any) -> System:
    from graph_agent.ircot_graph import ask_ircot
    from state.ircot_state import IrcotContext

    context = IrcotContext(**make_context(config).model_dump(), **settings)
    return GraphSystem(name, ask_ircot, context, config)


MMAPG_ABLATIONS: dict[str, dict[str, Any]] = {
    "mmapg": {},
    "mmapg-top-k": {"fixed_top_k": 10},
    "mmapg-no-split": {"no_modality_split": True},
    "mmapg-no-examination": {"no_examination": True},
    "mmapg-single-path": {"single_path": True},
    "mmapg-no-triplets": {"triplet_kb": False},
}
"""MMAPG and its ablations (seed 003, Table 3, A.5): top-10 instead of the radius; no text/image
split; no examination ("w/o retrieval module"); one path ("w/o graph-guided planning"); rows
and sentences for the triplet KB ("w/o triplet conversion", = `mmapg` without `--triplets`)."""


def _mmapg(name: str, config: RunConfig) -> System:
    from graph_agent.mmapg_graph import ask_mmapg
    from state.mmapg_state import MMAPGContext

    settings = {**make_context(config).model_dump(), **MMAPG_ABLATIONS[name]}
    return GraphSystem(name, ask_mmapg, MMAPGContext(**settings), config)


REAGENT_ABLATIONS: dict[str, dict[str, Any]] = {
    "reagent": {},
    "reagent-no-backtracking": {"no_backtracking": True},
    "reagent-local-only": {"global_backtracking": False},
    "reagent-depth-1": {"backtrack_depth": 1},
    "reagent-1-subquestion": {"max_subqueries": 1},
    "reagent-5-subquestions": {"max_subqueries": 5},
}
"""ReAgent and its ablations (seed 004, §5.3) → the ReAgentContext fields they set."""


def _reagent(name: str, config: RunConfig) -> System:
    from graph_agent.reagent_graph import ask_reagent
    from state.reagent_state import ReAgentContext

    # only the run's own settings: ReAgent's defaults (3 sub-questions) must not be overwritten
    fields = {**make_context(config).model_dump(exclude_unset=True), **REAGENT_ABLATIONS[name]}
    return GraphSystem(name, ask_reagent, ReAgentContext(**fields), config)


def _extraction(config: RunConfig) -> System:
    from graph_agent.extraction_graph import ask_extraction
    from state.extraction_state import ExtractionContext

    context = ExtractionContext(**make_context(config).model_dump())
    return GraphSystem("extraction", ask_extraction, context, config)


SYSTEMS: dict[str, SystemFactory] = {
    "dense": partial(_single_shot, "dense"),
    "sparse": partial(_single_shot, "sparse"),
    "hybrid": partial(_single_shot, "hybrid"),
    "fif": partial(_fif, "fif"),
    **{name: partial(_fif, name) for name in [*ABLATIONS, *VARIANTS]},
    "lilac": _lilac,
    "ircot": partial(_ircot, "ircot"),
    "ircot-dense": partial(_ircot, "ircot-dense", search_mode="dense"),
    **{name: partial(_mmapg, name) for name in MMAPG_ABLATIONS},
    **{name: partial(_reagent, name) for name in REAGENT_ABLATIONS},
    "extraction": _extraction,
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
