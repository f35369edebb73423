"""A photographed play with words the dictionary lacks is asked about before it is recorded
(`scorer.turns.phonies_confirmed`): its new tiles and the squares past its ends, but those the
photo read beyond doubt, until the players have answered them all; a word attested in use, read
with confidence, is recorded flagged. A play
of blanks alone is asked about too (`scorer.turns.lone_blanks_confirmed`): an empty square looks
most like a blank, and a blank takes the letter the words want. Where the players said known
tiles the photo read as gone are there, the squares just past the play's words are asked too
(`scorer.turns.missed_confirmed`), as are those the photo read empty that look like tiles, past
a play's words or beside the tiles of a pass (`scorer.turns.tile_like_confirmed`)."""

from __future__ import annotations

from pathlib import Path

from scorer.board import Board
from scorer.dictionary import WordListDictionary
from scorer.game import Game, Pass, Play
from scorer.tracking import TurnStatus, certain_reading
from scorer.turns import (
    Turn,
    lone_blanks_confirmed,
    missed_confirmed,
    phonies_confirmed,
    tile_like_confirmed,
    turn_from_reading,
)
from scorer.variant import load_variant

EN = load_variant("en")


def _moves(tmp_path: Path, *rows: str) -> list[Turn]:
    """The turns of photos of a new game whose row 8 reads `rows` in turn."""
    words = tmp_path / "words.txt"
    words.write_text("CAT\nCATS\n", encoding="utf-8")
    rare = tmp_path / "attested.txt"
    rare.write_text("BOEK\n", encoding="utf-8")
    game = Game(EN, ("Ann", "Bob"))
    dictionary = WordListDictionary(words, attested=rare)
    turns = []
    for row in rows:
        board = Board.from_rows(["." * 15] * 7 + [row] + ["." * 15] * 7)
        turns.append(turn_from_reading(game, certain_reading(board), dictionary))
        if turns[-1].event is not None:
            game = game.apply(turns[-1].event)
    return turns


def _first_move(tmp_path: Path, row: str) -> Turn:
    return _moves(tmp_path, row)[0]


def test_a_play_of_known_words_is_recorded_as_it_is(tmp_path: Path) -> None:
    turn = _first_move(tmp_path, ".......CAT.....")
    assert turn.committed and phonies_confirmed(turn) is turn


def test_an_unknown_word_asks_its_new_tiles_and_ends_until_all_are_answered(
    tmp_path: Path,
) -> None:
    turn = _first_move(tmp_path, ".......TAC.....")
    assert turn.committed and turn.result.invalid_words == ("TAC",)
    asked = phonies_confirmed(turn)
    assert asked.result.status is TurnStatus.NEEDS_REVIEW and asked.event is None
    assert isinstance(asked.proposed[0], Play) and asked.proposed == (turn.event,)
    cells = asked.result.uncertain
    assert [c.square for c in cells] == [(7, 6), (7, 10), (7, 7), (7, 8), (7, 9)]
    assert [c.candidates for c in cells] == [(".",), (".",), ("T",), ("A",), ("C",)]
    # The ends answered empty: the letters are still asked; all answered: recorded, flagged.
    partly = phonies_confirmed(turn, frozenset({(7, 6), (7, 10)}))
    assert [c.square for c in partly.result.uncertain] == [(7, 7), (7, 8), (7, 9)]
    assert phonies_confirmed(turn, frozenset(c.square for c in cells)) is turn


def test_an_unknown_word_attested_in_use_and_read_with_confidence_is_recorded_flagged(
    tmp_path: Path,
) -> None:
    turn = _first_move(tmp_path, ".......BOEK....")
    assert turn.committed and turn.result.invalid_words == ("BOEK",)
    assert turn.result.attested_words == ("BOEK",)
    assert phonies_confirmed(turn) is turn


def test_an_unknown_word_asks_only_the_squares_the_photo_did_not_read_beyond_doubt(
    tmp_path: Path,
) -> None:
    turn = _first_move(tmp_path, ".......TAC.....")
    ends = frozenset({(7, 6), (7, 10)})
    asked = phonies_confirmed(turn, sure=ends | {(7, 7)})
    assert [c.square for c in asked.result.uncertain] == [(7, 8), (7, 9)]
    assert phonies_confirmed(turn, frozenset({(7, 8)}), ends | {(7, 7), (7, 9)}) is turn
    assert phonies_confirmed(turn, sure=ends | {(7, 7), (7, 8), (7, 9)}) is turn


def test_a_play_of_blanks_alone_asks_them_until_answered(tmp_path: Path) -> None:
    _, turn = _moves(tmp_path, ".......CAT.....", ".......CAT?....")
    assert turn.committed and turn.event.play.word == "CATs"  # type: ignore[union-attr]
    asked = lone_blanks_confirmed(turn)
    assert asked.result.status is TurnStatus.NEEDS_REVIEW and asked.event is None
    assert asked.proposed == (turn.event,)
    assert [(c.square, c.candidates) for c in asked.result.uncertain] == [((7, 10), ("?", "."))]
    assert lone_blanks_confirmed(turn, frozenset({(7, 10)})) is turn


def test_a_play_with_a_lettered_tile_is_not_asked_for_its_blank(tmp_path: Path) -> None:
    turn = _first_move(tmp_path, ".......C?T.....")
    assert turn.committed and turn.event.play.word == "CaT"  # type: ignore[union-attr]
    assert lone_blanks_confirmed(turn) is turn


def test_the_ends_of_the_words_are_asked_until_answered(tmp_path: Path) -> None:
    _, turn = _moves(tmp_path, ".......CAT.....", ".......CATS....")
    asked = missed_confirmed(turn)
    assert asked.result.status is TurnStatus.NEEDS_REVIEW and asked.proposed == (turn.event,)
    assert [(c.square, c.candidates) for c in asked.result.uncertain] == [
        ((7, 6), (".",)),
        ((7, 11), (".",)),
    ]
    assert missed_confirmed(turn, frozenset({(7, 6), (7, 11)})) is turn


def test_a_tile_like_square_past_a_words_end_is_asked(tmp_path: Path) -> None:
    # CAT just played, its square past the T read empty but looking like a tile: CATS?
    turn = _first_move(tmp_path, ".......CAT.....")
    asked = tile_like_confirmed(turn, frozenset({(7, 10), (3, 3)}))
    assert asked.result.status is TurnStatus.NEEDS_REVIEW and asked.proposed == (turn.event,)
    assert [(c.square, c.candidates) for c in asked.result.uncertain] == [((7, 10), (".",))]
    # A tile-like square away from the words' ends changes nothing the play scores.
    assert tile_like_confirmed(turn, frozenset({(3, 3), (8, 8)})) is turn
    assert tile_like_confirmed(turn, frozenset()) is turn


def test_a_pass_with_a_tile_like_square_beside_the_tiles_is_asked(tmp_path: Path) -> None:
    # The board as CAT left it, its square past the T looking like a tile: CATS played?
    _, turn = _moves(tmp_path, ".......CAT.....", ".......CAT.....")
    assert isinstance(turn.event, Pass)
    asked = tile_like_confirmed(turn, frozenset({(7, 10), (3, 3)}))
    assert asked.result.status is TurnStatus.NEEDS_REVIEW and asked.proposed == (turn.event,)
    assert [(c.square, c.candidates) for c in asked.result.uncertain] == [((7, 10), (".",))]
    # Far from every tile, no play of one tile could lie there.
    assert tile_like_confirmed(turn, frozenset({(3, 3)})) is turn
