"""Browse `fif eval` output folders under `--runs`: summaries, per-question results, plots."""

from __future__ import annotations

from pathlib import Path as FilePath
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from fastapi.responses import FileResponse

from serve.errors import NotFoundError
from serve.eval_files import list_runs, run_detail, run_file
from serve.eval_questions import question_rows, run_index
from serve.eval_traces import eval_trace
from serve.served import Served, ServerState

router = APIRouter(prefix="/api/evals")
RunName = Annotated[str, Query(min_length=1, max_length=300, description="A run of the list.")]


def _runs_dir(state: Served) -> FilePath:
    if state.settings.runs_dir is None:
        raise NotFoundError("this server has no runs folder; start it with --runs DIR")
    return state.settings.runs_dir


@router.get("")
def evals(state: ServerState) -> dict[str, Any]:
    """List the eval output folders under the runs folder ([] without --runs)."""
    if state.settings.runs_dir is None:
        return {"runs": []}
    return {"runs": list_runs(state.settings.runs_dir)}


@router.get("/run")
def evaluation(state: ServerState, name: RunName) -> dict[str, Any]:
    """Return one run's summary tables (Markdown), regressions, plots and per-question results."""
    return run_detail(_runs_dir(state), name)


@router.get("/questions")
def evaluation_questions(state: ServerState, name: RunName) -> dict[str, Any]:
    """Return one row per question: its text, gold, and each system's hit and rank."""
    indices = {entry.name: entry.path for entry in state.indices.values()}
    return question_rows(_runs_dir(state), name, indices)


@router.get("/trace")
def evaluation_trace(
    state: ServerState,
    name: RunName,
    qid: Annotated[str, Query(min_length=1, max_length=200)],
    system: Annotated[str, Query(min_length=1, max_length=100)],
) -> dict[str, Any]:
    """Return the steps a system took on one question of a run, and the index it ran on."""
    indices = {entry.name: entry.path for entry in state.indices.values()}
    index = run_index(_runs_dir(state), name, indices)
    graph = state.indices[index].index.graph if index in state.indices else None
    return {**eval_trace(_runs_dir(state), name, qid, system, graph), "index": index}


@router.get("/file/{file}")
def evaluation_file(
    state: ServerState, name: RunName, file: Annotated[str, Path(max_length=200)]
) -> FileResponse:
    """Serve a plot, Markdown or CSV file of a run (never anything outside the runs folder)."""
    path, media = run_file(_runs_dir(state), name, file)
    return FileResponse(path, media_type=media)
