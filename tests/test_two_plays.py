"""A board holding two plays (a turn missed: a photo not taken, a table camera that could not see
a play) is never recorded as one turn, nor a play for the player whose turn it was not
(`scorer.turns.two_plays_offered`): the two plays are offered in turn order, each scored for its
own player, when the hands tell their order, and asked about otherwise; through the service, a
photo of such a board records nothing until the players confirm both."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
from fastapi.testclient import TestClient

from scorer.board import Board
from scorer.dictionary import WordListDictionary
from scorer.game import Game, Play
from scorer.tracking import TurnStatus, certain_reading
from scorer.turns import (
    TWO_PLAYS_ORDER,
    turn_from_move,
    turn_from_reading,
    two_plays_offered,
)
from scorer.variant import load_variant
from server.app import create_app

EN = load_variant("en")
CAB = {(8, 6), (9, 6)}  # Bob's CAB down from CAT's C
TO = {(8, 8)}  # Ann's TO down from CAT's T


def _game() -> Game:
    """Ann's CAT at 8G; Bob to play."""
    game = Game(EN, ("Ann", "Bob"))
    return game.apply(turn_from_move(game, "8G", "CAT", None).event)


def _two_plays(game: Game) -> Board:
    """The board after Bob's CAB (G8 down) and Ann's TO (I8 down), both unrecorded."""
    after = turn_from_move(game, "G8", "CAB", None).event
    game = game.apply(after)
    return game.apply(turn_from_move(game, "I8", "TO", None).event).state.board


def _words(tmp_path: Path, *words: str) -> WordListDictionary:
    listed = tmp_path / "words.txt"
    listed.write_text("\n".join(words) + "\n", encoding="utf-8")
    return WordListDictionary(listed)


def test_two_plays_the_hands_tell_apart_are_offered_each_for_its_player(tmp_path: Path) -> None:
    game = _game()
    seen = turn_from_reading(game, certain_reading(_two_plays(game)), None)
    assert seen.result.status is TurnStatus.NEEDS_REVIEW and seen.event is None
    words = _words(tmp_path, "CAT", "CAB", "TO")
    offered = two_plays_offered(game, seen, frozenset(CAB), frozenset(TO), words)
    assert offered.event is None and offered.result.status is TurnStatus.NEEDS_REVIEW
    assert "two plays" in offered.result.message
    one, two = offered.proposed
    assert isinstance(one, Play) and isinstance(two, Play)
    cab = turn_from_move(game, "G8", "CAB", None).event
    to = turn_from_move(game.apply(cab), "I8", "TO", None).event
    assert (one, two) == (cab, to)  # each scored as played, by its own player
    assert (one.player, one.play.word, two.player, two.play.word) == (1, "CAB", 0, "TO")
    assert offered.result.uncertain == ()  # asked only because they made no one play
    assert game.apply_all(offered.proposed).state.board == _two_plays(game)
    # Without words to check them by, the squares are still asked (a label read as a tile?).
    unchecked = two_plays_offered(game, seen, frozenset(CAB), frozenset(TO))
    assert unchecked.proposed == offered.proposed
    asked = [c.square for c in seen.result.uncertain]
    assert asked and [c.square for c in unchecked.result.uncertain] == asked


def test_a_split_with_a_word_the_dictionary_lacks_is_no_second_play(tmp_path: Path) -> None:
    """A printed label read as a sure tile beside a first play is no second play."""
    game = _game()
    seen = turn_from_reading(game, certain_reading(_two_plays(game)), None)
    words = _words(tmp_path, "CAT", "CAB")  # no TO
    assert two_plays_offered(game, seen, frozenset(CAB), frozenset(TO), words) is seen


def test_the_other_order_is_still_each_play_for_the_player_whose_turn_it_was() -> None:
    """Hands seen the other way round: Bob (to play) laid TO, then Ann CAB: each play is
    scored for the player whose turn it was, never a play for the wrong one."""
    game = _game()
    seen = turn_from_reading(game, certain_reading(_two_plays(game)), None)
    offered = two_plays_offered(game, seen, earlier=frozenset(TO), later=frozenset(CAB))
    one, two = offered.proposed
    assert (one.player, one.play.word, two.player, two.play.word) == (1, "TO", 0, "CAB")


def test_two_plays_in_no_order_the_hands_tell_are_asked_and_record_nothing() -> None:
    game = _game()
    seen = turn_from_reading(game, certain_reading(_two_plays(game)), None)
    asked = two_plays_offered(game, seen)
    assert asked.proposed == () and asked.event is None
    assert asked.result.status is TurnStatus.NEEDS_REVIEW
    assert asked.result.message.startswith(TWO_PLAYS_ORDER.split("{")[0])
    assert "CAB" in asked.result.message and "TO" in asked.result.message


def test_one_play_and_reviews_of_one_play_are_left_as_they_are() -> None:
    game = _game()
    board = game.apply(turn_from_move(game, "G8", "CAB", None).event).state.board
    one = turn_from_reading(game, certain_reading(board), None)
    assert two_plays_offered(game, one, frozenset(CAB)) is one
    # Tiles that are no play at all, nor two: a review as it was.
    stray = game.state.board.place({(0, 0): board.get(8, 6), (14, 14): board.get(9, 6)})
    review = turn_from_reading(game, certain_reading(stray), None)
    assert two_plays_offered(game, review, frozenset({(0, 0)})) is review


def _photo() -> bytes:
    ok, data = cv2.imencode(".jpg", np.full((480, 640, 3), 128, np.uint8))
    assert ok
    return data.tobytes()


def test_a_photo_of_two_plays_records_neither_until_both_are_confirmed(tmp_path: Path) -> None:
    """A photo after a turn nobody photographed: the review says two plays were made and
    records neither (nothing to confirm); the players reject it and type them."""
    game = _game()
    shown = {"board": _two_plays(game)}
    app = create_app(
        data_dir=tmp_path,
        reader=lambda data, variant, corners: certain_reading(shown["board"]),
        overlay=lambda data, reading: b"",
    )
    with TestClient(app) as client:
        body = client.post("/api/games", json={"variant": "en", "players": ["Ann", "Bob"]}).json()
        game_id, auth = body["id"], {"Authorization": f"Bearer {body['token']}"}
        typed = client.post(
            f"/api/games/{game_id}/moves", headers=auth, json={"position": "8G", "word": "CAT"}
        )
        assert typed.status_code == 200
        turn = client.post(
            f"/api/games/{game_id}/turns", headers=auth, files={"photo": ("p.jpg", _photo())}
        ).json()
        assert turn["status"] == "needs_review" and "two plays" in turn["message"]
        confirm = client.post(f"/api/games/{game_id}/review/confirm", headers=auth)
        assert confirm.status_code == 409
        assert [m["word"] for m in client.get(f"/api/games/{game_id}").json()["moves"]] == ["CAT"]
