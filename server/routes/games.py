"""Games: create, list, get, delete, and the turn-less events (pass, exchange, challenge, undo, end)."""

from __future__ import annotations

from fastapi import APIRouter, Response

from server.deps import Authorized, GameId, IdempotencyKey, Service
from server.schemas import (
    ChallengeIn,
    CreatedOut,
    CreateGameIn,
    EndIn,
    ErrorOut,
    ExchangeIn,
    GameOut,
    GamesOut,
)

router = APIRouter(prefix="/api/games", tags=["games"], responses={404: {"model": ErrorOut}})
WRITE = {401: {"model": ErrorOut}, 409: {"model": ErrorOut}, 422: {"model": ErrorOut}}


@router.post("", status_code=201, response_model=CreatedOut, responses={400: {"model": ErrorOut}})
def create_game(body: CreateGameIn, service: Service) -> dict:
    """Create a game; the token in the answer is needed for every write."""
    return service.create_game(
        body.variant,
        body.players,
        body.options.model_dump(),
        body.layout,
        body.dictionary,
        body.word_list,
        body.variant_file,
    )


@router.get("", response_model=GamesOut)
def list_games(service: Service) -> dict:
    """Every game with its totals."""
    return service.list_games()


@router.get("/{game_id}", response_model=GameOut)
def get_game(game_id: GameId, service: Service) -> dict:
    """The score sheet, board, whose turn it is and the pending review."""
    return service.get_game(game_id)


@router.delete("/{game_id}", status_code=204, dependencies=[Authorized], responses=WRITE)
def delete_game(game_id: GameId, service: Service) -> Response:
    """Delete the game."""
    service.delete_game(game_id)
    return Response(status_code=204)


@router.post("/{game_id}/pass", response_model=GameOut, dependencies=[Authorized], responses=WRITE)
def pass_turn(game_id: GameId, service: Service, idempotency_key: IdempotencyKey = None) -> dict:
    """The player to move passes."""
    return service.pass_turn(game_id, idempotency_key)


@router.post(
    "/{game_id}/exchange", response_model=GameOut, dependencies=[Authorized], responses=WRITE
)
def exchange(
    game_id: GameId, body: ExchangeIn, service: Service, idempotency_key: IdempotencyKey = None
) -> dict:
    """The player to move exchanges tiles: `tiles` when known, else `count`; with
    `instead_of_pass`, the pass just recorded (from a photo) was this exchange."""
    return service.exchange(game_id, body.count, body.tiles, idempotency_key, body.instead_of_pass)


@router.post(
    "/{game_id}/challenge", response_model=GameOut, dependencies=[Authorized], responses=WRITE
)
def challenge(
    game_id: GameId, body: ChallengeIn, service: Service, idempotency_key: IdempotencyKey = None
) -> dict:
    """Challenge the last play: `valid` false withdraws it, true is a failed challenge."""
    return service.challenge(game_id, body.challenger, body.valid, idempotency_key)


@router.post("/{game_id}/undo", response_model=GameOut, dependencies=[Authorized], responses=WRITE)
def undo(game_id: GameId, service: Service, idempotency_key: IdempotencyKey = None) -> dict:
    """Undo the last turn (the log keeps an undo record)."""
    return service.undo(game_id, idempotency_key)


@router.post("/{game_id}/end", response_model=GameOut, dependencies=[Authorized], responses=WRITE)
def end(
    game_id: GameId, body: EndIn, service: Service, idempotency_key: IdempotencyKey = None
) -> dict:
    """End the game with the tiles left on each rack."""
    return service.end(game_id, body.racks, idempotency_key)
