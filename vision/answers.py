"""Answers a player gave about squares, kept for the game's later photos.

A player who said that a square read as a tile, or doubtfully empty, is empty (a printed "2"
taken for a Z, a wood square for a blank) should not be asked again about it, nor about the
squares of its premium kind that look just like it. Each later photo is compared with itself,
not with the photo the answer was given on (the light, the pose and the focus change from
photo to photo): the squares answered empty, and the squares read surely empty, give each
premium kind its empty look in this photo (`vision.calibrate.like_answered`); a doubtful square
of that kind that looks like them, and like no tile of the photo, is read empty. A tile laid on
an answered square since looks like a tile, and is read as usual.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

import numpy as np

from scorer.board import Board
from scorer.tracking import Thresholds
from vision.calibrate import SURE, like_answered
from vision.reading import BLANK, EMPTY, STAR, BoardReading

# A square the tracker takes as read is not asked about, so it is left alone here.
_TAKEN_AS_READ = Thresholds().certain
# The confidence given to a square read empty by the answers.
_ANSWERED = 0.99


def square_key(row: int, col: int) -> str:
    """The key a square's answer is remembered under."""
    return f"{row},{col}"


def with_answers(
    reading: BoardReading,
    known: Board,
    layout: Sequence[str],
    answered: Collection[str],
) -> BoardReading:
    """`reading` with doubtful squares read empty where they look like the squares of their
    premium kind that the players answered were empty (`answered`, keys of `square_key`) and
    are still empty on the known board. `layout` is the variant's premium layout, upright like
    the reading. A reading without looks is returned as it is."""
    if getattr(reading, "looks", None) is None or not answered:
        return reading
    looks = np.asarray(reading.looks, dtype=np.float64)
    rows, cols = looks.shape[:2]
    labels = np.array([label for line in reading.classes for label in line])
    confidence = np.array([value for line in reading.confidence for value in line])
    free = np.array([known.get(r, c) is None for r in range(rows) for c in range(cols)])
    lettered = ~np.isin(labels, [EMPTY, BLANK, STAR]) & (confidence >= SURE)
    keys = np.array([square_key(r, c) for r in range(rows) for c in range(cols)])
    said = np.isin(keys, list(answered)) & free
    sure_empty = free & (labels == EMPTY) & (confidence >= SURE)
    # An answered square is looked at again however surely it is read (a printed label read
    # as a letter at 0.97 is asked about as a stray tile); its siblings only when in doubt.
    doubtful = free & ~sure_empty & (confidence < _TAKEN_AS_READ)
    kinds = [code for line in layout for code in line]
    alike = like_answered(
        looks.reshape(rows * cols, -1), kinds, cols, said, sure_empty, doubtful, lettered
    )
    if not alike.any():
        return reading
    classes = [list(line) for line in reading.classes]
    confidences = [list(line) for line in reading.confidence]
    top3 = [list(line) for line in reading.top3]
    for index in np.flatnonzero(alike):
        r, c = divmod(int(index), cols)
        read = classes[r][c]
        classes[r][c], confidences[r][c] = EMPTY, _ANSWERED
        top3[r][c] = [(EMPTY, _ANSWERED)] + ([(read, 1 - _ANSWERED)] if read != EMPTY else [])
    return dataclasses.replace(reading, classes=classes, confidence=confidences, top3=top3)
