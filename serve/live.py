"""Live runs and threads: start a run, stream its steps (SSE), list, replay and fork threads.

A run's steps go into its thread's event log (serve.events); every stream reads that log,
so a live view, a reconnect (`Last-Event-ID`) and a later replay see the same events.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Path, Query
from sse_starlette import EventSourceResponse

from graph_agent.replay import list_checkpoints, stored_context
from serve.errors import NotFoundError
from serve.events import EventLogs, parse_event_id
from serve.quota import client_of
from serve.runs import RunRequest, rebuild_log, start_run, thread_history
from serve.schemas import THREAD_PATTERN, AskQuery, AskRequest, ForkRequest
from serve.served import ServedIndex, served_index
from serve.thread_list import list_threads
from state.context import Context
from tools.errors import ConfigError

router = APIRouter(prefix="/api")
State = Annotated[ServedIndex, Depends(served_index)]
ThreadId = Annotated[str, Path(pattern=THREAD_PATTERN)]
LastEventId = Annotated[str | None, Header(max_length=200)]
Client = Annotated[str, Depends(client_of)]
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
    end = state.quota.admit(client, lambda: state.logs.running(run.thread_id))
    try:
        start_run(state.logs, state.index.graph, run)
    except BaseException:
        end()
        raise


@router.post("/runs")
def start(state: State, request: AskRequest, client: Client) -> dict[str, str]:
    """Start a run in the background; its steps stream from `events`."""
    thread_id = _start(state, request, client)
    return {"thread_id": thread_id, "events": state.link(f"/api/threads/{thread_id}/events")}


@router.get("/ask/stream")
def ask_stream(
    state: State,
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
    state: State, limit: Annotated[int, Query(ge=1, le=1000)] = 100
) -> dict[str, list[dict[str, Any]]]:
    """List past runs of the index's checkpoint store, newest first (threads are per index)."""
    return {"threads": list_threads(state.path, limit)}


@router.get("/threads/{thread_id}/events")
def thread_events(
    state: State,
    thread_id: ThreadId,
    after: Annotated[int, Query(ge=-1)] = -1,
    last_event_id: LastEventId = None,
) -> EventSourceResponse:
    """Stream a thread's event log (live, or rebuilt from its checkpoints) after an event."""
    _ensure_log(state, thread_id)
    resumed = parse_event_id(last_event_id)
    return _stream(state.logs, thread_id, resumed[1] if resumed else after)


@router.get("/threads/{thread_id}/log")
def thread_log(state: State, thread_id: ThreadId) -> dict[str, Any]:
    """Return a thread's whole event log as JSON (the replay view steps through it)."""
    _ensure_log(state, thread_id)
    events, done = state.logs.after(thread_id, -1)
    return {"thread_id": thread_id, "done": done, "events": [e.as_json() for e in events]}


@router.get("/threads/{thread_id}/checkpoints")
def checkpoints(state: State, thread_id: ThreadId) -> dict[str, Any]:
    """List a thread's checkpoints (every branch), oldest first; fork from any of them."""
    found = thread_history(state.index_dir, thread_id)
    if found is None:
        raise NotFoundError(f"no checkpoints for thread {thread_id!r} in index {state.name!r}")
    rows = list_checkpoints(state.index_dir, thread_id, found[0])
    return {"thread_id": thread_id, "system": found[0], "checkpoints": [r.__dict__ for r in rows]}


@router.post("/threads/{thread_id}/fork")
def fork(state: State, thread_id: ThreadId, request: ForkRequest, client: Client) -> dict[str, str]:
    """Re-run a FiF thread from a checkpoint (a new branch), with another budget or subquery."""
    found = thread_history(state.index_dir, thread_id)
    if found is None or found[0] != "fif":
        raise NotFoundError(f"no FiF thread {thread_id!r} here; forks replay FiF threads")
    at = {str(s.config["configurable"]["checkpoint_id"]): s for s in found[1]}
    if request.checkpoint_id not in at:
        raise NotFoundError(f"thread {thread_id!r} has no checkpoint {request.checkpoint_id!r}")
    if request.subquery and tuple(at[request.checkpoint_id].next) != ("traverser",):
        raise ConfigError(
            "an edited subquery forks from a checkpoint before a traversal (next node: "
            f"traverser); {request.checkpoint_id} runs {list(at[request.checkpoint_id].next)}"
        )
    context = stored_context(state.index_dir, thread_id)
    changes = {"max_steps": request.max_steps, "backend": request.backend}
    changes = {key: value for key, value in changes.items() if value is not None}
    context = Context.model_validate({**context.model_dump(), **changes})
    question = str(found[1][0].values.get("question", ""))
    run = RunRequest(thread_id, "fif", question, context, request.checkpoint_id, request.subquery)
    _admitted(state, client, run)
    return {"thread_id": thread_id, "events": state.link(f"/api/threads/{thread_id}/events")}


def _ensure_log(state: ServedIndex, thread_id: str) -> None:
    if not state.logs.has(thread_id) and not rebuild_log(
        state.logs, state.index.graph, state.index_dir, thread_id
    ):
        raise NotFoundError(
            f"no run or checkpoints for thread {thread_id!r} in index {state.name!r}"
        )


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
