"""Tile or empty, decided against the board itself: a photo of a board is its own calibration.

A classifier trained on rendered editions judges each square alone, so on an edition it never
saw it may take every wood-print square, or every square of one premium colour, for a blank
tile. But the layout says which squares share a premium kind, and in one photo the empty squares
of a kind look alike; the lettered tiles read with confidence show what this edition's tiles look
like. So:

1. Each cell gets a look: the median colour (lightness and two opponent colours, divided by the
   lightness so a shadow, a glare or a dark band of grain moves the lightness only) of its middle
   and of its rim (the rim shows the grid lines on an empty square, the tile's edge and shadow on
   a tile), and the spread of lightness in its middle (a letter's ink, a label's print, grain).
   Lightness is given a wider tolerance than hue, for the same reason.
2. Per premium kind, the squares the classifier is sure are empty give that kind's empty look,
   with its squares whose colours are plainly unlike the tiles' (step 3): the squares the
   classifier is sure of are the typical ones (the lit side of a wood print's grain), so alone
   they would make the look too narrow for the rest. Where it is sure of none, but reads more of
   one tile on squares of one kind, or of the whole board, than the whole set holds (eight blank
   tiles, or a printed "3" read as seven З), those look-alikes are that kind's empty look, with
   its squares plainly unlike the tiles (then only as doubts: no sure empty vouches for them).
   Where nothing vouches for any square of a kind of several, its majority look is its empty
   look, as doubts: most squares of any kind are empty in most photos.
3. The lettered tiles read with confidence, but for such look-alikes, give the tile look.
4. Each cell's odds of being empty are multiplied by how much better the empty look of its kind
   explains its colours than the tile look does (a ratio of two diagonal Gaussians), bounded
   both ways. Only a cell that lies among its empty siblings, its middle's spread included, is
   made likelier to be empty (one of its siblings' hue and ink and plainly no tile counts as
   among them whatever its light, a glare or a shadow, as a doubt), and only if it is no
   plausible tile: a broad spread of wood-print empties must not swallow a lettered tile whose
   light is a little off, nor a wooden blank on a square of nearly its colour; but for a
   look-alike (step 2) that its empty siblings explain better than the tiles do: most of those
   are empty, so it reads empty, as a doubt (`DOUBT`), since any one of them may be the tile.
   A square with no empty sibling to compare with (the centre, a kind of its own) whose colours
   are plainly unlike the tiles', or that is no plausible tile and lies among another kind's
   sure empties, reads empty, as a doubt. With no tile look to compare (an empty board), a
   square like its empty siblings is only made likelier to be empty, never likelier to be a
   tile: a glare spot on an empty square must not become a tile.

A doubt reads empty no surer than `DOUBT`, below what the tracker takes as read, so a true tile
among such squares is asked about, never dropped silently.
"""

from __future__ import annotations

import cv2
import numpy as np

# Features: lightness and two opponent colours (red-green, yellow-blue, as at one lightness) of
# the middle, then of the rim, then the standard deviation of lightness in the middle. The
# colours are a fixed linear map of BGR on Lab's scale: OpenCV's Lab conversion cost 25 ms a
# board here, this a fraction of one. The tile look compares colours only (`_COLOURS`): tiles
# read with confidence carry letters, blanks do not.
_MIDDLE = (0.25, 0.75)
_RIM = 0.12
_COLOUR_FEATURES = 6
_COLOURS = slice(0, _COLOUR_FEATURES)
# All features but the lightness: the opponent colours of the middle and of the rim, the middle's
# spread (a letter's ink).
_BUT_LIGHT = [1, 2, 4, 5, 6]
# BGR -> (lightness, red-green, yellow-blue), each about 0-255 wide like OpenCV's 8-bit Lab.
OPPONENT = np.array([[0.114, 0.587, 0.299], [0.0, -0.5, 0.5], [-0.5, 0.25, 0.25]], dtype=np.float32)
# The opponent colours are given as at this lightness, and as at `DARKEST` for darker squares
# (whose hue is mostly noise).
LIGHT = 128.0
DARKEST = 32.0
# Smallest spread per feature: lighting across a board varies more than the siblings measured,
# and its lightness (shadows, glare, bands of grain) much more than its hue.
FLOOR = np.array([15.0, 5.0, 5.0, 15.0, 5.0, 5.0, 3.0])
# How far the photo may move a cell's odds: up to 10⁶× towards empty (a square plainly like its
# empty siblings and unlike the tiles, however sure the classifier), 10× towards a tile.
MAX_TOWARDS_EMPTY = np.log(1e6)
MAX_TOWARDS_TILE = np.log(10.0)
# How near (in cells) a reference square must be to weigh in a square's expected look.
_NEAR = 3.0
# Passes of `relative_to_board`, each taking its references from the last one's verdicts.
PASSES = 3
# A square whose colours lie this many times the features farther from the tile look than a typical
# tile is plainly no tile, and lends its look to its kind's empty reference.
UNLIKE_TILES = 4.0
# How likely to be empty the photo may make a square that is as plausibly a tile as an empty one,
# but one of more look-alikes than the set holds: below `SURE`, so it stays a doubt.
DOUBT = 0.8
# A kind of at least this many squares, none of them vouched for, takes its majority look for
# its empty look (see `_log_ratios`).
MAJORITY = 4
# A cell the classifier is this sure of lends its look to its kind's (or the tiles') reference.
SURE = 0.9


def cell_looks(grid_image: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """[rows·cols, 7] looks of the cells of a rectified BGR grid image, in row-major order."""
    height, width = grid_image.shape[:2]
    # Half the classifier's cell size is plenty for colours, at a quarter of the cost.
    cy, cx = max(8, height // rows // 2), max(8, width // cols // 2)
    small = cv2.resize(grid_image, (cols * cx, rows * cy), interpolation=cv2.INTER_AREA)
    colours = small.astype(np.float32) @ OPPONENT.T
    blocks = colours[: rows * cy, : cols * cx].reshape(rows, cy, cols, cx, 3)
    blocks = blocks.transpose(0, 2, 1, 3, 4).reshape(rows * cols, cy, cx, 3)
    ys, xs = np.mgrid[0:cy, 0:cx]
    fy, fx = (ys + 0.5) / cy, (xs + 0.5) / cx
    lo, hi = _MIDDLE
    middle = (fy >= lo) & (fy < hi) & (fx >= lo) & (fx < hi)
    rim = (np.minimum(fy, 1 - fy) < _RIM) | (np.minimum(fx, 1 - fx) < _RIM)
    centre = blocks[:, middle]
    return np.concatenate(
        [
            _chromaticity(_median(centre)),
            _chromaticity(_median(blocks[:, rim])),
            centre[..., 0].std(axis=1, keepdims=True),
        ],
        axis=1,
    )


def _chromaticity(colours: np.ndarray) -> np.ndarray:
    """[N, 3] (lightness, red-green, yellow-blue) with the two opponent colours divided by the
    lightness (on `LIGHT`'s scale): a shadow, a glare or a dark band of grain scales a square's
    colours, so it moves only the lightness and not its hue, which is what tells a tile."""
    scale = LIGHT / np.maximum(colours[:, :1], DARKEST)
    return np.concatenate([colours[:, :1], colours[:, 1:] * scale], axis=1)


def _median(pixels: np.ndarray) -> np.ndarray:
    """Per-cell median of [N, P, 3] pixels (sorting is many times faster than np.median here)."""
    return np.sort(pixels, axis=1)[:, pixels.shape[1] // 2]


def rotate_looks(looks: np.ndarray, rows: int, cols: int, k: int) -> np.ndarray:
    """Looks moved as `vision.orient.rotate_predictions` moves cells for rotation k."""
    grid = np.rot90(looks.reshape(rows, cols, -1), -(k % 4), axes=(0, 1))
    return np.ascontiguousarray(grid.reshape(rows * cols, -1))


def reference_looks(
    looks: np.ndarray, where: np.ndarray, at: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The look expected at each square of `at` ([M, 2] row, column) from reference squares
    `where` ([S, 2]) with `looks` ([S, F]): a mean weighted by nearness, so light falling off
    across the board or a glare does not pass for another look; and one robust spread per
    feature, of the references about their own expected looks."""

    def local(points: np.ndarray) -> np.ndarray:
        gap = ((points[:, None, :] - where[None, :, :]) ** 2).sum(axis=2)
        # Leave the square itself out: its own look must not vouch for it.
        weight = np.where(gap == 0, 0.0, np.exp(-gap / (2 * _NEAR**2)) + 1e-6)
        return weight @ looks / weight.sum(axis=1, keepdims=True)

    residual = looks - local(where)
    spread = 1.4826 * np.median(np.abs(residual - np.median(residual, axis=0)), axis=0)
    return local(at), np.maximum(spread, FLOOR[: looks.shape[1]])


def _distance(looks: np.ndarray, reference: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Squared standardised distance of each look from a reference."""
    return (((looks - reference[0]) / reference[1]) ** 2).sum(axis=1)


def _log_density(looks: np.ndarray, reference: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    return -0.5 * _distance(looks, reference) - np.log(reference[1]).sum()


def _too_many(scores: np.ndarray, kinds: np.ndarray, empty: int, counts: np.ndarray) -> np.ndarray:
    """The cells of one kind, or of the whole board, read as one tile more often than the set
    holds it (look-alikes: a kind's empty squares taken for one tile)."""
    top = scores.argmax(axis=1)
    too_many = np.zeros(len(scores), bool)
    for kind in [*np.unique(kinds), None]:
        members = kinds == kind if kind is not None else np.ones(len(scores), bool)
        labels, seen = np.unique(top[members], return_counts=True)
        for label, count in zip(labels, seen, strict=True):
            if label != empty and count > max(int(counts[label]), 1):
                too_many |= members & (top == label)
    return too_many


def _like_other_kinds(
    looks: np.ndarray,
    kinds: np.ndarray,
    squares: np.ndarray,
    members: np.ndarray,
    scores: np.ndarray,
    empty: int,
) -> np.ndarray:
    """Which `members` lie among the sure empty squares of some other kind."""
    sure_empty = (scores.argmax(axis=1) == empty) & (scores.max(axis=1) >= SURE) & ~members
    alike = np.zeros(len(looks), bool)
    for kind in np.unique(kinds[sure_empty]):
        siblings = sure_empty & (kinds == kind)
        if siblings.sum() < 2:
            continue
        reference = reference_looks(looks[siblings], squares[siblings], squares[members])
        alike[members] |= _distance(looks[members], reference) <= 2 * looks.shape[1]
    return alike


def _log_ratios(
    scores: np.ndarray,
    looks: np.ndarray,
    kinds: np.ndarray,
    squares: np.ndarray,
    empty: int,
    blank: int,
    too_many: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Per cell, the log factor by which the photo's own looks move its odds of being empty, and
    which cells it may make no likelier to be empty than `DOUBT`; `too_many` marks the
    classifier's look-alikes (`_too_many`)."""
    top = scores.argmax(axis=1)
    confidence = scores.max(axis=1)
    lettered = (top != empty) & (top != blank) & (confidence >= SURE) & ~too_many
    unlike_tiles = np.zeros(len(scores), bool)
    if lettered.sum() >= 3:
        tile_look = reference_looks(looks[lettered, _COLOURS], squares[lettered], squares)
        unlike_tiles = _distance(looks[:, _COLOURS], tile_look) > UNLIKE_TILES * _COLOUR_FEATURES
        unlike_tiles &= ~lettered
    log_ratio = np.zeros(len(scores))
    doubt = np.zeros(len(scores), bool)
    for kind in np.unique(kinds):
        members = kinds == kind
        sure_empty = members & (top == empty) & (confidence >= SURE)
        if sure_empty.sum() >= 2:
            # The squares the classifier is sure of are the typical ones (the lit side of a
            # wood print's grain); its siblings that are plainly no tile show the rest.
            siblings = sure_empty | (members & unlike_tiles)
        elif (members & (too_many | unlike_tiles)).sum() >= 2:
            # No sure empty of the kind: its look-alikes, and its squares plainly no tile, are
            # its empty look; with no sure empty to vouch for it, the latter only as a doubt.
            siblings = members & (too_many | unlike_tiles)
            doubt |= members & (siblings & unlike_tiles & ~too_many).any()
        elif members.sum() >= MAJORITY:
            # Nothing vouches for any square of the kind: most squares of a kind are empty in
            # most photos, so its squares that look like most of the others read empty, as
            # doubts.
            siblings = members
            doubt |= members
        else:
            # No empty sibling to compare with (the centre square, a kind of its own): a square
            # plainly unlike the tiles, or no plausible tile and like the sure empty squares of
            # another kind (a centre printed as plain squares), reads empty, as a doubt.
            alone = members & (
                unlike_tiles | _like_other_kinds(looks, kinds, squares, members, scores, empty)
            )
            if lettered.sum() >= 3:
                alone &= unlike_tiles | (
                    _distance(looks[:, _COLOURS], tile_look) > 2 * _COLOUR_FEATURES
                )
            log_ratio[alone] = MAX_TOWARDS_EMPTY
            doubt |= alone
            continue
        reference = reference_looks(looks[siblings], squares[siblings], squares[members])
        # A typical sibling lies at a squared distance of about the number of features.
        distance = _distance(looks[members], reference)
        among = distance <= 2 * looks.shape[1]
        # A square of its siblings' hue and ink and plainly no tile is among them whatever its
        # light (a glare spot or a shadow moves the lightness far more than `FLOOR` allows), as
        # a doubt: a glare may wash out a blank tile's colour too.
        unlit = (reference[0][:, _BUT_LIGHT], reference[1][_BUT_LIGHT])
        unlit_distance = _distance(looks[members][:, _BUT_LIGHT], unlit)
        unlit_only = ~among & (unlike_tiles | too_many)[members]
        unlit_only &= unlit_distance <= 2 * len(_BUT_LIGHT)
        among |= unlit_only
        doubt[members] |= unlit_only
        # A cell among its empty siblings is made likelier to be empty by as much as it is close.
        closeness = np.maximum(0.0, 0.5 * (2 * looks.shape[1] - distance))
        closeness[unlit_only] = MAX_TOWARDS_EMPTY
        if lettered.sum() < 3:
            # Only the empty siblings to compare with: nothing is made likelier a tile.
            ratio = closeness
        else:
            colours = (reference[0][:, _COLOURS], reference[1][_COLOURS])
            tiles = reference_looks(looks[lettered, _COLOURS], squares[lettered], squares[members])
            ratio = _log_density(looks[members, _COLOURS], colours) - _log_density(
                looks[members, _COLOURS], tiles
            )
            # A square as plausible a tile as an empty one (wooden blanks on beige squares)
            # is the classifier's to judge, but for one of more look-alikes than the set has
            # tiles (pale premium squares read as blanks): most of those are empty, so one
            # among its empty siblings reads empty, as a doubt, since any may be the tile.
            plausible = _distance(looks[members, _COLOURS], tiles) <= 2 * _COLOUR_FEATURES
            alike = among & plausible & too_many[members] & (ratio > 0)
            ratio = np.where(alike, np.maximum(ratio, closeness), ratio)
            doubt[members] |= alike
            among &= ~plausible | alike
        log_ratio[members] = np.where(among, np.maximum(ratio, 0.0), np.minimum(ratio, 0.0))
    return np.clip(log_ratio, -MAX_TOWARDS_TILE, MAX_TOWARDS_EMPTY), doubt


def _weighed(
    scores: np.ndarray, log_ratio: np.ndarray, empty: int, doubt: np.ndarray
) -> np.ndarray:
    """Scores with each cell's odds of being empty multiplied by exp(log_ratio), those of the
    `doubt` cells to no more than `DOUBT` (or as they were)."""
    p_empty = scores[:, empty]
    odds = p_empty / np.maximum(1 - p_empty, 1e-12) * np.exp(log_ratio)
    new_empty = odds / (1 + odds)
    new_empty = np.where(doubt, np.minimum(new_empty, np.maximum(p_empty, DOUBT)), new_empty)
    out = scores * ((1 - new_empty) / np.maximum(1 - p_empty, 1e-12))[:, None]
    out[:, empty] = new_empty
    return out


def relative_to_board(
    scores: np.ndarray,
    looks: np.ndarray,
    kinds: list[str],
    empty: int,
    blank: int,
    counts: np.ndarray,
    cols: int,
    passes: int = PASSES,
) -> np.ndarray:
    """Cell scores ([N, labels], rows summing to 1) with each cell's odds of being empty weighed
    by the photo's own empty squares of its kind and its own tiles (see the module docstring).

    `kinds` is each cell's premium code, `empty` and `blank` the columns of the empty square and
    of the variant's blank tile, `counts` per label column how many tiles of it the set holds,
    `cols` the board's width (cells are in row-major order). Each pass takes
    its references from the previous pass's verdicts, always weighing the classifier's own
    scores: a few sure empties of an unseen edition make a rough empty look, the squares it wins
    over a truer one.
    """
    codes = np.array(kinds)
    squares = np.stack(np.divmod(np.arange(len(scores)), cols), axis=1).astype(float)
    weighed = scores
    # Look-alikes are the classifier's own reads: a pass that settles some must not make the
    # rest fall under the set's count.
    too_many = _too_many(scores, codes, empty, counts)
    for _ in range(passes):
        ratios, doubt = _log_ratios(weighed, looks, codes, squares, empty, blank, too_many)
        weighed = _weighed(scores, ratios, empty, doubt)
    return weighed


def like_answered(
    looks: np.ndarray,
    kinds: list[str],
    cols: int,
    answered: np.ndarray,
    sure_empty: np.ndarray,
    doubtful: np.ndarray,
    tiles: np.ndarray,
) -> np.ndarray:
    """Which `answered` or `doubtful` cells (masks over the cells, row-major) look like the
    empty squares of their premium kind in this photo, for the kinds with a square answered:
    the squares a player said were empty (`answered`, but for those now read as letters with
    confidence, `tiles`) and those read surely empty (`sure_empty`). Like step 4 above, a cell
    must lie among them and be no plausible tile, so a tile laid on an answered square since is
    left as read."""
    codes = np.array(kinds)
    squares = np.stack(np.divmod(np.arange(len(looks)), cols), axis=1).astype(float)
    alike = np.zeros(len(looks), bool)
    for kind in np.unique(codes[answered]):
        members = codes == kind
        references = members & ((answered & ~tiles) | sure_empty)
        targets = members & (answered | doubtful)
        if references.sum() < 2 or not targets.any():
            continue
        reference = reference_looks(looks[references], squares[references], squares[targets])
        among = _distance(looks[targets], reference) <= 2 * looks.shape[1]
        if tiles.sum() >= 3:
            tile_look = reference_looks(looks[tiles, _COLOURS], squares[tiles], squares[targets])
            among &= _distance(looks[targets, _COLOURS], tile_look) > 2 * _COLOUR_FEATURES
        alike[targets] = among
    return alike
