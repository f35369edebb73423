"""The whole reading of one photo: decode -> locate -> rectify -> classify -> orient -> BoardReading.

Each stage is timed; the classifier is passed in so a caller reading many photos loads it once.
Grid corners a person marked on a photo where no board was found replace the locate stage.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

import numpy as np

from scorer.variant import Variant
from vision.calibrate import cell_looks, rotate_looks
from vision.classify import CellClassifier, read_cells
from vision.decode import DEFAULT_MAX_PIXELS, decode_photo
from vision.locate import GridLocation, locate_grid
from vision.orient import choose_rotation, rotate_predictions
from vision.reading import BoardReading
from vision.rectify import Corners, check_corners, rectify

T = TypeVar("T")


def _timed(timings: dict[str, float], stage: str, work: Callable[[], T]) -> T:
    start = time.perf_counter()
    result = work()
    timings[stage] = (time.perf_counter() - start) * 1000
    return result


def read_board(
    data: bytes,
    variant: Variant,
    classifier: CellClassifier | None = None,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    corners: Corners | None = None,
) -> BoardReading:
    """Read the board in a photo (JPEG, PNG or WebP bytes) for `variant`.

    `corners`: the grid's corners marked by a person, in the upright full-size photo's pixels
    (top-left, top-right, bottom-right, bottom-left as seen); the grid is then not searched for
    (quality 1), and the tiles' rotation is still found from the cells.

    Raises `vision.decode.PhotoError` for bytes that are not a usable image,
    `vision.locate.BoardNotFound` when the photo shows no board grid and
    `vision.rectify.CornersError` when the marked corners cannot be the grid.

    >>> reading = read_board(open("board.jpg", "rb").read(), load_variant("en"))  # doctest: +SKIP
    >>> print(reading.text)  # doctest: +SKIP
    """
    rows, cols = variant.layout.height, variant.layout.width
    timings: dict[str, float] = {}
    photo = _timed(timings, "decode", lambda: decode_photo(data, max_pixels=max_pixels))
    if corners is None:
        location = _timed(
            timings, "locate", lambda: locate_grid(photo.image, rows, cols, variant.layout.rows)
        )
    else:
        marked = check_corners(corners, photo.width, photo.height)
        location = GridLocation(corners=(marked + 0.5) / photo.scale - 0.5, quality=1.0)
    # Loaded only now, so a photo without a board is refused even where no model is installed.
    classifier = classifier or CellClassifier()
    grid = _timed(
        timings,
        "rectify",
        lambda: rectify(photo.image, location.corners, classifier.cell_px, rows, cols),
    )
    predictions = _timed(timings, "classify", lambda: classifier.predict(grid, rows, cols))

    def orient():
        rotation, _ = choose_rotation(predictions)
        looks = rotate_looks(cell_looks(grid, rows, cols), rows, cols, rotation)
        return rotation, read_cells(
            rotate_predictions(predictions, rotation), variant, whole_board=True, looks=looks
        )

    rotation, cells = _timed(timings, "orient", orient)
    timings["total"] = sum(timings.values())
    # Corners in board order: the grid image turned `rotation` quarter-turns clockwise is upright,
    # so the upright top-left corner is the image's corner `rotation` places before it.
    full_size = (location.corners + 0.5) * photo.scale - 0.5
    corners = np.roll(full_size, rotation, axis=0)
    return BoardReading(
        variant=variant.name,
        classes=[[cell.label for cell in line] for line in cells],
        confidence=[[cell.confidence for cell in line] for line in cells],
        top3=[[list(cell.top3) for cell in line] for line in cells],
        corners=corners.tolist(),
        rotation=rotation,
        quality=location.quality,
        photo_size=(photo.width, photo.height),
        timings_ms=timings,
    )
