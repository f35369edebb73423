"""The named ways a change on the board can fail to be a legal play."""

from __future__ import annotations

from enum import StrEnum


class PlayErrorCode(StrEnum):
    """Why a set of new tiles is not a legal play (stable strings for the CLI and the API)."""

    NO_TILES = "no_tiles"
    OCCUPIED = "occupied"
    OFF_BOARD = "off_board"
    NOT_IN_LINE = "not_in_line"
    GAP = "gap"
    NOT_CONNECTED = "not_connected"
    FIRST_MOVE_OFF_CENTRE = "first_move_off_centre"
    FIRST_MOVE_TOO_SHORT = "first_move_too_short"
    TILE_REMOVED = "tile_removed"
    TILE_CHANGED = "tile_changed"
    SIZE_MISMATCH = "size_mismatch"
    UNKNOWN_LETTER = "unknown_letter"
    TOO_MANY_TILES = "too_many_tiles"
    INVALID_WORD = "invalid_word"
    DUPLICATE_WORD = "duplicate_word"


class IllegalPlay(ValueError):
    """A change on the board that is not a legal play; `code` says which rule it breaks."""

    def __init__(
        self, code: PlayErrorCode, message: str, squares: tuple[tuple[int, int], ...] = ()
    ):
        super().__init__(message)
        self.code = code
        self.squares = squares
