"""One question's step trace from an eval run (`OUT/traces.jsonl`), as the page's trace shows it.

An eval run keeps no threads; its traces sidecar holds each graph system's step records,
compacted to ids (evals.traces). They become the same step summaries a live run streams
(serve.steps), with the index the run used, so candidates open on that index.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evals.results_log import parse_lines
from evals.runner import TRACES_FILE
from serve.errors import NotFoundError
from serve.eval_files import inside
from serve.steps import TOP_COMPONENTS, TOP_DOCUMENTS, record_summary, rung_of_strategy
from tools.layered_graph import LayeredGraph

FIF_STEP_KEYS = ("step", "subquery", "strategy", "anchor", "success", "answerable", "reason")


def eval_trace(
    runs_dir: Path, name: str, qid: str, system: str, graph: LayeredGraph | None
) -> dict[str, Any]:
    """Return the steps one system took on one question of run `name` (latest line wins).

    `graph` is the run's index when it is served (the documents of whole-run systems'
    finds come from it), else None.

    Raises:
        OutsideFolderError: If `name` leaves the runs folder.
        NotFoundError: If the run kept no trace of that question and system.
    """
    path = inside(runs_dir, name) / TRACES_FILE
    found: list[Any] | None = None
    if path.is_file():
        records, _ = parse_lines(path.read_bytes(), path.name)
        for record in records:
            if str(record.get("qid")) == qid and str(record.get("system")) == system:
                found = record.get("trace") or []
    if found is None:
        raise NotFoundError(
            f"run {name!r} kept no trace of {system} on {qid!r} (one-shot systems keep none); "
            "its results.jsonl has the ranking"
        )
    steps = [trace_step(step, graph) for step in found if isinstance(step, Mapping)]
    return {"name": name, "qid": qid, "system": system, "steps": steps}


def trace_step(step: Mapping[str, Any], graph: LayeredGraph | None) -> dict[str, Any]:
    """Return a FiF step record as a judged step, any other node record as its summary."""
    if "strategy" not in step:
        return record_summary(step, graph)
    record = {key: step.get(key) for key in FIF_STEP_KEYS}
    documents = [str(d) for d in step.get("documents") or []]
    record.update(
        rung=rung_of_strategy(step.get("strategy")),
        documents=len(documents),
        document_ids=documents[:TOP_DOCUMENTS],
        components=[str(c) for c in step.get("components") or []][:TOP_COMPONENTS],
        links=[],
    )
    return {"node": "evaluator", "record": record}
