"""Finding the move between two boards: which tiles are new, whether they form a legal play, and
how a whole-board change reads (unchanged, a play, or the last play withdrawn after a challenge).

Blanks: an old blank shown as `?` on one board and with a letter on the other is the same tile
(its letter was designated, or this photo does not tell it); only a different letter, a tile
turning into a blank or back, or a tile gone counts as a change.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from scorer.board import UNKNOWN_BLANK, Board, Square, Tile, square_name
from scorer.errors import IllegalPlay, PlayErrorCode
from scorer.scoring import Placement, ScoredPlay, score_play
from scorer.variant import Variant


class ChangeKind(StrEnum):
    """How the board changed between two photos."""

    UNCHANGED = "unchanged"
    PLAY = "play"
    WITHDRAWN = "withdrawn"


@dataclass(frozen=True)
class Change:
    """A whole-board transition.

    `play` is the new play (kind `play`) or the play taken back (kind `withdrawn`), else None.
    `board` is the board to carry forward: `after`, keeping letters already known for old blanks.
    """

    kind: ChangeKind
    board: Board
    play: ScoredPlay | None = None


@dataclass(frozen=True)
class _Diff:
    """Square-by-square comparison of two boards of the same size."""

    added: tuple[Square, ...]
    removed: tuple[Square, ...]
    changed: tuple[Square, ...]
    merged: Board  # `before`, with the letters `after` shows for old `?` blanks (and swaps)
    swapped: tuple[Square, ...] = ()  # blanks replaced by their real letter (blank swap)


def _names(squares: Iterable[Square]) -> str:
    return ", ".join(square_name(r, c) for r, c in squares)


def same_tile(old: Tile, new: Tile) -> bool:
    """Whether `new` may be the tile `old` seen again: equal, or a blank with `?` on one side.

    >>> same_tile(Tile("?", True), Tile("Ж", True)), same_tile(Tile("Ж", True), Tile("Ж"))
    (True, False)
    """
    if old.is_blank != new.is_blank:
        return False
    return old.letter == new.letter or (old.is_blank and UNKNOWN_BLANK in (old.letter, new.letter))


def _check_size(before: Board, after: Board, variant: Variant) -> None:
    layout = variant.layout
    for name, board in (("before", before), ("after", after)):
        if (board.height, board.width) != (layout.height, layout.width):
            raise IllegalPlay(
                PlayErrorCode.SIZE_MISMATCH,
                f"the {name} board is {board.width}×{board.height} but the "
                f"{layout.name} layout is {layout.width}×{layout.height}",
            )


def _compare(before: Board, after: Board, variant: Variant) -> _Diff:
    """Check both boards fit the layout, then compare them square by square."""
    _check_size(before, after, variant)
    added, removed, changed, swapped, designated = [], [], [], [], {}
    for index, (old, new) in enumerate(zip(before.cells, after.cells, strict=True)):
        square = divmod(index, before.width)
        if old is None:
            if new is not None:
                added.append(square)
        elif new is None:
            removed.append(square)
        elif variant.options.blank_swap and _is_swap(old, new):
            swapped.append(square)
            designated[square] = new
        elif not same_tile(old, new):
            changed.append(square)
        elif old.letter == UNKNOWN_BLANK and new.letter != UNKNOWN_BLANK:
            designated[square] = new
    _check_letters(after, designated, variant)
    return _Diff(
        tuple(added), tuple(removed), tuple(changed), before.place(designated), tuple(swapped)
    )


def _is_swap(old: Tile, new: Tile) -> bool:
    """A blank standing for a letter replaced by a real tile of that letter (RULES.md §7)."""
    return old.is_blank and not new.is_blank and old.letter == new.letter


def _at(board: Board, square: Square) -> Tile:
    tile = board[square]
    assert tile is not None, f"{square_name(*square)} is empty"
    return tile


def _check_letters(after: Board, squares: Iterable[Square], variant: Variant) -> None:
    for square in squares:
        tile = _at(after, square)
        if not (variant.has_letter(tile.letter) or tile.is_blank and tile.letter == UNKNOWN_BLANK):
            raise IllegalPlay(
                PlayErrorCode.UNKNOWN_LETTER,
                f"{square_name(*square)} holds {tile.char!r}, not a letter of {variant.title}",
                (square,),
            )


def _raise_removed_or_changed(before: Board, after: Board, diff: _Diff) -> None:
    if diff.removed:
        listed = ", ".join(f"{square_name(*s)} ({_at(before, s).char})" for s in diff.removed)
        raise IllegalPlay(
            PlayErrorCode.TILE_REMOVED,
            f"tiles already on the board were removed: {listed}",
            diff.removed,
        )
    if diff.changed:
        listed = ", ".join(
            f"{square_name(*s)} {_at(before, s).char}→{_at(after, s).char}" for s in diff.changed
        )
        raise IllegalPlay(
            PlayErrorCode.TILE_CHANGED,
            f"tiles already on the board changed: {listed}",
            diff.changed,
        )


def _check_geometry(base: Board, after: Board, new: tuple[Square, ...], variant: Variant) -> None:
    """One line, no empty square between the new tiles, and connected (or the first play's rules)."""
    rows, cols = {r for r, _ in new}, {c for _, c in new}
    if len(rows) > 1 and len(cols) > 1:
        raise IllegalPlay(
            PlayErrorCode.NOT_IN_LINE,
            f"the new tiles {_names(new)} are not in one row or column",
            new,
        )
    (first_row, first_col), (last_row, last_col) = new[0], new[-1]
    span = [(r, c) for r in range(first_row, last_row + 1) for c in range(first_col, last_col + 1)]
    gaps = tuple(s for s in span if after[s] is None)
    if gaps:
        raise IllegalPlay(
            PlayErrorCode.GAP,
            f"the new tiles leave {_names(gaps)} empty between them",
            gaps,
        )
    if base.is_empty():
        centre = variant.layout.centre
        if centre not in new:
            raise IllegalPlay(
                PlayErrorCode.FIRST_MOVE_OFF_CENTRE,
                f"the first play must cover the centre square {square_name(*centre)}; "
                f"it is at {_names(new)}",
                new,
            )
        if len(new) < variant.first_move_min_tiles:
            raise IllegalPlay(
                PlayErrorCode.FIRST_MOVE_TOO_SHORT,
                f"the first play must use at least {variant.first_move_min_tiles} tiles; "
                f"it uses {len(new)} ({_names(new)})",
                new,
            )
    elif not any(base.touches_tile(r, c) for r, c in new):
        raise IllegalPlay(
            PlayErrorCode.NOT_CONNECTED,
            f"the new tiles {_names(new)} touch no tile already on the board",
            new,
        )


def _play(before: Board, after: Board, diff: _Diff, variant: Variant) -> ScoredPlay:
    _raise_removed_or_changed(before, after, diff)
    new = diff.added
    if len(diff.swapped) > sum(_at(after, s).is_blank for s in new):
        raise IllegalPlay(
            PlayErrorCode.TILE_CHANGED,
            f"the blank taken from {_names(diff.swapped)} must be played on the same turn",
            diff.swapped,
        )
    if not new:
        raise IllegalPlay(PlayErrorCode.NO_TILES, "no new tiles on the board")
    _check_letters(after, new, variant)
    if len(new) > variant.rack_size:
        raise IllegalPlay(
            PlayErrorCode.TOO_MANY_TILES,
            f"{len(new)} new tiles ({_names(new)}), but a rack holds {variant.rack_size}",
            new,
        )
    _check_geometry(diff.merged, after, new, variant)
    placements = [Placement(r, c, _at(after, (r, c))) for r, c in new]
    return score_play(diff.merged, placements, variant)


def find_play(before: Board, after: Board, variant: Variant) -> ScoredPlay:
    """The legal play that turns `before` into `after`, scored; `IllegalPlay` names what is wrong.

    Placements come in reading order. Old `?` blanks that `after` gives a letter score with it.

    >>> from scorer.variant import load_variant
    >>> after = Board.empty().place({(7, 7): Tile("Ё"), (7, 8): Tile("Ж")})
    >>> play = find_play(Board.empty(), after, load_variant("ru"))
    >>> play.position, play.word, play.score
    ('8H', 'ЁЖ', 16)
    """
    diff = _compare(before, after, variant)
    return _play(before, after, diff, variant)


def classify_change(
    before: Board, after: Board, variant: Variant, last_play: ScoredPlay | None = None
) -> Change:
    """Read a whole-board transition: unchanged (a pass or an exchange), a play, or `last_play`
    withdrawn (exactly its tiles gone, nothing else changed: a successful challenge).

    Anything else raises `IllegalPlay`, including a withdrawal seen together with other changes.

    >>> from scorer.variant import load_variant
    >>> ru = load_variant("ru")
    >>> after = Board.empty().place({(7, 7): Tile("Ё"), (7, 8): Tile("Ж")})
    >>> classify_change(Board.empty(), after, ru).kind
    <ChangeKind.PLAY: 'play'>
    >>> classify_change(after, Board.empty(), ru, find_play(Board.empty(), after, ru)).kind
    <ChangeKind.WITHDRAWN: 'withdrawn'>
    """
    diff = _compare(before, after, variant)
    withdrawn = {p.square for p in last_play.placements} if last_play else set()
    if withdrawn and set(diff.removed) == withdrawn:
        extra = diff.added + diff.changed + diff.swapped
        if extra:
            raise IllegalPlay(
                PlayErrorCode.TILE_CHANGED if diff.changed else PlayErrorCode.TILE_REMOVED,
                f"the last play was taken back ({_names(diff.removed)}) and the board also "
                f"changed at {_names(extra)}; photograph the board before the next play",
                extra,
            )
        board = diff.merged.place(dict.fromkeys(diff.removed))
        return Change(ChangeKind.WITHDRAWN, board, last_play)
    if not (diff.added or diff.removed or diff.changed or diff.swapped):
        return Change(ChangeKind.UNCHANGED, diff.merged)
    play = _play(before, after, diff, variant)
    return Change(
        ChangeKind.PLAY, diff.merged.place({p.square: p.tile for p in play.placements}), play
    )
