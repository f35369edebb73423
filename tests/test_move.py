"""Move finding from two boards: every illegal-play code, first-play rules, blanks, challenges."""

from __future__ import annotations

import doctest

import pytest

import scorer.move
from scorer import Board, Layout, Tile, load_variant
from scorer.errors import IllegalPlay, PlayErrorCode
from scorer.move import ChangeKind, classify_change, find_play, same_tile
from scorer.scoring import Placement

RU = load_variant("ru")
ERUDIT = load_variant("erudit")
EN = load_variant("en")


def put(board: Board, row: int, col: int, word: str, across: bool = True) -> Board:
    """`board` with `word` written from (row, col); `.` leaves a square as it is."""
    dr, dc = (0, 1) if across else (1, 0)
    return board.place(
        {(row + i * dr, col + i * dc): Tile.from_char(ch) for i, ch in enumerate(word) if ch != "."}
    )


SLOVO = put(Board.empty(), 7, 5, "СЛОВО")  # 8F, covers H8


def illegal(before: Board, after: Board, variant=RU) -> IllegalPlay:
    with pytest.raises(IllegalPlay) as info:
        find_play(before, after, variant)
    return info.value


def test_docstring_examples() -> None:
    assert doctest.testmod(scorer.move).failed == 0


@pytest.mark.parametrize(("variant", "score"), [(RU, (1 + 2 + 1 + 1 + 1) * 2), (ERUDIT, 8)])
def test_first_play_slovo(variant, score: int) -> None:
    play = find_play(Board.empty(), SLOVO, variant)
    assert (play.word, play.position, play.across, play.score) == ("СЛОВО", "8F", True, score)
    assert [p.square for p in play.placements] == [(7, c) for c in range(5, 10)]


def test_first_play_yozh_down_and_yo_is_not_an_erudit_letter() -> None:
    after = put(Board.empty(), 6, 7, "ЁЖ", across=False)
    play = find_play(Board.empty(), after, RU)
    assert (play.word, play.position, play.across, play.score) == ("ЁЖ", "H7", False, (3 + 5) * 2)
    error = illegal(Board.empty(), after, ERUDIT)
    assert error.code is PlayErrorCode.UNKNOWN_LETTER
    assert error.squares == ((6, 7),)
    assert "H7" in str(error) and "Ё" in str(error)
    assert find_play(Board.empty(), put(Board.empty(), 6, 7, "ЕЖ", False), ERUDIT).score == 6


@pytest.mark.parametrize("variant", [RU, ERUDIT, EN])
def test_first_play_must_cover_the_centre_even_when_plain(variant) -> None:
    word = "WORD" if variant is EN else "СЛОВО"
    error = illegal(Board.empty(), put(Board.empty(), 0, 0, word), variant)
    assert error.code is PlayErrorCode.FIRST_MOVE_OFF_CENTRE
    assert "H8" in str(error) and "A1" in str(error)


@pytest.mark.parametrize("variant", [RU, ERUDIT])
def test_first_play_of_one_tile_is_too_short(variant) -> None:
    error = illegal(Board.empty(), put(Board.empty(), 7, 7, "Ж"), variant)
    assert error.code is PlayErrorCode.FIRST_MOVE_TOO_SHORT
    assert error.squares == ((7, 7),)
    assert "at least 2" in str(error) and "H8" in str(error)


def test_no_new_tiles() -> None:
    assert illegal(SLOVO, SLOVO).code is PlayErrorCode.NO_TILES
    assert illegal(Board.empty(), Board.empty(), ERUDIT).code is PlayErrorCode.NO_TILES


def test_tiles_in_two_lines() -> None:
    after = SLOVO.place({(6, 5): Tile("А"), (8, 9): Tile("Я")})
    error = illegal(SLOVO, after)
    assert error.code is PlayErrorCode.NOT_IN_LINE
    assert set(error.squares) == {(6, 5), (8, 9)}
    assert "F7" in str(error) and "J9" in str(error)


def test_gap_names_the_empty_square() -> None:
    after = put(Board.empty(), 7, 6, "ЁЖ.К")
    error = illegal(Board.empty(), after)
    assert error.code is PlayErrorCode.GAP
    assert error.squares == ((7, 8),)
    assert "I8" in str(error)
    error = illegal(SLOVO, put(SLOVO, 3, 7, "Д.М", across=False), ERUDIT)
    assert error.code is PlayErrorCode.GAP and error.squares == ((4, 7),)


def test_play_through_an_existing_tile_fills_the_gap() -> None:
    # ВОЛК down column G through the Л of СЛОВО: new tiles at G6, G7, G9.
    after = put(SLOVO, 5, 6, "ВО.К", across=False)
    play = find_play(SLOVO, after, RU)
    assert [p.square for p in play.placements] == [(5, 6), (6, 6), (8, 6)]
    assert (play.word, play.position, play.across) == ("ВОЛК", "G6", False)
    # G7 and G9 are letter ×2 squares; the old Л on G8 counts at face value.
    assert play.score == 1 + 1 * 2 + 2 + 2 * 2
    assert len(play.words) == 1


def test_several_cross_words() -> None:
    # АЯ on row 9 under С and Л of СЛОВО makes СА and ЛЯ too; G9 is a letter ×2 square.
    after = put(SLOVO, 8, 5, "АЯ")
    play = find_play(SLOVO, after, RU)
    assert [(w.word, w.score) for w in play.words] == [("АЯ", 1 + 6), ("СА", 2), ("ЛЯ", 2 + 6)]
    assert play.score == 17
    erudit = find_play(SLOVO, after, ERUDIT)
    assert [w.word for w in erudit.words] == ["АЯ", "СА", "ЛЯ"]
    assert erudit.score == (1 + 6) + (2 + 1) + (2 + 6)


def test_not_connected() -> None:
    error = illegal(SLOVO, put(SLOVO, 0, 0, "ЁЖ"))
    assert error.code is PlayErrorCode.NOT_CONNECTED
    assert error.squares == ((0, 0), (0, 1))
    assert "A1, B1" in str(error)


def test_a_removed_tile_is_named() -> None:
    after = put(SLOVO, 8, 5, "А").place({(7, 9): None})
    error = illegal(SLOVO, after)
    assert error.code is PlayErrorCode.TILE_REMOVED
    assert error.squares == ((7, 9),)
    assert "J8 (О)" in str(error)


@pytest.mark.parametrize(
    ("old", "new"),
    [("О", "А"), ("О", "о"), ("о", "О"), ("о", "а"), ("?", "О")],
    ids=[
        "letter",
        "became-blank",
        "blank-became-tile",
        "blank-letter",
        "unknown-blank-became-tile",
    ],
)
def test_a_changed_tile_is_named(old: str, new: str) -> None:
    before = put(SLOVO, 7, 9, old)
    after = put(put(before, 7, 9, new), 8, 5, "А")
    error = illegal(before, after)
    assert error.code is PlayErrorCode.TILE_CHANGED
    assert error.squares == ((7, 9),)
    assert f"J8 {old}→{new}" in str(error)


def test_size_mismatch() -> None:
    small = Board.empty(13, 13)
    assert illegal(small, put(small, 6, 6, "ЁЖ")).code is PlayErrorCode.SIZE_MISMATCH
    error = illegal(Board.empty(), Board.empty(15, 16))
    assert error.code is PlayErrorCode.SIZE_MISMATCH and "15×16" in str(error)


def test_unknown_letters() -> None:
    assert illegal(SLOVO, put(SLOVO, 8, 5, "Q")).code is PlayErrorCode.UNKNOWN_LETTER
    assert illegal(SLOVO, put(SLOVO, 8, 5, "q")).code is PlayErrorCode.UNKNOWN_LETTER
    assert illegal(Board.empty(), put(Board.empty(), 7, 7, "AB"), RU).code is (
        PlayErrorCode.UNKNOWN_LETTER
    )
    # A blank whose letter is not known yet is fine; so is one standing for a letter of the set.
    play = find_play(SLOVO, put(SLOVO, 8, 5, "?я"), RU)
    assert [w.word for w in play.words] == ["?я", "С?", "Ля"] and play.score == 3


def test_too_many_tiles_follows_the_rack_size() -> None:
    eight = put(Board.empty(), 7, 3, "АБВГДЕЖЗ")
    error = illegal(Board.empty(), eight, ERUDIT)
    assert error.code is PlayErrorCode.TOO_MANY_TILES
    assert len(error.squares) == 8 and "rack holds 7" in str(error)
    nine_tile = ERUDIT.with_options(nine_tile_racks=True)
    assert find_play(Board.empty(), eight, nine_tile).bingo_bonus == 50


def test_blank_designation_is_not_a_change() -> None:
    before = put(Board.empty(), 7, 5, "СЛОВ?")
    after = put(put(before, 7, 9, "о"), 8, 5, "А")
    play = find_play(before, after, RU)
    assert play.placements == (Placement(8, 5, Tile("А")),)
    assert (play.word, play.across) == ("СА", False)
    # The designated letter counts where the blank scores as its letter.
    extended = put(put(before, 7, 9, "о"), 7, 10, "Й")
    scored = find_play(before, extended, RU.with_options(blank_scores_letter=True))
    assert scored.word == "СЛОВоЙ"
    assert scored.score == 1 + 2 + 1 + 1 + 1 + 4
    # A designated letter must belong to the set, like a new tile's.
    assert illegal(before, put(before, 7, 9, "q")).code is PlayErrorCode.UNKNOWN_LETTER


def test_same_tile() -> None:
    assert same_tile(Tile("?", True), Tile("Ж", True))
    assert same_tile(Tile("Ж", True), Tile("?", True))
    assert not same_tile(Tile("Ж", True), Tile("Ш", True))
    assert not same_tile(Tile("?", True), Tile("Ж"))


def test_classify_unchanged_keeps_blank_letters_known() -> None:
    known = put(SLOVO, 7, 9, "о")
    unknown = put(SLOVO, 7, 9, "?")
    change = classify_change(unknown, known, RU)
    assert change.kind is ChangeKind.UNCHANGED and change.play is None and change.board == known
    assert classify_change(known, unknown, RU).board == known
    assert classify_change(SLOVO, SLOVO, ERUDIT).kind is ChangeKind.UNCHANGED


def test_classify_play() -> None:
    after = put(SLOVO, 8, 5, "АЯ")
    change = classify_change(SLOVO, after, RU)
    assert change.kind is ChangeKind.PLAY and change.board == after
    assert change.play == find_play(SLOVO, after, RU)


def test_classify_withdrawn_play() -> None:
    after = put(SLOVO, 8, 5, "АЯ")
    last = find_play(SLOVO, after, ERUDIT)
    change = classify_change(after, SLOVO, ERUDIT, last)
    assert change.kind is ChangeKind.WITHDRAWN and change.play == last and change.board == SLOVO
    first = find_play(Board.empty(), SLOVO, ERUDIT)
    assert classify_change(SLOVO, Board.empty(), ERUDIT, first).kind is ChangeKind.WITHDRAWN


def test_classify_withdrawal_with_other_changes_is_an_error() -> None:
    after = put(SLOVO, 8, 5, "АЯ")
    last = find_play(SLOVO, after, RU)
    with pytest.raises(IllegalPlay) as info:
        classify_change(after, put(SLOVO, 6, 5, "ЁЖ"), RU, last)
    assert info.value.code is PlayErrorCode.TILE_REMOVED
    assert info.value.squares == ((6, 5), (6, 6))
    assert "F9, G9" in str(info.value) and "F7, G7" in str(info.value)
    with pytest.raises(IllegalPlay) as info:
        classify_change(after, put(SLOVO, 7, 5, "Т"), RU, last)
    assert info.value.code is PlayErrorCode.TILE_CHANGED and info.value.squares == ((7, 5),)


def test_classify_removals_that_are_not_the_last_play() -> None:
    after = put(SLOVO, 8, 5, "АЯ")
    last = find_play(SLOVO, after, RU)
    for board, removed in [
        (after.place({(8, 6): None}), ((8, 6),)),  # only part of the last play
        (after.place({(7, 5): None}), ((7, 5),)),  # an older tile
        (SLOVO.place({(7, 5): None}), ((7, 5), (8, 5), (8, 6))),  # both
    ]:
        with pytest.raises(IllegalPlay) as info:
            classify_change(after, board, RU, last)
        assert info.value.code is PlayErrorCode.TILE_REMOVED and info.value.squares == removed
    with pytest.raises(IllegalPlay) as info:
        classify_change(after, SLOVO, RU)
    assert info.value.code is PlayErrorCode.TILE_REMOVED


def test_board_size_comes_from_the_layout() -> None:
    # A 7×5 board whose centre is D3.
    tiny = RU.with_layout(Layout("tiny", (".......", "..'....", "...*...", ".......", "......=")))
    before = Board.empty(7, 5)
    play = find_play(before, put(before, 1, 3, "ЁЖ", across=False), tiny)
    assert (play.position, play.score) == ("D2", (3 + 5) * 2)
    error = illegal(before, put(before, 0, 0, "ЁЖ"), tiny)
    assert error.code is PlayErrorCode.FIRST_MOVE_OFF_CENTRE and "D3" in str(error)
    assert illegal(Board.empty(), Board.empty(), tiny).code is PlayErrorCode.SIZE_MISMATCH


def test_blank_swap_takes_the_blank_when_enabled() -> None:
    swap_ru = RU.with_options(blank_swap=True)
    before = Board.empty().place({(7, 7): Tile("К", True), (7, 8): Tile("О"), (7, 9): Tile("Т")})
    # The real К replaces the blank, which is played at once as Т in КОТ's column: О-Т down.
    after = before.place({(7, 7): Tile("К"), (8, 9): Tile("О"), (9, 9): Tile("Т", True)})
    with pytest.raises(IllegalPlay) as refused:
        find_play(before, after, RU)
    assert refused.value.code is PlayErrorCode.TILE_CHANGED
    play = find_play(before, after, swap_ru)
    assert {p.square for p in play.placements} == {(8, 9), (9, 9)}
    # КОТ now holds a real К, but its squares were filled earlier: only the new word scores.
    assert [w.word for w in play.words] == ["ТОт"]


def test_blank_swap_must_play_the_blank_the_same_turn() -> None:
    swap_ru = RU.with_options(blank_swap=True)
    before = Board.empty().place({(7, 7): Tile("К", True), (7, 8): Tile("О"), (7, 9): Tile("Т")})
    after = before.place({(7, 7): Tile("К"), (8, 9): Tile("О"), (9, 9): Tile("Н")})
    with pytest.raises(IllegalPlay, match="same turn") as refused:
        find_play(before, after, swap_ru)
    assert refused.value.code is PlayErrorCode.TILE_CHANGED
