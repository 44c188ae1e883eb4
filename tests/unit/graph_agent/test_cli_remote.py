"""`fif search/ask --server URL`: the request sent, the answer printed, the options refused."""

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest

from fif import cli
from graph_agent.remote import server_url
from tools.errors import ConfigError

RunFif = Callable[..., tuple[object, str, str]]
CARD = {"component_id": "Warsaw::p0", "doc_id": "Warsaw", "type": "paragraph", "score": 0.81234}
CARD |= {"title": "Warsaw", "snippet": "Warsaw is the capital of Poland."}
ASKED = {"results": [CARD], "answer": None, "cost": {"llm_calls": 0}, "trace": []}
ASKED |= {"index": "mini", "thread_id": "t1", "latency_ms": 12.0, "subqueries": []}


class Recorder(BaseHTTPRequestHandler):
    """Answer /api/search and /api/ask with canned JSON; remember each request."""

    seen: list[dict[str, Any]] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self._answer({"index": "mini", "results": [CARD]})

    def do_POST(self) -> None:  # noqa: N802
        self._answer(ASKED)

    def _answer(self, payload: dict[str, Any]) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        parts = urlsplit(self.path)
        self.seen.append(
            {"path": parts.path, "query": dict(parse_qsl(parts.query)), "body": body}
            | {"auth": self.headers.get("Authorization")}
        )
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        """Keep the test's stderr clean."""


@pytest.fixture()
def server() -> Iterator[str]:
    Recorder.seen = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_server_url_keeps_the_index_and_refuses_other_schemes() -> None:
    assert server_url("http://127.0.0.1:8000/?index=mini") == (
        "http://127.0.0.1:8000",
        {"index": "mini"},
    )
    with pytest.raises(ConfigError, match="fif serve"):
        server_url("127.0.0.1:8000")


def test_search_sends_its_options_and_prints_the_ranking(
    server: str, run_fif_main: RunFif, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FIF_SERVE_TOKEN", "secret")
    code, out, err = run_fif_main(
        "search", "capital of Poland", "--server", f"{server}?index=mini", "-k", "3",
        "--mode", "hybrid", "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out) == [{k: v for k, v in CARD.items() if k not in ("title", "snippet")}
                               | {"score": 0.8123}]  # fmt: skip
    assert f"answered by fif serve at {server}?index=mini (index mini)" in err
    (request,) = Recorder.seen
    assert request["path"] == "/api/search" and request["auth"] == "Bearer secret"
    assert request["query"] == {"index": "mini", "q": "capital of Poland", "k": "3"} | {
        "mode": "hybrid",
        "granularity": "subcomponent",
    }


def test_ask_posts_the_run_settings_and_prints_the_run(server: str, run_fif_main: RunFif) -> None:
    code, out, err = run_fif_main(
        "ask", "capital of Poland", "--server", server, "-k", "5", "--thread", "t1",
    )  # fmt: skip
    assert code == 0, err
    assert "Warsaw::p0" in out and "cost: 0 LLM calls" in out and "thread: t1" in err
    (request,) = Recorder.seen
    assert request["path"] == "/api/ask"
    assert request["body"] == {"backend": "offline", "k": 5, "answer": False, "max_steps": None} | {
        "question": "capital of Poland",
        "system": "fif",
        "thread_id": "t1",
    }


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["ask", "q", "--ablation", "no_planner"], "--ablation"),
        (["ask", "q", "--doc", "Warsaw"], "--doc"),
        (["ask", "q", "--continue", "--thread", "t1"], "--continue"),
        (["search", "q", "--rrf-k", "10"], "--rrf-k"),
    ],
)
def test_settings_the_server_cannot_take_are_refused_by_name(
    server: str, run_fif_main: RunFif, args: list[str], named: str
) -> None:
    code, _, err = run_fif_main(*args, "--server", server)
    assert code == 2 and named in err and "--server" in err
    assert Recorder.seen == []


def test_no_server_at_the_url_says_how_to_start_one(run_fif_main: RunFif) -> None:
    code, _, err = run_fif_main("search", "q", "--server", "http://127.0.0.1:9")
    assert code == 2 and "fif serve --index DIR" in err


def test_the_command_named_picks_which_packages_load() -> None:
    assert cli.command_named(["--debug", "search", "q"]) == "search"
    assert cli.command_named(["--help"]) is None
    names = {info.name or info.callback.__name__ for info in cli.full_app().registered_commands}
    assert {"eval", "convert", "mcp", "serve", "search"} <= names
    assert len(cli.full_app().registered_commands) == len(names)  # joined once
