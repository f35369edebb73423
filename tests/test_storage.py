"""Storage tests (SQLite here; tests/test_postgres.py runs the same ones against PostgreSQL):
schema, WAL, cascades, undo records, idempotent responses, and turns serialised under the lock.

Also holds the fake photo reader the API tests share: photo bytes mapped to prepared readings.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorer.board import Board
from scorer.tracking import certain_reading
from server.service import GameService
from server.storage import SCHEMA_VERSION, StorageError, Store

EN_WORDS = "CAT\nCATS\nCATE\nAT\nTA\n"


@dataclass(frozen=True)
class FakeReading:
    """A board reading as the vision pipeline gives it (classes, confidence, top-3)."""

    classes: list[list[str]]
    confidence: list[list[float]]
    top3: list[list[list[tuple[str, float]]]]


def reading(rows: dict[int, str], uncertain: dict[str, list[tuple[str, float]]] | None = None):
    """A reading of a 15×15 board with `rows` (row index → 15-character board text), every
    cell certain except `uncertain` (square name → top classes with probabilities)."""
    lines = [rows.get(r, "." * 15) for r in range(15)]
    base = certain_reading(Board.from_rows(lines))
    classes = [list(r) for r in base.classes]
    confidence = [list(r) for r in base.confidence]
    top3 = [list(r) for r in base.top3]
    for name, options in (uncertain or {}).items():
        col, row = "ABCDEFGHIJKLMNO".index(name[0]), int(name[1:]) - 1
        classes[row][col], confidence[row][col] = options[0]
        top3[row][col] = options
    return FakeReading(classes, confidence, top3)


def photo(n: int) -> bytes:
    """A small, valid PNG, different for each `n`."""
    image = np.full((8, 8, 3), n % 256, np.uint8)
    image[0, 0] = (n // 256) % 256
    ok, data = cv2.imencode(".png", image)
    assert ok
    return data.tobytes()


class FakeReader:
    """Maps photo bytes to a reading (or an exception to raise), optionally slowly; a photo
    added `with_corners` reads so only when grid corners are marked, and `corners` holds the
    corners of each call."""

    def __init__(self, delay_s: float = 0.0) -> None:
        self.readings: dict[bytes, object] = {}
        self.marked: dict[bytes, object] = {}
        self.delay_s = delay_s
        self.calls = 0
        self.corners: list[object] = []

    def add(self, data: bytes, result: object, with_corners: object = None) -> bytes:
        self.readings[data] = result
        if with_corners is not None:
            self.marked[data] = with_corners
        return data

    def __call__(self, data: bytes, variant: object, corners: object = None) -> object:
        self.calls += 1
        self.corners.append(corners)
        if corners is not None and data in self.marked:
            return self.marked[data]
        if self.delay_s:
            time.sleep(self.delay_s)
        result = self.readings[data]
        if isinstance(result, Exception):
            raise result
        return result


CAT = {7: ".......CAT....."}
CATS = {7: ".......CATS...."}


@pytest.fixture
def make_store(tmp_path: Path) -> Callable[[], Store]:
    """Opens the store under test (a new connection set each call, like another process)."""
    return lambda: Store(str(tmp_path / "db.sqlite"), tmp_path / "data")


def new_game(service: GameService, **kwargs: object) -> str:
    args = {
        "variant": "en",
        "players": ["Ann", "Bob"],
        "options": {},
        "layout": None,
        "dictionary": True,
        "word_list": EN_WORDS,
    } | kwargs
    return service.create_game(**args)["id"]  # type: ignore[arg-type]


def test_schema_version_and_reopen(make_store: Callable[[], Store]) -> None:
    store = make_store()
    service = GameService(store, None)
    game_id = new_game(service)
    service.pass_turn(game_id)
    reopened = GameService(make_store(), None)
    assert reopened.get_game(game_id)["moves"][0]["kind"] == "pass"
    with reopened.store.transaction() as tx:
        assert tx._run("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]


def test_sqlite_wal_and_newer_schema_refused(tmp_path: Path) -> None:
    Store(str(tmp_path / "db.sqlite"), tmp_path)
    connection = sqlite3.connect(tmp_path / "db.sqlite")
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    connection.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    connection.commit()
    connection.close()
    with pytest.raises(StorageError, match="upgrade scorekeeper"):
        Store(str(tmp_path / "db.sqlite"), tmp_path)


def test_delete_cascades(make_store: Callable[[], Store]) -> None:
    reader = FakeReader()
    service = GameService(make_store(), reader)
    game_id = new_game(service)
    service.post_photo(game_id, reader.add(photo(1), reading(CAT)), "key-1")
    service.delete_game(game_id)
    with service.store.transaction() as tx:
        for table in ("events", "turns", "idempotency"):
            assert tx._run(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == 0


def test_camera_stream_is_kept_once_per_version(make_store: Callable[[], Store]) -> None:
    """A table camera's stream is kept only over the version it was read at: of two processes
    that took a frame of it from one version, the second to keep its stream is told so."""
    service = GameService(make_store(), None)
    game_id = new_game(service)
    other = make_store()  # another process on the same database
    with service.store.transaction() as tx:
        assert tx.camera_stream(game_id, "a") is None
        assert tx.save_camera_stream(game_id, "a", 0, b"first")
    with other.transaction() as tx:
        assert not tx.save_camera_stream(game_id, "a", 0, b"also first")
        assert tx.camera_stream(game_id, "a") == (1, b"first")
        assert tx.save_camera_stream(game_id, "a", 1, b"second")
    with service.store.transaction() as tx:
        assert not tx.save_camera_stream(game_id, "a", 1, b"second too")
        assert tx.camera_stream(game_id, "a") == (2, b"second")
        assert tx.camera_stream(game_id, "b") is None
    service.delete_game(game_id)
    with other.transaction() as tx:
        assert tx._run("SELECT COUNT(*) FROM cameras").fetchone()[0] == 0


def test_play_is_rescored_from_stored_tiles(make_store: Callable[[], Store]) -> None:
    reader = FakeReader()
    service = GameService(make_store(), reader)
    game_id = new_game(service)
    turn = service.post_photo(game_id, reader.add(photo(1), reading(CAT)), None)
    assert turn["status"] == "committed"
    assert turn["move"]["word"] == "CAT" and turn["move"]["score"] == 10
    with service.store.transaction() as tx:
        ((_, stored),) = tx.events(game_id)
    assert stored == {
        "type": "play",
        "player": 0,
        "across": True,
        "tiles": [[7, 7, "C"], [7, 8, "A"], [7, 9, "T"]],
        "rack": None,
    }
    assert GameService(make_store(), None).get_game(game_id)["totals"] == {"Ann": 10, "Bob": 0}


def test_undo_keeps_the_record(make_store: Callable[[], Store]) -> None:
    service = GameService(make_store(), None)
    game_id = new_game(service)
    service.pass_turn(game_id)
    service.exchange(game_id, 3, None)
    game = service.undo(game_id)
    assert [m["kind"] for m in game["moves"]] == ["pass"]
    assert game["turn"] == "Bob"
    with service.store.transaction() as tx:
        rows = tx._run("SELECT seq, undoes FROM events ORDER BY seq").fetchall()
    assert rows == [(1, None), (2, None), (3, 2)]


def test_idempotency_key_returns_first_response(make_store: Callable[[], Store]) -> None:
    reader = FakeReader()
    service = GameService(make_store(), reader)
    game_id = new_game(service)
    first = service.post_photo(game_id, reader.add(photo(1), reading(CAT)), "k")
    again = service.post_photo(game_id, reader.add(photo(2), reading(CATS)), "k")
    assert again["turn_id"] == first["turn_id"]
    assert len(again["game"]["moves"]) == 1
    assert reader.calls == 1


def test_two_connections_serialise_on_the_game_lock(make_store: Callable[[], Store]) -> None:
    service = GameService(make_store(), None)
    game_id = new_game(service)
    order: list[str] = []
    holding = threading.Event()

    def first() -> None:
        with make_store().transaction(lock_game=game_id) as tx:
            holding.set()
            order.append("first locked")
            time.sleep(0.3)
            tx.append_event(game_id, {"type": "pass", "player": 0, "rack": None})
            order.append("first done")

    def second() -> None:
        holding.wait()
        with make_store().transaction(lock_game=game_id) as tx:
            order.append("second locked")
            tx.append_event(game_id, {"type": "pass", "player": 1, "rack": None})

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert order == ["first locked", "first done", "second locked"]
    with service.store.transaction() as tx:
        assert [seq for seq, _ in tx.events(game_id)] == [1, 2]


def test_concurrent_photos_make_one_move_each(make_store: Callable[[], Store]) -> None:
    reader = FakeReader(delay_s=0.2)
    services = [GameService(make_store(), reader) for _ in range(2)]
    game_id = new_game(services[0])
    photos = [reader.add(photo(1), reading(CAT)), reader.add(photo(1), reading(CAT))]
    results: list[dict] = []

    def post(service: GameService, data: bytes) -> None:
        results.append(service.post_photo(game_id, data, None))

    threads = [
        threading.Thread(target=post, args=(s, p)) for s, p in zip(services, photos, strict=True)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 2
    assert results[0]["turn_id"] == results[1]["turn_id"]
    assert len(services[0].get_game(game_id)["moves"]) == 1
