"""Where the premium squares put a board's grid: whole-cell moves of a grid fitted to its lines
(`premium_shift`), a grid found inside a candidate outline from its premium squares alone
(`premium_grids`), for boards whose lines are too faint to fit, and how clearly the squares a
reading leaves free of tiles show the layout at a grid (`vacant_margin`).

All three score a grid by the share of the cells' colour spread that the variant's layout explains:
squares of one premium kind look alike, whatever colours an edition prints them in. Tiles cover
squares of every kind alike, so they lower every position's score but favour none.
Hand-written: no library scores a lattice by which of its cells share a colour.
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.calibrate import OPPONENT
from vision.medians import median_deviations

_PREMIUM_REACH = 2  # whole cells the premium check may move the grid by, each way
_SHIFT_CELL = 12  # px per cell in the warp the whole-cell moves are scored in
# A premium-based move must explain this much more of the colour spread, and this many times as
# much (blue tiles pass for blue premium squares on a busy Эрудит board); a position explaining
# `_PREMIUM_DOUBT` times as much, but not enough to move there, makes the grid doubtful.
_PREMIUM_MARGIN = 0.05
_PREMIUM_MOVE = 2.0
_PREMIUM_DOUBT = 1.5
# The premium-square search for boards without visible lines: a square warp of each candidate
# outline this many px wide, and insets (the frame's width) up to this fraction of the outline's
# side on each axis, in this many steps.
_PREMIUM_SEARCH_SIDE = 240
_PREMIUM_MAX_INSET = 0.1
_PREMIUM_STEPS = 41
# The even insets are searched at every other step first, and beside the best few of those.
_COARSE_PEAKS = 3
# Then each side alone, up to this fraction either way, in this many steps each way.
_PREMIUM_FINE = 0.02
_PREMIUM_FINE_STEPS = 5
# Mean spread of cell colours (per cell and channel) below which a region shows no squares.
_PREMIUM_MIN_SPREAD = 3.0
DOUBTFUL = np.zeros((4, 2))  # sentinel: the premium squares put the grid elsewhere


def premium_shift(colour: np.ndarray, corners: np.ndarray, layout: np.ndarray):
    """Corners moved by whole cells when that makes squares of the same premium look much more
    alike; None when the grid already sits best where it is; `DOUBTFUL` when another position
    fits the premium squares clearly better, but not by enough to move there.

    `layout` holds one code per square. Tiles cover squares of every kind alike, so they lower
    every shift's score but do not favour a wrong one.
    """
    rows, cols = layout.shape
    cell, reach = _SHIFT_CELL, _PREMIUM_REACH
    canon, to_canon, ideal = _reach_warp(colour, corners, rows, cols)
    lab = cv2.cvtColor(canon, cv2.COLOR_BGR2LAB).astype(np.float32)
    means = _cell_means(lab, rows, cols)
    shifts = [(dx, dy) for dy in range(-reach, reach + 1) for dx in range(-reach, reach + 1)]
    windows = np.stack(
        [means[reach + dy : reach + dy + rows, reach + dx : reach + dx + cols] for dx, dy in shifts]
    )  # (shifts, rows, cols, 3)
    values = np.swapaxes(windows.reshape(len(shifts), rows * cols, 3), 1, 2)
    total = median_deviations(values).sum(axis=1)
    kinds = np.unique(layout, return_inverse=True)[1].ravel()
    within = median_deviations(values, kinds).sum(axis=1)
    scores = dict(zip(shifts, 1.0 - within / (total + 1e-6), strict=True))
    (dx, dy), best = max(scores.items(), key=lambda item: item[1])
    if (dx, dy) == (0, 0):
        return None
    if best < max(scores[0, 0] + _PREMIUM_MARGIN, _PREMIUM_MOVE * scores[0, 0]):
        return DOUBTFUL if best > _PREMIUM_DOUBT * scores[0, 0] + 0.01 else None
    moved = ideal + np.float32([dx * cell, dy * cell])
    back = cv2.perspectiveTransform(moved.reshape(1, 4, 2), np.linalg.inv(to_canon))
    return back.reshape(4, 2).astype(np.float64)


def premium_grids(
    colour: np.ndarray, candidates: list[np.ndarray], layout: np.ndarray
) -> list[tuple[float, np.ndarray, np.ndarray]]:
    """The grid found from its premium squares alone, for boards whose lines are too faint to
    fit (thin print, none at all, wood print): within each candidate outline, the grid inset by
    the frame at which squares of the same premium kind look most alike. The inset is searched
    the same on both sides of each axis first, then side by side. Returns (the share of the
    cells' colour spread the layout explains beyond what it explains a cell away, corners, the
    candidate outline) per candidate, best first.
    """
    rows, cols = layout.shape
    side = _PREMIUM_SEARCH_SIDE
    canonical = np.float32([[0, 0], [side, 0], [side, side], [0, side]])
    kinds = np.unique(layout, return_inverse=True)[1].ravel()
    insets = np.linspace(0.0, _PREMIUM_MAX_INSET, _PREMIUM_STEPS)
    even = np.stack([insets, 1 - insets], axis=1)
    fine = np.linspace(-_PREMIUM_FINE, _PREMIUM_FINE, 2 * _PREMIUM_FINE_STEPS + 1)
    grids: list[tuple[float, np.ndarray, np.ndarray]] = []
    for quad in candidates:
        to_canon = cv2.getPerspectiveTransform(quad.astype(np.float32), canonical)
        canon = cv2.warpPerspective(
            colour, to_canon, (side, side), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
        )
        # Channels first, each a contiguous plane: windows are cut by whole rows and columns.
        summed = np.ascontiguousarray(
            np.moveaxis(cv2.integral(canon.astype(np.float32) @ OPPONENT.T), -1, 0)
        )

        def explained(ys: np.ndarray, xs: np.ndarray, summed: np.ndarray = summed) -> np.ndarray:
            """[len(ys), len(xs)] share of the spread explained for grids spanning each
            (top, bottom) of ys and (left, right) of xs, as fractions of the warp."""
            y0, y1 = _cell_windows(ys, rows, side)
            x0, x1 = _cell_windows(xs, cols, side)
            area = ((y1 - y0)[:, :, None, None] * (x1 - x0)[None, None]).clip(1)
            # The integral's rows at every window's top and bottom, then their columns at its
            # sides (or columns first, whichever has fewer windows: the second gather then cuts
            # a smaller array), not one gather per window corner. The integral's values are
            # exact in float64 (sums of float32 colours, multiples of 2**-27 below 2**24), so
            # the order of the differences changes no value.
            if y0.size <= x0.size:
                strips = summed[:, y1.ravel()] - summed[:, y0.ravel()]
                total = np.take(strips, x1.ravel(), axis=2) - np.take(strips, x0.ravel(), axis=2)
            else:
                strips = np.take(summed, x1.ravel(), axis=2) - np.take(summed, x0.ravel(), axis=2)
                total = strips[:, y1.ravel()] - strips[:, y0.ravel()]
            means = total.reshape(3, len(ys), rows, len(xs), cols) / area
            # (top and bottom, left and right, channel, square)
            values = np.ascontiguousarray(means.transpose(1, 3, 0, 2, 4)).reshape(
                len(ys), len(xs), 3, rows * cols
            )
            spread = median_deviations(values).sum(axis=2)
            within = median_deviations(values, kinds).sum(axis=2)
            # A plain surface (a blank page) has no spread to explain.
            flat = spread < _PREMIUM_MIN_SPREAD * rows * cols * 3
            return np.where(flat, 0.0, 1.0 - within / (spread + 1e-6))

        ys, xs = _best_even_inset(explained, even)
        for _ in range(2):
            # Each side on its own: frames are not always even, outlines not always exact.
            pairs = np.stack(np.meshgrid(fine, fine), axis=-1).reshape(-1, 2)
            x_options = xs + pairs
            k = int(np.argmax(explained(ys[None], x_options)[0]))
            xs = x_options[k]
            y_options = ys + pairs
            k = int(np.argmax(explained(y_options, xs[None])[:, 0]))
            ys = y_options[k]
        score = float(explained(ys[None], xs[None])[0, 0])
        # The layout must explain the colours here and not a cell away: smooth light or a
        # repeating pattern explains about as much anywhere.
        step_x, step_y = (xs[1] - xs[0]) / cols, (ys[1] - ys[0]) / rows
        moved = [explained(ys[None], (xs + d)[None])[0, 0] for d in (-step_x, step_x)] + [
            explained((ys + d)[None], xs[None])[0, 0] for d in (-step_y, step_y)
        ]
        score -= max(float(max(moved)), 0.0)
        (top, bottom), (left, right) = ys * side, xs * side
        inner = np.float32([[left, top], [right, top], [right, bottom], [left, bottom]])
        back = cv2.perspectiveTransform(inner.reshape(1, 4, 2), np.linalg.inv(to_canon))
        grids.append((score, back.reshape(4, 2).astype(np.float64), quad))
    return sorted(grids, key=lambda grid: -grid[0])


def _best_even_inset(
    explained: Callable[[np.ndarray, np.ndarray], np.ndarray], even: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The (top, bottom) and (left, right) spans among `even` (insets the same on both sides)
    at which `explained` is highest, found from every other inset first: the best few of those
    (`_COARSE_PEAKS`), each with the insets beside it: 468 shares computed instead of 1681.
    Explained shares change little from one inset to the next (a fortieth of a tenth of the
    outline's side): on the outlines of bench_editions' 400 held-out photos this found the
    whole search's best inset on 1058 of 1104, and the located grids moved by over 0.02 of a
    cell on one photo (by 0.03), while locating took 22 % less CPU in all (p90 956 -> 683 ms).
    The best few, not the best one: the coarse best may lie on another hill than the whole
    search's (from the best alone, held-out photo 7000358 was placed a cell off)."""
    coarse = explained(even[::2], even[::2])
    best, spans = -np.inf, (even[0], even[0])
    for flat in np.argsort(-coarse, axis=None, kind="stable")[:_COARSE_PEAKS]:
        i, j = np.unravel_index(int(flat), coarse.shape)
        near_y = even[max(2 * i - 1, 0) : 2 * i + 2]
        near_x = even[max(2 * j - 1, 0) : 2 * j + 2]
        scores = explained(near_y, near_x)
        k, m = np.unravel_index(int(np.argmax(scores)), scores.shape)
        if scores[k, m] > best:
            best, spans = float(scores[k, m]), (near_y[k], near_x[m])
    return spans


def _cell_windows(spans: np.ndarray, count: int, side: int) -> tuple[np.ndarray, np.ndarray]:
    """Per span (start, end as fractions of `side`), the pixel range of each of `count` cells
    along one axis, without its outer tenth on either side (grid lines, tile edges)."""
    start = spans[:, :1] * side
    step = (spans[:, 1:] - spans[:, :1]) * side / count
    edges = start + step * np.arange(count)[None, :]
    lo = np.clip(np.rint(edges + 0.1 * step), 0, side).astype(int)
    hi = np.clip(np.rint(edges + 0.9 * step), 0, side).astype(int)
    return lo, hi


def vacant_margin(
    colour: np.ndarray, corners: np.ndarray, layout: np.ndarray, tiles: np.ndarray
) -> float:
    """How much more of the colour spread of the squares without a tile the premium `layout`
    explains at the grid `corners` (the board's top-left, top-right, bottom-right, bottom-left
    in `colour`'s pixels: `layout` as the board lies) than with the grid moved by up to
    `_PREMIUM_REACH` whole cells each way; 0 where under half the squares are free or they
    hardly vary (a blank page).

    `tiles` (rows x cols booleans, as the cell models read the grid) are left out at every
    move. Tiles cover squares of every kind alike, so they favour no position, but on a board of
    many tiles they hide how alike its pale premium squares look: on 11 held-out wood prints
    whose grid the locator refused, leaving out the squares that hold tiles (as rendered) raised
    the true grid's margin over its whole-cell moves from a median of 0.03 to 0.11."""
    rows, cols = layout.shape
    if tiles.sum() * 2 > rows * cols:
        return 0.0
    reach = _PREMIUM_REACH
    canon, _, _ = _reach_warp(colour, corners, rows, cols)
    means = _cell_means(canon.astype(np.float32) @ OPPONENT.T, rows, cols)
    # Squares around the grid (the frame) count as free, as in `premium_shift`.
    covered = np.zeros(means.shape[:2], dtype=bool)
    covered[reach : reach + rows, reach : reach + cols] = tiles
    kinds = np.unique(layout, return_inverse=True)[1].ravel()
    scores = {}
    for dy in range(-reach, reach + 1):
        for dx in range(-reach, reach + 1):
            window = np.s_[reach + dy : reach + dy + rows, reach + dx : reach + dx + cols]
            free = ~covered[window].ravel()
            values = means[window].reshape(-1, 3).T[:, free]
            spread = float(median_deviations(values).sum())
            if (dy, dx) == (0, 0) and spread < _PREMIUM_MIN_SPREAD * values.size:
                return 0.0
            within = float(median_deviations(values, kinds[free]).sum())
            scores[dy, dx] = 1.0 - within / (spread + 1e-6)
    here = scores.pop((0, 0))
    return here - max(scores.values())


def _reach_warp(
    colour: np.ndarray, corners: np.ndarray, rows: int, cols: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The grid at `corners` warped top-down at `_SHIFT_CELL` px a cell with `_PREMIUM_REACH`
    cells around it (the whole-cell moves' room), its transform and the grid's corners there."""
    cell, reach = _SHIFT_CELL, _PREMIUM_REACH
    lo, right, bottom = reach * cell, (reach + cols) * cell, (reach + rows) * cell
    ideal = np.float32([[lo, lo], [right, lo], [right, bottom], [lo, bottom]])
    to_canon = cv2.getPerspectiveTransform(corners.astype(np.float32), ideal)
    size = ((cols + 2 * reach) * cell, (rows + 2 * reach) * cell)
    canon = cv2.warpPerspective(colour, to_canon, size, borderMode=cv2.BORDER_REPLICATE)
    return canon, to_canon, ideal


def _cell_means(warped: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """One mean colour per cell of a `_reach_warp` (float, 3 channels), `_PREMIUM_REACH` cells
    around the grid, each cell without its outer quarter (lines, tile edges)."""
    cell, reach = _SHIFT_CELL, _PREMIUM_REACH
    inner = warped.reshape(rows + 2 * reach, cell, cols + 2 * reach, cell, 3)[:, 3:-3, :, 3:-3]
    return inner.mean(axis=(1, 3))
