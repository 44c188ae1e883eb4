"""What the guard refuses before a route runs: foreign hosts and origins, CSRF, sizes, quotas."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from serve.errors import TooManyRunsError
from serve.guard import MAX_HEADER_BYTES, MAX_HEADERS, MAX_TARGET_CHARS
from serve.origin import allowed_names, host_allowed, origin_allowed
from serve.quota import RunQuota
from serve.settings import ServedIndexSpec, ServeSettings

QUESTION = "Which club was founded first?"
TOKEN = "a-long-enough-test-token"
ASK = {"question": QUESTION, "system": "dense", "k": 2}


@pytest.mark.parametrize(
    ("host", "status"),
    [("evil.example:8812", 421), ("localhost.evil.example", 421), ("localhost:8812", 200)],
)
def test_a_foreign_host_is_misdirected(client: TestClient, host: str, status: int) -> None:
    response = client.get("/api/search", params={"q": "stadium"}, headers={"Host": host})
    assert response.status_code == status, response.text
    if status == 421:
        assert "--allow-host" in response.json()["detail"]


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://localhost:3000"},  # another port of this machine: another origin
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ],
)
def test_a_browser_request_of_another_page_starts_no_run(
    client: TestClient, headers: dict[str, str]
) -> None:
    before = len(client.get("/api/threads").json()["threads"])
    stream = client.get("/api/ask/stream", params=ASK, headers=headers)
    posted = client.post("/api/runs", json=ASK, headers=headers)
    assert stream.status_code == 403 and posted.status_code == 403
    assert client.get("/api/search", params={"q": "x"}, headers=headers).status_code == 403
    assert len(client.get("/api/threads").json()["threads"]) == before


def test_the_page_itself_may_stream_a_run(client: TestClient) -> None:
    same = {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"}
    with client.stream("GET", "/api/ask/stream", params=ASK, headers=same) as response:
        assert response.status_code == 200
        assert "event: end" in "".join(response.iter_text())


def test_runs_start_only_by_a_json_post(client: TestClient) -> None:
    stream = client.get("/api/ask/stream", params=ASK)  # no browser said it is the page
    assert stream.status_code == 403 and "POST /api/runs" in stream.json()["detail"]
    form = client.post("/api/runs", data={"question": QUESTION})  # what a cross-site form sends
    assert form.status_code == 415
    assert client.put("/api/runs", json=ASK).status_code == 405
    preflight = client.options(
        "/api/runs",
        headers={"Origin": "http://localhost", "Access-Control-Request-Method": "POST"},
    )
    assert "access-control-allow-origin" not in preflight.headers  # no CORS for anyone


def test_oversized_requests_are_refused(client: TestClient) -> None:
    many = {f"x-filler-{n}": "1" for n in range(MAX_HEADERS)}
    assert client.get("/api/systems", headers=many).status_code == 431
    big = {"x-big": "a" * MAX_HEADER_BYTES}
    assert client.get("/api/systems", headers=big).status_code == 431
    long = client.get("/api/systems", params={"pad": "a" * MAX_TARGET_CHARS})
    assert long.status_code == 414


@pytest.mark.parametrize("query", [" ", "   \t ", "\n"])
def test_a_blank_query_is_refused(client: TestClient, query: str) -> None:
    assert client.get("/api/search", params={"q": query}).status_code == 422
    compare = {"question": query, "systems": ["dense"]}
    assert client.post("/api/compare", json=compare).status_code == 422


def test_an_unexpected_error_is_a_json_500(
    make_client: Callable[..., TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("layer")

    monkeypatch.setattr("serve.api.dense_search", broken)
    client = make_client()
    quiet = TestClient(client.app, base_url="http://localhost", raise_server_exceptions=False)
    response = quiet.get("/api/search", params={"q": "stadium"})
    assert response.status_code == 500
    assert "KeyError" in response.json()["detail"]


def test_a_client_has_a_bounded_number_of_runs_going() -> None:
    quota = RunQuota(limit=2)
    first = quota.admit("10.0.0.1")
    going = [True]
    quota.admit("10.0.0.1", lambda: going[0])
    with pytest.raises(TooManyRunsError, match="at most 2 per client"):
        quota.admit("10.0.0.1")
    quota.admit("10.0.0.2")  # another client is not held up
    first()
    quota.admit("10.0.0.1")  # one ended: room again
    with pytest.raises(TooManyRunsError):
        quota.admit("10.0.0.1")
    going[0] = False
    with quota.claim("10.0.0.1"):
        pass


def test_runs_past_the_quota_get_429(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    state = client.app.state.served  # type: ignore[attr-defined]
    for entry in state.indices.values():
        monkeypatch.setattr(entry.quota, "limit", 0)
    refused = client.post("/api/runs", json=ASK)
    assert refused.status_code == 429 and "per client" in refused.json()["detail"]
    assert client.post("/api/ask", json=ASK).status_code == 429


@pytest.mark.parametrize(
    ("bind", "extra", "host", "allowed"),
    [
        ("127.0.0.1", (), "127.0.0.1:8000", True),
        ("127.0.0.1", (), "[::1]:8000", True),
        ("127.0.0.1", (), "evil.example", False),
        ("127.0.0.1", ("fif.lan",), "fif.lan:443", True),
        ("0.0.0.0", (), "anything.example", True),  # a token guards a wildcard bind
        ("0.0.0.0", ("fif.lan",), "anything.example", False),
        ("10.1.2.3", (), "10.1.2.3:8000", True),
    ],
)
def test_host_names(bind: str, extra: tuple[str, ...], host: str, allowed: bool) -> None:
    assert host_allowed(host, allowed_names(bind, extra)) is allowed


def test_origins_must_be_the_requested_host() -> None:
    names = allowed_names("127.0.0.1")
    assert origin_allowed("http://localhost:8000", "localhost:8000", names)
    assert not origin_allowed("http://localhost:8000", "127.0.0.1:8000", names)
    assert not origin_allowed("file://", None, names)


def test_a_token_over_plain_http_off_loopback_is_warned_about(tmp_path: object) -> None:
    spec = (ServedIndexSpec("i", tmp_path),)  # type: ignore[arg-type]
    plain = ServeSettings(spec, token=TOKEN, host="0.0.0.0")
    assert "travels in clear" in plain.warnings()[0]
    assert ServeSettings(spec, token=TOKEN, host="0.0.0.0", tls=True).warnings() == []
    assert ServeSettings(spec, token=TOKEN).warnings() == []
