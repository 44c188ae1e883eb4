"""The ASGI guard in front of the app: body size limit and the token of `/api/` requests.

A plain ASGI middleware (not Starlette's BaseHTTPMiddleware), so a request pays no extra
task or stream hop for it.
"""

from __future__ import annotations

import hmac

from starlette.datastructures import Headers, QueryParams
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

MAX_BODY_BYTES = 64 * 1024
TOKEN_HELP = "this server needs its token: Authorization: Bearer <token> or ?token=<token>"


class Guard:
    """Refuse oversized or unsized bodies (413, 411) and API requests without the token (401)."""

    def __init__(self, app: ASGIApp, token: str | None = None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer a refused request here; pass every other one on."""
        if scope["type"] == "http":
            refusal = self._refusal(scope)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def _refusal(self, scope: Scope) -> JSONResponse | None:
        headers = Headers(scope=scope)
        length = headers.get("content-length")
        if length is None and "chunked" in headers.get("transfer-encoding", ""):
            return JSONResponse({"detail": "send a Content-Length with the body"}, 411)
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
            detail = f"request body over {MAX_BODY_BYTES} bytes (Content-Length {length!r})"
            return JSONResponse({"detail": detail}, 413)
        if self.token and scope["path"].startswith("/api/") and not self._authorised(scope):
            return JSONResponse({"detail": TOKEN_HELP}, 401)
        return None

    def _authorised(self, scope: Scope) -> bool:
        assert self.token is not None
        header = Headers(scope=scope).get("authorization", "")
        if header.lower().startswith("bearer "):
            given: str | None = header[7:]
        else:
            given = QueryParams(scope.get("query_string", b"")).get("token")
        return given is not None and hmac.compare_digest(given.encode(), self.token.encode())
