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
and given to the best letter. The examples only ever confirm the model's own best letter, never
overturn it, and leave the odds of "no tile" and of letters without examples as they were: for
a move to be recorded wrongly through this, the model and this photo's own tiles must both be
wrong the same way.

Measured by `benchmarks/bench_exemplars.py` on rendered boards of 40–94 tiles, the game taken to
know every tile but those read below what the tracker takes as read: of the squares whose best
class is such a doubtful letter, those the known tiles raised to it (`SCALE` 16, `LIMIT` 100):

| photos | doubtful letters | made sure | wrongly | letter pairs | nearer the wrong one |
|---|---|---|---|---|---|
| held-out editions, 58 at 1600×1200 (2 without a grid found) | 648 | 158 | 0 | 384 | 2 |
| held-out editions, 30 at 1000×750 | 415 | 76 | 0 | 216 | 1 |
| training family (`random_style`), 30 at 1600×1200 | 538 | 103 | 0 | 332 | 9 |

A logistic fit of "the best letter is right" on the similarity gap gives 46 and 55 log-odds per
unit on the held-out sets and 33 on the training family.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict

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
fit on the training family (33: `bench_exemplars.py --styles train --first 2600000`), since
the features are the very ones the model's own probabilities come from and are not a second,
independent witness."""
LIMIT = 100.0
"""The most the examples divide a look-alike's probability by."""
_NOT_LETTERS = frozenset({EMPTY, BLANK, STAR})


def with_known_letters(reading: BoardReading, known: Board) -> BoardReading:
    """`reading` with its doubtful letters weighed against the known tiles of the same photo
    (see the module's docstring); `reading` itself where it has no features, the known board
    no tile read as its letter, or nothing changes."""
    changed = {}
    for (r, c), alike in similarities(reading, known).items():
        weighed = _weighed(list(reading.top3[r][c]), alike)
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
    given = getattr(reading, "features", None)  # readings from elsewhere may carry none
    if given is None or known.tile_count() == 0:
        return {}
    quarter_turns = align(known, reading)[0]
    seen = known.rotated((4 - quarter_turns) % 4)  # the known board as the reading lies
    features = given / np.maximum(np.linalg.norm(given, axis=2, keepdims=True), 1e-9)
    centres = _centres(reading, seen, features)
    if len(centres) < 2:
        return {}
    labels = list(centres)
    matrix = np.stack([centres[label] for label in labels])
    near = {}
    for r, line in enumerate(reading.confidence):
        for c, value in enumerate(line):
            if seen.get(r, c) is None and value < _TAKEN_AS_READ:
                near[r, c] = dict(zip(labels, (matrix @ features[r, c]).tolist(), strict=True))
    return near


def _centres(reading: BoardReading, seen: Board, features: np.ndarray) -> dict[str, np.ndarray]:
    """Per letter class, the unit mean features of the known tiles read as it with confidence."""
    examples: defaultdict[str, list[np.ndarray]] = defaultdict(list)
    for (r, c), tile in seen.tiles():
        label = reading.classes[r][c]
        if tile.is_blank or label in _NOT_LETTERS or reading.confidence[r][c] < SURE:
            continue
        if board_char(label) == tile_text(tile.letter):
            examples[label].append(features[r, c])
    centres = {}
    for label, rows in examples.items():
        mean = np.mean(rows, axis=0)
        centres[label] = mean / max(float(np.linalg.norm(mean)), 1e-9)
    return centres


def _weighed(
    cell: list[tuple[str, float]], alike: dict[str, float]
) -> list[tuple[str, float]] | None:
    """The cell's top-3 with the look-alikes of its best letter made less likely where it lies
    nearer the best letter's examples (`alike`: the similarities), best first; None where
    nothing changes."""
    best, p_best = cell[0]
    if best not in alike:
        return None
    probabilities = dict(cell)
    for label, p in cell[1:]:
        if label not in alike or p <= 0:
            continue
        nearer = alike[best] - alike[label]
        if nearer > 0:
            kept = p / min(float(np.exp(SCALE * nearer)), LIMIT)
            probabilities[best] += p - kept
            probabilities[label] = kept
    if probabilities[best] == p_best:
        return None
    return sorted(probabilities.items(), key=lambda item: -item[1])
