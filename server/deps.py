"""FastAPI dependencies: the game service and the table cameras held by the app, and the
bearer-token check of writes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Path, Request

from server.camera import TableCameras
from server.service import GameService

# A game's or a turn's id in a path: the ids the server makes are 12 hex digits.
GameId = Annotated[str, Path(max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
TurnId = Annotated[str, Path(max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
# A client's retry key: a UUID, a timestamp and a random part, a hash, base64.
IdempotencyKey = Annotated[
    str | None,
    Header(
        max_length=128,
        pattern=r"^[A-Za-z0-9._~:+/=-]+$",
        description="the same key sent again (a retry) gets the first answer, never a second turn",
    ),
]


def get_service(request: Request) -> GameService:
    """The app's `GameService`."""
    return request.app.state.service


Service = Annotated[GameService, Depends(get_service)]


def get_cameras(request: Request) -> TableCameras:
    """The app's `TableCameras`."""
    return request.app.state.cameras


Cameras = Annotated[TableCameras, Depends(get_cameras)]


def bearer(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header, or None."""
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip() or None
    return None


def require_token(
    game_id: GameId,
    service: Service,
    authorization: Annotated[str | None, Header(max_length=200)] = None,
) -> None:
    """Let a write through only with the game's token (`Authorization: Bearer <token>`)."""
    service.authorize(game_id, bearer(authorization))


Authorized = Depends(require_token)
