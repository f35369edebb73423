"""Photo bytes -> BGR image: format sniffing, size limits read from the header before decoding,
truncation checks, reduced-size JPEG decoding and the EXIF orientation tag applied by us.

OpenCV applies EXIF orientation itself only on some decode paths, so we always decode with
`IMREAD_IGNORE_ORIENTATION` and rotate from the tag we parse here: one behaviour for every flag.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import cv2
import numpy as np

DEFAULT_MAX_PIXELS = 60_000_000
DEFAULT_TARGET_LONG_SIDE = 2000

# JPEG start-of-frame markers (baseline, progressive, lossless, arithmetic); C4, C8, CC are not SOF.
_SOF_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_REDUCED_FLAGS = {
    1: cv2.IMREAD_COLOR,
    2: cv2.IMREAD_REDUCED_COLOR_2,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    8: cv2.IMREAD_REDUCED_COLOR_8,
}


class PhotoError(ValueError):
    """A photo that cannot be used: `code` is a stable machine name, the message says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class PhotoHeader:
    """What the file's header says before any pixel is decoded."""

    format: str  # "jpeg", "png" or "webp"
    width: int  # as stored, before the EXIF orientation is applied
    height: int
    orientation: int = 1  # EXIF orientation tag, 1..8


@dataclass(frozen=True)
class Photo:
    """A decoded, upright photo; `scale` maps its pixels to the full-size upright photo's."""

    image: np.ndarray  # BGR uint8, EXIF orientation applied
    scale: float  # full-size pixels per decoded pixel (1, 2, 4 or 8)
    width: int  # full-size upright width
    height: int
    orientation: int


def read_header(data: bytes) -> PhotoHeader:
    """Sniff the format and read the stored size (and EXIF orientation) without decoding.

    >>> read_header(b"")
    Traceback (most recent call last):
    ...
    vision.decode.PhotoError: empty file
    """
    if not data:
        raise PhotoError("empty", "empty file")
    if data[:3] == b"\xff\xd8\xff":
        return _jpeg_header(data)
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return _png_header(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp_header(data)
    if data[4:12] in (b"ftypheic", b"ftypheix", b"ftypmif1", b"ftyphevc"):
        raise PhotoError("unsupported", "HEIC/HEIF photos are not supported: send a JPEG")
    raise PhotoError("not_image", "not a JPEG, PNG or WebP image")


def decode_photo(
    data: bytes,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    target_long_side: int = DEFAULT_TARGET_LONG_SIDE,
) -> Photo:
    """Decode photo bytes into an upright BGR image no larger than needed.

    JPEGs are decoded at 1/2, 1/4 or 1/8 size when the long side stays >= `target_long_side`;
    other formats are decoded at full size. Raises `PhotoError` for empty, foreign, truncated or
    oversized input (the size is checked from the header, before decoding).
    """
    header = read_header(data)
    pixels = header.width * header.height
    if header.width <= 0 or header.height <= 0:
        raise PhotoError("not_image", "the image header gives no size")
    if pixels > max_pixels:
        raise PhotoError(
            "too_large",
            f"image is {header.width}x{header.height} ({pixels / 1e6:.0f} MP), "
            f"over the {max_pixels / 1e6:.0f} MP limit",
        )
    factor = 1
    if header.format == "jpeg":
        long_side = max(header.width, header.height)
        while factor < 8 and long_side // (factor * 2) >= target_long_side:
            factor *= 2
    buffer = np.frombuffer(data, dtype=np.uint8)
    image = cv2.imdecode(buffer, _REDUCED_FLAGS[factor] | cv2.IMREAD_IGNORE_ORIENTATION)
    if image is None:
        raise PhotoError("not_image", f"the {header.format.upper()} data could not be decoded")
    image = apply_orientation(image, header.orientation)
    swapped = header.orientation >= 5
    width, height = (header.height, header.width) if swapped else (header.width, header.height)
    scale = width / image.shape[1]
    return Photo(image, scale, width, height, header.orientation)


def apply_orientation(image: np.ndarray, orientation: int) -> np.ndarray:
    """Turn an image as stored into the upright image the EXIF orientation tag (1..8) describes."""
    if orientation == 2:
        return cv2.flip(image, 1)
    if orientation == 3:
        return cv2.rotate(image, cv2.ROTATE_180)
    if orientation == 4:
        return cv2.flip(image, 0)
    if orientation == 5:
        return cv2.transpose(image)
    if orientation == 6:
        return cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    if orientation == 7:
        return cv2.flip(cv2.transpose(image), -1)
    if orientation == 8:
        return cv2.rotate(image, cv2.ROTATE_90_COUNTERCLOCKWISE)
    return image


def _jpeg_header(data: bytes) -> PhotoHeader:
    """Walk the JPEG segments up to the first scan: frame size, EXIF orientation, then EOI."""
    pos, size, orientation = 2, None, 1
    n = len(data)
    while True:
        while pos < n and data[pos] == 0xFF and pos + 1 < n and data[pos + 1] == 0xFF:
            pos += 1  # fill bytes before a marker
        if pos + 4 > n or data[pos] != 0xFF:
            raise PhotoError("truncated", "JPEG file is truncated or damaged before the image data")
        marker = data[pos + 1]
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:
            pos += 2
            continue
        (length,) = struct.unpack(">H", data[pos + 2 : pos + 4])
        segment = data[pos + 4 : pos + 2 + length]
        if length < 2 or len(segment) != length - 2:
            raise PhotoError("truncated", "JPEG file is truncated in its header")
        if marker in _SOF_MARKERS and len(segment) >= 5:
            height, width = struct.unpack(">HH", segment[1:5])
            size = (width, height)
        elif marker == 0xE1 and segment[:6] == b"Exif\x00\x00":
            orientation = _exif_orientation(segment[6:])
        elif marker == 0xDA:
            break
        pos += 2 + length
    if size is None:
        raise PhotoError("not_image", "JPEG file has no frame header")
    # Entropy-coded data never contains FF D9 (FF is stuffed), so the first one after the scan
    # start is the end of the image; a file cut short lacks it.
    if data.find(b"\xff\xd9", pos) < 0:
        raise PhotoError("truncated", "JPEG file is truncated (no end-of-image marker)")
    return PhotoHeader("jpeg", size[0], size[1], orientation)


def _exif_orientation(tiff: bytes) -> int:
    """The orientation tag (0x0112) of IFD0 in a TIFF-structured EXIF block; 1 when absent."""
    if len(tiff) < 8 or tiff[:2] not in (b"II", b"MM"):
        return 1
    endian = "<" if tiff[:2] == b"II" else ">"
    (ifd,) = struct.unpack(endian + "I", tiff[4:8])
    if ifd + 2 > len(tiff):
        return 1
    (count,) = struct.unpack(endian + "H", tiff[ifd : ifd + 2])
    for i in range(count):
        entry = tiff[ifd + 2 + 12 * i : ifd + 14 + 12 * i]
        if len(entry) < 12:
            break
        tag, kind = struct.unpack(endian + "HH", entry[:4])
        if tag == 0x0112 and kind == 3:
            (value,) = struct.unpack(endian + "H", entry[8:10])
            return value if 1 <= value <= 8 else 1
    return 1


def _png_header(data: bytes) -> PhotoHeader:
    if len(data) < 24 or data[12:16] != b"IHDR":
        raise PhotoError("truncated", "PNG file is truncated in its header")
    width, height = struct.unpack(">II", data[16:24])
    if b"IEND" not in data[-12:]:
        raise PhotoError("truncated", "PNG file is truncated (no IEND chunk)")
    return PhotoHeader("png", width, height)


def _webp_header(data: bytes) -> PhotoHeader:
    (riff_size,) = struct.unpack("<I", data[4:8])
    if len(data) < riff_size + 8 or len(data) < 30:
        raise PhotoError("truncated", "WebP file is truncated")
    chunk = data[12:16]
    if chunk == b"VP8X":
        width = 1 + int.from_bytes(data[24:27], "little")
        height = 1 + int.from_bytes(data[27:30], "little")
    elif chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        width, height = 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    elif chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        width, height = width & 0x3FFF, height & 0x3FFF
    else:
        raise PhotoError("not_image", "WebP file has no image chunk")
    return PhotoHeader("webp", width, height)
