"""The shipped game variants: alphabets, board layouts, blank names and default options."""

from __future__ import annotations

from fastapi import APIRouter

from server.schemas import VariantsOut
from server.service import variants_json

router = APIRouter(prefix="/api/variants", tags=["variants"])


@router.get("", response_model=VariantsOut)
def variants() -> dict:
    """Every variant the server knows, as the page needs it to draw a board and a letter picker."""
    return variants_json()
