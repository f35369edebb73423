"""Answers a player gave about squares, kept for the game's later photos.

A player who said that a square read as a tile, or doubtfully empty, is empty (a printed "2"
taken for a Z, a wood square for a blank) should not be asked again about it, nor about the
squares of its premium kind that look just like it. Each later photo is compared with itself,
not with the photo the answer was given on (the light, the pose and the focus change from
photo to photo): the squares answered empty, and the squares read surely empty, give each
premium kind its empty look in this photo (`vision.calibrate.like_answered`); a doubtful square
of that kind that looks like them, and like no tile of the photo, is read empty. A tile laid on
an answered square since looks like a tile, and is read as usual. An answered square that looks
like its kind's empty squares and like the photo's tiles as well (an edition whose premium
squares are cream insets printed "2" and "3", on a board of cream tiles) is read empty only as
a doubt: the words settle it, and a play that may run through it is asked about.

The game's known board vouches for squares the same way (`with_vacancies`): one photo alone
cannot tell a kind's empty look when the classifier is sure of none of its squares in that
light, but the game knows which of them are vacant, and one play covers a few at most. Their
looks say so by colour; the cell model's features of their crops say so by what the model reads
letters from (`vision.exemplars.like_vacant_squares`).

The game's previous photo vouches for a square in doubt between no tile and a blank
(`unchanged_vacancies`): it showed the square vacant, and a tile laid there since changes its
look (`vision.unchanged`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence

import numpy as np

from scorer.board import Board
from scorer.tracking import Thresholds
from vision.calibrate import (
    DOUBT,
    SURE,
    like_answered,
    like_vacant,
    like_vacant_halves,
    plainly_no_tile,
    tile_coloured,
)
from vision.exemplars import like_vacant_squares, unlike_vacant_squares
from vision.reading import BLANK, EMPTY, STAR, BoardReading
from vision.unchanged import unchanged_since

# A square the tracker takes as read is not asked about, so it is left alone here.
_TAKEN_AS_READ = Thresholds().certain
# A letter this likely is a candidate the tracker weighs.
_CANDIDATE = Thresholds().candidate
# The confidence given to a square read empty by the answers.
_ANSWERED = 0.99
# The confidence given to an answered square that is plainly no tile by its colours but read as
# a letter with confidence: a doubt, below what the tracker takes as read, so that the words
# settle it, and a tile that would make a play there is asked about, never dropped.
_NO_TILE = 0.9


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
    cells = _Cells.of(reading, known, layout)
    rows, cols = cells.shape
    keys = np.array([square_key(r, c) for r in range(rows) for c in range(cols)])
    said = np.isin(keys, list(answered)) & cells.free
    sure_empty = cells.free & (cells.labels == EMPTY) & (cells.confidence >= SURE)
    # An answered square is looked at again however surely it is read (a printed label read
    # as a letter at 0.97 is asked about as a stray tile); its siblings only when in doubt.
    doubtful = cells.free & ~sure_empty & (cells.confidence < _TAKEN_AS_READ)
    lettered = cells.lettered
    alike = like_answered(cells.looks, cells.kinds, cols, said, sure_empty, doubtful, lettered)
    # An answered square unlike its siblings in this photo (a shadow, a glare, light of another
    # colour on it) stays empty while its colours are plainly no tile's (a tile laid on it since
    # looks like the others); as a doubt where a letter is read there with confidence.
    unlike = said & ~alike & plainly_no_tile(cells.looks, cols, lettered)
    # An answered square like its empty siblings but also like the tiles: the print it was
    # answered for looks like a tile in this edition (a cream "2" read as Z photo after photo),
    # or a tile was laid there since. As a doubt, a legal play through it is asked about.
    kin = said & ~alike & ~unlike & (cells.confidence < _TAKEN_AS_READ)
    kin &= like_answered(
        cells.looks, cells.kinds, cols, said, sure_empty, doubtful, lettered, unlike_tiles=False
    )
    kin &= ~((cells.labels == EMPTY) & (cells.confidence >= _NO_TILE))
    sure = np.where((unlike & lettered) | kin, _NO_TILE, _ANSWERED)
    return _read_empty(reading, alike | unlike | kin, sure, cols)


def vouched(
    reading: BoardReading,
    known: Board,
    layout: Sequence[str],
    answered: Collection[str],
    earlier: Sequence | None = None,
) -> BoardReading:
    """`reading` with the players' answers (`with_answers`), the game's previous photo (its
    looks `earlier`, where kept: `unchanged_vacancies`), then the known board's vacant squares
    (`with_vacancies`), vouching for its doubtful squares; a square the classifier read
    as a letter is read empty by their looks only as a doubt (`_NO_TILE`), which the words
    settle and a play through it makes a question: a tile a glare washes out looks like no
    other tile of the photo and like the empty squares around it (a table camera recorded OLLA
    for OLLAV). Not so where the model's own features find it as like them as they are to each
    other: a glare does not wash out what the model reads a letter from. The free squares whose
    colours are a tile's, plainly not their kind's vacant squares', are marked so
    (`BoardReading.tile_coloured`): a letter read there is no printed label."""
    answers = with_answers(reading, known, layout, answered)
    if getattr(answers, "looks", None) is None:
        return answers
    if earlier is not None:
        answers = unchanged_vacancies(answers, earlier, known, layout)
    cells = _Cells.of(answers, known, layout)
    later = _by_looks(answers, cells)
    if later is not reading:
        letters = (
            ~np.isin(np.ravel(reading.classes), [EMPTY, BLANK, STAR])
            & (np.ravel(later.classes) == EMPTY)
            & (np.ravel(later.confidence) > _NO_TILE)
        )
        cols = len(reading.classes[0])
        later = _read_empty(later, letters, np.full(len(letters), _NO_TILE), cols)
    later = _by_features(answers, later, cells)
    if not isinstance(later, BoardReading):  # readings from elsewhere carry no such field
        return later
    coloured = tile_coloured(
        cells.looks, cells.kinds, cells.shape[1], cells.vacant, cells.free, cells.lettered
    )
    return dataclasses.replace(later, tile_coloured=coloured.reshape(cells.shape))


def unchanged_vacancies(
    reading: BoardReading, earlier: Sequence, known: Board, layout: Sequence[str]
) -> BoardReading:
    """`reading` with its squares in doubt between no tile and a blank (or star) read empty
    where they look as they did in the game's previous photo (`earlier`: its looks, upright
    like this reading's), which showed them vacant as the known board still does
    (`vision.unchanged.unchanged_since`, ranked among the squares read empty here). A square
    with a letter among its candidates is left as read, as is one read as a blank the tracker
    takes as read: only the doubt a blank's plain face leaves is settled. A reading without
    looks, or of another board's shape, is returned as it is."""
    if getattr(reading, "looks", None) is None:
        return reading
    cells = _Cells.of(reading, known, layout)
    before = np.asarray(earlier, dtype=np.float64)
    if before.size != cells.looks.size:
        return reading
    faces = {EMPTY, BLANK, STAR}
    letterless = np.array(
        [
            all(label in faces or p < _CANDIDATE for label, p in options)
            for line in reading.top3
            for options in line
        ]
    )
    doubtful = np.where(
        cells.labels == EMPTY, cells.confidence < _ANSWERED, cells.confidence < _TAKEN_AS_READ
    )
    targets = cells.free & np.isin(cells.labels, list(faces)) & letterless & doubtful
    if not targets.any():
        return reading
    unchanged = unchanged_since(
        cells.looks,
        before.reshape(cells.looks.shape),
        cells.kinds,
        cells.vacant,
        cells.lettered,
        targets,
    )
    return _read_empty(reading, unchanged, np.full(len(unchanged), _ANSWERED), cells.shape[1])


def with_vacancies(reading: BoardReading, known: Board, layout: Sequence[str]) -> BoardReading:
    """`reading` with doubtful squares read empty where they look like the vacant squares of
    their premium kind: those the known board holds no tile on that this photo reads empty, at
    least as a doubt (`vision.calibrate.DOUBT`; `vision.calibrate.like_vacant` says how alike).

    Where the classifier is sure of no square of a kind in a photo (a printed "2" read as a Z in
    this light), `vision.calibrate` takes the kind's majority look for its empty look, only as a
    doubt: late in a game most squares of a kind may hold tiles. The game knows which are
    vacant, and one play covers a few of them at most, all in one line: their look is the kind's
    empty look. As for an answer, a square must also look like no tile of the photo, so a tile
    laid there is read as usual. A square read as a letter whose middle looks like theirs, or
    has their hue and ink in other light, but whose rim does not (a tile beside it, its edge or
    shadow) is read empty only as a doubt, which the words settle: a printed "2" read as a Z the
    first time it shows, a printed "3" read as an S in a corner lit brighter than its siblings.
    A square read empty, not surely, whose middle a neighbouring tile's overhang covers in part
    (a thick tile seen at a slant) is read empty as a doubt where one half of its middle has its
    vacant siblings' colours, plainly no tile's (`vision.calibrate.like_vacant_halves`).
    Where the model's features of a square's crop are as like those of its kind's vacant
    squares as they are to each other (`vision.exemplars.like_vacant_squares`), whatever its
    colours, the letters it was read as are a print taken for one: their probability is "no
    tile"'s. A reading without looks is returned as it is."""
    if getattr(reading, "looks", None) is None:
        return reading
    cells = _Cells.of(reading, known, layout)
    return _by_features(reading, _by_looks(reading, cells), cells)


def _by_looks(reading: BoardReading, cells: _Cells) -> BoardReading:
    """`reading` (its `cells`) vouched for by the looks of the vacant squares
    (`with_vacancies`)."""
    doubtful = cells.free & (cells.confidence < _TAKEN_AS_READ)
    cols = cells.shape[1]
    letters = ~np.isin(cells.labels, [EMPTY, BLANK, STAR])
    alike, as_doubts = like_vacant(
        cells.looks, cells.kinds, cols, cells.vacant, doubtful, cells.lettered, letters
    )
    if cells.halves is not None:
        # A square read empty, not surely, whose middle a neighbour's overhang covers in part:
        # its far side may show its kind's colour. As a doubt, which the words settle.
        half_covered = doubtful & (cells.labels == EMPTY) & ~alike & ~as_doubts
        as_doubts = as_doubts | like_vacant_halves(
            cells.looks, cells.halves, cells.kinds, cols, cells.vacant, half_covered, cells.lettered
        )
    sure = np.where(alike, _ANSWERED, _NO_TILE)
    return _read_empty(reading, alike | as_doubts, sure, cols)


def _by_features(source: BoardReading, later: BoardReading, cells: _Cells) -> BoardReading:
    """`later` with the letters' probability of the squares the model's features find like
    the vacant squares of `source` (its `cells`; `with_vacancies`) given to "no tile"."""
    if cells.features is None:
        return later
    print_like = cells.free & like_vacant_squares(
        cells.features, cells.kinds, cells.vacant, cells.known_letters
    )
    return _without_letters(later, print_like, cells.shape[1])


def tile_like_vacancies(
    reading: BoardReading, known: Board, layout: Sequence[str], answered: Collection[str] = ()
) -> frozenset[tuple[int, int]]:
    """The squares the known board holds no tile on that `reading` reads empty but whose crops
    the cell model finds no more like their kind's other vacant squares than a known tile of
    the photo (`vision.exemplars.unlike_vacant_squares`): a tile the photo may have missed.
    Squares the players `answered` were empty (keys of `square_key`) are left out; none
    without looks or features."""
    if getattr(reading, "looks", None) is None:
        return frozenset()
    cells = _Cells.of(reading, known, layout)
    if cells.features is None:
        return frozenset()
    unlike = unlike_vacant_squares(cells.features, cells.kinds, cells.vacant, cells.known_letters)
    cols = cells.shape[1]
    said = set(answered)
    squares = (divmod(int(index), cols) for index in np.flatnonzero(unlike))
    return frozenset(s for s in squares if square_key(*s) not in said)


@dataclasses.dataclass(frozen=True)
class _Cells:
    """A reading's cells, row-major, as both kinds of vouching weigh them."""

    shape: tuple[int, int]
    looks: np.ndarray  # [cells, features]
    labels: np.ndarray
    confidence: np.ndarray
    free: np.ndarray  # no tile on the known board
    lettered: np.ndarray  # a letter read with confidence
    kinds: list[str]  # the layout's premium codes
    features: np.ndarray | None  # [cells, F]: the cell model's, where the reading carries them
    halves: np.ndarray | None  # [cells, 4, 3]: each middle's halves (`cell_looks`), likewise

    @property
    def vacant(self) -> np.ndarray:
        """No tile on the known board, and read empty, at least as a doubt (`DOUBT`)."""
        return self.free & (self.labels == EMPTY) & (self.confidence >= DOUBT)

    @property
    def known_letters(self) -> np.ndarray:
        """Known tiles read as letters with confidence."""
        return ~self.free & self.lettered

    @classmethod
    def of(cls, reading: BoardReading, known: Board, layout: Sequence[str]) -> _Cells:
        looks = np.asarray(reading.looks, dtype=np.float64)
        rows, cols = looks.shape[:2]
        labels = np.array([label for line in reading.classes for label in line])
        confidence = np.array([value for line in reading.confidence for value in line])
        features = getattr(reading, "features", None)  # readings from elsewhere may carry none
        halves = getattr(reading, "halves", None)
        return cls(
            (rows, cols),
            looks.reshape(rows * cols, -1),
            labels,
            confidence,
            np.array([known.get(r, c) is None for r in range(rows) for c in range(cols)]),
            ~np.isin(labels, [EMPTY, BLANK, STAR]) & (confidence >= SURE),
            [code for line in layout for code in line],
            None if features is None else np.reshape(features, (rows * cols, -1)),
            None if halves is None else np.reshape(halves, (rows * cols, *np.shape(halves)[2:])),
        )


def _read_empty(
    reading: BoardReading, cells: np.ndarray, sure: np.ndarray, cols: int
) -> BoardReading:
    """`reading` with the `cells` (a mask, row-major) read empty with confidence `sure` (per
    cell), their other candidates scaled into what is left; `reading` itself if none."""
    if not cells.any():
        return reading
    classes = [list(line) for line in reading.classes]
    confidences = [list(line) for line in reading.confidence]
    top3 = [list(line) for line in reading.top3]
    for index in np.flatnonzero(cells):
        r, c = divmod(int(index), cols)
        others = [(label, p) for label, p in top3[r][c] if label != EMPTY]
        if classes[r][c] != EMPTY and classes[r][c] not in {label for label, _ in others}:
            others.insert(0, (classes[r][c], confidences[r][c]))
        share = sum(p for _, p in others)
        classes[r][c], confidences[r][c] = EMPTY, float(sure[index])
        top3[r][c] = [(EMPTY, float(sure[index]))] + [
            (label, (1 - sure[index]) * p / share) for label, p in others[:2] if share > 0
        ]
    return dataclasses.replace(reading, classes=classes, confidence=confidences, top3=top3)


def _without_letters(reading: BoardReading, cells: np.ndarray, cols: int) -> BoardReading:
    """`reading` with the letters' probability of the `cells` (a mask, row-major) given to "no
    tile": their crops look like their kind's vacant squares to the model, a print it took for
    a letter. A blank's (or star's) probability is left as it is, since a plain blank may look
    as like them; `reading` itself where no such cell has a letter among its candidates."""
    classes = [list(line) for line in reading.classes]
    confidences = [list(line) for line in reading.confidence]
    top3 = [list(line) for line in reading.top3]
    changed = False
    for index in np.flatnonzero(cells):
        r, c = divmod(int(index), cols)
        labels = {classes[r][c], *(label for label, _ in top3[r][c])}
        if labels <= {EMPTY, BLANK, STAR}:
            continue
        kept = [(label, p) for label, p in top3[r][c] if label in (BLANK, STAR)]
        empty = max(0.0, 1.0 - sum(p for _, p in kept))
        top3[r][c] = sorted([(EMPTY, empty), *kept], key=lambda item: -item[1])
        classes[r][c], confidences[r][c] = top3[r][c][0][0], float(top3[r][c][0][1])
        changed = True
    if not changed:
        return reading
    return dataclasses.replace(reading, classes=classes, confidence=confidences, top3=top3)
