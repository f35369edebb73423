"""Table-camera frames: a phone on a stand looking at a board while a game is played, one frame a
second, for the frame tests and `benchmarks/bench_frames.py`.

A `TableScene` keeps one camera pose, table and light for a whole game (the phone does not move
unless it is nudged), and draws each tile from its own seed (`render_topdown`'s `tile_seed`), so
tiles already down look the same in every frame. On top it draws what a table camera sees and a
photo does not: a hand and arm reaching in from the player's side, tiles appearing under it one by
one, glare from a lamp, the phone knocked to a slightly different view, sensor noise and JPEG.
`game_script` turns a recorded game into such a sequence of frames, marked with the turns they
should make. Everything is deterministic by seed.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from scorer.board import Board
from scorer.game import ChallengeWithdrawn, Event, Exchange, Game, Pass, Play
from scorer.variant import Variant
from training.photo_games import photo_rows
from training.render import Pose, Style, _background, _projection, render_topdown

FRAME_SIZE = (1280, 960)  # the cell model wants about 44 px a square: a board across 3/4 of 960
# Skin tones (BGR) of hands, light to dark.
SOFT = 4  # soft light and shadows are blurred at 1/SOFT of the frame's size (the same, faster)
NOISE_SHIFT = 64  # a frame's sensor noise is the scene's noise field shifted by up to this
SKINS = ((180, 200, 235), (140, 170, 215), (110, 140, 190), (70, 95, 140), (50, 65, 95))


@dataclass(frozen=True)
class Hand:
    """A hand reaching over the board from the frame's edge `side` (0 top, 1 right, 2 bottom,
    3 left) to the fingertips at `tip` (frame pixels)."""

    side: int
    tip: tuple[float, float]


@dataclass(frozen=True)
class Glare:
    """A lamp's reflection: a soft bright spot at `centre` (frame pixels) of `radius` pixels."""

    centre: tuple[float, float]
    radius: float
    strength: float


@dataclass(frozen=True)
class Shot:
    """One frame of a script: the board on the table, what covers it, the camera's view
    (`view` 0 the first pose, each nudge a new one), and what it stands for:

    `turn` is the index in the game's events of the play or withdrawal whose tiles are all down
    (or all taken back) with the hand gone, on the first such frame; `before` are the events
    sent through their endpoints (pass, exchange, failed challenge, end) just before it."""

    board: Board
    hand: Hand | None = None
    glare: Glare | None = None
    view: int = 0
    turn: int | None = None
    before: tuple[Event, ...] = ()


def stand_pose(rng: np.random.Generator) -> Pose:
    """A phone on a stand or leaning on a cup beside the board: tilted from one side, the board
    filling most of the frame."""
    return Pose(
        quarter_turns=int(rng.integers(0, 4)),
        angle=float(rng.normal(0, 3)),
        tilt=float(rng.uniform(12, 32)),
        tilt_direction=float(rng.uniform(0, 360)),
        fill=float(rng.uniform(0.72, 0.8)),
    )


def nudged(pose: Pose, rng: np.random.Generator) -> Pose:
    """The pose after the phone was knocked: a little turned, tilted and shifted."""
    return dataclasses.replace(
        pose,
        angle=pose.angle + float(rng.normal(0, 2.5)),
        tilt=max(0.0, pose.tilt + float(rng.normal(0, 3))),
        fill=pose.fill * float(rng.uniform(0.95, 1.02)),
        centre=(0.5 + float(rng.normal(0, 0.02)), 0.5 + float(rng.normal(0, 0.02))),
    )


class TableScene:
    """One game's table as its camera sees it: `render(shot, seed)` gives a frame's JPEG."""

    def __init__(
        self,
        variant: Variant,
        style: Style,
        seed: int,
        size: tuple[int, int] = FRAME_SIZE,
        views: int = 4,
        exposure: float = 1.0,
    ) -> None:
        """`exposure` scales the light the camera takes in: over 1 a pale board clips to white
        (a phone on a stand metering a dark table), its tiles showing little but their
        letters."""
        self.variant = variant
        self.style = style
        self.seed = seed
        self.size = size
        self.exposure = exposure
        rng = np.random.default_rng(seed)
        pose = stand_pose(rng)
        self.poses = [pose]
        for _ in range(views - 1):
            self.poses.append(nudged(pose, rng))
        w, h = size
        self.table = _background(rng, w, h)
        light = cv2.resize(
            rng.normal(0, 1, (3, 3)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC
        )
        self.light = (1 + float(rng.uniform(0.02, 0.06)) * light)[..., None]  # the lens's
        self.board_light = (1 + float(rng.uniform(0.05, 0.2)) * rng.normal(0, 1, (3, 3))).astype(
            np.float32
        )
        self.skin = np.array(SKINS[int(rng.integers(0, len(SKINS)))], np.float32)
        self.noise = rng.normal(0, 2.0, (h + NOISE_SHIFT, w + NOISE_SHIFT, 3)).astype(np.float32)
        height, width = variant.layout.height, variant.layout.width
        self.cells = (height, width)
        longer = max(height, width)
        self.cell_in_photo = pose.fill * min(w, h) / longer
        self.r = int(np.clip(self.cell_in_photo * 1.2, 24, 96))
        self.values = {letter: variant.value(letter) for letter in variant.alphabet}
        self._tops: dict[tuple[str, ...], tuple[np.ndarray, float]] = {}
        self._warped: dict[tuple[tuple[str, ...], int], np.ndarray] = {}
        self._glares: dict[Glare, np.ndarray] = {}

    # --- geometry ------------------------------------------------------------------------------

    def _board_points(self, origin: float, top_shape: tuple[int, ...]) -> tuple[np.ndarray, ...]:
        side_y, side_x = top_shape[:2]
        height, width = self.cells
        r = self.r
        centre = np.float32([side_x / 2, side_y / 2])
        board = np.float32([[0, 0], [side_x, 0], [side_x, side_y], [0, side_y]]) - centre
        grid = np.float32(
            [
                [origin, origin],
                [origin + width * r, origin],
                [origin + width * r, origin + height * r],
                [origin, origin + height * r],
            ]
        )
        return board, grid - centre, centre

    def grid_corners(self, view: int = 0) -> np.ndarray:
        """The grid's corners in the frame, in board order (row 1 / column A's corner first)."""
        top, origin = self._top(("." * self.cells[1],) * self.cells[0])
        _, grid, _ = self._board_points(origin, top.shape)
        scale = self.cell_in_photo / self.r
        return _projection(self.poses[view], self.size, grid, scale).astype(np.float32)

    def square_centre(self, row: int, col: int, view: int = 0) -> tuple[float, float]:
        """Where the centre of square (row, col) lies in the frame."""
        height, width = self.cells
        unit = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
        matrix = cv2.getPerspectiveTransform(unit, self.grid_corners(view))
        point = cv2.perspectiveTransform(np.float32([[[col + 0.5, row + 0.5]]]), matrix)
        return float(point[0, 0, 0]), float(point[0, 0, 1])

    # --- drawing -------------------------------------------------------------------------------

    def _top(self, rows: tuple[str, ...]) -> tuple[np.ndarray, float]:
        if rows not in self._tops:
            rng = np.random.default_rng(self.seed + 1)
            self._tops[rows] = render_topdown(
                list(rows), self.variant.layout.rows, self.style, self.r, rng, self.values,
                tile_seed=self.seed,
            )  # fmt: skip
        return self._tops[rows]

    def _board_layer(self, rows: tuple[str, ...], view: int) -> np.ndarray:
        """The board on the table as the camera sees it (BGR float, before light and noise),
        cached: a frame of the same board and view differs only in what covers it."""
        key = (rows, view)
        if key not in self._warped:
            top, origin = self._top(rows)
            board, _, centre = self._board_points(origin, top.shape)
            scale = self.cell_in_photo / self.r
            dst = _projection(self.poses[view], self.size, board, scale).astype(np.float32)
            matrix = cv2.getPerspectiveTransform(board + centre, dst)
            # The room's light falls on the board, not on the frame: it moves with the board.
            light = cv2.resize(self.board_light, (top.shape[1], top.shape[0]))[..., None]
            bgr = np.clip(cv2.cvtColor(top, cv2.COLOR_RGB2BGR) * light, 0, 255).astype(np.uint8)
            w, h = self.size
            warped = cv2.warpPerspective(bgr, matrix, (w, h), flags=cv2.INTER_AREA)
            full = np.full(top.shape[:2], 255, np.uint8)
            mask = (cv2.warpPerspective(full, matrix, (w, h)).astype(np.float32) / 255)[..., None]
            # The board hides the table under it and casts a soft shadow beside it.
            cell = self.cell_in_photo
            shadow = cv2.GaussianBlur(
                np.roll(mask[..., 0], (int(cell * 0.3),) * 2, (0, 1)), (0, 0), cell * 0.3 + 1
            )[..., None]
            table = self.table.astype(np.float32) * (1 - 0.4 * shadow)
            self._warped[key] = table * (1 - mask) + warped.astype(np.float32) * mask
            if len(self._warped) > 64:
                self._warped.pop(next(iter(self._warped)))
        return self._warped[key]

    def _glare(self, glare: Glare) -> np.ndarray:
        """A glare's light (h, w, 1), cached (a lamp stays where it is for many frames); blurred
        at a quarter of the frame's size, as a soft spot loses nothing by it."""
        if glare not in self._glares:
            w, h = self.size
            spot = np.zeros((h // SOFT, w // SOFT), np.float32)
            cx, cy = glare.centre
            cv2.circle(spot, (int(cx / SOFT), int(cy / SOFT)), int(glare.radius / SOFT), 1.0, -1)
            spot = cv2.GaussianBlur(spot, (0, 0), glare.radius * 0.6 / SOFT)
            spot = cv2.resize(spot, (w, h), interpolation=cv2.INTER_LINEAR)
            self._glares = {glare: glare.strength * spot[..., None]}
        return self._glares[glare]

    def _hand(self, img: np.ndarray, hand: Hand, rng: np.random.Generator) -> np.ndarray:
        """Draw an arm from the frame's edge to the fingertips, with shading and a shadow."""
        w, h = self.size
        tip = np.float32(hand.tip)
        entry = {
            0: (tip[0] + rng.normal(0, w * 0.05), -40.0),
            1: (w + 40.0, tip[1] + rng.normal(0, h * 0.05)),
            2: (tip[0] + rng.normal(0, w * 0.05), h + 40.0),
            3: (-40.0, tip[1] + rng.normal(0, h * 0.05)),
        }[hand.side]
        entry = np.float32(entry)
        cell = self.cell_in_photo
        along = tip - entry
        length = float(np.hypot(*along)) or 1.0
        unit = along / length
        normal = np.float32([-unit[1], unit[0]])
        width_arm, width_hand = cell * 2.4, cell * 2.0
        palm = tip - unit * cell * 1.6
        arm = np.array(
            [
                entry + normal * width_arm / 2,
                palm + normal * width_hand / 2,
                tip + normal * width_hand * 0.3,
                tip - normal * width_hand * 0.3,
                palm - normal * width_hand / 2,
                entry - normal * width_arm / 2,
            ],
            np.int32,
        )
        mask = np.zeros((h, w), np.float32)
        cv2.fillPoly(mask, [arm], 1.0)
        cv2.ellipse(
            mask,
            (int(palm[0]), int(palm[1])),
            (int(cell * 1.3), int(cell * 1.1)),
            math.degrees(math.atan2(unit[1], unit[0])),
            0,
            360,
            1.0,
            -1,
        )
        for k in (-0.6, -0.2, 0.2, 0.6):
            base = palm + normal * width_hand * k * 0.8
            end = tip + normal * width_hand * k * 0.5 - unit * cell * abs(k) * 0.8
            cv2.line(mask, tuple(map(int, base)), tuple(map(int, end)), 1.0, int(cell * 0.45))
        # Only the arm, its shadow and their blur's reach are drawn: the rest of the frame stays.
        x, y, bw, bh = cv2.boundingRect((mask > 0).astype(np.uint8))
        reach = int(cell * 4)
        x0, y0 = max(0, x - reach), max(0, y - reach)
        x1, y1 = min(w, x + bw + reach), min(h, y + bh + reach)
        if x1 <= x0 or y1 <= y0:
            return img
        mask = cv2.GaussianBlur(mask[y0:y1, x0:x1], (0, 0), 1.5)
        ch, cw = mask.shape
        small = cv2.resize(
            mask, (max(1, cw // SOFT), max(1, ch // SOFT)), interpolation=cv2.INTER_AREA
        )
        small = np.roll(small, (int(cell * 0.8 / SOFT), int(cell * 0.5 / SOFT)), (0, 1))
        shadow = cv2.resize(
            cv2.GaussianBlur(small, (0, 0), cell / SOFT), (cw, ch), interpolation=cv2.INTER_LINEAR
        )
        # Shading across the arm: lit from one side, darker at the other edge.
        xx = np.arange(x0, x1, dtype=np.float32)[None, :]
        yy = np.arange(y0, y1, dtype=np.float32)[:, None]
        across = ((xx - entry[0]) * normal[0] + (yy - entry[1]) * normal[1]) / width_arm
        shade = 0.85 + 0.25 * np.clip(across + 0.5, 0, 1)
        skin = self.skin * shade[..., None] * float(rng.uniform(0.95, 1.05))
        out = img.copy()
        crop = img[y0:y1, x0:x1] * (1 - 0.45 * shadow[..., None])
        out[y0:y1, x0:x1] = crop * (1 - mask[..., None]) + skin * mask[..., None]
        return out

    def render(self, shot: Shot, seed: int, quality: int = 85) -> bytes:
        """The JPEG of one frame."""
        rng = np.random.default_rng((self.seed, seed))
        rows = tuple(photo_rows(shot.board, self.variant.blank_symbol))
        img = self._board_layer(rows, shot.view)
        if shot.glare is not None:
            img = img + self._glare(shot.glare)
        if shot.hand is not None:
            img = self._hand(img, shot.hand, rng)
        img = img * (self.light * (self.exposure * float(rng.uniform(0.99, 1.01))))
        # Sensor noise: a window of the scene's noise field at a random offset (drawing it anew
        # for every frame would cost more than all the rest of the frame).
        dy, dx = (int(v) for v in rng.integers(0, NOISE_SHIFT, 2))
        h, w = img.shape[:2]
        img += self.noise[dy : dy + h, dx : dx + w]
        ok, encoded = cv2.imencode(
            ".jpg", np.clip(img, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, quality]
        )
        assert ok
        return encoded.tobytes()


# --- scripts of whole games -------------------------------------------------------------------


def _seat_side(player: int, players: int) -> int:
    """The frame edge a player's hand comes from: across the table from each other, then the
    two other sides."""
    return (2, 0, 3, 1)[player % 4] if players > 2 else (2, 0)[player % 2]


def _approach(scene: TableScene, side: int, target: tuple[float, float]) -> tuple[float, float]:
    """A point between the frame's edge `side` and `target`: the hand coming in or leaving."""
    w, h = scene.size
    x, y = target
    edge = {0: (x, 0.0), 1: (float(w), y), 2: (x, float(h)), 3: (0.0, y)}[side]
    return (0.5 * (x + edge[0]), 0.5 * (y + edge[1]))


def game_script(
    game: Game,
    scene: TableScene,
    rng: np.random.Generator,
    still: int = 4,
    glare: float = 0.15,
    nudge: float = 0.1,
    gaps: float = 0.3,
    start: int = 0,
) -> Iterator[Shot]:
    """Frames of `game` played in front of `scene`'s camera, a second apart: the empty board,
    then for each play a hand reaching in, the tiles laid one by one under it (the hand lifted
    off the board for one frame between two tiles with probability `gaps`), the hand leaving and
    `still` frames of the board as it now is (from event `start` on: the events before it are on
    the board from the first frame, a camera set up in the middle of a game); a withdrawn play's tiles taken back the same way;
    a pass or exchange a hand hovering and leaving nothing changed, then sent through its
    endpoint, as other events (failed challenge, end) are. Before a turn a lamp's glare comes or
    goes with probability `glare`, and the phone is knocked to a new view with probability
    `nudge` (a frame of it moving, then the new view)."""
    board = Game(game.variant, game.players, game.events[:start]).state.board
    view, lamp = 0, None
    pending: list[Event] = []
    for _ in range(still):
        yield Shot(board, view=view)
    for index, event in enumerate(game.events):
        if index < start:
            continue
        if not isinstance(event, Play | ChallengeWithdrawn):
            pending.append(event)
            if isinstance(event, Pass | Exchange):
                # A hand hovers over the board and leaves: nothing changes on it.
                side = _seat_side(event.player, len(game.players))
                target = scene.square_centre(*map(int, rng.integers(3, 12, 2)), view)
                yield Shot(board, Hand(side, _approach(scene, side, target)), lamp, view)
                yield Shot(board, Hand(side, target), lamp, view)
                for _ in range(2):
                    yield Shot(board, None, lamp, view)
            continue
        before, pending = tuple(pending), []
        if rng.random() < glare:
            lamp = None if lamp else _random_glare(scene, rng)
            yield Shot(board, None, lamp, view, before=before)
            before = ()
            for _ in range(2):
                yield Shot(board, None, lamp, view)
        if rng.random() < nudge and view + 1 < len(scene.poses):
            # The phone knocked: the next frames show the board from a new view.
            view += 1
            yield Shot(board, None, lamp, view, before=before)
            before = ()
            for _ in range(2):
                yield Shot(board, None, lamp, view)
        if isinstance(event, Play):
            player = event.player
            after = board.place({p.square: p.tile for p in event.play.placements})
            squares = [p.square for p in event.play.placements]
        else:
            player = event.player
            last = Game(game.variant, game.players, game.events[:index]).state.last_play
            assert last is not None
            squares = [p.square for p in last.play.placements]
            after = board.place(dict.fromkeys(squares))
        side = _seat_side(player, len(game.players))
        first = scene.square_centre(*squares[0], view)
        yield Shot(board, Hand(side, _approach(scene, side, first)), lamp, view, before=before)
        shown = board
        for number, square in enumerate(squares):
            yield Shot(shown, Hand(side, scene.square_centre(*square, view)), lamp, view)
            shown = shown.place({square: after.get(*square)})
            if number + 1 < len(squares) and rng.random() < gaps:
                yield Shot(shown, None, lamp, view)
        last_square = scene.square_centre(*squares[-1], view)
        yield Shot(after, Hand(side, _approach(scene, side, last_square)), lamp, view)
        board = after
        yield Shot(board, None, lamp, view, turn=index)
        for _ in range(still - 1):
            yield Shot(board, None, lamp, view)
    if pending:
        yield Shot(board, None, lamp, view, before=tuple(pending))


def _random_glare(scene: TableScene, rng: np.random.Generator) -> Glare:
    corners = scene.grid_corners()
    low, high = corners.min(0), corners.max(0)
    centre = rng.uniform(low + 0.2 * (high - low), high - 0.2 * (high - low))
    radius = scene.cell_in_photo * float(rng.uniform(0.8, 1.8))
    return Glare((float(centre[0]), float(centre[1])), radius, float(rng.uniform(40, 90)))
