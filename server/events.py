"""Game events as JSON for the store: a play is kept as its tiles and direction and re-scored
when the log is folded, so stored games always follow the scoring code of the running version.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from scorer.board import Tile
from scorer.game import (
    ChallengeFailed,
    ChallengeWithdrawn,
    EndOfGame,
    Event,
    Exchange,
    Game,
    Pass,
    Play,
)
from scorer.scoring import Placement, score_play


def event_to_json(event: Event) -> dict[str, Any]:
    """The JSON object that stores `event` (corrections are not made by the server)."""
    match event:
        case Play(player, play, rack):
            tiles = [[p.row, p.col, p.tile.char] for p in play.placements]
            return {
                "type": "play",
                "player": player,
                "across": play.across,
                "tiles": tiles,
                "rack": rack,
            }
        case Pass(player, rack):
            return {"type": "pass", "player": player, "rack": rack}
        case Exchange(player, tiles, count, rack):
            return {
                "type": "exchange",
                "player": player,
                "tiles": tiles,
                "count": count,
                "rack": rack,
            }
        case ChallengeWithdrawn(player):
            return {"type": "withdrawn", "player": player}
        case ChallengeFailed(challenger, bonus):
            return {"type": "challenge_failed", "challenger": challenger, "bonus": bonus}
        case EndOfGame(racks):
            return {"type": "end", "racks": list(racks)}
    raise TypeError(f"the store does not keep {type(event).__name__} events")


def event_from_json(data: dict[str, Any], game: Game) -> Event:
    """The event `data` stores, a play re-scored on `game`'s board (the game it extends)."""
    match data["type"]:
        case "play":
            placements = tuple(Placement(r, c, Tile.from_char(ch)) for r, c, ch in data["tiles"])
            scored = score_play(game.state.board, placements, game.variant, data["across"])
            return Play(data["player"], scored, data["rack"])
        case "pass":
            return Pass(data["player"], data["rack"])
        case "exchange":
            return Exchange(data["player"], data["tiles"], data["count"], data["rack"])
        case "withdrawn":
            return ChallengeWithdrawn(data["player"])
        case "challenge_failed":
            return ChallengeFailed(data["challenger"], data.get("bonus"))
        case "end":
            return EndOfGame(tuple(data["racks"]))
    raise ValueError(f"unknown stored event type {data['type']!r}")


def fold(game: Game, stored: Iterable[dict[str, Any]]) -> Game:
    """`game` with the stored events applied in order."""
    for data in stored:
        game = game.apply(event_from_json(data, game))
    return game
