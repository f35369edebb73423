"""Variants as data: board layouts, tile sets and house options loaded from the package's data files.

Every rule that differs between Scrabble, Скрэббл and Эрудит lives in `data/variants/*.toml` and
`data/layouts/*.txt`; the logic elsewhere reads these objects and never branches on a variant name.
"""

from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Literal

ChallengeRule = Literal["double", "five_point"]
OutBonus = Literal["sum_of_others", "twice_others_two_players"]

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
        if not self.rows or any(len(r) != len(self.rows[0]) for r in self.rows):
            raise VariantError(f"layout {self.name!r}: rows must all have the same length")
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
    raw = tomllib.loads(_data_dir("variants").joinpath(f"{name}.toml").read_text(encoding="utf-8"))
    try:
        tiles = {str(k): (int(v[0]), int(v[1])) for k, v in raw["tiles"].items()}
        return Variant(
            name=raw["name"],
            title=raw["title"],
            language=raw["language"],
            layout=load_layout(raw["layout"]),
            tiles=tiles,
            blank_count=int(raw["blank_count"]),
            blank_name=raw["blank_name"],
            blank_symbol=raw.get("blank_symbol", ""),
            rack_size=int(raw["rack_size"]),
            bingo_bonus=int(raw["bingo_bonus"]),
            bingo_sizes=frozenset(raw["bingo_sizes"]),
            first_move_min_tiles=int(raw["first_move_min_tiles"]),
            exchange_min_bag=int(raw["exchange_min_bag"]),
            dictionary=raw["dictionary"],
            end=EndRules(**raw["end"]),
            options=Options(**raw["options"]),
            equivalent_letters=tuple(tuple(g) for g in raw.get("equivalent_letters", ())),
            nine_tile=dict(raw.get("nine_tile", {})),
        )
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise VariantError(f"variant file {name}.toml is malformed: {exc}") from exc
