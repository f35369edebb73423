"""A player's own edition: a variant file with its own board (here «Найди слово», 12 rows × 16
columns), checked strictly, scored on its rectangular board and written in GCG coordinates."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorer import Board, VariantError, load_variant
from scorer.board import parse_position, position_name
from scorer.game import Game
from scorer.sheet import game_to_gcg, sheet_dict
from scorer.turns import turn_from_board, turn_from_move
from scorer.variant import parse_variant

NAIDI_FILE = Path(__file__).parent / "data" / "naidi_slovo.toml"
NAIDI_TEXT = NAIDI_FILE.read_text(encoding="utf-8")
NAIDI = parse_variant(NAIDI_TEXT)
RU_TEXT = (Path(__file__).parents[1] / "scorer/data/variants/ru.toml").read_text(encoding="utf-8")


def test_own_variant_file_is_read_with_its_board() -> None:
    assert (NAIDI.layout.height, NAIDI.layout.width) == (12, 16)
    assert NAIDI.layout.centre == (5, 7)  # H6
    assert NAIDI.layout.premium(0, 0).word == 3 and NAIDI.layout.premium(11, 15).word == 3
    assert NAIDI.tiles == load_variant("ru").tiles
    assert NAIDI.options == load_variant("ru").options  # tables left out take the defaults


def test_shipped_variants_pass_the_strict_check() -> None:
    # The shipped files are read by the same parser: a layout named, every table present.
    assert parse_variant(RU_TEXT) == load_variant("ru")


def test_first_play_scored_on_the_rectangular_board() -> None:
    game = Game(NAIDI, ("Аня", "Борис"))
    after = Board.from_text("\n".join(["." * 16] * 5 + ["...КОТЁНОК......"] + ["." * 16] * 6))
    turn = turn_from_board(game, after, None)
    assert turn.committed and turn.event is not None
    play = turn.event.play
    # К О Т Ё Н О К: 2+1+1+3+1+1+2 = 11, the letter ×2 at F6 doubles Т, the centre H6 (word ×2)
    # holds Н, and all seven tiles earn the bingo.
    assert (play.position, play.word) == ("6D", "КОТЁНОК")
    assert play.score == (11 + 1) * 2 + 50


def test_gcg_coordinates_reach_the_last_row_and_column() -> None:
    assert position_name(11, 15, True) == "12P" and parse_position("P12") == (11, 15, False)
    game = Game(NAIDI, ("Аня", "Борис"))
    game = game.apply(turn_from_move(game, "6F", "ТОК", None).event)
    game = game.apply(turn_from_move(game, "H6", "КОТ", None).event)
    game = game.apply(turn_from_move(game, "8H", "ТОН", None).event)
    sheet = sheet_dict(game)
    assert [m["position"] for m in sheet["moves"]] == ["6F", "H6", "8H"]
    assert game.state.board.rows[7] == ".......ТОН......"
    gcg = game_to_gcg(game)
    assert ">Аня: 6F ТОК +10 10" in gcg and ">Борис: H6 .ОТ +4 4" in gcg
    with pytest.raises(ValueError):
        turn_from_move(game, "13A", "ТОК", None)  # row 13 is off a 12-row board


def own(**changes: str) -> str:
    """The «Найди слово» file with some lines replaced: key -> the new line ('' drops it)."""
    lines = []
    for line in NAIDI_TEXT.splitlines():
        key = line.split("=")[0].strip().strip('"')
        if key in changes:
            if changes[key]:
                lines.append(changes[key])
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name = ", "not valid TOML"),
        (own(rack_size="racksize = 7"), "unknown key 'racksize'"),
        (own(title=""), "missing title"),
        (own(rack_size='rack_size = "7"'), "'rack_size' must be an integer"),
        (own(bingo_bonus="bingo_bonus = true"), "'bingo_bonus' must be an integer"),
        (own(А='"А" = [8]'), r"tile 'А' must be \[count, value\]"),
        (own(А='"А" = [0, 1]'), "its count must be 1 to 100"),
        (own(Б='"Б" = [2, -3]'), "its value must be 0 to 100"),
        (own(А='"а" = [8, 1]'), "'а' cannot be a tile's letter"),
        (own(А='"Ab" = [8, 1]'), "'Ab' cannot be a tile's letter"),
        (own(bingo_sizes="bingo_sizes = [8]"), "each of bingo_sizes must be 1 to 7"),
        (RU_TEXT.replace('"scrabble"', '"hexagonal"'), "unknown layout 'hexagonal'"),
        (own(name='name = "my game!"'), "'name' must be letters"),
        (RU_TEXT.replace("[options]", "[options]\nnine_tiles = true"), "unknown key 'nine_tiles'"),
        (RU_TEXT.replace('challenge = "double"', "challenge = 2"), "'challenge' must be a string"),
    ],
)
def test_bad_variant_files_are_refused_saying_why(text: str, message: str) -> None:
    with pytest.raises(VariantError, match=message):
        parse_variant(text, "mine.toml")


def _with_layout(rows: list[str]) -> str:
    return RU_TEXT.replace('layout = "scrabble"', "layout = [" + ", ".join(map(repr, rows)) + "]")


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (["......", ".....", "..*...", "......", "......"], "not rectangular: row 2 has 5"),
        (["......"] * 5, "needs exactly one centre square"),
        (["..*...", "..+...", "......", "......", "......"], "needs exactly one centre square"),
        (["....", "..*.", "....", "....", "...."], "is 4×5 squares; each side must be 5 to 25"),
        (["." * 26] * 12 + ["." * 12 + "*" + "." * 13], "is 26×13 squares"),
        (["..x..", "..*..", ".....", ".....", "....."], r"unknown square codes \['x'\]"),
    ],
)
def test_bad_layouts_are_refused(rows: list[str], message: str) -> None:
    with pytest.raises(VariantError, match=message):
        parse_variant(_with_layout(rows))


def test_smallest_and_largest_boards_are_accepted() -> None:
    assert parse_variant(_with_layout(["....."] * 2 + ["..*.."] + ["....."] * 2)).layout.width == 5
    large = ["." * 25] * 12 + ["." * 12 + "*" + "." * 12] + ["." * 25] * 12
    assert parse_variant(_with_layout(large)).layout.height == 25
