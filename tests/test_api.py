"""The HTTP API through the real app (FastAPI TestClient) with a fake photo reader: every endpoint
and error path of the contract, hostile uploads, concurrency, and a restart of `scorekeeper serve`.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import cv2
import httpx
import numpy as np
import pytest
from fastapi.testclient import TestClient
from test_storage import CAT, CATS, EN_WORDS, FakeReader, photo, reading

from scorer.variant import load_layout, load_variant, variant_names
from server.app import create_app
from vision.locate import BoardNotFound

REPO = Path(__file__).resolve().parent.parent
PNG_OVERLAY = b"\x89PNG\r\n\x1a\noverlay"


class Api:
    """A client for one game: its id, token and the fake reader behind the app."""

    def __init__(self, client: TestClient, reader: FakeReader, created: dict) -> None:
        self.client = client
        self.reader = reader
        self.id = created["id"]
        self.auth = {"Authorization": f"Bearer {created['token']}"}

    def post(self, path: str, **kwargs: object) -> httpx.Response:
        headers = {**self.auth, **kwargs.pop("headers", {})}  # type: ignore[dict-item]
        return self.client.post(f"/api/games/{self.id}{path}", headers=headers, **kwargs)

    def photo(
        self, data: bytes, result: object = None, after: int | None = None, **kwargs: object
    ) -> httpx.Response:
        if result is not None:
            self.reader.add(data, result)
        if after is not None:
            kwargs["data"] = {"after": str(after)}
        return self.post("/turns", files={"photo": ("board.png", data, "image/png")}, **kwargs)

    def game(self) -> dict:
        return self.client.get(f"/api/games/{self.id}").json()


def _error(response: httpx.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"] == code and body["detail"], body
    return body


@pytest.fixture
def reader() -> FakeReader:
    return FakeReader()


@pytest.fixture
def client(tmp_path: Path, reader: FakeReader) -> Iterator[TestClient]:
    app = create_app(
        data_dir=tmp_path, reader=reader, overlay=lambda data, r: PNG_OVERLAY, read_timeout_s=1.0
    )
    with TestClient(app) as test_client:
        yield test_client


@pytest.fixture
def api(client: TestClient, reader: FakeReader) -> Api:
    created = client.post(
        "/api/games", json={"variant": "en", "players": ["Ann", "Bob"], "word_list": EN_WORDS}
    )
    assert created.status_code == 201
    return Api(client, reader, created.json())


# --- games -----------------------------------------------------------------------------------


def test_create_get_list_delete(client: TestClient, reader: FakeReader) -> None:
    created = client.post(
        "/api/games",
        json={
            "variant": "ru",
            "players": ["Аня", "Борис", "Вера"],
            "options": {"challenge": "five_point", "finish_line": 300},
            "layout": "erudit",
        },
    )
    assert created.status_code == 201
    body = created.json()
    game = body["game"]
    assert body["token"] and game["id"] == body["id"]
    assert game["players"] == ["Аня", "Борис", "Вера"] and game["turn"] == "Аня"
    assert game["options"]["challenge"] == "five_point" and game["options"]["finish_line"] == 300
    assert len(game["board"]) == 15 and game["board"][7] == "." * 15
    # Russian tiles on the Эрудит board chosen at creation.
    assert game["layout"] == list(load_layout("erudit").rows) and game["layout"][7][7] == "+"
    assert "".join(game["alphabet"]) == "".join(load_variant("ru").alphabet)
    assert "Ё" in game["alphabet"] and game["rack_size"] == 7
    assert game["totals"] == {"Аня": 0, "Борис": 0, "Вера": 0}
    assert game["unseen"] == 104 and game["bag"] == 104 - 21
    assert game["moves"] == [] and game["pending"] is None and not game["finished"]
    assert client.get(f"/api/games/{body['id']}").json() == game
    listed = client.get("/api/games").json()["games"]
    assert [(g["id"], g["variant"], g["finished"]) for g in listed] == [(body["id"], "ru", False)]
    api = Api(client, reader, body)
    _error(client.delete(f"/api/games/{api.id}"), 401, "unauthorized")
    assert client.delete(f"/api/games/{api.id}", headers=api.auth).status_code == 204
    _error(client.get(f"/api/games/{api.id}"), 404, "not_found")
    _error(client.delete(f"/api/games/{api.id}", headers=api.auth), 404, "not_found")


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"variant": "xx", "players": ["A", "B"]}, 400, "bad_request"),
        ({"variant": "en", "players": ["A", "A"]}, 400, "bad_request"),
        ({"variant": "en", "players": ["A"]}, 422, "validation"),
        ({"variant": "en", "players": ["A", "B", "C", "D", "E"]}, 422, "validation"),
        (
            {"variant": "en", "players": ["A", "B"], "options": {"challenge": "x"}},
            422,
            "validation",
        ),
        ({"variant": "en", "players": ["A", "B"], "layout": "round"}, 422, "validation"),
        ({"players": ["A", "B"]}, 422, "validation"),
    ],
)
def test_create_errors(client: TestClient, body: dict, status: int, code: str) -> None:
    _error(client.post("/api/games", json=body), status, code)


def test_framework_errors_have_the_error_shape(client: TestClient, api: Api) -> None:
    _error(client.get("/api/nothing"), 404, "not_found")
    _error(client.put("/api/games"), 405, "method_not_allowed")
    _error(
        client.post(
            "/api/games", content=b"{not json", headers={"content-type": "application/json"}
        ),
        422,
        "validation",
    )
    _error(api.post("/pass", headers={"Authorization": "Bearer wrong"}), 401, "unauthorized")
    _error(
        client.post(f"/api/games/{api.id}/pass", headers={"Authorization": "Basic x"}),
        401,
        "unauthorized",
    )
    _error(api.post("/exchange", json={"count": 0}), 422, "validation")


def test_variants(client: TestClient) -> None:
    variants = {v["name"]: v for v in client.get("/api/variants").json()["variants"]}
    assert sorted(variants) == variant_names()
    erudit = variants["erudit"]
    assert erudit["title"] == "Эрудит" and erudit["rack_size"] == 7
    assert erudit["blank_name"] == "звёздочка" and erudit["blank_symbol"] == "*"
    assert len(erudit["alphabet"]) == 32 and "Ё" not in erudit["alphabet"]
    assert len(erudit["layout"]) == 15 and {len(row) for row in erudit["layout"]} == {15}
    assert erudit["layout"][7] == "=..'...+...'..=" and variants["en"]["layout"][7][7] == "*"
    assert erudit["options"] == {
        "blank_scores_letter": False,
        "blank_swap": False,
        "one_copy_of_word": False,
        "finish_line": 0,
        "nine_tile_racks": False,
        "tournament": False,
        "challenge": "double",
        "challenge_bonus": 5,
    }
    english = variants["en"]
    assert english["alphabet"] == list("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    assert english["blank_name"] == "blank" and english["blank_symbol"] == ""


def test_game_with_nine_tile_racks_gives_its_rack_size(client: TestClient) -> None:
    created = client.post(
        "/api/games",
        json={"variant": "erudit", "players": ["A", "B"], "options": {"nine_tile_racks": True}},
    ).json()
    assert created["game"]["rack_size"] == 9 and created["game"]["layout"][7][7] == "+"


def test_openapi_and_docs(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in (
        "/api/games",
        "/api/games/{game_id}",
        "/api/games/{game_id}/turns",
        "/api/games/{game_id}/review/correct",
        "/api/games/{game_id}/moves",
        "/api/games/{game_id}/gcg",
        "/api/variants",
    ):
        assert path in paths
    assert client.get("/docs").status_code == 200


# --- photo turns -----------------------------------------------------------------------------


def test_committed_photo_turn(api: Api) -> None:
    response = api.photo(photo(1), reading(CAT))
    assert response.status_code == 200
    turn = response.json()
    assert turn["status"] == "committed" and turn["uncertain"] == [] and turn["misreads"] == []
    assert turn["move"] == {
        "player": "Ann",
        "kind": "play",
        "position": "8H",
        "word": "CAT",
        "words": [{"word": "CAT", "score": 10}],
        "score": 10,
        "total": 10,
    }
    assert turn["game"]["board"][7] == ".......CAT....."
    assert turn["board"] == turn["game"]["board"]
    assert turn["game"]["turn"] == "Bob" and turn["game"]["totals"] == {"Ann": 10, "Bob": 0}
    stored = api.client.get(turn["photo_url"])
    assert stored.content == photo(1) and stored.headers["content-type"] == "image/png"
    overlay = api.client.get(turn["overlay_url"])
    assert overlay.content == PNG_OVERLAY and overlay.headers["content-type"] == "image/png"
    _error(api.client.get(f"/api/games/{api.id}/turns/nope/photo"), 404, "not_found")


def test_overlay_is_drawn_after_the_answer_and_waited_for(
    tmp_path: Path, reader: FakeReader
) -> None:
    """The turn is answered while its overlay is still being drawn; asking for the overlay then
    waits for it rather than answering 404."""
    release, drawn = threading.Event(), threading.Event()

    def slow_overlay(data: bytes, read: object) -> bytes:
        release.wait(timeout=10)
        drawn.set()
        return PNG_OVERLAY

    app = create_app(data_dir=tmp_path, reader=reader, overlay=slow_overlay, read_timeout_s=20)
    with TestClient(app) as client:
        game = {"variant": "en", "players": ["Ann", "Bob"], "word_list": EN_WORDS}
        api = Api(client, reader, client.post("/api/games", json=game).json())
        turn = api.photo(photo(1), reading(CAT)).json()
        assert turn["status"] == "committed" and not drawn.is_set()
        threading.Timer(0.05, release.set).start()
        overlay = client.get(turn["overlay_url"])
        assert overlay.status_code == 200 and overlay.content == PNG_OVERLAY


def test_overlay_is_served_as_the_picture_it_is_under_both_its_names(
    tmp_path: Path, reader: FakeReader
) -> None:
    """The service's overlays are JPEGs; ones drawn as PNG before stay PNG, and the name
    overlays had then (`overlay.png`, in answers kept for replayed uploads) still answers."""
    jpeg = b"\xff\xd8\xff\xe0overlay"
    app = create_app(data_dir=tmp_path, reader=reader, overlay=lambda data, read: jpeg)
    with TestClient(app) as client:
        game = {"variant": "en", "players": ["Ann", "Bob"], "word_list": EN_WORDS}
        api = Api(client, reader, client.post("/api/games", json=game).json())
        turn = api.photo(photo(1), reading(CAT)).json()
        assert turn["overlay_url"].endswith("/overlay")
        for url in (turn["overlay_url"], turn["overlay_url"] + ".png"):
            overlay = client.get(url)
            assert overlay.content == jpeg and overlay.headers["content-type"] == "image/jpeg"


def test_same_photo_or_key_never_makes_a_second_move(api: Api) -> None:
    first = api.photo(photo(1), reading(CAT)).json()
    again = api.photo(photo(1)).json()
    assert again["turn_id"] == first["turn_id"] and again["move"] == first["move"]
    assert len(api.game()["moves"]) == 1
    keyed = api.photo(photo(2), reading(CATS), headers={"Idempotency-Key": "abc"}).json()
    retried = api.photo(photo(3), reading(CAT), headers={"Idempotency-Key": "abc"}).json()
    assert retried["turn_id"] == keyed["turn_id"] and retried["move"]["word"] == "CATS"
    assert [m["word"] for m in api.game()["moves"]] == ["CAT", "CATS"]
    assert api.reader.calls == 2


def test_a_photo_read_now_tells_its_timings_a_replayed_one_none(api: Api) -> None:
    first = api.photo(photo(1), reading(CAT))
    timings = dict(
        part.strip().split(";dur=") for part in first.headers["Server-Timing"].split(",")
    )
    assert set(timings) == {"read", "turn"}
    assert 0 <= float(timings["read"]) <= float(timings["turn"])
    assert "Server-Timing" not in api.photo(photo(1)).headers


def test_a_retried_write_with_its_key_is_made_once(api: Api) -> None:
    """A phone that heard no answer sends the same pass, exchange, challenge, undo or end again
    with the same Idempotency-Key: the event is appended once, the retry gets the game as it is.
    """
    api.photo(photo(1), reading(CAT))
    for _ in range(2):
        game = api.post("/pass", headers={"Idempotency-Key": "pass-1"}).json()
        assert [m["kind"] for m in game["moves"]] == ["play", "pass"]
    for _ in range(2):
        game = api.post("/exchange", json={"count": 3}, headers={"Idempotency-Key": "x-1"}).json()
        assert [m["kind"] for m in game["moves"]] == ["play", "pass", "exchange"]
    for _ in range(2):
        game = api.post("/undo", headers={"Idempotency-Key": "undo-1"}).json()
        assert [m["kind"] for m in game["moves"]] == ["play", "pass"]
    challenge = {"challenger": "Bob", "valid": True}
    api.post("/pass", headers={"Idempotency-Key": "pass-2"})
    api.post("/pass", headers={"Idempotency-Key": "pass-3"})
    assert len(api.game()["moves"]) == 4
    # A key belongs to one request: sent with another kind of write, it is refused.
    _error(
        api.photo(photo(2), reading(CATS), headers={"Idempotency-Key": "pass-1"}),
        400,
        "bad_request",
    )
    turn = api.photo(photo(2), reading(CATS), headers={"Idempotency-Key": "turn-1"}).json()
    assert turn["status"] == "committed"
    _error(api.post("/pass", headers={"Idempotency-Key": "turn-1"}), 400, "bad_request")
    answers = [
        api.post("/challenge", json=challenge, headers={"Idempotency-Key": "c-1"}) for _ in "ab"
    ]
    assert [a.status_code for a in answers] == [200, 200]
    kinds = [m["kind"] for m in answers[1].json()["moves"]]
    assert kinds == ["play", "pass", "pass", "pass", "play", "challenge_penalty"]
    answers = [
        api.post("/end", json={"racks": {}}, headers={"Idempotency-Key": "e-1"}) for _ in "ab"
    ]
    assert [a.status_code for a in answers] == [200, 200] and answers[1].json()["finished"]
    _error(api.post("/end", json={"racks": {}}), 409, "game_finished")  # without the key: refused


def test_review_correct_a_cell(api: Api) -> None:
    api.photo(photo(1), reading(CAT))
    unsure = reading(CATS, {"K8": [("S", 0.55), ("E", 0.40)]})
    turn = api.photo(photo(2), unsure).json()
    assert turn["status"] == "needs_review" and turn["move"] is None
    (cell,) = turn["uncertain"]
    assert (cell["square"], cell["row"], cell["col"]) == ("K8", 7, 10)
    assert cell["candidates"] == ["E", "S"]
    pending = turn["game"]["pending"]
    assert pending["turn_id"] == turn["turn_id"] and "game" not in pending
    # The board as read: the known CAT and nothing certain at K8 yet; the game's board unchanged.
    assert pending["board"] == turn["board"] and pending["board"][7] == ".......CAT....."
    assert turn["game"]["board"][7] == ".......CAT....."
    _error(api.photo(photo(3), reading(CATS)), 409, "review_pending")
    _error(api.post("/pass"), 409, "review_pending")
    _error(api.post("/review/confirm"), 409, "no_move")
    _error(api.post("/review/correct", json={"cells": {"Z99": "S"}}), 400, "bad_request")
    _error(api.post("/review/correct", json={"cells": {"K8": "SS"}}), 400, "bad_request")
    # A correction that makes no legal play is asked about again, on the square that breaks it.
    stray = api.post("/review/correct", json={"cells": {"K8": "S", "A1": "S"}}).json()
    assert stray["status"] == "needs_review" and stray["turn_id"] == turn["turn_id"]
    assert [(c["square"], c["candidates"]) for c in stray["uncertain"]] == [("A1", ["S", "."])]
    assert "not in one row or column" in stray["message"]
    assert api.game()["pending"]["turn_id"] == turn["turn_id"]
    fixed = api.post("/review/correct", json={"cells": {"K8": "S"}}).json()
    assert fixed["status"] == "committed" and fixed["turn_id"] == turn["turn_id"]
    assert fixed["move"]["word"] == "CATS" and fixed["move"]["player"] == "Bob"
    assert fixed["game"]["pending"] is None and fixed["game"]["totals"]["Bob"] == 6
    _error(api.post("/review/correct", json={"cells": {"K8": "S"}}), 409, "no_review")


def test_a_correction_that_leaves_a_word_the_list_lacks_is_shown_before_it_is_recorded(
    api: Api,
) -> None:
    api.photo(photo(1), reading(CAT))
    unsure = reading({7: ".......CAT....."}, {"K8": [("S", 0.55), ("E", 0.40)]})
    turn = api.photo(photo(2), unsure).json()
    assert turn["status"] == "needs_review"
    # The answer makes a word the list lacks, as it would if another square of the photo, taken
    # as read, had lost a tile: the move is shown, with the squares past the word's ends.
    odd = api.post("/review/correct", json={"cells": {"K8": "X"}}).json()
    assert odd["status"] == "needs_review" and odd["turn_id"] == turn["turn_id"], odd
    assert "not in the dictionary: CATX" in odd["message"]
    assert [c["square"] for c in odd["uncertain"]] == ["G8", "L8"]
    assert odd["move"]["word"] == "CATX" and api.game()["moves"][-1]["word"] == "CAT"
    # It may be a phony after all: confirmed, it is recorded.
    confirmed = api.post("/review/confirm").json()
    assert confirmed["status"] == "committed" and confirmed["move"]["word"] == "CATX"


def test_the_squares_past_an_unknown_word_answered_empty_record_it(api: Api) -> None:
    api.photo(photo(1), reading(CAT))
    unsure = reading({7: ".......CAT....."}, {"K8": [("S", 0.55), ("E", 0.40)]})
    api.photo(photo(2), unsure)
    assert [
        c["square"]
        for c in api.post("/review/correct", json={"cells": {"K8": "X"}}).json()["uncertain"]
    ] == ["G8", "L8"]
    # The players say both squares are empty: the board is as they see it, CATX is recorded
    # (a phony the others may challenge), not asked about again.
    answered = api.post("/review/correct", json={"cells": {"G8": ".", "L8": "."}}).json()
    assert answered["status"] == "committed" and answered["move"]["word"] == "CATX", answered


def test_word_not_in_the_list_is_asked_then_recorded_and_flagged(api: Api) -> None:
    # Read with certainty, TAC is not in the list. On a first move no known tiles vouch for
    # the photo's confident reads, and on a board the reader never saw a letter read wrongly
    # with confidence may make such a word: the move is shown to confirm, with its new tiles
    # and the squares past its ends, before anything is recorded.
    turn = api.photo(photo(1), reading({7: ".......TAC....."})).json()
    assert turn["status"] == "needs_review" and turn["invalid_words"] == ["TAC"]
    assert "not in the dictionary: TAC" in turn["message"]
    assert [c["square"] for c in turn["uncertain"]] == ["G8", "K8", "H8", "I8", "J8"]
    assert turn["move"]["word"] == "TAC" and turn["move"]["score"] == 10
    assert turn["game"]["totals"] == {"Ann": 0, "Bob": 0}
    # The players say it is what was played: a phony, recorded and flagged.
    turn = api.post("/review/confirm").json()
    assert turn["status"] == "committed" and turn["move"]["word"] == "TAC"
    assert turn["game"]["totals"] == {"Ann": 10, "Bob": 0} and turn["game"]["pending"] is None
    # The others challenge it: the dictionary decides, and the play comes off.
    challenged = api.post("/challenge", json={"challenger": "Bob", "valid": None}).json()
    assert challenged["totals"] == {"Ann": 0, "Bob": 0}
    assert challenged["moves"][-1]["kind"] == "withdrawn"


def test_word_not_in_the_list_read_beyond_doubt_is_recorded_and_flagged(api: Api) -> None:
    # CATX: the known tiles are read as themselves, and every square of the word with
    # certainty, no other reading of them making a word the list knows: the photo shows what
    # was played, a phony or a word the list lacks. It is recorded at once, flagged.
    api.photo(photo(1), reading(CAT))
    turn = api.photo(photo(2), reading({7: ".......CATX...."})).json()
    assert turn["status"] == "committed" and turn["invalid_words"] == ["CATX"]
    assert "not in the dictionary: CATX" in turn["message"] and turn["move"]["score"] == 13
    assert turn["game"]["totals"] == {"Ann": 10, "Bob": 13}
    challenged = api.post("/challenge", json={"challenger": "Ann", "valid": None}).json()
    assert challenged["totals"] == {"Ann": 10, "Bob": 0}
    assert challenged["moves"][-1]["kind"] == "withdrawn"


def test_word_not_in_the_list_is_asked_where_a_look_alike_makes_a_word(api: Api) -> None:
    # CATX is not in the list, and its X, though read 0.96, gives an S the weight of a misread
    # against a word the list lacks: CATS is listed. The move is shown to confirm, asking the X
    # alone (the rest is read beyond doubt), before anything is recorded.
    api.photo(photo(1), reading(CAT))
    unsure = reading({7: ".......CATX...."}, {"K8": [("X", 0.96), ("S", 0.04)]})
    body = api.photo(photo(2), unsure).json()
    assert body["status"] == "needs_review" and body["invalid_words"] == ["CATX"]
    assert "not in the dictionary: CATX" in body["message"]
    assert [c["square"] for c in body["uncertain"]] == ["K8"]
    assert body["move"]["word"] == "CATX" and body["move"]["score"] == 13
    assert body["game"]["totals"] == {"Ann": 10, "Bob": 0}
    # The players say it is what was played: a phony, recorded and flagged.
    body = api.post("/review/confirm").json()
    assert body["status"] == "committed" and body["move"]["word"] == "CATX"
    assert body["game"]["totals"] == {"Ann": 10, "Bob": 13} and body["game"]["pending"] is None


def test_review_confirm_a_blank_left_unknown(api: Api) -> None:
    api.photo(photo(1), reading(CAT))
    turn = api.photo(photo(2), reading({7: ".......CAT?...."})).json()
    assert turn["status"] == "needs_review" and turn["move"]["word"] == "CAT?"
    confirmed = api.post("/review/confirm").json()
    assert confirmed["status"] == "committed" and confirmed["move"]["score"] == 5
    assert confirmed["game"]["totals"] == {"Ann": 10, "Bob": 5}
    assert confirmed["game"]["pending"] is None


def test_review_choose_a_blank(api: Api) -> None:
    api.photo(photo(1), reading(CAT))
    turn = api.photo(photo(2), reading({7: ".......CAT?...."})).json()
    assert turn["status"] == "needs_review"
    assert turn["uncertain"][0]["square"] == "K8"
    assert sorted(turn["uncertain"][0]["candidates"]) == ["E", "S"]
    assert (
        turn["board"][7] == ".......CAT?...." and turn["game"]["pending"]["board"] == turn["board"]
    )
    _error(api.post("/review/blank", json={"square": "K8", "letter": "12"}), 400, "bad_request")
    not_blank = api.post("/review/blank", json={"square": "H8", "letter": "S"})
    assert "no blank on H8" in _error(not_blank, 400, "bad_request")["detail"]
    foreign = api.post("/review/blank", json={"square": "K8", "letter": "Ж"})
    assert "not a letter of Scrabble" in _error(foreign, 400, "bad_request")["detail"]
    chosen = api.post("/review/blank", json={"square": "K8", "letter": "S"}).json()
    assert chosen["status"] == "committed" and chosen["move"]["word"] == "CATs"
    assert chosen["game"]["board"][7] == ".......CATs...."
    assert chosen["move"]["score"] == 5


def test_review_reject(api: Api) -> None:
    api.photo(photo(1), reading(CAT))
    turn = api.photo(photo(2), reading(CATS, {"K8": [("S", 0.55), ("E", 0.40)]})).json()
    assert turn["status"] == "needs_review"
    game = api.post("/review/reject").json()
    assert game["pending"] is None and [m["word"] for m in game["moves"]] == ["CAT"]
    _error(api.post("/review/reject"), 409, "no_review")
    assert api.photo(photo(3), reading(CATS)).json()["status"] == "committed"


def test_photo_errors_from_the_reader(api: Api, reader: FakeReader) -> None:
    refused = _error(
        api.photo(photo(1), BoardNotFound("no 15x15 board grid found")), 422, "no_board"
    )
    assert refused["retry_with"] == "corners" and "corners" in refused["detail"]
    # A reading that makes no legal play is a review of the squares that break it.
    turn = api.photo(photo(2), reading({0: "CAT............"})).json()
    assert turn["status"] == "needs_review" and "centre" in turn["message"]
    assert [c["square"] for c in turn["uncertain"]] == ["A1", "B1", "C1"]
    assert api.post("/review/reject").json()["moves"] == []
    reader.delay_s = 2.0
    _error(api.photo(photo(3), reading(CAT)), 503, "timeout")


def test_reader_unavailable(tmp_path: Path) -> None:
    def broken() -> FakeReader:
        raise ImportError("no vision.pipeline")

    with TestClient(create_app(data_dir=tmp_path, load_reader=broken)) as client:
        created = client.post("/api/games", json={"variant": "en", "players": ["A", "B"]}).json()
        api = Api(client, FakeReader(), created)
        _error(api.photo(photo(1)), 503, "reader_unavailable")
        _error(api.photo(b"not an image"), 400, "not_an_image")


# --- hostile uploads -------------------------------------------------------------------------


def _png_bomb(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims `width`×`height` pixels (a decompression bomb's shape)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data).to_bytes(4, "big")
        return len(data).to_bytes(4, "big") + kind + data + crc

    ihdr = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    idat = zlib.compress(b"\x00" * 1_000_000, 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def test_hostile_uploads_get_4xx_and_the_server_stays_up(api: Api) -> None:
    ok, jpeg = cv2.imencode(".jpg", np.full((64, 64, 3), 128, np.uint8))
    assert ok
    jpeg = jpeg.tobytes()
    _error(api.photo(b""), 400, "empty")
    _error(api.post("/turns", files={"other": ("x", b"1")}), 400, "empty")
    _error(api.post("/turns"), 400, "empty")
    _error(api.photo(b"GIF89a" + b"\x00" * 100), 400, "not_an_image")
    _error(api.photo(b"%PDF-1.4 hello"), 400, "not_an_image")
    _error(api.photo(jpeg[: len(jpeg) // 2]), 400, "truncated")
    _error(api.photo(jpeg[:10]), 400, "truncated")
    _error(api.photo(_png_bomb(30_000, 30_000)), 413, "too_large")
    _error(api.photo(b"\xff\xd8\xff" + os.urandom(26 * 1024 * 1024)), 413, "too_large")
    assert api.reader.calls == 0
    assert api.client.get(f"/api/games/{api.id}").status_code == 200
    assert api.photo(photo(1), reading(CAT)).json()["status"] == "committed"


def test_body_limit_counts_what_arrives(tmp_path: Path) -> None:
    app = create_app(data_dir=tmp_path, reader=FakeReader(), max_body_bytes=1000)

    def chunks() -> Iterator[bytes]:
        for _ in range(10):
            yield b"x" * 500

    with TestClient(app) as client:
        _error(client.post("/api/games", content=chunks()), 413, "too_large")
        big = client.post("/api/games", content=b"{}", headers={"content-length": "5000"})
        _error(big, 413, "too_large")
        assert client.get("/api/games").status_code == 200


# --- other turns -----------------------------------------------------------------------------


def test_pass_exchange_undo(api: Api) -> None:
    assert api.post("/pass").json()["turn"] == "Bob"
    _error(api.post("/exchange", json={}), 400, "bad_request")
    game = api.post("/exchange", json={"tiles": "abc"}).json()
    assert game["moves"][-1]["kind"] == "exchange" and game["moves"][-1]["word"] == "ABC"
    _error(api.post("/exchange", json={"tiles": "A1"}), 422, "not_allowed")
    game = api.post("/exchange", json={"count": 2}).json()
    assert [m["kind"] for m in game["moves"]] == ["pass", "exchange", "exchange"]
    game = api.post("/undo").json()
    assert [m["kind"] for m in game["moves"]] == ["pass", "exchange"]
    assert api.post("/undo").json()["turn"] == "Bob"
    assert api.post("/undo").json()["moves"] == []
    _error(api.post("/undo"), 422, "not_allowed")


def test_an_unchanged_board_sent_after_the_head_is_a_pass_recorded(api: Api) -> None:
    """A photo of the board as the last turn left it, sent with `after` the game's head (the
    phone had seen that turn recorded), is a pass, recorded without a question; a pass turned
    into an exchange afterwards is that player's exchange."""
    head = api.photo(photo(1), reading(CAT)).json()["game"]["head"]
    assert head > 0
    turn = api.photo(photo(2), reading(CAT), after=head).json()
    assert turn["status"] == "committed" and turn["move"]["kind"] == "pass", turn
    assert turn["move"]["player"] == "Bob" and turn["game"]["head"] > head
    # An exchange the game refuses leaves the pass in force.
    refused = api.post("/exchange", json={"tiles": "A1", "instead_of_pass": True})
    _error(refused, 422, "not_allowed")
    assert [m["kind"] for m in api.game()["moves"]] == ["play", "pass"]
    game = api.post("/exchange", json={"count": 2, "instead_of_pass": True}).json()
    assert [(m["player"], m["kind"]) for m in game["moves"]] == [
        ("Ann", "play"),
        ("Bob", "exchange"),
    ]
    assert game["turn"] == "Ann" and game["head"] > turn["game"]["head"]
    # Only a pass is made an exchange so.
    _error(api.post("/exchange", json={"count": 2, "instead_of_pass": True}), 422, "not_allowed")


def test_an_unchanged_board_sent_before_the_head_records_nothing(api: Api) -> None:
    """A photo taken before the last turn was recorded (another phone recorded it: the page's
    `after` is behind the head) shows that turn's board again: already recorded, nothing more
    recorded, and the same photo sent again is answered the same."""
    before = api.game()["head"]
    assert before == 0
    api.photo(photo(1), reading(CAT))
    head = api.game()["head"]
    turn = api.photo(photo(2), reading(CAT), after=before).json()
    assert turn["status"] == "committed" and turn["move"] is None, turn
    assert turn["message"].startswith("already recorded")
    assert turn["game"]["head"] > head and len(turn["game"]["moves"]) == 1
    assert turn["game"]["turn"] == "Bob" and turn["game"]["pending"] is None
    again = api.photo(photo(2), after=before).json()
    assert again["turn_id"] == turn["turn_id"] and api.game()["head"] == turn["game"]["head"]
    # A new play is recorded whatever the page knew.
    turn = api.photo(photo(3), reading(CATS), after=before).json()
    assert turn["status"] == "committed" and turn["move"]["word"] == "CATS"


def test_the_empty_board_photographed_again_after_its_first_photo_is_the_first_pass(
    api: Api,
) -> None:
    """The empty board's first photo records nothing, but is a turn recorded: the head moves. The
    unchanged empty board photographed again by a page that saw it is the first player's pass;
    sent without `after` it still records nothing."""
    first = api.photo(photo(1), reading({})).json()
    assert first["status"] == "committed" and first["move"] is None
    head = first["game"]["head"]
    assert head > 0 and first["game"]["moves"] == []
    quiet = api.photo(photo(2), reading({})).json()
    assert quiet["move"] is None and quiet["game"]["moves"] == []
    turn = api.photo(photo(3), reading({}), after=quiet["game"]["head"]).json()
    assert turn["status"] == "committed" and turn["move"]["kind"] == "pass", turn
    assert turn["move"]["player"] == "Ann" and turn["game"]["turn"] == "Bob"
    # Once the log holds a record, an unchanged empty board is no first pass (all moves undone).
    api.post("/undo")
    again = api.photo(photo(4), reading({}), after=api.game()["head"]).json()
    assert again["move"] is None and again["game"]["moves"] == [], again


def test_an_unchanged_board_sent_without_after_or_ahead_of_the_head_is_asked(api: Api) -> None:
    """Without `after` (or with a head the game never had) a photo of the unchanged board is
    asked: a pass, or the same position photographed again."""
    api.photo(photo(1), reading(CAT))
    head = api.game()["head"]
    for n, after in ((2, None), (3, head + 5)):
        turn = api.photo(photo(n), reading(CAT), after=after).json()
        assert turn["status"] == "needs_review" and turn["move"]["kind"] == "pass", turn
        assert api.post("/review/reject").json()["head"] == head
    _error(api.photo(photo(4), reading(CAT), after=-1), 422, "validation")


def test_undo_a_photo_turn_then_the_same_photo_counts_again(api: Api) -> None:
    first = api.photo(photo(1), reading(CAT)).json()
    assert api.post("/undo").json()["board"][7] == "." * 15
    again = api.photo(photo(1)).json()
    assert again["status"] == "committed" and again["turn_id"] != first["turn_id"]
    assert len(api.game()["moves"]) == 1


@pytest.mark.parametrize(
    ("valid", "kinds", "totals"),
    [
        (False, ["play", "withdrawn"], {"Ann": 0, "Bob": 0}),
        (True, ["play", "challenge_penalty"], {"Ann": 10, "Bob": 0}),
        (None, ["play", "challenge_penalty"], {"Ann": 10, "Bob": 0}),
    ],
)
def test_challenge(api: Api, valid: bool | None, kinds: list[str], totals: dict) -> None:
    _error(api.post("/challenge", json={"challenger": "Bob", "valid": valid}), 422, "not_allowed")
    api.photo(photo(1), reading(CAT))
    _error(api.post("/challenge", json={"challenger": "Zed", "valid": valid}), 422, "not_allowed")
    game = api.post("/challenge", json={"challenger": "Bob", "valid": valid}).json()
    assert [m["kind"] for m in game["moves"]] == kinds
    assert game["totals"] == totals


def test_challenge_decided_by_the_dictionary(api: Api) -> None:
    api.photo(photo(1), reading({7: ".......TAC....."}))
    api.post("/review/confirm")  # a phony the players confirm they saw played
    game = api.post("/challenge", json={"challenger": "Bob"}).json()
    assert game["moves"][-1]["kind"] == "withdrawn" and game["totals"]["Ann"] == 0


def test_five_point_challenge_with_the_clubs_bonus(client: TestClient, reader: FakeReader) -> None:
    options = {"challenge": "five_point", "challenge_bonus": 10}
    created = client.post(
        "/api/games", json={"variant": "en", "players": ["A", "B"], "options": options}
    ).json()
    api = Api(client, reader, created)
    api.photo(photo(1), reading(CAT))
    game = api.post("/challenge", json={"challenger": "B", "valid": True}).json()
    assert game["moves"][-1]["kind"] == "challenge_bonus" and game["totals"] == {"A": 20, "B": 0}
    # The bonus survives the store: the game read back is the same.
    assert client.get(f"/api/games/{api.id}").json()["totals"] == {"A": 20, "B": 0}


def test_challenge_with_no_dictionary_needs_a_verdict(
    client: TestClient, reader: FakeReader
) -> None:
    created = client.post(
        "/api/games", json={"variant": "en", "players": ["A", "B"], "dictionary": False}
    ).json()
    api = Api(client, reader, created)
    api.photo(photo(1), reading(CAT))
    _error(api.post("/challenge", json={"challenger": "B", "valid": None}), 422, "cannot_decide")


def test_end_of_game(api: Api) -> None:
    api.photo(photo(1), reading(CAT))
    _error(api.post("/end", json={"racks": {"Zed": "A"}}), 422, "not_allowed")
    game = api.post("/end", json={"racks": {"Ann": "Q", "Bob": "AE"}}).json()
    assert game["finished"] and game["turn"] is None and game["winners"] == ["Ann"]
    assert game["totals"] == {"Ann": 0, "Bob": -2}
    _error(api.photo(photo(2), reading(CATS)), 409, "game_finished")
    _error(api.post("/pass"), 409, "game_finished")
    listed = api.client.get("/api/games").json()["games"]
    assert listed[0]["finished"] and listed[0]["totals"] == {"Ann": 0, "Bob": -2}


def test_exports(api: Api) -> None:
    api.photo(photo(1), reading(CAT))
    api.post("/pass")
    gcg = api.client.get(f"/api/games/{api.id}/gcg")
    assert gcg.headers["content-type"] == "text/plain; charset=utf-8"
    assert ">Ann: CAT 8H CAT +10 10" in gcg.text.replace("  ", " ") or "8H CAT +10 10" in gcg.text
    csv = api.client.get(f"/api/games/{api.id}/csv")
    assert csv.headers["content-type"].startswith("text/csv")
    assert csv.text.splitlines()[0].startswith("line,player,kind")
    assert "CAT" in csv.text and len(csv.text.splitlines()) == 3
    html = api.client.get(f"/api/games/{api.id}/sheet.html")
    assert html.headers["content-type"].startswith("text/html") and "Ann" in html.text
    _error(api.client.get("/api/games/nope/gcg"), 404, "not_found")


# --- concurrency and restart -----------------------------------------------------------------


def _race(api: Api, photos: list[bytes]) -> list[httpx.Response]:
    """Post `photos` from one thread each, all at once."""
    responses: list[httpx.Response] = []
    threads = [threading.Thread(target=lambda p=p: responses.append(api.photo(p))) for p in photos]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return responses


def _new_api(client: TestClient, reader: FakeReader) -> Api:
    created = client.post(
        "/api/games", json={"variant": "en", "players": ["Ann", "Bob"], "word_list": EN_WORDS}
    ).json()
    return Api(client, reader, created)


def test_two_clients_post_one_photo_at_once(client: TestClient, reader: FakeReader) -> None:
    reader.delay_s = 0.2
    api = _new_api(client, reader)
    responses = _race(api, [reader.add(photo(1), reading(CAT))] * 2)
    assert [r.status_code for r in responses] == [200, 200]
    assert responses[0].json()["turn_id"] == responses[1].json()["turn_id"]
    assert [m["word"] for m in api.game()["moves"]] == ["CAT"]


@pytest.mark.parametrize("attempt", range(3))
def test_two_clients_post_two_photos_at_once(
    client: TestClient, reader: FakeReader, attempt: int
) -> None:
    reader.delay_s = 0.1 + 0.05 * attempt
    api = _new_api(client, reader)
    pair = [reader.add(photo(1), reading(CAT)), reader.add(photo(2), reading(CATS))]
    responses = _race(api, pair)
    assert all(r.status_code in (200, 409) for r in responses), [r.text for r in responses]
    committed = [
        r.json() for r in responses if r.status_code == 200 and r.json()["status"] == "committed"
    ]
    game = api.game()
    # One move per committed photo, none twice; a photo not committed waits for review or got 409.
    assert len(game["moves"]) == len(committed) >= 1
    assert sorted(m["word"] for m in game["moves"]) == sorted(t["move"]["word"] for t in committed)
    assert len({t["turn_id"] for t in committed}) == len(committed)
    assert (game["pending"] is not None) == (
        sum(r.status_code == 200 for r in responses) > len(committed)
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _serve(data_dir: Path, port: int) -> subprocess.Popen:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "scorekeeper.cli",
            "serve",
            "--port",
            str(port),
            "--data-dir",
            str(data_dir),
        ],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=1).raise_for_status()
            return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.kill()
    raise AssertionError("scorekeeper serve did not start")


def test_restart_keeps_every_committed_turn(tmp_path: Path) -> None:
    port = _free_port()
    base = f"http://127.0.0.1:{port}/api/games"
    server = _serve(tmp_path, port)
    try:
        created = httpx.post(base, json={"variant": "ru", "players": ["Аня", "Борис"]}).json()
        auth = {"Authorization": f"Bearer {created['token']}"}
        game_url = f"{base}/{created['id']}"
        httpx.post(f"{game_url}/pass", headers=auth).raise_for_status()
        httpx.post(f"{game_url}/exchange", json={"count": 7}, headers=auth).raise_for_status()
        before = httpx.get(game_url).json()
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait()
    assert (tmp_path / "scorekeeper.db").is_file()
    server = _serve(tmp_path, port)
    try:
        after = httpx.get(game_url).json()
        assert after == before and [m["kind"] for m in after["moves"]] == ["pass", "exchange"]
        httpx.post(f"{game_url}/pass", headers=auth).raise_for_status()
        assert httpx.get(game_url).json()["turn"] == "Борис"
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait()


def test_real_pipeline_reads_a_rendered_photo(tmp_path: Path) -> None:
    """A rendered phone photo through the real vision pipeline and the real overlay, as
    `create_app()` loads them (skipped without the cell model models/cells.onnx)."""
    render = pytest.importorskip("training.render", reason="training.render needs Pillow")
    from server.app import pipeline_reader

    try:
        pipeline_reader()
    except (ImportError, OSError, RuntimeError) as exc:
        pytest.skip(f"the vision pipeline cannot load: {exc}")
    rows = ["." * 15] * 7 + [".......CAT....."] + ["." * 15] * 7
    # A calibrated English board in a moderate pose: a fixed photo, whatever the random styles do.
    pose = render.Pose(quarter_turns=1, angle=5.0, tilt=15.0, tilt_direction=40.0, fill=0.8)
    image, _, _ = render.render_board_photo(
        rows, "en", render.deluxe_style(), seed=4, size=(1600, 1200), pose=pose
    )
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    assert ok
    with TestClient(create_app(data_dir=tmp_path)) as client:
        created = client.post(
            "/api/games", json={"variant": "en", "players": ["Ann", "Bob"], "word_list": EN_WORDS}
        ).json()
        response = Api(client, FakeReader(), created).photo(jpeg.tobytes())
        assert response.status_code == 200, response.text
        turn = response.json()
        # How well the cells are read is vision's to test; here: never a wrong committed move.
        if turn["status"] == "committed":
            move = turn["move"]
            assert (move["position"], move["word"], move["score"]) == ("8H", "CAT", 10)
            assert turn["game"]["board"] == rows
            overlay = client.get(turn["overlay_url"])
            assert overlay.status_code == 200 and overlay.content.startswith(b"\xff\xd8\xff")
            assert overlay.headers["content-type"] == "image/jpeg"
        else:
            assert turn["status"] == "needs_review" and turn["message"]
            assert turn["game"]["pending"]["turn_id"] == turn["turn_id"]
            assert turn["game"]["board"] == ["." * 15] * 15


def test_known_tiles_read_as_empty_photo_after_photo_are_not_asked_about(
    client: TestClient, reader: FakeReader
) -> None:
    created = client.post(
        "/api/games", json={"variant": "en", "players": ["Ann", "Bob"], "word_list": "PLACATE\n"}
    )
    game = Api(client, reader, created.json())
    assert game.photo(photo(900), reading({7: ".PLACATE......."})).json()["status"] == "committed"
    # Two tiles of a pale edition read as empty: misreads, the board unchanged (a pass, which
    # the players confirm).
    second = game.photo(photo(901), reading({7: ".PL.C.TE......."}))
    assert second.json()["status"] == "needs_review", second.text
    assert {m["square"] for m in second.json()["misreads"]} == {"D8", "F8"}
    assert game.post("/review/confirm").json()["status"] == "committed"
    # The same two and one more: three tiles gone at once would ask "a hand or glare?", but two
    # of them are this board's look by now.
    third = game.photo(photo(902), reading({7: ".PL.C..E......."})).json()
    assert third["message"].startswith("the board is as the last turn left it"), third
    assert not third["uncertain"]
    assert game.post("/review/confirm").json()["status"] == "committed"
    assert game.game()["board"][7] == ".PLACATE......."


def test_known_tiles_said_to_be_there_ask_the_ends_of_the_words_and_confirm_a_pass(
    client: TestClient, reader: FakeReader
) -> None:
    """Known tiles a photo read as gone (a hand or glare?) that the players say are there: the
    photo misses tiles there, so the squares just past the play's words, read as empty, are
    asked before it is recorded (TAT, its first T missed, would be recorded as AT)."""
    words = "PLACATE\nENTER\nPREEN\nTAT\nAT\n"
    created = client.post(
        "/api/games", json={"variant": "en", "players": ["Ann", "Bob"], "word_list": words}
    )
    game = Api(client, reader, created.json())
    for position, word in (("8B", "PLACATE"), ("H8", "ENTER"), ("B8", "PREEN")):
        assert game.post("/moves", json={"position": position, "word": word}).status_code == 200
    rows = dict(enumerate(game.game()["board"]))
    rows[6], rows[7] = "......A........", ".P....TE......."  # L A C A gone, G6's T missed
    asked = game.photo(photo(930), reading(rows)).json()
    assert asked["message"].startswith("known tiles look gone"), asked
    truth = {"C8": "L", "D8": "A", "E8": "C", "F8": "A", "G6": "T", "G5": ".", "G9": "."}
    answers = {c["square"]: truth[c["square"]] for c in asked["uncertain"]}
    ends = game.post("/review/correct", json={"cells": answers}).json()
    assert ends["status"] == "needs_review", ends
    assert [(c["square"], c["candidates"]) for c in ends["uncertain"]] == [
        ("G6", ["."]),
        ("G9", ["."]),
    ]
    answers = {c["square"]: truth[c["square"]] for c in ends["uncertain"]}
    longer = game.post("/review/correct", json={"cells": answers}).json()
    assert [c["square"] for c in longer["uncertain"]] == ["G5"] and longer["move"]["word"] == "TAT"
    done = game.post("/review/correct", json={"cells": {"G5": "."}}).json()
    assert done["status"] == "committed", done
    assert (done["move"]["word"], done["move"]["score"]) == ("TAT", 4)
    # Ann's photo misses N T E of ENTER and shows nothing new: a pass, but confirmed.
    rows = dict(enumerate(game.game()["board"]))
    for row in (8, 9, 10):
        rows[row] = rows[row][:7] + "." + rows[row][8:]
    asked = game.photo(photo(931), reading(rows)).json()
    assert asked["message"].startswith("known tiles look gone"), asked
    truth = {"H9": "N", "H10": "T", "H11": "E"}
    answers = {c["square"]: truth.get(c["square"], ".") for c in asked["uncertain"]}
    nothing = game.post("/review/correct", json={"cells": answers}).json()
    assert nothing["status"] == "needs_review" and nothing["move"]["kind"] == "pass", nothing
    assert nothing["message"].startswith("the photo read known tiles as gone")
    assert game.post("/review/confirm").json()["status"] == "committed"


def test_known_tiles_the_players_named_are_not_asked_about_again(
    client: TestClient, reader: FakeReader
) -> None:
    """Known tiles that look gone (a hand or glare?) and that the players answered with their
    letters stay on the board in the game's later photos, however they look there: the same
    question is not asked again."""
    words = "PLACATE\nPLACATES\n"
    created = client.post(
        "/api/games", json={"variant": "en", "players": ["Ann", "Bob"], "word_list": words}
    )
    game = Api(client, reader, created.json())
    game.photo(photo(910), reading({7: ".PLACATE......."}))
    game.photo(photo(911), reading({7: ".PLACATES......"}))
    gone = {7: ".P...ATES......"}
    asked = game.photo(photo(912), reading(gone)).json()
    assert asked["message"].startswith("known tiles look gone"), asked
    assert {c["square"] for c in asked["uncertain"]} == {"C8", "D8", "E8"}
    answered = game.post("/review/correct", json={"cells": {"C8": "L", "D8": "A", "E8": "C"}})
    assert answered.json()["move"]["kind"] == "pass", answered.text
    if answered.json()["status"] == "needs_review":
        answered = game.post("/review/confirm")
    assert answered.json()["status"] == "committed"
    # Bob's photo: the same three tiles look gone again; they are misreads, the board unchanged.
    again = game.photo(photo(913), reading(gone)).json()
    assert not again["message"].startswith("known tiles look gone"), again
    assert again["move"]["kind"] == "pass" and not again["uncertain"]
    assert {m["square"] for m in again["misreads"]} == {"C8", "D8", "E8"}


def test_a_play_whose_tile_the_players_named_may_still_be_withdrawn(
    client: TestClient, reader: FakeReader
) -> None:
    """The last play's tiles are not kept by the players' answers: a challenge may take them off."""
    words = "PLACATE\nPLACATES\n"
    created = client.post(
        "/api/games", json={"variant": "en", "players": ["Ann", "Bob"], "word_list": words}
    )
    game = Api(client, reader, created.json())
    game.photo(photo(920), reading({7: ".PLACATE......."}))
    doubt = reading({7: ".PLACATES......"}, {"I8": [("S", 0.5), (".", 0.45)]})
    asked = game.photo(photo(921), doubt).json()
    assert [c["square"] for c in asked["uncertain"]] == ["I8"], asked
    answered = game.post("/review/correct", json={"cells": {"I8": "S"}}).json()
    assert answered["status"] == "committed" and answered["move"]["word"] == "PLACATES"
    taken = game.photo(photo(922), reading({7: ".PLACATE......."})).json()
    assert taken["status"] == "committed" and taken["move"]["kind"] == "withdrawn", taken
