"""Live runs and threads: start a run, stream its steps (SSE), list, replay and fork threads.

A run's steps go into its thread's event log (serve.events); every stream reads that log,
so a live view, a reconnect (`Last-Event-ID`) and a later replay see the same events.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, Path, Query
from sse_starlette import EventSourceResponse

from graph_agent.replay import list_checkpoints
from serve.branch_logs import branch_rows, rebuild_log, thread_history
from serve.errors import NotFoundError
from serve.events import EventLogs, parse_event_id
from serve.forks import start_fork
from serve.quota import Client
from serve.runs import RunRequest, start_run
from serve.schemas import THREAD_PATTERN, AskQuery, AskRequest, ForkRequest
from serve.served import IndexState, ServedIndex
from serve.thread_list import list_threads

router = APIRouter(prefix="/api")
ThreadId = Annotated[str, Path(pattern=THREAD_PATTERN)]
LastEventId = Annotated[str | None, Header(max_length=200)]
BranchNumber = Annotated[int, Query(ge=0, le=10_000, description="0: the original run.")]
RunKey = Annotated[str | None, Query(pattern=r"^[A-Za-z0-9]{1,16}$", description="A fork's run.")]
POLL_S = 0.05
PING_S = 10


def _start(state: ServedIndex, request: AskRequest, client: str) -> str:
    state.new_thread(request.thread_id)
    thread_id = request.thread_id or uuid.uuid4().hex[:12]
    context = state.context(request.system, request)
    run = RunRequest(thread_id, request.system, request.question, context)
    _admitted(state, client, run)
    return thread_id


def _admitted(state: ServedIndex, client: str, run: RunRequest) -> None:
    """Start a run counted against its client's quota until its log ends."""
    end = state.quota.admit(client, lambda: state.logs.running(run.key))
    try:
        start_run(state.logs, state.index.graph, run)
    except BaseException:
        end()
        raise


@router.post("/runs")
def start(state: IndexState, request: AskRequest, client: Client) -> dict[str, str]:
    """Start a run in the background; its steps stream from `events`."""
    thread_id = _start(state, request, client)
    return {"thread_id": thread_id, "events": state.link(f"/api/threads/{thread_id}/events")}


@router.get("/ask/stream")
def ask_stream(
    state: IndexState,
    question: Annotated[AskQuery, Query()],
    client: Client,
    last_event_id: LastEventId = None,
) -> EventSourceResponse:
    """Start a run and stream its steps as server-sent events.

    A reconnect sends `Last-Event-ID` (`<thread>:<seq>`): the stream resumes after that event
    of that thread's log instead of starting the question again.
    """
    resumed = parse_event_id(last_event_id)
    if resumed is not None and state.logs.has(resumed[0]):
        return _stream(state.logs, *resumed)
    return _stream(state.logs, _start(state, question, client), -1)


@router.get("/threads")
def threads(
    state: IndexState, limit: Annotated[int, Query(ge=1, le=1000)] = 100
) -> dict[str, list[dict[str, Any]]]:
    """List past runs of the index's checkpoint store, newest first (threads are per index)."""
    return {"threads": list_threads(state.path, limit)}


@router.get("/threads/{thread_id}/events")
def thread_events(
    state: IndexState,
    thread_id: ThreadId,
    after: Annotated[int, Query(ge=-1)] = -1,
    run: RunKey = None,
    last_event_id: LastEventId = None,
) -> EventSourceResponse:
    """Stream a thread's event log (live, or rebuilt from its checkpoints) after an event.

    `run` names a fork started by POST .../fork: its own log, live while it runs.
    """
    key = _ensure_log(state, thread_id, run)
    resumed = parse_event_id(last_event_id)
    return _stream(state.logs, key, resumed[1] if resumed else after)


@router.get("/threads/{thread_id}/log")
def thread_log(
    state: IndexState, thread_id: ThreadId, branch: BranchNumber | None = None, run: RunKey = None
) -> dict[str, Any]:
    """Return the event log of a thread's run or of one branch as JSON (the replay steps it).

    Default: the thread's original run (live or as this process logged it); `branch=N`
    rebuilds branch N from the checkpoints; `run` is a fork's log while this process has it.
    """
    if branch is not None:
        key = rebuild_log(state.logs, state.index.graph, state.index_dir, thread_id, branch)
        if key is None:
            raise NotFoundError(f"no checkpoints for thread {thread_id!r} in {state.name!r}")
    else:
        key = _ensure_log(state, thread_id, run)
    events, done = state.logs.after(key, -1)
    return {"thread_id": thread_id, "done": done, "events": [e.as_json() for e in events]}


@router.get("/threads/{thread_id}/branches")
def thread_branches(state: IndexState, thread_id: ThreadId) -> dict[str, Any]:
    """List a thread's branches: the original run (0), then each fork.

    Each row says where the branch left (branch and step), its answer and top ranking.
    """
    system, rows = branch_rows(state.index_dir, thread_id, state.index.graph)
    return {"thread_id": thread_id, "system": system, "branches": rows}


@router.get("/threads/{thread_id}/checkpoints")
def checkpoints(state: IndexState, thread_id: ThreadId) -> dict[str, Any]:
    """List a thread's checkpoints (every branch), oldest first; fork from any of them."""
    found = thread_history(state.index_dir, thread_id)
    if found is None:
        raise NotFoundError(f"no checkpoints for thread {thread_id!r} in index {state.name!r}")
    rows = list_checkpoints(state.index_dir, thread_id)
    return {"thread_id": thread_id, "system": found[0], "checkpoints": [r.__dict__ for r in rows]}


@router.post("/threads/{thread_id}/fork")
def fork(
    state: IndexState, thread_id: ThreadId, request: ForkRequest, client: Client
) -> dict[str, str]:
    """Re-run a thread from a checkpoint as a new branch (own log; the original keeps its).

    The fork may take another budget or backend, and before a traversal another subquery
    or strategy; it counts against the client's runs like any run.
    """
    run = start_fork(state, thread_id, request, lambda fork_run: _admitted(state, client, fork_run))
    url = state.link(f"/api/threads/{thread_id}/events?run={run}")
    return {"thread_id": thread_id, "run": run, "events": url}


def _ensure_log(state: ServedIndex, thread_id: str, run: str | None = None) -> str:
    """Return the log key of a thread's run, rebuilding the original run's log if needed."""
    if run is not None:
        key = f"{thread_id}~{run}"
        if not state.logs.has(key):
            raise NotFoundError(
                f"no fork run {run!r} of thread {thread_id!r} in this process; its branch "
                f"replays from GET /api/threads/{thread_id}/branches"
            )
        return key
    if not state.logs.has(thread_id) and not rebuild_log(
        state.logs, state.index.graph, state.index_dir, thread_id
    ):
        raise NotFoundError(
            f"no run or checkpoints for thread {thread_id!r} in index {state.name!r}"
        )
    return thread_id


def _stream(logs: EventLogs, thread_id: str, after: int) -> EventSourceResponse:
    return EventSourceResponse(_events(logs, thread_id, after), ping=PING_S)


async def _events(logs: EventLogs, thread_id: str, after: int) -> AsyncIterator[dict[str, str]]:
    """Yield the log's events after `after` as they arrive, until the run's `end` event."""
    seq = after
    while True:
        events, done = logs.after(thread_id, seq)
        for event in events:
            seq = event.seq
            yield event.as_sse()
        if done:
            return
        await asyncio.sleep(POLL_S)
