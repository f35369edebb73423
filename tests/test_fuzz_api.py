"""The API as a hostile client sees it: schemathesis fuzzes every operation of the app's own
OpenAPI (a fixed seed, a bounded number of examples) against games in several states, and no
answer may be a 5xx. Also the limits on names that the fuzzer alone would not prove.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from test_storage import CAT, EN_WORDS, FakeReader, photo, reading

from server.app import create_app
from server.director import make_director_token
from vision.locate import BoardNotFound

# Every example of every operation: bounded so the whole file runs in well under a minute.
MAX_EXAMPLES = 25


class FuzzReader(FakeReader):
    """The prepared readings of the games' own photos; any other image shows no board."""

    def __call__(self, data: bytes, variant: object, corners: object = None) -> object:
        if data not in self.readings:
            raise BoardNotFound("no board grid found")
        return super().__call__(data, variant, corners)


_DATA = tempfile.TemporaryDirectory(prefix="scorekeeper-fuzz-")
READER = FuzzReader()
APP = create_app(data_dir=_DATA.name, reader=READER, overlay=lambda data, r: b"\x89PNG\r\n\x1a\n")
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)
CLIENT = TestClient(APP)
# Photos the games below are played with: a first move, then a blank left unknown (a review).
FIRST, BLANK = (
    READER.add(photo(1), reading(CAT)),
    READER.add(photo(2), reading({7: ".......CAT?...."})),
)
STATES = ("fresh", "played", "review", "ru", "old", "stranger")
# Names an older server let in (before names were bounded): its games must still be served.
OLD_NAMES = ["Ann\nSmith", "Bob\x00", "Bob", "#player1 x:y"]
_counter = itertools.count()
DIRECTOR = {"Authorization": f"Bearer {make_director_token(APP.state.service.store)}"}
_games: dict[str, tuple[str, dict[str, str], str | None]] = {}


@pytest.fixture(scope="module", autouse=True)
def _cleanup() -> Iterator[None]:
    yield
    APP.state.service.close()
    _DATA.cleanup()


def _new_game(state: str) -> tuple[str, dict[str, str], str | None]:
    """A new game in `state`: its id, write headers and a turn id (the review's, when there is
    one)."""
    body = {"variant": "en", "players": ["Ann", "Bob"], "word_list": EN_WORDS}
    if state == "ru":
        body = {"variant": "ru", "players": ["Аня", "Борис", "Вера"]}
    if state == "old":
        created = APP.state.service.create_game("en", OLD_NAMES, {}, None, True, None)
    else:
        response = CLIENT.post("/api/games", json=body)
        assert response.status_code == 201, response.text
        created = response.json()
    game_id = created["id"]
    auth = {"Authorization": f"Bearer {created['token']}"}
    turn_id = None
    for data in {"played": [FIRST], "review": [FIRST, BLANK], "old": [FIRST]}.get(state, []):
        turn = CLIENT.post(
            f"/api/games/{game_id}/turns", files={"photo": ("b.png", data)}, headers=auth
        )
        assert turn.status_code == 200, turn.text
        turn_id = turn.json()["turn_id"]
    return game_id, auth, turn_id


def _game(state: str) -> tuple[str, dict[str, str], str | None]:
    """The game in `state`, made once and kept while no request changes it."""
    if state not in _games:
        _games[state] = _new_game(state)
    return _games[state]


def _forget_other_games() -> None:
    """Delete the games the fuzzer made (and those it changed): they would pile up."""
    kept = {game_id for game_id, _, _ in _games.values()}
    with APP.state.service.store.transaction() as tx:
        for record in tx.games():
            if record.id not in kept:
                tx.delete_game(record.id)


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_operation_answers_a_server_error(case: schemathesis.Case) -> None:
    """Whatever the body, path, headers or form fields, the answer is never a 5xx; the game the
    case runs against is a fresh one, one with a move, one with a review pending, a Russian one,
    or (the stranger) none at all with the generated id and token; the director's operations
    with the director's token but for the stranger."""
    state = STATES[next(_counter) % len(STATES)]
    if state != "stranger" and "game_id" in (case.path_parameters or {}):
        game_id, auth, turn_id = _game(state)
        case.path_parameters["game_id"] = game_id
        if turn_id and "turn_id" in case.path_parameters:
            case.path_parameters["turn_id"] = turn_id
        case.headers = {**(case.headers or {}), **auth}
    elif state != "stranger" and case.path.startswith("/api/director"):
        case.headers = {**(case.headers or {}), **DIRECTOR}
    response = case.call()
    if case.method.upper() != "GET" and response.status_code < 400:
        _games.pop(state, None)
        _forget_other_games()
    case.validate_response(response, checks=[not_a_server_error])


# --- the limits, one by one -------------------------------------------------------------------


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir=tmp_path, reader=FuzzReader())) as test_client:
        yield test_client


def _create(client: TestClient, **fields: object) -> httpx.Response:
    return client.post("/api/games", json={"variant": "en", "players": ["Ann", "Bob"], **fields})


def _refused(response: httpx.Response, status: int, code: str, says: str) -> None:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"] == code and says in body["detail"], body
    assert len(response.content) < 3_000


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("A" * 5_000_000, "at most 40 characters"),
        ("A" * 41, "at most 40 characters"),
        ("   ", "at least 1 character"),
        ("Ann\nSmith", "U+000A"),
        ("Ann\x00", "U+0000"),
        ("Ann\tB", "U+0009"),
        ("Ann\u2028B", "U+2028"),
        ("Ann\u200bB", "U+200B"),
    ],
)
def test_a_bad_name_is_refused_and_never_sent_back(
    client: TestClient, name: str, says: str
) -> None:
    _refused(_create(client, players=[name, "Bob"]), 422, "validation", says)


def test_names_of_any_script_with_punctuation_are_kept(client: TestClient) -> None:
    names = ["  Аня ", "Jean-Luc O'Neil", "José", "李小龙", "Ёжик 2"]
    created = _create(client, players=names[:4])
    assert created.status_code == 201, created.text
    assert created.json()["game"]["players"] == ["Аня", "Jean-Luc O'Neil", "José", "李小龙"]
    assert _create(client, players=["A" * 40, names[4]]).status_code == 201
    _refused(_create(client, players=["Ann", "Ann "]), 400, "bad_request", "must differ")


@pytest.mark.parametrize(
    ("fields", "status", "says"),
    [
        ({"options": {"finish_lines": 300}}, 422, "Extra inputs"),
        ({"options": {"finish_line": 10**30}}, 422, "less than or equal to 10000"),
        ({"options": {"challenge_bonus": -1}}, 422, "greater than or equal to 0"),
        ({"options": {"tournament": "maybe"}}, 422, "valid boolean"),
        ({"variant": "x" * 1000}, 422, "at most 40"),
        ({"layout": "x" * 1000}, 422, "at most 40"),
        ({"word_list": "CAT\nDOG\nDON'T\n"}, 400, "line 3: DON'T holds \"'\""),
        ({"word_list": "CAT\n" + "A" * 65}, 400, "line 2: a word of 65 letters"),
        ({"word_list": "CAT\x00\n"}, 422, "U+0000"),
        ({"word_list": "A\n" * 4_000_001}, 422, "at most 8000000"),
        ({"word_list": "Ж" * 4_000_001}, 422, "bytes of UTF-8, over 8000000"),
    ],
)
def test_bounded_game_fields(client: TestClient, fields: dict, status: int, says: str) -> None:
    code = "validation" if status == 422 else "bad_request"
    _refused(_create(client, **fields), status, code, says)


def test_a_word_list_in_the_variants_letters_is_taken(client: TestClient) -> None:
    words = "\ufeff# ours\nкот кошачий\nЁЖ\nёлка\n"
    created = client.post(
        "/api/games", json={"variant": "erudit", "players": ["Аня", "Боря"], "word_list": words}
    )
    assert created.status_code == 201, created.text


def test_bounded_turn_fields(client: TestClient) -> None:
    created = _create(client).json()
    base, auth = f"/api/games/{created['id']}", {"Authorization": f"Bearer {created['token']}"}
    post = lambda path, **kw: client.post(base + path, headers={**auth, **kw.pop("h", {})}, **kw)  # noqa: E731
    _refused(post("/exchange", json={"count": 21}), 422, "validation", "less than or equal to 20")
    # A tile of several letters is written [CH]: the field bounds 20 tiles of 5 characters.
    _refused(post("/exchange", json={"tiles": "A" * 101}), 422, "validation", "at most 100")
    _refused(post("/exchange", json={"tiles": "A" * 21}), 422, "not_allowed", "more than 7 tiles")
    _refused(post("/challenge", json={"challenger": "A" * 41}), 422, "validation", "at most 40")
    racks = {f"P{n}": "" for n in range(5)}
    _refused(post("/end", json={"racks": racks}), 422, "validation", "at most 4 items")
    cells = {f"{chr(65 + n % 25)}{n}": "A" for n in range(626)}
    _refused(post("/review/correct", json={"cells": cells}), 422, "validation", "at most 625")
    _refused(post("/review/correct", json={"cells": {"H8" * 10: "A"}}), 422, "validation", "")
    _refused(post("/review/blank", json={"square": "H8", "letter": "A" * 9}), 422, "validation", "")
    # 25 squares of up to 5 characters ([CH]) and the parentheses of letters on the board.
    _refused(post("/moves", json={"position": "8H", "word": "A" * 128}), 422, "validation", "")
    _refused(post("/moves", json={"position": "8H", "word": "A" * 31}), 422, "illegal_play", "off")
    move = {"position": "8H", "word": "CAT"}
    _refused(post("/moves", json=move, h={"Idempotency-Key": "k" * 129}), 422, "validation", "")
    _refused(post("/moves", json=move, h={"Idempotency-Key": "a b"}), 422, "validation", "")
    _refused(post("/turns", data={"corners": "[" * 1001}), 422, "validation", "at most 1000")
    _refused(client.get("/api/games/" + "a" * 65), 422, "validation", "at most 64")
    _refused(client.get("/api/games/a%00b/gcg"), 422, "validation", "pattern")
    keyed = post("/moves", json=move, h={"Idempotency-Key": "lq2x3-0.5abc_~:+/="})
    assert keyed.status_code == 200, keyed.text


def test_a_validation_error_never_echoes_a_huge_key(client: TestClient) -> None:
    created = _create(client).json()
    response = client.post(
        f"/api/games/{created['id']}/review/correct",
        json={"cells": {"K" * 1_000_000: "A"}},
        headers={"Authorization": f"Bearer {created['token']}"},
    )
    _refused(response, 422, "validation", "body.cells.KKKK")


def test_gcg_export_of_names_an_older_server_kept(tmp_path: Path) -> None:
    app = create_app(data_dir=tmp_path, reader=FuzzReader())
    created = app.state.service.create_game("en", OLD_NAMES, {}, None, True, None)
    with TestClient(app) as client:
        gcg = client.get(f"/api/games/{created['id']}/gcg")
        assert gcg.status_code == 200, gcg.text
        players = [line for line in gcg.text.splitlines() if line.startswith("#player")]
        assert players == [
            "#player1 Ann_Smith Ann Smith",
            "#player2 Bob Bob",
            "#player3 Bob_2 Bob",
            "#player4 #player1_x_y #player1 x:y",
        ]
        for export in ("csv", "sheet.html", ""):
            assert client.get(f"/api/games/{created['id']}/{export}").status_code == 200


def test_photos_are_read_after_the_app_lifespan_ran_twice(tmp_path: Path) -> None:
    reader = FuzzReader()
    app = create_app(data_dir=tmp_path, reader=reader)
    with TestClient(app) as client:
        created = _create(client).json()
    with TestClient(app) as client:
        turn = client.post(
            f"/api/games/{created['id']}/turns",
            files={"photo": ("b.png", reader.add(photo(7), reading(CAT)))},
            headers={"Authorization": f"Bearer {created['token']}"},
        )
        assert turn.status_code == 200 and turn.json()["status"] == "committed", turn.text
