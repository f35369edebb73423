"""Fit and check a grid by its premium squares, block by block, for boards whose lines are too
faint to fit (wood print, no lines at all, thin pale print).

`vision.premium_grid.premium_grids` places such a grid by how alike the squares of each premium
kind look, within a candidate outline. That share of the colours explained is flat within a
quarter of a cell of the true grid, and one outline bent by something at the board's edge puts
one corner off while the rest fit. Here the grid is cut into 16 overlapping blocks of 7x7 cells; in a warp
of the current estimate each block's own best sub-cell offset is sought (the same measure, over
the block's squares only; the centre of the top of its peak, since windows inside squares
printed with a gap explain as much over a plateau of offsets), and a homography fitted by
RANSAC through the blocks' moved centres refines the grid, a few rounds. The grid is kept only
when the blocks agree: enough of them show their premium squares clearly and sit where the
fitted grid puts them, and the whole layout explains the colours clearly better there than with
the grid up to two cells away.

Hand-written: OpenCV and scikit-image match templates of known appearance; here only which
squares share a colour is known, not the colours.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibrate import OPPONENT
from vision.medians import median_deviations
from vision.pyramid import Pyramid, canonical_grid, warp_grid

_CELL = 18  # px per cell in the warp
_MARGIN = 3  # cells of warp around the grid, room for whole-cell shifts
_WHOLE = 2  # whole cells each way the grid is compared with
_STEP = 2  # px between the sub-cell offsets tried
_REACH = 14  # px: offsets from -_REACH to _REACH (three quarters of a cell)
_TRIM = 0.1  # share of a cell left out of its window on each side (lines, tile edges)
_BLOCK = 7  # cells per block side
_BLOCK_STARTS = (0, 3, 5, 8)  # first row / column of the blocks on a 15-cell side
_ROUNDS = 4
_SETTLED = 0.05  # cells: blocks moving less than this end the rounds
_TOP = 0.2  # share of a block's score range below its best that counts as its peak's top
# A block shows its premium squares when its best offset explains this much more of its colours
# than its worst one; spread below _MIN_SPREAD (grey levels per cell and channel) shows nothing.
MIN_PEAK = 0.08
_MIN_SPREAD = 3.0
# The blocks that must show their squares and agree on the grid (of 16 on a 15x15 board), the
# share of the blocks showing their squares that must agree, how far an agreeing one may sit
# from the fitted grid (cells), and how much more of the colour spread the layout must explain
# at the grid than with it up to `_WHOLE` cells away.
MIN_BLOCKS = 10
MIN_AGREEING = 0.75
MAX_RESIDUAL = 0.2
MIN_MARGIN = 0.05
# Blocks agreeing on a grid that something else must vouch for (`PremiumFit.partly_agreed`):
# two more than a homography needs.
_PARTLY = 6
# A grid that fills the outline it was found in (every whole-cell move would put a corner this
# share of a cell outside it) has its whole-cell position settled by the outline: the layout
# must still explain the colours there, by this share of `MIN_MARGIN`.
_OUTSIDE = 0.4
_FILLED_MARGIN = 0.5


@dataclass(frozen=True)
class PremiumFit:
    """A grid refined by its premium squares: corners (working-image px) and its checks."""

    corners: np.ndarray
    blocks: int  # blocks showing their premium squares
    agreeing: int  # of those, the blocks within `MAX_RESIDUAL` of where the fitted grid puts them
    moved: float  # largest distance of a corner from where the fit started, in cells
    proposed: float  # how far the blocks would move a corner further, in cells
    # Share of the whole grid's colour spread the layout explains, with the grid moved by
    # (dy, dx) whole cells from -_WHOLE to _WHOLE: (2·_WHOLE + 1)², unmoved in the middle.
    shifted: np.ndarray
    shape: tuple[int, int]  # the grid's rows and columns

    @property
    def score(self) -> float:
        """Share of the whole grid's colour spread the layout explains."""
        return float(self.shifted[_WHOLE, _WHOLE])

    @property
    def margin(self) -> float:
        """How much more the layout explains than with the grid one or two cells away."""
        others = np.delete(self.shifted.ravel(), _WHOLE * (self.shifted.shape[1] + 1))
        return self.score - float(others.max())

    @property
    def accepted(self) -> bool:
        """Whether the blocks agree on this grid (see the module's docstring)."""
        return self.agreed and self.margin >= MIN_MARGIN

    def accepted_within(self, outline: np.ndarray) -> bool:
        """Whether the blocks agree on this grid, found inside `outline` (working-image px, TL
        TR BR BL: the board's edge the search started from), and the layout explains clearly
        more of the colours here than at every whole-cell move that keeps the grid inside it.
        Where no move does (the grid fills its outline), the outline settles the whole-cell
        position, as an edition's frame does for a player; the layout must still explain the
        colours here better than elsewhere, by `_FILLED_MARGIN` of `MIN_MARGIN` (pale premium
        squares under a board of tiles explain little, but the blocks agree on where they are)."""
        if not self.agreed:
            return False
        rows, cols = self.shape
        grid = np.float32([[0, 0], [cols, 0], [cols, rows], [0, rows]])
        to_image = cv2.getPerspectiveTransform(grid, self.corners.astype(np.float32))
        sides = np.linalg.norm(self.corners - np.roll(self.corners, -1, axis=0), axis=1)
        tolerance = _OUTSIDE * float(sides.mean()) / ((rows + cols) / 2)
        contour = outline.astype(np.float32).reshape(-1, 1, 2)
        whole = np.arange(-_WHOLE, _WHOLE + 1)
        inside = np.zeros(self.shifted.shape, dtype=bool)
        for i, dy in enumerate(whole):
            for j, dx in enumerate(whole):
                moved = cv2.perspectiveTransform((grid + [dx, dy]).reshape(1, 4, 2), to_image)
                depth = min(
                    cv2.pointPolygonTest(contour, (float(x), float(y)), True) for x, y in moved[0]
                )
                inside[i, j] = depth >= -tolerance
        if not inside[_WHOLE, _WHOLE]:
            return self.accepted
        inside[_WHOLE, _WHOLE] = False
        if inside.any():
            return self.score - float(self.shifted[inside].max()) >= MIN_MARGIN
        return self.margin >= _FILLED_MARGIN * MIN_MARGIN

    @property
    def agreed(self) -> bool:
        """Whether enough blocks show their squares and sit where the fitted grid puts them."""
        return self.agreeing >= max(MIN_BLOCKS, MIN_AGREEING * self.blocks)

    @property
    def partly_agreed(self) -> bool:
        """Whether most of the blocks showing their squares sit where the fitted grid puts
        them, however few show (tiles cover the rest): a grid something else must vouch for."""
        return self.agreeing >= max(_PARTLY, MIN_AGREEING * self.blocks)


def _block_starts(count: int) -> list[int]:
    """First cell of each block along a side of `count` cells: blocks of `_BLOCK` cells
    overlapping by about half, the last one flush with the far side."""
    if count <= _BLOCK:
        return [0]
    scaled = [round(s * (count - _BLOCK) / (15 - _BLOCK)) for s in _BLOCK_STARTS]
    return sorted(set(scaled))


def _explained(
    means: np.ndarray, groups: np.ndarray, channel_axis: int
) -> tuple[np.ndarray, np.ndarray]:
    """Share of the colour spread that the squares' kinds explain, per offset: `means` is
    (..., squares) with the 3 channels on `channel_axis`, `groups` the squares' kinds as small
    ints, broadcast against `means`; returns it and the spread per square and channel."""
    spread = median_deviations(means).sum(axis=channel_axis)
    within = median_deviations(means, groups).sum(axis=channel_axis)
    return 1.0 - within / (spread + 1e-6), spread / (means.shape[-1] * 3)


def premium_fit(
    levels: Pyramid, corners: np.ndarray, layout: np.ndarray, rounds: int = _ROUNDS
) -> PremiumFit | None:
    """Refine `corners` (working-image px, TL TR BR BL) by the premium squares of `layout`
    (one code per square), block by block, up to `rounds` times (0: only measure how far the
    blocks would move it); None when too few blocks show their squares.

    `levels`: the colour working image's Gaussian pyramid (`vision.pyramid.Pyramid`).
    """
    fits = premium_rounds(levels, corners, layout)
    first = next(fits)
    return None if first is None else finish(fits, first, rounds)


def finish(
    fits: Iterator[PremiumFit | None], first: PremiumFit, rounds: int = _ROUNDS
) -> PremiumFit | None:
    """The fit after up to `rounds` more rounds of `fits` (`premium_rounds`), whose first round
    gave `first`: None when one of them finds too few blocks showing their squares."""
    fit: PremiumFit | None = first
    for fit in itertools.islice(fits, rounds):
        if fit is None:
            return None
    return fit


def premium_rounds(
    levels: Pyramid, corners: np.ndarray, layout: np.ndarray
) -> Iterator[PremiumFit | None]:
    """The rounds of `premium_fit`, one fit each, from `corners`, until the blocks settle (they
    move less than `_SETTLED`) or too few show their squares (None): a caller that looks at the
    first round before it decides to go on pays for it once."""
    rows, cols = layout.shape
    start = corners
    cell, margin = _CELL, _MARGIN * _CELL
    ideal, _, _ = canonical_grid(rows, cols, cell, margin)
    offsets = np.arange(-_REACH, _REACH + 1, _STEP)
    trim = int(round(_TRIM * cell))
    window = cell - 2 * trim
    blocks = [(r, c) for r in _block_starts(rows) for c in _block_starts(cols)]
    kinds = np.unique(layout, return_inverse=True)[1].reshape(rows, cols)
    # Each block's squares (indices into the grid's), and their kinds: all blocks at once.
    block = min(_BLOCK, rows), min(_BLOCK, cols)
    squares = np.arange(rows * cols).reshape(rows, cols)
    block_squares = np.stack(
        [squares[r : r + block[0], c : c + block[1]].ravel() for r, c in blocks]
    )
    block_kinds = kinds.ravel()[block_squares]
    whole = np.arange(-_WHOLE, _WHOLE + 1) * cell
    while True:
        canon, to_canon = warp_grid(levels, corners, rows, cols, cell, margin)
        # The mean colour of the window starting at each pixel.
        opponent = (canon.astype(np.float32) @ OPPONENT.T).astype(np.float64)
        box = cv2.boxFilter(opponent, -1, (window, window), anchor=(0, 0))

        def cell_means(dy: np.ndarray, dx: np.ndarray, box: np.ndarray = box) -> np.ndarray:
            """(len(dy), len(dx), 3, rows * cols) mean colours of the cells' windows moved by
            each offset."""
            y0 = margin + np.arange(rows) * cell + trim
            x0 = margin + np.arange(cols) * cell + trim
            ya = (y0[None, :] + dy[:, None]).ravel()
            xa = (x0[None, :] + dx[:, None]).ravel()
            # Whole rows, then columns of them: two gathers, not one per window; then the
            # channels before the squares, as the medians want them.
            means = np.take(box[ya], xa, axis=1).reshape(len(dy), rows, len(dx), cols, 3)
            return np.ascontiguousarray(means.transpose(0, 2, 4, 1, 3)).reshape(
                len(dy), len(dx), 3, rows * cols
            )

        fine = cell_means(offsets, offsets)
        coarse = cell_means(whole, whole)
        src, dst = [], []
        # (offset y, offset x, channel, block, square): every block's squares at once, each
        # block's squares contiguous (indexing would put them far apart), as the medians' sorts
        # of the squares want them.
        by_block = np.take(fine, block_squares, axis=-1)
        block_scores, block_spreads = _explained(by_block, block_kinds, 2)
        for b, (r, c) in enumerate(blocks):
            scores, spread = block_scores[:, :, b], block_spreads[:, :, b]
            if float(spread.mean()) < _MIN_SPREAD or scores.max() - scores.min() < MIN_PEAK:
                continue
            i, j = np.unravel_index(int(np.argmax(scores)), scores.shape)
            if i in (0, len(offsets) - 1) or j in (0, len(offsets) - 1):
                continue  # the best offset is at the edge of the search: no peak here
            # The centre of the peak's top: windows inside squares printed with a gap, or
            # trimmed, explain as much over a plateau of offsets.
            top = scores >= scores.max() - _TOP * (scores.max() - scores.min())
            top &= _connected(top, i, j)
            weights = top.astype(np.float64)
            dy = float((weights.sum(axis=1) * offsets).sum() / weights.sum())
            dx = float((weights.sum(axis=0) * offsets).sum() / weights.sum())
            centre = (margin + (c + _BLOCK / 2) * cell, margin + (r + _BLOCK / 2) * cell)
            src.append(centre)
            dst.append((centre[0] + dx, centre[1] + dy))
        if len(src) < 4:
            yield None
            return
        src_a, dst_a = np.float32(src), np.float32(dst)
        correction, _ = cv2.findHomography(src_a, dst_a, cv2.RANSAC, MAX_RESIDUAL * cell)
        if correction is None:
            yield None
            return
        moved = cv2.perspectiveTransform(src_a.reshape(1, -1, 2), correction).reshape(-1, 2)
        agreeing = int((np.linalg.norm(moved - dst_a, axis=1) <= MAX_RESIDUAL * cell).sum())
        shift = float(np.linalg.norm(dst_a - src_a, axis=1).max()) / cell
        grid_scores, _ = _explained(coarse, kinds.ravel(), 2)
        total = np.linalg.inv(to_canon) @ correction
        corrected = cv2.perspectiveTransform(ideal.reshape(1, 4, 2), total).reshape(4, 2)
        cell_px = float(np.linalg.norm(start - np.roll(start, -1, axis=0), axis=1).mean()) / rows
        yield PremiumFit(
            corners,
            len(src),
            agreeing,
            moved=float(np.linalg.norm(corners - start, axis=1).max()) / cell_px,
            proposed=float(np.linalg.norm(corrected - corners, axis=1).max()) / cell_px,
            shifted=grid_scores,
            shape=(rows, cols),
        )
        if shift < _SETTLED:
            return
        corners = corrected.astype(np.float64)


def _connected(mask: np.ndarray, i: int, j: int) -> np.ndarray:
    """The part of boolean `mask` connected to (i, j)."""
    _, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=4)
    return labels == labels[i, j]
