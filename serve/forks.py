"""Start a fork of a past thread: a new branch from one of its checkpoints, with its own log.

Any system with a graph in the registry (graph_agent.registry) can be forked; the system
and the settings come from the thread's checkpoints, the page may change the budget and
the backend. Before a traversal (a FiF checkpoint whose next node is the traverser) the
fork may also change what that traversal takes: its subquery and its strategy. A refused
edit names its field (`FieldError`), so the page shows the reason beside that field.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from graph_agent.registry import replayable_systems
from serve.branch_logs import branch_steps, fork_context, fork_point, thread_branches
from serve.errors import FieldError, NotFoundError
from serve.runs import RunRequest
from serve.schemas import ForkRequest
from serve.served import ServedIndex
from state.settings import RunSettings

EDITABLE_BEFORE = ("traverser",)
"""The node whose input a fork may edit: the traversal the orchestrator's decision feeds."""


def start_fork(
    state: ServedIndex,
    thread_id: str,
    request: ForkRequest,
    start: Callable[[RunRequest], None],
) -> str:
    """Start the fork in the background and return its run id (`?run=` of its event log).

    `start` starts the run (serve's per-client admission, then `serve.runs.start_run`).

    Raises:
        NotFoundError: If the thread or the checkpoint is unknown, or the thread's system
            cannot be replayed.
        FieldError: If an edit targets a checkpoint whose next node is not a traversal, or
            a FiF budget is already spent at the checkpoint.
    """
    system, found = thread_branches(state.index_dir, thread_id)
    if system not in replayable_systems():
        forkable = ", ".join(replayable_systems())
        raise NotFoundError(f"{system} threads cannot be forked; forkable: {forkable}")
    where = fork_point(found, request.checkpoint_id)
    if where is None:
        raise NotFoundError(
            f"thread {thread_id!r} has no checkpoint {request.checkpoint_id!r}; "
            f"GET /api/threads/{thread_id}/checkpoints lists them"
        )
    branch, at = where
    snapshot = branch.path[at]
    values = snapshot.values or {}
    edit = _edit(request, snapshot)
    _check_budget(request.max_steps, values)
    context = _settings(system, list(branch.path[: at + 1]), thread_id, state, request)
    step = _step_number(branch, state.index.graph, request.checkpoint_id)
    run = uuid.uuid4().hex[:8]
    fork = {"branch": len(found), "fork_branch": branch.number, "fork_step": step}
    fork["steps_from"] = step or 1  # its log holds only the steps it runs
    request_run = RunRequest(
        thread_id,
        system,
        str(values.get("question", "")),
        context,
        request.checkpoint_id,
        edit,
        log_key=f"{thread_id}~{run}",
        fork={**fork, "edited": edit or None, "budget": request.max_steps},
    )
    start(request_run)
    return run


def _settings(
    system: str, path: list[Any], thread_id: str, state: ServedIndex, request: ForkRequest
) -> RunSettings:
    """Return the thread's settings up to the fork point, with the request's budget and backend."""
    context = fork_context(system, path, thread_id, state.index_dir)
    changes = {"max_steps": request.max_steps, "backend": request.backend}
    changed = {key: value for key, value in changes.items() if value is not None}
    return type(context).model_validate({**context.model_dump(), **changed})


def _step_number(branch: Any, graph: Any, checkpoint_id: str) -> int | None:
    """Return the number of the branch's step a checkpoint ends (None: before the first)."""
    steps = branch_steps(branch, graph)
    found = (n for n, step in enumerate(steps, 1) if step.get("checkpoint_id") == checkpoint_id)
    return next(found, None)


def _edit(request: ForkRequest, snapshot: Any) -> dict[str, Any]:
    """Return the traversal input the fork changes, checked against the checkpoint."""
    edit: dict[str, Any] = {}
    if request.subquery:
        edit["subquery"] = request.subquery.strip()
    if request.strategy is not None:
        edit["strategy"] = request.strategy.model_dump()
    if edit and (
        tuple(snapshot.next) != EDITABLE_BEFORE or "next_action" not in (snapshot.values or {})
    ):
        raise FieldError(
            next(iter(edit)),
            "only a step before a traversal (next node: traverser) takes an edited subquery "
            f"or strategy; this one runs {list(snapshot.next) or 'nothing'}: fork from a "
            "traverser step",
        )
    return edit


def _check_budget(max_steps: int | None, values: dict[str, Any]) -> None:
    """Refuse a FiF budget the checkpoint has already spent (the fork would stop at once)."""
    if max_steps is None or "next_action" not in values:
        return
    taken = len(values.get("history") or [])
    if max_steps <= taken:
        raise FieldError(
            "max_steps",
            f"{taken} traversals were taken before this step, so a budget of {max_steps} "
            f"stops the fork at once; give at least {taken + 1}",
        )
