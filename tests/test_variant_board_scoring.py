"""Variants load as data; the board text format round-trips; scoring follows RULES.md §4."""

from __future__ import annotations

import pytest

from scorer import Board, BoardTextError, Tile, VariantError, load_variant, variant_names
from scorer.scoring import Placement, score_play


@pytest.mark.parametrize(
    ("name", "total", "blanks"),
    [("en", 100, 2), ("ru", 104, 2), ("erudit", 131, 3), ("uk", 104, 2)],
)
def test_tile_totals(name: str, total: int, blanks: int) -> None:
    v = load_variant(name)
    assert v.tile_total == total
    assert v.blank_count == blanks


def test_erudit_layout_plain_centre_and_eight_triple_letters() -> None:
    v = load_variant("erudit")
    assert v.layout.premium(7, 7).word == 1
    triple_letters = sum(v.layout.premium(r, c).letter == 3 for r in range(15) for c in range(15))
    assert triple_letters == 8
    assert load_variant("ru").layout.premium(7, 7).word == 2
    assert (
        sum(
            load_variant("ru").layout.premium(r, c).letter == 3
            for r in range(15)
            for c in range(15)
        )
        == 12
    )


def test_layout_is_chosen_independently_of_tile_set() -> None:
    v = load_variant("erudit").with_layout("scrabble")
    assert v.bingo_bonus == 15 and v.layout.premium(5, 5).letter == 3


def test_unknown_variant_is_a_clear_error() -> None:
    with pytest.raises(VariantError, match="unknown variant 'xx'"):
        load_variant("xx")
    assert {"en", "ru", "erudit", "uk"} <= set(variant_names())


def test_board_text_round_trip_with_blanks_and_yo() -> None:
    text = "\n".join(["." * 15] * 7 + [".......Ёжик?..."] + ["." * 15] * 7)
    board = Board.from_text(text)
    assert board.to_text() == text
    assert board[7, 7] == Tile("Ё")
    assert board[7, 8] == Tile("Ж", is_blank=True)
    assert board[7, 11] == Tile("?", is_blank=True)


def test_malformed_board_text_names_the_line() -> None:
    rows = ["." * 15] * 15
    rows[3] = "." * 14
    with pytest.raises(BoardTextError, match="line 4"):
        Board.from_text("\n".join(rows))
    rows[3] = "." * 14 + "#"
    with pytest.raises(BoardTextError, match="line 4, column 15"):
        Board.from_text("\n".join(rows))


def _across(row: int, col: int, word: str) -> list[Placement]:
    return [Placement(row, col + i, Tile.from_char(ch)) for i, ch in enumerate(word)]


def test_slovo_on_centre_doubles() -> None:
    play = score_play(Board.empty(), _across(7, 5, "СЛОВО"), load_variant("ru"))
    assert play.score == (1 + 2 + 1 + 1 + 1) * 2
    assert play.words[0].premiums == ("H8 2W",)


def test_erudit_centre_is_plain_and_seven_tiles_earn_15() -> None:
    v = load_variant("erudit")
    play = score_play(Board.empty(), _across(7, 4, "АБВГДЕЖ"), v)
    letters = 1 + 3 + 2 + 3 + 2 + 1 + 5
    # H8 plain; no premium on row 8 between E and K except the letter ×2 at D8/L8 (not covered).
    assert play.bingo_bonus == 15
    assert play.score == letters + 15


def test_star_scores_zero_or_letter_value_by_option() -> None:
    v = load_variant("erudit")
    tiles = [Placement(7, 7, Tile("Ф", is_blank=True)), Placement(7, 8, Tile("А"))]
    assert score_play(Board.empty(), tiles, v).score == 1
    assert score_play(Board.empty(), tiles, v.with_options(blank_scores_letter=True)).score == 11


def test_premium_counts_in_both_words_and_only_under_new_tiles() -> None:
    v = load_variant("en")
    board = Board.empty().place({(7, 7 + i): Tile(ch) for i, ch in enumerate("CAT")})
    play = score_play(board, [Placement(6, 8, Tile("A")), Placement(6, 9, Tile("X"))], v)
    words = {w.word: w.score for w in play.words}
    # AX on row 7 with I7 a letter ×2 square; it crosses CAT's A (AA) and T (XT).
    assert words == {"AX": 2 + 8, "AA": 2 + 1, "XT": 8 + 1}
    assert play.score == 22
    # H8's ×2 was used by CAT already and never counts again.
    assert all("H8" not in p for w in play.words for p in w.premiums)


def test_nine_tile_racks_bonus_for_seven_eight_nine() -> None:
    v = load_variant("ru").with_options(nine_tile_racks=True)
    assert v.rack_size == 9 and v.bingo_sizes == frozenset({7, 8, 9}) and v.bingo_bonus == 50
    play = score_play(Board.empty(), _across(7, 3, "АААААААА"), v)
    assert play.bingo_bonus == 50
