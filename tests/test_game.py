"""The game as a fold of its event log: turns, exchanges, challenges, corrections, the end, tile
accounting, house options, and the score sheet views (dict, CSV, HTML, GCG)."""

from __future__ import annotations

import csv
import dataclasses
import io
import json

import pytest

from scorer.board import Board, Tile, parse_position
from scorer.errors import IllegalPlay, PlayErrorCode
from scorer.game import (
    ChallengeFailed,
    ChallengeWithdrawn,
    Correction,
    EndOfGame,
    Exchange,
    Game,
    GameError,
    Pass,
    Play,
    check_tile_counts,
    first_player,
    game_from_gcg,
)
from scorer.gcg import infer_variant, parse_gcg, read_gcg_file
from scorer.scoring import Placement, ScoredPlay, score_play
from scorer.sheet import game_to_gcg, sheet_csv, sheet_dict, sheet_html
from scorer.variant import Variant, load_variant

EN = load_variant("en")
RU = load_variant("ru")


def scored(board: Board, position: str, word: str, variant: Variant) -> ScoredPlay:
    """Score `word` written at a GCG position; letters already on the board are played through."""
    row, col, across = parse_position(position)
    placements = []
    for i, ch in enumerate(word):
        square = (row, col + i) if across else (row + i, col)
        if board[square] is None:
            placements.append(Placement(*square, Tile.from_char(ch)))
    return score_play(board, placements, variant, across)


def play(game: Game, position: str, word: str, rack: str | None = None) -> Game:
    """The player to move plays `word` at `position`."""
    move = scored(game.state.board, position, word, game.variant)
    return game.apply(Play(game.state.turn, move, rack))


def passes(game: Game, count: int) -> Game:
    for _ in range(count):
        game = game.apply(Pass(game.state.turn))
    return game


def small_set(base: Variant, tiles: dict[str, tuple[int, int]], blanks: int = 0) -> Variant:
    """A variant with a tiny tile set, so that the bag runs out (or nearly) from the start."""
    return dataclasses.replace(base, tiles=tiles, blank_count=blanks)


@pytest.mark.parametrize("count", [2, 3, 4])
def test_turns_go_round_in_order(count: int) -> None:
    names = ("Аня", "Борис", "Вера", "Глеб")[:count]
    game = Game(RU, names)
    order = []
    for _ in range(count + 1):
        order.append(game.state.turn)
        game = game.apply(Pass(game.state.turn))
    assert order == [*range(count), 0]
    with pytest.raises(GameError, match=f"it is {names[1]}'s turn, not {names[0]}'s"):
        game.apply(Pass(0))


@pytest.mark.parametrize("names", [("Solo",), ("A", "B", "C", "D", "E"), ("Ann", "Ann")])
def test_player_list_is_checked(names: tuple[str, ...]) -> None:
    with pytest.raises(GameError):
        Game(EN, names)


def test_apply_returns_a_new_game_and_leaves_the_old_one() -> None:
    game = Game(EN, ("Ann", "Bob"))
    later = play(game, "8D", "WINDY")
    assert game.events == () and game.state.scores == (0, 0)
    assert later.state.scores == (32, 0) and later.state.turn == 1
    # A game built from the log folds to the same state as the one built event by event.
    assert Game(EN, later.players, later.events).state == later.state


def test_bag_and_unseen_tiles_are_derived_from_the_board() -> None:
    game = Game(EN, ("Ann", "Bob", "Cat"))
    assert (game.state.unseen, game.state.bag_size) == (100, 79)
    game = play(game, "8D", "WINDY")
    assert (game.state.unseen, game.state.bag_size, game.state.bag_empty) == (95, 74, False)


def test_exchange_needs_seven_tiles_in_the_bag() -> None:
    variant = small_set(EN, {"A": (10, 1), "B": (9, 3)}, blanks=2)  # 21 tiles: bag 7 at start
    game = Game(variant, ("Ann", "Bob"))
    assert game.state.bag_size == 7
    game = game.apply(Exchange(0, tiles="ab?"))
    assert game.state.lines[-1].kind == "exchange" and game.state.lines[-1].word == "AB?"
    game = play(game, "8H", "AB")
    assert game.state.bag_size == 5
    with pytest.raises(GameError, match="cannot exchange: the bag holds 5 tiles, fewer than 7"):
        game.apply(Exchange(0, count=3))
    with pytest.raises(GameError, match="1 to 7 tiles"):
        Game(EN, ("Ann", "Bob")).apply(Exchange(0, count=8))


def test_exchange_and_play_must_come_from_the_rack_when_it_is_known() -> None:
    game = Game(EN, ("Ann", "Bob"))
    with pytest.raises(GameError, match="uses Z, which is not on the rack DINNVWY"):
        play(game, "8D", "WINZY", rack="dinnvwy")
    with pytest.raises(GameError, match="not on the rack"):
        game.apply(Exchange(0, tiles="QQ", rack="DINNVWY"))
    game = play(game, "8D", "WINDy", rack="DINNVW?")
    assert game.state.lines[0].rack == "DINNVW?"


def test_withdrawn_play_is_its_own_line_and_scores_nothing() -> None:
    game = play(Game(EN, ("Ann", "Bob")), "8D", "WINDY")
    game = game.apply(ChallengeWithdrawn(0))
    state = game.state
    assert state.scores == (0, 0) and state.board.is_empty() and state.turn == 1
    line = state.lines[-1]
    assert (line.kind, line.position, line.word, line.score, line.total) == (
        "withdrawn",
        "8D",
        "WINDY",
        -32,
        0,
    )
    assert state.scoreless_turns == 1
    with pytest.raises(GameError, match="no play to withdraw"):
        game.apply(ChallengeWithdrawn(0))
    with pytest.raises(GameError, match="the last play is Ann's, not Bob's"):
        play(Game(EN, ("Ann", "Bob")), "8D", "WINDY").apply(ChallengeWithdrawn(1))


def test_failed_double_challenge_costs_the_challenger_a_turn() -> None:
    game = play(Game(EN, ("Ann", "Bob")), "8D", "WINDY").apply(ChallengeFailed(1))
    line = game.state.lines[-1]
    assert (line.player, line.kind, line.score) == (1, "challenge_penalty", 0)
    assert game.state.turn == 0 and game.state.scores == (32, 0)
    with pytest.raises(GameError, match="own play"):
        play(Game(EN, ("Ann", "Bob")), "8D", "WINDY").apply(ChallengeFailed(0))
    # With three players a challenger who is not next loses their next turn when it comes.
    game = play(Game(EN, ("Ann", "Bob", "Cat")), "8D", "WINDY").apply(ChallengeFailed(2))
    assert game.state.turn == 1
    game = game.apply(Pass(1))
    assert game.state.turn == 0


def test_failed_five_point_challenge_gives_the_player_five() -> None:
    variant = EN.with_options(challenge="five_point")
    game = play(Game(variant, ("Ann", "Bob")), "8D", "WINDY").apply(ChallengeFailed(1))
    line = game.state.lines[-1]
    assert (line.player, line.kind, line.score, line.total) == (0, "challenge_bonus", 5, 37)
    assert game.state.turn == 1 and game.state.scores == (37, 0)
    with pytest.raises(GameError, match="no play to challenge"):
        game.apply(ChallengeFailed(1))


def test_correction_refolds_later_plays_and_totals() -> None:
    game = play(Game(EN, ("Ann", "Bob")), "8G", "CAT")  # the camera read T; it was X
    game = play(game, "I7", "ATE")  # Bob plays down through that tile
    assert game.state.lines[1].word == "ATE"
    misread_total = game.state.scores
    right = scored(Board.empty(), "8G", "CAX", EN)
    game = game.apply(Correction(0, right))
    board_after_first = Board.empty().place({p.square: p.tile for p in right.placements})
    second = scored(board_after_first, "I7", "AXE", EN)
    assert game.state.scores == (right.score, second.score) != misread_total
    assert [line.word for line in game.state.lines] == ["CAX", "AXE"]
    assert game.state.lines[1].total == second.score
    assert isinstance(game.events[-1], Correction)  # the log only grows
    with pytest.raises(GameError, match="must name an earlier play"):
        passes(game, 1).apply(Correction(3, right))


def test_correction_that_no_longer_fits_is_refused() -> None:
    game = play(play(Game(EN, ("Ann", "Bob")), "8G", "CAT"), "9G", "AX")
    clash = scored(Board.empty(), "G8", "CA", EN)  # would put A where Bob later played
    with pytest.raises(GameError, match="event 2 .*already occupied"):
        game.apply(Correction(0, clash))


def _two_tile_game(variant: Variant, names: tuple[str, ...]) -> Game:
    """Ann 'AB' at 8H (on a tiny set, so the bag is empty from the start)."""
    return play(Game(variant, names), "8H", "AB")


def test_end_sum_of_others() -> None:
    variant = small_set(RU, {"A": (12, 1), "B": (9, 3)})  # 21 tiles, three racks of 7
    names = ("Ann", "Bob", "Cat")
    game = _two_tile_game(variant, names)
    assert game.state.bag_empty
    game = game.apply(EndOfGame(("", "BB", "AAB")))
    state = game.state
    assert state.scores == (8 + 11, -6, -5)  # Ann: (1 + 3) × 2W, then Bob's 6 and Cat's 5
    assert [(line.kind, line.score) for line in state.lines[1:]] == [
        ("out_bonus", 11),
        ("end_rack", -6),
        ("end_rack", -5),
    ]
    assert state.finished and state.reason == "went_out" and state.winners == (0,)
    with pytest.raises(GameError, match="over"):
        game.apply(Pass(1))


def test_end_twice_the_opponents_rack_with_two_players() -> None:
    variant = small_set(EN, {"A": (8, 1), "B": (6, 3)})  # 14 tiles
    game = _two_tile_game(variant, ("Ann", "Bob")).apply(EndOfGame(("", "BA")))
    assert game.state.scores == (8 + 8, 0)  # NASPA: Bob keeps his score
    assert [(line.kind, line.word, line.score) for line in game.state.lines[1:]] == [
        ("out_bonus", "BA", 8)
    ]


def test_twice_rule_falls_back_to_sum_of_others_with_more_players() -> None:
    variant = small_set(EN, {"A": (12, 1), "B": (9, 3)})
    game = _two_tile_game(variant, ("Ann", "Bob", "Cat")).apply(EndOfGame(("", "BA", "A")))
    assert game.state.scores == (8 + 5, -4, -1)


def test_tie_goes_to_the_higher_score_before_the_adjustments() -> None:
    variant = small_set(RU, {"A": (8, 1), "B": (6, 2)})
    game = _two_tile_game(variant, ("Ann", "Bob"))  # (1 + 2) × 2W on H8
    game = play(game, "I8", "BA")  # B already there, A on I9 (2L)
    assert game.state.scores == (6, 4)
    level = game.apply(EndOfGame(("A", "")))  # Bob goes out: Ann 6 - 1, Bob 4 + 1
    assert level.state.scores == (5, 5) and level.state.scores_before_end == (6, 4)
    assert level.state.winners == (0,)
    behind = game.apply(EndOfGame(("B", "")))
    assert behind.state.scores == (4, 6) and behind.state.winners == (1,)


def test_a_true_tie_has_two_winners() -> None:
    game = passes(Game(EN, ("Ann", "Bob")), 6)
    assert game.state.finished and game.state.winners == (0, 1)


def test_going_out_needs_an_empty_bag() -> None:
    game = play(Game(EN, ("Ann", "Bob")), "8D", "WINDY")
    with pytest.raises(GameError, match="Ann cannot be out of tiles while the bag still holds"):
        game.apply(EndOfGame(("", "ABC")))
    with pytest.raises(GameError, match="one rack per player"):
        game.apply(EndOfGame(("A",)))
    with pytest.raises(GameError, match="not a tile of the en set"):
        game.apply(EndOfGame(("A1", "B")))
    stopped = game.apply(EndOfGame(("AE", "QZ")))  # players stop: both lose their racks
    assert stopped.state.scores == (30, -20) and stopped.state.reason == "stopped"
    with pytest.raises(GameError, match="already ended"):
        stopped.apply(EndOfGame(("", "")))
    with pytest.raises(GameError, match="after the end"):
        play(stopped, "D7", "AWE")


def test_end_racks_count_against_the_tile_set() -> None:
    game = play(Game(EN, ("Ann", "Bob")), "8D", "WINDY")
    with pytest.raises(
        IllegalPlay, match="the board and the racks hold 2 × X but the set has only 1"
    ):
        game.apply(EndOfGame(("X", "X")))


@pytest.mark.parametrize(
    ("variant", "players", "ending"),
    [
        (EN, 2, 6),  # six scoreless turns
        (EN, 3, 6),
        (RU, 2, 4),  # every player passed twice in a row
        (RU, 3, 6),
        (load_variant("erudit"), 4, 8),
    ],
)
def test_scoreless_turns_end_the_game(variant: Variant, players: int, ending: int) -> None:
    game = Game(variant, ("A", "B", "C", "D")[:players])
    game = passes(game, ending - 1)
    assert not game.state.finished and game.state.scoreless_turns == ending - 1
    game = game.apply(Exchange(game.state.turn, count=2))  # an exchange is scoreless too
    assert game.state.finished and game.state.reason == "scoreless_turns"
    with pytest.raises(GameError, match="the game is over .scoreless turns."):
        game.apply(Pass(game.state.turn))
    # The racks are still settled afterwards.
    settled = game.apply(EndOfGame((variant.alphabet[0],) * players))
    assert settled.state.reason == "scoreless_turns" and settled.state.settled


def test_a_play_resets_the_scoreless_count_and_a_withdrawn_play_does_not() -> None:
    game = play(passes(Game(RU, ("Аня", "Борис")), 3), "8H", "ДА")
    assert game.state.scoreless_turns == 0
    game = play(passes(Game(RU, ("Аня", "Борис")), 2), "8H", "ДА")
    game = game.apply(ChallengeWithdrawn(0))  # the withdrawn play counts as a lost turn
    assert game.state.scoreless_turns == 3
    assert passes(game, 1).state.finished


def test_tournament_mode_turns_off_the_passing_rule() -> None:
    game = passes(Game(RU.with_options(tournament=True), ("Аня", "Борис")), 10)
    assert not game.state.finished and game.state.scoreless_turns == 10


def test_finish_line_ends_the_game_and_a_withdrawal_reopens_it() -> None:
    variant = RU.with_options(finish_line=20)
    game = play(Game(variant, ("Аня", "Борис")), "8H", "ДА")
    assert not game.state.finished
    game = play(game, "9I", "ФЫ")  # Борис: well past 20
    assert game.state.finished and game.state.reason == "finish_line"
    assert game.state.winners == (1,)
    with pytest.raises(GameError, match="finish line"):
        play(game, "H9", "АД")
    reopened = game.apply(ChallengeWithdrawn(1))
    assert not reopened.state.finished and reopened.state.turn == 0


def test_board_cannot_hold_more_of_a_letter_than_the_set() -> None:
    game = play(Game(RU, ("Аня", "Борис")), "8H", "ФА")
    with pytest.raises(IllegalPlay, match="the board holds 2 × Ф but the set has only 1") as err:
        play(game, "I7", "ФАД")  # Ф on I7, through the А on I8, Д on I9
    assert err.value.code is PlayErrorCode.TOO_MANY_TILES
    # A blank standing for Ф is a blank, not a Ф.
    assert play(game, "I7", "фАД").state.board[6, 8] == Tile("Ф", is_blank=True)
    blanks = Board.from_rows(["А??", "..."])
    check_tile_counts(blanks, RU)
    with pytest.raises(IllegalPlay, match="3 × blank but the set has only 2"):
        check_tile_counts(Board.from_rows(["А???"]), RU)
    with pytest.raises(IllegalPlay, match="Q, which is not in the ru tile set"):
        check_tile_counts(Board.from_rows(["QА"]), RU)


def test_one_copy_of_a_word() -> None:
    variant = RU.with_options(one_copy_of_word=True)
    game = play(Game(variant, ("Аня", "Борис")), "8H", "ДОМ")
    with pytest.raises(IllegalPlay, match="ДОМ already stands on the board at 8H") as err:
        play(game, "H8", "ДОМ")  # down from the Д
    assert err.value.code is PlayErrorCode.DUPLICATE_WORD
    # A word extended into a longer one no longer counts as that word.
    game = play(game, "8H", "ДОМА")
    assert play(game, "H8", "ДОМ").state.lines[-1].word == "ДОМ"
    # Without the option the same word may stand twice.
    plain = play(Game(RU, ("Аня", "Борис")), "8H", "ДОМ")
    assert play(plain, "H8", "ДОМ").state.lines[-1].word == "ДОМ"


def _sheet_game() -> Game:
    game = Game(RU, ("Аня", "<Борис>"))
    game = play(game, "8H", "ДоМ")  # a blank standing for О
    game = game.apply(Exchange(1, count=3))
    game = play(game, "J7", "АМ")
    game = game.apply(ChallengeWithdrawn(0))
    game = play(game, "I7", "ТО")
    return game


def test_sheet_dict_has_the_replay_json_shape() -> None:
    sheet = sheet_dict(_sheet_game())
    assert set(sheet) == {"moves", "totals"}
    moves = sheet["moves"]
    assert [m["kind"] for m in moves] == ["play", "exchange", "play", "withdrawn", "play"]
    assert all(
        set(m) == {"player", "kind", "position", "word", "words", "score", "total"} for m in moves
    )
    first = moves[0]
    assert (first["player"], first["position"], first["word"]) == ("Аня", "8H", "ДоМ")
    assert first["words"] == [{"word": "ДоМ", "score": 8}] and first["score"] == 8
    assert moves[1]["position"] == "" and moves[1]["score"] == 0
    assert moves[3]["score"] == -moves[2]["score"] and moves[3]["total"] == 8
    assert sheet["totals"] == {"Аня": 8, "<Борис>": moves[4]["total"]}
    json.dumps(sheet, ensure_ascii=False)  # plain JSON types only


def test_sheet_csv_has_a_row_per_line() -> None:
    rows = list(csv.reader(io.StringIO(sheet_csv(_sheet_game()))))
    assert rows[0] == ["line", "player", "kind", "position", "word", "words", "score", "total"]
    assert rows[1] == ["1", "Аня", "play", "8H", "ДоМ", "ДоМ 8", "8", "8"]
    assert rows[2][1:4] == ["<Борис>", "exchange", ""]
    assert rows[4][2] == "withdrawn" and len(rows) == 6
    assert rows[5][3:] == ["I7", "То", "То 2", "2", "2"]
    # A name a spreadsheet would run as a formula is written as text.
    named = sheet_csv(Game(RU, ("@SUM(A1)", "-1")).apply(Exchange(0, count=1)))
    assert list(csv.reader(io.StringIO(named)))[1][1] == "'@SUM(A1)"


def test_sheet_html_is_printable_and_escaped() -> None:
    game = _sheet_game().apply(EndOfGame(("ЖЁ", "А")))
    page = sheet_html(game)
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page
    assert "<Борис>" not in page and "&lt;Борис&gt;" in page
    assert "8H ДоМ" in page and "@media print" in page
    assert "Finished (the players stopped)" in page
    assert "<script" not in page and "http" not in page  # self-contained
    assert "In progress: Аня to play" in sheet_html(Game(RU, ("Аня", "Борис")))


RECORDED_GAMES = [
    "macondo/gcgio__testdata__doug_v_emely.gcg",  # a withdrawn phony, out with twice the rack
    "macondo/gcgio__testdata__doug_v_emely_double_challenge.gcg",  # a lost turn as a pass
    "macondo/gcgio__testdata__vs_frentz.gcg",  # a five-point challenge after going out
    "quackle/test__positions__fivepoint.gcg",  # five-point challenges, +rack / -rack at the end
    "liwords/pkg__stats__testdata__noah_vs_mishu.gcg",
]


@pytest.mark.parametrize("name", RECORDED_GAMES)
def test_recorded_games_fold_to_their_recorded_totals(shared, name: str) -> None:
    record = read_gcg_file(shared / "gcg" / name)
    game = game_from_gcg(record, EN)
    recorded = {record.players[e.player].nick: e.total for e in record.events}
    assert dict(zip(game.players, game.state.scores, strict=True)) == recorded
    # Through our own GCG writer and back, the sheet is unchanged.
    again = game_from_gcg(parse_gcg(game_to_gcg(game)), game.variant)
    assert sheet_dict(again) == sheet_dict(game)


def test_recorded_game_sheet_lines(shared) -> None:
    record = read_gcg_file(shared / "gcg" / "macondo/gcgio__testdata__doug_v_emely.gcg")
    game = game_from_gcg(record, EN)
    kinds = [line.kind for line in game.state.lines]
    assert kinds.count("withdrawn") == 1 and kinds[-1] == "out_bonus"
    withdrawn = game.state.lines[kinds.index("withdrawn")]
    assert (withdrawn.word, withdrawn.score, withdrawn.total) == ("TILAX", -24, 55)
    assert game.state.reason == "went_out" and game.state.winners == (0,)
    assert game.state.lines[-1].word == "OPEG"
    assert "DONATES 14; JAVELINA 18; bingo 50" in sheet_csv(game)


def test_own_game_round_trips_through_gcg() -> None:
    game = _sheet_game().apply(ChallengeFailed(0)).apply(Pass(1))
    assert game.state.lines[-2].kind == "challenge_penalty"
    text = game_to_gcg(game)
    assert "#tile-distribution ru" in text and ">Аня: 8H ДоМ +8 8" in text
    again = game_from_gcg(parse_gcg(text), RU)
    assert sheet_dict(again)["totals"] == sheet_dict(game)["totals"]


def test_every_recorded_game_folds_to_its_recorded_totals(shared) -> None:
    """All recorded games but one fold exactly; that one plays a tile not on its recorded rack."""
    folded, refused = 0, []
    for path in sorted((shared / "gcg").glob("*/*.gcg")):
        record = read_gcg_file(path)
        try:
            game = game_from_gcg(record, infer_variant(record))
        except GameError as exc:
            refused.append((path.name, str(exc)))
            continue
        # Players may share a nickname: compare by turn order, the first to move first.
        last = {e.player: e.total for e in record.events}
        first, count = record.events[0].player, len(record.players)
        recorded = tuple(last.get((first + k) % count, 0) for k in range(count))
        assert game.state.scores == recorded, path.name
        folded += 1
    assert folded >= 79
    assert refused == [
        (
            "test__positions__multiplayer-crash.gcg",
            "GCG line 7 (G7 F.Z): Nicole_Gorham uses F, which is not on the rack BCDEITZ",
        )
    ]


def test_clock_penalty_and_ten_point_challenge_from_gcg() -> None:
    text = (
        "#player1 a A\n#player2 b B\n>a: DINNVWY 8D WINDY +32 32\n"
        ">a: DINNVWY (challenge) +10 42\n>b: ABC (time) -10 -10\n>b: ABC - +0 -10\n"
    )
    game = game_from_gcg(parse_gcg(text), EN)
    assert game.state.scores == (42, -10)
    assert [line.kind for line in game.state.lines] == [
        "play",
        "challenge_bonus",
        "time_penalty",
        "pass",
    ]
    assert "(time) -10 -10" in game_to_gcg(game)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (">a: AEG - +0 32", "it is b's turn, not a's"),
    ],
)
def test_gcg_import_names_the_line_it_cannot_hold(line: str, message: str) -> None:
    text = f"#player1 a A\n#player2 b B\n>a: DINNVWY 8D WINDY +32 32\n{line}\n>b: ABC - +0 0\n"
    record = parse_gcg(text)
    with pytest.raises(GameError, match=f"GCG line .*{message}"):
        game_from_gcg(record, EN)


def test_first_player_draws_nearest_the_alphabet_start() -> None:
    assert first_player(["Б", "А", "Я"], RU) == 1
    assert first_player(["А", "?"], RU) == 1  # a blank beats every letter
    assert first_player(["Ё", "Ж"], RU) == 0  # Ё comes before Ж in the Russian set
    assert first_player(["А", "А", "Б"], RU) is None  # a tie: draw again
    with pytest.raises(GameError, match="not a tile"):
        first_player(["Q", "А"], RU)
