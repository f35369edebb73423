"""Settle a grid that the premium squares placed on the edges of its outer squares.

The premium squares place a grid only to within a quarter of a cell or so: the share of the
colours the layout explains is flat there, and corners extrapolated from blocks inside the board
carry their error further. On the 328 held-out photos (bench_editions' family, seeds 7000000 to
7300399) whose grid the premium squares alone placed, the median corner error was 0.13 of a
cell, and 8 grids were more than half a cell off. A grid's sides, though, are most often edges:
the outer squares against the board's frame, its margin or the table.

Each side is sought within `_REACH` of a cell of where it was placed, in a top-down warp of the
grid: in each cell along it, the peaks of the colour edge across the side that stand out from
that cell's profile (`_PEAK` times its median), the nearest to the placed side taken (a frame's
outer edge, often stronger, lies farther out); a line through the cells that agree, found from
every pair of them, is the side when at least `_AGREE` of the cells agree on it. A side that
too few cells agree on (no edge at all, or edges at scattered places) stays where it was. A
frame up to `_THIN_FRAME` wide has both edges within reach: where nearly as many cells show an
edge parallel to the line found, a little inside it, about as strong and as much a change of
colour (wood grain along a side gives weaker edges; a line printed off the squares has their
colour on both sides), the grid ends there.

On those 328 photos the median corner error fell to 0.03 of a cell, the 90th percentile from
0.28 to 0.08, the 99th from 0.62 to 0.30, and none was more than half a cell off; taking each
cell's strongest edge instead put 30 grids more than half a cell off (a frame's outer edge),
and the innermost line of enough cells 7 (a line across both edges of a frame, half its cells
on each). Not settled right: a frame whose inner edge hardly shows (its colour close to the
squares'), with the grid placed nearer its outer edge, which is taken; and tiles all along a
side, whose edges (their thickness, seen in perspective) lie a little outside it.

Hand-written: OpenCV's Hough transform and `fitLine` find or fit lines anywhere in an image or
point set; here one line is wanted near a known one, among peaks of which a third may be a
frame's edge or a tile's, which a robust M-estimator does not tell apart from a tilt.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.pyramid import Pyramid, warp_grid

_CELL = 20  # px per cell in the warp
_REACH = 0.6  # cells either side of the placed side that the edge is sought in
_PEAK = 3.0  # an edge stands out when its energy is this many times its profile's median
_AGREE = 0.5  # share of a side's cells whose edges must lie on the line for it to be taken
_NEARLY_ALL = 0.8  # share of the cells on a frame's outer edge that its inner one needs
_THIN_FRAME = 0.6  # cells: the widest frame whose inner edge is sought inside its outer one
_AS_STRONG = 0.5  # share of the outer edge's strength and change of colour a frame's inner edge has
_TOLERANCE = 0.08  # cells: how close an edge must lie to the line to agree with it
_SIDE = 3  # px either side of an edge whose colours tell a step from a printed line
_END = 2  # px: peaks this close to the ends of a profile may lie beyond it


def settle_on_edges(levels: Pyramid, corners: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """`corners` (working-image px, TL TR BR BL) with each side of the `rows` x `cols` grid
    moved onto the edge of its outer squares where one is found near it.

    `levels`: the colour working image's Gaussian pyramid (`vision.pyramid.Pyramid`).
    """
    cell = _CELL
    canon, to_canon = warp_grid(levels, corners, rows, cols, cell, cell)
    canon = canon.astype(np.float32) / 255.0
    # Lab: a wood print against a painted frame differs in hue more than in lightness.
    lab = cv2.cvtColor(canon, cv2.COLOR_BGR2Lab)
    across_x = sum(np.abs(cv2.Sobel(lab[..., i], cv2.CV_32F, 1, 0, ksize=3)) for i in range(3))
    across_y = sum(np.abs(cv2.Sobel(lab[..., i], cv2.CV_32F, 0, 1, ksize=3)) for i in range(3))
    # Each side as (energy across it, rows of `energy` across the side), its position and its
    # length in cells; a line is `across = slope * along + offset`.
    down = lab.transpose(1, 0, 2)
    top = _side(across_y, lab, cell, cols, cell, 1)
    bottom = _side(across_y, lab, cell + rows * cell, cols, cell, -1)
    left = _side(across_x.T, down, cell, rows, cell, 1)
    right = _side(across_x.T, down, cell + cols * cell, rows, cell, -1)
    settled = np.float32(
        [_crossing(top, left), _crossing(top, right), _crossing(bottom, right),
         _crossing(bottom, left)]
    )  # fmt: skip
    back = cv2.perspectiveTransform(settled.reshape(1, 4, 2), np.linalg.inv(to_canon))
    return back.reshape(4, 2).astype(np.float64)


def _side(
    energy: np.ndarray, lab: np.ndarray, position: int, length: int, cell: int, inward: int
) -> tuple[float, float]:
    """(slope, offset) of the side placed at `position` (rows of `energy`, the edge energy across
    it, and of `lab`, the warp's colours; `inward` the sign towards the grid), moved onto the
    edge enough of its cells agree on, or unmoved."""
    reach = int(round(_REACH * cell))
    centres = cell + (np.arange(length) + 0.5) * cell
    # Per cell along the side, its edges: (position across the side, strength) rows.
    edges = []
    for k in range(length):
        start, stop = cell + k * cell + 2, cell + (k + 1) * cell - 2
        profile = energy[position - reach : position + reach + 1, start:stop].mean(axis=1)
        edges.append(_peaks(profile) + [position - reach, 0.0])
    # In each cell the edge nearest the placed side: a frame's outer edge, often the stronger,
    # lies farther out.
    cells, nearest, strength = _near(edges, np.full(length, float(position)), np.inf)
    if len(cells) < 2:
        return 0.0, float(position)
    t = centres[cells]
    tolerance = _TOLERANCE * cell
    i, j = np.triu_indices(len(t), 1)
    slopes = (nearest[j] - nearest[i]) / (t[j] - t[i])
    offsets = nearest[i] - slopes * t[i]
    residuals = np.abs(slopes[:, None] * t[None, :] + offsets[:, None] - nearest[None, :])
    # The most cells agreeing; of as many, the closest.
    score = (residuals < tolerance).sum(axis=1) - np.minimum(residuals, tolerance).sum(axis=1) / (
        tolerance * len(t) + 1
    )
    on = residuals[int(np.argmax(score))] < tolerance
    if on.sum() < _AGREE * length:
        return 0.0, float(position)
    slope, offset = np.polyfit(t[on], nearest[on], 1)
    outer = float(np.median(strength[on]))
    outer_step = _step(lab, cells[on], nearest[on], cell)
    # A thin frame's inner edge: a little inside its outer one, as long, about as strong and as
    # much a change of colour (wood grain along the side gives weaker edges; a grid line printed
    # off the squares has their colour on both sides). The grid ends there.
    for shift in np.arange(_THIN_FRAME * cell, tolerance, -1.0) * inward:
        inner, at, strong = _near(edges, slope * centres + offset + shift, tolerance)
        if (
            len(inner) >= _NEARLY_ALL * on.sum()
            and np.median(strong) >= _AS_STRONG * outer
            and _step(lab, inner, at, cell) >= _AS_STRONG * outer_step
        ):
            slope, offset = np.polyfit(centres[inner], at, 1)
            break
    return float(slope), float(offset)


def _step(lab: np.ndarray, cells: np.ndarray, at: np.ndarray, cell: int) -> float:
    """The median change of colour across the edges at `at` (rows of `lab`) in `cells` along
    the side: their colours `_SIDE` px either side of the edge, in each cell's middle."""
    steps = []
    for k, position in zip(cells, at, strict=True):
        row = int(round(position))
        middle = slice(cell + k * cell + cell // 4, cell + (k + 1) * cell - cell // 4)
        before = lab[max(row - _SIDE, 0), middle].mean(axis=0)
        after = lab[min(row + _SIDE, len(lab) - 1), middle].mean(axis=0)
        steps.append(float(np.linalg.norm(after - before)))
    return float(np.median(steps)) if steps else 0.0


def _near(
    edges: list[np.ndarray], line: np.ndarray, tolerance: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The cells with an edge within `tolerance` of the line (its position across the side at
    each cell), and that edge's position and strength in each."""
    cells, at, strength = [], [], []
    for k, (found, centre) in enumerate(zip(edges, line, strict=True)):
        if not len(found):
            continue
        nearest = int(np.argmin(np.abs(found[:, 0] - centre)))
        if abs(found[nearest, 0] - centre) < tolerance:
            cells.append(k)
            at.append(found[nearest, 0])
            strength.append(found[nearest, 1])
    return np.array(cells, dtype=int), np.array(at), np.array(strength)


def _peaks(profile: np.ndarray) -> np.ndarray:
    """The peaks of `profile` that stand out (`_PEAK` times its median), away from its ends:
    (sub-pixel position, height) rows."""
    floor = _PEAK * float(np.median(profile))
    inside = np.arange(_END, len(profile) - _END)
    is_peak = (
        (profile[inside] >= profile[inside - 1])
        & (profile[inside] > profile[inside + 1])
        & (profile[inside] >= floor)
    )
    found = []
    for k in inside[is_peak]:
        left, middle, right = profile[k - 1], profile[k], profile[k + 1]
        curvature = left - 2 * middle + right
        found.append((k + (0.5 * (left - right) / curvature if curvature < 0 else 0.0), middle))
    return np.array(found, dtype=np.float64).reshape(-1, 2)


def _crossing(horizontal: tuple[float, float], vertical: tuple[float, float]) -> list[float]:
    """Where `y = c x + d` (`horizontal`) crosses `x = a y + b` (`vertical`)."""
    c, d = horizontal
    a, b = vertical
    y = (c * b + d) / (1 - a * c)
    return [a * y + b, y]
