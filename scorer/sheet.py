"""Score sheet exporters: one game, several writers (the replay JSON of DESIGN.md §5, CSV, a
printable HTML page and GCG), all reading the sheet lines that `Game.state` folds from the log.
"""

from __future__ import annotations

import csv
import io
from html import escape

from scorer.board import EMPTY
from scorer.game import Game, SheetLine
from scorer.gcg import EventKind, GcgEvent, GcgPlayer, GcgRecord, format_gcg
from scorer.scoring import ScoredPlay

_KIND_LABELS = {
    "play": "",
    "pass": "pass",
    "exchange": "exchange",
    "withdrawn": "withdrawn (challenged off)",
    "challenge_penalty": "lost turn (failed challenge)",
    "challenge_bonus": "challenge bonus",
    "end_rack": "tiles left on the rack",
    "out_bonus": "went out: the others' racks",
    "time_penalty": "time penalty",
}
_REASON_LABELS = {
    "went_out": "a player went out",
    "scoreless_turns": "scoreless turns in a row",
    "finish_line": "the finish line was reached",
    "stopped": "the players stopped",
}
CSV_COLUMNS = ("line", "player", "kind", "position", "word", "words", "score", "total")


def _move_dict(game: Game, line: SheetLine) -> dict[str, object]:
    return {
        "player": game.players[line.player],
        "kind": line.kind,
        "position": line.position,
        "word": line.word,
        "words": [{"word": word, "score": score} for word, score in line.words],
        "score": line.score,
        "total": line.total,
    }


def sheet_dict(game: Game) -> dict[str, object]:
    """The score sheet in the shape of the replay JSON (DESIGN.md §5).

    >>> from scorer.game import Pass
    >>> from scorer.variant import load_variant
    >>> sheet_dict(Game(load_variant("ru"), ("Аня", "Борис")).apply(Pass(0)))["totals"]
    {'Аня': 0, 'Борис': 0}
    """
    state = game.state
    return {
        "moves": [_move_dict(game, line) for line in state.lines],
        "totals": dict(zip(game.players, state.scores, strict=True)),
    }


def _words_text(line: SheetLine) -> str:
    parts = [f"{word} {score}" for word, score in line.words]
    if line.kind == "play" and line.play is not None and line.play.bingo_bonus:
        parts.append(f"bingo {line.play.bingo_bonus}")
    return "; ".join(parts)


def spreadsheet_text(text: str) -> str:
    """`text` for a CSV cell that a spreadsheet opens: a leading `=`, `+`, `-` or `@` would make
    it a formula (a player named `=HYPERLINK(...)`), so such text gets a leading apostrophe,
    which spreadsheets show as plain text.

    >>> spreadsheet_text("=1+2"), spreadsheet_text("Аня")
    ("'=1+2", 'Аня')
    """
    return f"'{text}" if text[:1] in ("=", "+", "-", "@") else text


def sheet_csv(game: Game) -> str:
    """The score sheet as CSV: a header, then one row per sheet line (`words` as `WORD 12; ...`,
    with the bingo bonus last when there is one; names as `spreadsheet_text`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for number, line in enumerate(game.state.lines, start=1):
        writer.writerow(
            (
                number,
                spreadsheet_text(game.players[line.player]),
                line.kind,
                line.position,
                line.word,
                _words_text(line),
                line.score,
                line.total,
            )
        )
    return out.getvalue()


def _move_text(line: SheetLine) -> str:
    if line.kind == "play":
        return f"{line.position} {line.word}"
    label = _KIND_LABELS[line.kind]
    if line.kind == "exchange":
        return f"{label} {line.word or line.exchanged}"
    if line.kind == "withdrawn":
        return f"{line.position} {line.word}, {label}"
    return f"{label} {line.word}".strip()


def _status_text(game: Game) -> str:
    state = game.state
    if not state.finished:
        return f"In progress: {game.players[state.turn]} to play; {state.unseen} tiles unseen."
    winners = ", ".join(game.players[p] for p in state.winners)
    verb = "wins" if len(state.winners) == 1 else "tie"
    return f"Finished ({_REASON_LABELS[state.reason]}): {winners} {verb}."


_STYLE = """
body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 2em; color: #000; }
h1 { font-size: 1.4em; margin-bottom: 0.2em; }
table { border-collapse: collapse; margin-top: 1em; }
th, td { border: 1px solid #444; padding: 0.2em 0.6em; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.minor td { color: #555; font-style: italic; }
@media print { body { margin: 0; } a { color: #000; } }
"""


def sheet_html(game: Game) -> str:
    """A self-contained, printable HTML page of the score sheet (UTF-8, every name escaped)."""
    state = game.state
    names = [escape(name) for name in game.players]
    title = f"{escape(game.variant.title)}: {' – '.join(names)}"
    rows = []
    for number, line in enumerate(state.lines, start=1):
        minor = "" if line.kind == "play" else ' class="minor"'
        rows.append(
            f'<tr{minor}><td class="num">{number}</td><td>{names[line.player]}</td>'
            f"<td>{escape(_move_text(line))}</td><td>{escape(_words_text(line))}</td>"
            f'<td class="num">{line.score:+d}</td><td class="num">{line.total}</td></tr>'
        )
    totals = "".join(
        f'<tr><td>{name}</td><td class="num">{score}</td></tr>'
        for name, score in zip(names, state.scores, strict=True)
    )
    return (
        "<!DOCTYPE html>\n"
        '<html><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Score sheet — {title}</title><style>{_STYLE}</style></head>\n"
        f"<body><h1>Score sheet — {title}</h1>\n"
        f"<p>{escape(_status_text(game))}</p>\n"
        "<table><thead><tr><th>#</th><th>Player</th><th>Move</th><th>Words</th>"
        "<th>Score</th><th>Total</th></tr></thead>\n<tbody>\n"
        + "\n".join(rows)
        + "\n</tbody></table>\n"
        "<table><thead><tr><th>Player</th><th>Total</th></tr></thead>\n<tbody>"
        + totals
        + "</tbody></table>\n</body></html>\n"
    )


def _gcg_word(play: ScoredPlay) -> str:
    """The main word as GCG writes it: new tiles as letters (blanks lower case), others `.`."""
    main = play.main_word
    fresh = {p.square: p.tile for p in play.placements}
    dr, dc = (0, 1) if main.across else (1, 0)
    squares = [(main.row + dr * i, main.col + dc * i) for i in range(main.length)]
    return "".join(fresh[s].char if s in fresh else EMPTY for s in squares)


def _gcg_event(line: SheetLine) -> GcgEvent:
    rack = line.rack or ""
    match line.kind:
        case "play":
            assert line.play is not None
            main = line.play.main_word
            return GcgEvent(
                EventKind.PLAY,
                line.player,
                line.score,
                line.total,
                rack,
                main.row,
                main.col,
                main.across,
                _gcg_word(line.play),
            )
        case "exchange":
            return GcgEvent(
                EventKind.EXCHANGE,
                line.player,
                0,
                line.total,
                rack,
                tiles=line.word,
                count=line.exchanged,
            )
        case "withdrawn":
            return GcgEvent(EventKind.WITHDRAWN, line.player, line.score, line.total, rack)
        case "challenge_bonus":
            return GcgEvent(EventKind.CHALLENGE_BONUS, line.player, line.score, line.total)
        case "time_penalty":
            return GcgEvent(EventKind.TIME_PENALTY, line.player, line.score, line.total)
        case "end_rack" | "out_bonus":
            return GcgEvent(
                EventKind.END_RACK, line.player, line.score, line.total, tiles=line.word
            )
        case _:
            # GCG has no lost-turn line: a turn lost to a failed challenge is written as a pass.
            return GcgEvent(EventKind.PASS, line.player, 0, line.total, rack)


def gcg_record(game: Game) -> GcgRecord:
    """The game as a `GcgRecord` (its `#tile-distribution` names the variant). Every name fits
    GCG, whatever was stored (`GcgPlayer.from_name`), and two players never share a nickname."""
    players: list[GcgPlayer] = []
    for name in game.players:
        player = GcgPlayer.from_name(name)
        nick, number = player.nick, 2
        while nick in {p.nick for p in players}:
            nick, number = f"{player.nick}_{number}", number + 1
        players.append(GcgPlayer(nick, player.name))
    return GcgRecord(
        players=players,
        pragmas={"tile-distribution": game.variant.name},
        events=[_gcg_event(line) for line in game.state.lines],
    )


def game_to_gcg(game: Game) -> str:
    """The game as GCG text (UTF-8), readable back with `parse_gcg` and `game_from_gcg`."""
    return format_gcg(gcg_record(game))
