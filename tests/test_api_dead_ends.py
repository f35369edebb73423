"""No dead ends for a player, through the HTTP API: the empty board before the first move records
nothing, a reading that makes no legal play is a review of the squares that break it, a photo
where no board is found can be sent again with the grid's corners marked, and a move can be
typed in GCG notation (DESIGN.md §6)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np
import pytest
from fastapi.testclient import TestClient
from test_api import Api, _error
from test_storage import CAT, CATS, EN_WORDS, FakeReader, FakeReading, photo, reading

from server.app import create_app
from vision.locate import BoardNotFound

EMPTY: dict[int, str] = {}
CORNERS = [[100.0, 80.0], [900.0, 90.0], [890.0, 880.0], [110.0, 870.0]]


@pytest.fixture
def reader() -> FakeReader:
    return FakeReader()


@pytest.fixture
def client(tmp_path: Path, reader: FakeReader) -> Iterator[TestClient]:
    with TestClient(create_app(data_dir=tmp_path, reader=reader, read_timeout_s=5.0)) as client:
        yield client


def new_game(client: TestClient, reader: FakeReader, words: str = EN_WORDS) -> Api:
    created = client.post(
        "/api/games", json={"variant": "en", "players": ["Ann", "Bob"], "word_list": words}
    )
    assert created.status_code == 201, created.text
    return Api(client, reader, created.json())


@pytest.fixture
def api(client: TestClient, reader: FakeReader) -> Api:
    return new_game(client, reader)


def asked(turn: dict) -> list[tuple[str, list[str]]]:
    return [(cell["square"], cell["candidates"]) for cell in turn["uncertain"]]


# --- the empty board before the first move -----------------------------------------------------


def test_empty_board_before_the_first_move_records_nothing(api: Api) -> None:
    before = api.game()
    turn = api.photo(photo(1), reading(EMPTY)).json()
    assert turn["status"] == "committed" and turn["move"] is None
    assert "nothing to record" in turn["message"]
    game = api.game()
    assert game["moves"] == [] and game["turn"] == "Ann" and game["pending"] is None
    # The game is as it was but for its head: a photo turn was recorded, without an event.
    assert game == {**before, "head": game["head"]} and game["head"] > before["head"]
    assert "CAT" not in api.client.get(f"/api/games/{api.id}/gcg").text
    # Nothing to undo: the photo made no event.
    _error(api.post("/undo"), 422, "not_allowed")
    played = api.photo(photo(2), reading(CAT)).json()
    assert played["move"]["player"] == "Ann" and played["move"]["score"] == 10


def test_empty_board_after_a_pass_is_a_pass_once_confirmed(api: Api) -> None:
    api.post("/pass")
    turn = api.photo(photo(1), reading(EMPTY)).json()
    assert turn["status"] == "needs_review" and turn["move"]["kind"] == "pass"
    assert turn["move"]["player"] == "Bob" and not turn["uncertain"]
    confirmed = api.post("/review/confirm").json()
    assert confirmed["status"] == "committed" and confirmed["move"]["kind"] == "pass"
    assert [(m["player"], m["kind"]) for m in api.game()["moves"]] == [
        ("Ann", "pass"),
        ("Bob", "pass"),
    ]


def test_the_same_position_photographed_again_passes_no_turn_silently(api: Api) -> None:
    """A second photo of the board just played (a phone's retry with a new photo, a second phone
    at the table) is not recorded as the next player's pass unless the players confirm it."""
    api.photo(photo(1), reading(CAT))
    again = api.photo(photo(2), reading(CAT)).json()
    assert again["status"] == "needs_review" and again["move"]["player"] == "Bob"
    assert [m["kind"] for m in api.game()["moves"]] == ["play"]
    api.post("/review/reject")
    assert [m["kind"] for m in api.game()["moves"]] == ["play"]
    # Bob's move is tracked as usual after it.
    assert api.photo(photo(3), reading(CATS)).json()["move"]["word"] == "CATS"


# --- a reading that makes no legal play --------------------------------------------------------


def test_no_legal_play_is_reviewed_on_the_breaking_squares_then_corrected(
    client: TestClient, reader: FakeReader
) -> None:
    api = new_game(client, reader, "CAT\nCOAT\n")
    api.photo(photo(1), reading(CAT))
    # COAT down from the C, its A read as empty: the new O and T leave H10 empty between them.
    coat = {7: ".......CAT.....", 8: ".......O.......", 10: ".......T......."}
    faint = {"H10": [("empty", 0.97), ("A", 0.03)]}
    turn = api.photo(photo(2), reading(coat, faint)).json()
    assert turn["status"] == "needs_review" and turn["move"] is None
    assert asked(turn) == [("H10", ["A", "."])]
    assert "leave H10 empty between them" in turn["message"]
    assert turn["board"][9][7] == "." and turn["board"][10][7] == "T"
    assert api.game()["moves"][-1]["word"] == "CAT"
    _error(api.post("/review/confirm"), 409, "no_move")
    fixed = api.post("/review/correct", json={"cells": {"H10": "A"}}).json()
    assert fixed["status"] == "committed" and fixed["turn_id"] == turn["turn_id"]
    move = fixed["move"]
    assert (move["player"], move["position"], move["word"], move["score"]) == (
        "Bob",
        "H8",
        "COAT",
        6,
    )
    assert fixed["game"]["totals"] == {"Ann": 10, "Bob": 6} and fixed["game"]["pending"] is None


def test_a_stray_tile_off_the_line_is_asked_about(api: Api) -> None:
    api.photo(photo(1), reading(CAT))
    # On a plain square (on a premium one, far from every tile, it may be the printed label,
    # and the play is recorded without it: tests/test_tracking.py).
    stray = {0: ".S.............", 7: ".......CATS...."}
    turn = api.photo(photo(2), reading(stray)).json()
    assert turn["status"] == "needs_review" and asked(turn) == [("B1", ["S", "."])]
    fixed = api.post("/review/correct", json={"cells": {"B1": "."}}).json()
    assert fixed["status"] == "committed" and fixed["move"]["word"] == "CATS"


def test_a_play_a_house_rule_refuses_is_reviewed_not_an_error(
    client: TestClient, reader: FakeReader
) -> None:
    created = client.post(
        "/api/games",
        json={"variant": "en", "players": ["Ann", "Bob"], "options": {"one_copy_of_word": True}},
    ).json()
    api = Api(client, reader, created)
    api.photo(photo(1), reading(CAT))
    # CAT again, down from the C: one copy of a word.
    twice = {7: ".......CAT.....", 8: ".......A.......", 9: ".......T......."}
    turn = api.photo(photo(2), reading(twice)).json()
    assert turn["status"] == "needs_review" and "one copy" in turn["message"]
    assert asked(turn) == [("H9", ["A", "."]), ("H10", ["T", "."])]
    _error(api.post("/review/confirm"), 422, "illegal_play")
    assert [m["word"] for m in api.post("/review/reject").json()["moves"]] == ["CAT"]


# --- a photo where no board is found, sent again with the corners marked -----------------------


def test_no_board_then_the_corners_marked(api: Api, reader: FakeReader) -> None:
    shot = reader.add(photo(1), BoardNotFound("no 15x15 board grid found"), reading(CAT))
    refused = _error(api.photo(shot), 422, "no_board")
    assert refused["retry_with"] == "corners"
    assert api.game()["moves"] == [] and api.game()["pending"] is None
    form = {"corners": json.dumps(CORNERS)}
    turn = api.post("/turns", files={"photo": ("board.png", shot, "image/png")}, data=form)
    assert turn.status_code == 200, turn.text
    assert turn.json()["status"] == "committed" and turn.json()["move"]["word"] == "CAT"
    assert reader.corners == [None, CORNERS]


def seat_played(client: TestClient, reader: FakeReader, words: str) -> tuple[Api, dict[int, str]]:
    """A game with `words` as its word list in which CARTELS and then SEAT (down from its E) were
    photographed and recorded; returns it and the rows of the board after SEATS is played."""
    api = new_game(client, reader, words=words)
    cartels = {7: "....CARTELS...."}
    seat = {**cartels, 8: "..........E....", 9: "..........A....", 10: "..........T...."}
    assert api.photo(photo(1), reading(cartels)).json()["status"] == "committed"
    assert api.photo(photo(2), reading(seat)).json()["status"] == "committed"
    return api, {**seat, 11: "..........S...."}


def test_a_grid_the_known_tiles_vouch_for_is_read_without_a_retake(
    client: TestClient, reader: FakeReader
) -> None:
    # Late in a game tiles cover most premium squares: the colours place a grid that they do
    # not vouch for alone. Read there, the photo shows the known tiles on their own squares,
    # so the turn is recorded without the player retaking the photo or marking corners.
    api, seats = seat_played(client, reader, "CARTELS\nSEAT\nSEATS\n")
    grid = np.float64(CORNERS)
    refusal = BoardNotFound("no 15x15 board grid found", [grid + 40, grid])
    # Read on a grid a column off, the known tiles stand beside their squares: no vouching.
    shifted = {r: "." + row[:-1] for r, row in seats.items()}
    _error(api.photo(reader.add(photo(3), refusal, reading(shifted))), 422, "no_board")
    assert reader.corners[-3:] == [None, (grid + 40).tolist(), grid.tolist()]
    turn = api.photo(reader.add(photo(4), refusal, reading(seats))).json()
    assert turn["status"] == "committed" and turn["move"]["word"] == "SEATS"
    # Every grid is read: the one that reads the known board most surely is taken.
    assert reader.corners[-3:] == [None, (grid + 40).tolist(), grid.tolist()]


@dataclasses.dataclass(frozen=True)
class PlacedReading(FakeReading):
    """A reading on a grid the premium squares placed, with the other grids they placed."""

    alternatives: list[list[list[float]]] = dataclasses.field(default_factory=list)


def placed(rows: dict[int, str], alternatives: list[list[list[float]]]) -> PlacedReading:
    base = reading(rows)
    return PlacedReading(base.classes, base.confidence, base.top3, alternatives)


def test_a_grid_found_that_the_known_tiles_do_not_vouch_for_gives_way_to_one_they_do(
    client: TestClient, reader: FakeReader
) -> None:
    # Late in a game the squares left empty may fit a grid part of a cell off better than the
    # true one: the premium squares place both, and the photo is read on the first. The known
    # tiles stand beside their squares there; on the other grid they stand on them.
    api, seats = seat_played(client, reader, "CARTELS\nSEAT\nSEATS\nSH\n")
    grid = np.float64(CORNERS)
    shifted = {r: "." + row[:-1] for r, row in seats.items()}
    off = placed(shifted, [(grid + 40).tolist(), grid.tolist()])
    turn = api.photo(reader.add(photo(3), off, reading(seats))).json()
    assert turn["status"] == "committed" and turn["move"]["word"] == "SEATS"
    assert reader.corners[-3:] == [None, (grid + 40).tolist(), grid.tolist()]
    # A grid the known tiles vouch for is read once, its alternatives left alone.
    sure = placed({**seats, 11: "..........SH..."}, [(grid + 40).tolist()])
    assert api.photo(reader.add(photo(4), sure)).json()["status"] == "committed"
    assert reader.corners[-1] is None


@pytest.mark.parametrize(
    "corners",
    [
        "not json",
        "{}",
        "[[1, 2], [3, 4], [5, 6]]",
        '[[1, 2], [3, 4], [5, 6], [7, "8"]]',
        "[[1, 2], [3, 4], [5, 6], [7, 8, 9]]",
        "[[1, 2], [3, 4], [5, 6], [7, NaN]]",
        "[[1, 2], [3, 4], [5, 6], [true, 8]]",
    ],
)
def test_corners_that_are_not_four_points(api: Api, reader: FakeReader, corners: str) -> None:
    reader.add(photo(1), reading(CAT))
    files = {"photo": ("board.png", photo(1), "image/png")}
    _error(api.post("/turns", files=files, data={"corners": corners}), 400, "bad_corners")
    assert reader.calls == 0


def test_real_pipeline_reads_a_refused_photo_from_the_corners_marked(tmp_path: Path) -> None:
    """A board photographed from far away (its cells too small for the locator's working size)
    is refused, then read from the corners the player marked; corners that cannot be its
    grid are refused with the reason (skipped without the cell model)."""
    render = pytest.importorskip("training.render", reason="training.render needs Pillow")
    from server.app import pipeline_reader

    try:
        read = pipeline_reader()
    except (ImportError, OSError, RuntimeError) as exc:
        pytest.skip(f"the vision pipeline cannot load: {exc}")
    rows = ["." * 15] * 7 + [".......CAT....."] + ["." * 15] * 7
    pose = render.Pose(angle=3.0, tilt=10.0, tilt_direction=40.0, fill=0.85)
    image, corners, _ = render.render_board_photo(
        rows, "en", render.deluxe_style(), seed=1, size=(960, 720), pose=pose
    )
    # The board, a third of its size, on a 12 MP photo of the table: cells of 14 px.
    canvas = np.full((3000, 4000, 3), (70, 100, 130), np.uint8)
    small = cv2.resize(image, None, fx=1 / 3, fy=1 / 3, interpolation=cv2.INTER_AREA)
    canvas[1400 : 1400 + small.shape[0], 1800 : 1800 + small.shape[1]] = small
    ok, png = cv2.imencode(".png", canvas)
    assert ok
    marked = [[round(x / 3 + 1800, 1), round(y / 3 + 1400, 1)] for x, y in corners.tolist()]
    with TestClient(create_app(data_dir=tmp_path, reader=read)) as client:
        api = new_game(client, FakeReader())
        _error(api.photo(png.tobytes()), 422, "no_board")

        def send(points: list[list[float]]) -> object:
            files = {"photo": ("board.png", png.tobytes(), "image/png")}
            return api.post("/turns", files=files, data={"corners": json.dumps(points)})

        outside = _error(send([[-50.0, 10.0], *marked[1:]]), 400, "bad_corners")
        assert "outside the 4000x3000 photo" in outside["detail"]
        crossed = [marked[0], marked[2], marked[1], marked[3]]
        assert "convex" in _error(send(crossed), 400, "bad_corners")["detail"]
        tiny = [[10.0, 10.0], [60.0, 10.0], [60.0, 60.0], [10.0, 60.0]]
        assert "too small" in _error(send(tiny), 400, "bad_corners")["detail"]
        response = send(marked)
        assert response.status_code == 200, response.text
        turn = response.json()
        # How well the cells are read is vision's to test; here: read, never a wrong move.
        if turn["status"] == "committed":
            move = turn["move"]
            assert (move["position"], move["word"], move["score"]) == ("8H", "CAT", 10)
        else:
            assert turn["status"] == "needs_review" and turn["game"]["moves"] == []


# --- typed moves -------------------------------------------------------------------------------


def test_typed_move_then_a_photo_tracked_against_it(client: TestClient, reader: FakeReader) -> None:
    api = new_game(client, reader, EN_WORDS + "COAT\n")
    typed = api.post("/moves", json={"position": "8H", "word": "CAT"})
    assert typed.status_code == 200, typed.text
    turn = typed.json()
    assert turn["status"] == "committed" and turn["uncertain"] == []
    assert turn["move"] == {
        "player": "Ann",
        "kind": "play",
        "position": "8H",
        "word": "CAT",
        "words": [{"word": "CAT", "score": 10}],
        "score": 10,
        "total": 10,
    }
    assert turn["photo_url"] is None and turn["overlay_url"] is None
    assert turn["game"]["board"][7] == ".......CAT....." and turn["game"]["turn"] == "Bob"
    missing = api.client.get(f"/api/games/{api.id}/turns/{turn['turn_id']}/photo")
    _error(missing, 404, "not_found")
    # The next photo is tracked against the board the typed move left.
    photographed = api.photo(photo(1), reading(CATS)).json()
    assert photographed["status"] == "committed"
    assert (photographed["move"]["player"], photographed["move"]["word"]) == ("Bob", "CATS")
    # Letters already on the board are part of the typed word (C of CATS, down).
    down = api.post("/moves", json={"position": "h8", "word": "COAT"}).json()
    assert (down["move"]["position"], down["move"]["word"], down["move"]["score"]) == (
        "H8",
        "COAT",
        6,
    )
    assert api.game()["totals"] == {"Ann": 16, "Bob": 6}
    gcg = api.client.get(f"/api/games/{api.id}/gcg").text
    assert "8H CAT +10 10" in gcg and "H8 .OAT +6 16" in gcg


def test_typed_blank_phony_and_idempotency(api: Api) -> None:
    key = {"Idempotency-Key": "typed-1"}
    first = api.post("/moves", json={"position": "8G", "word": "CAt"}, headers=key).json()
    assert first["move"]["word"] == "CAt" and first["move"]["score"] == 8
    assert first["game"]["board"][7] == "......CAt......"
    again = api.post("/moves", json={"position": "8G", "word": "CAt"}, headers=key).json()
    assert again["turn_id"] == first["turn_id"] and len(api.game()["moves"]) == 1
    # A word the dictionary lacks stands, flagged, as it would from a photo.
    phony = api.post("/moves", json={"position": "8G", "word": "CAtZ"}).json()
    assert phony["status"] == "committed" and phony["invalid_words"] == ["CAtZ"]
    assert phony["move"]["player"] == "Bob"


@pytest.mark.parametrize(
    ("move", "status", "code", "why"),
    [
        ({"position": "8H", "word": "DOG"}, 422, "illegal_play", "H8 holds C"),
        ({"position": "8H", "word": "CAT"}, 422, "illegal_play", "no new tile"),
        ({"position": "1A", "word": "AT"}, 422, "illegal_play", "touch no tile"),
        ({"position": "8M", "word": "SSSS"}, 422, "illegal_play", "off the board"),
        ({"position": "8K", "word": "Ж"}, 422, "illegal_play", "not a letter"),
        ({"position": "88", "word": "AT"}, 400, "bad_request", "bad position"),
        ({"position": "9H", "word": "A T"}, 400, "bad_request", "cannot be part of a word"),
        ({"position": "9H"}, 422, "validation", "word"),
    ],
)
def test_typed_moves_that_cannot_be_played(
    api: Api, move: dict, status: int, code: str, why: str
) -> None:
    api.post("/moves", json={"position": "8H", "word": "CAT"})
    body = _error(api.post("/moves", json=move), status, code)
    assert why in body["detail"]
    assert [m["word"] for m in api.game()["moves"]] == ["CAT"]


def test_typed_moves_need_the_token_and_no_review_pending(api: Api) -> None:
    no_token = api.client.post(f"/api/games/{api.id}/moves", json={"position": "8H", "word": "CAT"})
    _error(no_token, 401, "unauthorized")
    api.photo(photo(1), reading(CATS, {"K8": [("S", 0.55), ("E", 0.40)]}))
    _error(api.post("/moves", json={"position": "8H", "word": "CAT"}), 409, "review_pending")
