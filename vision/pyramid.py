"""Warps that read from a Gaussian pyramid level close to their scale, so that shrinking a photo
never skips thin grid lines: the locator's and the premium-square fit's shared way of looking at
a candidate grid."""

from __future__ import annotations

import cv2
import numpy as np

PYRAMID_LEVELS = 3  # halvings of the working image that warps may read from


def canonical_grid(rows: int, cols: int, cell: int, margin: int) -> tuple[np.ndarray, int, int]:
    """The grid's corners (float32, clockwise from top left) in a canonical image of `cell` px
    squares with `margin` px around them, and that image's width and height."""
    width, height = cols * cell + 2 * margin, rows * cell + 2 * margin
    corners = np.float32(
        [[margin, margin], [width - margin, margin], [width - margin, height - margin],
         [margin, height - margin]]
    )  # fmt: skip
    return corners, width, height


class Pyramid:
    """`image` and successive halvings of it (Gaussian pyramid), level 0 to `len - 1`, each
    halving made when first read: most warps of a working image read only its first level."""

    def __init__(self, image: np.ndarray) -> None:
        self._levels = [image]
        self._count, (h, w) = 1, image.shape[:2]
        while self._count < PYRAMID_LEVELS and min(h, w) >= 64:
            self._count, h, w = self._count + 1, (h + 1) // 2, (w + 1) // 2  # as pyrDown halves

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, level: int) -> np.ndarray:
        if not 0 <= level < self._count:
            raise IndexError(level)
        while len(self._levels) <= level:
            self._levels.append(cv2.pyrDown(self._levels[-1]))
        return self._levels[level]


def warp(
    pyramid: Pyramid, transform: np.ndarray, size: tuple[int, int], scale: float
) -> np.ndarray:
    """`cv2.warpPerspective` of the pyramid's first level by `transform`, read from the level
    nearest `scale` source pixels per output pixel: shrinking by interpolation alone would skip
    thin grid lines."""
    level = int(np.clip(np.floor(np.log2(max(scale / 1.5, 1.0))), 0, len(pyramid) - 1))
    f = 2.0**level
    from_level = np.array([[f, 0, 0.5 * f - 0.5], [0, f, 0.5 * f - 0.5], [0, 0, 1]])
    return cv2.warpPerspective(pyramid[level], transform @ from_level, size, flags=cv2.INTER_LINEAR)


def warp_grid(
    pyramid: Pyramid, corners: np.ndarray, rows: int, cols: int, cell: int, margin: int
) -> tuple[np.ndarray, np.ndarray]:
    """A top-down warp of the grid with these `corners` (TL TR BR BL) to `cell` px squares with
    `margin` px around them (`canonical_grid`), read as `warp` reads, and the transform to it."""
    ideal, width, height = canonical_grid(rows, cols, cell, margin)
    to_canon = cv2.getPerspectiveTransform(corners.astype(np.float32), ideal)
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    scale = float(sides.mean()) / (cell * (rows + cols) / 2)
    return warp(pyramid, to_canon, (width, height), scale), to_canon
