"""Turns and their review: photo upload (with marked grid corners when no board was found), typed
moves, confirm, correct, choose a blank, reject, stored files."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, Response, UploadFile

from server.deps import Authorized, GameId, IdempotencyKey, Service, TurnId
from server.schemas import BlankIn, CorrectIn, ErrorOut, GameOut, MoveIn, TurnOut
from server.service import ServiceError
from vision.decode import media_type

router = APIRouter(prefix="/api/games/{game_id}", tags=["turns"])
MAX_CORNERS = 1_000  # characters of the `corners` field: four pairs of numbers
ERRORS = {code: {"model": ErrorOut} for code in (400, 401, 404, 409, 413, 422, 503)}


@router.post("/turns", response_model=TurnOut, dependencies=[Authorized], responses=ERRORS)
def post_turn(
    game_id: GameId,
    service: Service,
    response: Response,
    photo: Annotated[UploadFile | None, File()] = None,
    corners: Annotated[
        str | None,
        Form(
            max_length=MAX_CORNERS,
            description="JSON [[x, y] x 4]: the grid's corners in the upright photo's pixels, "
            "top-left, top-right, bottom-right, bottom-left as seen (after `no_board`)",
        ),
    ] = None,
    after: Annotated[
        int | None,
        Form(
            ge=0,
            description="the game's `head` as the page knew it when the photo was taken: the "
            "board unchanged since the last turn is then a pass when `after` is the head, and "
            "already recorded when the game moved on since; without it such a photo is asked",
        ),
    ] = None,
    idempotency_key: IdempotencyKey = None,
) -> dict:
    """Read a photo of the board as the next turn: committed, or needs_review with the cells.
    A photo read now is answered with a `Server-Timing` header: the read's milliseconds and the
    whole turn's in the service (so a benchmark can tell the read from what the turn costs else)."""
    if photo is None:
        raise ServiceError("empty", "no photo in the request (multipart field 'photo')")
    timings: dict[str, float] = {}
    turn = service.post_photo(game_id, photo.file.read(), idempotency_key, corners, timings, after)
    if timings:
        response.headers["Server-Timing"] = ", ".join(
            f"{name};dur={ms:.1f}" for name, ms in timings.items()
        )
    return turn


@router.post("/moves", response_model=TurnOut, dependencies=[Authorized], responses=ERRORS)
def post_move(
    game_id: GameId,
    body: MoveIn,
    service: Service,
    idempotency_key: IdempotencyKey = None,
) -> dict:
    """Record a play typed in GCG notation as the next turn, when no photo will do."""
    return service.play_move(game_id, body.position, body.word, idempotency_key)


@router.post("/review/confirm", response_model=TurnOut, dependencies=[Authorized], responses=ERRORS)
def confirm(game_id: GameId, service: Service) -> dict:
    """Commit the pending move as read."""
    return service.confirm(game_id)


@router.post("/review/correct", response_model=TurnOut, dependencies=[Authorized], responses=ERRORS)
def correct(game_id: GameId, body: CorrectIn, service: Service) -> dict:
    """Set cells of the pending photo and re-evaluate it."""
    return service.correct(game_id, body.cells)


@router.post("/review/blank", response_model=TurnOut, dependencies=[Authorized], responses=ERRORS)
def choose_blank(game_id: GameId, body: BlankIn, service: Service) -> dict:
    """Say which letter a blank of the pending photo stands for."""
    return service.choose_blank(game_id, body.square, body.letter)


@router.post("/review/reject", response_model=GameOut, dependencies=[Authorized], responses=ERRORS)
def reject(game_id: GameId, service: Service) -> dict:
    """Drop the pending photo."""
    return service.reject(game_id)


@router.get(
    "/turns/{turn_id}/overlay",
    response_class=Response,
    responses={200: {"content": {"image/jpeg": {}, "image/png": {}}}, 404: {"model": ErrorOut}},
)
# The name overlays had when they were PNGs: answers stored for a replayed upload still give it.
@router.get("/turns/{turn_id}/overlay.png", response_class=Response, include_in_schema=False)
def overlay(game_id: GameId, turn_id: TurnId, service: Service) -> Response:
    """The photo with the grid and the letters read drawn on it (JPEG; PNG if drawn before)."""
    data = service.turn_file(game_id, turn_id, "overlay")
    return Response(data, media_type=_media_type(data))


@router.get(
    "/turns/{turn_id}/photo",
    response_class=Response,
    responses={200: {"content": {"image/jpeg": {}}}, 404: {"model": ErrorOut}},
)
def photo(game_id: GameId, turn_id: TurnId, service: Service) -> Response:
    """The photo as uploaded."""
    data = service.turn_file(game_id, turn_id, "photo")
    return Response(data, media_type=_media_type(data))


def _media_type(data: bytes) -> str:
    # What the service stored is a photo it decoded, or an overlay it drew: always an image.
    return media_type(data) or "application/octet-stream"
