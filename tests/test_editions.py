"""The German, French, Spanish and Polish editions as data, and tiles of several letters (Spanish
CH, LL, RR) through board text, GCG, racks, word lists and typed moves: one square, one tile,
written `[CH]`; an unbracketed CH is a C and an H.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import Board, Tile, load_variant
from scorer.board import UNKNOWN_BLANK, BoardTextError
from scorer.dictionary import WordListDictionary, check_word_list
from scorer.errors import IllegalPlay, PlayErrorCode
from scorer.game import Game, GameError, parse_rack, rack_value
from scorer.gcg import (
    EventKind,
    GcgEvent,
    GcgPlayer,
    GcgRecord,
    check_record,
    format_gcg,
    parse_gcg,
)
from scorer.move import find_play
from scorer.notation import NotationError, split_tiles, tiles_of_word
from scorer.turns import turn_from_move
from scorer.variant import VariantError, parse_variant

SETTINGS = settings(derandomize=True, max_examples=80, deadline=None)
ES = load_variant("es")


@pytest.mark.parametrize(
    ("name", "total", "letters", "values"),
    [
        ("de", 102, 29, {"E": 1, "Ä": 6, "Ö": 8, "Ü": 6, "Q": 10, "Y": 10, "M": 3}),
        ("fr", 102, 26, {"E": 1, "K": 10, "W": 10, "J": 8, "Q": 8, "M": 2}),
        ("es", 100, 28, {"CH": 5, "LL": 8, "RR": 8, "Ñ": 8, "Z": 10, "Q": 5}),
        ("pl", 100, 32, {"Ą": 5, "Ć": 6, "Ń": 7, "Ź": 9, "Ż": 5}),
    ],
)
def test_edition_tile_sets(name: str, total: int, letters: int, values: dict[str, int]) -> None:
    variant = load_variant(name)
    assert variant.tile_total == total
    assert len(variant.alphabet) == letters
    assert {letter: variant.value(letter) for letter in values} == values


def test_spanish_has_three_two_letter_tiles_and_no_k_or_w() -> None:
    assert ES.multi_letter == ("CH", "LL", "RR")
    assert not ES.has_letter("K") and not ES.has_letter("W")
    assert load_variant("de").multi_letter == ()


def test_a_blank_may_not_stand_for_k_or_w_in_spanish() -> None:
    after = Board.from_rows(["." * 15] * 7 + ["......Ok......."] + ["." * 15] * 7)
    with pytest.raises(IllegalPlay) as caught:
        find_play(Board.empty(), after, ES)
    assert caught.value.code is PlayErrorCode.UNKNOWN_LETTER


def test_variant_files_take_tiles_of_several_letters_but_not_lower_case_ones() -> None:
    text = (
        'name = "x"\ntitle = "x"\nlanguage = "x"\nlayout = "scrabble"\nrack_size = 7\n'
        'bingo_bonus = 50\nbingo_sizes = [7]\nblank_count = 2\nblank_name = "blank"\n'
        'first_move_min_tiles = 2\nexchange_min_bag = 7\ndictionary = "wordlist"\n'
        "[tiles]\nA = [9, 1]\n{} = [1, 5]\n"
    )
    assert parse_variant(text.format('"NY"')).multi_letter == ("NY",)
    for bad in ('"Ny"', '"NYXZ"', '"N Y"'):
        with pytest.raises(VariantError, match="cannot be a tile's letter"):
            parse_variant(text.format(bad))
    with pytest.raises(VariantError, match="read_as names 'Q'"):
        parse_variant(text.format('"NY"') + '[vision]\nread_as = { "Q" = "O" }\n')


# --- board text ------------------------------------------------------------------------------


def test_board_text_writes_a_two_letter_tile_in_brackets() -> None:
    board = Board.empty().place({(7, 7): Tile("CH"), (7, 8): Tile("LL", True), (7, 9): Tile("C")})
    row = board.rows[7]
    assert row == ".......[CH][ll]C....."
    back = Board.from_rows(board.rows)
    assert back == board
    assert back[7, 7] == Tile("CH") and back[7, 8] == Tile("LL", True)


def test_c_followed_by_h_is_two_tiles_never_ch() -> None:
    board = Board.from_rows(["CH...", "[CH]...."])
    assert board[0, 0] == Tile("C") and board[0, 1] == Tile("H")
    assert board[1, 0] == Tile("CH") and board.width == 5


@pytest.mark.parametrize(
    "text",
    ["[CH....", "CH]...", "[C]....", "[]....", "[C1]..."],
)
def test_bad_brackets_in_board_text_name_the_line(text: str) -> None:
    with pytest.raises(BoardTextError, match="line 1"):
        Board.from_rows([text, "....."])


def _tile(variant_letters: tuple[str, ...]) -> st.SearchStrategy[Tile | None]:
    letters = st.sampled_from(variant_letters)
    return st.one_of(
        st.none(),
        letters.map(Tile),
        letters.map(lambda letter: Tile(letter, True)),
        st.just(Tile(UNKNOWN_BLANK, True)),
    )


@SETTINGS
@given(st.lists(_tile(ES.alphabet), min_size=25, max_size=25))
def test_board_text_round_trips_with_two_letter_tiles(cells: list[Tile | None]) -> None:
    board = Board(5, 5, tuple(cells))
    assert Board.from_text(board.to_text()) == board


# --- GCG, racks and words ------------------------------------------------------------------------


def test_a_gcg_play_with_ch_scores_the_ch_tile() -> None:
    record = parse_gcg(">ana: [CH]ICO? 8H [CH]ICO +20 20\n>ben: LL?AAEE 9G [ll]A +7 7\n")
    first = record.events[0]
    assert first.word == "[CH]ICO" and first.rack == "[CH]ICO?"
    result = check_record(record, ES)
    assert result.mismatches == ()
    assert result.board[7, 7] == Tile("CH") and result.board[7, 8] == Tile("I")
    assert result.board[8, 6] == Tile("LL", True)


def test_a_gcg_word_spelled_c_h_is_two_tiles() -> None:
    # C 3 + H 4 + I 1 + C 3 + O 1 doubled (L8) = 13, doubled on the centre: 26 (with CH: 20).
    record = parse_gcg(">ana: CHICO 8H CHICO +26 26\n")
    assert check_record(record, ES).mismatches == ()


def test_exchanges_and_end_racks_count_tiles_not_characters() -> None:
    event = GcgEvent(EventKind.EXCHANGE, 0, 0, 0, tiles="[RR][LL]A")
    assert event.count == 3
    record = parse_gcg(">ana: AB 8H AB +8 8\n>ben: [RR] 8J [RR] +12 12\n>ana: ([LL]) +16 24\n")
    assert check_record(record, ES).mismatches == ()


@SETTINGS
@given(
    st.lists(st.sampled_from(ES.alphabet), min_size=2, max_size=7),
    st.lists(st.booleans(), min_size=7, max_size=7),
)
def test_gcg_round_trips_words_and_racks_with_two_letter_tiles(
    letters: list[str], blanks: list[bool]
) -> None:
    word = "".join(Tile(letter, blank).char for letter, blank in zip(letters, blanks, strict=False))
    rack = "".join(Tile(letter).char for letter in letters)
    record = GcgRecord([GcgPlayer("ana"), GcgPlayer("ben")], {"tile-distribution": "es"})
    record.events.append(GcgEvent(EventKind.PLAY, 0, 10, 10, rack, 7, 7, True, word))
    record.events.append(GcgEvent(EventKind.EXCHANGE, 1, 0, 0, rack, tiles=rack))
    back = parse_gcg(format_gcg(record))
    assert back == record
    assert back.events[1].count == len(letters)
    assert split_tiles(back.events[0].word) == [
        Tile(a, b).char for a, b in zip(letters, blanks, strict=False)
    ]


def test_racks_take_bracketed_tiles() -> None:
    assert parse_rack("[ch]a?", ES) == "[CH]A?"
    assert rack_value("[CH][RR]A", ES) == 14
    with pytest.raises(GameError, match="'K'"):
        parse_rack("KA", ES)
    with pytest.raises(GameError, match="unclosed"):
        parse_rack("[CHA", ES)


def test_tiles_of_word_takes_each_two_letter_tile_where_its_letters_stand() -> None:
    assert tiles_of_word("carro", ES.multi_letter) == "CA[RR]O"
    assert tiles_of_word("llama", ES.multi_letter) == "[LL]AMA"
    assert tiles_of_word("casa", ()) == "CASA"
    with pytest.raises(NotationError):
        split_tiles("[CH")


def test_a_word_list_in_ordinary_spelling_checks_words_by_their_tiles(tmp_path) -> None:
    path = tmp_path / "es.txt"
    path.write_text("chico\ncarro\ncasa\n", encoding="utf-8")
    words = WordListDictionary(path, multi_letter=ES.multi_letter)
    assert words.is_valid("[CH]ICO") and words.is_valid("CA[RR]O") and words.is_valid("casa")
    assert words.is_valid("CHICO") is False and words.is_valid("CARRO") is False
    assert check_word_list("chico\n[ch]ico\n", ES) == 2


# --- typed moves -----------------------------------------------------------------------------


def test_a_typed_move_with_a_two_letter_tile_is_one_square() -> None:
    game = Game(ES, ("Ana", "Ben"))
    turn = turn_from_move(game, "8H", "[CH]ICO", None)
    play = turn.event.play  # type: ignore[union-attr]
    assert play.word == "[CH]ICO" and play.score == 20 and len(play.placements) == 4
    assert play.main_word.length == 4
    game = game.apply(turn.event)  # type: ignore[arg-type]
    turn = turn_from_move(game, "H8", "[CH]E", None)
    assert turn.event.play.word == "[CH]E"  # type: ignore[union-attr]


def test_the_http_service_takes_and_answers_two_letter_tiles_in_brackets(tmp_path) -> None:
    from fastapi.testclient import TestClient
    from test_storage import FakeReader

    from server.app import create_app

    app = create_app(data_dir=tmp_path, reader=FakeReader(), overlay=lambda data, r: b"")
    with TestClient(app) as client:
        variants = {v["name"]: v for v in client.get("/api/variants").json()["variants"]}
        assert {"de", "fr", "es", "pl"} <= set(variants)
        assert "CH" in variants["es"]["alphabet"] and "K" not in variants["es"]["alphabet"]
        created = client.post("/api/games", json={"variant": "es", "players": ["Ana", "Ben"]})
        assert created.status_code == 201, created.text
        game = created.json()
        auth = {"Authorization": f"Bearer {game['token']}"}
        path = f"/api/games/{game['id']}/moves"
        played = client.post(path, json={"position": "8H", "word": "[CH]ICO"}, headers=auth)
        assert played.status_code == 200, played.text
        body = played.json()
        assert body["status"] == "committed"
        assert body["move"]["word"] == "[CH]ICO" and body["move"]["score"] == 20
        assert body["board"][7] == ".......[CH]ICO...."
        bad = client.post(path, json={"position": "9H", "word": "[CH"}, headers=auth)
        assert bad.status_code == 400 and bad.json()["error"] == "bad_request"
        no_k = client.post(path, json={"position": "H8", "word": "[CH]k"}, headers=auth)
        assert no_k.status_code in (400, 409, 422) and "error" in no_k.json()
        gcg = client.get(f"/api/games/{game['id']}/gcg")
        assert "8H [CH]ICO +20 20" in gcg.text


@pytest.mark.parametrize(
    ("name", "valid", "invalid"),
    [
        ("de", ["KÄSE", "STRASSE", "BÄR", "MÄDCHEN"], ["KASE", "MADCHEN", "FUR"]),
        ("fr", ["ELEVE", "CHAT", "COEUR"], ["ÉLÈVE", "CHATQ"]),
        ("es", ["[CH]ICO", "CA[RR]O", "[LL]AMA", "NIÑO"], ["CHICO", "CARRO", "NINO", "KILO"]),
        ("pl", ["ŻÓŁW", "KOT", "ŹREBIĘ"], ["ZOLW", "KOTQ"]),
    ],
)
def test_the_shipped_word_lists_check_words_as_the_tiles_spell_them(
    name: str, valid: list[str], invalid: list[str]
) -> None:
    from scorer.dictionary import dictionary_for

    words = dictionary_for(load_variant(name))
    assert words.checks_words
    assert [w for w in valid if not words.is_valid(w)] == []
    assert [w for w in invalid if words.is_valid(w)] == []
