"""Variants as data: board layouts, tile sets and house options loaded from the package's data files
or from a player's own variant file.

Every rule that differs between Scrabble, Скрэббл and Эрудит lives in `data/variants/*.toml` and
`data/layouts/*.txt`; the logic elsewhere reads these objects and never branches on a variant name.
A player's own edition (`parse_variant`) is a TOML file of the same schema, its board either a
shipped layout's name or its own rows of any size from `MIN_SIDE` to `MAX_SIDE` squares, and is
checked strictly: every key known, every value of its type and in range.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Literal, TypeVar

ChallengeRule = Literal["double", "five_point"]
OutBonus = Literal["sum_of_others", "twice_others_two_players"]
T = TypeVar("T")

# Layout characters (RULES.md §1): letter multiplier, word multiplier.
_PREMIUM_CODES: dict[str, tuple[int, int]] = {
    ".": (1, 1),
    "'": (2, 1),
    '"': (3, 1),
    "-": (1, 2),
    "=": (1, 3),
    "*": (1, 2),
    "+": (1, 1),
}
_CENTRE_CODES = "*+"
# Board sides, in squares: GCG names columns with single letters A-Z, and a board under 5 squares
# across leaves no room for a game.
MIN_SIDE, MAX_SIDE = 5, 25


class VariantError(ValueError):
    """An unknown variant or layout, a malformed data file, or an invalid option."""


@dataclass(frozen=True)
class Premium:
    """The multipliers of one square; they apply only on the turn a tile is first placed there."""

    letter: int = 1
    word: int = 1


@dataclass(frozen=True)
class Layout:
    """A board's premium squares, written as rows of `= - " ' * + .` characters."""

    name: str
    rows: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.rows:
            raise VariantError(f"layout {self.name!r}: no rows")
        for number, row in enumerate(self.rows, start=1):
            if len(row) != len(self.rows[0]):
                raise VariantError(
                    f"layout {self.name!r} is not rectangular: row {number} has {len(row)} "
                    f"squares, row 1 has {len(self.rows[0])}"
                )
        if not all(MIN_SIDE <= side <= MAX_SIDE for side in (len(self.rows), len(self.rows[0]))):
            raise VariantError(
                f"layout {self.name!r} is {len(self.rows[0])}×{len(self.rows)} squares; each "
                f"side must be {MIN_SIDE} to {MAX_SIDE}"
            )
        bad = {ch for r in self.rows for ch in r} - set(_PREMIUM_CODES)
        if bad:
            raise VariantError(f"layout {self.name!r}: unknown square codes {sorted(bad)}")
        if sum(r.count(c) for r in self.rows for c in _CENTRE_CODES) != 1:
            raise VariantError(f"layout {self.name!r}: needs exactly one centre square (* or +)")

    @property
    def height(self) -> int:
        return len(self.rows)

    @property
    def width(self) -> int:
        return len(self.rows[0])

    @property
    def centre(self) -> tuple[int, int]:
        """(row, col), 0-based, of the square the first play must cover."""
        for r, line in enumerate(self.rows):
            for c, ch in enumerate(line):
                if ch in _CENTRE_CODES:
                    return r, c
        raise AssertionError("validated in __post_init__")

    def premium(self, row: int, col: int) -> Premium:
        """The premium of square (row, col), 0-based."""
        return Premium(*_PREMIUM_CODES[self.rows[row][col]])


@dataclass(frozen=True)
class Options:
    """The house options players agree on before a game (RULES.md §7)."""

    blank_scores_letter: bool = False
    blank_swap: bool = False
    one_copy_of_word: bool = False
    finish_line: int = 0
    nine_tile_racks: bool = False
    tournament: bool = False
    challenge: ChallengeRule = "double"
    challenge_bonus: int = 5
    """Points the challenged player gains under the `five_point` rule (some clubs give 10)."""

    def __post_init__(self) -> None:
        if self.challenge not in ("double", "five_point"):
            raise VariantError(
                f"challenge rule must be 'double' or 'five_point', not {self.challenge!r}"
            )
        if self.challenge_bonus < 0:
            raise VariantError("challenge_bonus must not be negative")
        if self.finish_line < 0:
            raise VariantError("finish_line must be 0 (off) or a positive score")


@dataclass(frozen=True)
class EndRules:
    """When a game ends by itself and how the racks left are settled (RULES.md §6)."""

    scoreless_turns: int = 0
    consecutive_passes_per_player: int = 2
    out_bonus: OutBonus = "sum_of_others"


@dataclass(frozen=True)
class Variant:
    """One edition's rules: tile set, layout, rack, bonuses, dictionary policy and house options.

    >>> v = load_variant("erudit")
    >>> v.bingo_bonus, v.blank_count, v.value("Ф")
    (15, 3, 10)
    """

    name: str
    title: str
    language: str
    layout: Layout
    tiles: dict[str, tuple[int, int]]
    blank_count: int
    blank_name: str
    rack_size: int
    bingo_bonus: int
    bingo_sizes: frozenset[int]
    first_move_min_tiles: int
    exchange_min_bag: int
    dictionary: str
    end: EndRules
    options: Options
    blank_symbol: str = ""
    equivalent_letters: tuple[tuple[str, ...], ...] = ()
    nine_tile: dict[str, object] = field(default_factory=dict)
    read_as: dict[str, str] = field(default_factory=dict)
    """`[vision] read_as`: letters of this edition that the cell model has no class for, each
    with the letter whose class it shows as (Ä as A, CH as C); the reader then offers both and
    never takes either on the photo alone."""

    @property
    def multi_letter(self) -> tuple[str, ...]:
        """The tiles that carry several letters (Spanish CH, LL, RR), in the tile set's order."""
        return tuple(letter for letter in self.tiles if len(letter) > 1)

    @property
    def alphabet(self) -> tuple[str, ...]:
        """The letters of the tile set, in the data file's (alphabetical) order."""
        return tuple(self.tiles)

    @property
    def tile_total(self) -> int:
        return sum(count for count, _ in self.tiles.values()) + self.blank_count

    def count(self, letter: str) -> int:
        """How many tiles of `letter` the set holds (0 for a letter not in the set)."""
        return self.tiles.get(letter, (0, 0))[0]

    def value(self, letter: str) -> int:
        """The face value of a lettered tile (0 for a letter not in the set)."""
        return self.tiles.get(letter, (0, 0))[1]

    def has_letter(self, letter: str) -> bool:
        return letter in self.tiles

    def canonical_letter(self, letter: str) -> str:
        """The representative of `letter`'s equivalence class for word lookups (Ё → Е)."""
        for group in self.equivalent_letters:
            if letter in group:
                return group[0]
        return letter

    def with_options(self, **changes: object) -> Variant:
        """A copy with some house options changed; nine-tile racks also change rack and bonus."""
        options = dataclasses.replace(self.options, **changes)  # type: ignore[arg-type]
        variant = dataclasses.replace(self, options=options)
        if options.nine_tile_racks and self.nine_tile:
            variant = dataclasses.replace(
                variant,
                rack_size=int(self.nine_tile["rack_size"]),  # type: ignore[call-overload]
                bingo_bonus=int(self.nine_tile["bingo_bonus"]),  # type: ignore[call-overload]
                bingo_sizes=frozenset(self.nine_tile["bingo_sizes"]),  # type: ignore[arg-type]
            )
        return variant

    def with_layout(self, layout: str | Layout) -> Variant:
        """A copy played on another board (e.g. a «Словодел» board with all 12 letter ×3 squares)."""
        chosen = load_layout(layout) if isinstance(layout, str) else layout
        return dataclasses.replace(self, layout=chosen)


def _data_dir(kind: str) -> resources.abc.Traversable:
    return resources.files("scorer").joinpath("data", kind)


def variant_names() -> list[str]:
    """Names of the variants shipped in the package."""
    return sorted(p.name[:-5] for p in _data_dir("variants").iterdir() if p.name.endswith(".toml"))


def layout_names() -> list[str]:
    """Names of the board layouts shipped in the package."""
    return sorted(p.name[:-4] for p in _data_dir("layouts").iterdir() if p.name.endswith(".txt"))


@cache
def load_layout(name: str) -> Layout:
    """Load a board layout by name (`scrabble`, `erudit`)."""
    if name not in layout_names():
        raise VariantError(f"unknown layout {name!r}; known: {', '.join(layout_names())}")
    text = _data_dir("layouts").joinpath(f"{name}.txt").read_text(encoding="utf-8")
    return Layout(name, tuple(line for line in text.splitlines() if line.strip()))


@cache
def load_variant(name: str) -> Variant:
    """Load a variant by name (`en`, `ru`, `erudit`, `uk`) with its default options.

    >>> load_variant("ru").tile_total
    104
    """
    if name not in variant_names():
        raise VariantError(f"unknown variant {name!r}; known: {', '.join(variant_names())}")
    text = _data_dir("variants").joinpath(f"{name}.toml").read_text(encoding="utf-8")
    return parse_variant(text, f"variant file {name}.toml")


# A player's variant file: every key of the shipped files, each with its type. The `end`,
# `options` and `nine_tile` tables may be left out (defaults, no nine-tile racks).
_REQUIRED: dict[str, type | tuple[type, ...]] = {
    "name": str,
    "title": str,
    "language": str,
    "layout": (str, list),
    "rack_size": int,
    "bingo_bonus": int,
    "bingo_sizes": list,
    "blank_count": int,
    "blank_name": str,
    "first_move_min_tiles": int,
    "exchange_min_bag": int,
    "dictionary": str,
    "tiles": dict,
}
_OPTIONAL: dict[str, type | tuple[type, ...]] = {
    "blank_symbol": str,
    "equivalent_letters": list,
    "end": dict,
    "options": dict,
    "nine_tile": dict,
    "vision": dict,
}
_VISION = {"read_as": dict}
_NINE_TILE = {"rack_size": int, "bingo_bonus": int, "bingo_sizes": list}
_MAX_TILES = 100  # per letter, and the blanks
_MAX_VALUE = 100
_MAX_RACK = 20
_NON_TILE_CHARS = ".?*"  # board text's empty square and unknown blank, the star tile's print


_TOML_NAMES = {str: "a string", int: "an integer", list: "an array", dict: "a table"}


def _checked(table: dict, known: dict[str, type | tuple[type, ...]], where: str) -> dict:
    """`table`, its every key known and of its type."""
    for key, value in table.items():
        if key not in known:
            raise VariantError(f"{where}: unknown key {key!r}; known: {', '.join(known)}")
        wanted = known[key] if isinstance(known[key], tuple) else (known[key],)
        # A TOML boolean is a Python int: `true` must not pass for 1.
        if not isinstance(value, wanted) or (isinstance(value, bool) and bool not in wanted):
            kinds = " or ".join(_TOML_NAMES.get(t, "true/false") for t in wanted)
            raise VariantError(f"{where}: {key!r} must be {kinds}, not {value!r}")
    return table


def _in_range(value: int, low: int, high: int, what: str, where: str) -> int:
    if not low <= value <= high:
        raise VariantError(f"{where}: {what} must be {low} to {high}, not {value}")
    return value


_MAX_TILE_LETTERS = 3  # the longest tile of any edition: Spanish CH, Catalan L·L written LL


def _tile_letter(letter: str, where: str) -> str:
    """A letter a tile may carry: one character that board text shows as a lettered tile, or 2 to
    `_MAX_TILE_LETTERS` upper-case letters printed on one tile (written `[CH]` in board text)."""
    if 2 <= len(letter) <= _MAX_TILE_LETTERS and letter.isalpha() and letter.isupper():
        return letter
    if (
        len(letter) != 1
        or letter in _NON_TILE_CHARS
        or not letter.isprintable()
        or letter.isspace()
        or letter.isdigit()
        or (letter.isalpha() and not letter.isupper())
    ):
        raise VariantError(
            f"{where}: {letter!r} cannot be a tile's letter: give one upper-case letter (or a "
            f"sign such as the apostrophe), or 2 to {_MAX_TILE_LETTERS} upper-case letters "
            f"printed on one tile (CH), not a digit, space or one of {_NON_TILE_CHARS}"
        )
    return letter


def _read_as(raw: dict, tiles: dict[str, tuple[int, int]], where: str) -> dict[str, str]:
    """The `[vision]` table's `read_as`: each key a letter of the tile set, each value the letter
    the cell model reads it as (not itself)."""
    table = _checked(raw, _VISION, f"{where}: [vision]").get("read_as", {})
    read_as: dict[str, str] = {}
    for letter, shown in table.items():
        if letter not in tiles:
            raise VariantError(f"{where}: [vision] read_as names {letter!r}, not a tile letter")
        if not isinstance(shown, str) or shown == letter:
            raise VariantError(
                f"{where}: [vision] read_as {letter!r} must be another letter, not {shown!r}"
            )
        read_as[letter] = _tile_letter(shown, where)
    return read_as


def _sizes(raw: list, rack_size: int, what: str, where: str) -> frozenset[int]:
    """Bingo sizes: a non-empty list of tile counts a rack can hold."""
    if not raw or not all(isinstance(n, int) and not isinstance(n, bool) for n in raw):
        raise VariantError(f"{where}: {what} must be a non-empty array of integers")
    return frozenset(_in_range(n, 1, rack_size, f"each of {what}", where) for n in raw)


def _dataclass_table(cls: type[T], raw: dict, where: str) -> T:
    """Options or end rules from their table: the dataclass's fields, typed as their defaults."""
    known = {f.name: type(f.default) for f in dataclasses.fields(cls)}
    return cls(**_checked(raw, known, where))


def _own_layout(raw: str | list, name: str, where: str) -> Layout:
    if isinstance(raw, str):
        return load_layout(raw)
    if not all(isinstance(row, str) for row in raw):
        raise VariantError(f"{where}: layout rows must be strings of = - \" ' * + . characters")
    return Layout(name, tuple(raw))


def parse_variant(text: str, source: str = "variant file") -> Variant:
    """A variant from the text of a TOML file in the shipped files' schema, checked strictly;
    `source` names the file in the `VariantError` messages.

    `layout` is a shipped layout's name or the board's own rows (RULES.md §1's characters), any
    rectangle with sides of `MIN_SIDE` to `MAX_SIDE` squares and one centre square. The `end`,
    `options` and `nine_tile` tables are optional.

    >>> parse_variant('name = "mine"')
    Traceback (most recent call last):
    ...
    scorer.variant.VariantError: variant file: missing title, language, layout, rack_size, \
bingo_bonus, bingo_sizes, blank_count, blank_name, first_move_min_tiles, exchange_min_bag, \
dictionary, tiles
    """
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise VariantError(f"{source} is not valid TOML: {exc}") from exc
    _checked(raw, {**_REQUIRED, **_OPTIONAL}, source)
    missing = [key for key in _REQUIRED if key not in raw]
    if missing:
        raise VariantError(f"{source}: missing {', '.join(missing)}")
    for key in ("name", "title", "language", "blank_name", "dictionary"):
        if not raw[key].strip() or len(raw[key]) > 100:
            raise VariantError(f"{source}: {key!r} must be 1 to 100 characters")
    if not all(ch.isalnum() or ch in "_-" for ch in raw["name"]):
        raise VariantError(f"{source}: 'name' must be letters, digits, '_' and '-' only")
    rack_size = _in_range(raw["rack_size"], 1, _MAX_RACK, "rack_size", source)
    tiles: dict[str, tuple[int, int]] = {}
    for letter, entry in raw["tiles"].items():
        where = f"{source}: tile {letter!r}"
        _tile_letter(letter, source)
        if (
            not isinstance(entry, list)
            or len(entry) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in entry)
        ):
            raise VariantError(f"{where} must be [count, value], two integers, not {entry!r}")
        count = _in_range(entry[0], 1, _MAX_TILES, "its count", where)
        tiles[letter] = (count, _in_range(entry[1], 0, _MAX_VALUE, "its value", where))
    if not tiles:
        raise VariantError(f"{source}: the tiles table is empty")
    groups = []
    for group in raw.get("equivalent_letters", []):
        if (
            not isinstance(group, list)
            or len(group) < 2
            or not all(isinstance(g, str) for g in group)
        ):
            raise VariantError(f"{source}: each equivalent_letters group is 2 or more letters")
        groups.append(tuple(_tile_letter(letter, source) for letter in group))
    nine_tile = _checked(dict(raw.get("nine_tile", {})), _NINE_TILE, f"{source}: [nine_tile]")
    if nine_tile:
        missing = [key for key in _NINE_TILE if key not in nine_tile]
        if missing:
            raise VariantError(f"{source}: [nine_tile] is missing {', '.join(missing)}")
        nine_rack = _in_range(nine_tile["rack_size"], 1, _MAX_RACK, "[nine_tile] rack_size", source)
        _in_range(nine_tile["bingo_bonus"], 0, 1000, "[nine_tile] bingo_bonus", source)
        _sizes(nine_tile["bingo_sizes"], nine_rack, "[nine_tile] bingo_sizes", source)
    end = _dataclass_table(EndRules, raw.get("end", {}), f"{source}: [end]")
    if end.out_bonus not in ("sum_of_others", "twice_others_two_players"):
        raise VariantError(f"{source}: [end] out_bonus {end.out_bonus!r} is not known")
    if min(end.scoreless_turns, end.consecutive_passes_per_player) < 0:
        raise VariantError(f"{source}: [end] turn counts must not be negative")
    return Variant(
        name=raw["name"],
        title=raw["title"],
        language=raw["language"],
        layout=_own_layout(raw["layout"], raw["name"], source),
        tiles=tiles,
        blank_count=_in_range(raw["blank_count"], 0, _MAX_TILES, "blank_count", source),
        blank_name=raw["blank_name"],
        blank_symbol=raw.get("blank_symbol", ""),
        rack_size=rack_size,
        bingo_bonus=_in_range(raw["bingo_bonus"], 0, 1000, "bingo_bonus", source),
        bingo_sizes=_sizes(raw["bingo_sizes"], rack_size, "bingo_sizes", source),
        first_move_min_tiles=_in_range(
            raw["first_move_min_tiles"], 1, rack_size, "first_move_min_tiles", source
        ),
        exchange_min_bag=_in_range(raw["exchange_min_bag"], 0, 1000, "exchange_min_bag", source),
        dictionary=raw["dictionary"],
        end=end,
        options=_dataclass_table(Options, raw.get("options", {}), f"{source}: [options]"),
        equivalent_letters=tuple(groups),
        nine_tile=nine_tile,
        read_as=_read_as(dict(raw.get("vision", {})), tiles, source),
    )
