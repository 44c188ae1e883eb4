"""The FastAPI app of `fif serve`: lifespan, token check, error mapping, the page and its API.

Each index and its embedding model load once, in the lifespan, and every request shares them
(indices built with the same embedder spec share one model: `tools.embedders.load_embedder`).
The guard (serve.guard) checks every request before a route sees it: Host and Origin,
state changes only by JSON POST, sizes, and, with a token, the token on every path (the page
and its static files included). Every error, an unexpected one included, is a JSON
`{"detail": ...}`, never a plain-text page.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline

from serve import api, eval_api, live, pdf_api
from serve.errors import (
    ConflictError,
    FieldError,
    NotFoundError,
    OutsideFolderError,
    TooManyRunsError,
)
from serve.guard import Guard, GuardRules
from serve.origin import allowed_names
from serve.quota import RunQuota
from serve.served import Served, ServedIndex
from serve.settings import ServeSettings
from tools.corpus_index import open_index
from tools.errors import (
    ConfigError,
    FiFError,
    IndexBusyError,
    IndexMismatchError,
    MissingDependencyError,
    ModelUnavailableError,
)

logger = logging.getLogger(__name__)

STATIC = Path(__file__).resolve().parent / "static"
STATUS = (
    (OutsideFolderError, 403),
    (NotFoundError, 404),
    (ConflictError, 409),
    (IndexBusyError, 503),
    (TooManyRunsError, 429),
    (ConfigError, 400),
    (IndexMismatchError, 400),
    (MissingDependencyError, 501),
    (ModelUnavailableError, 503),
)
"""FiF error type → HTTP status (first match); any other FiFError is a 500 with its message."""


def create_app(settings: ServeSettings) -> FastAPI:
    """Return the app serving the settings' indices; they open when the app starts."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        indices, quota = {}, RunQuota(settings.runs_per_client)
        for spec in settings.indices:
            index = open_index(spec.path)
            index.embed_query("warm up the embedder")  # the model loads now, not on a query
            index.queries.start_helper()  # and FiF's embedding helper loads beside it
            indices[spec.name] = ServedIndex(spec.name, spec.path, index, quota=quota)
            logger.info("serving %s as %r", spec.path, spec.name)
        app.state.served = Served(settings, indices)
        for warning in settings.warnings():
            logger.warning(warning)
        yield

    # FastAPIOffline: the /docs and /redoc pages load their scripts from the package, not a CDN
    app = FastAPIOffline(title="FiF", summary="Search and watch the FiF agent.", lifespan=lifespan)
    names = allowed_names(settings.host, settings.allowed_hosts)
    app.add_middleware(Guard, rules=GuardRules(settings.token, names))
    app.add_exception_handler(FiFError, _fif_error)  # type: ignore[arg-type]
    app.add_exception_handler(Exception, _unexpected_error)
    for router in (api.router, live.router, eval_api.router, pdf_api.router):
        app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    return app


async def _fif_error(request: Request, error: FiFError) -> JSONResponse:
    status = next((code for kind, code in STATUS if isinstance(error, kind)), 500)
    if status == 500:
        logger.warning("%s %s failed: %s", request.method, request.url.path, error)
    body = {"detail": " ".join(str(error).split())}
    if isinstance(error, FieldError):  # the page shows it beside the field
        body["field"] = error.field
    return JSONResponse(body, status_code=status)


async def _unexpected_error(request: Request, error: Exception) -> JSONResponse:
    """Answer a bug or an I/O failure with a JSON 500 naming it (logged with its traceback)."""
    logger.error("%s %s failed", request.method, request.url.path, exc_info=error)
    detail = f"{type(error).__name__}: {' '.join(str(error).split())[:300]}"
    return JSONResponse({"detail": f"the server failed: {detail}; see its log"}, 500)
