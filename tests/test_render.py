"""The synthetic board renderer: deterministic, and its grid corners are where it drew the grid."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("PIL", reason="the renderer needs Pillow (dev extra)")

from training.dataset import rectify_to_grid  # noqa: E402
from training.render import (  # noqa: E402
    ERUDIT_BLUES,
    Pose,
    erudit_style,
    random_rows,
    render_board_photo,
)

EMPTY = ["." * 15] * 15


def test_same_seed_same_photo() -> None:
    rows = random_rows(np.random.default_rng(3), tuple("АБВГД"), 0.3)
    a, corners_a, _ = render_board_photo(rows, "ru", seed=11, size=(480, 360))
    b, corners_b, truth = render_board_photo(rows, "ru", seed=11, size=(480, 360))
    c, _, _ = render_board_photo(rows, "ru", seed=12, size=(480, 360))
    assert a.shape == (360, 480, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b) and np.array_equal(corners_a, corners_b)
    assert not np.array_equal(a, c)
    assert truth == rows


@pytest.mark.parametrize("turns", [0, 1, 3])
def test_corners_follow_the_drawn_grid(turns: int) -> None:
    pose = Pose(quarter_turns=turns, angle=7.0, tilt=25.0, tilt_direction=40.0, fill=0.8)
    photo, corners, _ = render_board_photo(EMPTY, "erudit", erudit_style(), 5, (900, 900), pose)
    assert corners.shape == (4, 2)
    cell = 32
    grid = rectify_to_grid(photo, corners, cell).astype(np.float32).mean(axis=2)
    # The Эрудит grid lines are darker than the cells: each interior line is a dip in the
    # mean brightness of columns (and of rows) within 2 px of a multiple of the cell size.
    for profile in (grid.mean(axis=0), grid.mean(axis=1)):
        for k in range(1, 15):
            window = profile[k * cell - 6 : k * cell + 7]
            assert abs(int(window.argmin()) - 6) <= 2, (turns, k)


def test_board_turn_moves_the_first_corner() -> None:
    upright, c0, _ = render_board_photo(EMPTY, "en", seed=2, size=(600, 600), pose=Pose(fill=0.7))
    turned, c1, _ = render_board_photo(
        EMPTY, "en", seed=2, size=(600, 600), pose=Pose(quarter_turns=1, fill=0.7)
    )
    # Corners are in board order: a quarter turn moves row 1/column A from top-left to top-right.
    assert c0[0, 0] < 300 and c0[0, 1] < 300
    assert c1[0, 0] > 300 and c1[0, 1] < 300


def test_erudit_style_blues_span_the_measured_range() -> None:
    plain = erudit_style()
    assert plain.value_beside and plain.tile_face == ERUDIT_BLUES[0]
    faces = np.array([erudit_style(np.random.default_rng(s)).tile_face for s in range(20)])
    low, high = np.minimum(*ERUDIT_BLUES), np.maximum(*ERUDIT_BLUES)
    assert ((faces >= low - 1) & (faces <= high + 1)).all()
    assert len({tuple(f) for f in faces}) > 10
    assert erudit_style(np.random.default_rng(4)) == erudit_style(np.random.default_rng(4))
