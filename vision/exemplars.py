"""Look-alike letters told apart by the game's own tiles: a photo of this set is its own typeface
sample.

The cell model learnt letters from rendered typefaces. On an edition it never saw it may hesitate
between look-alikes (C/G, E/F, O/Q, И/Й, Ш/Щ, Ь/Ъ) where the tiles of this very set, in this very
photo, leave little doubt: the game already knows which letters its earlier tiles are. So each
letter that has known tiles in the photo, read as that letter there with confidence (`SURE`: no
hand or glare over them), gets its examples' mean features (the pooled features the model's head
reads, `training.features`, on the unit sphere), and a doubtful new tile is compared with them.

Where the model's best class for a doubtful square is a letter, and the square lies nearer that
letter's examples than another candidate letter's (cosine similarities `s_best > s_other`), the
other letter's probability is divided by `exp(SCALE · (s_best − s_other))`, at most by `LIMIT`,
and given to the best letter. Where the best letter has no known tiles in the photo yet (an F,
a V: the rare letters are the ones most often in doubt), another candidate letter that has them
is compared with how alike two known tiles of one letter are in this photo instead: `typical`,
the `TYPICAL` quantile of each known tile's similarity with the mean of its letter's other
known tiles. A tile less like a P's examples than a P typically is (`typical > s_other`) gets
the P's probability divided by `exp(SCALE · (typical − s_other))`, at most by `LIMIT`: the
photo's tiles say "no P" where they cannot say "an F". The examples only ever confirm the
model's own best letter, never overturn it, and leave the odds of "no tile" and of letters
without examples as they were: for a move to be recorded wrongly through this, the model and
this photo's own tiles must both be wrong the same way.

Measured by `benchmarks/bench_exemplars.py` on rendered boards of 40–94 tiles, the game taken to
know every tile but those read below what the tracker takes as read: of the squares whose best
class is such a doubtful letter, those the known tiles raised to it (`SCALE` 16, `LIMIT` 100),
with the best letter's own examples only, and with the look-alikes' `typical` likeness too:

| photos | doubtful letters | made sure: own examples | and `typical` | wrongly | letter pairs | nearer the wrong one |
|---|---|---|---|---|---|---|
| held-out editions, 58 at 1600×1200 (2 without a grid found) | 648 | 144 | 286 | 0 | 360 | 2 |
| held-out editions, 30 at 1000×750 | 302 | 75 | 136 | 0 | 180 | 1 |
| training family (`random_style`), 30 at 1600×1200 | 529 | 104 | 161 | 0 | 331 | 7 |

A logistic fit of "the best letter is right" on the similarity gap gives 49 and 53 log-odds per
unit on the held-out sets and 38 on the training family.

The squares the game knows are vacant are examples too, of each premium kind's empty look in
this photo (`like_vacant_squares`): a print the model takes for a letter (a "2" for a Z) is as
like them as they are to each other, a tile is not.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterator, Sequence

import numpy as np

from scorer.board import Board
from scorer.notation import tile_text
from scorer.tracking import Thresholds, align
from vision.calibrate import SURE
from vision.reading import BLANK, EMPTY, STAR, BoardReading, board_char

# A square the tracker takes as read is not asked about, so it is left alone here.
_TAKEN_AS_READ = Thresholds().certain
SCALE = 16.0
"""Log-odds per unit of cosine similarity nearer the best letter's examples: half the logistic
fit on the training family (33 when it was set, 38 with today's models: `bench_exemplars.py
--styles train --first 2600000`), since the features are the very ones the model's own
probabilities come from and are not a second, independent witness."""
LIMIT = 100.0
"""The most the examples divide a look-alike's probability by."""
TYPICAL = 0.1
"""Nine in ten known tiles are at least this alike (the quantile) to their letter's other known
tiles in the photo: a doubtful tile whose best letter has no known tiles is compared with that."""
REACH = 2.0
"""A square as like its kind's vacant squares as they are to each other lies at most this many
times the `TYPICAL` quantile's distance below their median similarity (the quantile alone left
a printed "2" read as a Z, at 0.963 among sixteen vacant squares from 0.955 to 0.989, out)."""
_TYPICAL_FROM = 3
"""The fewest known tiles sharing a letter with others that tell how alike such tiles are."""
_VACANT_FROM = 3
"""The fewest vacant squares of a premium kind that tell its empty look."""
_NOT_LETTERS = frozenset({EMPTY, BLANK, STAR})


def with_known_letters(reading: BoardReading, known: Board) -> BoardReading:
    """`reading` with its doubtful letters weighed against the known tiles of the same photo
    (see the module's docstring); `reading` itself where it has no features, the known board
    no tile read as its letter, or nothing changes."""
    changed = {}
    near, typical = _likeness(reading, known)
    for (r, c), alike in near.items():
        weighed = _weighed(list(reading.top3[r][c]), alike, typical)
        if weighed is not None:
            changed[r, c] = weighed
    if not changed:
        return reading
    confidence = [list(line) for line in reading.confidence]
    top3 = [list(line) for line in reading.top3]
    for (r, c), weighed in changed.items():
        top3[r][c], confidence[r][c] = weighed, weighed[0][1]
    return dataclasses.replace(reading, confidence=confidence, top3=top3)


def similarities(reading: BoardReading, known: Board) -> dict[tuple[int, int], dict[str, float]]:
    """Per doubtful square of `reading` that the known board holds no tile on (below what the
    tracker takes as read), the cosine similarity of its features with the mean features of
    each letter class's known tiles read as it with confidence (`SURE`) in the same photo.
    Empty where the reading has no features or fewer than two letters have known tiles."""
    return _likeness(reading, known)[0]


def _likeness(
    reading: BoardReading, known: Board
) -> tuple[dict[tuple[int, int], dict[str, float]], float | None]:
    """`similarities`, and how alike a known tile of the photo typically is to its letter's
    other known tiles (`_typical`)."""
    given = getattr(reading, "features", None)  # readings from elsewhere may carry none
    if given is None or known.tile_count() == 0:
        return {}, None
    quarter_turns = align(known, reading)[0]
    seen = known.rotated((4 - quarter_turns) % 4)  # the known board as the reading lies
    features = given / np.maximum(np.linalg.norm(given, axis=2, keepdims=True), 1e-9)
    examples = _examples(reading, seen, features)
    if len(examples) < 2:
        return {}, None
    labels = list(examples)
    matrix = np.stack([_unit(np.mean(examples[label], axis=0)) for label in labels])
    near = {}
    for r, line in enumerate(reading.confidence):
        for c, value in enumerate(line):
            if seen.get(r, c) is None and value < _TAKEN_AS_READ:
                near[r, c] = dict(zip(labels, (matrix @ features[r, c]).tolist(), strict=True))
    return near, _typical(examples)


def _examples(
    reading: BoardReading, seen: Board, features: np.ndarray
) -> dict[str, list[np.ndarray]]:
    """Per letter class, the unit features of the known tiles read as it with confidence."""
    examples: defaultdict[str, list[np.ndarray]] = defaultdict(list)
    for (r, c), tile in seen.tiles():
        label = reading.classes[r][c]
        if tile.is_blank or label in _NOT_LETTERS or reading.confidence[r][c] < SURE:
            continue
        if board_char(label) == tile_text(tile.letter):
            examples[label].append(features[r, c])
    return dict(examples)


def _typical(examples: dict[str, list[np.ndarray]]) -> float | None:
    """The `TYPICAL` quantile of the cosine similarity of each known tile with the mean of its
    letter's other known tiles in the photo (this photo's blur, light and typeface set how alike
    two tiles of one letter look); None where fewer than `_TYPICAL_FROM` tiles share a letter."""
    alike = [
        similarity
        for rows in examples.values()
        if len(rows) > 1
        for similarity in _leave_one_out(np.asarray(rows))
    ]
    return float(np.quantile(alike, TYPICAL)) if len(alike) >= _TYPICAL_FROM else None


def like_vacant_squares(
    features: np.ndarray, kinds: Sequence[str], vacant: np.ndarray, tiles: np.ndarray
) -> np.ndarray:
    """Which cells (row-major: `features` [cells, F], the model's features of their crops, and
    `kinds`, their premium codes) are as alike to the `vacant` squares of their premium kind
    (a mask: squares the game knows hold no tile, read empty) as those are to each other: the
    cosine similarity with the mean of the kind's vacant squares (a vacant square's with the
    mean of the others) no further below the vacant squares' median than `REACH` times their
    `TYPICAL` quantile is, and nearer that median than the similarity of the most alike of the
    photo's `tiles` (a mask: known tiles read as letters with confidence), so that a tile
    read empty among the vacant squares does not make the kind's look. Only for kinds with
    `_VACANT_FROM` vacant squares or more.

    The features are what the model reads letters from: a printed "2" it takes for a Z, a wood
    square it takes for a letter, is there just as like its vacant siblings as they are to each
    other, while a lettered tile laid on such a square is far from them: the 2,425 new tiles of
    671 photos of rendered games on held-out editions (`bench_players`, 25 games) lie 0.21 or
    more below where this puts the bound. Not so a blank, which may be as plain as the square
    under it."""
    alike = np.zeros(len(features), bool)
    for members, similarity, own, tile_like in _vacant_similarities(features, kinds, vacant, tiles):
        median = float(np.median(own))
        bound = median - REACH * (median - np.quantile(own, TYPICAL))
        if tile_like is not None:
            bound = max(bound, (median + tile_like) / 2)
        alike |= members & (similarity >= bound)
    return alike


def unlike_vacant_squares(
    features: np.ndarray, kinds: Sequence[str], vacant: np.ndarray, tiles: np.ndarray
) -> np.ndarray:
    """Which `vacant` squares (as for `like_vacant_squares`) are no more like their kind's
    other vacant squares than the most alike of the photo's `tiles` is: read empty, they look
    like a tile to the model, such as a tile whose raised face a slanted camera shows half past
    its square (a K on a corner square, read empty 0.99, 0.40 like the other corners where
    the known tiles came up to 0.58). Of the 106,220 vacant squares of 694 photos of rendered
    games (`bench_players`, 26 games), 9 were so: that K, and 8 empty squares in one photo."""
    unlike = np.zeros(len(features), bool)
    for members, similarity, _, tile_like in _vacant_similarities(features, kinds, vacant, tiles):
        if tile_like is not None:
            unlike |= members & vacant & (similarity < tile_like)
    return unlike


def _vacant_similarities(
    features: np.ndarray, kinds: Sequence[str], vacant: np.ndarray, tiles: np.ndarray
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, float | None]]:
    """Per premium kind with `_VACANT_FROM` `vacant` squares or more: its members (a mask), each
    cell's cosine similarity with the mean features of the kind's vacant squares (a vacant
    square's with the mean of the others), the vacant squares' own, and the highest of the
    `tiles`' (None without tiles)."""
    unit = features / np.maximum(np.linalg.norm(features, axis=1, keepdims=True), 1e-9)
    # Squares the models did not read (`vision.plain_vacant`: NaN features) vouch for nothing.
    vacant = vacant & np.isfinite(features).all(axis=1)
    codes = np.asarray(kinds)
    for kind in np.unique(codes):
        members = codes == kind
        references = members & vacant
        if references.sum() < _VACANT_FROM:
            continue
        own = _leave_one_out(unit[references])
        similarity = unit @ _unit(unit[references].sum(axis=0))
        tile_like = float(similarity[tiles].max()) if tiles.any() else None
        similarity[references] = own
        yield members, similarity, own, tile_like


def _leave_one_out(rows: np.ndarray) -> np.ndarray:
    """Each of the unit `rows`' cosine similarity with the mean of the others."""
    others = rows.sum(axis=0) - rows
    return np.einsum("ij,ij->i", others, rows) / np.maximum(np.linalg.norm(others, axis=1), 1e-9)


def _unit(vector: np.ndarray) -> np.ndarray:
    return vector / max(float(np.linalg.norm(vector)), 1e-9)


def _weighed(
    cell: list[tuple[str, float]], alike: dict[str, float], typical: float | None
) -> list[tuple[str, float]] | None:
    """The cell's top-3 with the look-alikes of its best letter made less likely where it lies
    nearer the best letter's examples (`alike`: the similarities) or, where the best letter has
    none, less like a look-alike's examples than a tile of that letter `typical`ly is; best
    first; None where nothing changes."""
    best, p_best = cell[0]
    if best in _NOT_LETTERS:
        return None
    reference = alike.get(best, typical)
    if reference is None:
        return None
    probabilities = dict(cell)
    for label, p in cell[1:]:
        if label not in alike or p <= 0:
            continue
        nearer = reference - alike[label]
        if nearer > 0:
            kept = p / min(float(np.exp(SCALE * nearer)), LIMIT)
            probabilities[best] += p - kept
            probabilities[label] = kept
    if probabilities[best] == p_best:
        return None
    return sorted(probabilities.items(), key=lambda item: -item[1])
