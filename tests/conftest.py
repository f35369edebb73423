"""Shared fixtures: the location of ../shared (recorded games, real photos), and a PostgreSQL
server (`tools.pgserver`) with a fresh database per test, each skipped with the reason when
absent."""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools.pgserver import PostgresUnavailable, TempPostgres

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


_databases = itertools.count()


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server for the test session: its URL (the `postgres` database, trust auth)."""
    try:
        server = TempPostgres()
    except PostgresUnavailable as exc:
        pytest.skip(str(exc))
    with server:
        yield server.url


@pytest.fixture
def database(postgres_url: str) -> str:
    """A fresh database on the server for one test."""
    psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (extra `postgres`)")
    name = f"t{next(_databases)}"
    with psycopg.connect(f"{postgres_url}/postgres", autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    return f"{postgres_url}/{name}"


@pytest.fixture
def en_game(tmp_path: Path) -> Iterator[object]:
    """An English game on a fresh service whose photos a `FakeReader` reads, its words the
    small test list `EN_WORDS` (`test_api.Api`)."""
    from fastapi.testclient import TestClient
    from test_api import Api
    from test_storage import EN_WORDS, FakeReader

    from server.app import create_app

    reader = FakeReader()
    with TestClient(create_app(data_dir=tmp_path, reader=reader, read_timeout_s=5.0)) as client:
        created = client.post(
            "/api/games", json={"variant": "en", "players": ["Ann", "Bob"], "word_list": EN_WORDS}
        )
        yield Api(client, reader, created.json())
