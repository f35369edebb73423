"""GCG game records: a forgiving reader, a writer, and a rescoring check of the recorded plays.

GCG is the plain-text game record of Scrabble programs (Quackle, Macondo, Woogles). `parse_gcg`
turns it into a neutral `GcgRecord`, `format_gcg` writes one back, and `check_record` replays the
plays on a `Board` and compares every recorded score with `score_play`.

A tile of several letters (Spanish CH) is written in brackets in words, racks and exchanges,
`8H [CH]ICO`, `[ch]` for a blank standing for it, as Macondo and Woogles write Spanish games
(`scorer.notation`); an unbracketed CH is a C and an H.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import partial
from pathlib import Path

from scorer.board import Board, Tile, parse_position, position_name, square_name
from scorer.errors import IllegalPlay
from scorer.notation import letters_of, split_tiles, tile_count, unbracket
from scorer.scoring import Placement, score_play
from scorer.variant import Variant, load_variant, variant_names

# Lexicon name prefixes (as in `#lexicon NWL23`) and the language of their words.
_LEXICON_LANGUAGES = {
    "NWL": "en",
    "TWL": "en",
    "OWL": "en",
    "CSW": "en",
    "SOWPODS": "en",
    "ECWL": "en",
    "CEL": "en",
    "OSPS": "pl",
    "OSW": "pl",
}
DEFAULT_VARIANT = "en"
# Pragmas that `parse_gcg` consumes rather than keeps: the text is already decoded.
_TRANSPORT_PRAGMAS = {"character-encoding"}

_POSITION = re.compile(r"^(\d{1,2}[A-Za-z]|[A-Za-z]\d{1,2})$")
_SCORE = re.compile(r"^[+-]?\d+$")
_PLAYER_PRAGMA = re.compile(r"^player(\d+)$")


class GcgError(ValueError):
    """A GCG text that cannot be read; the message names the file line and quotes it."""

    def __init__(
        self, reason: str, line_number: int | None = None, line: str = "", path: str = ""
    ) -> None:
        self.reason = reason
        self.line_number = line_number
        self.line = line
        self.path = path
        if path:
            where = f"{path}:{line_number}" if line_number is not None else path
        else:
            where = "" if line_number is None else f"line {line_number}"
        text = f"{where}: {reason}" if where else reason
        if line:
            text += f": {line.strip()!r}"
        super().__init__(text)

    def in_file(self, path: str | Path) -> GcgError:
        """The same error, naming the file it came from."""
        return GcgError(self.reason, self.line_number, self.line, str(path))


class EventKind(StrEnum):
    """What one GCG event line records."""

    PLAY = "play"  # tiles put on the board: `8D WORD`
    EXCHANGE = "exchange"  # `-ABC` (tiles known) or `-3` (only the count)
    PASS = "pass"  # `-`
    WITHDRAWN = "withdrawn"  # `--`: the previous play was challenged off and taken back
    CHALLENGE_BONUS = "challenge_bonus"  # `(challenge)`: points for a wrong challenge against you
    END_RACK = "end_rack"  # `(RACK)`: points for the tiles left on a rack at the end
    TIME_PENALTY = "time_penalty"  # `(time)`: points lost on the clock


_TURN_KINDS = {EventKind.PLAY, EventKind.EXCHANGE, EventKind.PASS}


@dataclass(frozen=True)
class GcgPlayer:
    """A player as a GCG file names them: `nick` (no spaces, used on event lines) and full name."""

    nick: str
    name: str = ""

    @classmethod
    def from_name(cls, name: str) -> GcgPlayer:
        """A player whose nick is their name made safe for event lines (`Anna Maria` → `Anna_Maria`).

        >>> GcgPlayer.from_name("Анна Мария")
        GcgPlayer(nick='Анна_Мария', name='Анна Мария')
        """
        name = one_line(name)
        return cls(name.replace(" ", "_").replace(":", "_") or "player", name)


def one_line(text: str) -> str:
    r"""`text` fit for one line of GCG: control, format and unassigned characters (Unicode C*) and
    line breaks made spaces, runs of spaces made one, the ends stripped.

    >>> one_line(" Ann\nSmith\x00 ")
    'Ann Smith'
    """
    cleaned = "".join(
        " "
        if unicodedata.category(char)[0] == "C" or unicodedata.category(char) in ("Zl", "Zp")
        else char
        for char in text
    )
    return " ".join(cleaned.split())


@dataclass(frozen=True)
class GcgEvent:
    """One event line of a game record.

    `player` is an index into `GcgRecord.players`; `score` is signed; `total` is the player's
    cumulative score after the event, as recorded. For a PLAY, `row`, `col` (0-based) and `across`
    give the first square of `word`, which is kept as written: `.`, the letter itself or
    parentheses for letters already on the board, lower case for blanks. For an EXCHANGE,
    `tiles` are the tiles thrown in ("" when only `count` is known); for END_RACK, `tiles` is the
    rack counted. `rack` is the player's rack before the event as written ("" when not given).
    `note` holds the `#note` lines that follow the event; `line` is the source line number (not
    compared, so a record equals its own round trip).
    """

    kind: EventKind
    player: int
    score: int
    total: int
    rack: str = ""
    row: int | None = None
    col: int | None = None
    across: bool | None = None
    word: str = ""
    tiles: str = ""
    count: int = 0
    note: str = ""
    line: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        if self.kind is EventKind.PLAY:
            if self.row is None or self.col is None or self.across is None or not self.word:
                raise ValueError("a play needs row, col, across and word")
            _word_cells(self.word)
        if self.tiles and (not _is_rack(self.tiles) or len(self.tiles.split()) != 1):
            raise ValueError(f"bad tiles {self.tiles!r}")
        if self.kind is EventKind.EXCHANGE:
            if self.tiles and self.count == 0:
                object.__setattr__(self, "count", tile_count(self.tiles))
            if self.count < 1 or (self.tiles and self.count != tile_count(self.tiles)):
                raise ValueError(f"exchange of {self.count} tiles {self.tiles!r} is inconsistent")

    @property
    def position(self) -> str:
        """The GCG position of a play (`8D` across, `D8` down); "" for other events."""
        if self.row is None or self.col is None or self.across is None:
            return ""
        return position_name(self.row, self.col, self.across)

    @property
    def move(self) -> str:
        """The move as a GCG event line writes it, e.g. `8D WINDY`, `-ABC`, `--`, `(EIIO)`."""
        match self.kind:
            case EventKind.PLAY:
                return f"{self.position} {self.word}"
            case EventKind.EXCHANGE:
                return f"-{self.tiles or self.count}"
            case EventKind.PASS:
                return "-"
            case EventKind.WITHDRAWN:
                return "--"
            case EventKind.CHALLENGE_BONUS:
                return "(challenge)"
            case EventKind.TIME_PENALTY:
                return "(time)"
            case EventKind.END_RACK:
                return f"({self.tiles})"


@dataclass
class GcgRecord:
    """A game as a GCG file records it: players, pragmas and events, in file order.

    `pragmas` maps a pragma name to its text (`{"lexicon": "NWL23", "tile-distribution": "ru"}`;
    a repeated pragma's lines are joined with newlines). `#player<n>` lines become `players`,
    and notes before the first event are kept as the pragma `note`. Set `tile-distribution` to
    one of our variant names so that readers know the tile set.

    >>> record = GcgRecord([GcgPlayer("Аня"), GcgPlayer("Борис")], {"tile-distribution": "ru"})
    >>> record.events.append(GcgEvent(EventKind.PLAY, 0, 10, 10, "", 7, 6, True, "КОТ"))
    >>> parse_gcg(format_gcg(record)) == record
    True
    """

    players: list[GcgPlayer] = field(default_factory=list)
    pragmas: dict[str, str] = field(default_factory=dict)
    events: list[GcgEvent] = field(default_factory=list)

    @property
    def tile_distribution(self) -> str:
        """The `#tile-distribution` pragma ("" when absent)."""
        return self.pragmas.get("tile-distribution", "")


# --- reading -----------------------------------------------------------------------------------


def _word_cells(word: str) -> list[tuple[str, bool]]:
    """Split a play's word into squares: (token, marked_through), a token one character or a
    bracketed tile (`[ch]`). `.` and letters in parentheses are marked as already on the board;
    a plain letter is on the board only if its square is."""
    cells: list[tuple[str, bool]] = []
    inside = False
    for ch in split_tiles(word):
        if ch == "(":
            if inside:
                raise ValueError(f"nested parentheses in {word!r}")
            inside = True
        elif ch == ")":
            if not inside:
                raise ValueError(f"unbalanced parentheses in {word!r}")
            inside = False
        elif ch.isspace() or ch in "+-":
            raise ValueError(f"{ch!r} cannot be part of a word")
        else:
            cells.append((ch, inside or ch == "."))
    if inside:
        raise ValueError(f"unbalanced parentheses in {word!r}")
    if not cells:
        raise ValueError(f"empty word {word!r}")
    return cells


def _is_rack(token: str) -> bool:
    if token.startswith(("-", "(", "+")) or any(ch.isdigit() for ch in token):
        return False
    try:
        split_tiles(token)
    except ValueError:
        return False
    return True


def _parse_move(tokens: list[str]) -> tuple[dict[str, object], int]:
    """Read the move tokens of an event line: the event's fields and how many tokens were used."""
    move = tokens[0]
    if move == "--":
        return {"kind": EventKind.WITHDRAWN}, 1
    if move == "-":
        return {"kind": EventKind.PASS}, 1
    if move.startswith("-"):
        thrown = move[1:]
        if thrown.isdigit():
            return {"kind": EventKind.EXCHANGE, "count": int(thrown)}, 1
        if not _is_rack(thrown):
            raise ValueError(f"bad exchange {move!r}")
        return {"kind": EventKind.EXCHANGE, "tiles": thrown}, 1
    if move == "(challenge)":
        return {"kind": EventKind.CHALLENGE_BONUS}, 1
    if move == "(time)":
        return {"kind": EventKind.TIME_PENALTY}, 1
    if move.startswith("(") and move.endswith(")"):
        rack = move[1:-1]
        if rack and not _is_rack(rack):
            raise ValueError(f"bad rack {move!r}")
        return {"kind": EventKind.END_RACK, "tiles": rack}, 1
    if _POSITION.match(move):
        if len(tokens) < 2 or _SCORE.match(tokens[1]):
            raise ValueError(f"play at {move} has no word")
        row, col, across = parse_position(move)
        fields = {"kind": EventKind.PLAY, "row": row, "col": col, "across": across}
        return {**fields, "word": tokens[1]}, 2
    raise ValueError(f"cannot read the move {move!r}")


class _PlayerTracker:
    """Resolves event nicks to player indices; a nick shared by several players goes by turn order."""

    def __init__(self, players: list[GcgPlayer]) -> None:
        self.players = players
        self.last_turn: int | None = None

    def resolve(self, nick: str, kind: EventKind) -> int:
        candidates = [i for i, p in enumerate(self.players) if p.nick == nick]
        if not candidates:
            self.players.append(GcgPlayer(nick))
            candidates = [len(self.players) - 1]
        if len(candidates) == 1:
            chosen = candidates[0]
        elif kind in _TURN_KINDS:
            after = [i for i in candidates if self.last_turn is not None and i > self.last_turn]
            chosen = (after or candidates)[0]
        else:
            chosen = self.last_turn if self.last_turn in candidates else candidates[0]
        if kind in _TURN_KINDS:
            self.last_turn = chosen
        return chosen


def _parse_event(body: str, tracker: _PlayerTracker, number: int) -> GcgEvent:
    nick, colon, rest = body.partition(":")
    nick = nick.strip()
    if not colon or not nick or any(ch.isspace() for ch in nick):
        raise ValueError("an event line starts with '>nick:'")
    tokens = rest.split()
    rack = ""
    if tokens and _is_rack(tokens[0]):
        rack, tokens = tokens[0], tokens[1:]
    if not tokens:
        raise ValueError("no move")
    fields, used = _parse_move(tokens)
    numbers = tokens[used : used + 2]
    if len(numbers) < 2 or not all(_SCORE.match(n) for n in numbers):
        raise ValueError("expected a score and a cumulative total after the move")
    kind = fields.pop("kind")
    assert isinstance(kind, EventKind)
    player = tracker.resolve(nick, kind)
    score, total = int(numbers[0]), int(numbers[1])
    return GcgEvent(kind, player, score, total, rack, line=number, **fields)  # type: ignore[arg-type]


def _append(text: str, more: str) -> str:
    return f"{text}\n{more}" if text else more


def parse_gcg(text: str) -> GcgRecord:
    """Parse GCG text into a `GcgRecord`; raises `GcgError` naming the first malformed line.

    Forgiving where files differ (position case and order, extra spacing, trailing words after
    the total, unknown pragmas, CRLF, a BOM); strict about moves, scores and totals.

    >>> record = parse_gcg("#player1 doug Doug\\n#player2 emely Emely\\n>doug: DINNVWY 8D WINDY +32 32\\n")
    >>> record.events[0].word, record.events[0].score, record.players[1].name
    ('WINDY', 32, 'Emely')
    """
    record = GcgRecord()
    numbered: dict[int, GcgPlayer] = {}
    tracker = _PlayerTracker(record.players)
    in_note = False
    for number, raw in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        line = raw.rstrip()
        try:
            if line.startswith(">"):
                record.events.append(_parse_event(line[1:], tracker, number))
                in_note = False
            elif line.startswith("#"):
                key, _, value = line[1:].partition(" ")
                value = value.strip()
                in_note = key == "note"
                if player_pragma := _PLAYER_PRAGMA.match(key):
                    nick, _, name = value.partition(" ")
                    if not nick:
                        raise ValueError(f"#{key} needs a nickname")
                    player = GcgPlayer(nick, name.strip())
                    numbered[int(player_pragma.group(1))] = player
                    _add_player(record, numbered, player)
                elif in_note and record.events:
                    _add_note(record, value)
                elif key and key not in _TRANSPORT_PRAGMAS:
                    record.pragmas[key] = _append(record.pragmas.get(key, ""), value)
            elif line:
                if not in_note:
                    raise ValueError("not an event ('>'), a pragma ('#') or part of a note")
                if record.events:
                    _add_note(record, line.strip())
                else:
                    record.pragmas["note"] = _append(record.pragmas.get("note", ""), line.strip())
        except ValueError as exc:
            raise GcgError(str(exc), number, raw) from None
    return record


def _add_player(record: GcgRecord, numbered: dict[int, GcgPlayer], player: GcgPlayer) -> None:
    """Take in the `#player<n>` pragmas read so far. Before the first event they set the players
    in pragma order; after it (rare) they name a player already seen or add one."""
    if not record.events:
        record.players[:] = [numbered[k] for k in sorted(numbered)]
        return
    for i, seen in enumerate(record.players):
        if seen.nick == player.nick and not seen.name:
            record.players[i] = player
            return
    if player not in record.players:
        record.players.append(player)


def _add_note(record: GcgRecord, text: str) -> None:
    last = record.events[-1]
    record.events[-1] = replace(last, note=_append(last.note, text))


def decode_gcg(data: bytes) -> str:
    """Decode the bytes of a GCG file: a BOM wins, then UTF-8, then the declared
    `#character-encoding`, then ISO-8859-1 (the format's default, which decodes anything)."""
    for bom, encoding in (
        (codecs.BOM_UTF8, "utf-8-sig"),
        (codecs.BOM_UTF16_LE, "utf-16"),
        (codecs.BOM_UTF16_BE, "utf-16"),
    ):
        if data.startswith(bom):
            return data.decode(encoding)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    declared = re.search(rb"^#character-encoding[ \t]+(\S+)", data, re.MULTILINE)
    if declared:
        try:
            return data.decode(declared.group(1).decode("ascii", "replace"))
        except (LookupError, UnicodeDecodeError):
            pass
    return data.decode("iso-8859-1")


def read_gcg_file(path: str | Path) -> GcgRecord:
    """Read and parse a GCG file in any of the encodings found in the wild (see `decode_gcg`).

    Raises `GcgError` naming the file (and the line) when it cannot be read or parsed.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise GcgError(f"cannot read: {exc.strerror or exc}", path=str(path)) from None
    try:
        return parse_gcg(decode_gcg(data))
    except GcgError as exc:
        raise exc.in_file(path) from None


# --- writing -----------------------------------------------------------------------------------


def _check(ok: bool, what: str, text: str) -> None:
    if not ok:
        raise GcgError(f"cannot write {what} {text!r} in GCG")


def format_gcg(record: GcgRecord) -> str:
    """Write a record as UTF-8 GCG text: encoding pragma, `#tile-distribution` first when set,
    players, the other pragmas, then events each followed by its `#note` lines.

    `parse_gcg(format_gcg(record)) == record` for every record whose text fields are as
    `parse_gcg` gives them (a nick is one word without ':', a name one line, and so on);
    anything else raises `GcgError`.
    """
    lines = ["#character-encoding UTF-8"]

    def pragma(key: str, value: str) -> None:
        lines.extend(f"#{key} {part}".rstrip() for part in value.split("\n"))

    if record.tile_distribution:
        pragma("tile-distribution", record.tile_distribution)
    for number, player in enumerate(record.players, start=1):
        nick_ok = bool(player.nick) and ":" not in player.nick and len(player.nick.split()) == 1
        _check(nick_ok, "the nickname", player.nick)
        _check(
            "\n" not in player.name and player.name == player.name.strip(), "the name", player.name
        )
        pragma(f"player{number}", f"{player.nick} {player.name}")
    for key, value in record.pragmas.items():
        reserved = _PLAYER_PRAGMA.match(key) or key in _TRANSPORT_PRAGMAS
        _check(bool(key) and len(key.split()) == 1 and not reserved, "the pragma", key)
        if key != "tile-distribution":
            pragma(key, value)
    for event in record.events:
        _check(0 <= event.player < len(record.players), "an event of player", str(event.player))
        parts = [f">{record.players[event.player].nick}:"]
        if event.rack:
            _check(_is_rack(event.rack) and len(event.rack.split()) == 1, "the rack", event.rack)
            parts.append(event.rack)
        if event.kind is EventKind.PLAY:
            _check(len(event.word.split()) == 1, "the word", event.word)
        parts += [event.move, f"{event.score:+d}", str(event.total)]
        lines.append(" ".join(parts))
        if event.note:
            pragma("note", event.note)
    return "\n".join(lines) + "\n"


# --- rescoring ---------------------------------------------------------------------------------


class MismatchKind(StrEnum):
    """Which recorded figure the rescoring did not reproduce."""

    SCORE = "score"  # a play's score (or a play that does not fit the board)
    TOTAL = "total"  # a cumulative total that is not the previous total plus the score
    RACK = "rack"  # end-of-game rack points that are neither the rack's value nor twice it


@dataclass(frozen=True)
class Mismatch:
    """A recorded figure that the rescoring does not reproduce.

    `computed` is None when it cannot be computed (a play that does not fit the board, rack
    points that could be once or twice the rack); `reason` then says why.
    """

    line: int
    player: str
    move: str
    kind: MismatchKind
    recorded: int
    computed: int | None
    reason: str = ""

    def __str__(self) -> str:
        computed = "?" if self.computed is None else str(self.computed)
        text = f">{self.player}: {self.move}: {self.kind} recorded {self.recorded}, computed {computed}"
        return f"{text}: {self.reason}" if self.reason else text


@dataclass(frozen=True)
class CheckResult:
    """The outcome of rescoring one record.

    `plays` counts the tile plays rescored; `withdrawn` those among them taken back on the next
    line, whose recorded score is the player's claim and is not compared. `mismatches`, in line
    order, are every play score, cumulative total and end-of-game rack points not reproduced.
    `board` is the board after the last event.
    """

    variant: str
    plays: int
    withdrawn: int
    mismatches: tuple[Mismatch, ...]
    board: Board


def play_placements(board: Board, event: GcgEvent) -> tuple[list[Placement], list[str]]:
    """The new tiles a play's word puts on `board`, and every way the word disagrees with it.

    A letter on an empty square is a new tile (lower case: a blank); `.` and parenthesized
    letters must already be on the board, and a letter on a filled square must match it. The
    placements are as complete as the word allows even when there are problems, so a replay can
    go on; a word running off the board gives no placements.
    """
    assert event.row is not None and event.col is not None
    dr, dc = (0, 1) if event.across else (1, 0)
    placements: list[Placement] = []
    problems: list[str] = []
    for i, (ch, marked) in enumerate(_word_cells(event.word)):
        row, col = event.row + dr * i, event.col + dc * i
        if not board.in_bounds(row, col):
            return [], [f"the word runs off the board at square {i + 1}"]
        on_board = board[row, col]
        if on_board is None:
            if marked:
                problems.append(f"{square_name(row, col)} is empty but the word has it filled")
            if ch != ".":
                letters = unbracket(ch)
                placements.append(Placement(row, col, Tile(letters.upper(), letters.islower())))
        elif ch != "." and unbracket(ch).upper() != on_board.letter.upper():
            problems.append(f"{square_name(row, col)} holds {on_board.char}, the word has {ch}")
    return placements, problems


def check_record(record: GcgRecord, variant: Variant) -> CheckResult:
    """Replay the record's plays on an empty board and rescore each one with `score_play`.

    A play withdrawn on the next line (`--`) is taken back off the board and its recorded score
    is not compared. Cumulative totals and end-of-game rack points are checked too, separately.

    >>> record = parse_gcg(">doug: DINNVWY 8D WINDY +32 32\\n>emely: ADEEGIL 7C GALE +16 16\\n")
    >>> check_record(record, load_variant("en")).mismatches
    ()
    """
    board = Board.empty(variant.layout.width, variant.layout.height)
    events = record.events
    mismatches: list[Mismatch] = []
    plays = withdrawn = 0
    running = [0] * len(record.players)
    # The board and the player's total before the previous event, when that event was a play.
    undo: tuple[Board, int] | None = None
    for i, event in enumerate(events):
        nick = record.players[event.player].nick
        expected = running[event.player] + event.score
        found = partial(Mismatch, event.line, nick, event.move)
        if event.kind is EventKind.PLAY:
            plays += 1
            after, computed, problems = _rescore(board, event, variant)
            if i + 1 < len(events) and events[i + 1].kind is EventKind.WITHDRAWN:
                withdrawn += 1
            elif problems or computed != event.score:
                mismatches.append(
                    found(MismatchKind.SCORE, event.score, computed, "; ".join(problems))
                )
            undo, board = (board, running[event.player]), after
        elif event.kind is EventKind.WITHDRAWN and undo is not None:
            board = undo[0]
            # Some writers give the withdrawal +0 and the total from before the play.
            if event.total == undo[1]:
                expected = event.total
        elif event.kind is EventKind.END_RACK:
            value = sum(variant.value(t) for t in letters_of(event.tiles) if t != "?")
            if abs(event.score) not in (value, 2 * value):
                reason = f"the rack is worth {value}; expected ±{value} or ±{2 * value}"
                mismatches.append(found(MismatchKind.RACK, event.score, None, reason))
        if event.kind is not EventKind.PLAY:
            undo = None
        if expected != event.total:
            reason = f"previous total {running[event.player]}"
            mismatches.append(found(MismatchKind.TOTAL, event.total, expected, reason))
        running[event.player] = event.total
    return CheckResult(variant.name, plays, withdrawn, tuple(mismatches), board)


def _rescore(
    board: Board, event: GcgEvent, variant: Variant
) -> tuple[Board, int | None, list[str]]:
    """Put a play on the board: the board after it, its computed score, and any problems."""
    placements, problems = play_placements(board, event)
    foreign = sorted(
        {p.tile.letter for p in placements if not p.tile.is_blank} - set(variant.alphabet)
    )
    if foreign:
        problems.append(f"{', '.join(foreign)} not in the {variant.name} tile set")
    if not placements:
        return board, None, problems or ["the play puts down no new tile"]
    try:
        scored = score_play(board, placements, variant, across=event.across)
    except IllegalPlay as exc:
        return board, None, [*problems, str(exc)]
    return board.place({p.square: p.tile for p in placements}), scored.score, problems


def _letters_used(events: Iterable[GcgEvent]) -> set[str]:
    text = "".join(e.rack + e.word + e.tiles for e in events)
    return {letter.upper() for letter in letters_of(text) if letter not in ".()?"}


def infer_variant(record: GcgRecord) -> Variant:
    """The variant a record was played in: its `#tile-distribution` when that names one of ours,
    else among the variants whose tile set holds every letter used (narrowed by `#lexicon`) the
    one that reproduces most recorded scores; `en` when no tile set fits.
    """
    if record.tile_distribution in variant_names():
        return load_variant(record.tile_distribution)
    letters = _letters_used(record.events)
    fitting = [v for v in map(load_variant, variant_names()) if letters <= set(v.alphabet)]
    lexicon = record.pragmas.get("lexicon", "").upper()
    language = next(
        (lang for pre, lang in _LEXICON_LANGUAGES.items() if lexicon.startswith(pre)), ""
    )
    fitting = [v for v in fitting if v.language == language] or fitting
    if not fitting:
        return load_variant(DEFAULT_VARIANT)
    if len(fitting) == 1:
        return fitting[0]
    return min(
        fitting, key=lambda v: (len(check_record(record, v).mismatches), len(v.alphabet), v.name)
    )
