"""The storage tests against a real PostgreSQL server started here (Debian's `postgresql`
package: initdb and pg_ctl under /usr/lib/postgresql/*/bin), skipped with the reason when absent.

As root the server runs as the `postgres` user (`runuser`), in a temp dir, on a free loopback port.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from test_storage import (  # noqa: F401  (the storage tests, collected again with this module's store)
    CAT,
    EN_WORDS,
    FakeReader,
    photo,
    reading,
    test_concurrent_photos_make_one_move_each,
    test_delete_cascades,
    test_idempotency_key_returns_first_response,
    test_play_is_rescored_from_stored_tiles,
    test_schema_version_and_reopen,
    test_two_connections_serialise_on_the_game_lock,
    test_undo_keeps_the_record,
)

from server.app import create_app
from server.storage import Store

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (extra `postgres`)")
_databases = itertools.count()


def _postgres_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


def _as_postgres(args: list[str]) -> list[str]:
    """Root cannot run the server: run it as the `postgres` user."""
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server for this module: its URL (the `postgres` database, trust auth)."""
    bin_dir = _postgres_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql): no initdb found")
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        pytest.skip("running as root without runuser: cannot start PostgreSQL as `postgres`")
    root = Path(tempfile.mkdtemp(prefix="scorekeeper-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
    data = root / "data"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    run = lambda *args: subprocess.run(  # noqa: E731
        _as_postgres([str(a) for a in args]), check=True, capture_output=True, timeout=60
    )
    try:
        run(bin_dir / "initdb", "-D", data, "-U", "postgres", "-A", "trust", "--no-sync")
        options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
        run(bin_dir / "pg_ctl", "-D", data, "-o", options, "-l", root / "log", "-w", "start")
    except subprocess.CalledProcessError as exc:
        shutil.rmtree(root, ignore_errors=True)
        pytest.skip(f"PostgreSQL could not be started: {exc.stderr.decode(errors='replace')}")
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run(
            _as_postgres([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
            capture_output=True,
            timeout=60,
        )
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def database(postgres_url: str) -> str:
    """A fresh database on the server for one test."""
    name = f"t{next(_databases)}"
    with psycopg.connect(f"{postgres_url}/postgres", autocommit=True) as connection:
        connection.execute(f"CREATE DATABASE {name}")
    return f"{postgres_url}/{name}"


@pytest.fixture
def make_store(database: str, tmp_path: Path) -> Callable[[], Store]:
    """Overrides test_storage's fixture: each call is a new set of connections, like a process."""
    return lambda: Store(database, tmp_path / "data")


def test_api_on_postgres(database: str, tmp_path: Path) -> None:
    reader = FakeReader()
    app = create_app(db_url=database, data_dir=tmp_path, reader=reader)
    with TestClient(app) as client:
        created = client.post(
            "/api/games", json={"variant": "en", "players": ["Ann", "Bob"], "word_list": EN_WORDS}
        ).json()
        auth = {"Authorization": f"Bearer {created['token']}"}
        url = f"/api/games/{created['id']}"
        files = {"photo": ("b.png", reader.add(photo(1), reading(CAT)), "image/png")}
        assert (
            client.post(f"{url}/turns", files=files, headers=auth).json()["status"] == "committed"
        )
        assert client.post(f"{url}/pass", headers=auth).status_code == 200
        game = client.get(url).json()
        assert [m["kind"] for m in game["moves"]] == ["play", "pass"]
        assert game["totals"] == {"Ann": 10, "Bob": 0}
