"""Photo bytes -> BGR image: format sniffing, the size and EXIF orientation read by Pillow from the
header before any pixel is decoded, size limits, truncation checks, reduced-size JPEG decoding
and the orientation applied by us.

Pillow (with pillow-heif for HEIC/HEIF, an iPhone's photos) reads the header and decodes HEIF;
OpenCV decodes JPEG, PNG and WebP: a 12 MP JPEG takes it ~75 ms at full size against ~120 ms
through Pillow and a numpy copy, and the same ~40 ms at half size. OpenCV applies EXIF orientation
itself only on some decode paths, so we decode with `IMREAD_IGNORE_ORIENTATION` and rotate from
the tag Pillow read: one behaviour for every flag.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass

import cv2
import numpy as np
import pillow_heif
from PIL import ExifTags, Image

DEFAULT_MAX_PIXELS = 60_000_000
DEFAULT_TARGET_LONG_SIDE = 2000

_REDUCED_FLAGS = {
    1: cv2.IMREAD_COLOR,
    2: cv2.IMREAD_REDUCED_COLOR_2,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    8: cv2.IMREAD_REDUCED_COLOR_8,
}
# The ISO-BMFF brands pillow-heif opens (its own list); AVIF ("avif") is not among them.
_HEIF_BRANDS = frozenset(
    (b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"hevm", b"hevs", b"mif1", b"msf1")
)
_NAMES = {"jpeg": "JPEG", "png": "PNG", "webp": "WebP", "heif": "HEIF"}
_MEDIA_TYPES = {
    "jpeg": "image/jpeg",
    "png": "image/png",
    "webp": "image/webp",
    "heif": "image/heif",
}

pillow_heif.register_heif_opener()


class PhotoError(ValueError):
    """A photo that cannot be used: `code` is a stable machine name, the message says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class PhotoHeader:
    """What the file's header says before any pixel is decoded."""

    format: str  # "jpeg", "png", "webp" or "heif"
    # As stored, before the EXIF orientation is applied. A HEIF's rotation is the decoder's own:
    # pillow-heif gives the size as turned and orientation 1.
    width: int
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

    A HEIF cut short is only found when decoded (`decode_photo`).

    >>> read_header(b"")
    Traceback (most recent call last):
    ...
    vision.decode.PhotoError: empty file
    """
    header, image = _open(data)
    image.close()
    return header


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
    header, opened = _open(data)
    with opened:
        pixels = header.width * header.height
        if header.width <= 0 or header.height <= 0:
            raise PhotoError("not_image", "the image header gives no size")
        if pixels > max_pixels:
            raise PhotoError(
                "too_large",
                f"image is {header.width}x{header.height} ({pixels / 1e6:.0f} MP), "
                f"over the {max_pixels / 1e6:.0f} MP limit",
            )
        if header.format == "heif":
            image = _decode_heif(opened)
        else:
            image = _decode_opencv(data, header, target_long_side)
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


def media_type(data: bytes) -> str | None:
    """The media type of an image in a format this module decodes (``image/jpeg``,
    ``image/png``, ``image/webp``, ``image/heif``), from its first bytes; None for any other."""
    kind = _sniff(data)
    return None if kind is None else _MEDIA_TYPES[kind]


def _sniff(data: bytes) -> str | None:
    """The format the first bytes announce, or None for any other file."""
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS:
        return "heif"
    return None


def _open(data: bytes) -> tuple[PhotoHeader, Image.Image]:
    """The header, and the file opened by Pillow (headers read, no pixel decoded)."""
    if not data:
        raise PhotoError("empty", "empty file")
    kind = _sniff(data)
    if kind is None:
        raise PhotoError("not_image", "not a JPEG, PNG, WebP or HEIC image")
    name = _NAMES[kind]
    try:
        image = Image.open(io.BytesIO(data), formats=[name.upper()])
    except Image.DecompressionBombError as exc:
        # Pillow's own guard (about 179 MP) fires inside `open`, before the size is seen here.
        raise PhotoError("too_large", f"image is too large to open: {exc}") from exc
    except (OSError, SyntaxError, ValueError, EOFError, struct.error) as exc:
        raise PhotoError("truncated", f"{name} file is truncated or damaged in its header") from exc
    if kind == "jpeg":
        # Pillow stops reading at the first scan. Entropy-coded data never contains FF D9 (FF is
        # stuffed), so any one after it ends an image; a file cut short lacks it. Looked for from
        # the end, where it is: searching forward through a 12 MP photo's stuffed FFs took 2 ms.
        if data.rfind(b"\xff\xd9", image.fp.tell()) < 0:
            image.close()
            raise PhotoError("truncated", "JPEG file is truncated (no end-of-image marker)")
    elif kind == "png" and b"IEND" not in data[-12:]:
        image.close()
        raise PhotoError("truncated", "PNG file is truncated (no IEND chunk)")
    # A WebP cut short is refused by libwebp in `open` already.
    width, height = image.size
    return PhotoHeader(kind, width, height, _orientation(image)), image


def _orientation(image: Image.Image) -> int:
    """The EXIF orientation tag (1..8) of the EXIF block read with the header; 1 when absent or
    unreadable (a damaged EXIF block leaves the photo as stored rather than refusing it)."""
    # Not `image.getexif()`: for a PNG it decodes the whole image, looking for a late eXIf chunk.
    exif = Image.Exif()
    try:
        exif.load(image.info.get("exif", b""))
    except (SyntaxError, ValueError, struct.error):
        return 1
    value = exif.get(ExifTags.Base.Orientation, 1)
    return value if isinstance(value, int) and 1 <= value <= 8 else 1


def _decode_opencv(data: bytes, header: PhotoHeader, target_long_side: int) -> np.ndarray:
    """A JPEG, PNG or WebP as stored, BGR; a JPEG reduced while its long side stays at or over
    `target_long_side`."""
    factor = 1
    if header.format == "jpeg":
        long_side = max(header.width, header.height)
        while factor < 8 and long_side // (factor * 2) >= target_long_side:
            factor *= 2
    buffer = np.frombuffer(data, dtype=np.uint8)
    image = cv2.imdecode(buffer, _REDUCED_FLAGS[factor] | cv2.IMREAD_IGNORE_ORIENTATION)
    if image is None:
        raise PhotoError("not_image", f"the {_NAMES[header.format]} data could not be decoded")
    return image


def _decode_heif(image: Image.Image) -> np.ndarray:
    """A HEIF's pixels as BGR, at full size (libheif cannot reduce: ~1.2 s for 12 MP on two
    cores); libheif applies the file's rotation and mirroring as it decodes."""
    try:
        rgb = image.convert("RGB")
    except (OSError, ValueError, EOFError, SyntaxError) as exc:
        detail = str(exc).strip()
        raise PhotoError("truncated", f"HEIF file is truncated or damaged: {detail}") from exc
    return cv2.cvtColor(np.asarray(rgb), cv2.COLOR_RGB2BGR)
