"""The board-relative calibration of `vision.calibrate`, all kinds and cells at once, against the
loops it replaced (tests/calibrate_reference.py): the same scores to 1e-9, and the same answered
squares, on random boards and on what reading rendered and real photos hands it."""

from __future__ import annotations

import calibrate_reference as reference
import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.variant import load_variant
from training.dataset import real_board_photos
from training.render import (
    EDITION_KINDS,
    heldout_edition,
    random_rows,
    random_style,
    render_board_photo,
)
from vision import calibrate, classify
from vision.classify import CellClassifier
from vision.pipeline import read_board

TOLERANCE = 1e-9
# Premium codes of the random boards; '*' is given to one square at most (a centre).
CODES = ".=-+#"


@st.composite
def boards(draw: st.DrawFn) -> dict:
    """A random board: its size, premium kinds (a lone centre or not), looks clustered around a
    few colours (float32 as `cell_looks` gives them, or float64), scores with a random share of
    sure cells, and tile counts small enough that look-alikes (more of one tile than the set
    holds) are common."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    rows, cols = draw(st.integers(3, 15)), draw(st.integers(3, 15))
    cells, labels = rows * cols, draw(st.integers(3, 6))
    kinds = list(rng.choice(list(CODES[: draw(st.integers(1, len(CODES)))]), cells))
    if draw(st.booleans()):
        kinds[cells // 2] = "*"
    centres = rng.normal(150, 40, (draw(st.integers(1, 4)), 7))
    looks = centres[rng.integers(0, len(centres), cells)]
    looks = looks + rng.normal(0, draw(st.floats(0.5, 12)), (cells, 7))
    if draw(st.booleans()):
        looks = looks.astype(np.float32)
    scores = rng.dirichlet(np.full(labels, 0.3), cells)
    sure = rng.random(cells) < draw(st.floats(0, 1))
    top = rng.integers(0, labels, cells)
    scores[sure] = 0.002 / (labels - 1)
    scores[sure, top[sure]] = 0.998
    counts = rng.integers(0, 4, labels)
    counts[0] = 0
    masks = rng.random((4, cells)) < [[0.2], [0.5], [0.3], [0.2]]
    return {
        "scores": scores,
        "looks": looks,
        "kinds": kinds,
        "counts": counts,
        "cols": cols,
        "masks": masks,
    }


@settings(max_examples=300, deadline=None)
@given(boards())
def test_random_boards_weigh_as_the_loops_did(board: dict) -> None:
    looks = calibrate.BoardLooks(board["looks"], board["kinds"], board["cols"])
    got = calibrate.relative_to_board(board["scores"], looks, 0, 1, board["counts"])
    want = reference.relative_to_board(
        board["scores"], board["looks"], board["kinds"], 0, 1, board["counts"], board["cols"]
    )
    assert np.abs(got - want).max() <= TOLERANCE


@settings(max_examples=300, deadline=None)
@given(boards())
def test_random_answers_are_alike_as_the_loops_found(board: dict) -> None:
    args = (board["looks"], board["kinds"], board["cols"], *board["masks"])
    assert (calibrate.like_answered(*args) == reference.like_answered(*args)).all()


@pytest.fixture(scope="module")
def classifier() -> CellClassifier:
    return CellClassifier()


@pytest.fixture
def compared(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every weighing a reading asks for is also done by the loops; the largest difference of
    each is recorded."""
    differences: list[float] = []

    def both(
        scores: np.ndarray, looks: calibrate.BoardLooks, empty: int, blank: int, counts: np.ndarray
    ) -> np.ndarray:
        got = calibrate.relative_to_board(scores, looks, empty, blank, counts)
        want = reference.relative_to_board(
            scores, looks.looks, list(looks.kinds), empty, blank, counts, looks.cols
        )
        differences.append(float(np.abs(got - want).max()))
        return got

    monkeypatch.setattr(classify, "relative_to_board", both)
    return differences


def _jpeg(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return data.tobytes()


@pytest.mark.parametrize("kind", EDITION_KINDS)
def test_rendered_photos_weigh_as_the_loops_did(
    kind: str, classifier: CellClassifier, compared: list[float]
) -> None:
    """A held-out edition (the boards the calibration is for) and a random one as phones see
    it, from near empty to half full, each read whole on its drawn grid: both weighings of each
    reading."""
    index = EDITION_KINDS.index(kind)
    variant = ("ru", "en", "erudit")[index % 3]
    rng = np.random.default_rng(7_200_000 + index)
    rows = random_rows(rng, load_variant(variant).alphabet, 0.05 + 0.2 * index)
    for style in (heldout_edition(rng, kind), random_style(rng)):
        image, corners, _ = render_board_photo(rows, variant, style, 7_200_000 + index, (1000, 750))
        read_board(_jpeg(image), load_variant(variant), classifier, corners=corners.tolist())
    assert len(compared) == 2 * 2
    assert max(compared) <= TOLERANCE


def test_real_photos_weigh_as_the_loops_did(
    shared, classifier: CellClassifier, compared: list[float]
) -> None:
    photos = real_board_photos(shared)
    if not photos:
        pytest.skip("no real board photos of known position in ../shared")
    for _, path, variant, _ in photos[:: max(1, len(photos) // 4)]:
        read_board(path.read_bytes(), load_variant(variant), classifier)
    assert compared and max(compared) <= TOLERANCE
