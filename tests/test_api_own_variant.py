"""A game of the players' own edition over HTTP: `POST /api/games` with `variant_file` (the
12×16 «Найди слово» of tests/data), kept with the game for its turns, its sheet and a restart;
bad files refused with a 4xx saying why; an older database given the new column."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from test_storage import FakeReader, photo

from scorer.board import Board
from scorer.tracking import certain_reading
from scorer.variant import Variant
from server.app import create_app
from server.schemas import MAX_VARIANT_FILE
from server.storage import DB_FILE, SCHEMA_VERSION, Store

NAIDI_TEXT = (Path(__file__).parent / "data" / "naidi_slovo.toml").read_text(encoding="utf-8")
EMPTY = ["." * 16] * 12
KOTYONOK = EMPTY[:5] + ["...КОТЁНОК......"] + EMPTY[6:]


class RecordingReader(FakeReader):
    """The fake reader, keeping the variant each photo was read for."""

    def __init__(self) -> None:
        super().__init__()
        self.variants: list[Variant] = []

    def __call__(self, data: bytes, variant: object, corners: object = None) -> object:
        assert isinstance(variant, Variant)
        self.variants.append(variant)
        return super().__call__(data, variant, corners)


def _app(tmp_path: Path, reader: FakeReader) -> TestClient:
    return TestClient(create_app(data_dir=tmp_path, reader=reader, overlay=lambda d, r: b""))


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with _app(tmp_path, FakeReader()) as test_client:
        yield test_client


def _create(client: TestClient, **fields: object) -> dict:
    body = {"variant_file": NAIDI_TEXT, "players": ["Аня", "Борис"], "dictionary": False}
    return client.post("/api/games", json=body | fields).json()


def test_uploaded_variant_is_kept_with_the_game(tmp_path: Path) -> None:
    reader = RecordingReader()
    with _app(tmp_path, reader) as client:
        created = _create(client)
        game = created["game"]
        assert game["variant"] == "naidi_slovo"
        assert len(game["layout"]) == 12 and {len(row) for row in game["layout"]} == {16}
        assert game["board"] == EMPTY and game["unseen"] == 104
        data = reader.add(photo(1), certain_reading(Board.from_rows(KOTYONOK)))
        auth = {"Authorization": f"Bearer {created['token']}"}
        turn = client.post(
            f"/api/games/{created['id']}/turns",
            headers=auth,
            files={"photo": ("board.png", data, "image/png")},
        ).json()
        assert turn["status"] == "committed", turn
        assert (turn["move"]["position"], turn["move"]["score"]) == ("6D", 74)
    # The photo was read for the game's own board, and a restarted service still plays it.
    assert reader.variants[-1].layout.rows == tuple(game["layout"])
    with _app(tmp_path, FakeReader()) as client:
        again = client.get(f"/api/games/{created['id']}").json()
        assert again["board"] == KOTYONOK and again["totals"] == {"Аня": 74, "Борис": 0}
        assert ">Аня: 6D КОТЁНОК +74" in client.get(f"/api/games/{created['id']}/gcg").text


def test_shipped_variant_by_name_still_works(client: TestClient) -> None:
    created = client.post("/api/games", json={"variant": "ru", "players": ["A", "B"]})
    assert created.status_code == 201 and len(created.json()["game"]["board"]) == 15


@pytest.mark.parametrize(
    ("fields", "status", "code", "detail"),
    [
        ({"variant": "ru"}, 422, "validation", "either variant"),
        ({"variant_file": None}, 422, "validation", "either variant"),
        ({"variant_file": "x" * (MAX_VARIANT_FILE + 1)}, 422, "validation", "at most"),
        ({"variant_file": "layout = ["}, 400, "bad_request", "variant_file is not valid TOML"),
        (
            {"variant_file": NAIDI_TEXT.replace("rack_size", "racksize")},
            400,
            "bad_request",
            "variant_file: unknown key 'racksize'",
        ),
        (
            {"variant_file": NAIDI_TEXT.replace('"....-......-....",', '"....-.....-....",', 1)},
            400,
            "bad_request",
            "not rectangular: row 5 has 15 squares",
        ),
        (
            {"variant_file": NAIDI_TEXT.replace('"Я" = [2, 3]', '"Ω" = [2, 3]')},
            400,
            "bad_request",
            "cannot read the letters Ω",
        ),
        (
            {"variant_file": NAIDI_TEXT.replace('dictionary = "ru"', 'dictionary = "klingon"')},
            400,
            "bad_request",
            "unknown dictionary 'klingon'",
        ),
    ],
)
def test_bad_variant_files_are_refused(
    client: TestClient, fields: dict, status: int, code: str, detail: str
) -> None:
    body = {"variant_file": NAIDI_TEXT, "players": ["Аня", "Борис"]} | fields
    response = client.post("/api/games", json=body)
    assert response.status_code == status, response.text
    assert response.json()["error"] == code and detail in response.json()["detail"]


def test_version_1_database_gains_the_variant_file_column(tmp_path: Path) -> None:
    connection = sqlite3.connect(tmp_path / DB_FILE)
    connection.executescript(
        """CREATE TABLE schema_version (version INTEGER NOT NULL);
        INSERT INTO schema_version VALUES (1);
        CREATE TABLE games (id TEXT PRIMARY KEY, variant TEXT NOT NULL, players TEXT NOT NULL,
            options TEXT NOT NULL, layout TEXT, dictionary INTEGER NOT NULL, word_list TEXT,
            token_hash TEXT NOT NULL, created TEXT NOT NULL);
        INSERT INTO games VALUES ('g1', 'ru', '["A", "B"]', '{}', NULL, 1, NULL, 'h', 'now');"""
    )
    connection.commit()
    connection.close()
    store = Store(str(tmp_path / DB_FILE), tmp_path)
    with store.transaction() as tx:
        assert tx._run("SELECT version FROM schema_version").fetchall() == [(SCHEMA_VERSION,)]
        record = tx.game("g1")
    assert record is not None and record.variant == "ru" and record.variant_file is None
