"""One turn from a photo: the board reading is tracked against the game's board and, when the
move is settled, turned into the game event it records. Shared by `replay` and the server.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.board import Board
from scorer.dictionary import Dictionary
from scorer.game import ChallengeWithdrawn, Event, Game, Pass, Play
from scorer.move import ChangeKind
from scorer.tracking import Reading, TrackResult, TurnStatus, certain_reading, track


@dataclass(frozen=True)
class Turn:
    """The tracking result of one photo and, when committed, the event that records it."""

    result: TrackResult
    event: Event | None

    @property
    def committed(self) -> bool:
        return self.event is not None


def _event(game: Game, result: TrackResult) -> Event | None:
    if result.status is not TurnStatus.COMMITTED:
        return None
    state = game.state
    if result.kind is ChangeKind.PLAY and result.play is not None:
        return Play(state.turn, result.play)
    if result.kind is ChangeKind.WITHDRAWN and state.last_play is not None:
        return ChallengeWithdrawn(state.last_play.player)
    return Pass(state.turn)


def turn_from_reading(game: Game, reading: Reading, dictionary: Dictionary | None) -> Turn:
    """Track `reading` against `game`'s board (the last play may be seen withdrawn)."""
    state = game.state
    last = state.last_play.play if state.last_play else None
    result = track(state.board, reading, game.variant, dictionary, last_play=last)
    return Turn(result, _event(game, result))


def turn_from_board(game: Game, board: Board, dictionary: Dictionary | None) -> Turn:
    """The turn a person confirmed or corrected: `board` is the whole board after the turn."""
    return turn_from_reading(game, certain_reading(board), dictionary)
