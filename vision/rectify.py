"""Perspective warp from the four grid corners in a photo to a top-down image of exactly the grid.

The outer grid lines land on the image border, so cell (r, c) is the square
[c*cell_px, (c+1)*cell_px) x [r*cell_px, (r+1)*cell_px). Training crops are cut the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

Corners = Sequence[Sequence[float]]


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
