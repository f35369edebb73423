"""The director's page and its data: every game of the evening (JSON) and the results (CSV),
read with the director's token."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Query, Response

from server.deps import Service, bearer
from server.director import check_director, evening_csv, evening_json, evening_start
from server.schemas import ErrorOut, EveningOut

router = APIRouter(
    prefix="/api/director",
    tags=["director"],
    responses={code: {"model": ErrorOut} for code in (400, 401, 403, 422)},
)
Since = Annotated[
    str | None,
    Query(
        max_length=40,
        description="the evening's start, ISO 8601 (default: the last 12 hours)",
        examples=["2026-12-01T18:00:00+00:00"],
    ),
]


def require_director(
    service: Service, authorization: Annotated[str | None, Header(max_length=200)] = None
) -> None:
    """Let a request through only with a director's token (`Authorization: Bearer <token>`)."""
    check_director(service.store, bearer(authorization))


Director = Depends(require_director)


@router.get("/games", response_model=EveningOut, dependencies=[Director])
def games(service: Service, since: Since = None) -> dict:
    """Every table of the evening: players, totals, whose turn, pending review, the sheet's link."""
    return evening_json(service, evening_start(since, datetime.now(UTC)))


@router.get(
    "/results.csv",
    response_class=Response,
    dependencies=[Director],
    responses={200: {"content": {"text/csv": {}}}},
)
def results(service: Service, since: Since = None) -> Response:
    """The evening's results: one line per game and player, with the player's place."""
    text = evening_csv(service, evening_start(since, datetime.now(UTC)))
    headers = {"Content-Disposition": 'attachment; filename="evening.csv"'}
    return Response(text, media_type="text/csv; charset=utf-8", headers=headers)
