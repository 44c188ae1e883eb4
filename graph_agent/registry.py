"""Every system the product runs, one spec each: what the CLI, evals, serve, MCP and replay read.

A spec names the system's own settings (its Context type), the module of its graph file
(imported on first use: importing one compiles its graph), the function that runs it on a
question, where its step records live, whether `fif serve` streams its steps from the
compiled graph, and its variants (ablations and tuned alternatives, each a set of settings).
Adding a system is a state module, a nodes folder, a graph file and one line in `SYSTEMS`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from state.extraction_state import ExtractionContext
from state.fif_context import FiFContext
from state.ircot_state import IrcotContext
from state.lilac_state import LilacContext
from state.mmapg_state import MMAPGContext
from state.reagent_state import ReAgentContext
from state.settings import RunSettings
from state.tuning import FiFTuning
from tools.errors import ConfigError

Settings = Mapping[str, Any]
"""Context fields a variant sets, by name."""


def _frozen(variants: Mapping[str, Settings]) -> Mapping[str, Settings]:
    return MappingProxyType({name: MappingProxyType(fields) for name, fields in variants.items()})


@dataclass(frozen=True)
class SystemSpec:
    """What the product needs to know to run, evaluate, serve and replay one system."""

    name: str
    context_type: type[RunSettings]
    """The system's own settings (its LangGraph context_schema)."""
    description: str
    graph_module: str | None = None
    """Module of the system's graph file (with `graph`, compiled without a checkpointer);
    None for a system that is one search and keeps no thread."""
    ask_function: str = ""
    """Function of `graph_module` running one question: `(question, context, *, thread_id,
    checkpointer) -> RunResult`."""
    history_key: str = "history"
    """State key of the run's step records (what replay lists and results carry)."""
    streams: bool = False
    """Whether `fif serve` streams the run's steps from the compiled graph as they happen
    (else the run is asked whole and its trace sent at the end)."""
    variants: Mapping[str, Settings] = field(default_factory=dict)
    """Variant name (`<system>-<what changes>`) → the settings it sets on the system's own."""
    routes_filings: bool = False
    """Whether a run is scoped to the filings its question names (`filing_routing`)."""

    @property
    def replayable(self) -> bool:
        """Tell whether runs are threads with checkpoints (`fif replay` lists, resumes, forks)."""
        return self.graph_module is not None

    def module(self) -> Any:
        """Import and return the system's graph module (compiling its graph once per process)."""
        if self.graph_module is None:
            raise ConfigError(f"system {self.name!r} has no graph: it keeps no threads to replay")
        return importlib.import_module(self.graph_module)

    def compiled(self, checkpointer: Any = None) -> Any:
        """Return the system's compiled graph, saving to `checkpointer` when one is given."""
        from graph_agent.binding import with_checkpointer

        return with_checkpointer(self.module().graph, checkpointer)

    def ask(self) -> Callable[..., Any]:
        """Return the function that runs the system on one question."""
        return getattr(self.module(), self.ask_function)  # type: ignore[no-any-return]

    def run_config(self, context: RunSettings) -> dict[str, Any]:
        """Return extra LangGraph run config the system needs (e.g. its recursion limit)."""
        limit = getattr(self.module(), "recursion_limit", None)
        return {"recursion_limit": limit(context)} if callable(limit) else {}

    def own_settings(self, context: RunSettings) -> RunSettings:
        """Return `context` as this system's settings type, keeping the fields it has."""
        if isinstance(context, self.context_type):
            return context
        fields = self.context_type.model_fields
        shared = context.model_dump(exclude_unset=True)
        return self.context_type(**{key: value for key, value in shared.items() if key in fields})

    def context(self, settings: Mapping[str, Any] | None = None) -> RunSettings:
        """Return the system's Context from FIF_* env, then `settings` (None values skipped)."""
        return self.context_type.from_env(settings)


FIF_ABLATIONS: dict[str, Settings] = {
    f"fif-{switch.replace('_', '-')}": {switch: True}
    for switch in ("no_backtracking", "no_llm_traversal", "no_global_hop", "fixed_granularity",
                   "no_planner")
}  # fmt: skip

FIF_VARIANTS: dict[str, Settings] = {
    **FIF_ABLATIONS,
    "fif-dense-global": {"tuning": FiFTuning(global_search="dense")},
    "fif-sparse-global": {"tuning": FiFTuning(global_search="sparse")},
    "fif-keep-first-hop": {"tuning": FiFTuning(first_hop_slots=2)},
    "fif-hybrid-components": {"tuning": FiFTuning(component_search="hybrid")},
    "fif-no-lexical-facet": {"tuning": FiFTuning(rerank_lexical_weight=0.0)},
}

MMAPG_VARIANTS: dict[str, Settings] = {
    "mmapg-top-k": {"fixed_top_k": 10},
    "mmapg-no-split": {"no_modality_split": True},
    "mmapg-no-examination": {"no_examination": True},
    "mmapg-single-path": {"single_path": True},
    "mmapg-no-triplets": {"triplet_kb": False},
}
"""MMAPG's ablations (seed 003, Table 3, A.5): top-10 instead of the radius; no text/image
split; no examination ("w/o retrieval module"); one path ("w/o graph-guided planning"); rows
and sentences for the triplet KB ("w/o triplet conversion")."""

REAGENT_VARIANTS: dict[str, Settings] = {
    "reagent-no-backtracking": {"no_backtracking": True},
    "reagent-local-only": {"global_backtracking": False},
    "reagent-depth-1": {"backtrack_depth": 1},
    "reagent-1-subquestion": {"max_subqueries": 1},
    "reagent-5-subquestions": {"max_subqueries": 5},
}
"""ReAgent's ablations (seed 004, §5.3)."""

SPECS = (
    SystemSpec("fif", FiFContext, "FAILURE IS FEEDBACK: cheap hops first, escalation after "
               "a failure, backtracking to earlier successes", "graph_agent.fif_graph", "ask_fif",
               streams=True, variants=_frozen(FIF_VARIANTS), routes_filings=True),
    SystemSpec("lilac", LilacContext, "LILaC: decomposition and late-interaction beam search "
               "over the layered graph", "graph_agent.lilac_graph", "ask_lilac", "trace"),
    SystemSpec("ircot", IrcotContext, "IRCoT: interleaved retrieval and chain-of-thought",
               "graph_agent.ircot_graph", "ask_ircot",
               variants=_frozen({"ircot-dense": {"search_mode": "dense"}})),
    SystemSpec("mmapg", MMAPGContext, "MMAPG: an adaptive planning graph grown node by node",
               "graph_agent.mmapg_graph", "ask_mmapg", "trace", variants=_frozen(MMAPG_VARIANTS)),
    SystemSpec("reagent", ReAgentContext, "ReAgent: agents over retractable assertions with "
               "local and global backtracking", "graph_agent.reagent_graph", "ask_reagent",
               "trace", variants=_frozen(REAGENT_VARIANTS)),
    SystemSpec("extraction", ExtractionContext, "The iterative extraction loop over a "
               "document's section tree", "graph_agent.extraction_graph", "ask_extraction",
               "trace", streams=True, routes_filings=True),
    SystemSpec("dense", RunSettings, "Dense single-shot: components scored by their best "
               "subcomponent in one vector search"),
)  # fmt: skip

SYSTEMS: Mapping[str, SystemSpec] = MappingProxyType({spec.name: spec for spec in SPECS})
"""Every system, by name."""


def get_system(name: str) -> SystemSpec:
    """Return a system's spec.

    Raises:
        ConfigError: If the name is unknown; the message lists the known ones.
    """
    if name not in SYSTEMS:
        raise ConfigError(f"unknown system {name!r}; known: {', '.join(SYSTEMS)}")
    return SYSTEMS[name]


def replayable_systems() -> list[str]:
    """Return the systems whose runs are checkpointed threads."""
    return [name for name, spec in SYSTEMS.items() if spec.replayable]


def variant_of(name: str) -> tuple[SystemSpec, Settings]:
    """Return the spec and settings of a system or one of its variants (`fif-no-planner`).

    Raises:
        ConfigError: If no system has that name or variant.
    """
    if name in SYSTEMS:
        return SYSTEMS[name], MappingProxyType({})
    for spec in SYSTEMS.values():
        if name in spec.variants:
            return spec, spec.variants[name]
    known = [*SYSTEMS, *(v for spec in SYSTEMS.values() for v in spec.variants)]
    raise ConfigError(f"unknown system {name!r}; known: {', '.join(known)}")
