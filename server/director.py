"""The director's view of the evening: every table's game, its players, totals, whose turn and
pending review, and the evening's results as CSV, behind a director's token.

A director's token is random, made at `scorekeeper serve` start or by `scorekeeper
director-token`, and stored hashed like a game's; it reads every game of the evening but writes
none, and no answer carries a game's token (nor its hash).
"""

from __future__ import annotations

import csv
import io
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any

from scorer.game import Game
from scorer.sheet import sheet_dict, spreadsheet_text
from server.service import GameService, ServiceError, hash_token
from server.storage import GameRecord, Store, TurnRecord

EVENING_HOURS = 12  # the evening: games created in the last this many hours, unless `since`
CSV_COLUMNS = ["game", "created", "variant", "player", "score", "place", "finished"]


def make_director_token(store: Store) -> str:
    """A new director's token (kept hashed); returns it, the only time it is shown."""
    token = secrets.token_urlsafe(24)
    with store.transaction() as tx:
        tx.add_director_token(hash_token(token))
    return token


def check_director(store: Store, token: str | None) -> None:
    """`unauthorized` without a token, `forbidden` with one that is not a director's."""
    if not token:
        raise ServiceError("unauthorized", "the director's token is needed (Authorization: Bearer)")
    with store.transaction() as tx:
        known = tx.director_token_known(hash_token(token))
    if not known:
        raise ServiceError("forbidden", "this is not a director's token")


def evening_start(since: str | None, now: datetime) -> str:
    """The stored-time string the evening starts at: `since` (ISO 8601, a time zone or UTC) or
    `EVENING_HOURS` before `now`; `bad_request` for a `since` that is no time."""
    if since is None:
        start = now - timedelta(hours=EVENING_HOURS)
    else:
        try:
            start = datetime.fromisoformat(since)
        except ValueError as exc:
            raise ServiceError("bad_request", f"since={since!r} is not an ISO 8601 time") from exc
        if start.tzinfo is None:
            start = start.replace(tzinfo=UTC)
    return start.astimezone(UTC).isoformat(timespec="seconds")


def _places(scores: list[int]) -> list[int]:
    """Each player's place by score, ties sharing the better one.

    >>> _places([300, 410, 300])
    [2, 1, 2]
    """
    return [1 + sum(other > score for other in scores) for score in scores]


def _table(record: GameRecord, game: Game, pending: TurnRecord | None) -> dict[str, Any]:
    state = game.state
    over = state.finished or state.settled
    moves = sheet_dict(game)["moves"]
    review = None
    if pending is not None:
        review = {
            "turn_id": pending.id,
            "message": pending.response.get("message", ""),
            "uncertain": len(pending.response.get("uncertain") or []),
        }
    return {
        "id": record.id,
        "variant": record.variant,
        "created": record.created,
        "players": list(game.players),
        "totals": dict(zip(game.players, state.scores, strict=True)),
        "turn": None if over else game.players[state.turn],
        "moves": len(moves),
        "last_move": moves[-1] if moves else None,
        "finished": over,
        "winners": [game.players[p] for p in state.winners] if over else [],
        "pending": review,
        "sheet_url": f"/api/games/{record.id}/sheet.html",
        "game_url": f"/api/games/{record.id}",
    }


def evening_json(service: GameService, since: str) -> dict[str, Any]:
    """`{"since", "games": [table...], "pending_reviews"}` for the games created from `since`."""
    tables = [_table(*entry) for entry in service.games_since(since)]
    return {
        "since": since,
        "games": tables,
        "pending_reviews": sum(table["pending"] is not None for table in tables),
    }


def evening_csv(service: GameService, since: str) -> str:
    """The evening's results: one line per game and player (`CSV_COLUMNS`), oldest game first;
    names as `scorer.sheet.spreadsheet_text`."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for record, game, _ in service.games_since(since):
        state = game.state
        scores = list(state.scores)
        for name, score, place in zip(game.players, scores, _places(scores), strict=True):
            finished = "yes" if state.finished or state.settled else "no"
            writer.writerow(
                [
                    record.id,
                    record.created,
                    record.variant,
                    spreadsheet_text(name),
                    score,
                    place,
                    finished,
                ]
            )
    return out.getvalue()
