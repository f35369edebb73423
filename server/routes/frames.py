"""The table camera: frames from a phone on a stand, about one a second (DESIGN.md §6)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, UploadFile

from server.deps import Authorized, Cameras, GameId
from server.routes.turns import ERRORS
from server.schemas import FrameOut
from server.service import ServiceError

router = APIRouter(prefix="/api/games/{game_id}", tags=["table camera"])


@router.post("/frames", response_model=FrameOut, dependencies=[Authorized], responses=ERRORS)
def post_frame(
    game_id: GameId,
    cameras: Cameras,
    frame: Annotated[UploadFile | None, File()] = None,
    camera: Annotated[
        str,
        Form(
            max_length=64,
            pattern=r"^[A-Za-z0-9_-]*$",
            description="which phone sends the frame, when two stream one game",
        ),
    ] = "",
) -> dict:
    """One frame of the board: busy, settling, unchanged or no board, or the turn it made
    (committed or needs_review, as a photo turn) once a changed board held still."""
    if frame is None:
        raise ServiceError("empty", "no frame in the request (multipart field 'frame')")
    return cameras.post_frame(game_id, frame.file.read(), camera)
