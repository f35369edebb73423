"""vision.decode: EXIF orientation, reduced-size decoding, and refusal of bad or hostile files."""

from __future__ import annotations

import struct
import zlib

import cv2
import numpy as np
import pytest

from vision.decode import PhotoError, apply_orientation, decode_photo, read_header


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
        (b"\0\0\0\x18ftypheic" + b"\0" * 100, "unsupported"),
        (b"\xff\xd8\xff", "truncated"),
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


def test_decompression_bomb_is_refused_before_decoding() -> None:
    ihdr = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 2, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr) + _png_chunk(b"IEND", b"")
    with pytest.raises(PhotoError) as info:
        decode_photo(data)
    assert info.value.code == "too_large"
    assert "100000x100000" in info.value.message


def test_pixel_limit_applies_to_jpeg_header() -> None:
    with pytest.raises(PhotoError) as info:
        decode_photo(_jpeg(_marked_image()), max_pixels=100_000)
    assert info.value.code == "too_large"
