"""Scope a run to the filings its question names before the graph starts (filing_routing)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from state.settings import RunSettings
from tools.corpus_index import open_index
from tools.filing_catalog import route_question

if TYPE_CHECKING:
    from graph_agent.registry import SystemSpec

logger = logging.getLogger(__name__)

C = TypeVar("C", bound=RunSettings)


def with_filing_scope(context: C, question: str) -> C:
    """Return the context scoped to the filings that fit the question best, or unchanged.

    The scope is the named company's filings whose period and form fit best (ties kept: a
    question naming only the company keeps all of them). Unchanged when routing is off, a
    scope is already set (`--doc`, `--single-doc`), or the question names no company the
    index holds filings of.
    """
    if not context.filing_routing or context.doc_scope is not None:
        return context
    index = open_index(context.index_dir, context.chroma_url)
    route = route_question(index.graph, question)
    if route is None:
        return context
    best = route.best()
    logger.info("question routed to %d of %d filing(s): %s", len(best), len(route.documents), best)
    return context.model_copy(update={"doc_scope": best})


def routed_context(
    spec: SystemSpec, options: Mapping[str, Any], question: str, say: Callable[[str], None]
) -> RunSettings:
    """Return a system's settings from CLI options, scoped as its run would scope them.

    For a system that routes (`SystemSpec.routes_filings`) and a question naming a company
    the index holds filings of, `say` is told which filings the run searches; the run
    itself then finds its scope set and does not route again.
    """
    context = spec.context(options)
    if not spec.routes_filings:
        return context
    routed = with_filing_scope(context, question)
    if routed.doc_scope and routed.doc_scope != context.doc_scope:
        scope = routed.doc_scope
        say(
            f"searching {len(scope)} filing(s) the question names: {', '.join(scope)} "
            "(--doc chooses others)"
        )
    return routed
