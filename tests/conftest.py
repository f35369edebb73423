"""Shared fixtures: the location of ../shared (recorded games, real photos), skipped when absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def shared_dir() -> Path | None:
    """../shared next to the checkout (or $SCOREKEEPER_SHARED), if it exists."""
    candidates = [os.environ.get("SCOREKEEPER_SHARED"), REPO.parent / "shared"]
    for candidate in candidates:
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


@pytest.fixture(scope="session")
def shared() -> Path:
    """The ../shared folder; tests using it are skipped with a reason when it is missing."""
    path = shared_dir()
    if path is None:
        pytest.skip("../shared is not present (recorded games and real photos live there)")
    return path
