"""Score-sheet exports: GCG, CSV and a printable HTML page."""

from __future__ import annotations

from fastapi import APIRouter, Response

from scorer.sheet import game_to_gcg, sheet_csv, sheet_html
from server.deps import GameId, Service
from server.schemas import ErrorOut

router = APIRouter(
    prefix="/api/games/{game_id}", tags=["exports"], responses={404: {"model": ErrorOut}}
)


@router.get("/gcg", response_class=Response, responses={200: {"content": {"text/plain": {}}}})
def gcg(game_id: GameId, service: Service) -> Response:
    """The game as GCG text."""
    game, record = service.game_object(game_id)
    return Response(game_to_gcg(game), media_type="text/plain; charset=utf-8")


@router.get("/csv", response_class=Response, responses={200: {"content": {"text/csv": {}}}})
def csv(game_id: GameId, service: Service) -> Response:
    """The score sheet as CSV."""
    game, record = service.game_object(game_id)
    headers = {"Content-Disposition": f'attachment; filename="{record.id}.csv"'}
    return Response(sheet_csv(game), media_type="text/csv; charset=utf-8", headers=headers)


@router.get("/sheet.html", response_class=Response, responses={200: {"content": {"text/html": {}}}})
def sheet(game_id: GameId, service: Service) -> Response:
    """A printable HTML score sheet."""
    game, _ = service.game_object(game_id)
    return Response(sheet_html(game), media_type="text/html; charset=utf-8")
