"""A check picture of a reading: the photo, downscaled, with the found grid and the letters read
drawn on it; cells read with low confidence are marked in a distinct colour.

Letters are drawn with Pillow because OpenCV's built-in fonts have no Cyrillic.
"""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.decode import decode_photo
from vision.reading import BoardReading, board_char

GRID_BGR = (0, 220, 255)
SURE_RGB = (40, 255, 40)
UNSURE_RGB = (255, 40, 255)
OVERLAY_LONG_SIDE = 1400  # px: enough to check a reading on a phone or a laptop
OVERLAY_QUALITY = 85  # JPEG quality of the service's overlays: letters and lines stay crisp
# Fonts with Cyrillic, looked up by Pillow in the system font folders; the first found is used.
FONT_NAMES = ("DejaVuSans-Bold.ttf", "LiberationSans-Bold.ttf", "FreeSansBold.ttf", "Arial.ttf")


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for name in FONT_NAMES:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size)


def draw_overlay(
    image: np.ndarray,
    reading: BoardReading,
    threshold: float = 0.8,
    max_side: int = OVERLAY_LONG_SIDE,
) -> np.ndarray:
    """The photo (any uniformly scaled copy of it) with the grid and the reading drawn on it.

    Returns a BGR image whose long side is at most `max_side`. Letters read with confidence
    below `threshold` are drawn in magenta, others in green; an uncertain empty cell gets a
    magenta box.
    """
    height, width = image.shape[:2]
    scale = min(1.0, max_side / max(height, width))
    canvas = cv2.resize(image, (round(width * scale), round(height * scale)), cv2.INTER_AREA)
    if canvas.ndim == 2:
        canvas = cv2.cvtColor(canvas, cv2.COLOR_GRAY2BGR)
    to_canvas = scale * width / reading.photo_size[0]
    rows, cols = len(reading.classes), len(reading.classes[0])
    grid_to_photo = cv2.getPerspectiveTransform(
        np.float32([[0, 0], [cols, 0], [cols, rows], [0, rows]]),
        np.float32(reading.corners) * to_canvas,
    )

    def project(points: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(np.float32(points).reshape(1, -1, 2), grid_to_photo)[0]

    thickness = max(1, round(max(canvas.shape[:2]) / 700))
    for k in range(cols + 1):
        a, b = project([[k, 0], [k, rows]])
        cv2.line(canvas, tuple(np.int32(a)), tuple(np.int32(b)), GRID_BGR, thickness, cv2.LINE_AA)
    for k in range(rows + 1):
        a, b = project([[0, k], [cols, k]])
        cv2.line(canvas, tuple(np.int32(a)), tuple(np.int32(b)), GRID_BGR, thickness, cv2.LINE_AA)

    cell_px = np.linalg.norm(project([[0, 0], [cols, 0]])[1] - project([[0, 0]])[0]) / cols
    font = _font(max(8, int(cell_px * 0.6)))
    picture = Image.fromarray(cv2.cvtColor(canvas, cv2.COLOR_BGR2RGB))
    draw = ImageDraw.Draw(picture)
    for r in range(rows):
        for c in range(cols):
            char = board_char(reading.classes[r][c])
            sure = reading.confidence[r][c] >= threshold
            colour = SURE_RGB if sure else UNSURE_RGB
            if char == ".":
                if not sure:
                    # A polygon, not a rectangle: the board may be turned in the photo.
                    box = [
                        [c + 0.15, r + 0.15],
                        [c + 0.85, r + 0.15],
                        [c + 0.85, r + 0.85],
                        [c + 0.15, r + 0.85],
                    ]
                    draw.polygon([tuple(p) for p in project(box)], outline=colour, width=2)
                continue
            x, y = project([[c + 0.5, r + 0.5]])[0]
            draw.text(
                (x, y),
                char,
                font=font,
                fill=colour,
                anchor="mm",
                stroke_width=max(1, font.size // 10),
                stroke_fill=(0, 0, 0),
            )
    return cv2.cvtColor(np.asarray(picture), cv2.COLOR_RGB2BGR)


def overlay_png(data: bytes, reading: BoardReading, threshold: float = 0.8) -> bytes:
    """The overlay of the photo `data` as PNG bytes (`scorekeeper read --overlay OUT.png`); the
    photo is decoded only at overlay size (a reduced JPEG decode), not at the size the reading
    needed."""
    return _encoded(data, reading, threshold, ".png", [])


def overlay_jpeg(data: bytes, reading: BoardReading, threshold: float = 0.8) -> bytes:
    """The overlay of the photo `data` as JPEG bytes, what the service keeps for each turn: a
    photo compresses badly as PNG (a 1400 px overlay of a 12 MP photo: 2.2 MB in 70-90 ms, as
    JPEG 260 KB in 5 ms), and a phone fetches it after every turn."""
    return _encoded(data, reading, threshold, ".jpg", [cv2.IMWRITE_JPEG_QUALITY, OVERLAY_QUALITY])


def _encoded(
    data: bytes, reading: BoardReading, threshold: float, extension: str, params: list[int]
) -> bytes:
    image = decode_photo(data, target_long_side=OVERLAY_LONG_SIDE).image
    ok, encoded = cv2.imencode(extension, draw_overlay(image, reading, threshold), params)
    if not ok:
        raise OSError("the overlay could not be encoded")
    return encoded.tobytes()
