"""The table camera's state machine: from what each frame of a phone on a stand shows, say when a
turn is to be read. Pure: no images, no I/O, no clock (each frame's time is passed in).

Each frame comes as a `FrameLook`: whether a board was found, how many squares moved since the
frame before (a hand, an arm, a tile being slid, the phone knocked), and which squares differ from
the settled board, the position the last turn left. The answer is a `FrameStatus`:

- `no_board`: no board in the frame;
- `busy`: something moves over the board, or more squares changed at once than a move can change
  while something also lies across the board's edge (an arm held still);
- `unchanged`: the board looks as settled, and nothing was over it since it was;
- `settling`: the board changed, or something was over it, and it has not yet held still long
  enough;
- `read`: it has: read the board now, once, and track it as the next turn. The caller then calls
  `settled` (a turn was made of it, or the reading showed no change) or leaves the state as it
  is (the reading failed): the same still position is not read again until something moves.

A reading that shows no move is "nothing happened" only where the frame could see every square a
hand moved over: where some of them were too clipped to show a tile (glare, an overexposed
board), the camera `waited` instead, remembering those squares: no turn is made and nothing is
settled, the board is read again once something moves, and a play the next reading finds before
the game has moved on is not recorded silently, since a play laid there unseen may come before it
(`unseen_since`).

A changed position is read once it has held still for `still_frames` frames after the one it
first appeared in and `still_seconds` since then, both configurable; a hand lifted between two
tiles for less than that is not a turn.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum

from scorer.board import Board, Square, Tile
from scorer.game import Play
from scorer.tracking import EMPTY, TurnStatus, UncertainCell, over_count
from scorer.turns import Turn
from scorer.variant import Variant


class FrameStatus(StrEnum):
    """What a frame says (`read`: the caller reads the board and makes the turn)."""

    NO_BOARD = "no_board"
    BUSY = "busy"
    UNCHANGED = "unchanged"
    SETTLING = "settling"
    READ = "read"


UNSEEN = (
    "a bright light hid {count} squares the hand was over when the board was last read, and no "
    "move was read: a play laid there may come before this one; set the squares that hold "
    "tiles, or confirm {word} as the only play"
)


@dataclass(frozen=True)
class CameraConfig:
    """How long a changed board must hold still before it is read, and how much a move can
    change."""

    still_frames: int = 2
    """Frames after the first one showing a changed position that must show it unmoved. At a
    frame a second, 2 reads a play about 2 s after the hand left, and a hand lifted off the
    board between two tiles for a frame or two is not taken for the end of the turn."""
    still_seconds: float = 1.5
    """And at least this long since that first frame (frames may come faster than one a second)."""
    max_changed: int = 20
    """More squares than this changed at once is not a move (seven tiles laid, or a play of up to
    seven taken back, with a few neighbours disturbed): with the ring around the board changed
    too, an arm lies on it (busy). `for_rack` scales it to a variant's rack."""
    disturbed: int = 3
    """Squares moving at once from which something was over the board (a hand, not a flicker of
    light): the still board after it is read even when no square looks changed, since a tile
    can look much like the square it lies on (a blank on a pale square)."""
    stuck_seconds: float = 8.0
    """A board held still this long with more squares changed than a move can change is read
    anyway (a lamp switched on, a glare over many squares): the tracking then decides, against
    the known board, whether anything was played."""

    @classmethod
    def for_rack(cls, rack_size: int, **options: float) -> CameraConfig:
        """The defaults for a variant whose racks hold `rack_size` tiles."""
        return cls(max_changed=3 * rack_size, **options)  # type: ignore[arg-type]


@dataclass(frozen=True)
class FrameLook:
    """One frame as seen: `found` a board; `moving` squares unlike the previous frame's;
    `changed` squares unlike the settled board's (None: nothing settled yet, as after a restart:
    the whole board is to be read once); `time` in seconds on any steady clock; `edge` squares
    of the ring just outside the grid unlike the settled board's (an arm lying across it);
    `moved`: the camera was moved since the board settled, so `changed` and `edge` say where the
    two views differ (every tile's side, shadow and light seen anew), not what a hand did."""

    found: bool
    moving: int
    changed: frozenset[Square] | None
    time: float
    edge: int = 0
    moved: bool = False


@dataclass(frozen=True)
class CameraState:
    """Where one camera's stream stands: when the current still run began and how many frames it
    has held, and whether this still position was read already; `unseen`, the board's squares a
    hand moved over that the camera could not see when the reading after it showed no move, and
    `unseen_events`, how many events the game had then (-1: none unseen)."""

    still_since: float | None = None
    still_frames: int = 0
    read: bool = False
    disturbed: bool = False
    unseen: tuple[tuple[int, int], ...] = ()
    unseen_events: int = -1

    def __post_init__(self) -> None:
        # Kept as JSON between frames: lists come back as tuples.
        object.__setattr__(self, "unseen", tuple(sorted((int(r), int(c)) for r, c in self.unseen)))


def step(
    state: CameraState, look: FrameLook, config: CameraConfig = CameraConfig()
) -> tuple[CameraState, FrameStatus]:
    """The next state and what this frame says.

    >>> config = CameraConfig(still_frames=2, still_seconds=1.5)
    >>> state, hand = CameraState(), FrameLook(True, 30, frozenset({(7, 7)}), 0.0)
    >>> state, status = step(state, hand, config)
    >>> status
    <FrameStatus.BUSY: 'busy'>
    >>> tiles = frozenset({(7, 7), (7, 8)})
    >>> for t in (1.0, 2.0, 3.0):
    ...     state, status = step(state, FrameLook(True, 0, tiles, t), config)
    ...     print(status.value)
    settling
    read
    busy
    """
    kept = CameraState(unseen=state.unseen, unseen_events=state.unseen_events)
    if not look.found:
        return kept, FrameStatus.NO_BOARD
    if look.moving:
        # The first frame of whatever comes next: a still run may start from it.
        disturbed = state.disturbed or look.moving >= config.disturbed
        return dataclasses.replace(kept, still_since=look.time, disturbed=disturbed), (
            FrameStatus.BUSY
        )
    since = look.time if state.still_since is None else state.still_since
    held = dataclasses.replace(state, still_since=since, still_frames=state.still_frames + 1)
    if look.moved:
        # Seen from elsewhere than when it settled: the board is read once it holds still, as
        # after a restart, and the tracking tells whether anything was played. Taken for an arm
        # on the board, a phone knocked over a full board was busy for the rest of the game.
        look = dataclasses.replace(look, changed=None, edge=0)
    if look.changed is not None and not look.changed and not state.disturbed:
        return dataclasses.replace(held, read=False), FrameStatus.UNCHANGED
    if held.read:
        # Read already and nothing made of it (the reading failed): wait for something to move.
        return held, FrameStatus.BUSY
    waited = look.time - since
    # Many squares changed with the ring around the board changed too: an arm lies across the
    # board's edge. Many changed and the ring as it was: the board itself (a lamp, a shadow).
    too_many = look.changed is not None and len(look.changed) > config.max_changed
    if too_many and look.edge and waited < config.stuck_seconds:
        return held, FrameStatus.BUSY
    if held.still_frames >= config.still_frames and waited >= config.still_seconds:
        return dataclasses.replace(held, read=True), FrameStatus.READ
    return held, FrameStatus.SETTLING


def settled(state: CameraState) -> CameraState:
    """The state once the position read was settled (a turn made, or nothing changed)."""
    return dataclasses.replace(state, read=False, disturbed=False, unseen=(), unseen_events=-1)


def hidden_squares(touched: frozenset[Square], unknown: frozenset[Square]) -> frozenset[Square]:
    """The squares where a tile may have been laid that a frame cannot show: those a hand moved
    over (`touched`) that are too clipped to see (`unknown`). A reading that shows no move is
    not taken for "nothing happened" while there are any (see `waited`).

    >>> sorted(hidden_squares(frozenset({(7, 7), (7, 8)}), frozenset({(7, 8), (0, 0)})))
    [(7, 8)]
    """
    return touched & unknown


def waited(state: CameraState, unseen: frozenset[Square], events: int) -> CameraState:
    """The state once a reading showed no move while `unseen` squares (the board's) could not be
    seen, the game having `events` events: nothing is settled, the still board is not read again
    until something moves, and the squares are remembered (with any still remembered from
    before, when the game has not moved on since)."""
    earlier = set(state.unseen) if state.unseen_events == events else set()
    return dataclasses.replace(state, unseen=tuple(sorted(earlier | unseen)), unseen_events=events)


def unseen_since(state: CameraState, events: int) -> frozenset[Square]:
    """The squares a play may lie on unseen since the game had `events` events: those remembered
    by `waited` while the game still has as many (a pass or an exchange sent from the page since
    accounts for that hand's turn)."""
    if state.unseen_events != events:
        return frozenset()
    return frozenset(state.unseen)


def asked_unseen(turn: Turn, unseen: frozenset[Square], read: Board) -> Turn:
    """A turn read while squares a hand was over before could not be seen (a bright light) and
    the game has not moved on since: a play may have been laid there unseen, before this one,
    so nothing is recorded silently: the unseen squares read as empty are asked too (tiles set
    there make the two plays `scorer.turns.two_plays_offered` offers), or the play is confirmed
    as the only one. Two plays offered already, a refused turn, or no unseen square read empty:
    the turn as it is."""
    result = turn.result
    if len(turn.proposed) > 1 or result.status is TurnStatus.REJECTED:
        return turn
    if turn.event is not None and not isinstance(turn.event, Play):
        return turn
    asked = {cell.square for cell in result.uncertain}
    squares = [
        s for s in sorted(unseen) if read.in_bounds(*s) and read.get(*s) is None and s not in asked
    ]
    if not squares:
        return turn
    word = result.play.word if result.play is not None else "what was read"
    message = UNSEEN.format(count=len(unseen), word=word)
    cells = tuple(UncertainCell(square, (EMPTY,), message) for square in squares)
    result = dataclasses.replace(
        result, status=TurnStatus.NEEDS_REVIEW, message=message, uncertain=cells + result.uncertain
    )
    proposed = (turn.event,) if turn.event is not None else turn.proposed
    return Turn(result, None, proposed=proposed)


def no_tile_left(cell: UncertainCell, known: Board, variant: Variant) -> bool:
    """Whether a doubtful square read empty first can hold none of the tiles it might otherwise
    be: each of them lies on `known` as many times as the set has it (read "empty or a blank"
    once both blanks are played). Such a doubt on a square that changed shows light over an
    empty square (a lamp's glare), not a tile laid there: no tile of those is left to lay. A
    doubt with no tile among its candidates is not one (the truth of an unreadable square may
    be none of them).

    >>> from scorer.variant import load_variant
    >>> en = load_variant("en")
    >>> doubt = UncertainCell((7, 7), (EMPTY, "?"), "some cells cannot be read")
    >>> no_tile_left(doubt, Board.empty(15, 15), en)
    False
    >>> played = Board.empty(15, 15).place({(0, 0): Tile("A", True), (0, 1): Tile("T", True)})
    >>> no_tile_left(doubt, played, en)
    True
    """
    if not cell.candidates or cell.candidates[0] != EMPTY:
        return False
    tiles = [Tile.from_char(symbol) for symbol in cell.candidates[1:] if symbol != EMPTY]
    if not tiles:
        return False
    return all(over_count(known.place({cell.square: tile}), variant) for tile in tiles)
