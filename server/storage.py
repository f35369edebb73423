"""Durable storage for the server: games, their event logs, photo turns (pending reviews among
them), idempotent responses, directors' tokens and table cameras' streams in SQLite (default,
WAL mode) or PostgreSQL.

SQLite is the embedded default: photos and overlays are files under the data directory, one per
content hash (a turn's overlay under its turn id). With PostgreSQL everything a game needs is in
the database (photos and overlays as `bytea` rows, one per content hash / turn), so any server
process on any machine answers any request of any game; connections come from a
`psycopg_pool.ConnectionPool`. A game's word list is its row's text in both; the file under
`wordlists/` is only each machine's cache of it for `WordListDictionary`, rebuilt from the row.

Every write runs in one transaction that first locks the game (`BEGIN IMMEDIATE` in SQLite,
`SELECT ... FOR UPDATE` in PostgreSQL), so turns on one game are serialised across threads and
server processes. The schema is created or migrated under a lock too (PostgreSQL: an advisory
lock), so several processes may start at once on an empty database.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 4
DEFAULT_DATA_DIR = Path("scorekeeper-data")
DB_FILE = "scorekeeper.db"
BUSY_TIMEOUT_S = 30
POOL_SIZE = 10  # PostgreSQL connections one process holds at most
POOL_TIMEOUT_S = 15  # a request waits this long for a free connection, then is a 503
LOCK_TIMEOUT = "20s"  # PostgreSQL: a row or schema lock waited for longer is a 503
SCHEMA_LOCK_TIMEOUT = "5min"  # PostgreSQL: how long a starting process waits for a migration
# pg_advisory_xact_lock key under which a process creates or migrates the schema.
SCHEMA_LOCK_KEY = 0x5C0_4E_6EE9
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
    """CREATE TABLE IF NOT EXISTS director_tokens (
        token_hash TEXT PRIMARY KEY,
        created TEXT NOT NULL
    )""",
    # A table camera's stream (`server.camera`), so that any process takes its next frame.
    """CREATE TABLE IF NOT EXISTS cameras (
        game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        camera TEXT NOT NULL,
        version INTEGER NOT NULL,
        data BYTEA NOT NULL,
        updated TEXT NOT NULL,
        PRIMARY KEY (game_id, camera)
    )""",
]

# PostgreSQL only: the photos and overlays SQLite keeps as files.
_POSTGRES_SCHEMA = [
    "CREATE TABLE IF NOT EXISTS photos (sha TEXT PRIMARY KEY, data BYTEA NOT NULL)",
    """CREATE TABLE IF NOT EXISTS overlays (
        turn_id TEXT PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
        data BYTEA NOT NULL
    )""",
]


# Changes from each version to the next, applied in order to an older database.
_MIGRATIONS = {
    # 1 -> 2: a game may carry its players' own variant file.
    1: ["ALTER TABLE games ADD COLUMN variant_file TEXT"],
    # 2 -> 3: no column changes. The new tables (directors' tokens; PostgreSQL's photos and
    # overlays) come from the CREATE TABLE IF NOT EXISTS run first, and a PostgreSQL store then
    # takes in the photo files of this machine's data directory (`_import_files`).
    2: [],
    # 3 -> 4: no column changes; the table cameras' streams (`cameras`) are a new table.
    3: [],
}


class StorageError(RuntimeError):
    """The database cannot be opened or holds a schema this version does not know."""


class StorageBusy(StorageError):
    """The database cannot take the request now (no free connection in time, a lock waited for
    too long, the connection lost): the request may be sent again."""


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

    def log_records(self, game_id: str) -> int:
        """How many records the game's log holds: events and undo records (numbered from 1)."""
        return self._next_seq(game_id) - 1

    def head(self, game_id: str) -> int:
        """The game's head: the records of its log and its photo turns recorded without an event
        (the empty board before the first move), 0 before any. It grows with every recorded
        turn or write to the log and never comes back, so a page that knew it can tell whether
        the game moved on since."""
        row = self._run(
            "SELECT COUNT(*) FROM turns WHERE game_id = ? AND status = 'committed' "
            "AND event_seq IS NULL AND photo_sha <> ''",
            (game_id,),
        ).fetchone()
        return self.log_records(game_id) + int(row[0])

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

    def last_photo_turn(self, game_id: str) -> TurnRecord | None:
        """The game's latest committed photo turn: the last that recorded an event, or before
        any did, the empty board photographed before the first move (which records nothing);
        None when there is neither."""
        row = self._run(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE game_id = ? AND status = 'committed' "
            "AND photo_sha <> '' ORDER BY COALESCE(event_seq, -1) DESC, created DESC LIMIT 1",
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

    def camera_stream(
        self, game_id: str, camera: str, known: int = 0
    ) -> tuple[int, bytes | None] | None:
        """A table camera's stream as last kept: its version and its bytes (None when it is
        still at version `known`, the one the caller holds), or None when none is kept."""
        row = self._run(
            "SELECT version, CASE WHEN version = ? THEN NULL ELSE data END FROM cameras "
            "WHERE game_id = ? AND camera = ?",
            (known, game_id, camera),
        ).fetchone()
        if row is None:
            return None
        return int(row[0]), None if row[1] is None else bytes(row[1])

    def save_camera_stream(self, game_id: str, camera: str, version: int, data: bytes) -> bool:
        """Keep a camera's stream as the version after `version` (0: none kept yet), only if it
        is still at `version`; False when another process kept a newer one first."""
        if version == 0:
            cursor = self._run(
                "INSERT INTO cameras (game_id, camera, version, data, updated) "
                "VALUES (?, ?, 1, ?, ?) ON CONFLICT (game_id, camera) DO NOTHING",
                (game_id, camera, data, now()),
            )
        else:
            cursor = self._run(
                "UPDATE cameras SET version = version + 1, data = ?, updated = ? "
                "WHERE game_id = ? AND camera = ? AND version = ?",
                (data, now(), game_id, camera, version),
            )
        return cursor.rowcount == 1

    def add_director_token(self, token_hash: str) -> None:
        """Keep a director's token (its hash)."""
        self._run(
            "INSERT INTO director_tokens (token_hash, created) VALUES (?, ?)", (token_hash, now())
        )

    def director_token_known(self, token_hash: str) -> bool:
        """Whether a director's token with this hash was made."""
        row = self._run(
            "SELECT 1 FROM director_tokens WHERE token_hash = ?", (token_hash,)
        ).fetchone()
        return row is not None

    def pending_turns(self) -> dict[str, TurnRecord]:
        """Every game's turn waiting for review, by game id."""
        rows = self._run(
            f"SELECT {_TURN_COLUMNS} FROM turns WHERE status = 'needs_review'"
        ).fetchall()
        return {turn.game_id: turn for turn in map(_turn, rows)}


class Store:
    """The database plus, for SQLite, the photo folder. `db_url` is a SQLite file path (or
    `sqlite:///path`) or a `postgresql://` URL; files go under `data_dir` (with PostgreSQL only
    the word-list cache). `pool_size`: PostgreSQL connections this store holds at most, each
    waited for at most `pool_timeout_s`."""

    def __init__(
        self,
        db_url: str,
        data_dir: str | Path,
        pool_size: int = POOL_SIZE,
        pool_timeout_s: float = POOL_TIMEOUT_S,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.postgres = db_url.startswith(("postgresql://", "postgres://"))
        self.db_url = db_url
        self._sqlite_path = None if self.postgres else Path(db_url.removeprefix("sqlite:///"))
        folders = ("wordlists",) if self.postgres else ("photos", "overlays", "wordlists")
        for folder in folders:
            (self.data_dir / folder).mkdir(parents=True, exist_ok=True)
        self._pool: Any = None
        self.pool_timeout_s = pool_timeout_s
        # SQLite connections between transactions, kept open: opening one and closing it again
        # (the last one closed checkpoints the WAL file) cost a photo turn some 5 ms over its
        # four transactions. At most as many as ever ran at once.
        self._idle: list[sqlite3.Connection] = []
        self._idle_lock = threading.Lock()
        if self.postgres:
            self._pool = self._open_pool(pool_size)
        try:
            self._migrate()
        except BaseException:
            self.close()
            raise

    def _open_pool(self, size: int) -> Any:
        # optional extra `postgres`: only imported for a PostgreSQL URL
        from psycopg_pool import ConnectionPool, PoolTimeout

        pool = ConnectionPool(
            self.db_url,
            min_size=1,
            max_size=size,
            timeout=self.pool_timeout_s,
            kwargs={"options": f"-c lock_timeout={LOCK_TIMEOUT}"},
            check=ConnectionPool.check_connection,
            open=False,
            name="scorekeeper",
        )
        try:
            pool.open(wait=True, timeout=max(self.pool_timeout_s, 5.0))
        except PoolTimeout as exc:
            pool.close()
            raise StorageError(
                f"cannot open the database {self.db_url!r}: no connection in time"
            ) from exc
        # The pool's threads outlive a forgotten store: close it with the store.
        weakref.finalize(self, pool.close)
        return pool

    def close(self) -> None:
        """Close the database connections."""
        if self._pool is not None:
            self._pool.close()
        with self._idle_lock:
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()

    def _connect(self) -> sqlite3.Connection:
        assert self._sqlite_path is not None
        self._sqlite_path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(
            self._sqlite_path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        connection.execute("PRAGMA foreign_keys = ON")
        return connection

    def _migrate(self) -> None:
        if not self.postgres:
            try:
                connection = self._connect()
                connection.execute("PRAGMA journal_mode = WAL")
                connection.close()
            except (sqlite3.Error, OSError) as exc:
                raise StorageError(f"cannot open the database {self.db_url!r}: {exc}") from exc
        schema = _SCHEMA + (_POSTGRES_SCHEMA if self.postgres else [])
        with self.transaction(lock_schema=True) as tx:
            for statement in schema:
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
                if self.postgres and row[0] < 3:
                    self._import_files(tx)
                tx._run("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))

    def _import_files(self, tx: Tx) -> None:
        """Copy the photos and overlays an older version kept on this machine's disk into the
        database (files are left as they are), so turns taken before the upgrade keep them."""
        photos = self.data_dir / "photos"
        for path in sorted(photos.iterdir()) if photos.is_dir() else []:
            if len(path.name) == 64 and path.is_file():
                tx._run(
                    "INSERT INTO photos (sha, data) VALUES (?, ?) ON CONFLICT (sha) DO NOTHING",
                    (path.name, path.read_bytes()),
                )
        overlays = self.data_dir / "overlays"
        for path in sorted(overlays.glob("*.png")) if overlays.is_dir() else []:
            tx._run(
                "INSERT INTO overlays (turn_id, data) SELECT id, ? FROM turns WHERE id = ? "
                "ON CONFLICT (turn_id) DO NOTHING",
                (path.read_bytes(), path.stem),
            )

    @contextmanager
    def transaction(self, lock_game: str | None = None, lock_schema: bool = False) -> Iterator[Tx]:
        """One transaction, committed when the block ends without an exception.

        With `lock_game`, the game's row is locked first so concurrent writers wait their turn;
        with `lock_schema`, the schema lock (one process creates or migrates at a time).
        A PostgreSQL connection or lock not had in time, or lost, is a `StorageBusy`.
        """
        if not self.postgres:
            with self._idle_lock:
                connection = self._idle.pop() if self._idle else None
            connection = connection or self._connect()
            ended = False  # committed or rolled back: the connection may serve the next one
            try:
                cursor = connection.cursor()
                locking = lock_game is not None or lock_schema
                cursor.execute("BEGIN IMMEDIATE" if locking else "BEGIN")
                try:
                    yield Tx(cursor, "?")
                except BaseException:
                    connection.rollback()
                    ended = True
                    raise
                connection.commit()
                ended = True
            finally:
                if ended:
                    with self._idle_lock:
                        self._idle.append(connection)
                else:
                    connection.close()
            return
        import psycopg
        from psycopg_pool import PoolTimeout

        try:
            with self._pool.connection() as connection:
                tx = Tx(connection.cursor(), "%s")
                if lock_schema:
                    # Another process may be migrating (copying files in): wait longer for it.
                    tx._run(f"SET LOCAL lock_timeout = '{SCHEMA_LOCK_TIMEOUT}'")
                    tx._run("SELECT pg_advisory_xact_lock(?)", (SCHEMA_LOCK_KEY,))
                if lock_game is not None:
                    tx._run("SELECT id FROM games WHERE id = ? FOR UPDATE", (lock_game,))
                yield tx  # the pool's connection block commits, or rolls back on an exception
        except PoolTimeout as exc:
            raise StorageBusy(
                f"no database connection free in {self.pool_timeout_s:g} s: try again"
            ) from exc
        except psycopg.OperationalError as exc:
            raise StorageBusy(f"the database did not answer: {exc}".strip()) from exc

    def save_photo(self, data: bytes, sha: str | None = None) -> str:
        """Keep the photo (once per content); returns its sha256. `sha`: the sha256 the caller
        already took of `data` (a 12 MP photo's costs a few ms), taken here otherwise."""
        sha = sha or hashlib.sha256(data).hexdigest()
        if self.postgres:
            with self.transaction() as tx:
                tx._run(
                    "INSERT INTO photos (sha, data) VALUES (?, ?) ON CONFLICT (sha) DO NOTHING",
                    (sha, data),
                )
        else:
            _write_once(self.data_dir / "photos" / sha, data)
        return sha

    def photo(self, sha: str) -> bytes | None:
        """The photo with this sha256, or None."""
        if self.postgres:
            with self.transaction() as tx:
                row = tx._run("SELECT data FROM photos WHERE sha = ?", (sha,)).fetchone()
            return None if row is None else bytes(row[0])
        return _read(self.data_dir / "photos" / sha)

    def save_overlay(self, turn_id: str, data: bytes) -> None:
        """Keep a turn's overlay PNG."""
        if self.postgres:
            with self.transaction() as tx:
                tx._run(
                    "INSERT INTO overlays (turn_id, data) VALUES (?, ?) "
                    "ON CONFLICT (turn_id) DO UPDATE SET data = EXCLUDED.data",
                    (turn_id, data),
                )
        else:
            _write_once(self.data_dir / "overlays" / f"{turn_id}.png", data, replace=True)

    def overlay(self, turn_id: str) -> bytes | None:
        """A turn's overlay PNG, or None."""
        if self.postgres:
            with self.transaction() as tx:
                row = tx._run("SELECT data FROM overlays WHERE turn_id = ?", (turn_id,)).fetchone()
            return None if row is None else bytes(row[0])
        return _read(self.data_dir / "overlays" / f"{turn_id}.png")

    def word_list_path(self, text: str) -> Path:
        """The word list (a game row's text) written to this machine's cache once per content,
        for `WordListDictionary`."""
        sha = hashlib.sha256(text.encode()).hexdigest()
        path = self.data_dir / "wordlists" / f"{sha}.txt"
        _write_once(path, text.encode("utf-8"))
        return path


def _write_once(path: Path, data: bytes, replace: bool = False) -> None:
    """Write `path` atomically (a temp file renamed), unless it exists and not `replace`."""
    if replace or not path.exists():
        temp = path.with_suffix(f".{secrets.token_hex(8)}.tmp")
        temp.write_bytes(data)
        temp.replace(path)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
