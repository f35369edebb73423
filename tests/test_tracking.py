"""Tracking readings across turns: misreads kept, rotations aligned, hidden cells and uncertain
letters sent for review, blanks designated by the dictionary, never a guessed move."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from scorer.board import Board, Tile
from scorer.dictionary import WordListDictionary, dictionary_for
from scorer.move import ChangeKind, find_play
from scorer.tracking import Thresholds, TurnStatus, surely_read, track
from scorer.variant import load_variant
from vision.pipeline import checked_grid, nearby_grids, vouched_grid

RU = load_variant("ru")
ERUDIT = load_variant("erudit")


@dataclass
class FakeReading:
    classes: list[list[str]]
    confidence: list[list[float]]
    top3: list[list[list[tuple[str, float]]]]


@dataclass
class ColouredReading(FakeReading):
    tile_coloured: np.ndarray


def _cls(ch: str) -> str:
    return {".": "empty", "?": "blank"}.get(ch, ch)


def reading_of(
    board: Board,
    overrides: dict[tuple[int, int], list[tuple[str, float]]] | None = None,
    quarter_turns: int = 0,
) -> FakeReading:
    """A confident reading of `board` turned clockwise, with some cells' top-3 overridden."""
    board = board.rotated(quarter_turns)
    overrides = overrides or {}
    classes, confidence, top3 = [], [], []
    for r in range(board.height):
        crow, prow, trow = [], [], []
        for c in range(board.width):
            tile = board.get(r, c)
            top = overrides.get((r, c)) or [
                (
                    _cls("." if tile is None else tile.char.upper() if not tile.is_blank else "?"),
                    0.99,
                ),
                ("empty", 0.005),
                ("Ъ", 0.005),
            ]
            crow.append(top[0][0])
            prow.append(top[0][1])
            trow.append(top)
        classes.append(crow)
        confidence.append(prow)
        top3.append(trow)
    return FakeReading(classes, confidence, top3)


def board(*words: tuple[int, int, str, bool]) -> Board:
    b = Board.empty()
    for row, col, word, across in words:
        for i, ch in enumerate(word):
            square = (row, col + i) if across else (row + i, col)
            b = b.place({square: Tile.from_char(ch)})
    return b


SLOVO = board((7, 5, "СЛОВО", True))


def test_first_play_from_empty_board() -> None:
    result = track(Board.empty(), reading_of(SLOVO), RU, dictionary_for(RU))
    assert result.status is TurnStatus.COMMITTED
    assert result.play is not None and result.play.word == "СЛОВО" and result.play.score == 12


def test_misread_old_tile_is_kept_and_creates_no_move() -> None:
    reading = reading_of(SLOVO, {(7, 6): [("П", 0.97), ("Л", 0.02), ("empty", 0.01)]})
    result = track(SLOVO, reading, RU, dictionary_for(RU))
    assert result.status is TurnStatus.COMMITTED
    assert result.kind is ChangeKind.UNCHANGED
    assert [(m.square, m.known, m.read) for m in result.misreads] == [((7, 6), "Л", "П")]
    assert result.board == SLOVO


@pytest.mark.parametrize("turns", [1, 2, 3])
def test_photo_from_another_side_is_aligned(turns: int) -> None:
    after = SLOVO.place({(6, 9): Tile("К"), (8, 9): Tile("Т")})  # КОТ down through О
    result = track(SLOVO, reading_of(after, quarter_turns=turns), RU, dictionary_for(RU))
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.rotation == (4 - turns) % 4
    assert result.play is not None and result.play.word == "КОТ"


def test_hand_covering_cells_needs_review() -> None:
    # КОТ down column J; a hand covers J10, under the Т, where a tile would lengthen the play,
    # and K9 beside it: both are asked.
    after = SLOVO.place({(6, 9): Tile("К"), (8, 9): Tile("Т")})
    hand = [("Ж", 0.30), ("empty", 0.25), ("Ф", 0.2)]
    reading = reading_of(
        after, {(9, 9): hand, (8, 10): hand, (7, 5): [("empty", 0.4), ("С", 0.3), ("Ш", 0.2)]}
    )
    result = track(SLOVO, reading, RU, dictionary_for(RU))
    assert result.status is TurnStatus.NEEDS_REVIEW
    assert result.play is None
    assert {c.square for c in result.uncertain} == {(9, 9), (8, 10)}
    assert "cannot be read" in result.message
    # The known С under the hand keeps its letter.
    assert [m.square for m in result.misreads] == [(7, 5)]


def test_unreadable_cells_where_no_legal_play_puts_a_tile_are_not_asked() -> None:
    # The same hand off column J only: a tile there, of any letter, would leave the new tiles
    # out of line, so no reading of those cells changes the move.
    after = SLOVO.place({(6, 9): Tile("К"), (8, 9): Tile("Т")})
    hand = [("Ж", 0.30), ("empty", 0.25), ("Ф", 0.2)]
    reading = reading_of(after, {(8, 8): hand, (8, 10): hand, (0, 0): hand})
    result = track(SLOVO, reading, RU, dictionary_for(RU))
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.play is not None and result.play.word == "КОТ"
    assert result.board is not None and result.board.get(8, 8) is None
    # With no new tile read, a one-tile play could lie on the cell beside the board: asked.
    reading = reading_of(SLOVO, {(8, 8): hand, (0, 0): hand})
    result = track(SLOVO, reading, RU, dictionary_for(RU))
    assert result.status is TurnStatus.NEEDS_REVIEW
    assert {c.square for c in result.uncertain} == {(8, 8), (0, 0)}


def test_uncertain_letter_settled_by_dictionary() -> None:
    after = SLOVO.place({(6, 9): Tile("К"), (8, 9): Tile("Т")})
    reading = reading_of(after, {(8, 9): [("Ъ", 0.5), ("Т", 0.45), ("empty", 0.05)]})
    result = track(SLOVO, reading, RU, dictionary_for(RU))
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.play is not None and result.play.word == "КОТ"


def test_the_word_list_does_not_silently_override_a_letter_read_far_likelier() -> None:
    # КЪТ is no word, КОТ is; the photo reads the doubtful square Ъ 0.87 / Т 0.13 (CAZ read so
    # in a Collins game, the list settling on GAZ): a word missing from the list is likelier than
    # such a misread, so the player is asked, offered both.
    after = SLOVO.place({(6, 9): Tile("К"), (8, 9): Tile("Т")})
    reading = reading_of(after, {(8, 9): [("Ъ", 0.87), ("Т", 0.13), ("empty", 0.0)]})
    result = track(SLOVO, reading, RU, dictionary_for(RU))
    assert result.status is TurnStatus.NEEDS_REVIEW, result.message
    assert [(c.square, c.candidates) for c in result.uncertain] == [((8, 9), ("Т", "Ъ"))]
    # Read a little less surely, the list settles it as before.
    reading = reading_of(after, {(8, 9): [("Ъ", 0.6), ("Т", 0.4), ("empty", 0.0)]})
    assert track(SLOVO, reading, RU, dictionary_for(RU)).status is TurnStatus.COMMITTED


def test_the_word_list_settles_a_look_alike_in_a_long_word() -> None:
    # ЩОКОЛАД is no word: a long word the list lacks one look-alike letter off a word it holds
    # was almost never really played (1 of 4789 such pairs in the recorded games), so the list
    # settles a Щ read 0.80 / Ш 0.11 as Ш without asking.
    after = SLOVO.place(
        {(r, 7): Tile(ch) for r, ch in zip(range(6, 13), "ШОКОЛАД", strict=True) if r != 7}
    )
    reading = reading_of(after, {(6, 7): [("Щ", 0.80), ("Ш", 0.11), ("Ц", 0.09)]})
    result = track(SLOVO, reading, RU, dictionary_for(RU))
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.play is not None and result.play.word == "ШОКОЛАД"


def test_uncertain_letter_with_two_valid_words_goes_to_review() -> None:
    after = SLOVO.place({(6, 9): Tile("К"), (8, 9): Tile("Т")})
    reading = reading_of(after, {(6, 9): [("К", 0.5), ("Р", 0.45), ("empty", 0.05)]})
    result = track(SLOVO, reading, RU, dictionary_for(RU))
    assert result.status is TurnStatus.NEEDS_REVIEW
    assert [(c.square, c.candidates) for c in result.uncertain] == [((6, 9), ("К", "Р"))]


def test_tile_accounting_rules_out_a_letter() -> None:
    # The only Ф is already on the board, so an uncertain Ф/Т must be Т.
    known = board((7, 5, "СЛОВО", True), (2, 5, "Ф", True))
    known = known.place(
        {(3, 5): Tile("А"), (4, 5): Tile("Р"), (5, 5): Tile("А"), (6, 5): Tile("Х")}
    )
    after = known.place({(6, 9): Tile("К"), (8, 9): Tile("Т")})
    reading = reading_of(after, {(8, 9): [("Ф", 0.6), ("Т", 0.35), ("empty", 0.05)]})
    result = track(known, reading, RU, WordListDictionary(None))
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.play is not None and result.play.word == "КОТ"


def test_withdrawn_play_recognised() -> None:
    after = SLOVO.place({(6, 9): Tile("К"), (8, 9): Tile("Т")})
    last = find_play(SLOVO, after, RU)
    result = track(after, reading_of(SLOVO), RU, dictionary_for(RU), last_play=last)
    assert result.status is TurnStatus.COMMITTED
    assert result.kind is ChangeKind.WITHDRAWN and result.board == SLOVO


def test_withdrawn_play_read_doubtfully_empty_without_its_tiles_is_recognised() -> None:
    # The last play's squares all read empty, one of them only 0.8 (a printed label read half
    # as a letter): no trace of the tile taken off, so the play was withdrawn. With the tile
    # itself among the square's readings, it may still be there: asked.
    after = SLOVO.place({(6, 9): Tile("К"), (8, 9): Tile("Т")})
    last = find_play(SLOVO, after, RU)
    label = {(8, 9): [("empty", 0.8), ("З", 0.13), ("П", 0.02)]}
    result = track(after, reading_of(SLOVO, label), RU, dictionary_for(RU), last_play=last)
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.kind is ChangeKind.WITHDRAWN and result.board == SLOVO
    trace = {(8, 9): [("empty", 0.8), ("Т", 0.13), ("П", 0.02)]}
    result = track(after, reading_of(SLOVO, trace), RU, dictionary_for(RU), last_play=last)
    assert result.status is TurnStatus.NEEDS_REVIEW and "partly taken back" in result.message


def test_one_known_tile_read_as_empty_is_a_misread() -> None:
    result = track(SLOVO, reading_of(SLOVO.place({(7, 5): None})), RU, dictionary_for(RU))
    assert result.status is TurnStatus.COMMITTED and result.kind is ChangeKind.UNCHANGED
    assert [(m.square, m.known, m.read) for m in result.misreads] == [((7, 5), "С", ".")]
    assert result.board == SLOVO


def test_several_known_tiles_gone_need_review() -> None:
    known = SLOVO.place({(9, 5 + i): Tile(ch) for i, ch in enumerate("КОРОВА")})
    covered = known.place(dict.fromkeys([(7, 5), (7, 6), (7, 7)]))
    result = track(known, reading_of(covered), RU, dictionary_for(RU))
    assert result.status is TurnStatus.NEEDS_REVIEW and result.play is None
    assert [c.square for c in result.uncertain] == [(7, 5), (7, 6), (7, 7)]


def test_known_tiles_gone_in_the_previous_photo_too_are_not_asked_again() -> None:
    # An edition whose pale tiles read as empty squares: the first photo asks (a hand?), the
    # next, showing the same tiles gone and nothing else, is this board's look.
    known = SLOVO.place({(9, 5 + i): Tile(ch) for i, ch in enumerate("КОРОВА")})
    pale = [(7, 5), (7, 6), (7, 7)]
    covered = reading_of(known.place(dict.fromkeys(pale)))
    first = track(known, covered, RU, dictionary_for(RU))
    assert first.status is TurnStatus.NEEDS_REVIEW
    again = track(known, covered, RU, dictionary_for(RU), steady=frozenset(pale))
    assert again.status is TurnStatus.COMMITTED and again.kind is ChangeKind.UNCHANGED
    assert again.board == known and again.gone == frozenset(pale)
    # A hand over three other tiles is still a hand.
    hand = reading_of(known.place(dict.fromkeys([*pale, (9, 5), (9, 6), (9, 7)])))
    assert track(known, hand, RU, None, steady=frozenset(pale)).status is TurnStatus.NEEDS_REVIEW


def test_known_tiles_gone_far_from_a_clear_play_keep_their_letters() -> None:
    # КОРОВА across row 8, АТЛАС down column G; СОК laid across row 12 from the С. Three tiles
    # of КОРОВА read as empty squares (glare at the board's edge) lie farther than a hand over
    # them could hide a tile of СОК: the play is recorded, the three kept as misreads.
    known = board((7, 1, "КОРОВА", True), (7, 6, "АТЛАС", False))
    after = known.place({(11, 7): Tile("О"), (11, 8): Tile("К")})
    far = [(7, 1), (7, 2), (7, 3)]
    result = track(known, reading_of(after.place(dict.fromkeys(far))), RU, dictionary_for(RU))
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.play is not None and result.play.word == "СОК"
    assert result.board == after and result.gone == frozenset(far)
    # Three tiles gone nearer the play: whatever hides them may hide a tile of it (H11, under
    # the О, is within reach of G8): asked.
    near = [(7, 4), (7, 5), (7, 6)]
    result = track(known, reading_of(after.place(dict.fromkeys(near))), RU, dictionary_for(RU))
    assert result.status is TurnStatus.NEEDS_REVIEW and result.play is None
    assert [c.square for c in result.uncertain] == near


def test_known_tiles_a_camera_saw_unchanged_are_kept_not_gone() -> None:
    # White tiles on an overexposed white board: three known tiles read as empty, but the table
    # camera saw their squares look as when the board settled.
    known = SLOVO.place({(9, 5 + i): Tile(ch) for i, ch in enumerate("КОРОВА")})
    faint = [(7, 5), (7, 6), (7, 7)]
    reading = reading_of(known.place(dict.fromkeys(faint)))
    assert track(known, reading, RU, dictionary_for(RU)).status is TurnStatus.NEEDS_REVIEW
    result = track(known, reading, RU, dictionary_for(RU), kept=frozenset(faint))
    assert result.status is TurnStatus.COMMITTED and result.kind is ChangeKind.UNCHANGED
    assert result.board == known and result.gone == frozenset(faint)


def test_a_blank_read_on_a_clipped_square_is_asked_not_settled_by_the_words(tmp_path) -> None:
    # IWI (a Collins word the English list lacks) with a glare-white square after it, read as
    # maybe a blank: the list would settle it as IWIS; on a square too bright to see, it is asked.
    en = load_variant("en")
    known = board((6, 8, "W", True))
    after = known.place({(7, 7): Tile("I"), (7, 8): Tile("W"), (7, 9): Tile("I")})
    glare = {(7, 10): [("empty", 0.6), ("blank", 0.39), ("K", 0.01)]}
    listed = tmp_path / "words.txt"
    listed.write_text("IWIS\nWW\n", encoding="utf-8")
    words = WordListDictionary(listed)
    settled = track(known, reading_of(after, glare), en, words)
    assert settled.play is not None and settled.play.word == "IWIs"
    result = track(known, reading_of(after, glare), en, words, blind=frozenset({(7, 10)}))
    assert result.status is TurnStatus.NEEDS_REVIEW and result.play is None
    assert (7, 10) in {cell.square for cell in result.uncertain}


def test_an_unreadable_cell_review_lists_the_other_doubtful_tiles_too() -> None:
    # A new tile read 0.94 (not sure) and a cell below it nothing explains: both are asked, so
    # that answering the unreadable one cannot leave the new tile out of the move.
    after = SLOVO.place({(8, 9): Tile("Т")})
    doubt = {
        (8, 9): [("Т", 0.94), ("empty", 0.05), ("Г", 0.01)],
        (9, 9): [("empty", 0.4), ("blank", 0.2), ("Ъ", 0.1)],
    }
    result = track(SLOVO, reading_of(after, doubt), RU, dictionary_for(RU))
    assert result.status is TurnStatus.NEEDS_REVIEW
    assert [c.square for c in result.uncertain] == [(9, 9), (8, 9)]


def test_a_review_keeps_the_doubtful_tiles_every_reading_agrees_on() -> None:
    # Т at K9 is doubtful but only a tile there makes a legal play; K11 is open (empty or a
    # blank). Only K11 is asked, and the board as read holds the Т, so that answering K11
    # cannot drop it from the play.
    after = SLOVO.place({(8, 9): Tile("Т"), (9, 9): Tile("О")})
    doubt = {
        (8, 9): [("Т", 0.9), ("empty", 0.09), ("Г", 0.01)],
        (10, 9): [("empty", 0.6), ("blank", 0.39), ("Ъ", 0.01)],
    }
    result = track(SLOVO, reading_of(after, doubt), RU, WordListDictionary(None))
    assert result.status is TurnStatus.NEEDS_REVIEW, result.message
    assert [c.square for c in result.uncertain] == [(10, 9)]
    assert result.read_board is not None and result.read_board[8, 9] == Tile("Т")


def test_a_gone_tiles_review_keeps_the_new_play() -> None:
    known = SLOVO.place({(9, 5 + i): Tile(ch) for i, ch in enumerate("КОРОВА")})
    after = known.place({(8, 9): Tile("Т")})
    covered = after.place(dict.fromkeys([(9, 5), (9, 6), (9, 7)]))
    result = track(known, reading_of(covered), RU, dictionary_for(RU))
    assert result.status is TurnStatus.NEEDS_REVIEW
    assert [c.square for c in result.uncertain] == [(9, 5), (9, 6), (9, 7)]
    # The new tile stays on the board as read: correcting the gone ones keeps the play.
    assert result.read_board is not None and result.read_board[8, 9] == Tile("Т")


def test_last_play_partly_gone_needs_review() -> None:
    after = SLOVO.place({(6, 9): Tile("К"), (8, 9): Tile("Т")})
    last = find_play(SLOVO, after, RU)
    result = track(after, reading_of(after.place({(6, 9): None})), RU, None, last_play=last)
    assert result.status is TurnStatus.NEEDS_REVIEW
    assert "partly taken back" in result.message
    # The play's tile that still looks there is asked about too: answered gone with the other,
    # the play is withdrawn, not kept as a misread (a withdrawal recorded as a pass).
    assert [(c.square, c.candidates) for c in result.uncertain] == [
        ((6, 9), ("К", ".")),
        ((8, 9), ("Т", ".")),
    ]
    answered = track(after, reading_of(SLOVO), RU, None, last_play=last)
    assert answered.status is TurnStatus.COMMITTED and answered.kind is ChangeKind.WITHDRAWN


def test_blank_with_one_possible_letter_is_designated() -> None:
    known = board((7, 6, "ЁЖ", True))
    after = known.place({(7, 8): Tile("?", True), (7, 9): Tile("К")})  # ЁЖ?К → ЁЖИК
    result = track(known, reading_of(after), RU, dictionary_for(RU))
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.play is not None and result.play.word == "ЁЖиК"
    assert result.board is not None and result.board[7, 8] == Tile("И", True)


def test_blank_with_several_letters_needs_a_choice() -> None:
    known = board((7, 7, "ОТ", True))
    after = known.place({(7, 6): Tile("?", True)})  # ?ОТ: КОТ, РОТ, ...
    result = track(known, reading_of(after), ERUDIT, dictionary_for(ERUDIT))
    assert result.status is TurnStatus.NEEDS_REVIEW
    (cell,) = result.uncertain
    assert cell.square == (7, 6) and {"К", "Р"} <= set(cell.candidates)


def test_blank_without_dictionary_stays_unknown_and_scores_zero() -> None:
    en = load_variant("en")
    known = board((7, 7, "AT", True))
    after = known.place({(7, 6): Tile("?", True)})
    result = track(known, reading_of(after), en, WordListDictionary(None))
    assert result.status is TurnStatus.COMMITTED
    assert result.play is not None and result.play.word == "?AT" and result.play.score == 2


def test_square_read_as_a_doubtful_blank_beside_a_play_needs_review() -> None:
    en = load_variant("en")
    known = board((7, 7, "AT", True))
    after = known.place({(8, 7): Tile("T"), (9, 7): Tile("E")})  # ATE down from the A
    # The empty square before the new tiles looks like a plain blank tile: ?TE or just TE.
    reading = reading_of(after, {(6, 7): [("blank", 0.93), ("empty", 0.06), ("K", 0.01)]})
    result = track(known, reading, en, WordListDictionary(None))
    assert result.status is TurnStatus.NEEDS_REVIEW and result.play is None
    (cell,) = result.uncertain
    assert cell.square == (6, 7) and set(cell.candidates) == {"?", "."}


def test_doubtful_squares_off_the_play_line_do_not_block_the_play() -> None:
    en = load_variant("en")
    known = board((7, 7, "AT", True))
    after = known.place({(8, 7): Tile("T"), (9, 7): Tile("E")})  # ATE down from the A
    # Twenty empty squares all over the board look a little like blank tiles (2^20 fillings),
    # but a play's tiles share one line: only the squares in column 7 could join it.
    doubtful = [(r, c) for r in (0, 2, 12, 14) for c in (0, 3, 7, 10, 14)]
    reading = reading_of(
        after, dict.fromkeys(doubtful, [("empty", 0.9), ("blank", 0.09), ("K", 0.01)])
    )
    result = track(known, reading, en, WordListDictionary(None))
    assert result.status is TurnStatus.COMMITTED
    assert result.play is not None and result.play.word == "ATE" and result.play.score == 3
    # The same doubt beside the play's end still needs a person.
    beside = reading_of(after, {(10, 7): [("empty", 0.9), ("blank", 0.09), ("K", 0.01)]})
    result = track(known, beside, en, WordListDictionary(None))
    assert result.status is TurnStatus.NEEDS_REVIEW
    assert [c.square for c in result.uncertain] == [(10, 7)]


def test_confidently_read_phony_is_recorded_and_flagged() -> None:
    after = SLOVO.place({(6, 9): Tile("К"), (8, 9): Tile("Щ")})
    result = track(SLOVO, reading_of(after), RU, dictionary_for(RU))
    assert result.status is TurnStatus.COMMITTED
    assert result.play is not None and result.play.word == "КОЩ"
    assert result.invalid_words == ("КОЩ",) and "challenge" in result.message


def test_uncertain_cell_never_settles_on_a_phony() -> None:
    after = SLOVO.place({(6, 9): Tile("К"), (8, 9): Tile("Щ")})
    reading = reading_of(after, {(8, 9): [("Щ", 0.6), ("Ъ", 0.38), ("empty", 0.02)]})
    result = track(SLOVO, reading, RU, dictionary_for(RU))
    assert result.status is TurnStatus.NEEDS_REVIEW and result.play is None


def test_phony_read_confidently_stands_when_doubt_lies_off_its_words() -> None:
    after = SLOVO.place({(6, 9): Tile("К"), (8, 9): Tile("Щ")})
    # A faint mark far from the play is doubtful, but only "no tile" there keeps the play legal;
    # the dictionary lacks КОЩ, and that must not send the only legal reading to review.
    reading = reading_of(after, {(1, 1): [("empty", 0.8), ("blank", 0.15), ("Ъ", 0.05)]})
    result = track(SLOVO, reading, RU, dictionary_for(RU))
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.play is not None and result.invalid_words == ("КОЩ",)
    # A doubtful tile inside the unknown word is asked about even when it is the only reading.
    inside = reading_of(after, {(8, 9): [("Щ", 0.9), ("empty", 0.08), ("Ъ", 0.02)]})
    result = track(SLOVO, inside, RU, dictionary_for(RU))
    assert result.status is TurnStatus.NEEDS_REVIEW and result.play is None
    assert [(c.square, c.candidates) for c in result.uncertain] == [((8, 9), ("Щ",))]
    assert "dictionary" in result.message


def _asked(known: Board, after: Board, overrides: dict | None = None) -> dict[str, tuple]:
    """The squares a reading of `after` that makes no legal play asks about, with candidates."""
    result = track(known, reading_of(after, overrides), RU, None)
    assert result.status is TurnStatus.NEEDS_REVIEW and result.play is None, result.message
    return {c.to_dict()["square"]: c.candidates for c in result.uncertain}


def test_no_legal_play_asks_about_the_squares_that_break_it() -> None:
    # A tile inside the new word read as empty: the gap, with the letters its reading allows.
    gap = SLOVO.place({(8, 9): Tile("К"), (10, 9): Tile("Т")})
    faint = {(9, 9): [("empty", 0.96), ("О", 0.03), ("Ъ", 0.01)]}
    assert _asked(SLOVO, gap, faint) == {"J10": ("О", ".")}
    # A stray mark read as a tile off the play's line: that tile, or no tile.
    stray = SLOVO.place({(7, 10): Tile("М"), (0, 1): Tile("Ъ")})
    assert _asked(SLOVO, stray) == {"B1": ("Ъ", ".")}
    # A rack's seven tiles in a line, and two stray marks: the marks, not the seven.
    seven = {(r, 9): Tile(ch) for r, ch in zip(range(8, 15), "РАКЕТОЙ", strict=True)}
    crowded = SLOVO.place({**seven, (0, 1): Tile("Н"), (2, 13): Tile("Н")})
    assert _asked(SLOVO, crowded) == {"B1": ("Н", "."), "N3": ("Н", ".")}
    # Eight in a line: which of them is no tile, the reading cannot tell.
    eight = SLOVO.place({**seven, (6, 9): Tile("Н")})
    assert len(_asked(SLOVO, eight)) == 8
    # A play joined to the board by a tile read as empty: the square between.
    apart = SLOVO.place({(7, 11): Tile("М")})
    assert _asked(SLOVO, apart) == {"K8": (".",)}
    # The word's last two tiles read as empty squares, a truly empty square beside it: all the
    # ways it may have joined the board are asked about, not only the shortest.
    known = Board.empty().place({(3, 5): Tile("А"), (1, 8): Tile("О")})
    cut = known.place({(1, c): Tile(ch) for c, ch in zip(range(1, 6), "ВУЛПИ", strict=True)})
    assert set(_asked(known, cut)) == {"F3", "G2", "H2"}
    # Tiles far from the board: the tiles themselves.
    far = SLOVO.place({(0, 0): Tile("А"), (0, 1): Tile("Я")})
    assert _asked(SLOVO, far) == {"A1": ("А", "."), "B1": ("Я", ".")}
    # A first play whose tile on the centre was read as empty: the centre.
    assert _asked(Board.empty(), board((7, 8, "ОТ", True))) == {"H8": (".",)}


def test_a_sure_blank_off_the_play_that_no_legal_move_holds_is_an_empty_square() -> None:
    # An empty square read as a blank with confidence (a premium square's print), beside a known
    # tile but off the line of the play: no move is legal with it, so it is taken for no tile.
    after = SLOVO.place({(6, 9): Tile("К"), (8, 9): Tile("Т"), (8, 5): Tile("?", True)})
    result = track(SLOVO, reading_of(after), RU, dictionary_for(RU))
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.play is not None and result.play.word == "КОТ"
    assert result.board is not None and result.board.get(8, 5) is None
    # A blank a person put there is a tile: the play that leaves it out of line is refused.
    result = track(SLOVO, reading_of(after), RU, dictionary_for(RU), labels=False)
    assert result.status is TurnStatus.NEEDS_REVIEW and result.play is None


def test_sure_blanks_taken_for_no_tiles_leave_a_doubtful_blank_of_the_play_in_the_set() -> None:
    # Two premium squares read as sure blanks off the play (no move is legal with them), and the
    # play's last tile a doubtful blank: with the two taken for blanks the set (2) had none left
    # for it, so the play was recorded without it (INSIDER for INSIDERs, 10 points for 80).
    after = SLOVO.place(
        {
            (6, 9): Tile("К"),
            (8, 9): Tile("Т"),
            (9, 9): Tile("?", True),
            (8, 5): Tile("?", True),
            (6, 6): Tile("?", True),
        }
    )
    doubtful = {(9, 9): [("blank", 0.79), ("empty", 0.09), ("С", 0.01)]}
    result = track(SLOVO, reading_of(after, doubtful), RU, dictionary_for(RU))
    assert result.status is TurnStatus.NEEDS_REVIEW, result.message
    assert [(c.square, set(c.candidates)) for c in result.uncertain] == [((9, 9), {".", "?"})]


def test_a_lone_sure_tile_on_a_premium_square_is_taken_for_its_label() -> None:
    # A printed "3" on A1 read as a sure Ъ, touching nothing: no legal move holds it, so the
    # play is recorded without it and nothing is asked.
    after = SLOVO.place({(6, 9): Tile("К"), (8, 9): Tile("Т"), (0, 0): Tile("Ъ")})
    result = track(SLOVO, reading_of(after), RU, dictionary_for(RU))
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.play is not None and result.play.word == "КОТ"
    assert result.board is not None and result.board.get(0, 0) is None
    # A tile a person put there is no label: the play that leaves it out of line is refused.
    result = track(SLOVO, reading_of(after), RU, dictionary_for(RU), labels=False)
    assert result.status is TurnStatus.NEEDS_REVIEW and result.play is None
    assert [c.square for c in result.uncertain] == [(0, 0)]


def test_a_lone_tile_whose_colours_are_a_tiles_is_no_label() -> None:
    # The same Ъ, where the photo shows a tile's colours on A1 rather than its square's
    # (`BoardReading.tile_coloured`): a printed label is its square's colour, so it is a tile,
    # kept as one, and the play that leaves it out of line is asked about.
    after = SLOVO.place({(6, 9): Tile("К"), (8, 9): Tile("Т"), (0, 0): Tile("Ъ")})
    reading = reading_of(after)
    coloured = np.zeros((SLOVO.height, SLOVO.width), bool)
    coloured[0, 0] = True
    result = track(
        SLOVO, ColouredReading(**vars(reading), tile_coloured=coloured), RU, dictionary_for(RU)
    )
    assert result.status is TurnStatus.NEEDS_REVIEW and result.play is None
    assert [c.square for c in result.uncertain] == [(0, 0)]
    # Marked elsewhere, it is a label as before.
    coloured[0, 0], coloured[6, 9] = False, True
    result = track(
        SLOVO, ColouredReading(**vars(reading), tile_coloured=coloured), RU, dictionary_for(RU)
    )
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.board is not None and result.board.get(0, 0) is None


def test_a_doubtful_blank_off_the_play_with_no_trace_of_no_tile_is_taken_for_no_tile() -> None:
    # A corner square read blank 0.88, with "no tile" not even among its three readings, three
    # squares from a premium square read as a sure blank, both off a play of sure letters in
    # another column: no move is legal with a tile there, so it is taken for the empty square
    # a plain blank looks most like (a wood print's O15 beside YOM, asked about with 44 other
    # squares as "11 new tiles, but a rack holds 7").
    blanks = {(14, 11): Tile("?", True), (14, 14): Tile("?", True)}
    after = SLOVO.place({(6, 9): Tile("К"), (8, 9): Tile("Т"), **blanks})
    doubtful = {(14, 14): [("blank", 0.88), ("Ъ", 0.03), ("Й", 0.015)]}
    result = track(SLOVO, reading_of(after, doubtful), RU, dictionary_for(RU))
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.play is not None and result.play.word == "КОТ"
    assert result.board is not None and not any(result.board.get(*s) for s in blanks)


def test_another_board_is_not_matched() -> None:
    other = board((2, 2, "КОТ", True))
    result = track(SLOVO, reading_of(other), RU, None, thresholds=Thresholds())
    assert result.status is TurnStatus.NEEDS_REVIEW and result.play is None


def test_certain_reading_of_a_corrected_board_keeps_blank_letters() -> None:
    from scorer.tracking import certain_reading

    known = board((7, 7, "ОТ", True))
    after = known.place({(7, 6): Tile("К", True)})
    result = track(known, certain_reading(after), ERUDIT, dictionary_for(ERUDIT))
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.play is not None and result.play.word == "кОТ" and result.play.score == 3


def test_blank_swap_seen_in_a_photo_only_when_enabled() -> None:
    known = board((7, 7, "кОТ", True))
    after = known.place({(7, 7): Tile("К"), (8, 9): Tile("О"), (9, 9): Tile("?", True)})
    swap = RU.with_options(blank_swap=True)
    result = track(known, reading_of(after), swap, WordListDictionary(None))
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.board is not None and result.board[7, 7] == Tile("К")
    plain = track(known, reading_of(after), RU, WordListDictionary(None))
    assert [m.square for m in plain.misreads] == [(7, 7)]
    assert plain.board is not None and plain.board[7, 7] == Tile("К", True)


def test_uncertain_letter_settled_through_a_new_blank() -> None:
    # КАР?НДАШ with Ш/Щ unsure at the end: only КАРАНДАШ can be spelled with the star.
    known = board((7, 3, "К", True))
    after = known.place({(8 + i, 3): Tile.from_char(ch) for i, ch in enumerate("АР?НДАШ")})
    reading = reading_of(after, {(14, 3): [("Ш", 0.55), ("Щ", 0.44), ("empty", 0.01)]})
    result = track(known, reading, ERUDIT, dictionary_for(ERUDIT))
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.play is not None and result.play.word == "КАРаНДАШ"


def test_a_square_just_answered_is_not_blamed_again_for_an_illegal_move() -> None:
    # A lone new tile beside the board and two stray marks in a column far away: the marks hold
    # more tiles, so the lone tile is taken for the stray one and asked. Once the player has
    # said what it is, the marks are asked instead (not the same square again and again).
    after = SLOVO.place({(8, 5): Tile("А"), (2, 2): Tile("Т"), (4, 2): Tile("Т")})
    first = track(SLOVO, reading_of(after), RU, None, labels=False)
    assert first.status is TurnStatus.NEEDS_REVIEW
    assert [c.square for c in first.uncertain] == [(8, 5)]
    again = track(SLOVO, reading_of(after), RU, None, labels=False, answered=frozenset({(8, 5)}))
    assert again.status is TurnStatus.NEEDS_REVIEW
    assert [c.square for c in again.uncertain] == [(2, 2), (4, 2)]


def test_the_only_legal_reading_of_a_doubtful_tile_stands_when_its_word_is_attested(
    tmp_path,
) -> None:
    # A first move whose third letter is doubtful: E 0.93 or no tile, which would leave a gap.
    # BOEK is not in the list: through a doubtful tile it is asked, a misread being as likely as
    # a phony, unless the word is attested in use.
    en = load_variant("en")
    words, rare = tmp_path / "words.txt", tmp_path / "attested.txt"
    words.write_text("CAT\n", encoding="utf-8")
    rare.write_text("BOEK\n", encoding="utf-8")
    after = Board.from_rows(["." * 15] * 7 + [".......BOEK...."] + ["." * 15] * 7)
    doubt = {(7, 9): [("E", 0.93), ("empty", 0.06), ("F", 0.01)]}
    plain = track(Board.empty(), reading_of(after, doubt), en, WordListDictionary(words))
    assert plain.status is TurnStatus.NEEDS_REVIEW
    dictionary = WordListDictionary(words, attested=rare)
    result = track(Board.empty(), reading_of(after, doubt), en, dictionary)
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.play is not None and result.play.word == "BOEK"
    assert result.attested_words == ("BOEK",)


def _boek(tmp_path, listed: str, doubt: dict, quarter_turns: int = 0) -> frozenset:
    """The squares `surely_read` names where a K laid after BOE on row 8 makes BOEK, a word the
    list lacks, read with `doubt` on some cells (as the board lies), the photo turned clockwise."""
    en = load_variant("en")
    words = tmp_path / "words.txt"
    words.write_text(listed, encoding="utf-8")
    dictionary = WordListDictionary(words)
    known = Board.from_rows(["." * 15] * 7 + [".......BOE....."] + ["." * 15] * 7)
    after = known.place({(7, 10): Tile("K")})
    reading = reading_of(after, doubt, quarter_turns)
    result = track(known, reading, en, dictionary)
    assert result.status is TurnStatus.COMMITTED and result.invalid_words == ("BOEK",)
    assert result.rotation == (4 - quarter_turns) % 4
    return surely_read(result, reading, en, dictionary)


def test_a_word_the_list_lacks_read_beyond_doubt_names_its_new_tiles_and_ends(tmp_path) -> None:
    everything = {(7, 6), (7, 10), (7, 11)}
    assert _boek(tmp_path, "CAT\nBOER\n", {}) == everything
    # The photo turned a quarter: the squares are still the board's.
    assert _boek(tmp_path, "CAT\nBOER\n", {}, quarter_turns=1) == everything
    # A look-alike with weight that makes a word the list knows: the list would settle on it.
    rival = {(7, 10): [("K", 0.96), ("R", 0.03), ("empty", 0.01)]}
    assert _boek(tmp_path, "CAT\nBOER\n", rival) == everything - {(7, 10)}
    # ... but not at odds a word the list lacks beats (1 in 170 for four letters).
    faint = {(7, 10): [("K", 0.99), ("R", 0.001), ("empty", 0.009)]}
    assert _boek(tmp_path, "CAT\nBOER\n", faint) == everything
    # A square past an end read empty but with a blank's weight, and a letter there makes a word.
    end = {(7, 11): [("empty", 0.96), ("blank", 0.04)]}
    assert _boek(tmp_path, "CAT\nBOEKS\n", end) == everything - {(7, 11)}
    assert _boek(tmp_path, "CAT\nBOER\n", end) == everything


def test_nothing_is_read_beyond_doubt_on_a_first_move(tmp_path) -> None:
    # No known tiles vouch for the photo's confident reads.
    en = load_variant("en")
    words = tmp_path / "words.txt"
    words.write_text("CAT\n", encoding="utf-8")
    dictionary = WordListDictionary(words)
    after = Board.from_rows(["." * 15] * 7 + [".......BOEK...."] + ["." * 15] * 7)
    result = track(Board.empty(), reading_of(after), en, dictionary)
    assert result.status is TurnStatus.COMMITTED and result.invalid_words == ("BOEK",)
    assert surely_read(result, reading_of(after), en, dictionary) == frozenset()


def test_nothing_is_read_beyond_doubt_where_the_known_tiles_are_misread_surely(tmp_path) -> None:
    # A known tile read with confidence as another letter, or as an empty square: this photo's
    # confident reads are not to be trusted (the play itself is still found, the known tile kept).
    assert _boek(tmp_path, "CAT\n", {(7, 8): [("F", 0.97), ("E", 0.03)]}) == frozenset()
    assert _boek(tmp_path, "CAT\n", {(7, 7): [("empty", 0.99), ("O", 0.01)]}) == frozenset()
    # Read unsurely, it says nothing against the others.
    assert _boek(tmp_path, "CAT\n", {(7, 8): [("F", 0.6), ("E", 0.4)]}) == {
        (7, 6),
        (7, 10),
        (7, 11),
    }


def test_a_word_every_reading_makes_alike_does_not_keep_the_others_from_settling(
    tmp_path,
) -> None:
    # BARN across row 10 under YOM, its B doubtful (R 0.06): the B makes JOB, the R JOR and
    # RARN; OMA, down column E over sure tiles, is the list's lack either way. It tells the
    # readings nothing: the B is read, and the play recorded with OMA flagged.
    en = load_variant("en")
    words = tmp_path / "words.txt"
    words.write_text("BARN\nJOB\nJOULE\nYOM\n", encoding="utf-8")
    known = Board.from_rows(
        ["." * 15] * 7 + ["...JOULE......."] + ["..YOM.........."] + ["." * 15] * 6
    )
    after = known.place({(9, 3 + i): Tile(ch) for i, ch in enumerate("BARN")})
    doubt = {(9, 3): [("B", 0.92), ("R", 0.06), ("H", 0.02)]}
    result = track(known, reading_of(after, doubt), en, WordListDictionary(words))
    assert result.status is TurnStatus.COMMITTED, result.message
    assert result.play is not None and result.play.word == "BARN"
    assert result.invalid_words == ("OMA",)
    # With JOR a word too, both readings stand: asked.
    words.write_text("BARN\nJOB\nJOR\nJOULE\nRARN\nYOM\n", encoding="utf-8")
    result = track(known, reading_of(after, doubt), en, WordListDictionary(words))
    assert result.status is TurnStatus.NEEDS_REVIEW
    assert [c.square for c in result.uncertain] == [(9, 3)]


def test_the_vouched_grid_that_reads_the_known_board_most_surely_is_taken() -> None:
    known = Board.from_rows([".......CARTELS."] * 2 + ["." * 15] * 13)  # 14 tiles can vouch
    # A grid a corner of which lies half a cell off still shows the known tiles, less surely,
    # and reads the squares near that corner as half one square, half the next.
    skewed = reading_of(
        known,
        {(r, c): [("empty", 0.55), ("A", 0.45)] for r in range(11, 15) for c in range(11, 15)}
        | {(0, 13): [("S", 0.6), ("L", 0.4)]},
    )
    right = reading_of(known)
    column_off = reading_of(Board.from_rows(["......CARTELS.."] * 2 + ["." * 15] * 13))
    readings = {0: column_off, 1: skewed, 2: right}

    def read(corners: list[list[float]]) -> FakeReading | None:
        return readings[int(corners[0][0])]

    grids = [np.full((4, 2), float(k)) for k in readings]
    assert vouched_grid(grids, known, read) is right
    assert vouched_grid(grids[:2], known, read) is skewed
    assert vouched_grid(grids[:1], known, read) is None


@dataclass
class PlacedReading(FakeReading):
    corners: list[list[float]]


def test_a_grid_found_a_cell_off_gives_way_to_the_grid_a_cell_away_the_known_tiles_vouch_for() -> (
    None
):
    known = Board.from_rows([".......CARTELS."] * 2 + ["." * 15] * 13)
    # Lines fitted one column short at the left: each known tile read a square to its right.
    found = [[10.0, 0.0], [150.0, 0.0], [150.0, 150.0], [10.0, 150.0]]
    shifted = Board.from_rows(["........CARTELS"] * 2 + ["." * 15] * 13)
    off = PlacedReading(**vars(reading_of(shifted)), corners=found)
    right = reading_of(known)
    asked: list[np.ndarray] = []

    def read(corners: list[list[float]]) -> FakeReading | None:
        asked.append(np.array(corners))
        # The found grid's left side a cell further out (0.07 of a board's cell from its edge,
        # as the found grid's cells are narrower) reads the board as it is.
        return (
            right if np.allclose(corners, [[0, 0], [150, 0], [150, 150], [0, 150]], atol=1) else off
        )

    assert checked_grid(off, known, read) is right
    # The other grids a cell away: the whole grid moved by a row or a column, each side alone.
    assert len(asked) == len(nearby_grids(found, 15, 15)) == 12
    assert any(
        np.allclose(grid, [[0, 0], [150, 0], [150, 150], [0, 150]], atol=1)
        for grid in nearby_grids(found, 15, 15)
    )
    assert any(
        np.allclose(
            grid,
            [[10 + 140 / 15, 0], [150 + 140 / 15, 0], [150 + 140 / 15, 150], [10 + 140 / 15, 150]],
            atol=1e-3,
        )
        for grid in nearby_grids(found, 15, 15)
    )
    # A grid a cell away that shows nine in ten known tiles but reads the known board less
    # surely than the grid found, which read two letters as look-alikes, does not replace it.
    misread = {(0, 8): [("J", 0.6), ("I", 0.35)], (1, 8): [("J", 0.6), ("I", 0.35)]}
    slips = PlacedReading(**vars(reading_of(known, misread)), corners=found)
    stretched = reading_of(
        known,
        {(0, 7): [("empty", 0.6), ("C", 0.3)]}
        | {(r, c): [("empty", 0.6), ("A", 0.3)] for r in range(3, 15) for c in range(15)},
    )
    assert checked_grid(slips, known, lambda corners: stretched) is slips
    assert checked_grid(slips, known, lambda corners: right) is right
    # Where no grid a cell away shows the known tiles (a hand over them), the reading stands.
    covered = reading_of(Board.from_rows(["." * 15] * 15))
    assert checked_grid(off, known, lambda corners: covered) is off
    # Too few known tiles vouch for no grid: nothing else is read.
    few = Board.from_rows([".......CAT....."] + ["." * 15] * 14)
    asked.clear()
    assert checked_grid(off, few, read) is off
    assert asked == []
