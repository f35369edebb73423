"""QR codes for the phone page: the game's join link as an SVG the other players' phones scan.

Made on the server with `segno` (a maintained, dependency-free QR encoder) rather than a script
vendored into the page. The link is posted, not put in a URL, since a player's link carries the
game's token and URLs end up in logs.
"""

from __future__ import annotations

import io

import segno
from fastapi import APIRouter, Response
from pydantic import BaseModel, Field

from server.schemas import ErrorOut

router = APIRouter(prefix="/api", tags=["qr"])


class QrIn(BaseModel):
    text: str = Field(min_length=1, max_length=1000, description="what the code says: a link")


@router.post(
    "/qr",
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}}, 422: {"model": ErrorOut}},
)
def qr(body: QrIn) -> Response:
    """The QR code of `text` (a game's join link), SVG."""
    out = io.BytesIO()
    segno.make(body.text, error="m").save(out, kind="svg", scale=4, border=2, xmldecl=False)
    return Response(out.getvalue(), media_type="image/svg+xml")
