"""Scoring a play exactly as RULES.md §4, with a per-word breakdown of the premiums used.

Small enough to check by eye: letter premiums and word multipliers count only under new tiles,
each cross word scores with its own multipliers, the bingo bonus is added once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from scorer.board import Board, Square, Tile, position_name, square_name
from scorer.errors import IllegalPlay, PlayErrorCode
from scorer.notation import tile_count
from scorer.variant import Variant


@dataclass(frozen=True)
class Placement:
    """A tile put on an empty square by a play."""

    row: int
    col: int
    tile: Tile

    @property
    def square(self) -> Square:
        return self.row, self.col


@dataclass(frozen=True)
class WordScore:
    """One word a play forms, with how it scored.

    `premiums` names each premium square under a new tile, e.g. `("H8 2W", "D8 3L")`.
    """

    word: str
    row: int
    col: int
    across: bool
    letter_sum: int
    word_multiplier: int
    score: int
    premiums: tuple[str, ...]

    @property
    def position(self) -> str:
        return position_name(self.row, self.col, self.across)

    @property
    def length(self) -> int:
        """How many squares the word covers (`word` writes a CH tile as `[CH]`)."""
        return tile_count(self.word)

    @property
    def squares(self) -> tuple[tuple[int, int], ...]:
        """The squares the word covers, first to last."""
        dr, dc = (0, 1) if self.across else (1, 0)
        return tuple((self.row + dr * i, self.col + dc * i) for i in range(self.length))


@dataclass(frozen=True)
class ScoredPlay:
    """A play with every word it forms (main word first), the bingo bonus and the total."""

    placements: tuple[Placement, ...]
    across: bool
    words: tuple[WordScore, ...]
    bingo_bonus: int
    score: int

    @property
    def main_word(self) -> WordScore:
        return self.words[0]

    @property
    def position(self) -> str:
        return self.main_word.position

    @property
    def word(self) -> str:
        return self.main_word.word


def tile_value(tile: Tile, variant: Variant) -> int:
    """What a tile scores: its face value; a blank 0, or its letter's value under that option."""
    if tile.is_blank:
        if variant.options.blank_scores_letter and tile.letter != "?":
            return variant.value(tile.letter)
        return 0
    return variant.value(tile.letter)


def _score_word(
    board: Board, run: Sequence[Square], fresh: set[Square], across: bool, variant: Variant
) -> WordScore:
    letter_sum, multiplier, premiums = 0, 1, []
    for row, col in run:
        tile = board[row, col]
        assert tile is not None
        value = tile_value(tile, variant)
        if (row, col) in fresh:
            premium = variant.layout.premium(row, col)
            value *= premium.letter
            multiplier *= premium.word
            if premium.letter > 1:
                premiums.append(f"{square_name(row, col)} {premium.letter}L")
            if premium.word > 1:
                premiums.append(f"{square_name(row, col)} {premium.word}W")
        letter_sum += value
    word = "".join(board[s].char for s in run)  # type: ignore[union-attr]
    row, col = run[0]
    return WordScore(
        word, row, col, across, letter_sum, multiplier, letter_sum * multiplier, tuple(premiums)
    )


def play_direction(board: Board, placements: Iterable[Placement]) -> bool:
    """Whether a play runs across (True) or down; a lone tile takes the direction of its longer word."""
    squares = [p.square for p in placements]
    if not squares:
        raise IllegalPlay(PlayErrorCode.NO_TILES, "no tiles were placed")
    if len({r for r, _ in squares}) == 1 and len(squares) > 1:
        return True
    if len({c for _, c in squares}) == 1 and len(squares) > 1:
        return False
    if len(squares) > 1:
        raise IllegalPlay(
            PlayErrorCode.NOT_IN_LINE, "the new tiles are not in one row or column", tuple(squares)
        )
    after = board.place({squares[0]: Tile("?", True)})
    return len(after.run_through(squares[0], True)) >= len(after.run_through(squares[0], False))


def score_play(
    board: Board, placements: Iterable[Placement], variant: Variant, across: bool | None = None
) -> ScoredPlay:
    """Score `placements` put on `board`. Checks geometry only (empty squares, one line, no gap);
    connection, first-move and dictionary rules are the caller's (see `scorer.move`).

    `across` fixes the direction of a one-tile play (GCG gives it); otherwise it is inferred.
    """
    placements = tuple(placements)
    for p in placements:
        if not board.in_bounds(p.row, p.col):
            raise IllegalPlay(PlayErrorCode.OFF_BOARD, f"{(p.row, p.col)} is off the board")
        if board[p.row, p.col] is not None:
            raise IllegalPlay(
                PlayErrorCode.OCCUPIED,
                f"square {square_name(p.row, p.col)} is already occupied",
                (p.square,),
            )
    if len({p.square for p in placements}) != len(placements):
        raise IllegalPlay(PlayErrorCode.OCCUPIED, "two tiles placed on one square")
    inferred = play_direction(board, placements)
    if across is None or len(placements) > 1:
        across = inferred
    after = board.place({p.square: p.tile for p in placements})
    fresh = {p.square for p in placements}
    main_run = after.run_through(placements[0].square, across)
    if not fresh <= set(main_run):
        raise IllegalPlay(
            PlayErrorCode.GAP, "the new tiles leave an empty square between them", tuple(fresh)
        )
    words = []
    if len(main_run) > 1:
        words.append(_score_word(after, main_run, fresh, across, variant))
    for p in sorted(placements, key=lambda p: p.square):
        cross = after.run_through(p.square, not across)
        if len(cross) > 1:
            words.append(_score_word(after, cross, fresh, not across, variant))
    if not words:
        # A lone tile with no neighbour forms no word; it still scores its own square.
        words.append(_score_word(after, main_run, fresh, across, variant))
    bingo = variant.bingo_bonus if len(placements) in variant.bingo_sizes else 0
    total = sum(w.score for w in words) + bingo
    return ScoredPlay(placements, across, tuple(words), bingo, total)
