"""Tracking a game across photos: align a new board reading with the known board, keep known
tiles, settle uncertain new tiles with the dictionary and tile accounting, and find the move.

A wrong move silently recorded is the worst failure, so anything that cannot be settled comes
back as `needs_review` with the cells and their candidates, never as a guess. The reading is
duck-typed (`classes`, `confidence`, `top3` per cell, as `vision.BoardReading` has them): this
module knows nothing of images.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol

from scorer.board import UNKNOWN_BLANK, Board, Square, Tile, square_name
from scorer.dictionary import Dictionary, Verdict, blank_assignments, blank_candidates
from scorer.errors import IllegalPlay, PlayErrorCode
from scorer.move import ChangeKind, classify_change, same_tile
from scorer.notation import OPEN, tile_text
from scorer.scoring import ScoredPlay, WordScore
from scorer.variant import Variant

# Reading class names that are not letters (see vision/reading.py).
EMPTY_CLASS = "empty"
BLANK_CLASSES = frozenset({"blank", "star"})
EMPTY = "."


class Reading(Protocol):
    """What tracking needs from a board reading: per cell the top class, its confidence and
    the top classes with probabilities, indexed [row][col]."""

    classes: Sequence[Sequence[str]]
    confidence: Sequence[Sequence[float]]
    top3: Sequence[Sequence[Sequence[tuple[str, float]]]]


class TurnStatus(StrEnum):
    """The outcome of tracking one photo."""

    COMMITTED = "committed"
    NEEDS_REVIEW = "needs_review"
    REJECTED = "rejected"


@dataclass(frozen=True)
class Thresholds:
    """Confidence levels that decide between reading a cell and asking about it."""

    certain: float = 0.95
    """A new tile's top class at or above this is taken as read. Below 0.95 rendered games still
    showed confident slips between look-alikes (a Q read as O at 0.94), and a wrong move recorded
    costs more than a question."""
    empty: float = 0.90
    """A known tile's square read empty at or above this counts as a removed tile."""
    candidate: float = 0.03
    """Top-3 letters below this probability are not offered as candidates."""
    absent: float = 0.15
    """"No tile" is offered as a candidate for an uncertain cell only from this probability."""
    coverage: float = 0.85
    """An uncertain cell whose candidates hold less probability than this is unreadable (a hand,
    glare): its truth may be none of them, so it is never settled by elimination."""
    match: float = 0.6
    """Share of known tiles that must be seen in the photo for it to show this game's board."""
    vouch: float = 0.9
    """Share of known tiles a photo read on a grid must show as themselves, each on its own
    square, for them to vouch for a grid the photo's colours did not (`known_tiles_vouch`)."""
    vouchers: int = 10
    """Known tiles a board must hold for them to vouch for a grid."""
    unlisted: tuple[float, ...] = (0.012, 0.012, 0.012, 0.006, 0.0002)
    """Odds that a word really played is missing from the word list where a look-alike of it, one
    letter changed, is on the list, by the word's length (1, 2, 3, 4, then 5 letters or more):
    in the recorded English games (`benchmarks/bench_lexicon.py`, mostly Collins games)
    15 of 1316 such pairs of 2 or 3 letters, 7 of 1262 of 4 and 1 of 4789 longer ones were the word
    the list lacks. A reading whose words the list lacks keeps these odds against the one the
    list settles on, so the list overrides a letter read far likelier than its look-alike only
    with a question (a C read 0.87 / G 0.13 in CAZ, a Collins word, was recorded as GAZ), while a
    long word settles it (Щ read 0.80 / Ш 0.11 in КАРАНДАШ)."""


@dataclass(frozen=True)
class Misread:
    """A known tile read as something else: the known letter is kept."""

    square: Square
    known: str
    read: str
    confidence: float


@dataclass(frozen=True)
class UncertainCell:
    """A cell the photo does not settle: its candidates (`.` for "no tile") and why."""

    square: Square
    candidates: tuple[str, ...]
    reason: str

    def to_dict(self) -> dict[str, object]:
        return {
            "square": square_name(*self.square),
            "row": self.square[0],
            "col": self.square[1],
            "candidates": list(self.candidates),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class TrackResult:
    """The outcome of one photo: the aligned board, the move found, and what needs a person.

    `board` is the board to carry forward when `status` is committed; `kind` says whether it
    was a play, an unchanged board (pass or exchange) or a withdrawn play.
    """

    status: TurnStatus
    message: str
    rotation: int = 0
    kind: ChangeKind | None = None
    board: Board | None = None
    play: ScoredPlay | None = None
    misreads: tuple[Misread, ...] = ()
    uncertain: tuple[UncertainCell, ...] = ()
    invalid_words: tuple[str, ...] = ()
    """Words of a committed play that the dictionary lacks: a phony to challenge."""
    attested_words: tuple[str, ...] = ()
    """Those of `invalid_words` that are attested in use (`Dictionary.attested`): every tile of
    them read with confidence, or the only legal reading of its doubtful ones (see `track`), a
    rare word really played, recorded without asking."""
    unchecked_words: tuple[str, ...] = ()
    read_board: Board | None = field(default=None, repr=False)

    @property
    def gone(self) -> frozenset[Square]:
        """Known tiles this photo read as empty (kept as misreads): the `steady` of the next."""
        return frozenset(m.square for m in self.misreads if m.read == EMPTY)


@dataclass(frozen=True)
class _Cell:
    """One cell of the reading: candidates as board-text symbols with probabilities, best first."""

    symbol: str
    confidence: float
    options: tuple[tuple[str, float], ...]
    # The photo shows a tile's colours here, not its premium square's: no printed label.
    tile_coloured: bool = False


def _symbol(cls: str) -> str:
    if cls == EMPTY_CLASS:
        return EMPTY
    if cls in BLANK_CLASSES:
        return UNKNOWN_BLANK
    # A lower-case letter is a blank with its letter (a reading a person corrected); a tile of
    # several letters is written in brackets, `[CH]` (`[ch]` a blank standing for it).
    return cls if len(cls) == 1 or cls.startswith(OPEN) else tile_text(cls)


def _cells(reading: Reading) -> list[list[_Cell]]:
    # Readings that carry it (`vision.reading.BoardReading.tile_coloured`, in a game) say where
    # the photo shows a tile's colours rather than the premium square's.
    coloured = getattr(reading, "tile_coloured", None)
    grid = []
    for r, (classes, confidences, tops) in enumerate(
        zip(reading.classes, reading.confidence, reading.top3, strict=True)
    ):
        row = []
        for c, (cls, conf, top) in enumerate(zip(classes, confidences, tops, strict=True)):
            merged: dict[str, float] = {}
            for name, p in top:
                merged[_symbol(name)] = merged.get(_symbol(name), 0.0) + float(p)
            options = tuple(sorted(merged.items(), key=lambda kv: -kv[1]))
            tile = coloured is not None and bool(coloured[r][c])
            row.append(_Cell(_symbol(cls), float(conf), options, tile))
        grid.append(row)
    return grid


def _rotate(grid: list[list[_Cell]], quarter_turns: int) -> list[list[_Cell]]:
    """The grid turned clockwise, as `Board.rotated` turns a board."""
    for _ in range(quarter_turns % 4):
        height, width = len(grid), len(grid[0])
        grid = [[grid[height - 1 - c][r] for c in range(height)] for r in range(width)]
    return grid


def _match_score(known: Board, grid: list[list[_Cell]]) -> float:
    """How well a reading shows the known tiles: 1 per tile seen with its letter, ½ per tile
    seen with another letter, 0 where the photo shows an empty square."""
    score = 0.0
    for (r, c), tile in known.tiles():
        cell = grid[r][c]
        if cell.symbol == EMPTY:
            continue
        score += 1.0 if same_tile(tile, Tile.from_char(cell.symbol)) else 0.5
    return score


def align(known: Board, reading: Reading) -> tuple[int, list[list[_Cell]], float]:
    """The quarter turns (clockwise) that best lay the reading over the known board, the turned
    cells, and the share of known tiles seen. The reading's own orientation wins ties."""
    grid = _cells(reading)
    best: tuple[float, int, list[list[_Cell]]] | None = None
    for k in range(4):
        turned = _rotate(grid, k)
        if (len(turned), len(turned[0])) != (known.height, known.width):
            continue
        score = _match_score(known, turned)
        if best is None or score > best[0]:
            best = (score, k, turned)
    if best is None:
        raise ValueError(
            f"the reading is {len(grid[0])}×{len(grid)} but the board is {known.width}×{known.height}"
        )
    total = known.tile_count()
    return best[1], best[2], (best[0] / total if total else 1.0)


def known_tiles_vouch(
    known: Board, reading: Reading, thresholds: Thresholds = Thresholds()
) -> bool:
    """Whether `known`'s tiles vouch for the grid `reading` was read on: the board holds at
    least `thresholds.vouchers` tiles and the reading, laid over it at its best turn, shows at
    least `thresholds.vouch` of them as themselves. A grid a cell or more off shows the known
    words' letters beside their squares, or on empty ones."""
    total = known.tile_count()
    if total < thresholds.vouchers:
        return False
    _, grid, _ = align(known, reading)
    same = sum(
        1
        for (r, c), tile in known.tiles()
        if grid[r][c].symbol != EMPTY and same_tile(tile, Tile.from_char(grid[r][c].symbol))
    )
    return same >= thresholds.vouch * total


def known_board_likelihood(known: Board, reading: Reading) -> float:
    """How surely the reading, laid over `known` at its best turn, shows the known board: the
    probability it gives each known tile on its own square, and its confidence in what it reads
    on the other squares, summed. Of two grids that both show the known tiles, the one nearer
    the truth reads the board more surely (a grid with a corner half a cell off still shows
    nine in ten of a full board's tiles as themselves)."""
    _, grid, _ = align(known, reading)
    return sum(
        max(
            (
                p
                for symbol, p in cell.options
                if symbol != EMPTY and same_tile(tile, Tile.from_char(symbol))
            ),
            default=0.0,
        )
        if (tile := known.get(r, c)) is not None
        else cell.confidence
        for r, line in enumerate(grid)
        for c, cell in enumerate(line)
    )


def _tile_options(cell: _Cell, thresholds: Thresholds) -> list[str]:
    # A plain blank tile is what an empty square looks most like: when a blank is the best
    # reading, "no tile" stays a candidate down to the candidate level (a rendered game joined a
    # square read blank 0.93 / empty 0.06 to the play beside it).
    absent = thresholds.candidate if cell.symbol == UNKNOWN_BLANK else thresholds.absent
    return [s for s, p in cell.options if p >= (absent if s == EMPTY else thresholds.candidate)]


def _swapped(old: Tile, cell: _Cell, variant: Variant, thresholds: Thresholds) -> bool:
    """A known blank now clearly showing its real letter: a blank swap, when the game allows it."""
    return (
        variant.options.blank_swap
        and old.is_blank
        and cell.symbol == tile_text(old.letter)
        and cell.confidence >= thresholds.certain
    )


def _cleared(old: Tile, cell: _Cell, thresholds: Thresholds) -> bool:
    """Whether a known tile's square read empty shows the tile gone: read empty with confidence,
    or with no trace of the tile among its readings (a printed label read half as a letter on
    a square a withdrawn play left: empty 0.80, Z 0.13, never the A taken off)."""
    if cell.confidence >= thresholds.empty:
        return True
    return all(
        p < thresholds.candidate
        for symbol, p in cell.options
        if symbol != EMPTY and same_tile(old, Tile.from_char(symbol))
    )


def over_count(board: Board, variant: Variant) -> list[str]:
    """Letters (and blanks) the board holds more of than the tile set has."""
    counts = Counter(UNKNOWN_BLANK if t.is_blank else t.letter for _, t in board.tiles())
    return [
        letter
        for letter, n in counts.items()
        if n > (variant.blank_count if letter == UNKNOWN_BLANK else variant.count(letter))
    ]


def _words_verdicts(play: ScoredPlay, dictionary: Dictionary | None) -> tuple[list[str], list[str]]:
    if dictionary is None:
        return [], [w.word for w in play.words]
    invalid, unchecked = [], []
    for word in play.words:
        if UNKNOWN_BLANK in word.word:
            unchecked.append(word.word)
            continue
        verdict = dictionary.check(word.word.upper()).verdict
        if verdict is Verdict.INVALID:
            invalid.append(word.word)
        elif verdict is Verdict.NOT_CHECKED:
            unchecked.append(word.word)
    return invalid, unchecked


def _invalid_through(
    board: Board, play: ScoredPlay, dictionary: Dictionary | None, squares: set[Square]
) -> bool:
    """Whether a word of `play` (on `board`) that the dictionary lacks, and that is not attested
    in use either (`Dictionary.attested`), covers one of `squares`."""
    invalid = {
        word
        for word in _words_verdicts(play, dictionary)[0]
        if dictionary is None or not dictionary.attested(word.upper())
    }
    return any(
        not squares.isdisjoint(board.run_through((w.row, w.col), w.across))
        for w in play.words
        if w.word in invalid
    )


_Outcome = tuple[tuple[str, ...], ChangeKind, Board, ScoredPlay | None]


def _narrowed(outcomes: list[_Outcome], squares: list[Square]) -> dict[Square, list[str]]:
    """Per square (in `squares`' order), the symbols any of `outcomes`' fillings puts there."""
    return {s: sorted({o[0][i] for o in outcomes}) for i, s in enumerate(squares)}


_Run = tuple[str, int, int, bool]


def _invalid_runs(play: ScoredPlay | None, dictionary: Dictionary | None) -> set[_Run]:
    """The words of `play` the dictionary lacks, each with where it lies (word, row, col,
    across)."""
    if play is None:
        return set()
    invalid = set(_words_verdicts(play, dictionary)[0]) if dictionary is not None else set()
    return {(w.word, w.row, w.col, w.across) for w in play.words if w.word in invalid}


def _spellable(
    board: Board,
    play: ScoredPlay,
    variant: Variant,
    dictionary: Dictionary | None,
    alike: frozenset[_Run] = frozenset(),
) -> bool:
    """Whether the play's words can all be valid: none is invalid but those of `alike` (words
    every reading makes, which tell none apart), and its new unknown blanks can stand for
    letters that make the words through them valid."""
    if dictionary is None or not dictionary.checks_words:
        return True
    if not _invalid_runs(play, dictionary) <= alike:
        return False
    blanks = [p.square for p in play.placements if p.tile.letter == UNKNOWN_BLANK]
    return not blanks or bool(blank_assignments(board, variant, dictionary, blanks))


def _try(
    known: Board, after: Board, variant: Variant, last_play: ScoredPlay | None
) -> tuple[ChangeKind, Board, ScoredPlay | None] | None:
    try:
        change = classify_change(known, after, variant, last_play)
    except IllegalPlay:
        return None
    return change.kind, change.board, change.play


_MAX_COMBINATIONS = 4096
# Known tiles that may look gone at once before the photo is doubted (a hand, glare).
_HIDDEN_LIMIT = 3
# How far (in rows and columns) from a known tile that looks gone whatever hides it (a hand,
# glare) may hide a new tile too.
_HIDDEN_REACH = 3


def track(
    known: Board,
    reading: Reading,
    variant: Variant,
    dictionary: Dictionary | None = None,
    last_play: ScoredPlay | None = None,
    thresholds: Thresholds = Thresholds(),
    steady: frozenset[Square] = frozenset(),
    labels: bool = True,
    answered: frozenset[Square] = frozenset(),
    kept: frozenset[Square] = frozenset(),
    blind: frozenset[Square] = frozenset(),
) -> TrackResult:
    """Align `reading` with `known`, find and validate the move, and say whether it can be
    committed.

    `labels`: whether a tile read on a premium square far from every other tile may be the
    square's printed label (true of a photo's reading; false of a board a person corrected,
    whose tiles are as the person set them).

    `answered`: the squares a person set while reviewing this photo. A move that breaks a rule
    is blamed on the other squares where it can be: a review never asks again about a square
    just answered while another one may be what breaks the move.

    `steady`: known tiles the game's previous settled photo read as empty too. Read so again,
    they are this edition's look of those tiles under this light, not a hand: they do not count
    towards a photo's hidden tiles, so the same question is not asked photo after photo.

    `kept`: known tiles that cannot have left (a table camera saw their squares look as they did
    when the board last settled): read as empty, they are misreads, never gone, hidden or taken
    back. `blind`: empty squares too clipped by a bright light to show what lies on them (a
    table camera's frame): a cell read as likely empty but not surely, or else a letterless
    tile, may show only the light, so the words do not settle it: it is asked about wherever a
    legal move could put a tile there.

    Known tiles stay known: one read as another letter, or as empty, is a misread and keeps its
    letter, unless exactly the last play's tiles look gone (a withdrawn play), most of them do
    (a play partly taken back?) or several known tiles look gone at once (a hand, glare): those
    need review, but for the last when the play read with them kept lies clear of them (a hand
    or a glare there cannot hide a tile of it: see `_clear_of`). New tiles read with low
    confidence, and letters the set has run out of, are settled when exactly one choice makes a
    legal play whose words can be valid (and the photo reads no choice the dictionary ruled out
    as far likelier: `Thresholds.unlisted`), or when only one choice is legal at all and no word
    the dictionary lacks runs through a doubtful tile. Where no move is legal with the new
    blanks read with confidence, or with the doubtful cells read most likely as blanks, they may
    be empty squares too (with `labels`): a plain blank is what an empty square looks most like.
    """
    try:
        rotation, grid, seen = align(known, reading)
    except ValueError as exc:
        return TrackResult(TurnStatus.REJECTED, str(exc))
    # Steadily unseen tiles say nothing of whether this is the game's board.
    unseen = sum(
        1 for r, c in steady | kept if known.get(r, c) is not None and grid[r][c].symbol == EMPTY
    )
    if unseen and known.tile_count() > unseen:
        seen *= known.tile_count() / (known.tile_count() - unseen)
    if seen < thresholds.match:
        return TrackResult(
            TurnStatus.NEEDS_REVIEW,
            f"the photo shows only {seen:.0%} of the {known.tile_count()} tiles already on the "
            "board: another board, or much of it hidden",
            rotation,
        )

    misreads: list[Misread] = []
    gone: list[Square] = []
    uncertain: dict[Square, list[str]] = {}
    settled: dict[Square, Tile] = {}
    unreadable: list[Square] = []
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            old = known.get(r, c)
            if old is not None:
                if cell.symbol == EMPTY and (r, c) in kept:
                    misreads.append(Misread((r, c), old.char, EMPTY, cell.confidence))
                elif cell.symbol == EMPTY:
                    gone.append((r, c))
                elif not same_tile(old, Tile.from_char(cell.symbol)):
                    if _swapped(old, cell, variant, thresholds):
                        settled[r, c] = Tile(old.letter)
                    else:
                        misreads.append(Misread((r, c), old.char, cell.symbol, cell.confidence))
                continue
            options = _tile_options(cell, thresholds)
            if (
                (r, c) in blind
                and cell.symbol == EMPTY
                and cell.confidence < thresholds.empty
                and set(options) == {EMPTY, UNKNOWN_BLANK}
            ):
                # Not settled by the words either: a word list that lacks the word without it
                # (IWI, played in a Collins game) would make the light a blank (IWIS).
                uncertain[r, c] = [UNKNOWN_BLANK, EMPTY]
                unreadable.append((r, c))
                continue
            if cell.confidence >= thresholds.certain:
                if cell.symbol != EMPTY:
                    settled[r, c] = Tile.from_char(cell.symbol)
            elif not (cell.symbol == EMPTY and all(s == EMPTY for s in options)):
                uncertain[r, c] = options
                if sum(p for sym, p in cell.options if sym in options) < thresholds.coverage:
                    unreadable.append((r, c))

    # A lone tile on a printed premium square, sure or doubtful, may be no tile at all: a label
    # read as a letter. The fillings below keep it only where a legal move does.
    for square in _lone_labels(known, settled, uncertain, variant, grid) if labels else ():
        options = [settled.pop(square).char] if square in settled else uncertain[square]
        uncertain[square] = list(dict.fromkeys([*options, EMPTY]))

    withdrawn = {p.square for p in last_play.placements} if last_play else set()
    taken_back = set(gone) == withdrawn and all(
        _cleared(known[s], grid[s[0]][s[1]], thresholds)  # type: ignore[arg-type]
        for s in gone
    )
    if withdrawn and not taken_back and len(withdrawn & set(gone)) * 2 >= len(withdrawn):
        # Its tiles that still look there are asked about too: a play is taken back whole, and
        # answers that only the gone ones are gone would keep the rest as misreads and record
        # the withdrawal as a pass (bench_players --seed 11, a blurred wood-print board).
        return _gone_review(
            known,
            gone,
            "the last play looks partly taken back",
            rotation,
            misreads,
            settled,
            uncertain,
            sorted(withdrawn - set(gone)),
        )
    hidden = frozenset(gone) - steady
    if not taken_back and len(hidden) >= _HIDDEN_LIMIT:
        # The known tiles stay on the board whether something hides them or they only look
        # gone, so the move is the photo's unless what hides them hides a tile of it too: the
        # photo read with them kept is taken when its play lies clear of them.
        with_hidden = track(
            known,
            reading,
            variant,
            dictionary,
            last_play,
            thresholds,
            steady | hidden,
            labels,
            answered,
            kept,
            blind,
        )
        if _clear_of(with_hidden, hidden):
            return with_hidden
        return _gone_review(
            known,
            gone,
            "known tiles look gone: a hand or glare?",
            rotation,
            misreads,
            settled,
            uncertain,
        )
    if taken_back:
        removed = {s: None for s in gone}
    else:
        removed = {}
        misreads.extend(
            Misread(s, known[s].char, EMPTY, grid[s[0]][s[1]].confidence)  # type: ignore[union-attr]
            for s in gone
        )
    read_board = known.place(removed).place(settled)

    # Tile accounting: letters the set has run out of cannot all be right; they compete again.
    for square in _over_counted(known, settled, variant):
        cell = grid[square[0]][square[1]]
        uncertain[square] = list(dict.fromkeys([*_tile_options(cell, thresholds), EMPTY]))
        del settled[square]
    base = known.place(removed).place(settled)
    choices = _countable(base, uncertain, variant)
    squares = sorted(choices)
    new_squares = {s for s in settled if known.get(*s) is None}
    # A cell whose every candidate the tile counts rule out holds none of them, like an
    # unreadable one (a printed label read as a second Z).
    unreadable += [s for s in squares if not choices[s] and s not in unreadable]
    if unreadable:
        if _may_hold_a_tile(
            known, base, choices, squares, new_squares, unreadable, variant, last_play
        ):
            # The other doubtful cells are listed too: a correction takes every square not
            # listed as read, and a new tile left out would be dropped from the move (a play
            # recorded as a pass in a rendered game).
            listed = [
                *unreadable,
                *(square for square in sorted(uncertain) if square not in unreadable),
            ]
            return _review(
                uncertain, "some cells cannot be read", rotation, misreads, read_board, listed
            )
        # No legal move puts any tile there, whatever its letter: the cell is empty (a printed
        # label, a shadow far from the play), and asking about it would change nothing.
        choices.update(dict.fromkeys(unreadable, [EMPTY]))

    # Every way to fill the uncertain cells that gives a legal move whose words can be valid.
    filled = _fillings(known, base, choices, squares, new_squares, variant, last_play, dictionary)
    strays = [s for s in sorted(new_squares) if labels and settled[s].char == UNKNOWN_BLANK]
    # Doubtful cells read most likely as blanks, with no trace of "no tile" among their readings.
    blankish = [
        s
        for s in squares
        if labels and grid[s[0]][s[1]].symbol == UNKNOWN_BLANK and EMPTY not in choices[s]
    ]
    if filled is not None and not filled[0] and (strays or blankish):
        # A plain blank is what an empty square looks most like, and a premium square's print
        # can look like a blank with confidence (0.97 on a held-out edition, beside a play of
        # seven sure letters in another column): where no move is legal with them, the new
        # blanks read with confidence may be no tiles, as doubtful ones may; and so may the
        # doubtful ones read most likely as blanks (a corner square read blank 0.88, I 0.03,
        # beside a sure play of three letters in another row).
        base = base.place(dict.fromkeys(strays))
        # The tile counts ruled candidates out with the strays as blanks: without them, a
        # doubtful blank may be the set's last again (INSIDERs, its blank on a corner read
        # 0.79, recorded as INSIDER beside two premium squares read as blanks).
        recounted = _countable(
            base, {s: options for s, options in uncertain.items() if s not in unreadable}, variant
        )
        wider = {**choices, **recounted, **{s: [UNKNOWN_BLANK, EMPTY] for s in strays}}
        wider.update({s: [*wider[s], EMPTY] for s in blankish if EMPTY not in wider[s]})
        squares, choices, new_squares = sorted(wider), wider, new_squares - set(strays)
        filled = _fillings(
            known, base, choices, squares, new_squares, variant, last_play, dictionary
        )
    if filled is None:
        return _review(
            choices, "too many uncertain cells to settle", rotation, misreads, read_board
        )
    legal, outcomes = filled
    if not outcomes and len(legal) > 1:
        # A word the dictionary lacks that every legal reading makes alike, the same letters on
        # the same squares (OMA beside a doubtful B/R: BARN and JOB, or RARN and JOR), tells none
        # of them apart: their other words do, and the play read is then recorded with it
        # flagged, as a phony is (the server asks about it, `scorer.turns.phonies_confirmed`).
        alike = frozenset.intersection(*(frozenset(_invalid_runs(o[3], dictionary)) for o in legal))
        if alike:
            outcomes = [
                o
                for o in legal
                if o[3] is not None and _spellable(o[2], o[3], variant, dictionary, alike)
            ]
    if not outcomes and len(legal) == 1:
        # The dictionary settles between readings; it does not veto the only legal one. A word
        # it lacks stands as played (a phony, or a word missing from the list) unless it runs
        # through a doubtful tile, where a misread is as likely as a phony; a word attested in
        # use, though too rare for the list, is no sign of a misread (MAZEY, its E read 0.93,
        # every other letter there making no legal move).
        combo, _, board, play = legal[0]
        doubtful = {s for s, sym in zip(squares, combo, strict=True) if sym != EMPTY}
        if play is None or not _invalid_through(board, play, dictionary, doubtful):
            outcomes = legal

    rivals = _rivals(outcomes, legal, squares, grid, dictionary, thresholds)
    if rivals:
        narrowed = _narrowed(outcomes + rivals, squares)
        return _review(
            narrowed,
            "the word list settles on a letter the photo reads as unlikely",
            rotation,
            misreads,
            read_board,
            [s for s in squares if len(narrowed[s]) > 1],
        )
    if not outcomes:
        if legal:
            narrowed = _narrowed(legal, squares)
            return _review(
                narrowed,
                "no reading of these cells makes words the dictionary knows",
                rotation,
                misreads,
                read_board,
                [s for s in squares if len(narrowed[s]) > 1]
                or [s for s in squares if narrowed[s] != [EMPTY]],
            )
        return _no_play_review(
            known,
            base,
            choices,
            grid,
            variant,
            last_play,
            thresholds,
            rotation,
            misreads,
            read_board,
            answered,
        )
    if len(outcomes) > 1:
        narrowed = _narrowed(outcomes, squares)
        open_squares = [s for s in squares if len(narrowed[s]) > 1]
        return _review(
            narrowed, "several readings are possible", rotation, misreads, read_board, open_squares
        )

    _, kind, board, play = outcomes[0]
    return _finish(kind, board, play, known, variant, dictionary, rotation, misreads, read_board)


def _countable(
    base: Board, uncertain: dict[Square, list[str]], variant: Variant
) -> dict[Square, list[str]]:
    """Each uncertain square's candidates that `base` leaves in the tile set, and "no tile"."""
    return {
        square: [
            s
            for s in options
            if s == EMPTY or not over_count(base.place({square: Tile.from_char(s)}), variant)
        ]
        for square, options in uncertain.items()
    }


def _fillings(
    known: Board,
    base: Board,
    choices: dict[Square, list[str]],
    squares: list[Square],
    new_squares: set[Square],
    variant: Variant,
    last_play: ScoredPlay | None,
    dictionary: Dictionary | None,
) -> tuple[list[_Outcome], list[_Outcome]] | None:
    """The fillings of the uncertain `squares` (their `choices`) on `base` that give a legal
    move, and of those the ones whose words can be valid; None when there are too many."""
    fills = _line_fills(known, choices, squares, new_squares)
    if fills is None:
        return None
    legal: list[_Outcome] = []
    outcomes: list[_Outcome] = []
    for combo in fills:
        fill = {
            s: (None if sym == EMPTY else Tile.from_char(sym))
            for s, sym in zip(squares, combo, strict=True)
        }
        after = base.place(fill)
        if over_count(after, variant):
            # More of a letter, or more blanks, than the set has: no legal position (and a
            # filling of many blanks would cost the alphabet to the power of their count to
            # spell).
            continue
        found = _try(known, after, variant, last_play)
        if found is None:
            continue
        kind, board, play = found
        legal.append((combo, kind, board, play))
        if not squares or play is None or _spellable(board, play, variant, dictionary):
            outcomes.append(legal[-1])
    return legal, outcomes


def _odds(
    combo: tuple[str, ...], squares: list[Square], grid: list[list[_Cell]], floor: float
) -> float:
    """The reading's odds of a filling: the product of each doubtful cell's probability of the
    symbol it puts there (a symbol the cell gave no probability, such as "no tile" added for a
    possible label, at the candidate floor)."""
    odds = 1.0
    for (r, c), symbol in zip(squares, combo, strict=True):
        odds *= max(dict(grid[r][c].options).get(symbol, 0.0), floor)
    return odds


def _unlisted_odds(
    play: ScoredPlay | None, dictionary: Dictionary | None, thresholds: Thresholds
) -> float:
    """The odds that the words of `play` the list lacks were all really played, each at
    `thresholds.unlisted` for its length; a play the list rules out for its blanks alone (no
    letter they can stand for makes a word) weighs as one word of its shortest length."""
    if play is None:
        return 1.0
    lengths = [len(run[0]) for run in _invalid_runs(play, dictionary)]
    odds = 1.0
    for length in lengths or [min(len(w.word) for w in play.words)]:
        odds *= thresholds.unlisted[min(length, len(thresholds.unlisted)) - 1]
    return odds


def _rivals(
    outcomes: list[_Outcome],
    legal: list[_Outcome],
    squares: list[Square],
    grid: list[list[_Cell]],
    dictionary: Dictionary | None,
    thresholds: Thresholds,
) -> list[_Outcome]:
    """The legal readings the word list ruled out that stay too likely to drop without asking:
    each weighs its cells' odds times `thresholds.unlisted` for the words the list lacks, and the
    readings the list keeps must hold `thresholds.certain` of the whole, as a sure cell does.
    Empty when the list ruled nothing out, or nothing it ruled out comes close."""
    if not outcomes or len(outcomes) == len(legal):
        return []
    kept = {id(o) for o in outcomes}
    floor = thresholds.candidate
    weighed = [
        (o, _odds(o[0], squares, grid, floor) * _unlisted_odds(o[3], dictionary, thresholds))
        for o in legal
        if id(o) not in kept
    ]
    valid = sum(_odds(o[0], squares, grid, floor) for o in outcomes)
    total = valid + sum(w for _, w in weighed)
    if valid >= thresholds.certain * total:
        return []
    return [o for o, w in weighed if w >= (1 - thresholds.certain) * total]


def _clear_of(result: TrackResult, hidden: frozenset[Square]) -> bool:
    """Whether `result` commits a play that no tile hidden near the `hidden` squares (within
    `_HIDDEN_REACH`) can belong to: a hidden tile of the play would lie in its line, next to
    its tiles, so every empty square just past a run of tiles through a new tile, either way,
    must lie farther away. A pass or a withdrawal is never clear: a hidden play would look so."""
    board = result.board
    if result.status is not TurnStatus.COMMITTED or result.kind is not ChangeKind.PLAY:
        return False
    if result.play is None or board is None:
        return False
    ends = set()
    for r, c in (p.square for p in result.play.placements):
        for dr, dc in _STEPS:
            row, col = r + dr, c + dc
            while board.in_bounds(row, col) and board.get(row, col) is not None:
                row, col = row + dr, col + dc
            if board.in_bounds(row, col):
                ends.add((row, col))
    return all(max(abs(r - hr), abs(c - hc)) > _HIDDEN_REACH for r, c in ends for hr, hc in hidden)


def _lone_labels(
    known: Board,
    settled: dict[Square, Tile],
    uncertain: dict[Square, list[str]],
    variant: Variant,
    grid: list[list[_Cell]],
) -> list[Square]:
    """The new tiles on premium squares (their printed labels look like letters on some
    editions), read with confidence or doubtful ones read as a tile, with no tile, known or read
    with confidence, in their row or column within one more square than a tile read as empty may
    leave (`_LINK_REACH`): such a tile is part of no legal move unless the fillings find one
    (with the doubtful cells around it), so taking "no tile" for a candidate costs no question.
    Nearer a tile it may be a play's end whose tiles between were read as empty squares, and is
    left as read; so is one whose colours the photo shows are a tile's, not its square's
    (`_Cell.tile_coloured`: a printed label is its square's colour)."""
    layout = variant.layout.rows
    occupied = {s for s, _ in known.tiles()} | set(settled)
    reach = range(1, _LINK_REACH + 2)
    tiles = [s for s in settled if known.get(*s) is None]
    tiles += [s for s, options in uncertain.items() if options and options[0] != EMPTY]
    return [
        (r, c)
        for (r, c) in tiles
        if layout[r][c] != "."
        and not grid[r][c].tile_coloured
        and not any((r + dr * k, c + dc * k) in occupied for dr, dc in _STEPS for k in reach)
    ]


def _may_hold_a_tile(
    known: Board,
    base: Board,
    choices: dict[Square, list[str]],
    squares: list[Square],
    new_squares: set[Square],
    unreadable: list[Square],
    variant: Variant,
    last_play: ScoredPlay | None,
) -> bool:
    """Whether some legal move puts a tile on an `unreadable` cell: each of them may hold any
    tile or none (its truth may be none of its candidates), the other doubtful cells what their
    candidates allow. Only where a tile goes counts, not its letter (a blank stands for any), so
    no word list or tile count rules a tile out here; too many fillings to try count as yes."""
    wide = {**choices, **{s: [EMPTY, UNKNOWN_BLANK] for s in unreadable}}
    fills = _line_fills(known, wide, squares, new_squares)
    if fills is None:
        return True
    at = [i for i, s in enumerate(squares) if s in set(unreadable)]
    for combo in fills:
        if all(combo[i] == EMPTY for i in at):
            continue
        fill = {
            s: (None if sym == EMPTY else Tile.from_char(sym))
            for s, sym in zip(squares, combo, strict=True)
        }
        if _try(known, base.place(fill), variant, last_play) is not None:
            return True
    return False


def _line_fills(
    known: Board, choices: dict[Square, list[str]], squares: list[Square], new_squares: set[Square]
) -> list[tuple[str, ...]] | None:
    """The fillings of `squares` (in that order) that can make a legal move: a play's new tiles
    all lie in one row or one column, so no filling puts a tile off every line that holds the
    tiles already read (`new_squares`). None when there are too many to try.

    Only illegal fillings are left out, so doubtful cells scattered over the board (faint marks
    on empty squares) cost one line's worth of tries each instead of every combination.
    """
    lines = [(0, r) for r in range(known.height)] + [(1, c) for c in range(known.width)]
    found: dict[tuple[str, ...], None] = {}
    tries = 0
    for axis, value in lines:
        if any(s[axis] != value for s in new_squares):
            continue
        if any(s[axis] != value and EMPTY not in choices[s] for s in squares):
            continue
        options = [choices[s] if s[axis] == value else [EMPTY] for s in squares]
        tries += math.prod(len(o) for o in options)
        if tries > _MAX_COMBINATIONS:
            return None
        found.update(dict.fromkeys(itertools.product(*options)))
    return list(found)


# Empty squares a tile read as empty may leave between the new tiles and the board.
_LINK_REACH = 2


def _no_play_review(
    known: Board,
    base: Board,
    choices: dict[Square, list[str]],
    grid: list[list[_Cell]],
    variant: Variant,
    last_play: ScoredPlay | None,
    thresholds: Thresholds,
    rotation: int,
    misreads: list[Misread],
    read_board: Board,
    answered: frozenset[Square],
) -> TrackResult:
    """No reading makes a legal play: a review of the squares that break the most likely one (by
    the rule it breaks, never those just `answered` where others may break it), with what a
    person may put there, and of the uncertain cells."""
    likely = base.place(
        {
            s: None if options[0] == EMPTY else Tile.from_char(options[0])
            for s, options in choices.items()
        }
    )
    try:
        classify_change(known, likely, variant, last_play)
    except IllegalPlay as exc:
        breaking = {
            s: _fixes(known, likely, s, grid[s[0]][s[1]], thresholds)
            for s in _breaking_squares(known, likely, exc, variant, answered)
        }
        why = str(exc)
    else:  # not reached (the likely filling was tried, and none was legal): ask, never commit
        breaking, why = {}, "no reading of these cells makes a legal play"
    listed = [*breaking, *(s for s in sorted(choices) if s not in breaking)]
    return _review({**breaking, **choices}, why, rotation, misreads, read_board, listed)


def _breaking_squares(
    known: Board,
    after: Board,
    exc: IllegalPlay,
    variant: Variant,
    answered: frozenset[Square] = frozenset(),
) -> list[Square]:
    """Where `after` most likely went wrong, for the rule `exc` names: the empty squares between
    the new tiles (a tile inside the word read as empty), the new tiles off the play's line (stray
    marks read as tiles), the empty squares that would join the play to the board or to the
    centre, or else the squares the error names or the new tiles. The squares a person just set
    (`answered`) are as they said: the others are named first, and the new tiles they did not
    set when those are all the rule names (a lone Q answered as a Q, off the line of two stray
    marks: the marks are asked, not the Q again)."""
    new = [s for s, _ in after.tiles() if known.get(*s) is None]
    match exc.code:
        case PlayErrorCode.GAP:
            named = list(exc.squares)
        case PlayErrorCode.NOT_IN_LINE | PlayErrorCode.TOO_MANY_TILES:
            # More new tiles than a rack holds: those off the line holding most of them first.
            named = _off_line(known, new, variant.layout.centre, answered)
        case PlayErrorCode.NOT_CONNECTED:
            named = _links(known, after, new) or new
        case PlayErrorCode.FIRST_MOVE_OFF_CENTRE:
            named = _towards(new, variant.layout.centre) or new
        case PlayErrorCode.FIRST_MOVE_TOO_SHORT:
            named = [*new, *_empty_neighbours(after, new)]
        case _:
            named = list(exc.squares) or new
    fresh = [s for s in named if s not in answered]
    return fresh or [s for s in new if s not in answered] or named


_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def _off_line(
    known: Board, new: list[Square], centre: Square, answered: frozenset[Square] = frozenset()
) -> list[Square]:
    """The new tiles off the row or column that holds most of the tiles a person just set
    (`answered`), then most of them (ties: the line more of whose tiles touch the board, or
    cover the centre of an empty one); all of them when that is not one answer."""

    def anchored(square: Square) -> bool:
        if known.is_empty():
            return square == centre
        return known.touches_tile(*square)

    lines = {(0, r) for r, _ in new} | {(1, c) for _, c in new}
    held = {line: [s for s in new if s[line[0]] == line[1]] for line in lines}
    rank = {
        line: (len(answered.intersection(on)), len(on), sum(map(anchored, on)))
        for line, on in held.items()
    }
    best = max(rank.values())
    off = {tuple(s for s in new if s not in held[line]) for line in lines if rank[line] == best}
    return list(off.pop()) if len(off) == 1 else new


def _links(known: Board, after: Board, new: list[Square]) -> list[Square]:
    """The empty squares of the straight runs (up to `_LINK_REACH`) from a new tile to a tile
    already on the board: where a tile read as empty would have joined the play to it. All of
    them, not only the shortest: the end of a word read as empty squares lies along the play's
    line, often farther than a square beside it that is truly empty (a review that listed only
    that one could never be answered)."""
    runs = []
    for r, c in new:
        for dr, dc in _STEPS:
            run: list[Square] = []
            row, col = r + dr, c + dc
            while after.in_bounds(row, col) and after.get(row, col) is None:
                run.append((row, col))
                row, col = row + dr, col + dc
            if run and len(run) <= _LINK_REACH and known.get(row, col) is not None:
                runs.append(run)
    return sorted({s for run in runs for s in run})


def _towards(new: list[Square], centre: Square) -> list[Square]:
    """The squares from the new tiles up to the centre (at most `_LINK_REACH`), when they lie in
    its row or column: a first play whose tile on the centre was read as empty."""
    for axis in (0, 1):
        if all(s[axis] == centre[axis] for s in new):
            along = 1 - axis
            near = min((s[along] for s in new), key=lambda p: abs(p - centre[along]))
            step = 1 if centre[along] > near else -1
            reach = range(near + step, centre[along] + step, step)
            if len(reach) > _LINK_REACH:
                return []
            return [(centre[0], p) if axis == 0 else (p, centre[1]) for p in reach]
    return []


def _empty_neighbours(board: Board, squares: list[Square]) -> list[Square]:
    around = {
        (r + dr, c + dc)
        for r, c in squares
        for dr, dc in _STEPS
        if board.in_bounds(r + dr, c + dc) and board.get(r + dr, c + dc) is None
    }
    return sorted(around)


def _fixes(
    known: Board, after: Board, square: Square, cell: _Cell, thresholds: Thresholds
) -> list[str]:
    """What a breaking square may really hold: an empty one, the letters its reading allows or
    no tile; a new tile, itself or no tile; a known tile changed, the known one or what was read."""
    tiles = [t.char for t in (known.get(*square), after.get(*square)) if t is not None]
    if not tiles:
        return [*(s for s, p in cell.options if s != EMPTY and p >= thresholds.candidate), EMPTY]
    return list(dict.fromkeys(tiles if len(tiles) == 2 else [*tiles, EMPTY]))


def _over_counted(known: Board, settled: dict[Square, Tile], variant: Variant) -> list[Square]:
    """The new squares read as a letter (or blank) that the board would hold too many of."""
    over = set(over_count(known.place(settled), variant))
    return [
        s
        for s, tile in settled.items()
        if (UNKNOWN_BLANK if tile.is_blank else tile.letter) in over
    ]


def _gone_review(
    known: Board,
    gone: list[Square],
    why: str,
    rotation: int,
    misreads: list[Misread],
    settled: dict[Square, Tile],
    uncertain: dict[Square, list[str]],
    still: Sequence[Square] = (),
) -> TrackResult:
    """A review of known tiles that look gone, with the photo's new tiles kept: its sure ones on
    the board as read and its doubtful ones listed after the gone ones, so that a correction of
    the gone tiles alone cannot drop a play the photo shows. `still`: known tiles that look
    there but may have gone with them (the rest of a play taken back), listed after the gone
    ones and kept on the board unless answered."""
    listed = ", ".join(square_name(*s) for s in gone)
    return TrackResult(
        TurnStatus.NEEDS_REVIEW,
        f"{why} ({listed}): confirm, or photograph the board again",
        rotation,
        misreads=tuple(misreads),
        uncertain=(
            *(
                UncertainCell(s, (known[s].char, EMPTY), why)  # type: ignore[union-attr]
                for s in [*gone, *still]
            ),
            *(UncertainCell(s, tuple(uncertain[s]), why) for s in sorted(uncertain)),
        ),
        read_board=known.place(dict.fromkeys(gone)).place(settled),
    )


def _review(
    candidates: dict[Square, list[str]],
    why: str,
    rotation: int,
    misreads: list[Misread],
    read_board: Board,
    squares: list[Square] | None = None,
) -> TrackResult:
    """A needs-review result listing `squares` (default: all) with their candidates.

    A correction takes every square not listed as the board read shows it, so none may be lost:
    a doubtful square not listed whose candidates agree goes on the board as read, and one whose
    candidates still differ is listed after the others (a play recorded without its first two
    tiles, in a rendered game, after the one square asked about was answered).
    """
    listed_squares = sorted(candidates) if squares is None else list(squares)
    agreed = {
        s: None if options[0] == EMPTY else Tile.from_char(options[0])
        for s, options in candidates.items()
        if s not in listed_squares and len(options) == 1
    }
    read_board = read_board.place(agreed)
    listed_squares += [s for s in sorted(candidates) if s not in listed_squares and s not in agreed]
    cells = tuple(UncertainCell(s, tuple(candidates[s]), why) for s in listed_squares)
    listed = "; ".join(
        f"{square_name(*c.square)}: {'/'.join(c.candidates) or 'none'}" for c in cells
    )
    return TrackResult(
        TurnStatus.NEEDS_REVIEW,
        f"{why}: {listed}",
        rotation,
        misreads=tuple(misreads),
        uncertain=cells,
        read_board=read_board,
    )


def _finish(
    kind: ChangeKind,
    board: Board,
    play: ScoredPlay | None,
    known: Board,
    variant: Variant,
    dictionary: Dictionary | None,
    rotation: int,
    misreads: list[Misread],
    read_board: Board,
) -> TrackResult:
    """Designate new blanks from the dictionary, then check the words of the play."""
    if kind is not ChangeKind.PLAY or play is None:
        message = (
            "board unchanged: a pass or an exchange"
            if kind is ChangeKind.UNCHANGED
            else "the last play was withdrawn"
        )
        return TrackResult(
            TurnStatus.COMMITTED,
            message,
            rotation,
            kind,
            board,
            play,
            tuple(misreads),
            read_board=read_board,
        )

    new_blanks = [
        p.square for p in play.placements if p.tile.is_blank and p.tile.letter == UNKNOWN_BLANK
    ]
    if new_blanks and dictionary is not None and dictionary.checks_words:
        candidates = blank_candidates(board, variant, dictionary)
        wanted = {s: candidates.get(s, []) for s in new_blanks}
        if any(len(letters) != 1 for letters in wanted.values()):
            cells = tuple(
                UncertainCell(s, tuple(letters), "blank: choose its letter")
                for s, letters in wanted.items()
            )
            listed = "; ".join(
                f"{square_name(*c.square)}: {'/'.join(c.candidates) or 'none'}" for c in cells
            )
            return TrackResult(
                TurnStatus.NEEDS_REVIEW,
                f"the letter of a new blank is not settled: {listed}",
                rotation,
                kind,
                board,
                play,
                tuple(misreads),
                cells,
                read_board=read_board,
            )
        designated = {s: Tile(letters[0], True) for s, letters in wanted.items()}
        found = _try(known, board.place(designated), variant, None)
        assert found is not None and found[2] is not None, "a designated blank keeps the play legal"
        kind, board, play = found

    # Every tile a word the dictionary lacks runs through was read with confidence: it was really
    # played, and stands until a player challenges it, so the play is recorded with it flagged.
    invalid, unchecked = _words_verdicts(play, dictionary)
    attested = [w for w in invalid if dictionary is not None and dictionary.attested(w.upper())]
    message = f"{play.word} at {play.position} for {play.score}"
    if invalid:
        message += "; not in the dictionary: " + ", ".join(invalid) + " (challenge it?)"
    return TrackResult(
        TurnStatus.COMMITTED,
        message,
        rotation,
        kind,
        board,
        play,
        tuple(misreads),
        invalid_words=tuple(invalid),
        attested_words=tuple(attested),
        unchecked_words=tuple(unchecked),
        read_board=read_board,
    )


def surely_read(
    result: TrackResult,
    reading: Reading,
    variant: Variant,
    dictionary: Dictionary | None,
    thresholds: Thresholds = Thresholds(),
) -> frozenset[Square]:
    """The squares of the words `result`'s play makes that the dictionary lacks (their new
    tiles, and the empty squares just past their ends) that `reading`, the photo it was tracked
    from, reads beyond doubt: a new lettered tile read as its letter, or a square past an end
    read empty, with confidence (`thresholds.certain`), and no other candidate in its top three
    making the word one the dictionary knows at odds a word missing from the list cannot beat
    (`thresholds.unlisted`): a look-alike the list would settle on (PRÄMIE for a PRXMIE whose X
    gave Ä some weight), a tile an end may hold (a blank's weight there, any letter: OOZ of OOZE).
    A play with such a word is a phony or a word the list lacks, as the photo shows it; the
    server asks only about its other squares (`scorer.turns.phonies_confirmed`). None is sure
    where the photo's own known tiles do not vouch for its confident reads: on a first move
    (none), or where one of them is read with confidence as another tile or as an empty
    square (an edition, light or camera on which the model is surer than it is right).

    Of the new tiles of rendered games (`bench_players`: 2,504 in 25 games on held-out editions,
    95 in a self-played German game, 96 in a game on a calibrated edition), none was read as
    another letter with confidence, and one as an empty square: a K on a slanted corner (0.987),
    which the model's features catch (`vision.answers.tile_like_vacancies`)."""
    play, board = result.play, result.board
    invalid = set(result.invalid_words)
    if play is None or board is None or dictionary is None or not invalid:
        return frozenset()
    grid = _rotate(_cells(reading), result.rotation)
    new = {p.square: p.tile for p in play.placements}
    known = [(square, tile) for square, tile in board.tiles() if square not in new]
    if not known or any(_misread_surely(grid[r][c], tile, thresholds) for (r, c), tile in known):
        return frozenset()
    sure: set[Square] = set()
    for word in play.words:
        if word.word not in invalid:
            continue
        odds = thresholds.unlisted[min(word.length, len(thresholds.unlisted)) - 1]
        for square in [s for s in word.squares if s in new] + word_ends(board, word):
            tile, cell = new.get(square), grid[square[0]][square[1]]
            seen = EMPTY if tile is None else tile.char
            if (tile is not None and tile.is_blank) or cell.symbol != seen:
                continue
            if cell.confidence < thresholds.certain:
                continue
            others = [sym for sym, p in cell.options if sym != seen and p >= odds * cell.confidence]
            rivals = [Tile.from_char(sym) for sym in others if sym not in (EMPTY, UNKNOWN_BLANK)]
            if tile is None and UNKNOWN_BLANK in others:
                rivals += [Tile(letter, True) for letter in variant.alphabet]
            if not any(_spells_known(board, square, r, word.across, dictionary) for r in rivals):
                sure.add(square)
    return frozenset(sure)


def _misread_surely(cell: _Cell, tile: Tile, thresholds: Thresholds) -> bool:
    """Whether a known `tile` is read with confidence as another tile or as an empty square."""
    if cell.confidence < thresholds.certain:
        return False
    return cell.symbol == EMPTY or not same_tile(tile, Tile.from_char(cell.symbol))


def word_ends(board: Board, word: WordScore) -> list[Square]:
    """The empty squares just past either end of `word` on `board`."""
    dr, dc = (0, 1) if word.across else (1, 0)
    before = (word.row - dr, word.col - dc)
    after = (word.row + dr * word.length, word.col + dc * word.length)
    return [s for s in (before, after) if board.in_bounds(*s) and board.get(*s) is None]


def _spells_known(
    board: Board, square: Square, tile: Tile, across: bool, dictionary: Dictionary
) -> bool:
    """Whether `tile` on `square` makes the run through it, across or down, a known word."""
    changed = board.place({square: tile})
    run = changed.run_through(square, across)
    letters = "".join(changed[s].char for s in run)  # type: ignore[union-attr]
    return dictionary.check(letters.upper()).verdict is Verdict.VALID


@dataclass(frozen=True)
class PlainReading:
    """A reading held as plain lists: a board a person confirmed or corrected, possibly with
    some cells still uncertain."""

    classes: list[list[str]]
    confidence: list[list[float]]
    top3: list[list[list[tuple[str, float]]]]


def certain_reading(board: Board) -> PlainReading:
    """The reading that shows exactly `board` with full confidence (blank letters kept)."""
    classes = [
        [
            EMPTY_CLASS
            if t is None
            else ("blank" if t.is_blank and t.letter == UNKNOWN_BLANK else t.char)
            for t in board.row(r)
        ]
        for r in range(board.height)
    ]
    return PlainReading(
        classes,
        [[1.0] * board.width for _ in range(board.height)],
        [[[(cls, 1.0)] for cls in row] for row in classes],
    )
