"""A table camera's frames as vision sees them: where the grid is in a phone's stream and how each
square looks, cheaply enough for a frame a second, so that the cell model runs only once a changed
board has held still (`scorer.table_camera` decides when).

A `FrameLooker` (one per camera) finds the grid once and keeps it while it still fits: locating
costs over 100 ms a frame, warping a frame onto the grid found before about one. Each frame is
warped onto the grid with a ring of one square around it (the board's frame and the table next to
it, which an arm reaching in crosses and new tiles do not), and each square shrunk to a few pixels
of colour; two frames are compared at one exposure (`comparable`), so a camera's exposure drifting
is not a change. A square whose look differs from the previous frame's is moving; one that
differs from the last settled board's (the position of the last turn) is changed, unless its look
is the settled one in other light (a lamp's glare brightening it, a shadow dimming it: `relit`),
since light lays no tile. Moving still counts light: where a hand was is not judged by it (on
rendered games, leaving light out of it hid a play laid in glare from the squares the hand was
over, and two plays then came out of order). When a frame holds still and some squares
have changed, the grid is found again (the phone may have been moved) and kept if the board then
looks more as settled, so a nudged phone makes no turn and a play is read on the grid where it
now is; where the locator finds no grid (a board so bright that its lines do not show), the
frame is matched to a thumbnail of the settled one (`cv2.findTransformECC`, a homography) and
the grid moved with it. A square whose look is mostly clipped (a lamp's highlight, a board overexposed) is
unknown: a pale tile laid there shows only its letter's strokes, if that, so that it cannot be
told from its square, and no difference there says that nothing changed. The squares a hand
moved over since the board last settled (or was last read) are kept too: only there can a tile
have been laid; a hand reaches in across the ring, so squares that moved while nothing moved or
lay across it moved in the light only (a lamp coming on), and count as no hand's. A looker's
state is a few arrays (`dump`, `restore`), kept by the server between frames so that any of its
processes takes a camera's next frame.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import cv2
import numpy as np

from scorer.board import Square
from scorer.variant import Variant
from vision.decode import decode_photo
from vision.locate import BoardNotFound
from vision.pipeline import locate_photo

LOOK_PX = 8  # a square's look: LOOK_PX x LOOK_PX colour pixels, enough to keep a letter's strokes
WARP_PX = 16  # pixels per square of the warp the looks are shrunk from
RING = 1  # squares of margin around the grid in the look
MOVED = 0.25  # a grid found again this far (in squares) from the one kept: the phone moved
CHANGED = 20.0  # difference (the grid's median colour at 128: `comparable`) of a changed square
CLIPPED = 250  # a pixel channel this bright is clipped: the sensor saw white, not the colour
BLIND = 0.5  # a square whose look is clipped this much hides what lies on it (unknown, not same)
# The darkest median colour differences are reckoned against: dividing a dark board's colour (a
# maroon board's blue at 11 of 255) up to 128 multiplied its sensor noise and JPEG by ten, past
# `CHANGED`, so that a still board moved in every frame.
DARKEST = 32.0
_DARK_RATIO = 4.0  # pixels this dark give no ratio of exposures (their noise is most of them)
_FEWEST_USABLE = 0.05  # share of a grid's pixels that must give a ratio, else no gain is taken
ANCHOR_PX = 320  # width of the grey thumbnail of the settled frame a knocked phone is matched to
# A square's look that is its earlier look in other light (a lamp's glare brightening it, a shadow
# dimming it): its pixels' lightness is a straight line of the earlier one's, correlated at least
# `RELIT_CORRELATION`, off that line by at most `RELIT_RESIDUAL` of how much the look changed.
# On rendered table-camera games (5 games, 2190 changed squares) the 1098 changes by a tile laid or
# taken had residuals of 0.25 of the change or more, and 0.59 or more where correlated at 0.5;
# 260 of the 892 squares changed by glare over still tiles are within both (the rest clipped or
# blurred past a straight line: those stay changed, and the reading decides).
RELIT_CORRELATION = 0.5
RELIT_RESIDUAL = 0.3
# Light changes a square's contrast by at most this factor either way between two still frames
# at one exposure (a lamp's glare over a board's squares: 0.68 to 1.12). A plain blank tile's faint
# shading and the bare square under it, correlated at 0.84 by a neighbour's shadow, were a
# straight line of each other at a slope of 3.
RELIT_CONTRAST = 2.0
_RIM = 1  # look pixels at each side of a square where its grid lines are (not judged by `relit`)


@dataclass(frozen=True)
class FrameView:
    """What one frame shows. `found` False: no board (and nothing else is set). `moving`: the
    squares (ring included) that differ from the previous frame; `changed`: the grid's squares
    (row, col as seen) that differ from the settled board, None before anything was settled;
    `edge`: squares of the ring around the grid unlike the settled board's (an arm across it);
    `corners`: the grid in the frame's full-size pixels (TL, TR, BR, BL as seen); `refound`:
    the grid was found (again) in this frame; `moved`: in this frame or one since the settled
    board, so the camera sees the board from elsewhere than when it settled, and `changed` says
    where the view differs, not where tiles may be."""

    found: bool
    moving: int = 0
    changed: frozenset[Square] | None = None
    edge: int = 0
    corners: list[list[float]] | None = None
    refound: bool = False
    moved: bool = False
    unknown: frozenset[Square] = frozenset()
    """Grid squares (as seen) too clipped in this frame for a change there to show."""
    touched: frozenset[Square] = frozenset()
    """Grid squares (as seen) that moved in a frame since the last `settle` or `read_done`."""


def square_looks(
    image: np.ndarray, corners: np.ndarray, rows: int, cols: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each square's look, ring included: (rows + 2·RING, cols + 2·RING, LOOK_PX²·3) float32
    (0..255; `comparable` brings two frames' looks to one exposure), and the grid's squares
    (rows, cols) whose look is clipped (`BLIND` of its pixels with every channel at `CLIPPED` or
    over)."""
    side_x, side_y = (cols + 2 * RING) * WARP_PX, (rows + 2 * RING) * WARP_PX
    inner = np.float32(
        [
            [RING * WARP_PX, RING * WARP_PX],
            [(RING + cols) * WARP_PX, RING * WARP_PX],
            [(RING + cols) * WARP_PX, (RING + rows) * WARP_PX],
            [RING * WARP_PX, (RING + rows) * WARP_PX],
        ]
    )
    matrix = cv2.getPerspectiveTransform(np.float32(corners), inner)
    warped = cv2.warpPerspective(
        image, matrix, (side_x, side_y), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )
    small = cv2.resize(
        warped,
        ((cols + 2 * RING) * LOOK_PX, (rows + 2 * RING) * LOOK_PX),
        interpolation=cv2.INTER_AREA,
    ).astype(np.float32)
    grid = small[RING * LOOK_PX : -RING * LOOK_PX, RING * LOOK_PX : -RING * LOOK_PX]
    clipped = (grid >= CLIPPED).all(axis=-1).reshape(rows, LOOK_PX, cols, LOOK_PX).mean((1, 3))
    looks = small.reshape(rows + 2 * RING, LOOK_PX, cols + 2 * RING, LOOK_PX, 3)
    looks = looks.transpose(0, 2, 1, 3, 4).reshape(rows + 2 * RING, cols + 2 * RING, -1)
    return looks, clipped >= BLIND


def comparable(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two frames' looks (`square_looks`) at one exposure and scale: `b` times the gain that
    makes it `a`'s exposure, per channel the median ratio of their grid's pixels (neither dark
    nor clipped), and both divided by `a`'s grid's median colour (×128, but by `DARKEST` at
    least), in which `CHANGED` is reckoned.

    Why a ratio between the two frames, not each frame divided by its own median: on a dark board
    the median of 8-bit pixels lies at the edge of the squares' dark mode, so it stepped by a grey
    level from frame to frame (35 or 36), and moved with every few tiles laid, which moved every
    pale square by 3 % of its light (past `CHANGED`). The median of the ratios is as robust (an
    arm and its shadow over a third of the board change a third of the ratios) and does not step.
    """
    inner = (slice(RING, -RING), slice(RING, -RING))
    pa, pb = a[inner].reshape(-1, 3), b[inner].reshape(-1, 3)
    gain = np.ones(3, np.float32)
    for channel in range(3):
        x, y = pa[:, channel], pb[:, channel]
        usable = (x > _DARK_RATIO) & (y > _DARK_RATIO) & (x < CLIPPED) & (y < CLIPPED)
        if usable.mean() >= _FEWEST_USABLE:
            gain[channel] = np.median(x[usable] / y[usable])
    scale = 128.0 / np.maximum(np.median(pa, axis=0), DARKEST)
    pixels = a.shape[-1] // 3  # a look's last axis is its pixels' channels, pixel by pixel
    return a * np.tile(scale, pixels), b * np.tile(gain * scale, pixels)


def relit(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per square, whether look `b` is look `a` in other light: the lightness of its pixels a
    straight line of `a`'s (see `RELIT_CORRELATION`). A tile laid on a square hides the square's
    print and grain and shows its own edges and letter, which no change of light does; a
    uniform square keeps nothing a line could follow (no correlation), and light neither halves
    nor doubles a pattern's contrast (`RELIT_CONTRAST`), so such changes are never taken for
    light. Only the inside of each look is compared: the grid lines at its rim stay in
    view beside a tile as beside an empty square, so on a dark board with pale lines they alone
    made a tile taken off it (and the tile laid) a straight line of each other."""
    shape = a.shape[:-1]

    def inside(look: np.ndarray) -> np.ndarray:
        pixels = look.reshape(*shape, LOOK_PX, LOOK_PX, 3)[..., _RIM:-_RIM, _RIM:-_RIM, :]
        return pixels.mean(axis=-1).reshape(*shape, -1)

    la, lb = inside(a), inside(b)
    da, db = la - la.mean(axis=-1, keepdims=True), lb - lb.mean(axis=-1, keepdims=True)
    va, vb = (da * da).mean(axis=-1), (db * db).mean(axis=-1)
    correlation = (da * db).mean(axis=-1) / np.sqrt(np.maximum(va * vb, 1e-12))
    # The residual of the least-squares line, against the root-mean-square change of the look.
    residual = np.sqrt(np.maximum(vb * (1 - correlation**2), 0.0))
    change = np.sqrt(((lb - la) ** 2).mean(axis=-1))
    # The line's slope: how light changed the look's contrast (at one exposure, `comparable`).
    slope = correlation * np.sqrt(vb / np.maximum(va, 1e-12))
    light = (slope >= 1 / RELIT_CONTRAST) & (slope <= RELIT_CONTRAST)
    return (correlation >= RELIT_CORRELATION) & (residual <= RELIT_RESIDUAL * change) & light


def unlike(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per square, whether a frame's looks differ from the settled board's by more than light:
    by `CHANGED` or more (`look_difference`) and not `relit`."""
    a, b = comparable(a, b)
    return (_difference(a, b) > CHANGED) & ~relit(a, b)


def look_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per square, how unlike two frames' looks are: the mean of the largest quarter of the
    absolute differences of its pixels' colours, so a pale tile's letter on a pale square counts
    (its strokes cover a fifth of the square) while sensor noise and JPEG, spread thin, do not.
    Reckoned at one exposure (`comparable`)."""
    return _difference(*comparable(a, b))


def _difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    diff = np.abs(a - b)
    quarter = diff.shape[-1] // 4
    return np.partition(diff, diff.shape[-1] - quarter, axis=-1)[..., -quarter:].mean(axis=-1)


def board_squares(
    seen: frozenset[Square], rotation: int, shape: tuple[int, int]
) -> frozenset[Square]:
    """Squares of the grid as a frame shows it (`shape` rows x cols as seen), as the board's: a
    reading turns the grid `rotation` quarter-turns clockwise to make its tiles upright.

    >>> sorted(board_squares(frozenset({(0, 0), (0, 14)}), 1, (15, 15)))
    [(0, 14), (14, 14)]
    """
    out = set()
    for row, col in seen:
        (r, c), (height, width) = (row, col), shape
        for _ in range(rotation % 4):
            (r, c), (height, width) = (c, height - 1 - r), (width, height)
        out.add((r, c))
    return frozenset(out)


def thumbnail(image: np.ndarray) -> tuple[np.ndarray, float]:
    """A frame in grey, `ANCHOR_PX` wide, and its pixels per frame pixel."""
    factor = ANCHOR_PX / image.shape[1]
    size = (ANCHOR_PX, max(1, round(image.shape[0] * factor)))
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    return cv2.resize(grey, size, interpolation=cv2.INTER_AREA), factor


class FrameLooker:
    """One camera's view of one board: the grid it keeps, the previous frame's looks and the
    settled board's. Not thread-safe: one frame at a time per looker."""

    def __init__(self, variant: Variant) -> None:
        """A looker of boards of `variant` that has not found the grid yet."""
        self.variant = variant
        self.tried = False  # the grid was looked for again since something last moved
        self.moved = False  # the grid was found elsewhere since the settled board
        self.corners: np.ndarray | None = None  # in the decoded frame's pixels
        self.shape = (variant.layout.height, variant.layout.width)
        self.previous: np.ndarray | None = None
        self.settled: np.ndarray | None = None
        self.current: np.ndarray | None = None
        self.touched: set[Square] = set()
        self.scale = 1.0
        # The last frame looked at (not kept between frames), and the settled frame's grey
        # thumbnail with the grid then.
        self.image: np.ndarray | None = None
        self.anchor: np.ndarray | None = None
        self.anchor_corners: np.ndarray | None = None
        self.anchor_factor = 1.0

    def _locate(self, image: np.ndarray) -> bool:
        try:
            location, shape = locate_photo(image, self.variant)
        except BoardNotFound:
            return False
        self.corners, self.shape = location.corners.astype(np.float32), shape
        return True

    def _unlike_settled(self, looks: np.ndarray) -> np.ndarray | None:
        """Per square, ring included, whether `looks` are `unlike` the settled board's (None
        before one settled): computed once per look, since the grid's squares (`_changed`) and
        the ring's (`_edge`) both come of it."""
        if self.settled is None or self.settled.shape != looks.shape:
            return None
        return unlike(looks, self.settled)

    @staticmethod
    def _changed(differs: np.ndarray | None) -> frozenset[Square] | None:
        """The grid's squares (as seen) that `_unlike_settled` found changed."""
        if differs is None:
            return None
        inner = differs[RING:-RING, RING:-RING]
        return frozenset((int(r), int(c)) for r, c in zip(*np.nonzero(inner), strict=True))

    @staticmethod
    def _edge(differs: np.ndarray | None) -> int:
        """The squares of the ring around the grid that `_unlike_settled` found changed (an arm
        across it; 0 before a board settled)."""
        if differs is None:
            return 0
        return int(differs.sum() - differs[RING:-RING, RING:-RING].sum())

    def look(self, data: bytes) -> FrameView:
        """Look at a frame's bytes (raises `vision.decode.PhotoError` for bytes that are no
        image)."""
        photo = decode_photo(data)
        self.scale = photo.scale
        image = photo.image
        self.image = image
        refound = False
        if self.corners is None:
            if not self._locate(image):
                self.previous = None
                return FrameView(found=False)
            refound = True
        looks, blind = square_looks(image, self.corners, *self.shape)
        differs = self._unlike_settled(looks)
        if self.previous is None or self.previous.shape != looks.shape:
            moving = looks.shape[0] * looks.shape[1]
        else:
            moved = look_difference(looks, self.previous) > CHANGED
            moving = int(moved.sum())
            inner = moved[RING:-RING, RING:-RING]
            # A hand reaches in across the board's edge: squares that moved while nothing
            # moved or lay across the ring changed in the light only (a lamp coming on).
            if moving > inner.sum() or self._edge(differs):
                self.touched.update(
                    (int(r), int(c)) for r, c in zip(*np.nonzero(inner), strict=True)
                )
        changed = self._changed(differs)
        if moving:
            self.tried = False
        elif not refound and not self.tried and changed:
            # Still, and unlike the settled board: tiles laid, or the phone moved (or the board
            # taken away). A nudge of half a square changes fewer squares than a move on a board
            # still mostly empty (its empty squares look alike), so the grid is looked for again
            # whatever the count, once until something moves, and kept when the board then looks
            # more as settled: reading on the grid of before would read every square askew.
            self.tried = True
            refound = self._refind(image, changed)
            if self.corners is None:
                self.previous = None
                return FrameView(found=False)
            if refound:
                looks, blind = square_looks(image, self.corners, *self.shape)
                differs = self._unlike_settled(looks)
                changed = self._changed(differs)
                # What moved was the view, not a hand: no square was touched by it.
                self.touched = set()
        self.previous = self.current = looks
        self.moved = self.moved or (refound and self.settled is not None)
        edge = self._edge(differs)
        unknown = frozenset((int(r), int(c)) for r, c in zip(*np.nonzero(blind), strict=True))
        return FrameView(
            True,
            moving,
            changed,
            edge,
            self.full_size_corners(),
            refound,
            self.moved,
            unknown,
            frozenset(self.touched),
        )

    def _refind(self, image: np.ndarray, changed: frozenset[Square]) -> bool:
        """Look for the grid again; True when it was moved, by more than `MOVED` of a square, to
        where fewer squares look changed (`corners` None: no board any more). A grid found
        within that of where it was is the same grid: it is left as it was. When none is found
        (the locator fails under some glare and views), the board is gone only if most of its
        squares changed; else the grid stays where it was."""
        old = self.corners, self.shape
        assert old[0] is not None
        square = np.linalg.norm(old[0][1] - old[0][0]) / old[1][1]

        def better(corners: np.ndarray) -> bool:
            shift = float(np.linalg.norm(corners - old[0], axis=1).mean())
            again = self._changed(
                self._unlike_settled(square_looks(image, corners, *self.shape)[0])
            )
            return shift > MOVED * square and again is not None and len(again) < len(changed)

        if not self._locate(image):
            matched = self._matched()
            if matched is not None and better(matched):
                self.corners = matched
                return True
            if len(changed) * 2 > old[1][0] * old[1][1]:
                self.corners = None
            return False
        assert self.corners is not None
        if better(self.corners):
            return True
        self.corners, self.shape = old
        return False

    def _matched(self) -> np.ndarray | None:
        """The grid of the settled frame carried onto this one by matching the board in their
        thumbnails (a homography by `cv2.findTransformECC`, coarse to fine, on the board and a
        ring around it only: what lies beyond need not move with it); None when there is
        nothing to match or it does not converge."""
        if self.anchor is None or self.anchor_corners is None or self.image is None:
            return None
        this, factor = thumbnail(self.image)
        if self.anchor.shape != this.shape:
            return None
        corners = (self.anchor_corners * self.anchor_factor).astype(np.float32)
        centre = corners.mean(axis=0)
        ring = centre + (corners - centre) * (1 + 2 * RING / max(self.shape))
        mask = np.zeros(self.anchor.shape, np.uint8)
        cv2.fillConvexPoly(mask, ring.astype(np.int32), 255)
        warp = np.eye(3, dtype=np.float32)  # this thumbnail's pixels to the anchor's
        criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 50, 1e-5)
        for level in (4, 2, 1):
            size = (self.anchor.shape[1] // level, self.anchor.shape[0] // level)
            small = cv2.resize(this, size, interpolation=cv2.INTER_AREA)
            anchor = cv2.resize(self.anchor, size, interpolation=cv2.INTER_AREA)
            where = cv2.resize(mask, size, interpolation=cv2.INTER_NEAREST)
            scale = np.diag([1.0 / level, 1.0 / level, 1.0]).astype(np.float32)
            guess = scale @ warp @ np.linalg.inv(scale)
            try:
                _, found = cv2.findTransformECC(
                    small, anchor, guess.astype(np.float32), cv2.MOTION_HOMOGRAPHY, criteria,
                    where, 3,
                )  # fmt: skip
            except cv2.error:
                return None
            warp = np.linalg.inv(scale) @ found @ scale
        moved = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), np.linalg.inv(warp))
        return moved.reshape(4, 2).astype(np.float32) / factor

    def full_size_corners(self) -> list[list[float]] | None:
        """The kept grid's corners in the full-size frame's pixels (as `read_board` takes them)."""
        if self.corners is None:
            return None
        return ((self.corners + 0.5) * self.scale - 0.5).tolist()

    def settle(self) -> None:
        """The board of the last frame looked at is the settled one (a turn was made of it)."""
        self.settled, self.moved = self.current, False
        self.touched = set()
        if self.image is not None and self.corners is not None:
            self.anchor, self.anchor_factor = thumbnail(self.image)
            self.anchor_corners = self.corners.copy()

    def read_done(self) -> None:
        """The board was read and nothing settled of it: the squares a hand moves over from now
        on are the next visit's."""
        self.touched = set()

    def dump(self) -> bytes:
        """What the next frame is compared with, as bytes (`restore` takes them back), so that
        another process may look at it: a JSON header (its length first: the grid and the
        arrays' shapes), then the previous frame's and the settled board's looks as float16 (a
        change is a difference of `CHANGED`, 20; float16 keeps a tenth), about 220 KB for a 15×15
        board, and the settled frame's thumbnail (uint8, about 77 KB). Raw buffers, not
        `np.savez`: four times faster, and this runs on every frame."""
        arrays = [(n, getattr(self, n)) for n in ("previous", "settled")]
        header = {
            "shape": list(self.shape),
            "tried": self.tried,
            "moved": self.moved,
            "scale": self.scale,
            "corners": None if self.corners is None else self.corners.tolist(),
            "touched": sorted([r, c] for r, c in self.touched),
            "looks": {n: list(a.shape) for n, a in arrays if a is not None},
            "anchor": None if self.anchor is None else list(self.anchor.shape),
            "anchor_corners": None if self.anchor_corners is None else self.anchor_corners.tolist(),
            "anchor_factor": self.anchor_factor,
        }
        text = json.dumps(header).encode()
        looks = [a.astype(np.float16).tobytes() for _, a in arrays if a is not None]
        anchor = [] if self.anchor is None else [self.anchor.astype(np.uint8).tobytes()]
        return b"".join([len(text).to_bytes(4, "big"), text, *looks, *anchor])

    @classmethod
    def restore(cls, variant: Variant, data: bytes) -> FrameLooker:
        """The looker `dump` gave `data` of (raises ValueError for bytes that are not one)."""
        looker = cls(variant)
        size = int.from_bytes(data[:4], "big")
        try:
            header = json.loads(data[4 : 4 + size])
            rows, cols = (int(v) for v in header["shape"])
            looker.tried, looker.scale = bool(header["tried"]), float(header["scale"])
            looker.moved = bool(header["moved"])
            looker.touched = {(int(r), int(c)) for r, c in header.get("touched", [])}
            corners = header["corners"]
            looker.corners = None if corners is None else np.float32(corners).reshape(4, 2)
            at = 4 + size
            for name, shape in header["looks"].items():
                if name not in ("previous", "settled"):
                    raise ValueError(f"unknown looks {name!r}")
                count = int(np.prod(shape))
                flat = np.frombuffer(data, np.float16, count, at)
                setattr(looker, name, flat.astype(np.float32).reshape(shape))
                at += 2 * count
            if header.get("anchor") is not None:
                shape = tuple(int(v) for v in header["anchor"])
                count = int(np.prod(shape))
                looker.anchor = np.frombuffer(data, np.uint8, count, at).reshape(shape).copy()
                looker.anchor_corners = np.float32(header["anchor_corners"]).reshape(4, 2)
                looker.anchor_factor = float(header["anchor_factor"])
        except (KeyError, TypeError, ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"not a frame looker's state: {exc}") from exc
        looker.shape, looker.current = (rows, cols), looker.previous
        return looker
