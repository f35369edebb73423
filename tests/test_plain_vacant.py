"""Plain squares vacant by their look alone (vision.plain_vacant)."""

import numpy as np

from scorer.variant import load_variant
from vision.plain_vacant import plain_squares, plainly_vacant

WOOD = np.array([180.0, 140.0, 165.0, 175.0, 140.0, 162.0, 4.0])
TILE = np.array([235.0, 128.0, 128.0, 232.0, 128.0, 128.0, 30.0])


def test_plain_squares_are_the_commonest_kind_whichever_way_the_board_lies() -> None:
    layout = load_variant("en").layout.rows
    plain = plain_squares(layout, 15, 15)
    assert plain.sum() == sum(line.count(".") for line in layout)
    # A layout that a quarter turn changes: only squares plain both ways, and on a board that
    # is not square only the turns that fit the grid as seen count.
    lopsided = ["..=", "...", "..."]
    assert plain_squares(lopsided, 3, 3).reshape(3, 3).tolist() == [
        [False, True, False],
        [True, True, True],
        [False, True, False],
    ]
    wide = ["...-", "...."]
    assert plain_squares(wide, 2, 4).reshape(2, 4).tolist() == [
        [True, True, True, False],
        [False, True, True, True],
    ]
    assert plain_squares(wide, 4, 2).reshape(4, 2).tolist() == [
        [False, True],
        [True, True],
        [True, True],
        [True, False],
    ]
    assert not plain_squares(wide, 3, 3).any()


def test_vacant_plain_squares_are_taken_and_tiles_on_them_are_not() -> None:
    rng = np.random.default_rng(5)
    plain = np.ones(225, bool)
    plain[:40] = False  # premium squares: never taken
    looks = WOOD + rng.normal(0, [4.0, 1.0, 1.0, 4.0, 1.0, 1.0, 0.5], (225, 7))
    looks[100:160] = TILE + rng.normal(0, 2.0, (60, 7))  # 60 lettered tiles
    looks[160] = WOOD + [0, 0, 0, 0, 0, 0, 9.0]  # a square with a little ink: a tile's edge?
    taken = plainly_vacant(looks, plain)
    assert set(taken) <= set(range(40, 100)) | set(range(161, 225))
    assert len(taken) >= 0.8 * 124
    # The least like the core come first: the caller has the models read those.
    spread = np.median(np.abs(looks[taken] - np.median(looks[taken], axis=0)), axis=0)
    far = (np.abs(looks[taken] - np.median(looks[taken], axis=0)) / spread).max(axis=1)
    assert far[0] > np.median(far)
