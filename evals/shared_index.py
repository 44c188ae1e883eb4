"""What the systems of one evaluation run share through their index, set up once per run."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from evals.systems import RunConfig, System
from tools.page_regions import PageRegion, region_ranking

HELPER_WAIT_S = 60.0
"""How long a run waits at setup for the query-embedding helper (tools.embed_process)."""


@dataclass(frozen=True)
class SharedIndex:
    """The run's hooks into the index its systems share."""

    forget_queries: Callable[[], None]
    """Empties the query-embedding cache before each pair, so each pays for its own."""
    pages: Callable[[Sequence[str]], list[str]]
    """Turns a component ranking into its page ranking ("DOC#PAGE", first occurrence kept)."""
    regions: Callable[[Sequence[str]], list[PageRegion]]
    """Turns a component ranking into its ranked page boxes (tools.page_regions)."""
    start_helper: Callable[[], None]
    """Loads the query-embedding helper, if a system declares query texts (FiF's do)."""


def shared_index(config: RunConfig, systems: Iterable[System]) -> SharedIndex:
    """Return the hooks of the index a run's systems share."""
    from tools.corpus_index import open_index

    index = open_index(config.index_dir, config.chroma_url)
    declaring = any(getattr(system, "declares_queries", False) for system in systems)

    def start_helper() -> None:
        # loaded before the first question, as the encoder is, so the first questions are
        # timed as warm as the rest; past HELPER_WAIT_S the run starts anyway
        if declaring:
            index.queries.start_helper(HELPER_WAIT_S)

    def regions(ranking: Sequence[str]) -> list[PageRegion]:
        return region_ranking(index.graph, ranking)

    return SharedIndex(index.forget_queries, index.graph.page_ranking, regions, start_helper)
