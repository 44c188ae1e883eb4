"""`fif search` and `fif ask` answered by a running `fif serve` (`--server URL`).

The answer is printed as the local commands print theirs, and stderr says which server gave
it, so a reader never mistakes a server's index for the `--index` folder.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import typer
from rich.markup import escape

from graph_agent import render
from graph_agent.remote import remote_ask, remote_search

LOCAL_ASK_OPTIONS = {
    "chat_model": "--chat-model",
    "base_url": "--base-url",
    "local_model_path": "--local-model",
    "chroma_url": "--chroma-url",
    "doc_scope": "--doc",
    "vision": "--vision",
    "price_table": "--price-table",
}
"""`fif ask` settings the server's API does not take (it reads its own FIF_* env), by option."""
RUN_SETTINGS = {"backend": "backend", "top_k": "k", "answer": "answer", "max_steps": "max_steps"}
"""Context settings an AskRequest carries: Context field -> request field."""

out = render.make_console()
err = render.make_console(stderr=True)


def remote_only(server: str, given: Mapping[str, Any]) -> None:
    """Refuse options a server run cannot honour, naming them (`given`: option -> value).

    Raises:
        typer.BadParameter: If any of them is set.
    """
    refused = [name for name, value in given.items() if value]
    if refused:
        raise typer.BadParameter(
            f"{', '.join(refused)} cannot go to the server at {server}: drop them, or drop "
            "--server to run in this process"
        )


def search_on_server(server: str, question: str, options: Mapping[str, Any], as_json: bool) -> None:
    """Print the server's one-shot ranking (GET /api/search) as `fif search` prints one."""
    payload = remote_search(server, question, options)
    _say_where(server, payload)
    results = payload.get("results", [])
    if as_json:
        fields = ("component_id", "doc_id", "type")
        rows = [{f: r[f] for f in fields} | {"score": round(r["score"], 4)} for r in results]
        out.print_json(json.dumps(rows))
    else:
        render.ranked_cards(out, results)


def ask_on_server(
    server: str,
    question: str,
    system: str,
    thread: tuple[str | None, bool],
    overrides: Mapping[str, Any],
    as_json: bool,
) -> None:
    """Print the server's run of a system (POST /api/ask) as `fif ask` prints one.

    `overrides` are the Context settings `fif ask` gathered; the run settings go in the
    request, any other one that is set (an ablation too) is refused. `thread` is
    (--thread, --continue).
    """
    given = {option: overrides.get(key) for key, option in LOCAL_ASK_OPTIONS.items()}
    switches = [
        key for key, value in overrides.items() if value is True and key not in RUN_SETTINGS
    ]
    remote_only(server, given | {"--continue": thread[1], "--ablation": switches})
    request = {field: overrides[key] for key, field in RUN_SETTINGS.items()}
    request |= {"question": question, "system": system, "thread_id": thread[0]}
    payload = remote_ask(server, request)
    _say_where(server, payload)
    if payload.get("thread_id"):
        err.print(f"thread: {payload['thread_id']}", highlight=False)
    ranking = [
        {"component_id": r["component_id"], "score": r["score"], "type": r["type"]}
        for r in payload.get("results", [])
    ]
    if as_json:
        keys = ("answer", "subqueries", "fallbacks", "trace", "cost", "thread_id")
        out.print_json(json.dumps({"ranking": ranking} | {key: payload.get(key) for key in keys}))
        return
    render.ranked_cards(out, payload.get("results", []))
    if payload.get("answer"):
        out.print(f"answer: {escape(str(payload['answer']))}", highlight=False)
    render.history(out, payload.get("trace", []))
    render.cost(out, payload.get("cost", {}), float(payload.get("latency_ms", 0.0)))


def _say_where(server: str, payload: Mapping[str, Any]) -> None:
    err.print(
        f"answered by fif serve at {escape(server)} (index {escape(str(payload.get('index')))})",
        highlight=False,
    )
