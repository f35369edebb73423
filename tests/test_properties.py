"""Property tests for move finding: random legal plays on random legal boards are found back and
scored as `score_play` scores them, transposing changes no score, and old tiles never move.

Plays are generated geometrically (a line through an anchor square, letters at random): the
letters need not make words, which is the dictionary's business, not this module's.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import Board, Tile, Variant, load_variant, variant_names
from scorer.board import UNKNOWN_BLANK, Square
from scorer.errors import IllegalPlay, PlayErrorCode
from scorer.move import ChangeKind, classify_change, find_play, same_tile
from scorer.scoring import Placement, score_play

VARIANTS = ["en", "ru", "erudit"]
SETTINGS = settings(derandomize=True, max_examples=60, deadline=None)
NEIGHBOURS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def tiles(variant: Variant) -> st.SearchStrategy[Tile]:
    """Mostly plain letters, sometimes a blank standing for a letter or one not yet known."""
    letters = st.sampled_from(variant.alphabet)
    return st.one_of(
        letters.map(Tile),
        letters.map(Tile),
        letters.map(Tile),
        letters.map(lambda letter: Tile(letter, True)),
        st.just(Tile(UNKNOWN_BLANK, True)),
    )


def _walk(board: Board, start: Square, step: Square, count: int) -> list[Square]:
    """Up to `count` empty squares from `start` (excluded) along `step`, skipping old tiles."""
    found: list[Square] = []
    row, col = start
    while len(found) < count:
        row, col = row + step[0], col + step[1]
        if not board.in_bounds(row, col):
            break
        if board[row, col] is None:
            found.append((row, col))
    return found


@st.composite
def plays(draw: st.DrawFn, board: Board, variant: Variant) -> tuple[Placement, ...]:
    """A legal play on `board`: new tiles on one line through an anchor square, with no gap but
    old tiles; the anchor is the centre on the first play, else an empty square touching a tile."""
    if board.is_empty():
        anchor, least = variant.layout.centre, variant.first_move_min_tiles
    else:
        anchors = sorted(
            (r, c)
            for r in range(board.height)
            for c in range(board.width)
            if board[r, c] is None and any(board.get(r + dr, c + dc) for dr, dc in NEIGHBOURS)
        )
        anchor, least = draw(st.sampled_from(anchors)), 1
    dr, dc = draw(st.sampled_from([(0, 1), (1, 0)]))
    total = draw(st.integers(least, variant.rack_size))
    ahead = draw(st.integers(0, total - 1))
    squares = (
        _walk(board, anchor, (-dr, -dc), total - 1 - ahead)
        + [anchor]
        + _walk(board, anchor, (dr, dc), ahead)
    )
    return tuple(Placement(r, c, draw(tiles(variant))) for r, c in sorted(squares))


def apply(board: Board, placements: tuple[Placement, ...]) -> Board:
    return board.place({p.square: p.tile for p in placements})


@st.composite
def positions(
    draw: st.DrawFn, variant: Variant, least_plays: int = 0
) -> tuple[Board, tuple[Placement, ...]]:
    """A board built by a few random legal plays, and one more legal play to put on it."""
    layout = variant.layout
    board = Board.empty(layout.width, layout.height)
    for _ in range(draw(st.integers(least_plays, 6))):
        board = apply(board, draw(plays(board, variant)))
    return board, draw(plays(board, variant))


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(data=st.data())
def test_a_legal_play_is_found_back_and_scored_alike(name: str, data: st.DataObject) -> None:
    variant = load_variant(name)
    before, placements = data.draw(positions(variant))
    after = apply(before, placements)
    found = find_play(before, after, variant)
    assert found.placements == placements
    assert found == score_play(before, placements, variant)
    change = classify_change(before, after, variant)
    assert (change.kind, change.play, change.board) == (ChangeKind.PLAY, found, after)
    undone = classify_change(after, before, variant, last_play=found)
    assert (undone.kind, undone.board) == (ChangeKind.WITHDRAWN, before)


@pytest.mark.parametrize("name", variant_names())
def test_layouts_are_symmetric_under_transposition(name: str) -> None:
    rows = load_variant(name).layout.rows
    assert rows == tuple("".join(column) for column in zip(*rows, strict=True))


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(data=st.data())
def test_scoring_is_invariant_under_transposition(name: str, data: st.DataObject) -> None:
    variant = load_variant(name)
    before, placements = data.draw(positions(variant))
    after = apply(before, placements)
    found = find_play(before, after, variant)
    mirrored = find_play(before.transposed(), after.transposed(), variant)
    assert mirrored.score == found.score
    assert sorted((w.word, w.score) for w in mirrored.words) == sorted(
        (w.word, w.score) for w in found.words
    )
    assert sorted((p.col, p.row) for p in found.placements) == [
        p.square for p in mirrored.placements
    ]
    if len(placements) > 1:
        assert mirrored.across != found.across


@pytest.mark.parametrize("name", VARIANTS)
@SETTINGS
@given(data=st.data())
def test_old_tiles_never_move(name: str, data: st.DataObject) -> None:
    variant = load_variant(name)
    before, placements = data.draw(positions(variant, least_plays=1))
    after = apply(before, placements)
    old = sorted(square for square, _ in before.tiles())
    touched = data.draw(st.lists(st.sampled_from(old), min_size=1, max_size=3, unique=True))
    changes: dict[Square, Tile | None] = {}
    for square in touched:
        tile = before[square]
        assert tile is not None
        others = [
            Tile(letter, blank)
            for letter in variant.alphabet
            for blank in (False, True)
            if not same_tile(tile, Tile(letter, blank))
        ]
        changes[square] = data.draw(st.sampled_from([None, *others]))
    with pytest.raises(IllegalPlay) as info:
        find_play(before, after.place(changes), variant)
    assert info.value.code in (PlayErrorCode.TILE_REMOVED, PlayErrorCode.TILE_CHANGED)
    assert set(info.value.squares) <= set(touched)
