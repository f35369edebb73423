"""Squares that look as they did in the game's previous photo (`vision.unchanged`, and
`vision.answers.unchanged_vacancies` in a game): a square in doubt between no tile and a blank
that has not changed since a photo that showed it vacant is read empty; a blank laid there
since is not."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from test_answers import LAYOUT, PLAIN, PREMIUM, TILE, LookedReading, looked
from test_api import Api
from test_storage import CAT, EN_WORDS, photo, reading

from scorekeeper.cli import main
from scorer.board import Board
from vision.answers import unchanged_vacancies
from vision.unchanged import unchanged_since

KINDS = [code for line in LAYOUT for code in line]
# A plain blank tile: a tile's colours, no ink.
BLANK_LOOK = [*TILE[:6], 4.0]


# Three tiles on the board in both photos (A8-C8), which show the tiles' look.
TILES = np.isin(np.arange(225), [105, 106, 107])


def board_looks(
    seed: int, light: float = 0.0, tint: float = 0.0, tiles: np.ndarray = TILES
) -> np.ndarray:
    """[225, 7] looks of a board photographed once, with `tiles` (a mask): each square its kind's
    look (or a tile's) with the photo's noise, every lightness `light` brighter and every colour
    `tint` yellower."""
    rng = np.random.default_rng(seed)
    base = np.array([PLAIN if kind == "." else PREMIUM for kind in KINDS], dtype=np.float64)
    base[tiles] = TILE
    noise = rng.normal(0.0, [4.0, 1.0, 1.0, 4.0, 1.0, 1.0, 1.0], base.shape)
    return base + noise + [light, 0, tint, light, 0, tint, 0]


def test_a_square_that_changed_like_the_vacant_squares_is_unchanged() -> None:
    before, now = board_looks(1), board_looks(2, light=30.0, tint=5.0)
    vacant = ~TILES
    targets = np.zeros(225, bool)
    targets[[110, 111]] = True
    # The other photo's light and white balance move every square alike: both unchanged
    # but for them (the other squares also by the photos' noise).
    now[[110, 111]] = before[[110, 111]] + [30.0, 0, 5.0, 30.0, 0, 5.0, 0]
    assert unchanged_since(now, before, KINDS, vacant, TILES, targets)[[110, 111]].all()
    # A blank laid on 111 since: its look is a tile's now.
    now[111] = BLANK_LOOK
    vacant[111] = False
    found = unchanged_since(now, before, KINDS, vacant, TILES, targets)
    assert found[110] and not found[111]
    assert found.sum() == 1  # only targets are found


def test_a_square_changed_more_than_most_vacant_squares_is_not_unchanged() -> None:
    before = board_looks(3)
    now = before + np.random.default_rng(4).normal(0.0, 1.0, before.shape)
    vacant = ~TILES
    targets = np.zeros(225, bool)
    targets[[100, 101]] = True
    # 100's middle yellower by ten times the squares' typical change: few vacant squares
    # changed as much (none here), far fewer than the share `UNCHANGED`.
    now[100, 2] += 10.0
    found = unchanged_since(now, before, KINDS, vacant, TILES, targets)
    assert not found[100] and found[101]


def test_nothing_is_unchanged_without_enough_vacant_squares() -> None:
    before, now = board_looks(5), board_looks(6)
    targets = np.zeros(225, bool)
    targets[[0, 110, 112]] = True
    now[[0, 110, 112]] = before[[0, 110, 112]]
    vacant = np.zeros(225, bool)
    vacant[100:119] = True
    assert not unchanged_since(now, before, KINDS, vacant, TILES, targets).any()
    # Nor a square of a kind with fewer than three vacant squares to weigh its look against:
    # the centre, a kind of its own, nor A1 with one other triple-word square vacant.
    vacant[:] = ~TILES
    vacant[[i for i, kind in enumerate(KINDS) if kind == "=" and i not in (0, 7)]] = False
    assert unchanged_since(now, before, KINDS, vacant, TILES, targets).tolist().count(True) == 1
    assert unchanged_since(now, before, KINDS, vacant, TILES, targets)[110]


def test_nothing_is_unchanged_where_the_tiles_look_like_the_squares() -> None:
    # A light that makes the plain squares look as the tiles do: neither photo tells a tile
    # laid since from no change, so even an unchanged square is not taken for vacant.
    before, now = board_looks(15), board_looks(16)
    now[TILES] = now[110] + [1.0, 0, 0, 1.0, 0, 0, 20.0]
    targets = np.zeros(225, bool)
    targets[110] = True
    assert not unchanged_since(now, before, KINDS, ~TILES, TILES, targets).any()
    # Nor without three tiles to tell the tiles' look.
    now = board_looks(16)
    assert unchanged_since(now, before, KINDS, ~TILES, TILES, targets)[110]
    few = TILES & (np.arange(225) < 107)
    assert not unchanged_since(now, before, KINDS, ~TILES, few, targets).any()


# The reading of `TILES`.
ON_A8 = {7: "CAT............"}


def _with_looks(reading: LookedReading, looks: np.ndarray) -> LookedReading:
    return dataclasses.replace(reading, looks=looks.reshape(15, 15, -1).tolist())


def test_a_doubt_between_no_tile_and_a_blank_unchanged_since_is_read_empty() -> None:
    before = board_looks(7)
    doubts = {
        "A1": [("empty", 0.7), ("blank", 0.3)],  # no tile or a blank: settled
        "B1": [("blank", 0.6), ("empty", 0.4)],  # the same, a blank first
        "C1": [("blank", 0.97), ("empty", 0.03)],  # a blank the tracker takes as read
        "D1": [("empty", 0.6), ("Z", 0.3), ("blank", 0.1)],  # a letter among its candidates
    }
    now = board_looks(8, light=-20.0)
    now[:4] = before[:4] + [-20.0, 0, 0, -20.0, 0, 0, 0]
    later = unchanged_vacancies(
        _with_looks(looked(ON_A8, doubts), now), before.tolist(), Board.empty(), LAYOUT
    )
    assert [later.classes[0][c] for c in range(4)] == ["empty", "empty", "blank", "empty"]
    assert later.confidence[0][0] >= 0.99 and later.confidence[0][1] >= 0.99
    assert later.confidence[0][3] == 0.6  # left as read
    # Without the earlier photo's looks, or with another board's, nothing changes.
    assert unchanged_vacancies(later, before[:100].tolist(), Board.empty(), LAYOUT) is later


def test_a_blank_laid_since_the_previous_photo_stays_in_doubt() -> None:
    before = board_looks(9)
    now = board_looks(10)
    now[1] = BLANK_LOOK  # B1
    doubts = {"B1": [("empty", 0.6), ("blank", 0.4)]}
    later = unchanged_vacancies(
        _with_looks(looked(ON_A8, doubts), now), before.tolist(), Board.empty(), LAYOUT
    )
    assert later.classes[0][1] == "empty" and later.confidence[0][1] == 0.6


# After CAT, AT is laid down from its A: a T on I9. I7, above the A, reads no tile or a blank:
# with a blank there (a C), CAT down would be as legal as AT. Its square looks like a plain blank
# tile in this photo (a patch of the print of a tile's colour, say), so the photo alone cannot
# tell (`vision.answers.with_vacancies` leaves it in doubt).
AT = {**CAT, 8: "........T......"}
I7 = 6 * 15 + 8
I7_DOUBT = {"I7": [("empty", 0.7), ("blank", 0.3)]}


def _photo_looks(rows: dict[int, str], seed: int, light: float = 0.0) -> np.ndarray:
    looks = board_looks(seed, light, tiles=np.zeros(225, bool))
    for r, line in rows.items():
        for c, char in enumerate(line):
            if char != ".":
                looks[r * 15 + c] = TILE
    return looks


def _first_move(en_game: Api, seed: int, i7: list[float]) -> np.ndarray:
    """CAT's photo, committed, with I7 looking `i7`; returns its looks."""
    looks = _photo_looks(CAT, seed)
    looks[I7] = i7
    first = en_game.photo(photo(1), _with_looks(looked(CAT), looks)).json()
    assert first["status"] == "committed" and first["move"]["word"] == "CAT"
    return looks


def test_the_service_reads_a_square_unchanged_since_the_last_photo_as_no_tile(en_game: Api) -> None:
    before = _first_move(en_game, 11, BLANK_LOOK)
    looks = _photo_looks(AT, 12, light=25.0)
    looks[I7] = before[I7] + [25.0, 0, 0, 25.0, 0, 0, 0]
    second = en_game.photo(photo(2), _with_looks(looked(AT, I7_DOUBT), looks)).json()
    assert second["status"] == "committed", second
    assert second["move"]["word"] == "AT" and not second["uncertain"]


@pytest.mark.parametrize("first_look", [PLAIN, None])
def test_the_service_asks_about_a_square_changed_or_unseen_since(en_game: Api, first_look) -> None:
    # I7 showed its plain square in the last photo, and a blank's face now: a blank laid since,
    # maybe. Or the last photo's looks are unknown (a game kept before they were): asked.
    if first_look is None:
        assert en_game.photo(photo(1), reading(CAT)).json()["status"] == "committed"
    else:
        _first_move(en_game, 13, first_look)
    looks = _photo_looks(AT, 14)
    looks[I7] = BLANK_LOOK
    asked = en_game.photo(photo(2), _with_looks(looked(AT, I7_DOUBT), looks)).json()
    assert asked["status"] == "needs_review", asked
    assert [cell["square"] for cell in asked["uncertain"]] == ["I7"]


@pytest.mark.parametrize("unchanged", [True, False])
def test_the_replay_reads_a_square_unchanged_since_the_last_photo_as_no_tile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys, unchanged: bool
) -> None:
    # `scorekeeper replay` cannot ask: where I7 looks as in CAT's photo it goes on to AT; where
    # it shows a blank's face now, it stops on I7.
    before = _photo_looks(CAT, 11)
    before[I7] = BLANK_LOOK
    looks = _photo_looks(AT, 12, light=25.0)
    looks[I7] = before[I7] + [25.0, 0, 0, 25.0, 0, 0, 0] if unchanged else BLANK_LOOK
    readings = {
        b"cat": _with_looks(looked(CAT), before),
        b"at": _with_looks(looked(AT, I7_DOUBT), looks),
    }
    monkeypatch.setattr(
        "vision.pipeline.read_game_photo", lambda data, *args, **kwargs: readings[data]
    )
    monkeypatch.setattr("vision.classify.CellClassifier", lambda: None)
    paths = []
    for name, data in (("1.jpg", b"cat"), ("2.jpg", b"at")):
        (tmp_path / name).write_bytes(data)
        paths.append(str(tmp_path / name))
    (tmp_path / "words.txt").write_text(EN_WORDS)
    args = ["replay", "--variant", "en", "--players", "A,B", "--json"]
    code = main([*args, "--lexicon", str(tmp_path / "words.txt"), *paths])
    out, err = capsys.readouterr()
    words = [move["word"] for move in json.loads(out)["moves"]]
    if unchanged:
        assert code == 0 and words == ["CAT", "AT"], err
    else:
        assert code == 1 and words == ["CAT"] and "I7" in err
