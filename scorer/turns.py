"""One turn, from a photo or typed: the board reading is tracked against the game's board (a typed
move is the board after it, read with certainty) and, when the move is settled, turned into the
game event it records. Shared by `replay` and the server, so both follow the same rules: the empty
board photographed before the first move records nothing, and a move the game refuses (a house
rule, tile counts) goes to review instead of failing. The server also sends for confirmation
what a photo may show by mistake: a pass, a play with words the dictionary lacks, and (from a
table camera) a withdrawn play; and a board holding two plays (a turn missed) is offered as both
plays in turn order, each for its own player, to confirm (`two_plays_offered`), never one turn.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from scorer.board import UNKNOWN_BLANK, Board, Square, Tile, parse_position
from scorer.dictionary import Dictionary, Verdict
from scorer.errors import IllegalPlay, PlayErrorCode
from scorer.game import ChallengeWithdrawn, Event, Game, GameError, Pass, Play
from scorer.gcg import EventKind, GcgEvent, play_placements
from scorer.move import ChangeKind, classify_change, find_play
from scorer.tracking import (
    EMPTY,
    Reading,
    TrackResult,
    TurnStatus,
    UncertainCell,
    certain_reading,
    track,
    word_ends,
)

NOTHING_TO_RECORD = "the empty board before the first move: nothing to record"
PASS_TO_CONFIRM = (
    "the board is as the last turn left it: confirm a pass (or an exchange), or reject the photo "
    "if it shows the same move again"
)

ALREADY_RECORDED = (
    "already recorded: the board is as the last turn left it, and this photo was taken before "
    "that turn was recorded; nothing recorded (a pass is recorded with a new photo, or Pass)"
)

FIRST_PASS = "the empty board again, the first photo of it recorded: the first player's pass"

WITHDRAWAL_TO_CONFIRM = (
    "the last play's tiles are gone: confirm it was withdrawn after a challenge, or reject "
    "this if they are still on the board"
)


@dataclass(frozen=True)
class Turn:
    """The tracking result of one photo and the event that records it (None when the turn is
    not settled, or settled with nothing to record)."""

    result: TrackResult
    event: Event | None
    # The events a turn under review would record when confirmed, in order, where tracking
    # settled them but the players must say so (`passes_confirmed`, `withdrawals_confirmed`,
    # `two_plays_offered`: two plays).
    proposed: tuple[Event, ...] = ()

    @property
    def committed(self) -> bool:
        """Settled: its event, if any, may be recorded."""
        return self.result.status is TurnStatus.COMMITTED


def _event(game: Game, result: TrackResult) -> Event | None:
    if result.status is not TurnStatus.COMMITTED:
        return None
    state = game.state
    if result.kind is ChangeKind.PLAY and result.play is not None:
        return Play(state.turn, result.play)
    if result.kind is ChangeKind.WITHDRAWN and state.last_play is not None:
        return ChallengeWithdrawn(state.last_play.player)
    if not state.lines:
        return None  # the board photographed before anyone moved: the game has not begun
    return Pass(state.turn)


def _refused(result: TrackResult, exc: GameError | IllegalPlay) -> TrackResult:
    """A settled play the game refuses, sent for review on its new tiles that the refusal names
    (all of them when it names none), each the tile read or no tile."""
    assert result.play is not None
    tiles = {p.square: p.tile.char for p in result.play.placements}
    named = [s for s in getattr(exc, "squares", ()) if s in tiles] or list(tiles)
    cells = tuple(UncertainCell(s, (tiles[s], EMPTY), str(exc)) for s in named)
    return dataclasses.replace(
        result, status=TurnStatus.NEEDS_REVIEW, message=str(exc), uncertain=cells
    )


def turn_from_reading(
    game: Game,
    reading: Reading,
    dictionary: Dictionary | None,
    steady: frozenset[Square] = frozenset(),
    labels: bool = True,
    answered: frozenset[Square] = frozenset(),
    kept: frozenset[Square] = frozenset(),
    blind: frozenset[Square] = frozenset(),
) -> Turn:
    """Track `reading` against `game`'s board (the last play may be seen withdrawn); `steady`
    are the known tiles the previous settled photo read as empty (`TrackResult.gone`); `labels`
    false for a reading a person corrected, `answered` the squares they set, `kept` the known
    tiles a table camera saw unchanged and `blind` the empty squares it could not see (see
    `track`)."""
    state = game.state
    last = state.last_play.play if state.last_play else None
    result = track(
        state.board,
        reading,
        game.variant,
        dictionary,
        last_play=last,
        steady=steady,
        labels=labels,
        answered=answered,
        kept=kept,
        blind=blind,
    )
    event = _event(game, result)
    if result.status is TurnStatus.COMMITTED and event is None:
        return Turn(dataclasses.replace(result, message=NOTHING_TO_RECORD), None)
    if event is not None:
        try:
            game.apply(event)
        except (GameError, IllegalPlay) as exc:
            return Turn(_refused(result, exc), None)
    return Turn(result, event)


def _proposed(turn: Turn, message: str, cells: tuple[UncertainCell, ...] | None = None) -> Turn:
    """`turn` sent for review with `message` (and, if given, these `cells` asked), the event it
    would record proposed, to be confirmed or corrected."""
    changes = {} if cells is None else {"uncertain": cells}
    result = dataclasses.replace(
        turn.result, status=TurnStatus.NEEDS_REVIEW, message=message, **changes
    )
    return Turn(result, None, proposed=(turn.event,))


def passes_confirmed(turn: Turn, seen: bool | None = None) -> Turn:
    """`turn`, but a pass it would record is sent for review instead, to be confirmed: a photo
    of the board as the last turn left it is a pass, or the same position photographed again (a
    phone's second try with a new photo, a second phone at the table), which must not pass the
    next player's turn silently. The server asks; `replay`, whose photos are one a turn, does
    not. `seen` tells them apart where the phone said what it knew of the game when the photo
    was taken (the service's `after`): True, the phone had seen the last turn recorded, so the
    unchanged board is a pass, recorded; False, the game moved on since (another phone recorded
    this position): nothing is recorded; None, not said: asked."""
    if not isinstance(turn.event, Pass) or seen:
        return turn
    if seen is False:
        return Turn(dataclasses.replace(turn.result, message=ALREADY_RECORDED), None)
    return _proposed(turn, PASS_TO_CONFIRM)


def first_pass(game: Game, turn: Turn) -> Turn:
    """`turn`, but the empty board before the first move, photographed again by players who saw
    their first photo of it recorded (the service's `after`), is the first player's pass (or
    exchange: a photo cannot tell): the first photo of it records nothing, a second one is a
    turn."""
    result = turn.result
    unchanged = result.status is TurnStatus.COMMITTED and result.kind is ChangeKind.UNCHANGED
    if turn.event is not None or not unchanged or game.state.lines:
        return turn
    event = Pass(game.state.turn)
    try:
        game.apply(event)
    except (GameError, IllegalPlay):
        return turn
    return Turn(dataclasses.replace(result, message=FIRST_PASS), event)


def withdrawals_confirmed(turn: Turn) -> Turn:
    """`turn`, but a withdrawal of the last play it would record is sent for review instead, to
    be confirmed: a table camera that sees the last play's tiles gone may be seeing the players
    take them back after a challenge, or a glare, a shadow or a knocked phone hiding them, and a
    play must not vanish from the sheet silently. A photo, taken on purpose after the turn, is
    not asked."""
    if not isinstance(turn.event, ChallengeWithdrawn):
        return turn
    return _proposed(turn, WITHDRAWAL_TO_CONFIRM)


def turn_from_board(game: Game, board: Board, dictionary: Dictionary | None) -> Turn:
    """The turn a person confirmed or corrected: `board` is the whole board after the turn."""
    return turn_from_reading(game, certain_reading(board), dictionary, labels=False)


def phonies_confirmed(
    turn: Turn, answered: frozenset[Square] = frozenset(), sure: frozenset[Square] = frozenset()
) -> Turn:
    """`turn`, but a play it would record with words the dictionary lacks is sent for review
    instead, to be confirmed or corrected, where the photo leaves room for a misread: a letter
    a look-alike of which makes a word of the list (an Ä read as X: PRXMIE), or a tile read as
    an empty square (OOZ for OOZE). The review asks the squares just past the ends of each
    unknown word and its new tiles, but for those in `answered` (the squares the players set
    while reviewing this photo) and in `sure` (those the photo read beyond doubt,
    `scorer.tracking.surely_read`); once none is left, the play is recorded, flagged, a phony
    the others may challenge: at once where every such square is sure (BOEK, BRU, OMA in the
    recorded English games). A typed move is not asked: the person typed it, nor a play whose
    unknown words are all attested in use, every tile of them read with confidence
    (`TrackResult.attested_words`: MAZEY, CABOVER): a rare word really played, recorded
    flagged."""
    play, board = turn.result.play, turn.result.board
    if not isinstance(turn.event, Play) or play is None or board is None:
        return turn
    unknown = set(turn.result.invalid_words) - set(turn.result.attested_words)
    if not unknown:  # every word is known or attested, or nothing checks words
        return turn
    new = {p.square: p.tile.char for p in play.placements}
    ends: list[Square] = []
    letters: list[Square] = []
    for word in play.words:
        if word.word not in unknown:
            continue
        ends += word_ends(board, word)
        letters += [s for s in word.squares if s in new]
    settled = answered | sure
    asked = [s for s in dict.fromkeys(ends + letters) if s not in settled]
    if not asked:
        return turn
    listed = ", ".join(turn.result.invalid_words)
    why = (
        f"not in the dictionary: {listed}: a letter misread or a tile read as an empty square? "
        "correct it, or confirm the move (a phony the others may challenge)"
    )
    cells = tuple(UncertainCell(s, (new.get(s, EMPTY),), why) for s in asked)
    return _proposed(turn, why, cells)


LONE_BLANKS = (
    "new tiles that are all blanks: blank tiles, or empty squares that look like them? correct "
    "them, or confirm the move"
)


def lone_blanks_confirmed(turn: Turn, answered: frozenset[Square] = frozenset()) -> Turn:
    """`turn`, but a play whose new tiles are all blanks the photo read is sent for review
    instead, asking those squares (a blank tile or none), but for the squares in `answered`
    (set by the players while reviewing this photo). An empty square looks most like a plain
    blank, on a board the reader has never seen most of all (wood print, a glare), and a blank
    takes any letter, so the words rarely rule it out: a square of a wood-print board under a
    glare, read as a sure blank beside KEX, was recorded as KEXY (with YT down, both in the
    English list; `bench_players --seed 13`, r14_whitley, turn 8) instead of the exchange made.
    A play with a lettered tile is not asked for this: its letters are the photo's evidence of
    a play there."""
    play = turn.result.play
    if not isinstance(turn.event, Play) or play is None:
        return turn
    if not all(p.tile.is_blank for p in play.placements):
        return turn
    asked = [p.square for p in play.placements if p.square not in answered]
    if not asked:
        return turn
    cells = tuple(UncertainCell(s, (UNKNOWN_BLANK, EMPTY), LONE_BLANKS) for s in asked)
    return _proposed(turn, LONE_BLANKS, cells)


TILE_LIKE_ENDS = (
    "the photo reads no tile just past the end of a word here, but the square looks like a "
    "tile: is there one? correct it, or confirm the move"
)
TILE_LIKE_BESIDE = (
    "the photo reads no new tile, but a square beside the board's tiles looks like one: is "
    "there a tile? correct it, or confirm that nothing was played"
)


def tile_like_confirmed(turn: Turn, squares: frozenset[Square]) -> Turn:
    """`turn`, but a play it would record is sent for review instead where a square just past
    an end of one of its words (main word or cross word) is one of `squares`: read empty, but
    looking like a tile (`vision.answers.tile_like_vacancies`). A tile there would lengthen
    the word and change its score: YAK was recorded as YA, its K on a corner square read empty
    in a photo taken at a slant (`bench_players --styles calibrated`, r13_ben, turn 19). A pass
    it would record is sent for review where one of `squares` lies beside a tile of the board:
    a play of one tile, read empty, is an unchanged board."""
    board = turn.result.board
    if not squares or board is None:
        return turn
    if isinstance(turn.event, Pass):
        beside = [s for s in sorted(squares) if board.touches_tile(*s)]
        if not beside:
            return turn
        cells = tuple(UncertainCell(s, (EMPTY,), TILE_LIKE_BESIDE) for s in beside)
        return _proposed(turn, TILE_LIKE_BESIDE, cells)
    play = turn.result.play
    if not isinstance(turn.event, Play) or play is None:
        return turn
    ends = [square for word in play.words for square in word_ends(board, word) if square in squares]
    if not ends:
        return turn
    cells = tuple(UncertainCell(s, (EMPTY,), TILE_LIKE_ENDS) for s in dict.fromkeys(ends))
    return _proposed(turn, TILE_LIKE_ENDS, cells)


WORD_ENDS = (
    "the photo read tiles and empty squares wrongly here: is there a tile just past the ends of "
    "the words? correct them, or confirm the move"
)
NOTHING_SEEN = (
    "the photo read known tiles as gone: confirm that nothing was played (a pass or an "
    "exchange), or correct the squares of the play it missed"
)


def missed_confirmed(turn: Turn, answered: frozenset[Square] = frozenset()) -> Turn:
    """`turn` from a photo that read known tiles as gone that the players said are there (the
    service's `correct`): it may have missed new tiles too. A play it would record is sent for
    review instead while a square just past an end of one of its words (main word or cross
    word) is empty as read and not in `answered` (set by the players while reviewing this
    photo): asked, it may hold a tile that would lengthen the word and change its score. A pass
    it would record is sent to be confirmed. Both were recorded wrongly from photos of a
    lineless board read a cell or more off near an edge (`bench_players`, r11_wiegand): QAID as
    AID, its Q read as an empty square past the word (seed 12, turn 18), and JOBED as a pass,
    none of its tiles read (seed 15, turn 22)."""
    if isinstance(turn.event, Pass):
        return _proposed(turn, NOTHING_SEEN)
    play, board = turn.result.play, turn.result.board
    if not isinstance(turn.event, Play) or play is None or board is None:
        return turn
    ends = [square for word in play.words for square in word_ends(board, word)]
    asked = [s for s in dict.fromkeys(ends) if s not in answered]
    if not asked:
        return turn
    cells = tuple(UncertainCell(s, (EMPTY,), WORD_ENDS) for s in asked)
    return _proposed(turn, WORD_ENDS, cells)


def corrected_turn(
    game: Game,
    reading: Reading,
    dictionary: Dictionary | None,
    answered: frozenset[Square] = frozenset(),
    gone_there: bool = False,
) -> Turn:
    """The turn after a person corrected some squares of a photo under review (`answered`: the
    squares set while reviewing it). Every square the person did not touch is then taken as
    read; a play with words the dictionary lacks is asked about (`phonies_confirmed`) until the
    person has answered its doubtful squares, and a play of blanks alone until they have
    answered those (`lone_blanks_confirmed`). `gone_there`: the person said known tiles the
    photo read as gone are there; the squares just past the ends of the play's words are then
    asked too, and a pass is confirmed (`missed_confirmed`). The tiles the person set are kept
    as set (`labels=False`)."""
    turn = turn_from_reading(game, reading, dictionary, labels=False, answered=answered)
    turn = lone_blanks_confirmed(phonies_confirmed(turn, answered), answered)
    return missed_confirmed(turn, answered) if gone_there else turn


def turn_from_move(game: Game, position: str, word: str, dictionary: Dictionary | None) -> Turn:
    """The play typed in GCG notation: `position` `8H` across or `H8` down, `word` the whole word
    with the letters already on the board, a blank's letter in lower case. It is checked, scored
    and flagged (words the dictionary lacks) as a photo of the board after it would be.

    Raises `IllegalPlay` or `GameError` saying why the play cannot be made, and a plain
    `ValueError` for notation that says no play.

    >>> from scorer.variant import load_variant
    >>> turn = turn_from_move(Game(load_variant("en"), ("Ann", "Bob")), "8G", "CAt", None)
    >>> turn.event.play.word, turn.event.play.score
    ('CAt', 8)
    """
    board = game.state.board
    row, col, across = parse_position(position)
    play = GcgEvent(
        EventKind.PLAY, game.state.turn, 0, 0, row=row, col=col, across=across, word=word
    )
    placements, problems = play_placements(board, play)
    if problems:
        raise GameError(f"{word} at {position}: {'; '.join(problems)}")
    if not placements:
        raise IllegalPlay(PlayErrorCode.NO_TILES, f"{word} at {position} puts no new tile down")
    after = board.place({p.square: p.tile for p in placements})
    classify_change(board, after, game.variant)  # raises naming the rule an illegal play breaks
    turn = turn_from_board(game, after, dictionary)
    if turn.event is None:
        raise GameError(turn.result.message)
    return turn


TWO_PLAYS = (
    "two plays on the board, a turn missed: {plays}: confirm both, each for its own player, or "
    "correct the squares"
)
TWO_PLAYS_ORDER = (
    "two plays on the board, a turn missed: {plays}, or the other way round: which came first "
    "cannot be told; reject this and type them in turn order"
)


def _play_splits(squares: set[Square]) -> list[tuple[frozenset[Square], frozenset[Square]]]:
    """The ways to split the new tiles into two sets each in one row or column: a line's new
    tiles, or those but one (the other play may cross the line), against the rest."""
    lines: set[frozenset[Square]] = set()
    for index in range(2):
        for value in {s[index] for s in squares}:
            line = frozenset(s for s in squares if s[index] == value)
            lines.add(line)
            lines.update(line - {s} for s in line if len(line) > 1)
    splits = []
    for first in lines:
        rest = frozenset(squares - first)
        if rest and (len({s[0] for s in rest}) == 1 or len({s[1] for s in rest}) == 1):
            splits.append((first, rest))
    return splits


def two_plays_offered(
    game: Game,
    turn: Turn,
    earlier: frozenset[Square] = frozenset(),
    later: frozenset[Square] = frozenset(),
    dictionary: Dictionary | None = None,
) -> Turn:
    """`turn`, but a review whose new tiles make no one play and split into two legal plays in
    turn order (a turn missed: a photo not taken, a table camera that could not see a play) is
    offered as those two plays, each scored for its own player, to be confirmed together; the
    squares it asked only because the tiles made no one play are no longer asked, the others
    (a letter in doubt) still are. Where more than one split or both orders are legal, the
    squares a hand was seen over before the other play (`earlier`) or while laying the last one
    (`later`) may tell them apart (a table camera's); else the review says two plays were made
    and asks for them to be typed, and records neither. A play is never recorded for the player
    whose turn it was not. With a `dictionary` that checks words, a split with a word it lacks
    is none (a printed label read as a tile beside a play is not a second play); without one,
    every square the review asked is still asked."""
    result = turn.result
    if result.status is not TurnStatus.NEEDS_REVIEW or result.play or turn.proposed:
        return turn
    if result.read_board is None:
        return turn
    known = game.state.board
    likely = result.read_board.place(
        {
            cell.square: None if cell.candidates[0] == EMPTY else Tile.from_char(cell.candidates[0])
            for cell in result.uncertain
            if cell.candidates
        }
    )
    new: dict[Square, Tile] = {}
    for row in range(known.height):
        for col in range(known.width):
            old, now = known.get(row, col), likely.get(row, col)
            if old is not None and now != old:
                return turn  # a known tile changed or gone: not two plays
            if old is None and now is not None:
                new[row, col] = now
    if len(new) < 2:
        return turn
    try:
        find_play(known, likely, game.variant)
    except IllegalPlay:
        pass  # no one play: perhaps two
    else:
        return turn  # one play, in doubt for other reasons (a letter, a blank)
    checked = dictionary is not None and dictionary.checks_words
    found: list[tuple[frozenset[Square], frozenset[Square], Play, Play]] = []
    for part in _play_splits(set(new)):
        for first, second in (part, part[::-1]):
            middle = known.place({s: likely.get(*s) for s in first})
            try:
                one = Play(game.state.turn, find_play(known, middle, game.variant))
                after_one = game.apply(one)
                two = Play(after_one.state.turn, find_play(middle, likely, game.variant))
                after_one.apply(two)
            except (GameError, IllegalPlay):
                continue
            if checked and any(
                UNKNOWN_BLANK not in word.word
                and dictionary.check(word.word.upper()).verdict is Verdict.INVALID  # type: ignore[union-attr]
                for play in (one.play, two.play)
                for word in play.words
            ):
                continue
            found.append((first, second, one, two))
    found = list({(f, s): (f, s, a, b) for f, s, a, b in found}.values())
    if len(found) > 1:
        # The hands tell the order: the first play's tiles where a hand was before, the second's
        # where it was last, and not the other way round; only a clear best is taken.
        def told(option: tuple[frozenset[Square], frozenset[Square], Play, Play]) -> int:
            first, second = option[0], option[1]
            return (
                len(first & earlier)
                + len(second & later)
                - len(second & earlier)
                - len(first & later)
            )

        found.sort(key=told, reverse=True)
        if told(found[0]) > told(found[1]):
            found = found[:1]
    if not found:
        return turn

    def said(event: Play) -> str:
        play = event.play
        return f"{play.word} at {play.position} by {game.players[event.player]} ({play.score})"

    first, second, one, two = found[0]
    plays = f"{said(one)}, then {said(two)}"
    if len(found) > 1:
        return Turn(dataclasses.replace(result, message=TWO_PLAYS_ORDER.format(plays=plays)), None)
    message = TWO_PLAYS.format(plays=plays)
    tiles = {s: likely.get(*s) for s in first | second}
    asked = tuple(
        dataclasses.replace(cell, reason=message)
        for cell in result.uncertain
        if not (
            checked
            and cell.square in tiles
            and set(cell.candidates) <= {tiles[cell.square].char, EMPTY}  # type: ignore[union-attr]
        )
    )
    review = dataclasses.replace(result, message=message, uncertain=asked, board=likely)
    return Turn(review, None, proposed=(one, two))
