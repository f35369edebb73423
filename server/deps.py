"""FastAPI dependencies: the game service held by the app, and the bearer-token check of writes."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from server.service import GameService


def get_service(request: Request) -> GameService:
    """The app's `GameService`."""
    return request.app.state.service


Service = Annotated[GameService, Depends(get_service)]


def require_token(
    game_id: str, service: Service, authorization: Annotated[str | None, Header()] = None
) -> None:
    """Let a write through only with the game's token (`Authorization: Bearer <token>`)."""
    token = None
    if authorization and authorization.lower().startswith("bearer "):
        token = authorization[7:].strip()
    service.authorize(game_id, token)


Authorized = Depends(require_token)
