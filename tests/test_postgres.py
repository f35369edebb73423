"""The storage tests against a real PostgreSQL server (conftest's `postgres_url`: Debian's
`postgresql` package started in a temp dir), skipped with the reason when absent."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from test_storage import (  # noqa: F401  (the storage tests, collected again with this module's store)
    CAT,
    EN_WORDS,
    FakeReader,
    new_game,
    photo,
    reading,
    test_camera_stream_is_kept_once_per_version,
    test_concurrent_photos_make_one_move_each,
    test_delete_cascades,
    test_idempotency_key_returns_first_response,
    test_play_is_rescored_from_stored_tiles,
    test_schema_version_and_reopen,
    test_two_connections_serialise_on_the_game_lock,
    test_undo_keeps_the_record,
)

from server.app import create_app
from server.service import GameService
from server.storage import SCHEMA_VERSION, StorageError, Store

pytest.importorskip("psycopg", reason="psycopg is not installed (extra `postgres`)")


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


PNG_OVERLAY = b"\x89PNG\r\n\x1a\noverlay"


def test_any_process_answers_any_game(database: str, tmp_path: Path) -> None:
    """Two apps on one database with their own data folders (two machines): the photo, its
    overlay, the pending review and the word list taken on one are all the other's too."""
    reader = FakeReader()
    overlay = lambda data, r: PNG_OVERLAY + data[-4:]  # noqa: E731
    one = create_app(db_url=database, data_dir=tmp_path / "one", reader=reader, overlay=overlay)
    two = create_app(db_url=database, data_dir=tmp_path / "two", reader=reader, overlay=overlay)
    with TestClient(one) as first, TestClient(two) as second:
        created = first.post(
            "/api/games", json={"variant": "en", "players": ["Ann", "Bob"], "word_list": EN_WORDS}
        ).json()
        auth = {"Authorization": f"Bearer {created['token']}"}
        url = f"/api/games/{created['id']}"
        board = photo(1)
        files = {"photo": ("b.png", reader.add(board, reading(CAT)), "image/png")}
        turn = first.post(f"{url}/turns", files=files, headers=auth).json()
        assert turn["status"] == "committed"
        assert second.get(turn["photo_url"]).content == board
        assert second.get(turn["overlay_url"]).content == PNG_OVERLAY + board[-4:]
        # A review begun on one machine is answered on the other.
        files = {"photo": ("b.png", reader.add(photo(2), reading({7: ".......CAT?...."})), "x")}
        pending = first.post(f"{url}/turns", files=files, headers=auth).json()
        assert pending["status"] == "needs_review"
        assert second.get(url).json()["pending"]["turn_id"] == pending["turn_id"]
        answered = second.post(
            f"{url}/review/blank", json={"square": "K8", "letter": "s"}, headers=auth
        )
        assert answered.json()["status"] == "committed", answered.text
        assert second.get(pending["photo_url"]).content == photo(2)
        # The players' own word list (CATS is in it) decides on the other machine too.
        assert (
            first.get(url).json()["totals"]
            == second.get(url).json()["totals"]
            == {"Ann": 10, "Bob": 5}
        )
    assert not (tmp_path / "one" / "photos").exists() and not (tmp_path / "two" / "photos").exists()


def test_one_copy_per_photo(database: str, tmp_path: Path) -> None:
    store = Store(database, tmp_path)
    assert store.save_photo(b"same bytes") == store.save_photo(b"same bytes")
    assert store.photo(store.save_photo(b"same bytes")) == b"same bytes"
    assert store.photo("0" * 64) is None and store.overlay("nothing") is None
    with store.transaction() as tx:
        assert tx._run("SELECT COUNT(*) FROM photos").fetchone()[0] == 1


def test_processes_starting_together_create_the_schema_once(database: str, tmp_path: Path) -> None:
    """Eight stores opened at the same moment on an empty database (as eight workers starting):
    each waits for the schema lock, none fails, one version row."""
    starting = threading.Barrier(8)
    errors: list[BaseException] = []
    stores: list[Store] = []

    def start() -> None:
        starting.wait()
        try:
            stores.append(Store(database, tmp_path, pool_size=1))
        except BaseException as exc:  # noqa: BLE001 - every failure is reported below
            errors.append(exc)

    threads = [threading.Thread(target=start) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and len(stores) == 8
    with stores[0].transaction() as tx:
        assert tx._run("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
    for store in stores:
        store.close()


def test_older_schema_is_migrated_newer_refused(database: str, tmp_path: Path) -> None:
    reader = FakeReader()
    service = GameService(Store(database, tmp_path), reader, lambda data, r: PNG_OVERLAY)
    game_id = new_game(service)
    turn = service.post_photo(game_id, reader.add(photo(1), reading(CAT)), None)["turn_id"]
    with service.store.transaction() as tx:  # the database as version 2 left it
        for table in ("overlays", "photos", "director_tokens"):
            tx._run(f"DROP TABLE {table}")
        tx._run("UPDATE schema_version SET version = 2")
    service.store.close()
    # Version 2 kept the photos and overlays on this machine's disk.
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / hashlib.sha256(photo(1)).hexdigest()).write_bytes(photo(1))
    (tmp_path / "overlays").mkdir()
    (tmp_path / "overlays" / f"{turn}.png").write_bytes(PNG_OVERLAY)
    (tmp_path / "overlays" / "deleted-turn.png").write_bytes(b"no turn: left out")
    upgraded = GameService(Store(database, tmp_path), None)
    assert upgraded.turn_file(game_id, turn, "photo") == photo(1)
    assert upgraded.turn_file(game_id, turn, "overlay") == PNG_OVERLAY
    with upgraded.store.transaction() as tx:
        assert tx._run("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
        assert tx._run("SELECT COUNT(*) FROM overlays").fetchone() == (1,)
        tx._run("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    upgraded.store.close()
    with pytest.raises(StorageError, match="upgrade scorekeeper"):
        Store(database, tmp_path)


def test_no_free_connection_is_a_503_not_a_hang(database: str, tmp_path: Path) -> None:
    app = create_app(db_url=database, data_dir=tmp_path, reader=FakeReader())
    app.state.service.store = store = Store(database, tmp_path, pool_size=1, pool_timeout_s=0.5)
    with TestClient(app) as client, store.transaction():  # the only connection is taken
        response = client.get("/api/games")
    assert response.status_code == 503
    assert response.json()["error"] == "unavailable" and "try again" in response.json()["detail"]
    store.close()
