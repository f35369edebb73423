"""GCG reading and writing, the rescoring check, and `scorekeeper gcg` on real and sample games."""

from __future__ import annotations

from pathlib import Path

import pytest

from scorekeeper.cli import main
from scorer.gcg import (
    EventKind,
    GcgError,
    GcgEvent,
    GcgPlayer,
    GcgRecord,
    MismatchKind,
    check_record,
    format_gcg,
    infer_variant,
    parse_gcg,
    read_gcg_file,
)
from scorer.variant import load_variant

SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "games"


def shared_games(shared: Path) -> list[Path]:
    games = sorted((shared / "gcg").glob("*/*.gcg"))
    assert games, "no GCG files under shared/gcg"
    return games


def test_every_shared_play_rescored_exactly(shared: Path) -> None:
    plays = withdrawn = 0
    for path in shared_games(shared):
        record = read_gcg_file(path)
        result = check_record(record, infer_variant(record))
        assert result.mismatches == (), (path.name, [str(m) for m in result.mismatches])
        plays += result.plays
        withdrawn += result.withdrawn
    # 1,911 event lines in 80 files, of which 1,727 are tile plays (24 withdrawn on the next line).
    assert plays >= 1700
    assert withdrawn >= 20


def test_cli_checks_every_shared_file(shared: Path, capsys: pytest.CaptureFixture[str]) -> None:
    games = shared_games(shared)
    assert main(["gcg", "check", *map(str, games)]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out == [f"{len(games)} files, 1727 moves, 0 mismatches"]


def test_withdrawn_phony_claim_is_not_compared(shared: Path) -> None:
    record = read_gcg_file(shared / "gcg/liwords/pkg__puzzles__testdata__r20_peter.gcg")
    phony = next(i for i, e in enumerate(record.events) if e.kind is EventKind.WITHDRAWN) - 1
    assert check_record(record, load_variant("en")).mismatches == ()
    record.events = record.events[: phony + 1]
    (mismatch,) = check_record(record, load_variant("en")).mismatches
    assert (mismatch.kind, mismatch.recorded, mismatch.computed) == (MismatchKind.SCORE, 115, 113)


def test_polish_game_is_scored_with_the_polish_tile_set(shared: Path) -> None:
    record = read_gcg_file(shared / "gcg/macondo/gcgio__testdata__polish_endgame.gcg")
    assert [p.nick for p in record.players] == ["1", "2"]
    assert infer_variant(record).name == "pl"
    result = check_record(record, load_variant("pl"))
    assert result.mismatches == () and result.plays == 43
    assert check_record(record, load_variant("en")).mismatches


def test_encodings_of_real_files(shared: Path) -> None:
    macondo = shared / "gcg/macondo"
    for name in ("name_iso8859-1", "name_utf8_noheader", "name_utf8_with_header"):
        record = read_gcg_file(macondo / f"gcgio__testdata__{name}.gcg")
        assert record.players[0].nick == "césar", name
    weird = read_gcg_file(macondo / "gcgio__testdata__name_weird_encoding_with_header.gcg")
    assert weird.players[0].nick == "césar"  # declared ISO8859-6, really UTF-8
    dos = read_gcg_file(macondo / "gcgio__testdata__utf8_dos.gcg")
    (tennises,) = [e for e in dos.events if e.line == 22]
    assert tennises.note.endswith("will it work?")  # a note continued on a line of its own


def test_shared_nicknames_go_by_turn_order(shared: Path) -> None:
    record = read_gcg_file(shared / "gcg/quackle/test__positions__consonant_heaviness_tendency.gcg")
    assert [p.nick for p in record.players] == ["NoName", "NoName"]
    assert [e.player for e in record.events[:4]] == [0, 1, 0, 1]
    assert check_record(record, load_variant("en")).mismatches == ()


def test_round_trip_of_every_shared_file(shared: Path) -> None:
    for path in shared_games(shared):
        record = read_gcg_file(path)
        assert parse_gcg(format_gcg(record)) == record, path.name


def test_samples_pass(capsys: pytest.CaptureFixture[str]) -> None:
    samples = sorted(map(str, SAMPLES.glob("*.gcg")))
    assert {Path(s).name for s in samples} >= {"erudit_short.gcg", "ru_short.gcg"}
    assert main(["gcg", "check", *samples]) == 0
    assert capsys.readouterr().out.strip().splitlines()[-1].endswith(" moves, 0 mismatches")


@pytest.mark.parametrize(("name", "variant"), [("erudit_short", "erudit"), ("ru_short", "ru")])
def test_cyrillic_samples_round_trip_and_infer(name: str, variant: str) -> None:
    record = read_gcg_file(SAMPLES / f"{name}.gcg")
    text = format_gcg(record)
    assert text.splitlines()[:2] == ["#character-encoding UTF-8", f"#tile-distribution {variant}"]
    assert parse_gcg(text) == record
    del record.pragmas["tile-distribution"]
    assert infer_variant(record).name == variant  # by letters, then by the recorded scores


def test_erudit_sample_final_board() -> None:
    record = read_gcg_file(SAMPLES / "erudit_short.gcg")
    board = check_record(record, load_variant("erudit")).board
    assert board.rows[7] == "...КОРОВА......"
    assert board.rows[10] == "...а....ТЫКВА.."  # the star stands for А
    assert board.rows[14] == "...ШАЙБА......."


NOTATIONS = "\ufeff" + "\r\n".join(
    [
        "#player1 ann Ann Example",
        "#player2 bob",
        "#lexicon NWL23",
        "#note before the game",
        ">ann: ACEHNRT 8d RANCH +22 22",
        ">bob: ?AGINST f4 STAI(N)iNG +62 62",
        "#note a bingo through N,",
        "  with a blank I",
        ">ann: AEEGHTT -4 +0 22",
        ">bob: EEGHTTU 9F .T +7 69",
        ">bob: EEGHTTU -- -7 62",
        ">ann: ADEFLOR -FLO +0 22",
        ">bob: EEGHTTU - +0 62",
        ">bob: EEGHTTU (challenge) +5 67",
        ">ann: ADEIMPR 11c IMAGED +20 42",
        ">bob: EGHTTU (time) -10 57",
        ">bob: EGHTTU (EGHTTU) -10 47",
        ">ann: (EGHTTU) +20 62",
        "",
    ]
)


def test_every_notation_is_read() -> None:
    record = parse_gcg(NOTATIONS)
    assert record.players == [GcgPlayer("ann", "Ann Example"), GcgPlayer("bob", "")]
    assert record.pragmas == {"lexicon": "NWL23", "note": "before the game"}
    kinds = [e.kind for e in record.events]
    assert kinds == [
        EventKind.PLAY,
        EventKind.PLAY,
        EventKind.EXCHANGE,
        EventKind.PLAY,
        EventKind.WITHDRAWN,
        EventKind.EXCHANGE,
        EventKind.PASS,
        EventKind.CHALLENGE_BONUS,
        EventKind.PLAY,
        EventKind.TIME_PENALTY,
        EventKind.END_RACK,
        EventKind.END_RACK,
    ]
    first, bingo, count_exchange = record.events[:3]
    assert (first.row, first.col, first.across, first.word) == (7, 3, True, "RANCH")
    assert (bingo.row, bingo.col, bingo.across, bingo.line) == (3, 5, False, 6)
    assert bingo.note == "a bingo through N,\nwith a blank I"
    assert (count_exchange.count, count_exchange.tiles) == (4, "")
    assert (record.events[5].count, record.events[5].tiles) == (3, "FLO")
    assert (record.events[8].row, record.events[8].col, record.events[8].position) == (10, 2, "11C")
    assert record.events[-2].rack == "EGHTTU" and record.events[-1].tiles == "EGHTTU"
    assert parse_gcg(format_gcg(record)) == record


def test_notations_rescore() -> None:
    record = parse_gcg(NOTATIONS)
    result = check_record(record, infer_variant(record))
    assert (result.variant, result.mismatches) == ("en", ())
    assert (result.plays, result.withdrawn) == (4, 1)
    assert result.board.rows[8] == "....." + "i" + "." * 9  # the withdrawn T is gone
    assert result.board.rows[10] == "..IMAGED......."


def test_played_through_letters_must_match_the_board() -> None:
    record = parse_gcg(">a: 8D CAT +8 8\n>b: D8 D.G +5 5\n>a: 9C (X)YZ +1 9\n")
    mismatches = check_record(record, load_variant("en")).mismatches
    assert [(m.line, m.kind) for m in mismatches] == [(2, "score"), (3, "score")]
    assert "D8 holds C, the word has D" in mismatches[0].reason
    assert "D9 is empty" in mismatches[0].reason
    assert "C9 is empty" in mismatches[1].reason


def test_cumulative_totals_are_checked() -> None:
    record = parse_gcg(">a: 8G AT +4 4\n>b: G8 .T +3 4\n")
    (mismatch,) = check_record(record, load_variant("en")).mismatches
    assert (mismatch.kind, mismatch.recorded, mismatch.computed) == (MismatchKind.TOTAL, 4, 3)


def test_built_record_round_trips_with_cyrillic_and_every_kind() -> None:
    players = [GcgPlayer.from_name("Анна Мария"), GcgPlayer.from_name("Борис")]
    assert players[0].nick == "Анна_Мария"
    events = [
        GcgEvent(EventKind.PLAY, 0, 22, 22, "ЁЖИКНОТ", 7, 6, True, "ЁЖИК", note="ёж\nи ёжик"),
        GcgEvent(EventKind.PLAY, 1, 8, 8, "", 6, 8, False, "Л(И)сА"),
        GcgEvent(EventKind.WITHDRAWN, 1, -8, 0),
        GcgEvent(EventKind.EXCHANGE, 0, 0, 22, tiles="ЪЬ"),
        GcgEvent(EventKind.EXCHANGE, 1, 0, 0, count=3),
        GcgEvent(EventKind.PASS, 0, 0, 22),
        GcgEvent(EventKind.CHALLENGE_BONUS, 1, 5, 5),
        GcgEvent(EventKind.TIME_PENALTY, 1, -10, -5),
        GcgEvent(EventKind.END_RACK, 0, 6, 28, tiles="ЁЯ"),
    ]
    record = GcgRecord(players, {"tile-distribution": "ru", "title": "Партия"}, events)
    assert record.events[3].count == 2
    text = format_gcg(record)
    assert ">Анна_Мария: ЁЖИКНОТ 8G ЁЖИК +22 22" in text.splitlines()
    assert ">Борис: I7 Л(И)сА +8 8" in text.splitlines()
    assert parse_gcg(text) == record


def test_format_refuses_what_it_cannot_write() -> None:
    with pytest.raises(GcgError, match="nickname"):
        format_gcg(GcgRecord([GcgPlayer("two words")]))
    with pytest.raises(GcgError, match="event of player"):
        format_gcg(GcgRecord([GcgPlayer("a")], {}, [GcgEvent(EventKind.PASS, 1, 0, 0)]))
    with pytest.raises(ValueError):
        GcgEvent(EventKind.EXCHANGE, 0, 0, 0, tiles="AB", count=3)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (">bob: ?AEINST 8D +74 74", "no word"),
        (">bob: ?AEINST 8D WORD +74", "score and a cumulative total"),
        (">bob: ?AEINST 8D WORD seventy 74", "score and a cumulative total"),
        (">bob: ?AEINST 8-D WORD +7 7", "cannot read the move"),
        (">bob: ?AEINST 8D WO(RD +7 7", "unbalanced parentheses"),
        (">bob ?AEINST 8D WORD +7 7", "'>nick:'"),
        ("stray words", "not an event"),
    ],
)
def test_bad_line_names_its_number(line: str, reason: str) -> None:
    text = f"#player1 bob Bob\n>bob: AEINST? 8D WAT +6 6\n{line}\n"
    with pytest.raises(GcgError, match=reason) as caught:
        parse_gcg(text)
    assert caught.value.line_number == 3
    assert str(caught.value).startswith("line 3: ")
    assert line.strip() in str(caught.value)


def test_file_encodings(tmp_path: Path) -> None:
    latin = tmp_path / "latin.gcg"
    latin.write_bytes("#player1 José José\n>José: AB 8H AB +8 8\n".encode("iso-8859-1"))
    assert read_gcg_file(latin).players[0].nick == "José"
    bom = tmp_path / "bom.gcg"
    bom.write_bytes(
        "\r\n".join(["#player1 Ёлка Ёлка", ">Ёлка: 8H ДА +6 6", ""]).encode("utf-8-sig")
    )
    record = read_gcg_file(bom)
    assert record.players[0].nick == "Ёлка" and record.events[0].line == 2


def test_cli_bad_file_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.gcg"
    bad.write_text("#player1 a a\n>a: 8D CAT +10 10\n>a: 9D DOG ten 20\n", encoding="utf-8")
    assert main(["gcg", "check", str(bad), str(tmp_path / "missing.gcg")]) == 2
    captured = capsys.readouterr()
    errors = captured.err.strip().splitlines()
    assert len(errors) == 2
    assert errors[0].startswith(f"scorekeeper gcg: {bad}:3: ")
    assert "missing.gcg: cannot read" in errors[1]
    assert "Traceback" not in captured.err
    assert captured.out.strip() == "0 files, 0 moves, 0 mismatches"


def test_cli_unknown_variant_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gcg", "check", str(SAMPLES / "ru_short.gcg"), "--variant", "xx"]) == 2
    assert capsys.readouterr().err.strip() == (
        "scorekeeper gcg: unknown variant 'xx'; known: de, en, erudit, es, fr, pl, ru, uk"
    )


def test_cli_mismatch_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "wrong.gcg"
    game.write_text(">a: AT 8H AT +9 9\n>b: 9N .EST +5 5\n", encoding="utf-8")
    assert main(["gcg", "check", str(game)]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert out == [
        f"{game}:1: >a: 8H AT: score recorded 9, computed 4 (scored as en)",
        f"{game}:2: >b: 9N .EST: score recorded 5, computed ?: "
        "the word runs off the board at square 3 (scored as en)",
        "1 files, 2 moves, 2 mismatches",
    ]


def test_cli_show_prints_the_final_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["gcg", "show", str(SAMPLES / "ru_short.gcg")]) == 0
    rows = capsys.readouterr().out.strip("\n").splitlines()
    assert len(rows) == 15 and rows[7] == "......ЁЖИК....."
