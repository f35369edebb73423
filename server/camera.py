"""The table camera's part of the service: frames from a phone on a stand (`POST
/api/games/{id}/frames`, DESIGN.md §6) turned into turns. Each frame is looked at
(`vision.frames.FrameLooker`: which squares moved, which differ from the settled board), the
state machine (`scorer.table_camera`) says whether the board held still long enough, and a frame
that did is read and tracked as the next turn through the `GameService`, as a photo is, under the
game's lock.

Each camera's stream (the looker's arrays, the state machine's state, its last frame's answer)
is kept in the store after every frame, so that any server process takes the next one: frames
spread over `serve --workers N` make the reads one process would, and never a turn twice (the
game's lock and the frame's hash see to that, as for photos).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from scorer.board import Board, Square
from scorer.move import ChangeKind
from scorer.table_camera import (
    CameraConfig,
    CameraState,
    FrameLook,
    FrameStatus,
    asked_unseen,
    hidden_squares,
    no_tile_left,
    settled,
    step,
    unseen_since,
    waited,
)
from scorer.tracking import TurnStatus, surely_read
from scorer.turns import (
    lone_blanks_confirmed,
    phonies_confirmed,
    two_plays_offered,
    withdrawals_confirmed,
)
from scorer.variant import Variant
from server.service import PHOTO_CODES, GameService, ServiceError, check_photo
from server.storage import GameRecord
from vision.decode import PhotoError
from vision.frames import FrameLooker, FrameView, board_squares

log = logging.getLogger("scorekeeper.server")

# Cameras whose frames this process takes one at a time (each a lock): the least recently seen
# go first (across processes, a stream's version keeps two frames from both making it).
MAX_CAMERAS = 256
# Tries at a frame whose camera's stream another process moved on meanwhile.
TRIES = 3

_FRAME_MESSAGES = {
    FrameStatus.NO_BOARD: "no board in the frame",
    FrameStatus.BUSY: "something moves over the board",
    FrameStatus.UNCHANGED: "the board is as the last turn left it",
    FrameStatus.SETTLING: "the board changed: waiting for it to hold still",
    FrameStatus.READ: "the board held still: reading it",
}


@dataclasses.dataclass
class _Camera:
    """One phone streaming one game: what it saw (`FrameLooker`), where its stream stands, its
    last frame's bytes and answer (the same frame sent again gets the same answer), and the
    version of it the store keeps (0: none yet)."""

    looker: FrameLooker
    state: CameraState = dataclasses.field(default_factory=CameraState)
    last_sha: str = ""
    last_answer: dict[str, Any] = dataclasses.field(default_factory=dict)
    version: int = 0

    def dump(self) -> bytes:
        """The stream as the store keeps it: a JSON header (its length first), then the
        looker's arrays."""
        header = json.dumps(
            {
                "state": dataclasses.asdict(self.state),
                "last_sha": self.last_sha,
                "last_answer": self.last_answer,
            }
        ).encode()
        return len(header).to_bytes(4, "big") + header + self.looker.dump()

    @classmethod
    def restore(cls, variant: Variant, data: bytes, version: int) -> _Camera:
        """The stream `dump` gave `data` of (ValueError for bytes that are not one)."""
        size = int.from_bytes(data[:4], "big")
        try:
            header = json.loads(data[4 : 4 + size])
            state = CameraState(**header["state"])
        except (KeyError, TypeError, UnicodeDecodeError) as exc:
            raise ValueError(f"not a camera stream: {exc}") from exc
        looker = FrameLooker.restore(variant, data[4 + size :])
        return cls(looker, state, header["last_sha"], header["last_answer"], version)


def unchanged_squares(
    view: FrameView, known: Board, rotation: int, seen: tuple[int, int]
) -> tuple[frozenset[Square], frozenset[Square]]:
    """What a frame shows of the board as it settled (the frame that made the last turn): the
    known tiles on squares that look as they did then (or as then in other light,
    `vision.frames.relit`) and were seen (not clipped), and the empty squares too clipped to see
    that no hand moved over. A tile is not taken away without its square changing, so those
    tiles are there however faint the reading finds them (white tiles on an overexposed white
    board); on a clipped square no hand was over, a plain blank is what the light looks like
    (where a hand was, the reading decides, as ever). No tiles when the phone moved since (every
    square is then seen anew) or nothing settled yet."""
    rows, cols = seen

    def on_board(squares: frozenset[Square], tiles: bool) -> frozenset[Square]:
        mapped = board_squares(squares, rotation, seen)
        return frozenset(
            s for s in mapped if known.in_bounds(*s) and (known.get(*s) is not None) == tiles
        )

    blind = on_board(view.unknown - view.touched, tiles=False)
    if view.moved or view.changed is None:
        return frozenset(), blind
    looked = frozenset((r, c) for r in range(rows) for c in range(cols))
    return on_board(looked - view.changed - view.unknown, tiles=True), blind


class TableCameras:
    """The table cameras of a `GameService`'s games: one stream per game and phone, kept in the
    game's store after each frame, so that frames spread over several server processes (`serve
    --workers N`, or machines on one PostgreSQL) go on from the same stream and make no extra
    reads. `clock` times the frames: the wall clock by default, the one clock all processes
    share (a step of it makes at most one read a little early or late). `camera` sets the state
    machine's `CameraConfig` (`still_frames`, `still_seconds`)."""

    def __init__(
        self,
        service: GameService,
        clock: Callable[[], float] = time.time,
        camera: dict[str, float] | None = None,
    ) -> None:
        self.service = service
        self.clock = clock
        self.camera_options = dict(camera or {})
        self._locks: OrderedDict[tuple[str, str], threading.Lock] = OrderedDict()
        self._locks_lock = threading.Lock()
        # This process's copy of each stream it kept last, used while the store's is that one.
        self._streams: OrderedDict[tuple[str, str], _Camera] = OrderedDict()

    def _lock(self, game_id: str, camera_id: str) -> threading.Lock:
        """This process's lock of this phone's stream of this game."""
        with self._locks_lock:
            key = (game_id, camera_id)
            lock = self._locks.get(key)
            if lock is None:
                lock = self._locks[key] = threading.Lock()
                while len(self._locks) > MAX_CAMERAS:
                    self._locks.popitem(last=False)
            self._locks.move_to_end(key)
            return lock

    def _load(self, game_id: str, camera_id: str, variant: Variant) -> _Camera:
        """This phone's stream of this game as the store keeps it (this process's copy when it
        is the one kept, as when all frames come here), or a new one."""
        key = (game_id, camera_id)
        held = self._streams.pop(key, None)
        with self.service.store.transaction() as tx:
            kept = tx.camera_stream(game_id, camera_id, held.version if held else 0)
        if kept is None:
            return _Camera(FrameLooker(variant))
        version, data = kept
        if data is None and held is not None:
            return held
        try:
            return _Camera.restore(variant, data or b"", version)
        except ValueError:
            log.warning("camera %r of game %s: stream unreadable, begun again", camera_id, game_id)
            return _Camera(FrameLooker(variant), version=version)

    def _keep(self, game_id: str, camera_id: str, camera: _Camera) -> bool:
        """Keep the stream in the store over the version it was loaded at; False when another
        process kept one first (this copy is then dropped)."""
        with self.service.store.transaction() as tx:
            if not tx.save_camera_stream(game_id, camera_id, camera.version, camera.dump()):
                return False
        camera.version += 1
        with self._locks_lock:
            self._streams[game_id, camera_id] = camera
            while len(self._streams) > MAX_CAMERAS:
                self._streams.popitem(last=False)
        return True

    def _camera_config(self, variant: Variant) -> CameraConfig:
        return CameraConfig.for_rack(variant.rack_size, **self.camera_options)

    def post_frame(self, game_id: str, data: bytes, camera_id: str = "") -> dict[str, Any]:
        """One frame of a table camera (a phone on a stand; `camera_id` tells two phones on one
        game apart): FRAME, `no_board`, `busy`, `unchanged` or `settling`, or, when a changed board
        has held still, the turn read from it, as a photo turn's answer. The frame that makes a
        turn is kept as its photo; no other frame's bytes are stored, only the stream's state."""
        sha = hashlib.sha256(data).hexdigest()
        with self.service.store.transaction() as tx:
            record = self.service.record(tx, game_id)
            replayed = self.service.replay(tx, game_id, sha, None)
            if replayed is not None:
                return replayed
            pending = tx.pending_turn(game_id)
            if pending is not None:
                # The review is answered first (on any phone joined to the game).
                return {**pending.response, "game": self.service.game_json(tx, record)}
            events = len(tx.events(game_id))
        check_photo(data, self.service.max_pixels)
        variant = self.service.variant_of(record)
        with self._lock(game_id, camera_id):
            for _ in range(TRIES):
                camera = self._load(game_id, camera_id, variant)
                if sha == camera.last_sha:
                    return camera.last_answer
                answer = self._look(record, data, sha, camera, variant, events)
                camera.last_sha, camera.last_answer = sha, answer
                if self._keep(game_id, camera_id, camera):
                    break
                # Another process took a frame of this camera meanwhile: look again from there
                # (a turn this frame made is then found made, never made twice).
            return answer

    def _look(
        self,
        record: GameRecord,
        data: bytes,
        sha: str,
        camera: _Camera,
        variant: Variant,
        events: int,
    ) -> dict[str, Any]:
        """Look at a frame, step the camera's state machine, and read the board if it says so."""
        try:
            view = camera.looker.look(data)
        except PhotoError as exc:
            raise ServiceError(PHOTO_CODES.get(exc.code, exc.code), exc.message) from exc
        look = FrameLook(
            view.found, view.moving, view.changed, self.clock(), view.edge, moved=view.moved
        )
        camera.state, status = step(camera.state, look, self._camera_config(variant))
        message = _FRAME_MESSAGES[status]
        if status is FrameStatus.BUSY and not view.moving:
            message = "more of the board changed than a move changes: something lies on it"
        answer: dict[str, Any] = {
            "status": status.value,
            "message": message,
            "corners": view.corners,
            "changed": sorted([r, c] for r, c in view.changed or ()),
            "events": events,
        }
        if status is FrameStatus.READ:
            answer = self._frame_turn(record, data, sha, view, camera, answer)
        return answer

    def _frame_turn(
        self,
        record: GameRecord,
        data: bytes,
        sha: str,
        view: FrameView,
        camera: _Camera,
        answer: dict[str, Any],
    ) -> dict[str, Any]:
        """Read a frame that held still and track it as the next turn, as a photo is.

        A board that shows no change makes no turn (a camera cannot see a pass: the page's button
        says it), and neither does a review without a play whose doubtful squares are all known
        tiles (hidden: read again once something moves), or one without a play where no square
        that looked changed is read as gained or lost or is in doubt (a premium square that might
        be a blank, asked after every hand that passed over it otherwise; glare), a doubt that
        no tile left to lay could settle counting as none (`scorer.table_camera.no_tile_left`):
        both answer as the camera sees it. The last play's tiles gone is a withdrawal to
        confirm, never recorded silently (`scorer.turns.withdrawals_confirmed`); nor is a play
        with words the dictionary lacks (`scorer.turns.phonies_confirmed`), nor one of blanks
        alone (`scorer.turns.lone_blanks_confirmed`)."""
        game_id = record.id
        variant = self.service.variant_of(record)
        try:
            try:
                reading = self.service.read(data, variant, view.corners)
            except ServiceError as exc:
                if exc.code != "bad_corners":
                    raise
                reading = self.service.read(data, variant, None)
        except ServiceError as exc:
            return {**answer, "status": "busy", "message": f"the board could not be read: {exc}"}
        turn_id = secrets.token_hex(6)
        with self.service.store.transaction(lock_game=game_id) as tx:
            record = self.service.record(tx, game_id)
            replayed = self.service.replay(tx, game_id, sha, None)
            pending = tx.pending_turn(game_id)
            if replayed is not None or pending is not None:
                # Another phone made this turn, or one is under review: read again once it is not.
                camera.state = settled(camera.state)
                if replayed is not None:
                    return replayed
                assert pending is not None
                return {**pending.response, "game": self.service.game_json(tx, record)}
            game = self.service.require_open(tx, record)
            events = len(tx.events(game_id))
            known = game.state.board
            turns = int(getattr(reading, "rotation", 0))
            seen = (known.width, known.height) if turns % 2 else (known.height, known.width)
            kept, blind = unchanged_squares(view, known, turns, seen)
            turn, answers, reading = self.service.tracked(tx, record, game, reading, kept, blind)
            # Where a hand was before an earlier reading that could not see it all, and while
            # laying this: which of two plays on the board came first.
            earlier = unseen_since(camera.state, events)
            later = board_squares(view.touched, turns, seen)
            words = self.service._dictionary(record, variant)
            sure = surely_read(turn.result, reading, variant, words)
            turn = withdrawals_confirmed(lone_blanks_confirmed(phonies_confirmed(turn, sure=sure)))
            turn = two_plays_offered(game, turn, earlier, later, words)
            result = turn.result
            unchanged = result.status is TurnStatus.COMMITTED and (
                turn.event is None or result.kind is ChangeKind.UNCHANGED
            )
            doubts = [cell.square for cell in result.uncertain]
            hidden = result.play is None and all(known.get(*s) is not None for s in doubts)
            # Squares that look changed may hold new tiles, unless the phone moved since the
            # board settled: then they are where the new view differs from the old (glare that
            # moved with the phone, the board seen askew), and only the reading tells tiles.
            changed = frozenset() if view.moved else view.changed or frozenset()
            looked = board_squares(changed, turns, seen)
            # Squares the hand was over that were too bright to show a change: there only the
            # reading tells whether tiles came (a review of them stands) or not (see below).
            unseen = board_squares(hidden_squares(view.touched, view.unknown), turns, seen)
            read = result.read_board
            # A changed square in doubt may hold a tile laid there, unless no tile it might be
            # is left to lay, or no hand was over it: light over an empty square (see
            # `no_tile_left`; a lamp coming on, `vision.frames`).
            reached = earlier | later
            laid = [
                c.square
                for c in result.uncertain
                if not no_tile_left(c, known, variant) and c.square in reached
            ]
            seen_new = read is not None and any(
                read.in_bounds(*s) and (read.get(*s) is None) != (known.get(*s) is None)
                for s in looked | unseen
            )
            # A play read only of such doubts is no play either: a blank the reading half sees
            # in glare where no hand was, making a word with the tiles beside it (?XI).
            doubted = {cell.square for cell in result.uncertain} - reached
            unchanged = unchanged or (
                result.status is TurnStatus.NEEDS_REVIEW
                and (
                    result.play is None or all(p.square in doubted for p in result.play.placements)
                )
                and not turn.proposed
                and not hidden
                and not seen_new
                and not any(s in looked for s in laid)
            )
            if unchanged and unseen and read is not None:
                # No move read, but the hand was over squares too bright to show a tile: that
                # is not "nothing happened". Nothing is settled; read again once something
                # moves, and a play found before the game moves on is asked, not recorded.
                camera.state = waited(camera.state, unseen, events)
                camera.looker.read_done()
                return {
                    **answer,
                    "status": "busy",
                    "message": f"no move read, but a bright light hides {len(unseen)} squares "
                    "the hand was over: read again once something moves",
                }
            if earlier and read is not None and not unchanged:
                asked = asked_unseen(turn, earlier, read)
                hidden = hidden and asked is turn
                turn, result = asked, asked.result
            if unchanged:
                response = {**answer, "status": "unchanged", "message": "no move on the board"}
            elif result.status is TurnStatus.REJECTED or (
                result.status is TurnStatus.NEEDS_REVIEW and hidden and not turn.proposed
            ):
                return {**answer, "status": "busy", "message": result.message}
            else:
                self.service.store.save_photo(data, sha)
                order = {
                    name: sorted([r, c] for r, c in squares)
                    for name, squares in (("earlier", earlier), ("later", later))
                }
                response = self.service.settle(
                    tx,
                    record,
                    game,
                    turn,
                    turn_id,
                    sha,
                    answers=answers,
                    order=order,
                    looks=getattr(reading, "looks", None),
                )
        camera.looker.settle()
        camera.state = settled(camera.state)
        if response["status"] != "unchanged":
            self.service.draw_overlay(turn_id, data, reading)
        return {**answer, **response}
