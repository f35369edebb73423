"""The board: an immutable grid of tiles, and the board text format of DESIGN.md §4.

Text format: one line per row, `.` an empty square, an upper-case letter a lettered tile, a
lower-case letter a blank standing for that letter, `?` a blank whose letter is not known yet.
A tile of several letters (Spanish CH) is written in brackets, `[CH]`, `[ch]` for a blank
standing for it (`scorer.notation`): a row has one token per square, not one character.
Coordinates are 0-based (row, col) in code and GCG-style (`8H`, `H8`) at the edges.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from scorer.notation import NotationError, split_tiles, tile_text, unbracket

EMPTY = "."
UNKNOWN_BLANK = "?"
COLUMN_NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class BoardTextError(ValueError):
    """Board text that does not describe a board; the message names the line."""


@dataclass(frozen=True)
class Tile:
    """A tile on the board: a letter, or a blank (`is_blank`) standing for `letter`.

    A blank whose letter is not known yet has `letter == "?"`. `letter` is upper case and may
    have several letters (`CH`) on editions with such tiles.
    """

    letter: str
    is_blank: bool = False

    @classmethod
    def from_char(cls, ch: str) -> Tile:
        """Parse one board-text token (not `.`): a character, or a bracketed tile (`[ch]`).

        >>> Tile.from_char("[ch]"), Tile.from_char("Ä")
        (Tile(letter='CH', is_blank=True), Tile(letter='Ä', is_blank=False))
        """
        if ch == UNKNOWN_BLANK:
            return cls(UNKNOWN_BLANK, True)
        letters = unbracket(ch)
        if letters.isupper() or not letters.isalpha():
            return cls(letters, False)
        return cls(letters.upper(), True)

    @property
    def char(self) -> str:
        """The board-text token for this tile: one character, or a bracketed group (`[CH]`)."""
        if self.is_blank:
            if self.letter == UNKNOWN_BLANK:
                return UNKNOWN_BLANK
            return tile_text(self.letter.lower())
        return tile_text(self.letter)


Square = tuple[int, int]


@dataclass(frozen=True)
class Board:
    """An immutable rectangular grid; each square holds a `Tile` or `None`.

    >>> b = Board.empty(15, 15).place({(7, 7): Tile("Ё")})
    >>> b[7, 7].letter
    'Ё'
    """

    width: int
    height: int
    cells: tuple[Tile | None, ...]

    def __post_init__(self) -> None:
        if self.width < 1 or self.height < 1 or len(self.cells) != self.width * self.height:
            raise ValueError("board cells do not match its size")

    @classmethod
    def empty(cls, width: int = 15, height: int = 15) -> Board:
        return cls(width, height, (None,) * (width * height))

    @classmethod
    def from_rows(cls, rows: Iterable[str]) -> Board:
        """Build a board from rows of board text (no blank lines)."""
        return cls.from_text("\n".join(rows))

    @classmethod
    def from_text(cls, text: str, width: int | None = None, height: int | None = None) -> Board:
        """Parse board text; blank lines around it and trailing spaces are ignored.

        Raises `BoardTextError` naming the first bad line.
        """
        lines = [line.rstrip() for line in text.strip("\n").splitlines()]
        while lines and not lines[-1]:
            lines.pop()
        if not lines:
            raise BoardTextError("board text is empty")
        rows = []
        for number, line in enumerate(lines, start=1):
            try:
                rows.append(split_tiles(line))
            except NotationError as exc:
                raise BoardTextError(f"line {number}: {exc}") from None
        width = width or len(rows[0])
        height = height or len(lines)
        if len(lines) != height:
            raise BoardTextError(f"board text has {len(lines)} lines, expected {height}")
        cells: list[Tile | None] = []
        for number, (line, squares) in enumerate(zip(lines, rows, strict=True), start=1):
            if len(squares) != width:
                raise BoardTextError(
                    f"line {number}: {len(squares)} squares, expected {width}: {line!r}"
                )
            for col, ch in enumerate(squares):
                if ch == EMPTY:
                    cells.append(None)
                elif unbracket(ch).isalpha() or ch in (UNKNOWN_BLANK, "'"):
                    cells.append(Tile.from_char(ch))
                else:
                    raise BoardTextError(
                        f"line {number}, column {col + 1}: {ch!r} is not a letter, '.' or '?'"
                    )
        return cls(width, height, tuple(cells))

    def to_text(self) -> str:
        """The board text, one line per row, no trailing newline."""
        return "\n".join(self.row_text(r) for r in range(self.height))

    def row_text(self, row: int) -> str:
        return "".join(EMPTY if t is None else t.char for t in self.row(row))

    @property
    def rows(self) -> list[str]:
        return [self.row_text(r) for r in range(self.height)]

    def row(self, row: int) -> tuple[Tile | None, ...]:
        return self.cells[row * self.width : (row + 1) * self.width]

    def in_bounds(self, row: int, col: int) -> bool:
        return 0 <= row < self.height and 0 <= col < self.width

    def __getitem__(self, square: Square) -> Tile | None:
        row, col = square
        if not self.in_bounds(row, col):
            raise IndexError(f"square {square} is off the board")
        return self.cells[row * self.width + col]

    def get(self, row: int, col: int) -> Tile | None:
        """The tile at (row, col), or None when empty or off the board."""
        if not self.in_bounds(row, col):
            return None
        return self.cells[row * self.width + col]

    def touches_tile(self, row: int, col: int) -> bool:
        """Whether a tile lies next to (row, col), across or down."""
        return any(
            self.get(row + dr, col + dc) is not None
            for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
        )

    def run_through(self, square: Square, across: bool) -> tuple[Square, ...]:
        """The maximal run of occupied squares through `square`, across or down (empty when
        `square` is empty, length 1 when the tile stands alone in that direction)."""
        dr, dc = (0, 1) if across else (1, 0)
        row, col = square
        while self.get(row - dr, col - dc) is not None:
            row, col = row - dr, col - dc
        run = []
        while self.get(row, col) is not None:
            run.append((row, col))
            row, col = row + dr, col + dc
        return tuple(run)

    def tiles(self) -> Iterator[tuple[Square, Tile]]:
        """Every occupied square with its tile, row by row."""
        for i, tile in enumerate(self.cells):
            if tile is not None:
                yield (i // self.width, i % self.width), tile

    def tile_count(self) -> int:
        return sum(t is not None for t in self.cells)

    def is_empty(self) -> bool:
        return all(t is None for t in self.cells)

    def place(self, placements: dict[Square, Tile | None]) -> Board:
        """A new board with the given squares set (None empties a square)."""
        cells = list(self.cells)
        for (row, col), tile in placements.items():
            if not self.in_bounds(row, col):
                raise IndexError(f"square {(row, col)} is off the board")
            cells[row * self.width + col] = tile
        return Board(self.width, self.height, tuple(cells))

    def transposed(self) -> Board:
        """The board mirrored on its main diagonal (rows become columns)."""
        cells = tuple(self.get(r, c) for c in range(self.width) for r in range(self.height))
        return Board(self.height, self.width, cells)

    def rotated(self, quarter_turns: int) -> Board:
        """The board turned clockwise by `quarter_turns` × 90°."""
        board = self
        for _ in range(quarter_turns % 4):
            cells = tuple(
                board.get(board.height - 1 - c, r)
                for r in range(board.width)
                for c in range(board.height)
            )
            board = Board(board.height, board.width, cells)
        return board

    def __str__(self) -> str:
        return self.to_text()


def square_name(row: int, col: int) -> str:
    """GCG name of a square, e.g. (7, 7) → 'H8'."""
    return f"{COLUMN_NAMES[col]}{row + 1}"


def position_name(row: int, col: int, across: bool) -> str:
    """GCG position of a play's first square: row first when across (`8H`), else column (`H8`)."""
    return f"{row + 1}{COLUMN_NAMES[col]}" if across else f"{COLUMN_NAMES[col]}{row + 1}"


def parse_position(text: str) -> tuple[int, int, bool]:
    """Parse a GCG position (`8H` across, `H8` down, any case) into (row, col, across)."""
    text = text.strip().upper()
    if not text:
        raise ValueError("empty position")
    if text[0].isdigit():
        digits, letters, across = text.rstrip(COLUMN_NAMES), text.lstrip("0123456789"), True
    else:
        letters, digits, across = text.rstrip("0123456789"), text.lstrip(COLUMN_NAMES), False
    if len(letters) != 1 or not digits.isdigit() or letters not in COLUMN_NAMES:
        raise ValueError(f"bad position {text!r}")
    if digits + letters != text and letters + digits != text:
        raise ValueError(f"bad position {text!r}")
    return int(digits) - 1, COLUMN_NAMES.index(letters), across
