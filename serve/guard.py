"""The ASGI guard in front of the app: request limits, Host/Origin checks, CSRF and the token.

A plain ASGI middleware (not Starlette's BaseHTTPMiddleware), so a request pays no extra
task or stream hop for it. In order, it refuses: too many headers or too long a target
(431, 414); a Host the server does not answer under (421, DNS rebinding); a browser request
from another origin or site to the API (403); a state-changing API request that is not a
JSON POST (405, 415), and a run started by GET from anything but the server's own page
(403); an oversized or unsized body (413, 411); and, with a token, any request without it
(401). A token given as `/?token=` on the page is kept in a strict same-site cookie, so
the page's static files and API calls carry it.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass

from starlette.datastructures import Headers, QueryParams
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from serve.origin import SAME_ORIGIN_FETCHES, host_allowed, origin_allowed

MAX_BODY_BYTES = 64 * 1024
MAX_HEADERS = 64
MAX_HEADER_BYTES = 16 * 1024
"""Headers of one request together; the HTTP parser's own limit (tools.http_limits) is the
same, but it binds only while a request is still arriving."""
MAX_TARGET_CHARS = 8192
"""Path plus query string: the longest API query (2,000 characters) fits four times over."""
TOKEN_COOKIE = "fif_token"
TOKEN_HELP = (
    "this server needs its token: Authorization: Bearer <token>, ?token=<token>, "
    "or open the page once as /?token=<token>"
)
RUN_BY_GET = ("/api/ask/stream",)
"""GET routes that start a run (the page's EventSource cannot POST): same-origin only."""
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


@dataclass(frozen=True)
class GuardRules:
    """What the guard enforces: the token and the Host names the server answers under."""

    token: str | None = None
    host_names: frozenset[str] | None = None
    """None: any Host (a wildcard bind without `--allow-host`)."""


class Guard:
    """Answer refused requests here (JSON, with what to do instead); pass every other one on."""

    def __init__(self, app: ASGIApp, rules: GuardRules) -> None:
        self.app = app
        self.rules = rules

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Refuse or pass a request; set the token cookie when the page is opened with it."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self._refusal(scope)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        if self.rules.token and scope["path"] == "/" and self._query_token(scope):
            send = self._with_cookie(send)
        await self.app(scope, receive, send)

    def _refusal(self, scope: Scope) -> Response | None:
        raw = scope["headers"]
        if len(raw) > MAX_HEADERS:
            return _refuse(431, f"{len(raw)} request headers; at most {MAX_HEADERS}")
        head = sum(len(name) + len(value) for name, value in raw)
        if head > MAX_HEADER_BYTES:
            return _refuse(431, f"{head} bytes of headers; at most {MAX_HEADER_BYTES}")
        target = len(scope.get("raw_path", b"")) + len(scope.get("query_string", b""))
        if target > MAX_TARGET_CHARS:
            return _refuse(414, f"request target of {target} bytes; at most {MAX_TARGET_CHARS}")
        headers = Headers(scope=scope)
        host = headers.get("host")
        if not host_allowed(host, self.rules.host_names):
            return _refuse(
                421,
                f"this server does not answer to Host {host!r}; start it with "
                "--allow-host NAME to serve under that name",
            )
        return self._cross_site(scope, headers) or self._body(headers) or self._token(scope)

    def _cross_site(self, scope: Scope, headers: Headers) -> Response | None:
        """Refuse API calls of another origin's page, and state changes outside a JSON POST."""
        if not scope["path"].startswith("/api/"):
            return None
        origin = headers.get("origin")
        if origin is not None and not origin_allowed(
            origin, headers.get("host"), self.rules.host_names
        ):
            return _refuse(403, f"requests from origin {origin!r} are refused (not this server)")
        fetch_site = headers.get("sec-fetch-site")
        if fetch_site is not None and fetch_site not in SAME_ORIGIN_FETCHES:
            return _refuse(
                403, f"a {fetch_site} browser request is refused; use this server's page"
            )
        method = scope["method"]
        if method not in SAFE_METHODS and method != "POST":
            return _refuse(405, f"{method} is not served; the API takes GET and JSON POST")
        if method == "POST" and not _is_json(headers):
            return _refuse(415, "send POST bodies as JSON (Content-Type: application/json)")
        if scope["path"] in RUN_BY_GET and fetch_site != "same-origin":
            return _refuse(
                403,
                "GET /api/ask/stream starts a run only from this server's page; other clients "
                "POST /api/runs and stream its `events` URL",
            )
        return None

    def _body(self, headers: Headers) -> Response | None:
        length = headers.get("content-length")
        if length is None and "chunked" in headers.get("transfer-encoding", ""):
            return _refuse(411, "send a Content-Length with the body")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            return _refuse(
                413, f"body over {MAX_BODY_BYTES} bytes (Content-Length {length[:20]!r})"
            )
        return None

    def _token(self, scope: Scope) -> Response | None:
        if not self.rules.token or self._authorised(scope):
            return None
        return _refuse(401, TOKEN_HELP)

    def _authorised(self, scope: Scope) -> bool:
        headers = Headers(scope=scope)
        header = headers.get("authorization", "")
        if header.lower().startswith("bearer "):
            return self._matches(header[7:])
        if self._query_token(scope):
            return True
        for part in headers.get("cookie", "").split(";"):
            name, _, value = part.strip().partition("=")
            if name == TOKEN_COOKIE:
                return self._matches(value)
        return False

    def _query_token(self, scope: Scope) -> bool:
        return self._matches(QueryParams(scope.get("query_string", b"")).get("token"))

    def _matches(self, given: str | None) -> bool:
        assert self.rules.token is not None
        return given is not None and hmac.compare_digest(given.encode(), self.rules.token.encode())

    def _with_cookie(self, send: Send) -> Send:
        """Return `send` adding the token cookie (HttpOnly, SameSite=Strict) to the response."""
        assert self.rules.token is not None
        cookie = f"{TOKEN_COOKIE}={self.rules.token}; Path=/; HttpOnly; SameSite=Strict"

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), (b"set-cookie", cookie.encode())]
                message = {**message, "headers": headers}
            await send(message)

        return sending


def _is_json(headers: Headers) -> bool:
    return headers.get("content-type", "").split(";")[0].strip().lower() == "application/json"


def _refuse(status: int, detail: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, status)
