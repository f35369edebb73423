"""Squares that look as they did in the game's previous photo.

A plain blank tile is what an empty square looks most like, so one photo alone may leave a
vacant square in doubt between the two, and a legal play could run through it either way: a
question. The game's previous photo showed that square vacant (the known board has no tile
there, then or now), and a tile laid on it since changes its look: its middle takes the tile's
colour, its rim the tile's edge and shadow. A square is still vacant where its look changed
since no more than most of the board's vacant squares' looks did, and by far less than a tile
would have changed it.

Two photos differ in light, pose and white balance, so a square's look (`vision.calibrate.
cell_looks`) is taken relative to its premium kind's vacant squares in each photo; its change
is scaled, feature by feature, by the vacant squares' typical change, and
- ranked among theirs by its largest: at least the share `UNCHANGED` of them changed as much;
- measured, by its colours, against the way from its kind's vacant look to the photo's tiles'
  look: at most `TOWARDS_TILE` of it. A photo whose light makes a kind's squares look like its
  tiles (a glare washing out a premium colour) tells little by either photo's look.
Both are relative to the photos themselves, not to one camera's noise or one renderer's light.
In rendered games (bench_players, held-out editions, seeds 8, 10 and 12-15: 72 blanks and 3381
lettered tiles laid on squares the previous photo showed vacant), no blank ranked above 0.042
nor came nearer its kind's vacant look than 0.73 of the way to the tiles', no lettered tile met
both; of 35 squares asked about as no tile or a blank, and vacant, 17 met both.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.calibrate import COLOURS

# A square is unchanged where at least this share of the vacant squares' looks changed as much
# as its own, or more,
UNCHANGED = 0.2
# and its colours moved at most this share of the way from its kind's vacant look to the tiles'.
TOWARDS_TILE = 0.5
# A kind's vacant squares must be this many for its looks to be taken relative to them.
_MIN_SIBLINGS = 3
# Vacant squares needed to rank a change among theirs.
_MIN_COMPARED = 20
# Lettered tiles needed to tell the tiles' look.
_MIN_TILES = 3


def unchanged_since(
    now: np.ndarray,
    before: np.ndarray,
    kinds: Sequence[str],
    vacant: np.ndarray,
    tiles: np.ndarray,
    targets: np.ndarray,
) -> np.ndarray:
    """Which `targets` (a mask over the cells, row-major) look now as they did `before`, in the
    game's previous photo: `now` and `before` are the looks of the two photos ([cells,
    features], upright alike), `kinds` the premium kind of each square, `vacant` the squares
    vacant in both photos that this one reads empty, `tiles` the lettered tiles it reads with
    confidence. The module docstring says how; none where too few vacant squares tell how much
    a vacant square's look changes, or too few tiles how a tile looks."""
    now, before = np.asarray(now, np.float64), np.asarray(before, np.float64)
    none = np.zeros(len(now), bool)
    if tiles.sum() < _MIN_TILES:
        return none
    kind_of = np.asarray(kinds)
    change = np.full(now.shape, np.nan)
    # Per square, the way from its kind's vacant look to the tiles' look, in this photo.
    to_tile = np.full(now.shape, np.nan)
    tile_look = np.median(now[tiles], axis=0)
    for kind in np.unique(kind_of):
        of_kind = kind_of == kind
        siblings = of_kind & vacant
        if siblings.sum() < _MIN_SIBLINGS:
            continue
        vacant_look = np.median(now[siblings], axis=0)
        change[of_kind] = (now[of_kind] - vacant_look) - (
            before[of_kind] - np.median(before[siblings], axis=0)
        )
        to_tile[of_kind] = tile_look - vacant_look
    compared = vacant & ~np.isnan(change).any(axis=1)
    if compared.sum() < _MIN_COMPARED:
        return none
    centre = np.median(change[compared], axis=0)
    typical = np.maximum(np.median(np.abs(change[compared] - centre), axis=0), 1e-6)
    scaled = (change - centre) / typical
    # NaN where a square's kind has too few vacant squares: such squares are not weighed.
    largest = np.max(np.abs(scaled), axis=1)
    ranked = np.sort(largest[compared])
    # Vacant squares as changed or more, the target itself left out where it is one of them.
    as_changed = len(ranked) - np.searchsorted(ranked, largest, side="left") - compared
    share = as_changed / (len(ranked) - compared)
    moved = np.linalg.norm(scaled[:, COLOURS], axis=1)
    way = np.linalg.norm(to_tile[:, COLOURS] / typical[COLOURS], axis=1)
    with np.errstate(invalid="ignore"):
        unchanged = (share >= UNCHANGED) & (moved <= TOWARDS_TILE * way)
    return targets & ~np.isnan(largest) & unchanged
