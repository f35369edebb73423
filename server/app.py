"""The FastAPI application factory: storage, the photo reader, body limits, error handlers, the
API routers and the phone page's static files."""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from server.camera import TableCameras
from server.routes import director, exports, frames, games, qr, turns, variants
from server.service import GameService, OverlayMaker, PhotoReader, ServiceError
from server.storage import DB_FILE, DEFAULT_DATA_DIR, StorageBusy, Store

MAX_BODY_BYTES = 25 * 1024 * 1024
MAX_DETAIL = 2_000  # characters of a validation error's detail
STATIC_DIR = Path(__file__).parent / "static"
# How `scorekeeper serve` hands its options to the worker processes uvicorn starts.
APP_DB_ENV = "SCOREKEEPER_DB"
APP_DATA_DIR_ENV = "SCOREKEEPER_DATA_DIR"
log = logging.getLogger("scorekeeper.server")

STATUS = {
    "bad_request": 400,
    "bad_corners": 400,
    "empty": 400,
    "not_an_image": 400,
    "truncated": 400,
    "unauthorized": 401,
    "forbidden": 403,
    "not_found": 404,
    "method_not_allowed": 405,
    "review_pending": 409,
    "game_finished": 409,
    "no_review": 409,
    "no_move": 409,
    "too_large": 413,
    "validation": 422,
    "no_board": 422,
    "illegal_play": 422,
    "not_allowed": 422,
    "cannot_decide": 422,
    "corrupt_log": 500,
    "internal": 500,
    "reader_unavailable": 503,
    "timeout": 503,
    "unavailable": 503,
}
_HTTP_CODES = {400: "bad_request", 401: "unauthorized", 404: "not_found", 405: "method_not_allowed"}


def error_response(code: str, detail: str, retry_with: str | None = None) -> JSONResponse:
    """The one error shape: `{"error": code, "detail": text}`, and `"retry_with"` when the request
    may be sent again with that field."""
    body = {"error": code, "detail": detail}
    if retry_with:
        body["retry_with"] = retry_with
    return JSONResponse(body, status_code=STATUS.get(code, 400))


def validation_detail(errors: Sequence[Any], limit: int = MAX_DETAIL) -> str:
    """Pydantic's problems as one line, `field.path: message; ...`, short whatever was sent: a
    path part (a dict key the client chose) is cut at 40 characters, the whole at `limit`."""

    def part(value: object) -> str:
        text = str(value)
        return text if len(text) <= 40 else f"{text[:37]}..."

    problems = "; ".join(
        f"{'.'.join(part(p) for p in e.get('loc', ()))}: {e.get('msg', 'invalid')}"
        for e in errors[:10]
    )
    if len(errors) > 10:
        problems += f"; and {len(errors) - 10} more"
    if len(problems) > limit:
        problems = problems[: limit - 3] + "..."
    return problems or "invalid request"


class BodyLimit:
    """Answer 413 to a body over `limit` bytes, by its Content-Length or by what actually arrives
    (a chunked or lying client), before any route reads it."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        length = headers.get(b"content-length", b"0")
        if not length.isdigit() or int(length) > self.limit:
            await self._reject(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._reject(scope, receive, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _reject(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = error_response(
            "too_large", f"the request body is over {self.limit // (1024 * 1024)} MB"
        )
        await response(scope, receive, send)


def pipeline_reader() -> PhotoReader:
    """The real photo reader: `vision.pipeline.read_board` with the cell model loaded once."""
    from vision.classify import CellClassifier
    from vision.pipeline import read_board

    classifier = CellClassifier()

    def read(data: bytes, variant: Any, corners: Any) -> Any:
        return read_board(data, variant, classifier=classifier, corners=corners)

    return read


def pipeline_overlay() -> OverlayMaker | None:
    """The overlay JPEG of `vision.overlay` (the photo with the grid and letters read), when
    that module and its drawing dependencies are installed."""
    try:
        from vision.overlay import overlay_jpeg
    except ImportError:
        return None
    return overlay_jpeg


def create_app(
    db_url: str | None = None,
    reader: PhotoReader | None = None,
    data_dir: str | Path = DEFAULT_DATA_DIR,
    overlay: OverlayMaker | None = None,
    read_timeout_s: float = 60.0,
    max_body_bytes: int = MAX_BODY_BYTES,
    load_reader: Callable[[], PhotoReader] = pipeline_reader,
    clock: Callable[[], float] = time.time,
    camera: dict[str, float] | None = None,
) -> FastAPI:
    """Build the app. `db_url`: a SQLite path or `postgresql://` URL (default: `data_dir`/
    scorekeeper.db); `reader` maps photo bytes and a variant to a board reading (default: the
    vision pipeline, loaded here once; when it cannot load, photo uploads answer 503); `clock`
    times the table camera's frames; `camera` sets its `scorer.table_camera.CameraConfig`
    (`still_frames`, `still_seconds`)."""
    data_dir = Path(data_dir)
    store = Store(db_url or str(data_dir / DB_FILE), data_dir)
    reader_error = ""
    if reader is None:
        try:
            reader = load_reader()
        except (ImportError, OSError, RuntimeError) as exc:
            reader_error = f"the vision pipeline could not be loaded ({exc})"
            log.warning(reader_error)
        overlay = overlay or pipeline_overlay()
    service = GameService(
        store,
        reader,
        overlay,
        read_timeout_s,
        reader_error=reader_error,
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI):  # noqa: ANN202 - FastAPI's lifespan protocol
        yield
        service.close()

    app = FastAPI(
        title="scorekeeper",
        summary="Camera-based scorekeeper for Scrabble, Скрэббл and Эрудит",
        lifespan=lifespan,
    )
    app.state.service = service
    app.state.cameras = TableCameras(service, clock=clock, camera=camera)
    app.add_middleware(BodyLimit, limit=max_body_bytes)
    _add_error_handlers(app)
    for module in (games, turns, frames, exports, variants, director, qr):
        app.include_router(module.router)
    if STATIC_DIR.is_dir():
        app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        page = STATIC_DIR / "index.html"
        if not page.is_file():
            raise ServiceError("not_found", "the phone page is not installed")
        return FileResponse(page)

    @app.get("/director", include_in_schema=False)
    def director_page() -> FileResponse:
        page = STATIC_DIR / "director.html"
        if not page.is_file():
            raise ServiceError("not_found", "the director's page is not installed")
        return FileResponse(page)

    return app


def app_from_env() -> FastAPI:
    """The app of `scorekeeper serve`'s workers, each its own process: the database URL and the
    data directory come from `APP_DB_ENV` and `APP_DATA_DIR_ENV`, which `serve` sets."""
    return create_app(
        db_url=os.environ[APP_DB_ENV], data_dir=os.environ.get(APP_DATA_DIR_ENV, DEFAULT_DATA_DIR)
    )


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(ServiceError)
    async def service_error(_: Request, exc: ServiceError) -> JSONResponse:
        return error_response(exc.code, exc.detail, exc.retry_with)

    @app.exception_handler(StorageBusy)
    async def storage_busy(_: Request, exc: StorageBusy) -> JSONResponse:
        log.warning("database busy: %s", exc)
        return error_response("unavailable", str(exc))

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response("validation", validation_detail(exc.errors()))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = _HTTP_CODES.get(exc.status_code, "http_error")
        detail = exc.detail if isinstance(exc.detail, str) else json.dumps(exc.detail)
        return JSONResponse({"error": code, "detail": detail}, status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def internal_error(_: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", exc_info=exc)
        return error_response("internal", f"internal error: {type(exc).__name__}")
