"""Self-played games (training/self_play.py): legal throughout, replayable, seeded."""

from __future__ import annotations

import pytest

from scorer.board import Board, Tile
from scorer.dictionary import WordListDictionary, dictionary_for
from scorer.game import EndOfGame, Exchange, Game, Pass, Play, game_from_gcg
from scorer.gcg import parse_gcg
from scorer.move import find_play
from scorer.notation import tile_count
from scorer.sheet import game_to_gcg, sheet_dict
from scorer.variant import load_variant
from training.self_play import SelfPlayError, legal_moves, lexicon_for, self_play


@pytest.fixture(scope="module")
def german() -> Game:
    return self_play(load_variant("de"), 1)


@pytest.fixture(scope="module")
def spanish() -> Game:
    return self_play(load_variant("es"), 1)


def _plays(game: Game) -> list[Play]:
    return [e for e in game.events if isinstance(e, Play)]


@pytest.mark.parametrize("name", ["german", "spanish"])
def test_every_play_is_legal_and_its_words_are_in_the_list(name: str, request) -> None:
    game: Game = request.getfixturevalue(name)
    variant = game.variant
    dictionary = dictionary_for(variant)
    board = Board.empty(variant.layout.width, variant.layout.height)
    assert len(_plays(game)) >= 15
    for play in _plays(game):
        after = board.place({p.square: p.tile for p in play.play.placements})
        found = find_play(board, after, variant)  # raises on a gap, no connection, off centre
        assert found.score == play.play.score
        for word in found.words:
            assert dictionary.is_valid(word.word.upper()), word.word
        board = after
    assert game.state.board == board
    end = game.events[-1]
    assert isinstance(end, EndOfGame) and game.state.settled
    # Played out from the variant's bag: every tile is on the board or on the rack left.
    assert game.state.reason == "went_out"
    assert board.tile_count() + sum(tile_count(rack) for rack in end.racks) == variant.tile_total


@pytest.mark.parametrize("name", ["german", "spanish"])
def test_the_game_replays_through_gcg_to_the_same_sheet(name: str, request) -> None:
    game: Game = request.getfixturevalue(name)
    again = game_from_gcg(parse_gcg(game_to_gcg(game)), game.variant)
    assert sheet_dict(again) == sheet_dict(game)
    assert Game(game.variant, game.players, game.events).state == game.state


def test_blanks_and_two_letter_tiles_are_played(german: Game, spanish: Game) -> None:
    for game in (german, spanish):
        assert any(p.tile.is_blank for e in _plays(game) for p in e.play.placements)
    assert any(len(p.tile.letter) == 2 for e in _plays(spanish) for p in e.play.placements)


def test_a_rack_that_makes_nothing_late_in_the_game_passes() -> None:
    # Late in this game a rack makes nothing with the bag too small to exchange: a pass.
    game = self_play(load_variant("de"), 7000)
    assert any(isinstance(e, Pass) for e in game.events)
    assert game.state.settled


def test_a_seed_gives_the_same_game_and_another_seed_another() -> None:
    french = load_variant("fr")
    first = self_play(french, 3, max_turns=6)
    assert self_play(french, 3, max_turns=6).events == first.events
    assert self_play(french, 4, max_turns=6).events != first.events


def test_moves_cover_the_centre_first_and_respect_cross_words() -> None:
    german = load_variant("de")
    dictionary = dictionary_for(german)
    lexicon = lexicon_for(german, dictionary)
    moves = legal_moves(Board.empty(), list("HAUSQXY"), german, lexicon, dictionary)
    assert any(m.word == "HAUS" for m in moves)
    assert all((7, 7) in {p.square for p in m.placements} for m in moves)
    board = Board.empty().place({(7, 7): Tile("Z"), (7, 8): Tile("O"), (7, 9): Tile("O")})
    moves = legal_moves(board, list("SEHR?"), german, lexicon, dictionary)
    assert moves and moves == sorted(moves, key=lambda m: -m.score)
    assert any(len(m.words) > 1 for m in moves)  # plays alongside, forming cross-words
    for move in moves:
        for word in move.words:
            assert dictionary.is_valid(word.word.upper()), (move.position, word.word)


def test_a_dictionary_without_a_word_list_is_refused() -> None:
    russian = load_variant("ru")
    with pytest.raises(SelfPlayError, match="no word list"):
        self_play(russian, 1)


def test_with_nothing_to_play_the_players_exchange_until_the_scoreless_turns_end_it(
    tmp_path,
) -> None:
    german = load_variant("de")
    words = tmp_path / "words.txt"
    words.write_text("ZZZZ\n")  # one Z in the set: never playable
    game = self_play(german, 1, dictionary=WordListDictionary(words))
    lines = sheet_dict(game)["moves"]
    assert [m["kind"] for m in lines[: german.end.scoreless_turns]] == ["exchange"] * 6
    assert game.state.reason == "scoreless_turns" and game.state.settled
    exchanges = [e for e in game.events if isinstance(e, Exchange)]
    assert any("?" in e.rack for e in exchanges)  # a blank was held...
    assert all("?" not in e.tiles for e in exchanges)  # ...and kept
