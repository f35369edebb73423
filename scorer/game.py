"""A game as an append-only event log (plays, passes, exchanges, challenges, corrections, the end)
whose state and score sheet are a fold of that log (RULES.md §3, §6, §7).

Players are referred to by their 0-based index in turn order, so repeated nicknames are harmless.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from scorer.board import UNKNOWN_BLANK, Board, Square, Tile, position_name
from scorer.errors import IllegalPlay, PlayErrorCode
from scorer.gcg import EventKind, GcgEvent, GcgRecord, play_placements
from scorer.notation import NotationError, letters_of, spell, split_tiles, tile_count, unbracket
from scorer.scoring import ScoredPlay, score_play
from scorer.variant import Variant

MIN_PLAYERS = 2
MAX_PLAYERS = 4

LineKind = Literal[
    "play",
    "pass",
    "exchange",
    "withdrawn",
    "challenge_penalty",
    "challenge_bonus",
    "end_rack",
    "out_bonus",
    "time_penalty",
]
EndReason = Literal["", "went_out", "scoreless_turns", "finish_line", "stopped"]


class GameError(ValueError):
    """An event that cannot be applied to the game as it stands; the message says why."""


@dataclass(frozen=True)
class Play:
    """`player` put tiles on the board; `rack` is what they held before, when known."""

    player: int
    play: ScoredPlay
    rack: str | None = None


@dataclass(frozen=True)
class Pass:
    """`player` passed."""

    player: int
    rack: str | None = None


@dataclass(frozen=True)
class Exchange:
    """`player` exchanged tiles: the letters when known (`?` a blank), else just how many."""

    player: int
    tiles: str = ""
    count: int = 0
    rack: str | None = None

    @property
    def size(self) -> int:
        """How many tiles went back to the bag."""
        return tile_count(self.tiles) if self.tiles else self.count


@dataclass(frozen=True)
class ChallengeWithdrawn:
    """A successful challenge: `player`'s last play goes back to their rack and scores nothing."""

    player: int


@dataclass(frozen=True)
class ChallengeFailed:
    """An unsuccessful challenge by `challenger`: the play stands and the variant's penalty applies
    (`double`: the challenger loses their next turn; `five_point`: the challenged player gains
    `bonus` points, by default the game's `options.challenge_bonus`).
    """

    challenger: int
    bonus: int | None = None


@dataclass(frozen=True)
class Correction:
    """Replaces the play recorded as `game.events[index]` (a misread letter fixed later)."""

    index: int
    play: ScoredPlay
    rack: str | None = None


@dataclass(frozen=True)
class EndOfGame:
    """The tiles left on each player's rack, in turn order (`?` a blank).

    `""` marks the player who went out (only once the bag is empty); all racks `""` settles
    nothing (racks not known, e.g. after the finish line). The others lose their rack's value
    and the one who went out gains per `variant.end.out_bonus`.
    """

    racks: tuple[str, ...]


@dataclass(frozen=True)
class TimePenalty:
    """Points `player` loses for overstepping the chess clock (tournament play, RULES.md §7)."""

    player: int
    points: int


Event = (
    Play
    | Pass
    | Exchange
    | ChallengeWithdrawn
    | ChallengeFailed
    | Correction
    | EndOfGame
    | TimePenalty
)


@dataclass(frozen=True)
class SheetLine:
    """One line of the score sheet.

    `word` is the main word of a play (blanks lower-case, `?` an unknown blank), the tiles of an
    exchange when known, or the rack letters settled at the end; `position` is empty except for
    plays and withdrawn plays. `total` is the player's score after this line. `play` is the play
    (as scored on the board it was put on) of a play or withdrawn line.
    """

    player: int
    kind: LineKind
    score: int
    total: int
    position: str = ""
    word: str = ""
    words: tuple[tuple[str, int], ...] = ()
    rack: str | None = None
    exchanged: int = 0
    play: ScoredPlay | None = None


@dataclass(frozen=True)
class LastPlay:
    """The play that may still be challenged: the latest event was this play."""

    player: int
    play: ScoredPlay
    scoreless_before: int
    rack: str | None = None


@dataclass(frozen=True)
class GameState:
    """Everything the log implies at one point of the game.

    `unseen` counts the tiles not on the board (bag and all racks); `bag_size` assumes every
    rack is full while the bag allows. `winners` is empty until the game is finished and holds
    several players only on a tie that the scores before the end adjustments do not break.
    """

    board: Board
    scores: tuple[int, ...]
    turn: int
    lines: tuple[SheetLine, ...] = ()
    scoreless_turns: int = 0
    lost_turns: tuple[int, ...] = ()
    last_play: LastPlay | None = None
    unseen: int = 0
    bag_size: int = 0
    settled: bool = False
    finished: bool = False
    reason: EndReason = ""
    scores_before_end: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()

    @property
    def bag_empty(self) -> bool:
        return self.bag_size == 0


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _check_counts(held: Counter[str], variant: Variant, holder: str) -> None:
    """Raise when `held` (letters, `?` for blanks) exceeds the variant's tile set."""
    for letter, count in held.items():
        if letter == UNKNOWN_BLANK:
            if count > variant.blank_count:
                raise IllegalPlay(
                    PlayErrorCode.TOO_MANY_TILES,
                    f"{holder} {count} × {variant.blank_name} but the set has only "
                    f"{variant.blank_count}",
                )
        elif not variant.has_letter(letter):
            raise IllegalPlay(
                PlayErrorCode.UNKNOWN_LETTER,
                f"{holder} {letter}, which is not in the {variant.name} tile set",
            )
        elif count > variant.count(letter):
            raise IllegalPlay(
                PlayErrorCode.TOO_MANY_TILES,
                f"{holder} {count} × {letter} but the set has only {variant.count(letter)}",
            )


def _tile_key(tile: Tile) -> str:
    """What a tile is in the bag: its letter, or `?` for any blank."""
    return UNKNOWN_BLANK if tile.is_blank else tile.letter


def check_tile_counts(board: Board, variant: Variant) -> None:
    """Raise `IllegalPlay` when the board holds more of a letter (or more blanks) than the set has.

    Blanks count as blanks, whatever letter they stand for; a letter the set lacks is an error too.

    >>> from scorer.variant import load_variant
    >>> check_tile_counts(Board.from_rows(["ФФ"]), load_variant("ru"))
    Traceback (most recent call last):
    ...
    scorer.errors.IllegalPlay: the board holds 2 × Ф but the set has only 1
    """
    for _, tile in board.tiles():
        if tile.is_blank and tile.letter != UNKNOWN_BLANK and not variant.has_letter(tile.letter):
            raise IllegalPlay(
                PlayErrorCode.UNKNOWN_LETTER,
                f"the board holds a {variant.blank_name} standing for {tile.letter}, "
                f"which is not in the {variant.name} tile set",
            )
    _check_counts(Counter(_tile_key(t) for _, t in board.tiles()), variant, "the board holds")


def _runs(board: Board) -> Iterator[tuple[str, Square, bool]]:
    """Every maximal run of 2+ tiles: (letters, first square, across)."""
    for across in (True, False):
        lines = board.height if across else board.width
        length = board.width if across else board.height
        for line in range(lines):
            start = None
            for i in range(length + 1):
                square = (line, i) if across else (i, line)
                tile = board.get(*square) if i < length else None
                if tile is not None and start is None:
                    start = i
                elif tile is None and start is not None:
                    if i - start > 1:
                        squares = [(line, j) if across else (j, line) for j in range(start, i)]
                        word = spell(board[s].letter for s in squares)  # type: ignore[union-attr]
                        yield word, squares[0], across
                    start = None


def _check_one_copy(board: Board, play: ScoredPlay, variant: Variant) -> None:
    """Raise when a word the play forms stands on the board twice (one-copy-of-a-word option)."""

    def key(word: str) -> str:
        return spell(variant.canonical_letter(letter) for letter in letters_of(word.upper()))

    standing: dict[str, list[str]] = {}
    for word, (row, col), across in _runs(board):
        if UNKNOWN_BLANK not in word:
            standing.setdefault(key(word), []).append(position_name(row, col, across))
    for formed in play.words:
        places = standing.get(key(formed.word), [])
        if formed.length > 1 and len(places) > 1:
            other = next(p for p in places if p != formed.position)
            raise IllegalPlay(
                PlayErrorCode.DUPLICATE_WORD,
                f"{formed.word.upper()} already stands on the board at {other} "
                "(one copy of a word)",
                tuple(p.square for p in play.placements),
            )


def first_player(draws: Sequence[str], variant: Variant) -> int | None:
    """Who moves first (RULES.md §7): the player whose drawn tile is nearest the start of the
    alphabet, a blank (`?`) beating every letter; None when the best draws tie (draw again).

    >>> from scorer.variant import load_variant
    >>> first_player(["Б", "А", "Я"], load_variant("ru")), first_player(["Я", "?"], load_variant("ru"))
    (1, 1)
    """
    order = {letter: rank for rank, letter in enumerate(variant.alphabet, start=1)}
    ranks = []
    for tile in draws:
        if tile != UNKNOWN_BLANK and tile not in order:
            raise GameError(f"{tile!r} is not a tile of {variant.title}")
        ranks.append(0 if tile == UNKNOWN_BLANK else order[tile])
    best = min(ranks)
    return ranks.index(best) if ranks.count(best) == 1 else None


def parse_rack(text: str, variant: Variant) -> str:
    """Normalise rack letters: upper case, `?` (or the variant's blank symbol) for a blank, a
    tile of several letters in brackets (`[CH]`, `scorer.notation`).

    >>> from scorer.variant import load_variant
    >>> parse_rack("ab?", load_variant("en")), parse_rack("[ch]a", load_variant("es"))
    ('AB?', '[CH]A')
    """
    try:
        tokens = split_tiles(text.replace(" ", ""))
    except NotationError as exc:
        raise GameError(f"rack {text!r}: {exc}") from None
    letters = []
    for ch in tokens:
        if ch == UNKNOWN_BLANK or (variant.blank_symbol and ch == variant.blank_symbol):
            letters.append(UNKNOWN_BLANK)
        elif variant.has_letter(unbracket(ch).upper()):
            letters.append(unbracket(ch).upper())
        else:
            raise GameError(f"{ch!r} in rack {text!r} is not a tile of the {variant.name} set")
    if len(letters) > variant.rack_size:
        raise GameError(f"rack {text!r} holds more than {variant.rack_size} tiles")
    return spell(letters)


def rack_value(rack: str, variant: Variant) -> int:
    """The face value of the tiles on a rack (blanks 0)."""
    return sum(variant.value(letter) for letter in letters_of(rack) if letter != UNKNOWN_BLANK)


@dataclass(frozen=True)
class _Rules:
    """What the fold needs besides the state: the variant and the player names."""

    variant: Variant
    players: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.players)

    def name(self, player: int) -> str:
        return self.players[player]

    def check_player(self, player: int) -> None:
        if not 0 <= player < self.count:
            raise GameError(f"no player number {player}: the game has {self.count} players")


def _require_open(state: GameState) -> None:
    if state.settled:
        raise GameError("the game is over: nothing can be played after the end")
    if state.finished:
        raise GameError(
            f"the game is over ({state.reason.replace('_', ' ')}); record the racks left"
        )


def _require_turn(rules: _Rules, state: GameState, player: int) -> None:
    rules.check_player(player)
    _require_open(state)
    if player != state.turn:
        raise GameError(f"it is {rules.name(state.turn)}'s turn, not {rules.name(player)}'s")


def _check_rack(rules: _Rules, player: int, rack: str | None, used: Iterable[str]) -> str | None:
    """Normalise a recorded rack and check the tiles used came from it."""
    if rack is None:
        return None
    letters = parse_rack(rack, rules.variant)
    missing = Counter(used) - Counter(letters_of(letters))
    if missing:
        raise GameError(
            f"{rules.name(player)} uses {spell(sorted(missing.elements()))}, "
            f"which is not on the rack {letters}"
        )
    return letters


def _bump(scores: tuple[int, ...], player: int, points: int) -> tuple[int, ...]:
    return tuple(s + points if p == player else s for p, s in enumerate(scores))


def _line(state: GameState, player: int, kind: LineKind, score: int, **extra: object) -> SheetLine:
    return SheetLine(player, kind, score, state.scores[player] + score, **extra)  # type: ignore[arg-type]


def _advance(rules: _Rules, state: GameState, turn: int) -> GameState:
    """Give the turn to `turn` or, skipping (and spending) lost turns, the first player after."""
    turn, lost, scoreless = turn % rules.count, list(state.lost_turns), state.scoreless_turns
    while lost[turn] > 0:
        lost[turn] -= 1
        scoreless += 1
        turn = (turn + 1) % rules.count
    return dataclasses.replace(state, turn=turn, lost_turns=tuple(lost), scoreless_turns=scoreless)


def _record(state: GameState, line: SheetLine, **changes: object) -> GameState:
    scores = _bump(state.scores, line.player, line.score)
    return dataclasses.replace(state, scores=scores, lines=(*state.lines, line), **changes)  # type: ignore[arg-type]


def _play(rules: _Rules, state: GameState, event: Play) -> GameState:
    _require_turn(rules, state, event.player)
    variant = rules.variant
    # Re-scored on the board as it stands, so a corrected earlier play carries into later words.
    scored = score_play(state.board, event.play.placements, variant, event.play.across)
    board = state.board.place({p.square: p.tile for p in scored.placements})
    check_tile_counts(board, variant)
    if variant.options.one_copy_of_word:
        _check_one_copy(board, scored, variant)
    rack = _check_rack(
        rules, event.player, event.rack, (_tile_key(p.tile) for p in scored.placements)
    )
    line = _line(
        state,
        event.player,
        "play",
        scored.score,
        position=scored.position,
        word=scored.word,
        words=tuple((w.word, w.score) for w in scored.words),
        rack=rack,
        play=scored,
    )
    last = LastPlay(event.player, scored, state.scoreless_turns, rack)
    state = _record(state, line, board=board, scoreless_turns=0, last_play=last)
    return _advance(rules, state, event.player + 1)


def _pass(rules: _Rules, state: GameState, event: Pass) -> GameState:
    _require_turn(rules, state, event.player)
    rack = _check_rack(rules, event.player, event.rack, ())
    line = _line(state, event.player, "pass", 0, rack=rack)
    state = _record(state, line, scoreless_turns=state.scoreless_turns + 1, last_play=None)
    return _advance(rules, state, event.player + 1)


def _exchange(rules: _Rules, state: GameState, event: Exchange) -> GameState:
    _require_turn(rules, state, event.player)
    variant = rules.variant
    tiles = parse_rack(event.tiles, variant) if event.tiles else ""
    if tiles and event.count and event.count != tile_count(tiles):
        raise GameError(f"exchange of {tiles} is {tile_count(tiles)} tiles, not {event.count}")
    if not 1 <= event.size <= variant.rack_size:
        raise GameError(f"an exchange is of 1 to {variant.rack_size} tiles, not {event.size}")
    if state.bag_size < variant.exchange_min_bag:
        raise GameError(
            f"{rules.name(event.player)} cannot exchange: the bag holds "
            f"{_plural(state.bag_size, 'tile')}, fewer than {variant.exchange_min_bag}"
        )
    rack = _check_rack(rules, event.player, event.rack, letters_of(tiles))
    line = _line(state, event.player, "exchange", 0, word=tiles, rack=rack, exchanged=event.size)
    state = _record(state, line, scoreless_turns=state.scoreless_turns + 1, last_play=None)
    return _advance(rules, state, event.player + 1)


def _withdrawn(rules: _Rules, state: GameState, event: ChallengeWithdrawn) -> GameState:
    rules.check_player(event.player)
    last = state.last_play
    if state.settled or last is None:
        raise GameError("there is no play to withdraw: a challenge must follow the play at once")
    if last.player != event.player:
        raise GameError(
            f"the last play is {rules.name(last.player)}'s, not {rules.name(event.player)}'s"
        )
    board = state.board.place({p.square: None for p in last.play.placements})
    line = _line(
        state,
        last.player,
        "withdrawn",
        -last.play.score,
        position=last.play.position,
        word=last.play.word,
        rack=last.rack,
        play=last.play,
    )
    return _record(
        state, line, board=board, scoreless_turns=last.scoreless_before + 1, last_play=None
    )


def _challenge_failed(rules: _Rules, state: GameState, event: ChallengeFailed) -> GameState:
    rules.check_player(event.challenger)
    last = state.last_play
    if state.settled or last is None:
        raise GameError("there is no play to challenge: a challenge must follow the play at once")
    if last.player == event.challenger:
        raise GameError(f"{rules.name(event.challenger)} cannot challenge their own play")
    if rules.variant.options.challenge == "five_point":
        bonus = rules.variant.options.challenge_bonus if event.bonus is None else event.bonus
        line = _line(state, last.player, "challenge_bonus", bonus)
        return _record(state, line, last_play=None)
    line = _line(state, event.challenger, "challenge_penalty", 0)
    lost = _bump(state.lost_turns, event.challenger, 1)
    state = _record(state, line, lost_turns=lost, last_play=None)
    # The lost turn is spent at once when the challenger is the one to move.
    return _advance(rules, state, state.turn)


def _end(rules: _Rules, state: GameState, event: EndOfGame) -> GameState:
    if state.settled:
        raise GameError("the game has already ended")
    variant = rules.variant
    if len(event.racks) != rules.count:
        raise GameError(f"give one rack per player ({rules.count}), not {len(event.racks)}")
    racks = [parse_rack(r, variant) for r in event.racks]
    held = Counter(_tile_key(t) for _, t in state.board.tiles())
    for rack in racks:
        held.update(letters_of(rack))
    _check_counts(held, variant, "the board and the racks hold")
    empty = [p for p, rack in enumerate(racks) if not rack]
    out: int | None = None
    if len(empty) < rules.count and empty:
        if not state.bag_empty:
            raise GameError(
                f"{rules.name(empty[0])} cannot be out of tiles while the bag still holds "
                f"about {_plural(state.bag_size, 'tile')}"
            )
        if len(empty) > 1:
            raise GameError("only one player can go out; give the tiles left on the other racks")
        out = empty[0]
    values = [rack_value(r, variant) for r in racks]
    before = state.scores
    losers = [p for p in range(rules.count) if racks[p]]
    if out is not None:
        others = [p for p in range(rules.count) if p != out]
        twice = variant.end.out_bonus == "twice_others_two_players" and rules.count == 2
        bonus = 2 * values[others[0]] if twice else sum(values[p] for p in others)
        word = "".join(racks[p] for p in others)
        state = _record(state, _line(state, out, "out_bonus", bonus, word=word))
        # NASPA: the opponent keeps their score when the one who went out takes twice the rack.
        losers = [] if twice else others
    for player in losers:
        line = _line(state, player, "end_rack", -values[player], word=racks[player])
        state = _record(state, line)
    reason: EndReason = "went_out" if out is not None else (state.reason or "stopped")
    return dataclasses.replace(
        state, settled=True, reason=reason, scores_before_end=before, last_play=None
    )


def _time_penalty(rules: _Rules, state: GameState, event: TimePenalty) -> GameState:
    rules.check_player(event.player)
    if event.points < 0:
        raise GameError("a time penalty is a number of points to take off, not negative")
    return _record(state, _line(state, event.player, "time_penalty", -event.points))


def _step(rules: _Rules, state: GameState, event: Event) -> GameState:
    match event:
        case Play():
            state = _play(rules, state, event)
        case Pass():
            state = _pass(rules, state, event)
        case Exchange():
            state = _exchange(rules, state, event)
        case ChallengeWithdrawn():
            state = _withdrawn(rules, state, event)
        case ChallengeFailed():
            state = _challenge_failed(rules, state, event)
        case EndOfGame():
            state = _end(rules, state, event)
        case TimePenalty():
            state = _time_penalty(rules, state, event)
        case _:
            raise GameError(f"not a game event: {event!r}")
    return _conclude(rules, state)


def _scoreless_limit(rules: _Rules) -> int:
    """How many scoreless turns in a row end the game (0: never)."""
    end, options = rules.variant.end, rules.variant.options
    limits = []
    if end.scoreless_turns:
        limits.append(end.scoreless_turns)
    if end.consecutive_passes_per_player and not options.tournament:
        limits.append(end.consecutive_passes_per_player * rules.count)
    return min(limits, default=0)


def _conclude(rules: _Rules, state: GameState) -> GameState:
    """Recompute what follows from the core state: tiles unseen, the bag, the end and the winner."""
    variant = rules.variant
    unseen = variant.tile_total - state.board.tile_count()
    bag = max(0, unseen - rules.count * variant.rack_size)
    reason = state.reason if state.settled else ""
    if not state.settled:
        finish, limit = variant.options.finish_line, _scoreless_limit(rules)
        if finish and max(state.scores) >= finish:
            reason = "finish_line"
        elif limit and state.scoreless_turns >= limit:
            reason = "scoreless_turns"
    finished = bool(reason)
    before = state.scores_before_end if state.settled else state.scores
    winners: tuple[int, ...] = ()
    if finished:
        best = max(state.scores)
        tied = [p for p, s in enumerate(state.scores) if s == best]
        best_before = max(before[p] for p in tied)
        winners = tuple(p for p in tied if before[p] == best_before)
    return dataclasses.replace(
        state,
        unseen=unseen,
        bag_size=bag,
        finished=finished,
        reason=reason,
        scores_before_end=before,
        winners=winners,
    )


def _initial(rules: _Rules) -> GameState:
    variant = rules.variant
    zeros = (0,) * rules.count
    state = GameState(
        board=Board.empty(variant.layout.width, variant.layout.height),
        scores=zeros,
        turn=0,
        lost_turns=zeros,
    )
    return _conclude(rules, state)


def _describe(rules: _Rules, event: Event) -> str:
    """An event named for an error message, e.g. `Play by Ann`."""
    kind = type(event).__name__
    player = (
        event.challenger if isinstance(event, ChallengeFailed) else getattr(event, "player", -1)
    )
    return f"{kind} by {rules.name(player)}" if 0 <= player < rules.count else kind


def _effective(events: Sequence[Event]) -> list[tuple[int, Event]]:
    """The log with corrections applied: (index in the log, event), corrections themselves left out."""
    effective: dict[int, Event] = {}
    for index, event in enumerate(events):
        if not isinstance(event, Correction):
            effective[index] = event
            continue
        target = events[event.index] if 0 <= event.index < index else None
        if not isinstance(target, Play):
            raise GameError(f"event {index + 1}: a correction must name an earlier play")
        rack = event.rack if event.rack is not None else target.rack
        effective[event.index] = Play(target.player, event.play, rack)
    return sorted(effective.items())


@dataclass(frozen=True)
class Game:
    """A game: the variant (with its options), the players in turn order and the event log.

    >>> from scorer.variant import load_variant
    >>> game = Game(load_variant("en"), ("Ann", "Bob")).apply(Pass(0))
    >>> game.state.turn, game.state.scores
    (1, (0, 0))
    """

    variant: Variant
    players: tuple[str, ...]
    events: tuple[Event, ...] = field(default=())

    def __post_init__(self) -> None:
        players = tuple(self.players)
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "events", tuple(self.events))
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise GameError(
                f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}"
            )
        if any(not isinstance(p, str) or not p.strip() for p in players):
            raise GameError("every player needs a name")
        if len(set(players)) != len(players):
            raise GameError(f"player names must differ: {', '.join(players)}")

    @property
    def _rules(self) -> _Rules:
        return _Rules(self.variant, self.players)

    @cached_property
    def state(self) -> GameState:
        """The fold of the whole log (corrections applied); raises `GameError` for a bad log."""
        rules = self._rules
        state = _initial(rules)
        for index, event in _effective(self.events):
            try:
                state = _step(rules, state, event)
            except (GameError, IllegalPlay) as exc:
                raise GameError(f"event {index + 1} ({_describe(rules, event)}): {exc}") from exc
        return state

    def apply(self, event: Event) -> Game:
        """A new game with `event` appended; raises `GameError` or `IllegalPlay` if it cannot be.

        Events other than corrections fold onto the cached state; a correction refolds the log.
        """
        game = Game(self.variant, self.players, (*self.events, event))
        if isinstance(event, Correction):
            game.state  # noqa: B018  (validates the refolded log now rather than on first use)
        else:
            # Seed the cache with the incremental fold so a long game is not refolded each turn.
            game.__dict__["state"] = _step(self._rules, self.state, event)
        return game

    def apply_all(self, events: Iterable[Event]) -> Game:
        """Apply several events in order."""
        game = self
        for event in events:
            game = game.apply(event)
        return game

    def player_index(self, name: str) -> int:
        """The turn-order index of the player called `name`."""
        try:
            return self.players.index(name)
        except ValueError:
            raise GameError(
                f"no player called {name!r}; players: {', '.join(self.players)}"
            ) from None


def _gcg_play(board: Board, event: GcgEvent, variant: Variant) -> ScoredPlay:
    """Put a GCG play's word on the board: letters on empty squares are the new tiles."""
    placements, problems = play_placements(board, event)
    if problems:
        raise GameError(f"{event.word} at {event.position}: {'; '.join(problems)}")
    return score_play(board, placements, variant, event.across)


def _gcg_variant(record: GcgRecord, variant: Variant) -> Variant:
    """The variant with the rules the record shows: five-point challenges, how racks settled."""
    if any(e.kind is EventKind.CHALLENGE_BONUS for e in record.events):
        variant = variant.with_options(challenge="five_point")
    ends = [e for e in record.events if e.kind is EventKind.END_RACK]
    if any(e.score > 0 for e in ends) and any(e.score < 0 for e in ends):
        end = dataclasses.replace(variant.end, out_bonus="sum_of_others")
        variant = dataclasses.replace(variant, end=end)
    return variant


def _gcg_end(record: GcgRecord, ends: list[GcgEvent], order: list[int]) -> EndOfGame:
    """The racks left, read from the `(RACK)` lines: a loss is the player's own rack, a gain the
    one who went out (collecting the others' racks)."""
    racks: dict[int, str] = {e.player: e.tiles for e in ends if e.score < 0}
    gains = [e for e in ends if e.score >= 0]
    if gains:
        out = gains[0]
        racks[out.player] = ""
        rest = [p for p in range(len(record.players)) if p not in racks]
        if len(rest) > 1:
            raise GameError("cannot tell each player's rack from the end-of-game lines")
        if rest:
            racks[rest[0]] = out.tiles
    return EndOfGame(tuple(racks.get(p, "") for p in order))


def game_from_gcg(record: GcgRecord, variant: Variant) -> Game:
    """Fold a GCG record into a `Game`: plays are rebuilt by placing each word at its position and
    re-scored; the players are in turn order (the first to move first), named by their nicks.

    A record with `(challenge)` lines is played under the five-point rule, and one whose `(RACK)`
    lines take the racks off the other players under `sum_of_others`. Raises `GameError` naming
    the GCG line for what the game model does not hold or
    for an event that breaks the rules (out of turn, too many of a letter).
    """
    if not MIN_PLAYERS <= len(record.players) <= MAX_PLAYERS:
        raise GameError(
            f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(record.players)}"
        )
    first = record.events[0].player if record.events else 0
    order = [(first + k) % len(record.players) for k in range(len(record.players))]
    index = {gcg: k for k, gcg in enumerate(order)}
    names: list[str] = []
    for gcg in order:
        nick = record.players[gcg].nick
        names.append(nick if nick not in names else f"{nick}_{len(names) + 1}")
    variant = _gcg_variant(record, variant)
    game = Game(variant, tuple(names))
    ends = [e for e in record.events if e.kind is EventKind.END_RACK]
    for event in record.events:
        player, rack = index[event.player], event.rack or None
        try:
            match event.kind:
                case EventKind.PLAY:
                    scored = _gcg_play(game.state.board, event, variant)
                    game = game.apply(Play(player, scored, rack))
                case EventKind.PASS:
                    game = game.apply(Pass(player, rack))
                case EventKind.EXCHANGE:
                    game = game.apply(Exchange(player, event.tiles, event.count, rack))
                case EventKind.WITHDRAWN:
                    game = game.apply(ChallengeWithdrawn(player))
                case EventKind.CHALLENGE_BONUS:
                    game = game.apply(ChallengeFailed(game.state.turn, event.score))
                case EventKind.END_RACK:
                    if event is ends[-1]:
                        game = game.apply(_gcg_end(record, ends, order))
                case EventKind.TIME_PENALTY:
                    game = game.apply(TimePenalty(player, -event.score))
        except (GameError, IllegalPlay) as exc:
            raise GameError(f"GCG line {event.line} ({event.move}): {exc}") from exc
    return game
