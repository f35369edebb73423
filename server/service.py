"""What the HTTP routes do, without HTTP: create and fold games from the store, turn a photo (or a
move typed in GCG notation) into a tracked turn, run the review, pass/exchange/challenge/undo/end,
and build the response objects.

Errors are `ServiceError(code, detail)`; `server.app` maps each code to an HTTP status.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import logging
import math
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures import wait as wait_for
from typing import Any

import numpy as np

from scorer.board import UNKNOWN_BLANK, Board, BoardTextError, Tile, parse_position, square_name
from scorer.dictionary import Dictionary, DictionaryError, check_word_list, dictionary_for
from scorer.errors import IllegalPlay
from scorer.game import (
    ChallengeFailed,
    ChallengeWithdrawn,
    EndOfGame,
    Event,
    Exchange,
    Game,
    GameError,
    Pass,
    Play,
)
from scorer.notation import split_tiles, tile_text, unbracket
from scorer.sheet import sheet_dict
from scorer.tracking import (
    EMPTY,
    PlainReading,
    Reading,
    TrackResult,
    TurnStatus,
    certain_reading,
    surely_read,
)
from scorer.turns import (
    Turn,
    corrected_turn,
    first_pass,
    lone_blanks_confirmed,
    passes_confirmed,
    phonies_confirmed,
    tile_like_confirmed,
    turn_from_move,
    turn_from_reading,
    two_plays_offered,
)
from scorer.variant import (
    Variant,
    VariantError,
    load_layout,
    load_variant,
    parse_variant,
    variant_names,
)
from server.events import event_from_json, event_to_json, fold
from server.storage import GameRecord, Store, TurnRecord, Tx, now
from vision.answers import square_key, tile_like_vacancies, vouched
from vision.classify import UnreadableVariant, check_readable
from vision.decode import DEFAULT_MAX_PIXELS, PhotoError, read_header
from vision.exemplars import with_known_letters
from vision.pipeline import read_in_game
from vision.rectify import CornersError

log = logging.getLogger("scorekeeper.server")
Corners = list[list[float]]
# Photo bytes, the game's variant and the grid corners a person marked (None: find the grid).
PhotoReader = Callable[[bytes, Variant, Corners | None], Reading]
OverlayMaker = Callable[[bytes, Reading], bytes]

# Photo error codes of vision.decode → the API's codes.
PHOTO_CODES = {"not_image": "not_an_image", "unsupported": "not_an_image"}


class ServiceError(Exception):
    """A request that cannot be done: `code` is the API's error code, `detail` says why, and
    `retry_with` names a field the request may be sent again with (`corners` for `no_board`)."""

    def __init__(self, code: str, detail: str, retry_with: str | None = None) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.retry_with = retry_with


def hash_token(token: str) -> str:
    """How a game token is stored (a token is random, so a plain hash suffices)."""
    return hashlib.sha256(token.encode()).hexdigest()


def check_photo(data: bytes, max_pixels: int = DEFAULT_MAX_PIXELS) -> None:
    """Reject empty, foreign, truncated or too-many-pixel photos from their header alone."""
    try:
        header = read_header(data)
    except PhotoError as exc:
        raise ServiceError(PHOTO_CODES.get(exc.code, exc.code), exc.message) from exc
    if header.width <= 0 or header.height <= 0:
        raise ServiceError("not_an_image", "the image header gives no size")
    if header.width * header.height > max_pixels:
        raise ServiceError(
            "too_large",
            f"image is {header.width}x{header.height}, over the {max_pixels / 1e6:.0f} MP limit",
        )


def parse_corners(text: str) -> Corners:
    """The `corners` form field: JSON `[[x, y] x 4]`, numbers (the pipeline checks they can be the
    grid in the photo); `bad_corners` otherwise."""
    try:
        points = json.loads(text)
    except ValueError as exc:
        raise ServiceError("bad_corners", f"corners are not JSON: {exc}") from exc

    def number(value: object) -> bool:
        return (
            isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
        )

    pairs = isinstance(points, list) and len(points) == 4
    if not pairs or not all(
        isinstance(p, list) and len(p) == 2 and all(map(number, p)) for p in points
    ):
        raise ServiceError(
            "bad_corners",
            "corners must be four [x, y] pairs of numbers (photo pixels): top-left, top-right, "
            "bottom-right, bottom-left",
        )
    return [[float(x), float(y)] for x, y in points]


def variants_json() -> dict[str, Any]:
    """`{"variants": [...]}`: each shipped variant's name, title, alphabet, layout rows, blank
    name and symbol, rack size and default house options, as the phone page draws them."""
    out = []
    for name in variant_names():
        variant = load_variant(name)
        out.append(
            {
                "name": variant.name,
                "title": variant.title,
                "alphabet": list(variant.alphabet),
                "layout": list(variant.layout.rows),
                "blank_name": variant.blank_name,
                "blank_symbol": variant.blank_symbol,
                "rack_size": variant.rack_size,
                "options": dataclasses.asdict(variant.options),
            }
        )
    return {"variants": out}


def _cell_class(symbol: str) -> str:
    return {".": "empty", UNKNOWN_BLANK: "blank"}.get(symbol, symbol)


def _reviewed_reading(board: Board, uncertain: list[dict[str, Any]]) -> PlainReading:
    """`board` read with certainty except the still-uncertain cells, which keep their candidates."""
    base = certain_reading(board)
    classes = [list(row) for row in base.classes]
    confidence = [list(row) for row in base.confidence]
    top3 = [list(row) for row in base.top3]
    for cell in uncertain:
        r, c, options = cell["row"], cell["col"], cell["candidates"] or ["."]
        share = 1.0 / len(options) if len(options) > 1 else 0.5
        classes[r][c] = _cell_class(options[0])
        confidence[r][c] = share
        top3[r][c] = [(_cell_class(s), share) for s in options]
    return PlainReading(classes, confidence, top3)


def _square(key: str) -> tuple[int, int]:
    """The square of a `vision.answers.square_key`."""
    row, col = key.split(",")
    return int(row), int(col)


@dataclasses.dataclass(frozen=True)
class Answers:
    """What the players answered about squares in the game's photos so far, kept with each photo
    turn for the next: the squares they said were empty, and the tiles they named (board-text
    characters: a letter, a blank's letter in lower case), by `vision.answers.square_key`."""

    empty: tuple[str, ...] = ()
    tiles: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, state: dict[str, Any]) -> Answers:
        """The answers a turn's stored state keeps."""
        tiles = state.get("tile_answers", {})
        return cls(tuple(state.get("empty_answers", [])), tuple(sorted(tiles.items())))

    def with_said(self, changes: dict[tuple[int, int], Tile | None]) -> Answers:
        """These answers and a review's `changes` (square → the tile set, None: empty)."""
        said = {square_key(*square): tile for square, tile in changes.items()}
        empty = {key for key in self.empty if key not in said}
        empty |= {key for key, tile in said.items() if tile is None}
        tiles = {key: char for key, char in self.tiles if key not in said}
        tiles |= {key: tile.char for key, tile in said.items() if tile is not None}
        return Answers(tuple(sorted(empty)), tuple(sorted(tiles.items())))

    def state(self, board: Board | None) -> dict[str, Any]:
        """The state entries that keep these answers with a turn whose board is `board`: those
        it bears out (an answered square since covered, or a named tile since gone, is dropped;
        all of them without a board)."""

        def holds(key: str, char: str | None) -> bool:
            if board is None:
                return True
            tile = board.get(*_square(key))
            return tile is None if char is None else tile is not None and tile.char == char

        return {
            "empty_answers": [key for key in self.empty if holds(key, None)],
            "tile_answers": {key: char for key, char in self.tiles if holds(key, char)},
        }

    def named(self, game: Game) -> frozenset[tuple[int, int]]:
        """The known tiles of `game` the players named, but for the last play's (which may yet
        be withdrawn after a challenge): they cannot have left the board (`track`'s `kept`)."""
        last = game.state.last_play
        withdrawable = {p.square for p in last.play.placements} if last else set()
        known = game.state.board
        return frozenset(
            square
            for key, char in self.tiles
            if (square := _square(key)) not in withdrawable
            and (tile := known.get(*square)) is not None
            and tile.char == char
        )


def _remember(tx: Tx, game_id: str, key: str | None, response: dict[str, Any]) -> None:
    """Keep a turn's answer under its idempotency key (without the game, which a retry reads
    afresh), so that a retried request gets the same answer."""
    if key:
        tx.store_response(game_id, key, {k: v for k, v in response.items() if k != "game"})


# What an Idempotency-Key of a write answered with GAME (pass, exchange, ...) keeps: a retry
# gets the game as it is then, as a photo's retry gets its first TURN with the game of now.
GAME_WRITE = {"answer": "game"}


def _seen_game_write(tx: Tx, game_id: str, key: str | None) -> bool:
    """Whether `key` already made a GAME write (then a retry does nothing); `bad_request` when
    it made a turn (a photo or a typed move) instead."""
    stored = tx.stored_response(game_id, key) if key else None
    if stored is not None and stored != GAME_WRITE:
        raise ServiceError("bad_request", "this Idempotency-Key was sent with a turn")
    return stored is not None


class GameService:
    """The server's operations on games, over a `Store` and a photo reader.
    The table cameras' frames are `server.camera`'s, over this service.
    """

    def __init__(
        self,
        store: Store,
        reader: PhotoReader | None,
        overlay: OverlayMaker | None = None,
        read_timeout_s: float = 60.0,
        max_pixels: int = DEFAULT_MAX_PIXELS,
        reader_error: str = "",
    ) -> None:
        self.store = store
        self.reader = reader
        self.overlay = overlay
        self.read_timeout_s = read_timeout_s
        self.max_pixels = max_pixels
        self.reader_error = reader_error
        self._executor: ThreadPoolExecutor | None = None
        self._executor_lock = threading.Lock()
        # Overlays are drawn after the turn's answer (a 12 MP photo's took ~120 ms of CPU, most
        # of it PNG encoding); a request for one still being drawn here waits for it.
        self._drawer: ThreadPoolExecutor | None = None
        self._drawing: dict[str, Future] = {}
        self._drawing_lock = threading.Lock()

    def close(self) -> None:
        """Stop the reading threads (a later photo starts new ones: an app's lifespan may be run
        more than once, as test clients do)."""
        with self._executor_lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
        with self._drawing_lock:
            drawer, self._drawer = self._drawer, None
        if drawer is not None:
            drawer.shutdown(wait=True)  # the overlays of committed turns are kept

    def _reading_threads(self) -> ThreadPoolExecutor:
        with self._executor_lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(max_workers=2, thread_name_prefix="reader")
            return self._executor

    def draw_overlay(self, turn_id: str, data: bytes, reading: Reading) -> None:
        """Draw and keep the overlay of a turn in the background, when overlays are made."""
        if self.overlay is None:
            return
        with self._drawing_lock:
            if self._drawer is None:
                self._drawer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="overlay")
            future = self._drawer.submit(self._keep_overlay, turn_id, data, reading)
            self._drawing[turn_id] = future
        future.add_done_callback(lambda _: self._drawn(turn_id))

    def _keep_overlay(self, turn_id: str, data: bytes, reading: Reading) -> None:
        assert self.overlay is not None
        try:
            self.store.save_overlay(turn_id, self.overlay(data, reading))
        except Exception:  # the turn is made: a missing overlay must not fail it
            log.exception("overlay for turn %s failed", turn_id)

    def _drawn(self, turn_id: str) -> None:
        with self._drawing_lock:
            self._drawing.pop(turn_id, None)

    # --- games -------------------------------------------------------------------------------

    def variant_of(self, record: GameRecord) -> Variant:
        """The game's variant: its own file or a shipped one, with its options and layout."""
        own = record.variant_file
        variant = parse_variant(own, "variant_file") if own else load_variant(record.variant)
        variant = variant.with_options(**record.options)
        return variant.with_layout(record.layout) if record.layout else variant

    def _dictionary(self, record: GameRecord, variant: Variant) -> Dictionary:
        word_list = self.store.word_list_path(record.word_list) if record.word_list else None
        return dictionary_for(variant, word_list, record.dictionary)

    def _game(self, tx: Tx, record: GameRecord) -> Game:
        base = Game(self.variant_of(record), tuple(record.players))
        try:
            return fold(base, (data for _, data in tx.events(record.id)))
        except (GameError, IllegalPlay) as exc:
            raise ServiceError("corrupt_log", f"the stored game cannot be replayed: {exc}") from exc

    def record(self, tx: Tx, game_id: str) -> GameRecord:
        """The game's row, or `not_found`."""
        record = tx.game(game_id)
        if record is None:
            raise ServiceError("not_found", f"no game {game_id!r}")
        return record

    def authorize(self, game_id: str, token: str | None) -> None:
        """Check the bearer token of a write (`not_found` first, then `unauthorized`)."""
        with self.store.transaction() as tx:
            record = self.record(tx, game_id)
        if not token or not hmac.compare_digest(hash_token(token), record.token_hash):
            raise ServiceError("unauthorized", "this game's token is needed to change it")

    def create_game(
        self,
        variant: str | None,
        players: list[str],
        options: dict[str, Any],
        layout: str | None,
        dictionary: bool,
        word_list: str | None,
        variant_file: str | None = None,
    ) -> dict[str, Any]:
        """Create a game of a shipped `variant` or of the players' own `variant_file` (its text,
        kept with the game); returns `{"id", "token", "game"}` (the token is shown only here)."""
        try:
            if variant_file is None:
                rules = load_variant(variant or "")
            else:
                rules = parse_variant(variant_file, "variant_file")
                # Photos are the service's way in: letters no photo can show are refused now.
                check_readable(rules)
            rules = rules.with_options(**options)
            if layout:
                rules = rules.with_layout(load_layout(layout))
            Game(rules, tuple(players))
        except (VariantError, UnreadableVariant, GameError, TypeError) as exc:
            raise ServiceError("bad_request", str(exc)) from exc
        except (KeyError, FileNotFoundError, ValueError) as exc:
            raise ServiceError("bad_request", f"unknown variant or layout: {exc}") from exc
        token = secrets.token_urlsafe(24)
        record = GameRecord(
            secrets.token_hex(6),
            rules.name,
            list(players),
            options,
            layout,
            dictionary,
            word_list,
            hash_token(token),
            now(),
            variant_file,
        )
        try:
            if word_list is not None:
                check_word_list(word_list, rules)
            self._dictionary(record, rules)
        except DictionaryError as exc:
            raise ServiceError("bad_request", str(exc)) from exc
        with self.store.transaction() as tx:
            tx.create_game(record)
            game = self.game_json(tx, record)
        return {"id": record.id, "token": token, "game": game}

    def list_games(self) -> dict[str, Any]:
        """Every game with its totals."""
        out = []
        with self.store.transaction() as tx:
            for record in tx.games():
                game = self._game(tx, record)
                out.append(
                    {
                        "id": record.id,
                        "variant": record.variant,
                        "players": record.players,
                        "created": record.created,
                        "finished": game.state.finished or game.state.settled,
                        "totals": dict(zip(game.players, game.state.scores, strict=True)),
                    }
                )
        return {"games": out}

    def games_since(self, since: str) -> list[tuple[GameRecord, Game, TurnRecord | None]]:
        """Every game created at or after `since` (stored time, ISO 8601), oldest first: its row,
        the folded game and its turn waiting for review (None when none is)."""
        with self.store.transaction() as tx:
            pending = tx.pending_turns()
            return [
                (record, self._game(tx, record), pending.get(record.id))
                for record in tx.games()
                if record.created >= since
            ]

    def get_game(self, game_id: str) -> dict[str, Any]:
        """GAME: the sheet, board, whose turn and the pending review."""
        with self.store.transaction() as tx:
            return self.game_json(tx, self.record(tx, game_id))

    def delete_game(self, game_id: str) -> None:
        """Delete a game and everything kept for it."""
        with self.store.transaction(lock_game=game_id) as tx:
            self.record(tx, game_id)
            tx.delete_game(game_id)

    def game_object(self, game_id: str) -> tuple[Game, GameRecord]:
        """The folded game and its row (for the exports)."""
        with self.store.transaction() as tx:
            record = self.record(tx, game_id)
            return self._game(tx, record), record

    def game_json(self, tx: Tx, record: GameRecord, game: Game | None = None) -> dict[str, Any]:
        """GAME: the score sheet, board, whose turn it is and the pending review."""
        game = game or self._game(tx, record)
        state = game.state
        sheet = sheet_dict(game)
        pending = tx.pending_turn(record.id)
        over = state.finished or state.settled
        return {
            "id": record.id,
            "variant": record.variant,
            "players": record.players,
            "options": dataclasses.asdict(game.variant.options),
            "layout": list(game.variant.layout.rows),
            "alphabet": list(game.variant.alphabet),
            "rack_size": game.variant.rack_size,
            "board": state.board.rows,
            "turn": None if over else game.players[state.turn],
            "totals": sheet["totals"],
            "moves": sheet["moves"],
            "unseen": state.unseen,
            "bag": state.bag_size,
            "finished": over,
            "winners": [game.players[p] for p in state.winners],
            "pending": None if pending is None else pending.response,
            "head": tx.head(record.id),
        }

    # --- events ------------------------------------------------------------------------------

    def _write(
        self,
        game_id: str,
        make: Callable[[Game, GameRecord], Event],
        key: str | None = None,
        replacing: type[Event] | None = None,
    ) -> dict[str, Any]:
        """Append the event `make` builds from the locked, folded game; returns GAME. A retry
        with the same `key` (Idempotency-Key) appends nothing and gets the game as it is.
        `replacing`: the last event must be of this kind, and is undone first (in the same
        transaction: a refused event leaves it in force)."""
        with self.store.transaction(lock_game=game_id) as tx:
            record = self.record(tx, game_id)
            if _seen_game_write(tx, game_id, key):
                return self.game_json(tx, record)
            game = self._game(tx, record)
            self._require_no_review(tx, game_id)
            if replacing is not None:
                if not game.events or not isinstance(game.events[-1], replacing):
                    raise ServiceError(
                        "not_allowed", f"the last turn is not a {replacing.__name__.lower()}"
                    )
                tx.undo(game_id, tx.events(game_id)[-1][0])
                game = self._game(tx, record)
            if game.state.settled:
                raise ServiceError("game_finished", "the game is over")
            try:
                event = make(game, record)
                if game.state.finished and not isinstance(event, EndOfGame):
                    raise ServiceError(
                        "game_finished", "the game is over: record the racks left, or undo"
                    )
                game = game.apply(event)
            except (GameError, IllegalPlay) as exc:
                raise ServiceError("not_allowed", str(exc)) from exc
            tx.append_event(game_id, event_to_json(event))
            _remember(tx, game_id, key, GAME_WRITE)
            return self.game_json(tx, record, game)

    def _require_no_review(self, tx: Tx, game_id: str) -> None:
        if tx.pending_turn(game_id) is not None:
            raise ServiceError(
                "review_pending",
                "a photo is waiting for review: confirm, correct or reject it first",
            )

    def pass_turn(self, game_id: str, key: str | None = None) -> dict[str, Any]:
        """The player to move passes."""
        return self._write(game_id, lambda game, _: Pass(game.state.turn), key)

    def exchange(
        self,
        game_id: str,
        count: int | None,
        tiles: str | None,
        key: str | None = None,
        instead_of_pass: bool = False,
    ) -> dict[str, Any]:
        """The player to move exchanges tiles (the letters, or only how many); `instead_of_pass`:
        the last turn, recorded as a pass (a photo cannot tell an exchange), was this exchange,
        made by the player who passed."""
        if not tiles and not count:
            raise ServiceError("bad_request", "give the tiles exchanged or how many")
        return self._write(
            game_id,
            lambda game, _: Exchange(game.state.turn, tiles=tiles or "", count=count or 0),
            key,
            replacing=Pass if instead_of_pass else None,
        )

    def challenge(
        self, game_id: str, challenger: str, valid: bool | None, key: str | None = None
    ) -> dict[str, Any]:
        """A challenge of the last play: `valid` False withdraws it, True is a failed challenge,
        None lets the game's dictionary decide."""

        def make(game: Game, record: GameRecord) -> Event:
            index = game.player_index(challenger)
            last = game.state.last_play
            if last is None:
                raise GameError("there is no play to challenge: a challenge must follow the play")
            verdict = valid
            if verdict is None:
                dictionary = self._dictionary(record, game.variant)
                verdicts = [dictionary.is_valid(w.word) for w in last.play.words]
                if False in verdicts:
                    verdict = False
                elif None in verdicts:
                    raise ServiceError(
                        "cannot_decide",
                        "the dictionary cannot check these words: say whether they are valid",
                    )
                else:
                    verdict = True
            return ChallengeFailed(index) if verdict else ChallengeWithdrawn(last.player)

        return self._write(game_id, make, key)

    def end(self, game_id: str, racks: dict[str, str], key: str | None = None) -> dict[str, Any]:
        """Record the tiles left on each rack (missing players: none left)."""

        def make(game: Game, _: GameRecord) -> Event:
            unknown = set(racks) - set(game.players)
            if unknown:
                raise GameError(f"no player called {', '.join(sorted(unknown))}")
            return EndOfGame(tuple(racks.get(name, "") for name in game.players))

        return self._write(game_id, make, key)

    def undo(self, game_id: str, key: str | None = None) -> dict[str, Any]:
        """Undo the last event still in force; the log keeps it and the undo record. A retry
        with the same `key` undoes nothing more."""
        with self.store.transaction(lock_game=game_id) as tx:
            record = self.record(tx, game_id)
            if _seen_game_write(tx, game_id, key):
                return self.game_json(tx, record)
            self._require_no_review(tx, game_id)
            events = tx.events(game_id)
            if not events:
                raise ServiceError("not_allowed", "nothing to undo")
            tx.undo(game_id, events[-1][0])
            _remember(tx, game_id, key, GAME_WRITE)
            return self.game_json(tx, record)

    # --- photo turns -------------------------------------------------------------------------

    def replay(
        self, tx: Tx, game_id: str, sha: str | None, key: str | None
    ) -> dict[str, Any] | None:
        """The first response to this photo (or key), with the game as it is now."""
        stored = tx.stored_response(game_id, key) if key else None
        if stored == GAME_WRITE:
            raise ServiceError("bad_request", "this Idempotency-Key was sent with another write")
        if stored is None and sha is not None:
            for turn in tx.turns_with_photo(game_id, sha):
                undone = turn.event_seq is not None and tx.is_undone(game_id, turn.event_seq)
                if turn.status != "rejected" and not undone:
                    stored = turn.response
                    break
        if stored is None:
            return None
        return {**stored, "game": self.game_json(tx, self.record(tx, game_id))}

    def read(
        self, data: bytes, variant: Variant, corners: Corners | None, known: Board | None = None
    ) -> Reading:
        """Read a photo on the reading threads, its failures as `ServiceError`s (`no_board`
        with `retry_with` "corners", `timeout`, `bad_corners`, the photo's own codes).

        `known`, the game's board: where no grid is found, a grid the premium squares placed
        without vouching for it (`vision.locate.BoardNotFound.unvouched`: late in a game tiles
        cover most of them) is read, and taken where the known tiles vouch for it
        (`vision.pipeline.vouched_grid`), so that the players need not retake the photo; where
        they do not vouch for the grid found, an alternative they vouch for is read instead
        (`vision.pipeline.checked_grid`; both through `vision.pipeline.read_in_game`)."""

        try:
            if known is None:
                return self._read_once(data, variant, corners)
            # Marked corners are read as marked; their reading offers no other grid.
            return read_in_game(
                lambda grid: self._read_once(data, variant, corners if grid is None else grid),
                known,
                (ServiceError, LookupError),
            )
        except LookupError as exc:  # vision.locate.BoardNotFound
            found = str(exc) or "no board found in the photo"
            raise ServiceError(
                "no_board",
                f"{found}: send the photo again with the grid's four corners marked "
                "(field 'corners')",
                retry_with="corners",
            ) from exc

    def _read_once(self, data: bytes, variant: Variant, corners: Corners | None) -> Reading:
        """`read` without a second look: `LookupError` where no grid is found."""
        if self.reader is None:
            raise ServiceError("reader_unavailable", f"photos cannot be read: {self.reader_error}")
        future = self._reading_threads().submit(self.reader, data, variant, corners)
        try:
            return future.result(timeout=self.read_timeout_s)
        except FutureTimeout as exc:
            raise ServiceError(
                "timeout", f"reading the photo took over {self.read_timeout_s:.0f} s"
            ) from exc
        except PhotoError as exc:
            raise ServiceError(PHOTO_CODES.get(exc.code, exc.code), exc.message) from exc
        except CornersError as exc:
            raise ServiceError("bad_corners", str(exc)) from exc

    def post_photo(
        self,
        game_id: str,
        data: bytes,
        key: str | None,
        corners: str | None = None,
        timings: dict[str, float] | None = None,
        after: int | None = None,
    ) -> dict[str, Any]:
        """Read a photo and track it as the next turn; returns TURN. `corners`: the `corners`
        field, the grid's corners marked on a photo where no board was found. `timings`, when
        given, gets the milliseconds the photo's read took (`read`) and the whole turn (`turn`);
        a photo answered from an earlier turn gets none. `after`: the game's head as the page
        knew it when the photo was taken, which tells an unchanged board's pass from a turn
        already recorded (`scorer.turns.passes_confirmed`; a head past the game's is not said)."""
        start = time.perf_counter()
        marked = parse_corners(corners) if corners is not None else None
        sha = hashlib.sha256(data).hexdigest()
        with self.store.transaction() as tx:
            record = self.record(tx, game_id)
            replayed = self.replay(tx, game_id, sha, key)
            if replayed is not None:
                return replayed
            known = self.require_open(tx, record).state.board
        check_photo(data, self.max_pixels)
        read_start = time.perf_counter()
        reading = self.read(data, self.variant_of(record), marked, known)
        read_ms = (time.perf_counter() - read_start) * 1000
        self.store.save_photo(data, sha)
        turn_id = secrets.token_hex(6)
        with self.store.transaction(lock_game=game_id) as tx:
            record = self.record(tx, game_id)
            replayed = self.replay(tx, game_id, sha, key)
            if replayed is not None:
                return replayed
            game = self.require_open(tx, record)
            turn, answers, reading = self.tracked(tx, record, game, reading)
            words = self._dictionary(record, game.variant)
            head = tx.head(game_id)
            seen = None if after is None or after > head else after == head
            sure = surely_read(turn.result, reading, game.variant, words)
            turn = phonies_confirmed(turn, sure=sure)
            turn = passes_confirmed(lone_blanks_confirmed(turn), seen)
            if seen and head and not tx.log_records(game_id):
                turn = first_pass(game, turn)
            turn = two_plays_offered(game, turn, dictionary=words)
            if turn.result.status is TurnStatus.REJECTED:
                response = {"status": "rejected", "message": turn.result.message}
                tx.add_turn(
                    TurnRecord(turn_id, game_id, sha, "rejected", None, {}, response, now())
                )
            else:
                response = self.settle(
                    tx,
                    record,
                    game,
                    turn,
                    turn_id,
                    sha,
                    answers=answers,
                    looks=getattr(reading, "looks", None),
                )
                _remember(tx, game_id, key, response)
        if turn.result.status is TurnStatus.REJECTED:
            raise ServiceError("illegal_play", turn.result.message)
        self.draw_overlay(turn_id, data, reading)
        if timings is not None:
            timings.update(read=read_ms, turn=(time.perf_counter() - start) * 1000)
        return response

    def tracked(
        self,
        tx: Tx,
        record: GameRecord,
        game: Game,
        reading: Reading,
        kept: frozenset[tuple[int, int]] = frozenset(),
        blind: frozenset[tuple[int, int]] = frozenset(),
    ) -> tuple[Turn, Answers, Reading]:
        """A photo's (or a frame's) reading tracked against the game: the turn, the players'
        answers so far, and the reading with those answers applied (the squares they said were
        empty; the tiles they named are kept, `Answers.named`); `kept`, known tiles a table
        camera saw unchanged, and `blind`, the empty squares it could not see
        (`scorer.tracking.track`). A play with a square read empty but looking like a tile
        just past a word's end, or a pass with one beside a tile, is asked
        (`scorer.turns.tile_like_confirmed`)."""
        # The latest photo turn, or the empty board's before the first move (no event).
        latest = tx.last_photo_turn(record.id)
        # Known tiles the last photo read as empty too are this edition's look (see track).
        gone = latest.state.get("gone", []) if latest and latest.event_seq is not None else []
        steady = frozenset((int(r), int(c)) for r, c in gone)
        # Squares the players said were empty are not asked about again while they look so.
        known, layout = game.state.board, game.variant.layout.rows
        answers = Answers.of(latest.state) if latest else Answers()
        # The known board's vacant squares vouch for their kinds' empty look in this photo, and
        # the latest photo's looks for the squares unchanged since.
        earlier = latest.state.get("looks") if latest else None
        reading = vouched(reading, known, layout, answers.empty, earlier)
        # The known tiles in this photo show how this set's look-alike letters differ.
        reading = with_known_letters(reading, known)
        words = self._dictionary(record, game.variant)
        # Tiles the players named stay on the board however they look in this photo.
        kept |= answers.named(game)
        turn = turn_from_reading(game, reading, words, steady, kept=kept, blind=blind)
        # A play is not recorded short of a tile the photo read as an empty square.
        suspects = tile_like_vacancies(reading, known, layout, answers.empty)
        return tile_like_confirmed(turn, suspects), answers, reading

    def play_move(self, game_id: str, position: str, word: str, key: str | None) -> dict[str, Any]:
        """Record a play typed in GCG notation as the next turn, checked and scored as a photo of
        the board after it would be; returns TURN, committed."""
        with self.store.transaction(lock_game=game_id) as tx:
            record = self.record(tx, game_id)
            replayed = self.replay(tx, game_id, None, key)
            if replayed is not None:
                return replayed
            game = self.require_open(tx, record)
            try:
                turn = turn_from_move(game, position, word, self._dictionary(record, game.variant))
            except (IllegalPlay, GameError) as exc:
                raise ServiceError("illegal_play", str(exc)) from exc
            except ValueError as exc:
                raise ServiceError("bad_request", f"{position} {word}: {exc}") from exc
            response = self.settle(tx, record, game, turn, secrets.token_hex(6), "", photo=False)
            _remember(tx, game_id, key, response)
        return response

    def require_open(self, tx: Tx, record: GameRecord) -> Game:
        """The game, which must be open to a turn: not over, no review pending."""
        game = self._game(tx, record)
        if game.state.finished or game.state.settled:
            raise ServiceError("game_finished", "the game is over: no more turns")
        self._require_no_review(tx, record.id)
        return game

    def settle(
        self,
        tx: Tx,
        record: GameRecord,
        game: Game,
        turn: Turn,
        turn_id: str,
        sha: str,
        existing: bool = False,
        photo: bool = True,
        answers: Answers | None = None,
        answered: list[tuple[int, int]] | None = None,
        order: dict[str, list[list[int]]] | None = None,
        gone_there: bool = False,
        looks: list[Any] | None = None,
    ) -> dict[str, Any]:
        """Commit a tracked turn or keep it pending; returns TURN and stores it with the turn
        (`sha` "" and no `photo` for a typed move). `answers`: what the players answered about
        squares so far (`Answers`), kept with the turn for the next photo; `answered`:
        the squares set while reviewing this photo (`scorer.turns.phonies_confirmed`), and
        `gone_there` whether they said known tiles it read as gone are there
        (`scorer.turns.missed_confirmed`); `order`: the squares a table camera saw a hand over
        `earlier` and `later`, kept for its corrections (`scorer.turns.two_plays_offered`);
        `looks`: the photo's cell looks (`BoardReading.looks`), kept for the next photo's
        (`vision.answers.unchanged_vacancies`). A turn proposing two plays answers `moves`, both
        sheet lines, `move` being the last."""
        result = turn.result
        seq = None
        moves = None
        if turn.event is not None:
            seq = tx.append_event(record.id, event_to_json(turn.event))
            game = game.apply(turn.event)
            move = sheet_dict(game)["moves"][-1]
        elif turn.proposed:
            lines = sheet_dict(game.apply_all(turn.proposed))["moves"][-len(turn.proposed) :]
            move, moves = lines[-1], lines if len(lines) > 1 else None
        else:
            move = self._proposed_move(game, result)
        status = "committed" if turn.committed else "needs_review"
        # The board as read (new tiles included) lets the page show the whole move under review.
        board = result.board or result.read_board
        body = {
            "status": status,
            "turn_id": turn_id,
            "message": result.message,
            "move": move,
            **({"moves": moves} if moves else {}),
            "board": board.rows if board else None,
            "uncertain": [cell.to_dict() for cell in result.uncertain],
            "misreads": [
                {"square": square_name(*m.square), "known": m.known, "read": m.read}
                for m in result.misreads
            ],
            "invalid_words": list(result.invalid_words),
            "overlay_url": f"/api/games/{record.id}/turns/{turn_id}/overlay" if photo else None,
            "photo_url": f"/api/games/{record.id}/turns/{turn_id}/photo" if photo else None,
        }
        state = {
            "board": body["board"],
            "uncertain": body["uncertain"],
            "play": event_to_json(turn.proposed[0])
            if turn.proposed
            else event_to_json(Play(game.state.turn, result.play))
            if result.play
            else None,
            "then": [event_to_json(event) for event in turn.proposed[1:]],
            "order": order or {},
            "gone": sorted(result.gone),
            **(answers or Answers()).state(board),
            "answered": [list(square) for square in answered or []],
            "gone_there": gone_there,
            # A tenth is all the looks are read to (`BoardReading.looks`), and JSON keeps it short.
            **(
                {"looks": np.round(np.asarray(looks, np.float64), 1).tolist()}
                if looks is not None
                else {}
            ),
        }
        if existing:
            tx.update_turn(turn_id, status, seq, state)
            tx.set_response(turn_id, body)
        else:
            tx.add_turn(TurnRecord(turn_id, record.id, sha, status, seq, state, body, now()))
        return {**body, "game": self.game_json(tx, record, game)}

    def _proposed_move(self, game: Game, result: TrackResult) -> dict[str, Any] | None:
        play = result.play
        if play is None:
            return None
        player = game.state.turn
        return {
            "player": game.players[player],
            "kind": "play",
            "position": play.position,
            "word": play.word,
            "words": [{"word": w.word, "score": w.score} for w in play.words],
            "score": play.score,
            "total": game.state.scores[player] + play.score,
        }

    # --- review ------------------------------------------------------------------------------

    def _pending(self, tx: Tx, game_id: str) -> TurnRecord:
        pending = tx.pending_turn(game_id)
        if pending is None:
            raise ServiceError("no_review", "no photo is waiting for review")
        return pending

    def confirm(self, game_id: str) -> dict[str, Any]:
        """Commit the pending move as read."""
        with self.store.transaction(lock_game=game_id) as tx:
            record = self.record(tx, game_id)
            pending = self._pending(tx, game_id)
            if pending.state.get("play") is None:
                raise ServiceError(
                    "no_move", "the photo gave no move to confirm: correct the cells first"
                )
            game = self._game(tx, record)
            # A turn that shows two plays (a turn missed) records both, in turn order.
            played = [pending.state["play"], *pending.state.get("then", [])]
            try:
                for data in played:
                    game = game.apply(event_from_json(data, game))
            except (GameError, IllegalPlay) as exc:
                raise ServiceError("illegal_play", str(exc)) from exc
            for data in played:
                seq = tx.append_event(game_id, data)
            tx.update_turn(pending.id, "committed", seq, pending.state)
            lines = sheet_dict(game)["moves"][-len(played) :]
            body = {
                **pending.response,
                "status": "committed",
                "message": f"confirmed: {pending.response['message']}",
                "move": lines[-1],
                **({"moves": lines} if len(lines) > 1 else {}),
                "uncertain": [],
            }
            tx.set_response(pending.id, body)
            return {**body, "game": self.game_json(tx, record, game)}

    def correct(
        self, game_id: str, cells: dict[str, str], blanks_only: bool = False
    ) -> dict[str, Any]:
        """Re-evaluate the pending turn with some cells set by a person (board-text characters);
        `blanks_only`: each cell named must hold a blank in the photo (its letter is being named).
        """
        with self.store.transaction(lock_game=game_id) as tx:
            record = self.record(tx, game_id)
            pending = self._pending(tx, game_id)
            game = self._game(tx, record)
            variant = game.variant
            rows = pending.state.get("board") or game.state.board.rows
            board = Board.from_rows(rows)
            changes: dict[tuple[int, int], Tile | None] = {}
            for name, char in cells.items():
                try:
                    row, col, _ = parse_position(name)
                    if not board.in_bounds(row, col) or len(split_tiles(char)) != 1:
                        raise ValueError(name)
                    tile = None if char == "." else Tile.from_char(char)
                except (ValueError, BoardTextError) as exc:
                    raise ServiceError(
                        "bad_request",
                        f"cannot set {name!r} to {char!r}: name a square like H8 "
                        "and give one board-text character (a tile of several letters in "
                        "brackets: [CH])",
                    ) from exc
                lettered = tile is not None and tile.letter != UNKNOWN_BLANK
                if lettered and not variant.has_letter(tile.letter):
                    raise ServiceError(
                        "bad_request", f"{char!r} is not a letter of {variant.title}"
                    )
                if blanks_only:
                    held = board.get(row, col)
                    if held is None or not held.is_blank:
                        raise ServiceError(
                            "bad_request", f"the photo shows no {variant.blank_name} on {name}"
                        )
                changes[row, col] = tile
            # Known tiles the photo read as gone said to be there, this time or earlier in this
            # review: a photo that missed tiles may miss another, so its empty squares are not
            # taken as read just past the play's words.
            known = game.state.board
            gone = {
                (cell["row"], cell["col"])
                for cell in pending.state["uncertain"]
                if EMPTY in cell["candidates"] and known.get(cell["row"], cell["col"]) is not None
            }
            gone_there = pending.state.get("gone_there", False) or any(
                tile is not None and square in gone for square, tile in changes.items()
            )
            board = board.place(changes)
            uncertain = [
                cell
                for cell in pending.state["uncertain"]
                if (cell["row"], cell["col"]) not in changes
            ]
            reading = _reviewed_reading(board, uncertain)
            # What the players set while reviewing this photo, this correction and earlier ones.
            answered = {(r, c) for r, c in pending.state.get("answered", [])} | set(changes)
            turn = corrected_turn(
                game,
                reading,
                self._dictionary(record, game.variant),
                frozenset(answered),
                gone_there,
            )
            order = pending.state.get("order") or {}
            earlier, later = (
                frozenset((int(r), int(c)) for r, c in order.get(name, []))
                for name in ("earlier", "later")
            )
            turn = two_plays_offered(
                game, turn, earlier, later, self._dictionary(record, game.variant)
            )
            if turn.result.status is TurnStatus.REJECTED:
                raise ServiceError("illegal_play", turn.result.message)
            answers = Answers.of(pending.state).with_said(changes)
            return self.settle(
                tx,
                record,
                game,
                turn,
                pending.id,
                pending.photo_sha,
                existing=True,
                answers=answers,
                answered=sorted(answered),
                order=order,
                gone_there=gone_there,
                looks=pending.state.get("looks"),
            )

    def choose_blank(self, game_id: str, square: str, letter: str) -> dict[str, Any]:
        """Say which letter a blank on `square` stands for."""
        letters = unbracket(letter)  # CH or [CH]: the field names one tile
        if not letters.isalpha():
            raise ServiceError("bad_request", f"{letter!r} is not one tile's letter")
        return self.correct(game_id, {square: tile_text(letters.lower())}, blanks_only=True)

    def reject(self, game_id: str) -> dict[str, Any]:
        """Drop the pending photo; returns GAME."""
        with self.store.transaction(lock_game=game_id) as tx:
            record = self.record(tx, game_id)
            pending = self._pending(tx, game_id)
            tx.update_turn(pending.id, "rejected", None, pending.state)
            return self.game_json(tx, record)

    # --- files -------------------------------------------------------------------------------

    def turn_file(self, game_id: str, turn_id: str, kind: str) -> bytes:
        """The stored photo (`photo`) or overlay (`overlay`) of a turn."""
        with self.store.transaction() as tx:
            self.record(tx, game_id)
            turn = tx.turn(game_id, turn_id)
        if turn is None:
            raise ServiceError("not_found", f"no turn {turn_id!r} in game {game_id!r}")
        if not turn.photo_sha:
            raise ServiceError("not_found", f"turn {turn_id!r} was typed: it has no photo")
        if kind == "overlay":
            with self._drawing_lock:
                drawing = self._drawing.get(turn_id)
            if drawing is not None:
                wait_for((drawing,), timeout=self.read_timeout_s)
        data = self.store.photo(turn.photo_sha) if kind == "photo" else self.store.overlay(turn_id)
        if data is None:
            raise ServiceError("not_found", f"no {kind} kept for turn {turn_id!r}")
        return data
