"""The board-relative calibration as it was first written, square by square and kind by kind in
Python loops: kept only as the reference that `vision.calibrate`'s vectorised functions must agree
with (tests/test_calibrate_reference.py), since its loops follow the module docstring's steps one
by one. Constants and `_weighed` are the module's own.
"""

from __future__ import annotations

import numpy as np

from vision.calibrate import (
    _BUT_LIGHT,
    _COLOUR_FEATURES,
    _HUES,
    _NEAR,
    COLOURS,
    FLOOR,
    MAJORITY,
    MAX_TOWARDS_EMPTY,
    MAX_TOWARDS_PLAIN_TILE,
    MAX_TOWARDS_TILE,
    PASSES,
    SURE,
    UNLIKE_TILES,
    _weighed,
)


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


def _share_odds(
    scores: np.ndarray, empty: int, blank: int, counts: np.ndarray, too_many: np.ndarray
) -> np.ndarray:
    """Per cell read as one of more blanks than the set holds, the odds of being empty the count
    leaves it: (m − n) / n for m cells read as blanks where the set has n."""
    top = scores.argmax(axis=1)
    share = np.zeros(len(scores))
    held = max(int(counts[blank]), 1)
    for cell in np.flatnonzero(too_many):
        if top[cell] == blank and blank != empty:
            share[cell] = max(int((top == blank).sum()) - held, 0) / held
    return share


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
    read_blank: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Per cell, the log factor by which the photo's own looks move its odds of being empty, and
    which cells it may make no likelier to be empty than `DOUBT`; `too_many` marks the
    classifier's look-alikes (`_too_many`), `read_blank` the cells it reads as blank tiles."""
    top = scores.argmax(axis=1)
    confidence = scores.max(axis=1)
    lettered = (top != empty) & (top != blank) & (confidence >= SURE) & ~too_many
    unlike_tiles = np.zeros(len(scores), bool)
    if lettered.sum() >= 3:
        tile_look = reference_looks(looks[lettered, COLOURS], squares[lettered], squares)
        unlike_tiles = _distance(looks[:, COLOURS], tile_look) > UNLIKE_TILES * _COLOUR_FEATURES
        unlike_tiles &= ~lettered
    log_ratio = np.zeros(len(scores))
    doubt = np.zeros(len(scores), bool)
    plain_tile = np.zeros(len(scores), bool)
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
                    _distance(looks[:, COLOURS], tile_look) > 2 * _COLOUR_FEATURES
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
            colours = (reference[0][:, COLOURS], reference[1][COLOURS])
            tiles = reference_looks(looks[lettered, COLOURS], squares[lettered], squares[members])
            ratio = _log_density(looks[members, COLOURS], colours) - _log_density(
                looks[members, COLOURS], tiles
            )
            # A square as plausible a tile as an empty one (wooden blanks on beige squares)
            # is the classifier's to judge, but for one of more look-alikes than the set has
            # tiles (pale premium squares read as blanks): most of those are empty, so one
            # among its empty siblings reads empty, as a doubt, since any may be the tile.
            plausible = _distance(looks[members, COLOURS], tiles) <= 2 * _COLOUR_FEATURES
            # A look-alike is also weighed by its hues alone.
            hues = (reference[0][:, _HUES], reference[1][_HUES])
            hue_ratio = _log_density(looks[members][:, _HUES], hues) - _log_density(
                looks[members][:, _HUES], (tiles[0][:, _HUES], tiles[1][_HUES])
            )
            alike = among & plausible & too_many[members] & ((ratio > 0) | (hue_ratio > 0))
            ratio = np.where(alike, np.maximum(ratio, closeness), ratio)
            doubt[members] |= alike
            among &= ~plausible | alike
            # Read as a blank tile but plainly unlike the tiles: an empty square in other light
            # however unlike its siblings, as a doubt.
            other_light = ~among & (unlike_tiles & read_blank)[members] & (ratio > 0)
            among |= other_light
            doubt[members] |= other_light
            # Of the tiles' colours and unlike the siblings in hue and ink too: the look may
            # outweigh the classifier further towards a tile.
            plain_tile[members] = (
                plausible & ~among & (unlit_distance > UNLIKE_TILES * len(_BUT_LIGHT))
            )
        log_ratio[members] = np.where(among, np.maximum(ratio, 0.0), np.minimum(ratio, 0.0))
    towards_tile = np.where(plain_tile, MAX_TOWARDS_PLAIN_TILE, MAX_TOWARDS_TILE)
    return np.clip(log_ratio, -towards_tile, MAX_TOWARDS_EMPTY), doubt


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
    share = _share_odds(scores, empty, blank, counts, too_many)
    read_blank = scores.argmax(axis=1) == blank
    for _ in range(passes):
        ratios, doubt = _log_ratios(
            weighed, looks, codes, squares, empty, blank, too_many, read_blank
        )
        weighed = _weighed(scores, ratios, empty, doubt, share)
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
            tile_look = reference_looks(looks[tiles, COLOURS], squares[tiles], squares[targets])
            among &= _distance(looks[targets, COLOURS], tile_look) > 2 * _COLOUR_FEATURES
        alike[targets] = among
    return alike
