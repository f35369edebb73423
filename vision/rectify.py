"""Perspective warp from the four grid corners in a photo to a top-down image of exactly the grid,
and the check that corners a person marked can be such a grid.

The outer grid lines land on the image border, so cell (r, c) is the square
[c*cell_px, (c+1)*cell_px) x [r*cell_px, (r+1)*cell_px). Training crops are cut the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

Corners = Sequence[Sequence[float]]

# Marked corners: cells at least this many pixels across (smaller ones cannot be read), and no
# side longer than this many times another (a square seen in perspective; the locator allows 2,
# marking by hand is less exact).
MIN_CELL_PX = 6.0
MAX_SIDE_RATIO = 3.0


class CornersError(ValueError):
    """Grid corners that cannot be a board's grid in the photo; the message says why."""


def check_corners(
    corners: Corners, width: int, height: int, rows: int = 15, cols: int = 15
) -> np.ndarray:
    """The corners as a 4x2 array, checked: inside the `width` x `height` photo, in the order
    top-left, top-right, bottom-right, bottom-left as seen (clockwise on the screen), convex, and
    a plausible grid of `rows` x `cols` readable cells. Raises `CornersError` naming what is wrong.

    >>> check_corners([[10, 10], [190, 12], [188, 190], [12, 188]], 200, 200).shape
    (4, 2)
    """
    points = np.asarray(corners, dtype=np.float64)
    if points.shape != (4, 2) or not np.isfinite(points).all():
        raise CornersError("give four corners, each [x, y] in pixels")
    outside = [
        i + 1 for i, (x, y) in enumerate(points) if not (0 <= x <= width and 0 <= y <= height)
    ]
    if outside:
        raise CornersError(
            f"corner {', '.join(map(str, outside))} lies outside the {width}x{height} photo"
        )
    edges = np.roll(points, -1, axis=0) - points
    following = np.roll(edges, -1, axis=0)
    turns = edges[:, 0] * following[:, 1] - edges[:, 1] * following[:, 0]
    if not (turns > 0).all():
        raise CornersError(
            "the corners do not make a convex quadrilateral in the order top-left, top-right, "
            "bottom-right, bottom-left"
        )
    sides = np.linalg.norm(edges, axis=1)
    cell = float((sides / np.array([cols, rows, cols, rows])).min())
    if cell < MIN_CELL_PX:
        raise CornersError(
            f"the marked grid is too small: its cells are {cell:.1f} px, under {MIN_CELL_PX:.0f} px"
        )
    if sides.max() > MAX_SIDE_RATIO * sides.min():
        raise CornersError(
            f"the marked grid is too skewed: one side is {sides.max() / sides.min():.1f} times "
            "another"
        )
    return points


def grid_homography(corners: Corners, width: float, height: float) -> np.ndarray:
    """The 3x3 homography taking photo pixels to a `width` x `height` grid image.

    `corners` are the grid's top-left, top-right, bottom-right and bottom-left in the photo.
    """
    src = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    dst = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float64)
    return cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))


def rectify(
    image: np.ndarray, corners: Corners, cell_px: int, rows: int = 15, cols: int = 15
) -> np.ndarray:
    """Warp `image` to a (rows*cell_px, cols*cell_px) top-down image of the grid.

    >>> import numpy as np
    >>> photo = np.zeros((100, 100, 3), np.uint8)
    >>> rectify(photo, [[10, 10], [90, 10], [90, 90], [10, 90]], cell_px=4).shape
    (60, 60, 3)
    """
    width, height = cols * cell_px, rows * cell_px
    matrix = grid_homography(corners, width, height)
    return cv2.warpPerspective(
        image, matrix, (width, height), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )
