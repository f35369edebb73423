"""Plain squares that their look alone shows vacant, so the cell models need not read them.

The first cell model reads every square of a photo, and most squares of most photos are empty:
on the nine 12 MP photos of `benchmarks/bench_read.py` that read was a quarter of the time. The
board's plain squares (its commonest premium kind) carry no print, and in one photo the vacant
ones look alike; a tile on one shows a letter's ink, its own colour, its edge or its shadow. So a
plain square whose look (`vision.calibrate.cell_looks`: the middle's and the rim's colours and
the middle's ink) lies close to the core of its kind's looks in every feature is vacant, without
the models.

The core: the kind's median look and spread (median absolute deviation, at least
`SPREAD_FLOOR` of the light's variation), then twice the median and spread of the squares
within `CORE` of it, so that tiles (up to 90 on a plain kind of 164 squares in the held-out
editions) neither move its middle nor widen it. Where fewer than a quarter of the kind lie in the
core, nothing is taken. Chosen on 356 photos: the first 45 of bench_editions' held-out editions
(both variant families), the first 118 of its seeds 7400000 and 7500000 (wood prints of every
grain, tiles the squares' colour, premium squares of any hue) and the 30 real photos of
../shared: 59-62 % of the vacant squares taken, and none of the 10,762 tiles on plain squares;
the nearest tiles lay at 3.33 (an English real board's), 4.13 and 4.93 of the spread.
Measuring from the whole kind's median and spread instead, three tiles without ink (blanks) lay
under 2.3; with a core of 1.5, the real boards' light across the board left too few squares in
the core on 18 of the 30 photos.

Not a decision on its own: the caller has the models read the `CHECKED` taken squares least
like the core, and reads every square where one of them is no vacant square to the models (a
kind whose core is its tiles, late in a game).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.calibrate import FLOOR

# Standardised distance, per feature, within which a square lies in its kind's core.
CORE = 2.5
# Standardised distance, per feature, within which a plain square is vacant by its look.
NEAR = 2.5
# The spreads are at least this share of `vision.calibrate.FLOOR` (the light across a board).
SPREAD_FLOOR = 0.3
# Rounds of the core.
_ROUNDS = 2
# Taken squares the models read all the same, the least like the core first.
CHECKED = 8


def plain_squares(layout: Sequence[str], rows: int, cols: int) -> np.ndarray:
    """The squares (row-major, `rows` × `cols` as the grid is seen) of the layout's commonest
    premium kind whichever way the board is turned to fit that grid: a reading decides the turn
    only after the models have read it."""
    upright = np.array([list(line) for line in layout])
    codes, counts = np.unique(upright, return_counts=True)
    plain = upright == codes[counts.argmax()]
    turns = [np.rot90(plain, k) for k in range(4) if np.rot90(plain, k).shape == (rows, cols)]
    if not turns:
        return np.zeros(rows * cols, bool)
    return np.logical_and.reduce(turns).ravel()


def plainly_vacant(looks: np.ndarray, plain: np.ndarray) -> np.ndarray:
    """The `plain` squares (a mask) whose `looks` ([N, 7], `cell_looks`) lie within `NEAR` of
    their kind's core in every feature, as indices, the least like the core first."""
    distance = _from_core(looks, plain)
    if distance is None:
        return np.zeros(0, int)
    taken = np.flatnonzero(plain & (distance <= NEAR))
    return taken[np.argsort(-distance[taken], kind="stable")]


def _from_core(looks: np.ndarray, members: np.ndarray) -> np.ndarray | None:
    """Each square's largest standardised distance, over the features, from the core of the
    `members`' looks; None where too few members lie in the core."""
    floor = FLOOR * SPREAD_FLOOR
    core = members
    for _ in range(_ROUNDS + 1):
        middle = np.median(looks[core], axis=0)
        spread = np.maximum(1.4826 * np.median(np.abs(looks[core] - middle), axis=0), floor)
        distance = (np.abs(looks - middle) / spread).max(axis=1)
        core = members & (distance <= CORE)
        if core.sum() < max(4, members.sum() / 4):
            return None
    return distance
