"""vision.grid_area: the learned mask of the playing grid on editions it never trained on, the
outline the locator takes from it, and the locator without the model."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from scorer.variant import load_variant
from training.render import bag_rows, heldout_edition, render_board_photo
from vision import grid_area, locate
from vision.grid_area import area_mask, grid_mask, network_input
from vision.locate import BoardNotFound, locate_grid

LAYOUT = load_variant("en").layout.rows


def corner_error_cells(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance in cells, taking the found corners in any cyclic order."""
    cell = np.linalg.norm(truth[1] - truth[0]) / 15
    return min(
        float(np.linalg.norm(np.roll(found, s, axis=0) - truth, axis=1).max()) / cell
        for s in range(4)
    )


def heldout_photo(seed: int, kind: str, size=(1600, 1200)) -> tuple[np.ndarray, np.ndarray]:
    """A photo of the held-out edition family, as bench_editions draws them, and its grid."""
    rng = np.random.default_rng(seed)
    style = heldout_edition(rng, kind)
    variant = load_variant("erudit")
    rows = bag_rows(rng, variant, int(rng.integers(0, 90)))
    image, corners, _ = render_board_photo(rows, variant.name, style, seed, size)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR), corners


def test_network_input_keeps_the_long_side_and_multiples_of_sixteen() -> None:
    small = network_input(np.zeros((1200, 1600, 3), np.uint8))
    assert small.shape == (192, 256, 3)
    portrait = network_input(np.zeros((1100, 733, 3), np.uint8))
    assert portrait.shape[0] == 256 and portrait.shape[1] % 16 == 0


@pytest.mark.parametrize(("seed", "kind"), [(9_600_001, "wood_print"), (9_600_002, "german")])
def test_the_mask_covers_the_grid_of_a_heldout_edition(seed: int, kind: str) -> None:
    image, corners = heldout_photo(seed, kind, (640, 480))
    mask = area_mask(image)
    assert mask is not None and mask.shape == image.shape[:2]
    truth = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(truth, [np.rint(corners).astype(np.int32)], 255)
    overlap = np.logical_and(mask > 0, truth > 0).sum() / np.logical_or(mask > 0, truth > 0).sum()
    assert overlap > 0.9


def test_a_board_without_lines_is_found_from_the_learned_outline(monkeypatch) -> None:
    # A wood-print board of the held-out family that no other mask outlines well enough: the
    # grid is found only with the net's outline among the candidates.
    image, truth = heldout_photo(7_000_322, "wood_print")
    found = locate_grid(image, 15, 15, load_variant("erudit").layout.rows)
    assert corner_error_cells(found.corners, truth) < 0.3
    monkeypatch.setattr(locate, "area_mask", lambda work: None)
    with pytest.raises(BoardNotFound):
        locate_grid(image, 15, 15, load_variant("erudit").layout.rows)


def test_the_locator_does_without_the_model(monkeypatch) -> None:
    monkeypatch.setattr(grid_area, "_shipped", lambda: None)
    grid_area._session.cache_clear()
    try:
        assert area_mask(np.zeros((480, 640, 3), np.uint8)) is None
        with pytest.raises(FileNotFoundError):
            grid_mask(np.zeros((480, 640, 3), np.uint8))
        image, truth = heldout_photo(9_600_003, "any", (960, 720))
        found = locate_grid(image, 15, 15, load_variant("erudit").layout.rows)
        assert corner_error_cells(found.corners, truth) < 0.3
    finally:
        grid_area._session.cache_clear()
