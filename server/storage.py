"""Durable storage for the server: games, their event logs, photo turns and idempotent responses
in SQLite (default, WAL mode) or PostgreSQL, with photos and overlays kept on disk by hash.

Every write runs in one transaction that first locks the game (`BEGIN IMMEDIATE` in SQLite,
`SELECT ... FOR UPDATE` in PostgreSQL), so turns on one game are serialised across threads and
server processes.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 2
DEFAULT_DATA_DIR = Path("scorekeeper-data")
DB_FILE = "scorekeeper.db"
BUSY_TIMEOUT_S = 30

_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
    """CREATE TABLE IF NOT EXISTS games (
        id TEXT PRIMARY KEY,
        variant TEXT NOT NULL,
        players TEXT NOT NULL,
        options TEXT NOT NULL,
        layout TEXT,
        dictionary INTEGER NOT NULL,
        word_list TEXT,
        token_hash TEXT NOT NULL,
        created TEXT NOT NULL,
        variant_file TEXT
    )""",
    """CREATE TABLE IF NOT EXISTS events (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        data TEXT NOT NULL,
        undoes INTEGER,
        created TEXT NOT NULL,
        PRIMARY KEY (game_id, seq)
    )""",
    """CREATE TABLE IF NOT EXISTS turns (
        id TEXT PRIMARY KEY,
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        photo_sha TEXT NOT NULL,
        status TEXT NOT NULL,
        event_seq INTEGER,
        state TEXT NOT NULL,
        response TEXT NOT NULL,
        created TEXT NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS turns_by_photo ON turns (game_id, photo_sha)",
    """CREATE TABLE IF NOT EXISTS idempotency (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        response TEXT NOT NULL,
        PRIMARY KEY (game_id, key)
    )""",
]


# Changes from each version to the next, applied in order to an older database.
_MIGRATIONS = {
    # 1 -> 2: a game may carry its players' own variant file.
    1: ["ALTER TABLE games ADD COLUMN variant_file TEXT"],
}


class StorageError(RuntimeError):
    """The database cannot be opened or holds a schema this version does not know."""


def now() -> str:
    """The current time as stored (UTC, ISO 8601, seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class GameRecord:
    """A game's row: what it was created with (its events are stored apart)."""

    id: str
    variant: str
    players: list[str]
    options: dict[str, Any]
    layout: str | None
    dictionary: bool
    word_list: str | None
    token_hash: str
    created: str
    variant_file: str | None = None
    """The text of the players' own variant file (`variant` is then its name), or None."""


@dataclass(frozen=True)
class TurnRecord:
    """A photo turn: its status (`needs_review` while pending, `committed`, `rejected`), the
    event it committed, the review state the server needs and the response first sent."""

    id: str
    game_id: str
    photo_sha: str
    status: str
    event_seq: int | None
    state: dict[str, Any]
    response: dict[str, Any]
    created: str


def _game(row: tuple) -> GameRecord:
    return GameRecord(
        row[0],
        row[1],
        json.loads(row[2]),
        json.loads(row[3]),
        row[4],
        bool(row[5]),
        row[6],
        row[7],
        row[8],
        row[9],
    )


def _turn(row: tuple) -> TurnRecord:
    return TurnRecord(
        row[0], row[1], row[2], row[3], row[4], json.loads(row[5]), json.loads(row[6]), row[7]
    )


_GAME_COLUMNS = "id, variant, players, options, layout, dictionary, word_list, token_hash, created, variant_file"
_TURN_COLUMNS = "id, game_id, photo_sha, status, event_seq, state, response, created"


class Tx:
    """One open transaction; SQL is written with `?` placeholders for both databases."""

    def __init__(self, cursor: Any, placeholder: str) -> None:
        self._cursor = cursor
        self._placeholder = placeholder

    def _run(self, sql: str, params: tuple = ()) -> Any:
        if self._placeholder != "?":
            sql = sql.replace("?", self._placeholder)
        self._cursor.execute(sql, params)
        return self._cursor

    def create_game(self, game: GameRecord) -> None:
        """Insert a new game's row."""
        self._run(
            f"INSERT INTO games ({_GAME_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                game.id,
                game.variant,
                json.dumps(game.players, ensure_ascii=False),
                json.dumps(game.options),
                game.layout,
                int(game.dictionary),
                game.word_list,
                game.token_hash,
                game.created,
                game.variant_file,
            ),
        )

    def game(self, game_id: str) -> GameRecord | None:
        """The game's row, or None."""
        row = self._run(f"SELECT {_GAME_COLUMNS} FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else _game(row)

    def games(self) -> list[GameRecord]:
        """Every game's row, oldest first."""
        rows = self._run(f"SELECT {_GAME_COLUMNS} FROM games ORDER BY created, id").fetchall()
        return [_game(row) for row in rows]

    def delete_game(self, game_id: str) -> None:
        """Delete a game with its log, turns and stored responses."""
        self._run("DELETE FROM games WHERE id = ?", (game_id,))

    def events(self, game_id: str) -> list[tuple[int, dict[str, Any]]]:
        """The log as it stands: (seq, event JSON), undo records and undone events left out."""
        rows = self._run(
            "SELECT seq, data FROM events WHERE game_id = ? AND undoes IS NULL AND seq NOT IN "
            "(SELECT undoes FROM events WHERE game_id = ? AND undoes IS NOT NULL) ORDER BY seq",
            (game_id, game_id),
        ).fetchall()
        return [(seq, json.loads(data)) for seq, data in rows]

    def _next_seq(self, game_id: str) -> int:
        row = self._run(
            "SELECT COALESCE(MAX(seq), 0) FROM events WHERE game_id = ?", (game_id,)
        ).fetchone()
        return int(row[0]) + 1

    def append_event(self, game_id: str, data: dict[str, Any]) -> int:
        """Append an event to the log; returns its sequence number."""
        seq = self._next_seq(game_id)
        self._run(
            "INSERT INTO events (game_id, seq, data, undoes, created) VALUES (?, ?, ?, NULL, ?)",
            (game_id, seq, json.dumps(data, ensure_ascii=False), now()),
        )
        return seq

    def undo(self, game_id: str, target: int) -> None:
        """Append an undo record for the event `target`: the log keeps both."""
        self._run(
            "INSERT INTO events (game_id, seq, data, undoes, created) VALUES (?, ?, ?, ?, ?)",
            (game_id, self._next_seq(game_id), json.dumps({"type": "undo"}), target, now()),
        )

    def is_undone(self, game_id: str, seq: int) -> bool:
        """Whether an undo record names the event `seq`."""
        row = self._run(
            "SELECT 1 FROM events WHERE game_id = ? AND undoes = ?", (game_id, seq)
        ).fetchone()
        return row is not None

    def add_turn(self, turn: TurnRecord) -> None:
        """Insert a photo turn."""
        self._run(
            f"INSERT INTO turns ({_TURN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                turn.id,
                turn.game_id,
                turn.photo_sha,
                turn.status,
                turn.event_seq,
                json.dumps(turn.state, ensure_ascii=False),
                json.dumps(turn.response, ensure_ascii=False),
                turn.created,
            ),
        )

    def update_turn(
        self, turn_id: str, status: str, event_seq: int | None, state: dict[str, Any]
    ) -> None:
        """Change a turn's status, committed event and review state."""
        self._run(
            "UPDATE turns SET status = ?, event_seq = ?, state = ? WHERE id = ?",
            (status, event_seq, json.dumps(state, ensure_ascii=False), turn_id),
        )

    def set_response(self, turn_id: str, response: dict[str, Any]) -> None:
        """Replace the response a reviewed turn answers with (it is the game's `pending`)."""
        self._run(
            "UPDATE turns SET response = ? WHERE id = ?",
            (json.dumps(response, ensure_ascii=False), turn_id),
        )

    def turn(self, game_id: str, turn_id: str) -> TurnRecord | None:
        """One turn of a game, or None."""
        row = self._run(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE game_id = ? AND id = ?", (game_id, turn_id)
        ).fetchone()
        return None if row is None else _turn(row)

    def pending_turn(self, game_id: str) -> TurnRecord | None:
        """The game's turn waiting for review, or None."""
        row = self._run(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE game_id = ? AND status = 'needs_review'",
            (game_id,),
        ).fetchone()
        return None if row is None else _turn(row)

    def last_photo_turn(self, game_id: str, recorded: bool = True) -> TurnRecord | None:
        """The game's latest committed photo turn that recorded an event, or None; with
        `recorded` False, the empty board photographed before the first move (which records
        nothing) counts too, when no later photo recorded an event."""
        recorded_only = "AND event_seq IS NOT NULL " if recorded else ""
        row = self._run(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE game_id = ? AND status = 'committed' "
            f"AND photo_sha <> '' {recorded_only}"
            "ORDER BY COALESCE(event_seq, -1) DESC, created DESC LIMIT 1",
            (game_id,),
        ).fetchone()
        return None if row is None else _turn(row)

    def turns_with_photo(self, game_id: str, photo_sha: str) -> list[TurnRecord]:
        """The game's turns made from the photo with this sha256, oldest first."""
        rows = self._run(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE game_id = ? AND photo_sha = ? "
            "ORDER BY created",
            (game_id, photo_sha),
        ).fetchall()
        return [_turn(row) for row in rows]

    def stored_response(self, game_id: str, key: str) -> dict[str, Any] | None:
        """The response kept for an `Idempotency-Key`, or None."""
        row = self._run(
            "SELECT response FROM idempotency WHERE game_id = ? AND key = ?", (game_id, key)
        ).fetchone()
        return None if row is None else json.loads(row[0])

    def store_response(self, game_id: str, key: str, response: dict[str, Any]) -> None:
        """Keep the response to an `Idempotency-Key`."""
        self._run(
            "INSERT INTO idempotency (game_id, key, response) VALUES (?, ?, ?)",
            (game_id, key, json.dumps(response, ensure_ascii=False)),
        )


class Store:
    """The database plus the photo folder. `db_url` is a SQLite file path (or `sqlite:///path`)
    or a `postgresql://` URL; photos and overlays go under `data_dir`."""

    def __init__(self, db_url: str, data_dir: str | Path) -> None:
        self.data_dir = Path(data_dir)
        self.postgres = db_url.startswith(("postgresql://", "postgres://"))
        self.db_url = db_url
        self._sqlite_path = None if self.postgres else Path(db_url.removeprefix("sqlite:///"))
        for folder in ("photos", "overlays", "wordlists"):
            (self.data_dir / folder).mkdir(parents=True, exist_ok=True)
        self._migrate()

    def _connect(self) -> Any:
        if self.postgres:
            import psycopg  # optional extra `postgres`: only imported for a PostgreSQL URL

            return psycopg.connect(self.db_url)
        assert self._sqlite_path is not None
        self._sqlite_path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(
            self._sqlite_path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        connection.execute("PRAGMA foreign_keys = ON")
        return connection

    def _migrate(self) -> None:
        try:
            connection = self._connect()
        except Exception as exc:
            raise StorageError(f"cannot open the database {self.db_url!r}: {exc}") from exc
        try:
            if not self.postgres:
                connection.execute("PRAGMA journal_mode = WAL")
            with self.transaction() as tx:
                for statement in _SCHEMA:
                    tx._run(statement)
                row = tx._run("SELECT MAX(version) FROM schema_version").fetchone()
                if row[0] is None:
                    tx._run("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
                elif row[0] > SCHEMA_VERSION:
                    raise StorageError(
                        f"the database has schema version {row[0]}; this scorekeeper knows "
                        f"up to {SCHEMA_VERSION}: upgrade scorekeeper"
                    )
                elif row[0] < SCHEMA_VERSION:
                    for version in range(row[0], SCHEMA_VERSION):
                        for statement in _MIGRATIONS[version]:
                            tx._run(statement)
                    tx._run("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
        finally:
            connection.close()

    @contextmanager
    def transaction(self, lock_game: str | None = None) -> Iterator[Tx]:
        """One transaction, committed when the block ends without an exception.

        With `lock_game`, the game's row is locked first so concurrent writers wait their turn.
        """
        connection = self._connect()
        try:
            cursor = connection.cursor()
            if self.postgres:
                tx = Tx(cursor, "%s")
                if lock_game is not None:
                    tx._run("SELECT id FROM games WHERE id = ? FOR UPDATE", (lock_game,))
            else:
                cursor.execute("BEGIN IMMEDIATE" if lock_game is not None else "BEGIN")
                tx = Tx(cursor, "?")
            try:
                yield tx
            except BaseException:
                connection.rollback()
                raise
            connection.commit()
        finally:
            connection.close()

    def save_photo(self, data: bytes) -> str:
        """Keep the photo on disk (once per content); returns its sha256."""
        sha = hashlib.sha256(data).hexdigest()
        path = self.photo_path(sha)
        if not path.exists():
            temp = path.with_suffix(f".{secrets.token_hex(8)}.tmp")
            temp.write_bytes(data)
            temp.replace(path)
        return sha

    def photo_path(self, sha: str) -> Path:
        """Where the photo with this sha256 is kept."""
        return self.data_dir / "photos" / sha

    def overlay_path(self, turn_id: str) -> Path:
        """Where a turn's overlay PNG is kept."""
        return self.data_dir / "overlays" / f"{turn_id}.png"

    def word_list_path(self, text: str) -> Path:
        """The word list written to disk (once per content), for `WordListDictionary`."""
        sha = hashlib.sha256(text.encode()).hexdigest()
        path = self.data_dir / "wordlists" / f"{sha}.txt"
        if not path.exists():
            temp = path.with_suffix(f".{secrets.token_hex(8)}.tmp")
            temp.write_text(text, encoding="utf-8")
            temp.replace(path)
        return path
