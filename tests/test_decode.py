"""vision.decode: EXIF orientation, reduced-size decoding, HEIC, and refusal of bad or hostile
files."""

from __future__ import annotations

import io
import struct
import zlib

import cv2
import numpy as np
import pillow_heif
import pytest
from PIL import Image

from vision.decode import PhotoError, apply_orientation, decode_photo, media_type, read_header


def _jpeg(image: np.ndarray, quality: int = 90) -> bytes:
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return encoded.tobytes()


def _with_orientation(jpeg: bytes, orientation: int, big_endian: bool = False) -> bytes:
    """Insert an APP1 EXIF segment holding only the orientation tag after the SOI marker."""
    e = ">" if big_endian else "<"
    tiff = (b"MM" if big_endian else b"II") + struct.pack(e + "HI", 42, 8)
    tiff += struct.pack(e + "H", 1) + struct.pack(e + "HHIHH", 0x0112, 3, 1, orientation, 0)
    tiff += b"\0\0\0\0"
    app1 = b"Exif\x00\x00" + tiff
    return jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:]


def _marked_image() -> np.ndarray:
    """400x600 image: red block at the top-left, blue block at the bottom-right."""
    image = np.full((400, 600, 3), 128, np.uint8)
    image[:100, :150] = (0, 0, 255)
    image[300:, 450:] = (255, 0, 0)
    return image


@pytest.mark.parametrize("orientation", range(1, 9))
def test_exif_orientation_matches_opencv(orientation: int) -> None:
    data = _with_orientation(_jpeg(_marked_image()), orientation, big_endian=orientation % 2 == 0)
    assert read_header(data).orientation == orientation
    expected = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    photo = decode_photo(data, target_long_side=10_000)
    assert photo.image.shape == expected.shape
    assert np.abs(photo.image.astype(int) - expected).mean() < 1
    assert (photo.width, photo.height) == (expected.shape[1], expected.shape[0])


def test_orientation_6_turns_the_photo_clockwise() -> None:
    photo = decode_photo(_with_orientation(_jpeg(_marked_image()), 6), target_long_side=10_000)
    assert photo.image.shape[:2] == (600, 400)
    # The stored top-left (red) is now at the top-right.
    assert photo.image[20, 380].tolist() == pytest.approx([0, 0, 255], abs=20)


def test_apply_orientation_round_trip() -> None:
    image = _marked_image()
    assert np.array_equal(apply_orientation(apply_orientation(image, 3), 3), image)
    assert np.array_equal(apply_orientation(image, 1), image)


def test_large_jpeg_is_decoded_at_reduced_size_with_orientation() -> None:
    big = cv2.resize(_marked_image(), (4000, 3000), interpolation=cv2.INTER_NEAREST)
    photo = decode_photo(_with_orientation(_jpeg(big, 80), 8), target_long_side=1500)
    assert photo.image.shape[:2] == (2000, 1500)
    assert photo.scale == 2.0
    assert (photo.width, photo.height) == (3000, 4000)
    # Orientation 8 turns counter-clockwise: the stored top-left (red) goes to the bottom-left.
    assert photo.image[1950, 30].tolist() == pytest.approx([0, 0, 255], abs=30)


def test_png_and_webp_are_decoded() -> None:
    image = _marked_image()
    for ext in (".png", ".webp"):
        ok, encoded = cv2.imencode(ext, image)
        assert ok
        photo = decode_photo(encoded.tobytes())
        assert photo.image.shape == image.shape
        assert read_header(encoded.tobytes()).width == 600


def _png_chunk(kind: bytes, payload: bytes) -> bytes:
    return (
        struct.pack(">I", len(payload))
        + kind
        + payload
        + struct.pack(">I", zlib.crc32(kind + payload))
    )


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"", "empty"),
        (bytes(np.random.default_rng(3).integers(0, 256, 5000, dtype=np.uint8)), "not_image"),
        (b"GIF89a" + b"\0" * 100, "not_image"),
        (b"\0\0\0\x18ftypheic" + b"\0" * 100, "truncated"),
        (b"\0\0\0\x18ftypavif" + b"\0" * 100, "not_image"),
        (b"\xff\xd8\xff", "truncated"),
        (b"\x89PNG\r\n\x1a\n\0\0", "truncated"),
        (b"RIFF\x10\0\0\0WEBPVP8 ", "truncated"),
    ],
)
def test_bad_bytes_are_refused(data: bytes, code: str) -> None:
    with pytest.raises(PhotoError) as info:
        decode_photo(data)
    assert info.value.code == code
    assert info.value.message


def test_truncated_jpeg_is_refused() -> None:
    data = _jpeg(_marked_image())
    with pytest.raises(PhotoError) as info:
        decode_photo(data[: len(data) // 2])
    assert info.value.code == "truncated"


def test_truncated_png_is_refused() -> None:
    ok, encoded = cv2.imencode(".png", _marked_image())
    data = encoded.tobytes()
    with pytest.raises(PhotoError) as info:
        decode_photo(data[: len(data) // 2])
    assert info.value.code == "truncated"


def _png_bomb(width: int, height: int) -> bytes:
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr) + _png_chunk(b"IEND", b"")


def test_decompression_bomb_is_refused_before_decoding() -> None:
    # 10^10 pixels: over Pillow's own guard, which refuses it inside `Image.open`.
    for call in (decode_photo, read_header):
        with pytest.raises(PhotoError) as info:
            call(_png_bomb(100_000, 100_000))
        assert info.value.code == "too_large"
        assert info.value.message


def test_pixel_limit_names_the_size() -> None:
    # 81 MP: under Pillow's guard, over ours; refused from the header (the PNG has no pixels).
    with pytest.raises(PhotoError) as info:
        decode_photo(_png_bomb(9000, 9000))
    assert info.value.code == "too_large"
    assert "9000x9000" in info.value.message


def test_pixel_limit_applies_to_jpeg_header() -> None:
    with pytest.raises(PhotoError) as info:
        decode_photo(_jpeg(_marked_image()), max_pixels=100_000)
    assert info.value.code == "too_large"


def _pillow_bytes(image: np.ndarray, fmt: str, orientation: int = 1, **options) -> bytes:
    """`image` (BGR) saved by Pillow as `fmt`, with an EXIF orientation tag unless it is 1."""
    if orientation != 1:
        exif = Image.Exif()
        exif[0x0112] = orientation
        options["exif"] = exif.tobytes()
    out = io.BytesIO()
    Image.fromarray(image[:, :, ::-1]).save(out, format=fmt, **options)
    return out.getvalue()


def _textured_image() -> np.ndarray:
    """The marked image with smooth shading, so lossy codecs keep it close."""
    image = _marked_image().astype(np.int16)
    image[:, :, 1] += np.linspace(-60, 60, image.shape[1]).astype(np.int16)
    return np.clip(image, 0, 255).astype(np.uint8)


needs_heif_encoder = pytest.mark.skipif(
    not pillow_heif.libheif_info().get("HEIF"), reason="this libheif has no HEVC encoder"
)


@needs_heif_encoder
def test_heic_is_decoded() -> None:
    image = _textured_image()
    data = _pillow_bytes(image, "HEIF", quality=90)
    assert read_header(data).format == "heif"
    photo = decode_photo(data)
    assert photo.image.shape == image.shape
    assert (photo.width, photo.height, photo.scale) == (600, 400, 1.0)
    assert np.abs(photo.image.astype(int) - image).mean() < 3


@needs_heif_encoder
@pytest.mark.parametrize("orientation", [3, 6, 8])
def test_heic_orientation_is_honoured(orientation: int) -> None:
    image = _textured_image()
    photo = decode_photo(_pillow_bytes(image, "HEIF", orientation, quality=90))
    expected = apply_orientation(image, orientation)
    assert photo.image.shape == expected.shape
    assert (photo.width, photo.height) == (expected.shape[1], expected.shape[0])
    assert np.abs(photo.image.astype(int) - expected).mean() < 3


@needs_heif_encoder
def test_truncated_or_oversized_heic_is_refused() -> None:
    data = _pillow_bytes(_textured_image(), "HEIF", quality=90)
    with pytest.raises(PhotoError) as info:
        decode_photo(data[: len(data) // 2])
    assert info.value.code == "truncated"
    with pytest.raises(PhotoError) as info:
        decode_photo(data, max_pixels=100_000)
    assert info.value.code == "too_large"


@pytest.mark.parametrize("fmt", ["PNG", "WEBP"])
def test_exif_orientation_of_png_and_webp_is_applied(fmt: str) -> None:
    image = _marked_image()
    data = _pillow_bytes(image, fmt, 6, lossless=True)  # WebP's option; PNG is lossless anyway
    assert read_header(data).orientation == 6
    photo = decode_photo(data)
    assert np.array_equal(photo.image, apply_orientation(image, 6))


@pytest.mark.filterwarnings("ignore:Corrupt EXIF data")
def test_damaged_exif_block_leaves_the_photo_as_stored() -> None:
    jpeg = _jpeg(_marked_image())
    app1 = b"Exif\x00\x00MM\x00\x2a\xff\xff\xff\xff"
    data = jpeg[:2] + b"\xff\xe1" + struct.pack(">H", len(app1) + 2) + app1 + jpeg[2:]
    assert read_header(data).orientation == 1
    assert decode_photo(data).image.shape == (400, 600, 3)


def test_truncated_jpeg_with_an_embedded_thumbnail_is_refused() -> None:
    # The thumbnail's own end-of-image marker lies before the scan and must not count.
    thumbnail = _jpeg(cv2.resize(_marked_image(), (60, 40)))
    jpeg = _jpeg(_marked_image())
    app2 = b"THUMB\x00" + thumbnail
    data = jpeg[:2] + b"\xff\xe2" + struct.pack(">H", len(app2) + 2) + app2 + jpeg[2:]
    assert decode_photo(data).image.shape == (400, 600, 3)
    for call in (read_header, decode_photo):
        with pytest.raises(PhotoError) as info:
            call(data[:-2])
        assert info.value.code == "truncated"


def test_media_type_names_each_format_decoded_and_no_other() -> None:
    """Stored photos are served with the type their bytes are (an iPhone's HEIC as image/heif,
    not image/jpeg)."""
    image = np.full((16, 16, 3), 90, np.uint8)
    assert media_type(_jpeg(image)) == "image/jpeg"
    assert media_type(_pillow_bytes(image, "PNG")) == "image/png"
    assert media_type(_pillow_bytes(image, "WEBP")) == "image/webp"
    assert media_type(b"\0\0\0\x18ftypheic" + b"\0" * 16) == "image/heif"
    assert media_type(b"GIF89a" + b"\0" * 16) is None
    assert media_type(b"") is None
