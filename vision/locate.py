"""Find a board's playing grid in a photo: four corners of the cell area and a fit quality.

0. A first look. Most photos show the board apart from the table by its light or its lines
   alone: the candidates of three masks (Otsu light and dark, dark lines; 1.) are searched by
   their lines first (2. and 3.), and a grid that fits fairly well (`_FIRST_LOOK`) and passes
   the checks of 4. is taken without computing the other masks. Otherwise the whole search
   below runs, reusing the warps, refinements and checks the first look computed. Measured
   against the whole search alone: the first look (then from 0.8) took the grid on 215 of
   bench_editions' 400 held-out photos and on 307 of bench_locate's 400 renders, never where
   the whole search finds none, within 0.18 of a cell of the whole search's grid, at the same
   mean corner error (0.047 and 0.051 of a cell against 0.048 and 0.051); the median time to
   locate fell by 17 % on the held-out photos, 36 % on the renders and 38 % on bench_read's
   12 MP photos. Taken from 0.6 rather than 0.8, on bench_editions' 1600 held-out photos
   (seeds 7000000 to 7300399) 87 grids changed, 46 came closer and 41 went further (the most,
   0.10 to 0.29 of a cell); the one grid over half a cell off (7300181, a wood print whose
   other outlines fit no lines, so that the premium squares alone placed it 0.53 off) came to
   0.18; the 90th percentile 0.132 to 0.130; the whole search was spared on 247 more photos,
   36 ms each on average. Games (bench_players seeds 7, 8, 10-15, de, es, fr; bench_replay,
   bench_frames): the same turns, but seed 7 two fewer (a fit of 0.71 taken where the search
   found one of 0.76 closer by 0.19 of a cell) and seed 15 one more. From 0.5, 20 more grids
   changed and 11 went further (one 0.13 to 0.41).
1. Candidates. Quadrilaterals that may hold the grid: the whole frame, and the outlines of large
   regions of several masks (Otsu light/dark, dark lines, edges, edge density, saturation). Each
   outline gives two quadrilaterals: its convex hull simplified to four corners, and the lines
   through its four longest straight runs, which stays right when something touching the board
   (a cup, a hand, a box lid of the same colour) merges with its outline. And the outline of
   the region a small learned net marks as the grid (`vision.grid_area`):
   by the squares' pattern rather than one colour, it outlines wood-print boards and frames of
   the table's colour that no mask parts from their surroundings. Its outline is only where
   the premium squares alone may place the grid (5.): among the line fits' starts it changed
   which of two converging fits ended the refinement, for no grid more, and lines fitted from
   it came out farther off than the second look's. With it, bench_editions
   --grid-only --photos 400 (the held-out family) found 395 grids, none wrong, against 390
   and one wrong (0.8 of a cell) without; bench_locate --count 400 398, none wrong, against
   397 and one wrong.
2. Coarse grid. Each candidate is warped to a square (with a border of half a cell) and scored by
   how well `cols + 1` equally spaced lines (a comb) explain the gradient energy along each axis,
   capped as in the refinement (the edges of rows of tiles would otherwise outweigh faint lines
   and draw the comb to a shorter period). When no grid is found from these combs, the combs of
   the plain energy are refined too: they start the refinement elsewhere, and on a board busy
   with tiles a fit that fails from one start often succeeds from another.
3. Refinement. From the best coarse grids (until one fits well, or two converge on one grid),
   every grid line is fitted in a top-down warp of the current estimate (strips of three cells
   pooled in the first round, so faint lines and loosely placed tiles still give a position; one
   strip each in later rounds, for accuracy) and a homography is fitted by RANSAC to the
   crossings (of inner lines in the first round, of all lines found later). The line energy is
   capped at a high quantile, so that the letters of a board full of tiles do not drown faint
   lines. While the strip just outside one side looks more like cells than the strip inside the
   other, the grid moves by a whole cell; a strip far fainter than the grid's typical one never
   looks like cells. Warps read from a Gaussian pyramid level close to their scale, so that
   shrinking never skips thin lines.
4. Checks. A fit is kept only if its quadrilateral is plausible for a square seen in perspective
   (convex, sides within 2:1), its lines stand out in absolute terms (JPEG's 8-pixel blocks draw
   a faint perfect grid on any flat table), its even and odd lines look alike (unlike a grid at
   half the true period) and its quality (lines found and straight, crossings agreeing, every
   strip of cells cut by lines) reaches `MIN_QUALITY`; otherwise `BoardNotFound`
   is raised rather than a wrong grid returned. With the variant's premium layout, the grid may
   finally move by whole cells to where squares of the same premium look most alike; when they
   point elsewhere without settling it, or the grid does not fit where they point, or the
   premium squares fitted block by block (`vision.premium_fit`) agree on a grid part of a cell
   away from the lines (lines fitted to wood grain), the line fit is not taken; unless they
   explain clearly more of the colours there, it still stands where 5. finds no grid by lines.
   A line fit where the premium squares do not show (the layout explains no more of the colours
   there than with the grid a cell or two away: rows fitted to the stripes of wood grain, a
   grid on a patch of the board) stands only where 5. finds no grid, by lines or by the
   premium squares alone; a weak line fit (`_WEAK_LINES`) that its premium squares hardly
   place (under half `MIN_MARGIN`) does not stand at all: neither lines nor squares vouch for it.
5. Boards without visible lines, and line fits not taken. When the layout is known, the grid is
   sought from its premium squares (`vision.premium_grid.premium_grids`): inside each candidate
   outline, the inset (the frame) at which squares of one premium kind look most alike; from
   the best few, the block-by-block premium fit refines the grid, faint lines refine it further
   if they can (from any of the best few, before the premium squares alone may place it: a
   block fit drifts on wood grain a cell away from where lines from another start hold;
   bench_editions' held-out photo 7000358 was so placed a cell off from the net's outline), and
   without them the blocks must agree on it (`PremiumFit.accepted_within`:
   where the grid fills the outline it was found in, the outline settles its whole-cell
   position) and must not be disputing a line fit without explaining clearly more than it.
   Candidate outlines include each Otsu region with its holes filled and opened by a wide
   kernel, which parts the board from a bar or a box lid of its colour lying against it.
6. A second look. When no grid is found from these candidates, two more kinds of outline are
   tried the same way (2. to 5.): the masks' large holes, since the inside of a frame (the hole
   in its dark edge or its edges, or in its saturated colour around a pale wood print) outlines
   the grid even when the frame's outside merged with a bar or a disc lying against it; and
   the masks' regions closed wider, which seals the gaps through which an outline ran inside
   the board (tiles at its edge), so that its sides are straight runs again. Only then: most
   photos never need them, and each candidate costs a warp and two combs. A grid found there
   must be settled by lines: the premium squares alone, from many more outlines, agree by
   chance on grids part of a cell off where the lines do not show (a table camera's frames of
   an overexposed board: three of three grids so found were 0.7 of a cell off).
7. Edges. A grid the premium squares alone placed (5.: the blocks place it to a quarter of a
   cell or so) is settled on the edges of its outer squares where they show
   (`vision.grid_edges`). On bench_editions' 1600 held-out photos (seeds 7000000 to 7300399)
   the 328 grids so placed went from a median corner error of 0.13 of a cell to 0.03, a 99th
   percentile of 0.62 to 0.30, and from 8 more than half a cell off to none. Line fits are
   left as they are: settled too, those below 0.8 came closer on those photos (90th
   percentile of all grids 0.133 to 0.091 of a cell; but one grid 0.35 off went to 0.60), and
   cost turns in games (bench_players seeds 7 and 8 a turn each, bench_replay 452 to 449 of
   493 right; vs_josh, seed 8, turn 3: a grid 0.14 of a cell off settled to 0.04 read a tile
   beside a new blank with less confidence, and the blank's letter was no longer settled by
   the words). Fits of 0.8 and more came out further. But a line fit below 0.8 that its premium
   squares dispute and that stands (4.: they do not explain clearly more elsewhere, and 5.
   finds no grid) is settled: on those photos 6 grids were such, 5 came closer (two wood
   prints whose grain the lines ran along at a slant, 0.52 and 0.26 of a cell off, to 0.08
   and 0.03) and one went from 0.14 to 0.19 (settled above 0.8 too, 3 of 4 went further).

Thresholds are calibrated with `benchmarks/bench_locate.py` (rendered photos of random and
calibrated editions, photos without a board, and the real photos in ../shared).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

import cv2
import numpy as np

from vision.grid_area import area_mask
from vision.grid_edges import settle_on_edges
from vision.premium_fit import MIN_MARGIN, PremiumFit, finish, premium_fit, premium_rounds
from vision.premium_grid import DOUBTFUL, premium_grids, premium_shift
from vision.pyramid import Pyramid, canonical_grid
from vision.pyramid import warp as _warp

T = TypeVar("T")

WORK_LONG_SIDE = 1100  # px: locating needs a few px per grid line, not the full photo
_CANDIDATE_SIDE = 360  # px: square warp used to score a candidate quadrilateral
_REFINE_CELL = 24  # px per cell in the refinement warp
_MAX_CANDIDATES = 14
_OPEN_SHARE = 12  # the kernel that parts an outline from what touches it: this share of the photo
_SEAL_SHARE = 40  # a closing that seals gaps into an outline (6. above): this share of the photo
_REFINED_CANDIDATES = 5
# The grid-area net's region must cover this share of the photo to be outlined: a board filling
# a quarter of the frame's short side has a grid of about 4 %.
_LEARNED_AREA = 0.02
_SAME_GRID = 0.25  # cells: two refined fits this close are one grid
# Late-game boards, their strips of cells crowded with tiles, fit correctly at 0.36-0.45; the
# lowest wrong grid measured (a rendered late-game board, 2 cells off) fit at 0.32.
MIN_QUALITY = 0.38
# A refined fit this good ends the search. At 0.9, light boards (fits of 0.8-0.9) went on to
# refine failing candidates for ~80 ms more per photo and kept the same grids.
_GOOD_ENOUGH = 0.8
# A first look's line fit this good that the premium squares do not dispute is the grid (0.).
_FIRST_LOOK = 0.6
_FITS = 3  # line-fitting rounds in the refinement
_MAX_SHIFTS = 8  # whole-cell moves allowed while refining one candidate
# A move by one cell must gain this fraction of a typical strip's cellness: the strip it takes in
# must look clearly more like cells than the one it gives up.
_SHIFT_GAIN = 0.25
_MIN_CELL_PX = 5.0  # smaller cells in the working image cannot be read anyway
_MAX_SIDE_RATIO = 2.0  # longest over shortest side of a grid seen in perspective
_PREMIUM_MOVES = 3  # rounds of whole-cell moves the premium squares may make
# Cells between a line fit and the grid its premium squares agree on, block by block, beyond
# which the lines are not the grid's: correct line fits measured 0.01-0.25 from it.
_MAX_DISAGREEMENT = 0.4
# The premium squares alone overrule the lines only when the layout explains more of the
# colours there than at the lines' grid, by this share of what it explains at the lines' grid
# beyond the grid a cell or two away (how clearly this photo's premium squares tell grids
# apart). Lines on wood grain or misprinted a third to half a cell off straddle the squares:
# 0.5 to many times that share. On a board crowded with tiles the block fit drifted off correct
# lines (a cell, where blue tiles pass for blue premium squares) and explained at most 0.27
# times that share more there.
_OVERRULE = 0.4
# A line fit this weak (quality) stands only where its premium squares confirm it: the layout
# explains more of the colours there than a cell or two away by at least this share of
# `MIN_MARGIN`. Two wrong grids of held-out wood-print boards (a skewed fit taking in the black
# frame, 1.6 cells off; rows fitted to wood grain, 2.7 cells off) fit at 0.38 and 0.59 with
# margins 0.020 and 0.002; correct fits with margins under 0.025 fit at 0.63-0.99.
_WEAK_LINES = 0.6
_CONFIRMED = 0.5
_GLANCE = 0.25  # cells a first round of the block fit must move a corner to look further
# Outlines, best first by their premium squares, that the premium squares alone may start from.
_PREMIUM_STARTS = 3
# Line energy (blurred gradient, grey levels per pixel) a grid must show above the cell centres:
# JPEG's 8-pixel blocks make a perfect but faint grid on any flat surface.
_MIN_LINE_ENERGY = 6.0
_STRIP_CONTRAST = 0.25  # line-vs-cell-centre contrast of a strip that is clearly made of cells
# Gradient blur, in cells, that merges the two edges of a grid line into one centred ridge.
_LINE_SIGMA = 0.08
_POOLED = 3  # strips of cells pooled to find a line's position in the first fit
_ENERGY_CAP = 0.8  # quantile of the line energy inside the grid that caps it
_FAINT_STRIP = 0.6  # a strip's energy, relative to the typical strip, below which it is faint
# Even and odd lines of a true grid differ by a few per cent of their energy; those of a grid at
# half the true period by a quarter or more.
_MAX_IMBALANCE = 0.18


class BoardNotFound(LookupError):
    """No playing grid could be found in the photo with enough confidence.

    `unvouched`: grids the premium squares placed that the colours did not vouch for alone
    (the layout explained too little more there than a cell or two away, as when tiles cover
    most squares late in a game), settled on their squares' edges: where the blocks agreed,
    where most of the few blocks showing their squares agreed, or else where the whole layout
    placed the grid; corners TL, TR, BR, BL as the image is seen, best first, some of them
    wrong. Something else must vouch for one: a game's known tiles read on it."""

    def __init__(self, message: str = "", unvouched: Sequence[np.ndarray] = ()) -> None:
        super().__init__(message)
        self.unvouched = tuple(unvouched)


class _Disputed(BoardNotFound):
    """A line fit that the premium squares, fitted block by block, put part of a cell away:
    `fit` (quality, corners) is the line fit, `clearly` whether they explain clearly more of the
    colours there (then the lines are not the grid's)."""

    def __init__(self, message: str, fit: tuple[float, np.ndarray], clearly: bool) -> None:
        super().__init__(message)
        self.fit, self.clearly = fit, clearly


class _Unplaced(_Disputed):
    """A line fit the premium squares do not place: too few blocks show their squares there, or
    the layout explains no more of the colours there than with the grid a cell or two away. On
    a board whose squares show, such a grid is not the board's (lines fitted to wood grain, to
    a patch of the board): it stands unless the premium squares alone find the grid."""

    def __init__(self, message: str, fit: tuple[float, np.ndarray]) -> None:
        super().__init__(message, fit, clearly=False)


@dataclass(frozen=True)
class GridLocation:
    """The grid's corners (TL, TR, BR, BL as seen in the image, pixels) and fit quality in [0, 1].

    `alternatives`: where the premium squares alone placed the grid, or disputed its lines, the
    other grids they placed from the best starts (`BoardNotFound.unvouched`), for something
    else to vouch for where it does not vouch for this one: a game's known tiles."""

    corners: np.ndarray  # shape (4, 2), float64
    quality: float
    alternatives: tuple[np.ndarray, ...] = ()


def locate_grid(
    image: np.ndarray, rows: int, cols: int, layout: Sequence[str] | None = None
) -> GridLocation:
    """Find the `rows` x `cols` playing grid in a BGR or grey `image`.

    `layout` (the variant's premium layout, one string per row, one character per square kind)
    lets the premium squares settle which whole-cell position the grid is at. Returns corners in
    `image`'s pixels, ordered top-left, top-right, bottom-right, bottom-left as the image is seen.
    Raises `BoardNotFound` when no candidate fits the grid well enough, or the premium squares
    put the grid where it does not fit.
    """
    colour, factor = _working_image(image)
    gray = cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY)
    work, levels = Pyramid(gray), Pyramid(colour)
    seen = None if layout is None else np.array([list(line) for line in layout])
    blurred = cv2.GaussianBlur(gray, (5, 5), 0)
    masks = _first_masks(blurred)
    closings: dict[int, list[np.ndarray]] = {}
    memo: dict[bytes, object] = {}
    found = _first_look(
        colour,
        levels,
        work,
        _candidate_quads(masks, colour.shape[:2], closings),
        rows,
        cols,
        seen,
        memo,
    )
    if found is not None:
        quality, corners = found
        return GridLocation(corners=(corners + 0.5) * factor - 0.5, quality=quality)
    masks += _more_masks(colour, blurred, masks)
    candidates = _candidate_quads(masks, colour.shape[:2], closings)
    unvouched: list[np.ndarray] = []

    def distinct(found: np.ndarray | None = None) -> list[np.ndarray]:
        """The unvouched grids, each once and none where `found` is, in `image`'s pixels."""
        kept: list[np.ndarray] = []
        for grid in unvouched:
            taken = kept if found is None else [found, *kept]
            if not any(_same_grid(grid, other, rows, cols) for other in taken):
                kept.append(grid)
        return [(grid + 0.5) * factor - 0.5 for grid in kept]

    try:
        quality, corners = _search(
            colour, levels, work, candidates, rows, cols, seen, memo, unvouched=unvouched
        )
    except BoardNotFound as refusal:
        # A second look at the masks (6. above), where only lines settle a grid.
        inner = _candidate_quads(masks, colour.shape[:2], closings, second=True, known=candidates)
        try:
            if not inner:
                raise
            quality, corners = _search(
                colour, levels, work, inner, rows, cols, seen, memo, False, unvouched
            )
        except BoardNotFound:
            raise BoardNotFound(str(refusal), distinct()) from None
    return GridLocation(
        corners=(corners + 0.5) * factor - 0.5,
        quality=quality,
        alternatives=tuple(distinct(corners)),
    )


def _search(
    colour: np.ndarray,
    levels: Pyramid,
    work: Pyramid,
    candidates: list[np.ndarray],
    rows: int,
    cols: int,
    seen: np.ndarray | None,
    memo: dict[bytes, object],
    premium_only: bool = True,
    unvouched: list[np.ndarray] | None = None,
) -> tuple[float, np.ndarray]:
    """(quality, corners) of the grid found from these candidate quadrilaterals, by its lines
    and then by its premium squares (2. to 5. above), by the premium squares alone only with
    `premium_only`; raises `BoardNotFound`. `memo` keeps what the first look computed. Where
    the premium squares alone may place the grid, the grid-area net's outlines
    (`_learned_quads`, 1. above) are where they may place it too. `unvouched` gets the grids
    the premium squares placed but did not vouch for (`BoardNotFound.unvouched`)."""
    best: tuple[float, np.ndarray] | None = None
    warped = [_candidate(work, quad, rows, cols, memo) for quad in candidates]
    # The plain energy's combs only when the capped energy's give no grid (see 2. above).
    for capped in (True, False):
        fit = _best_refined(work, warped, rows, cols, capped, memo)
        if fit is not None and (best is None or fit[0] > best[0]):
            best = fit
        if best is not None and best[0] >= MIN_QUALITY:
            break
    quality = best[0] if best is not None else 0.0
    refusal = BoardNotFound(f"no {rows}x{cols} board grid found (best fit quality {quality:.2f})")
    # A line fit the premium squares dispute without explaining clearly more elsewhere: it
    # stands unless their search finds the grid by its lines too.
    standing = None
    if best is not None and quality >= MIN_QUALITY:
        try:
            return _settled_once(colour, levels, work, best, rows, cols, seen, memo)
        except BoardNotFound as exc:
            # The line fit sat on something else (a cell off, wood grain, another grid-like
            # region): the premium squares may still find the grid.
            refusal = exc
            if isinstance(exc, _Disputed) and not exc.clearly:
                standing = exc.fit
    if seen is not None:
        alone = premium_only and (standing is None or isinstance(refusal, _Unplaced))
        nets = _learned_quads(colour) if alone else []
        found = _lineless(
            colour, levels, work, candidates, rows, cols, seen, alone, nets, unvouched
        )
        if found is not None:
            return found
    if standing is not None:
        quality, corners = standing
        if quality < _GOOD_ENOUGH:
            # Lines its premium squares dispute may run along wood grain at a slant: a weaker
            # fit is held to the edges of its outer squares where they show (7. above).
            corners = settle_on_edges(levels, corners, rows, cols)
        return quality, corners
    raise refusal


def _first_look(
    colour: np.ndarray,
    levels: Pyramid,
    work: Pyramid,
    candidates: list[np.ndarray],
    rows: int,
    cols: int,
    seen: np.ndarray | None,
    memo: dict[bytes, object],
) -> tuple[float, np.ndarray] | None:
    """(quality, corners) of a grid that fits fairly well by its lines (`_FIRST_LOOK`) from
    the first look's candidates, checked by its premium squares as any line fit, or None (0.
    above)."""
    warped = [_candidate(work, quad, rows, cols, memo) for quad in candidates]
    fit = _best_refined(work, warped, rows, cols, True, memo)
    if fit is None or fit[0] < _FIRST_LOOK:
        return None
    try:
        return _settled_once(colour, levels, work, fit, rows, cols, seen, memo)
    except BoardNotFound:
        return None


def _settled_once(
    colour: np.ndarray,
    levels: Pyramid,
    work: Pyramid,
    fit: tuple[float, np.ndarray],
    rows: int,
    cols: int,
    seen: np.ndarray | None,
    memo: dict[bytes, object],
) -> tuple[float, np.ndarray]:
    """`_settled`, once per line fit for the first look and the search (`memo`)."""
    return _memoised(
        memo,
        b"settled" + fit[1].tobytes(),
        lambda: _settled(colour, levels, work, fit, rows, cols, seen),
    )


def _memoised(memo: dict[bytes, object], key: bytes, compute: Callable[[], T]) -> T:
    """`compute()`, or what it returned or raised (`BoardNotFound`) for `key` before."""
    if key not in memo:
        try:
            memo[key] = (True, compute())
        except BoardNotFound as exc:
            memo[key] = (False, exc)
    done, value = memo[key]  # type: ignore[misc]
    if not done:
        raise value
    return value


def _lineless(
    colour: np.ndarray,
    levels: Pyramid,
    work: Pyramid,
    candidates: list[np.ndarray],
    rows: int,
    cols: int,
    layout: np.ndarray,
    premium_only: bool = True,
    learned: Sequence[np.ndarray] = (),
    unvouched: list[np.ndarray] | None = None,
) -> tuple[float, np.ndarray] | None:
    """(quality, corners) of the grid found from its premium squares (5. above), or None;
    without `premium_only`, only where lines settle it (the premium squares alone were not
    clear enough against the lines already fitted). `learned`: the grid-area net's outlines,
    where the premium squares alone may place the grid too. `unvouched` gets the grids placed
    from the best starts that the colours did not vouch for alone (`BoardNotFound.unvouched`)."""
    ranked = premium_grids(colour, [*learned, *candidates], layout)

    def is_learned(outline: np.ndarray) -> bool:
        return any(outline is quad for quad in learned)

    # Faint lines settle the corners the premium squares placed, checked as any line fit (a
    # start from the premium squares is one more candidate), from the best starts of the
    # masks' outlines; only then may the premium squares alone, agreeing on the grid block by
    # block (`vision.premium_fit`), place it, from the best starts of all, the net's outlines
    # included: a block fit drifts on wood grain where lines from another start hold, and
    # lines fitted from the net's outlines came out up to 0.07 of a cell farther off than
    # those the second look (6.) then fits.
    lined = [start for start in ranked if not is_learned(start[2])][:_PREMIUM_STARTS]
    placed = ranked[:_PREMIUM_STARTS]
    fits: dict[int, PremiumFit | None] = {}

    def fit_of(start: np.ndarray) -> PremiumFit | None:
        if id(start) not in fits:
            fits[id(start)] = premium_fit(levels, start, layout)
        return fits[id(start)]

    for _, start, _ in lined:
        fit = fit_of(start)
        for corners in [start] if fit is None else [fit.corners, start]:
            refined = _refine(work, corners, rows, cols, False)
            if refined is not None and refined[0] >= MIN_QUALITY:
                try:
                    return _settled(colour, levels, work, refined, rows, cols, layout)
                except BoardNotFound:
                    continue
    found = None
    for _, start, outline in placed:
        fit = fit_of(start)
        if found is None and premium_only and fit is not None and fit.accepted_within(outline):
            # The other starts are placed too: their grids are the alternatives.
            found = fit.margin, settle_on_edges(levels, fit.corners, rows, cols)
            continue
        if unvouched is not None:
            # Where the blocks mostly agree, their grid; else where the whole layout placed it.
            placed_at = start if fit is None or not fit.partly_agreed else fit.corners
            unvouched.append(settle_on_edges(levels, placed_at, rows, cols))
    return found


def _settled(
    colour: np.ndarray,
    levels: Pyramid,
    work: Pyramid,
    fit: tuple[float, np.ndarray],
    rows: int,
    cols: int,
    layout: np.ndarray | None,
) -> tuple[float, np.ndarray]:
    """A line fit (quality, corners) moved by whole cells to where the premium squares put it,
    again after a move while they still point elsewhere; raises `BoardNotFound` when the grid
    does not fit as well there, when they point elsewhere without settling it, or (`_Disputed`)
    when the premium squares, fitted block by block from this grid, agree on a grid part of a
    cell away (lines fitted to wood grain or to the premium squares' edges)."""
    quality, corners = fit
    for _ in range(_PREMIUM_MOVES if layout is not None else 0):
        moved = premium_shift(colour, corners, layout)
        if moved is None:
            break
        refined = None if moved is DOUBTFUL else _refine(work, moved, rows, cols, False)
        if refined is None or refined[0] < MIN_QUALITY:
            raise BoardNotFound(
                f"no {rows}x{cols} board grid found (premium squares disagree with the grid)"
            )
        quality, corners = refined
    if layout is None:
        return quality, corners
    # One round of the block fit tells a line fit the premium squares agree with (they would
    # move it little) from one they may not, which the whole fit then settles.
    fits = premium_rounds(levels, corners, layout)
    glance = next(fits)
    if glance is None or glance.margin <= 0:
        raise _Unplaced(
            f"no {rows}x{cols} board grid found (its premium squares do not show at the grid "
            "fitted to its lines)",
            (quality, corners),
        )
    if quality < _WEAK_LINES and glance.margin < _CONFIRMED * MIN_MARGIN:
        raise BoardNotFound(
            f"no {rows}x{cols} board grid found (the grid fitted to its lines is weak and its "
            "premium squares hardly tell it from the grid a cell or two away)"
        )
    if glance.proposed > _GLANCE:
        check = finish(fits, glance)
        if check is not None and check.accepted and check.moved > _MAX_DISAGREEMENT:
            raise _Disputed(
                f"no {rows}x{cols} board grid found (premium squares put the grid "
                f"{check.moved:.2f} of a cell away from its lines)",
                (quality, corners),
                check.score - glance.score > _OVERRULE * glance.margin,
            )
    return quality, corners


def _best_refined(
    work: Pyramid,
    candidates: list[_Candidate],
    rows: int,
    cols: int,
    capped: bool,
    memo: dict[bytes, object],
) -> tuple[float, np.ndarray] | None:
    """The best (quality, corners) refined from the coarse grids of the best-scoring candidates,
    or None; `capped` caps the energy the combs are fitted to; `memo` keeps the refinements."""
    scored = sorted(
        (_coarse_grid(candidate, rows, cols, capped) for candidate in candidates),
        key=lambda item: -item[1],
    )
    best = None
    for grid, _ in scored[:_REFINED_CANDIDATES]:
        if grid is None:
            continue
        refined = _memoised(
            memo, b"refined" + grid.tobytes(), lambda grid=grid: _refine(work, grid, rows, cols)
        )
        if refined is None:
            continue
        if best is not None and _same_grid(refined[1], best[1], rows, cols):
            # Two starts converged on one grid: the starts that scored lower find it again (on
            # rendered photos of faint lines all five did) or a worse one.
            return max(best, refined, key=lambda fit: fit[0])
        if best is None or refined[0] > best[0]:
            best = refined
        if best[0] >= _GOOD_ENOUGH:
            break
    return best


def _same_grid(a: np.ndarray, b: np.ndarray, rows: int, cols: int) -> bool:
    """Whether two grids' corners lie within `_SAME_GRID` of a cell of each other."""
    cell = min(_cell_size(a, rows, cols), _cell_size(b, rows, cols))
    return float(np.linalg.norm(a - b, axis=1).max()) < _SAME_GRID * cell


def _working_image(image: np.ndarray) -> tuple[np.ndarray, float]:
    """A BGR copy at most WORK_LONG_SIDE px long, and the factor back to `image`."""
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    # An integer factor keeps INTER_AREA on its fast path (a 12 MP photo costs ~5x less).
    factor = int(np.ceil(max(image.shape[:2]) / WORK_LONG_SIDE))
    if factor > 1:
        size = (image.shape[1] // factor, image.shape[0] // factor)
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    return image, factor


def _order_corners(points: np.ndarray) -> np.ndarray:
    """Order four points TL, TR, BR, BL as seen (clockwise on screen, starting top-left)."""
    pts = points.reshape(4, 2).astype(np.float64)
    centre = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - centre[1], pts[:, 0] - centre[0])
    pts = pts[np.argsort(angles)]  # clockwise on screen (y down), starting from the left
    start = int(np.argmin(pts.sum(axis=1)))
    return np.roll(pts, -start, axis=0)


def _quad_from_contour(contour: np.ndarray) -> np.ndarray | None:
    """A four-corner approximation of a contour's convex hull, or None."""
    hull = cv2.convexHull(contour)
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.01, 0.02, 0.03, 0.05, 0.08):
        approx = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(approx) == 4:
            return _order_corners(approx)
        if len(approx) < 4:
            break
    return _order_corners(cv2.boxPoints(cv2.minAreaRect(hull)))


def _quad_from_sides(contour: np.ndarray) -> np.ndarray | None:
    """The quadrilateral bounded by the four longest straight runs of a contour, or None.

    A board outline that merged with something touching it (a cup, a hand, a rack) keeps most of
    its four straight sides; the convex hull would take in the intruder.
    """
    perimeter = cv2.arcLength(contour, True)
    poly = cv2.approxPolyDP(contour, 0.01 * perimeter, True).reshape(-1, 2).astype(np.float64)
    ends = np.roll(poly, -1, axis=0)
    lengths = np.linalg.norm(ends - poly, axis=1)
    angles = np.arctan2(ends[:, 1] - poly[:, 1], ends[:, 0] - poly[:, 0])
    # Runs of long segments in the same direction (within 10 degrees) make one side.
    sides: list[list[int]] = []
    for i in np.flatnonzero(lengths > 0.05 * perimeter):
        turn = 0.0 if not sides else angles[i] - angles[sides[-1][-1]]
        if sides and abs((turn + np.pi) % (2 * np.pi) - np.pi) < np.radians(10):
            sides[-1].append(int(i))
        else:
            sides.append([int(i)])
    if len(sides) > 1:
        turn = angles[sides[0][0]] - angles[sides[-1][-1]]
        if abs((turn + np.pi) % (2 * np.pi) - np.pi) < np.radians(10):
            sides[0] = sides.pop() + sides[0]
    if len(sides) < 4:
        return None
    longest = sorted(sorted(sides, key=lambda run: -lengths[run].sum())[:4])
    lines = []
    for run in longest:
        points = np.concatenate([poly[run], ends[run]]).astype(np.float32)
        vx, vy, x0, y0 = cv2.fitLine(points, cv2.DIST_L2, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    corners = []
    for (p, d), (q, e) in zip(lines, lines[1:] + lines[:1], strict=True):
        det = d[0] * -e[1] + e[0] * d[1]
        if abs(det) < 0.3:  # nearly parallel neighbours: not a quadrilateral's sides
            return None
        t = ((q[0] - p[0]) * -e[1] + e[0] * (q[1] - p[1])) / det
        corners.append(p + t * d)
    quad = _order_corners(np.array(corners))
    return quad if _plausible(quad) else None


def _first_masks(blurred: np.ndarray) -> list[np.ndarray]:
    """The first look's masks (0. above): Otsu light and dark, and dark lines, of the blurred
    grey working image."""
    h, w = blurred.shape[:2]
    _, otsu = cv2.threshold(blurred, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    block = (max(h, w) // 24) | 1
    dark_lines = cv2.adaptiveThreshold(
        blurred, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 8
    )
    return [otsu, 255 - otsu, dark_lines]


def _more_masks(work: np.ndarray, blurred: np.ndarray, first: list[np.ndarray]) -> list[np.ndarray]:
    """The other masks whose large regions may be the board or its grid: edges, edge density,
    saturation, and the Otsu regions filled and opened wide (`work` the colour working image,
    `blurred` its grey blurred, `first` the first look's masks)."""
    h, w = work.shape[:2]
    masks = []
    edges = cv2.Canny(blurred, 40, 120)
    masks.append(cv2.dilate(edges, np.ones((5, 5), np.uint8)))
    # A grid (lines, tiles, labels) is dense in edges at the scale of a few cells; a table,
    # a wall or a rack is sparser or smaller.
    for window in (max(h, w) // 40, max(h, w) // 20):
        density = cv2.blur(edges, (window, window))
        _, dense = cv2.threshold(density, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
        masks.append(cv2.morphologyEx(dense, cv2.MORPH_OPEN, np.ones((9, 9), np.uint8)))
    saturation = cv2.cvtColor(work, cv2.COLOR_BGR2HSV)[:, :, 1]
    _, sat = cv2.threshold(cv2.GaussianBlur(saturation, (5, 5), 0), 0, 255, cv2.THRESH_OTSU)
    masks.append(cv2.morphologyEx(sat, cv2.MORPH_CLOSE, np.ones((15, 15), np.uint8)))
    # Something of the board's colour lying against it (a bar, a box lid, a hand) merges with
    # its outline; opened with a kernel wider than such things are, the board stands alone.
    # Holes (tiles, labels) are filled first, or the opening would take the board apart.
    for mask in first[:2]:
        outlines, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        filled = cv2.drawContours(np.zeros_like(mask), outlines, -1, 255, cv2.FILLED)
        masks.append(_opened(filled, max(h, w) // _OPEN_SHARE))
    return masks


def _learned_quads(work: np.ndarray) -> list[np.ndarray]:
    """The quadrilaterals outlining the largest region of the grid-area net's mask
    (`vision.grid_area`) of the colour working image, or none without the model."""
    mask = area_mask(work)
    if mask is None:
        return []
    h, w = mask.shape
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return []
    largest = max(contours, key=cv2.contourArea)
    if cv2.contourArea(largest) < _LEARNED_AREA * h * w:
        return []
    quads = [_quad_from_sides(largest), _quad_from_contour(largest)]
    found: list[np.ndarray] = []
    for quad in quads:
        if quad is not None and all(np.abs(quad - q).max() > 0.02 * max(h, w) for q in found):
            found.append(quad)
    return found


def _opened(mask: np.ndarray, side: int) -> np.ndarray:
    """`cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((side, side), np.uint8))` of a 0/255
    mask, from box sums, whose cost does not grow with `side` as the morphology's does: a box
    sum saturated to 8 bits is the dilation of such a mask, and an erosion is the dilation of
    its complement. The sums' zero border counts as set for the erosion and as unset for the
    dilation, as the morphology's default border does."""

    def dilated(image: np.ndarray) -> np.ndarray:
        return cv2.boxFilter(
            image, -1, (side, side), normalize=False, borderType=cv2.BORDER_CONSTANT
        )

    return dilated(255 - dilated(255 - mask))


def _candidate_quads(
    masks: list[np.ndarray],
    shape: tuple[int, int],
    closings: dict[int, list[np.ndarray]],
    second: bool = False,
    known: Sequence[np.ndarray] = (),
) -> list[np.ndarray]:
    """Quadrilaterals that may hold the grid: the frame itself and the outlines of the masks'
    large regions; for a `second` look (6. above), the outlines of their large holes and of the
    regions closed wider instead, leaving out those near `known` ones. `closings` keeps the
    masks closed by each kernel side, which both looks close by 7 px (masks appended to
    `masks` later are closed when they come)."""
    h, w = shape
    frame = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float64)
    quads = [] if second else [frame]
    # (closing kernel side, whether holes are taken, whether outer outlines are)
    looks = (
        [(7, True, False), (max(h, w) // _SEAL_SHARE, False, True)]
        if second
        else [(7, False, True)]
    )
    for side, _, _ in looks:
        kernel = np.ones((side, side), np.uint8)
        closed = closings.setdefault(side, [])
        closed += [cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel) for mask in masks[len(closed) :]]
    found: list[tuple[float, np.ndarray]] = []
    for index in range(len(masks)):
        for side, holes, outer in looks:
            closed = closings[side][index]
            mode = cv2.RETR_CCOMP if holes else cv2.RETR_EXTERNAL
            contours, hierarchy = cv2.findContours(closed, mode, cv2.CHAIN_APPROX_SIMPLE)
            parents = hierarchy[0][:, 3] if hierarchy is not None else []
            for contour, parent in zip(contours, parents, strict=True):
                # With RETR_CCOMP, holes are the contours with a parent.
                if not (holes if parent >= 0 else outer):
                    continue
                area = cv2.contourArea(contour)
                if area < 0.04 * h * w:
                    continue
                for quad in (_quad_from_contour(contour), _quad_from_sides(contour)):
                    if quad is not None and cv2.contourArea(quad.astype(np.float32)) > 0.04 * h * w:
                        found.append((area, quad))
    found.sort(key=lambda item: -item[0])
    for _, quad in found:
        if all(np.abs(quad - other).max() > 0.02 * max(h, w) for other in [*quads, *known]):
            quads.append(quad)
        if len(quads) >= _MAX_CANDIDATES:
            break
    return quads


def _gradients(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Absolute x and y gradient energy of a grey image."""
    gx = np.abs(cv2.Sobel(image, cv2.CV_32F, 1, 0, ksize=3))
    gy = np.abs(cv2.Sobel(image, cv2.CV_32F, 0, 1, ksize=3))
    return gx, gy


def _line_energy(image: np.ndarray, cell: int) -> tuple[np.ndarray, np.ndarray]:
    """Energy of lines across x and across y in a warp with `cell` px per cell: the gradient
    magnitude blurred so that both edges of a thin line merge into one ridge."""
    gx, gy = _gradients(image)
    gx = cv2.GaussianBlur(gx, (0, 0), _LINE_SIGMA * cell)
    gy = cv2.GaussianBlur(gy, (0, 0), _LINE_SIGMA * cell)
    return gx, gy


def _comb_fit(profile: np.ndarray, lines: int, min_period: float, max_period: float):
    """Best (offset, period, contrast) of `lines` equally spaced peaks in a 1-D energy profile.

    Contrast compares the energy on the lines with the energy midway between them, less the
    imbalance between alternate lines. Periods and offsets go in 1 px steps; the first best in
    period order wins. Tooth `k` of the comb at offset `o` lies at `rint(o + k * period)`, which
    is `o + rint(k * period)` unless the tooth falls half way between two pixels: every tooth of
    every comb is read at once, as rows of the profile's sliding windows, and only the teeth at
    half a pixel are placed offset by offset.
    """
    n = len(profile)
    smooth = cv2.GaussianBlur(profile.reshape(1, -1).astype(np.float32), (0, 0), 1.0).ravel()
    peaks = smooth.copy()  # the largest value within 2 px, away from the ends
    peaks[2:-2] = np.lib.stride_tricks.sliding_window_view(smooth, 5).max(axis=1)
    periods = np.arange(min_period, max_period, 1.0)
    periods = periods[periods * (lines - 1) < n - 1]  # combs that fit in the profile
    if not len(periods):
        return 0.0, 0.0, -1.0
    k = np.arange(lines)
    limits = n - periods * (lines - 1) - 1  # offsets below this keep the comb inside
    offsets = np.arange(0, float(np.ceil(limits[0])), 1.0)
    count = len(offsets)
    teeth_at = k[None, :] * periods[:, None]  # (periods, lines), offset 0
    mids_at = (k[None, :-1] + 0.5) * periods[:, None]
    teeth, mids = np.rint(teeth_at).astype(int), np.rint(mids_at).astype(int)
    # Windows of the profile starting at each pixel: row d holds the values at d + offsets.
    padded_peaks, padded_smooth = np.pad(peaks, (0, count)), np.pad(smooth, (0, count))
    at = np.lib.stride_tricks.sliding_window_view(padded_peaks, count)[teeth]
    between = np.lib.stride_tricks.sliding_window_view(padded_smooth, count)[mids]
    # (periods, lines, offsets). Teeth at half a pixel are placed offset by offset.
    for values, padded, placed in ((at, padded_peaks, teeth_at), (between, padded_smooth, mids_at)):
        p, t = np.nonzero(np.abs(placed - np.floor(placed) - 0.5) < 1e-6)
        if len(p):
            values[p, t] = padded[np.rint(offsets[None, :] + placed[p, t][:, None]).astype(int)]
    on = at.sum(axis=1) / lines
    off = between.sum(axis=1) / (lines - 1)
    # At half the true period every other tooth sits on a cell centre (letters, not lines):
    # penalise combs whose even and odd teeth differ.
    even = at[:, 0::2].sum(axis=1) / len(k[0::2])
    odd = at[:, 1::2].sum(axis=1) / len(k[1::2])
    contrast = (on - off) / (on + off + 1e-6) - np.abs(even - odd) / (even + odd + 1e-6)
    contrast = np.where(offsets[None, :] < limits[:, None], contrast, -np.inf)
    p, i = np.unravel_index(int(np.argmax(contrast)), contrast.shape)
    if not contrast[p, i] > -1.0:
        return 0.0, 0.0, -1.0
    return float(offsets[i]), float(periods[p]), float(contrast[p, i])


@dataclass(frozen=True)
class _Candidate:
    """A candidate quadrilateral warped to a square: the warp, and the gradient energy's
    profiles across x and across y, plain (False) and capped as the refinement's (True)."""

    to_square: np.ndarray
    profiles: dict[bool, tuple[np.ndarray, np.ndarray]]
    # Its coarse grids (`_coarse_grid`), once for each kind of energy.
    coarse: dict[bool, tuple[np.ndarray | None, float]] = field(default_factory=dict)


def _candidate(
    work: Pyramid, quad: np.ndarray, rows: int, cols: int, memo: dict[bytes, object]
) -> _Candidate:
    """Warp a candidate to a square and sum its gradient energy along each axis, once for the
    combs of both kinds of energy, and once for the first look and the search (`memo`)."""
    return _memoised(
        memo, b"candidate" + quad.tobytes(), lambda: _warped_candidate(work, quad, rows, cols)
    )


def _warped_candidate(work: Pyramid, quad: np.ndarray, rows: int, cols: int) -> _Candidate:
    side = _CANDIDATE_SIDE
    # A border of half a cell around the candidate: a candidate that is the grid's own outline
    # (a frame in another colour) must show its outer lines whole, with room for the comb.
    pad = side // (2 * max(rows, cols))
    square = np.array(
        [[pad, pad], [pad + side, pad], [pad + side, pad + side], [pad, pad + side]], np.float32
    )
    to_square = cv2.getPerspectiveTransform(quad.astype(np.float32), square)
    scale = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1).mean() / side
    warped = _warp(work, to_square, (side + 2 * pad, side + 2 * pad), scale)
    gx, gy = _gradients(warped)
    cx, cy = _capped(gx, gy, pad)
    profiles = {False: (gx.sum(axis=0), gy.sum(axis=1)), True: (cx.sum(axis=0), cy.sum(axis=1))}
    return _Candidate(to_square, profiles)


def _coarse_grid(
    candidate: _Candidate, rows: int, cols: int, capped: bool
) -> tuple[np.ndarray | None, float]:
    """Find a candidate's grid lines by comb fitting (to the gradient energy, capped as the
    refinement's when `capped`), return the grid's corners in working-image pixels and the fit
    contrast (lower of the two axes)."""
    if capped not in candidate.coarse:
        candidate.coarse[capped] = _comb_grid(candidate, rows, cols, capped)
    return candidate.coarse[capped]


def _comb_grid(
    candidate: _Candidate, rows: int, cols: int, capped: bool
) -> tuple[np.ndarray | None, float]:
    """`_coarse_grid`, computed."""
    side = _CANDIDATE_SIDE
    fits = []
    for energy, lines in zip(candidate.profiles[capped], (cols + 1, rows + 1), strict=True):
        cell = side / (lines - 1)
        fits.append(_comb_fit(energy, lines, 0.3 * cell, 1.02 * cell))
    (x0, px, cx), (y0, py, cy) = fits
    if min(cx, cy) <= 0:
        return None, min(cx, cy)
    grid = np.array(
        [[x0, y0], [x0 + cols * px, y0], [x0 + cols * px, y0 + rows * py], [x0, y0 + rows * py]],
        np.float32,
    )
    back = cv2.perspectiveTransform(grid.reshape(1, 4, 2), np.linalg.inv(candidate.to_square))
    return back.reshape(4, 2).astype(np.float64), min(cx, cy)


def _pool(bands: np.ndarray, margin: int, cell: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Sums of `size` neighbouring strips, and the centre of each sum along the lines."""
    starts = np.arange(0, len(bands), size)
    sizes = np.diff(np.append(starts, len(bands)))
    centres = margin + (starts + sizes / 2) * cell
    return np.add.reduceat(bands, starts, axis=0), centres.astype(float)


def _line_points(band_energy: np.ndarray, expected: np.ndarray, window: float):
    """Per band and per expected line position: sub-pixel peak position and its strength."""
    bands, n = band_energy.shape
    radius = int(round(window))
    offsets = np.arange(-radius, radius + 1)
    idx = np.clip(np.rint(expected)[:, None].astype(int) + offsets[None, :], 1, n - 2)
    values = band_energy[:, idx]  # (bands, lines, window)
    arg = values.argmax(axis=2)
    centre = np.take_along_axis(idx[None, :, :].repeat(bands, 0), arg[..., None], 2)[..., 0]
    left = band_energy[np.arange(bands)[:, None], centre - 1]
    mid = band_energy[np.arange(bands)[:, None], centre]
    right = band_energy[np.arange(bands)[:, None], centre + 1]
    denom = left - 2 * mid + right
    shift = np.where(denom < 0, 0.5 * (left - right) / np.where(denom < 0, denom, -1), 0.0)
    return centre + np.clip(shift, -0.5, 0.5), mid


def _fit_lines(positions: np.ndarray, strength: np.ndarray, along: np.ndarray, tol: float):
    """Robustly fit pos = a * along + b for every line (one column of `positions` per line).

    Returns an array (lines, 3) of slope, intercept and the fraction of bands that agree.
    """
    keep = strength > 0.5 * np.median(strength, axis=0, keepdims=True)
    t = along[:, None]
    slope = np.zeros(positions.shape[1])
    intercept = np.median(positions, axis=0)
    for _ in range(3):
        w = keep.astype(np.float64)
        n = np.maximum(w.sum(axis=0), 1e-9)
        mt = (w * t).sum(axis=0) / n
        mp = (w * positions).sum(axis=0) / n
        var = (w * (t - mt) ** 2).sum(axis=0)
        cov = (w * (t - mt) * (positions - mp)).sum(axis=0)
        ok = w.sum(axis=0) >= 3
        slope = np.where(ok, cov / np.maximum(var, 1e-9), slope)
        intercept = np.where(ok, mp - slope * mt, intercept)
        keep = np.abs(slope * t + intercept - positions) < tol
    return np.stack([slope, intercept, keep.mean(axis=0)], axis=1)


def _refine(
    work: Pyramid,
    corners: np.ndarray,
    rows: int,
    cols: int,
    allow_shift: bool = True,
):
    """Fit every grid line near the current estimate and re-estimate the corners from their
    crossings, moving the estimate by whole cells while that covers more cell-like strips.
    Returns (quality, corners) or None."""
    cell = _REFINE_CELL
    margin = cell
    ideal, width, height = canonical_grid(rows, cols, cell, margin)
    xs = margin + np.arange(cols + 1) * cell
    ys = margin + np.arange(rows + 1) * cell
    shifts = fits = 0
    quality = 0.0
    while fits < _FITS:
        if _cell_size(corners, rows, cols) < _MIN_CELL_PX:
            return None
        to_canon = cv2.getPerspectiveTransform(corners.astype(np.float32), ideal)
        canon = _warp(work, to_canon, (width, height), _cell_size(corners, rows, cols) / cell)
        raw_x, raw_y = _line_energy(canon, cell)
        gx, gy = _capped(raw_x, raw_y, margin)
        lo, hi = int(0.15 * cell), int(0.85 * cell)
        # Energy profiles per strip of cells, including the strip just outside each side.
        band_x = _bands(gx, cell, lo, hi)
        band_y = _bands(gy.T, cell, lo, hi)
        col_cells = _cellness(band_y, ys, cell)
        row_cells = _cellness(band_x, xs, cell)
        shift_x, shift_y = _best_shift(col_cells), _best_shift(row_cells)
        if (shift_x or shift_y) and allow_shift and shifts < _MAX_SHIFTS:
            shifts += 1
            moved = ideal + np.array([shift_x * cell, shift_y * cell], np.float32)
            corners = cv2.perspectiveTransform(moved.reshape(1, 4, 2), np.linalg.inv(to_canon))
            corners = corners.reshape(4, 2).astype(np.float64)
            continue
        window = 0.3 * cell if fits == 0 else 0.2 * cell
        # Neighbouring strips are pooled: a faint line gathers evidence over a few cells, and
        # the scattered edges of loosely placed tiles average out to the line they sit on.
        pooled = _POOLED if fits == 0 else 1
        rows_pooled, row_centres = _pool(band_x[1:-1], margin, cell, pooled)
        cols_pooled, col_centres = _pool(band_y[1:-1], margin, cell, pooled)
        vx, vs = _line_points(rows_pooled, xs.astype(float), window)
        hy, hs = _line_points(cols_pooled, ys.astype(float), window)
        vfit = _fit_lines(vx, vs, row_centres, 0.12 * cell)
        hfit = _fit_lines(hy, hs, col_centres, 0.12 * cell)
        # The quality counts crossings of inner lines only: outer lines are often thicker (a
        # frame) or missing (a cropped photo). Once the estimate is close, the crossings of the
        # outer lines, where found, steady the homography along a side whose inner lines tiles
        # hide; from a rough first estimate they could hold it on inner lines instead.
        k, m = (
            index.ravel()
            for index in np.meshgrid(np.arange(cols + 1), np.arange(rows + 1), indexing="ij")
        )
        inner = (k > 0) & (k < cols) & (m > 0) & (m < rows)
        used = (vfit[k, 2] >= 0.5) & (hfit[m, 2] >= 0.5) & (inner | bool(fits))
        k, m, inner = k[used], m[used], inner[used]
        a, b = vfit[k, 0], vfit[k, 1]  # x = a*y + b
        c, d = hfit[m, 0], hfit[m, 1]  # y = c*x + d
        y = (c * b + d) / (1 - a * c)
        if inner.sum() < (rows - 1) * (cols - 1) // 4:
            return None
        correction, inliers = cv2.findHomography(
            np.float32(np.stack([xs[k], ys[m]], axis=1)),
            np.float32(np.stack([a * y + b, y], axis=1)),
            cv2.RANSAC,
            0.1 * cell,
        )
        if correction is None:
            return None
        total = np.linalg.inv(to_canon) @ correction
        corners = cv2.perspectiveTransform(ideal.reshape(1, 4, 2), total).reshape(4, 2)
        corners = corners.astype(np.float64)
        if not _plausible(corners):
            return None
        fits += 1
        crossings = float(inliers.ravel()[inner].sum()) / ((rows - 1) * (cols - 1))
        strips = np.concatenate([col_cells[1:-1], row_cells[1:-1]])
        quality = _quality(vfit, hfit, strips, crossings)
    width = hi - lo
    contrast_x = _line_contrast(_bands(raw_x, cell, lo, hi), xs, width)
    contrast_y = _line_contrast(_bands(raw_y.T, cell, lo, hi), ys, width)
    if min(contrast_x, contrast_y) < _MIN_LINE_ENERGY:
        return None
    if _parity_imbalance(band_x, xs, cell, band_y, ys) > _MAX_IMBALANCE:
        return None
    return quality, corners


def _parity_imbalance(
    band_x: np.ndarray, xs: np.ndarray, cell: int, band_y: np.ndarray, ys: np.ndarray
) -> float:
    """How differently the even and odd grid lines show: the median over the strips of cells of
    their energies' difference, as a share of their sum.

    A grid at half the true period has every other line on a cell's middle: on letters where
    tiles lie, on nothing where squares are empty, but unlike its other lines either way.
    """
    r = max(cell // 8, 1)
    shares = []
    for bands, lines in ((band_x, xs), (band_y, ys)):
        on = _near(bands[1:-1], lines[1:-1], r).max(axis=2)
        even, odd = on[:, 0::2].mean(axis=1), on[:, 1::2].mean(axis=1)
        shares.append(np.abs(even - odd) / (even + odd + 1e-6))
    return float(np.median(np.concatenate(shares)))


def _capped(gx: np.ndarray, gy: np.ndarray, margin: int) -> tuple[np.ndarray, np.ndarray]:
    """Line energies capped at a high quantile of the energy inside the grid (`margin` px in from
    the border): the letters on a board full of tiles are far stronger than faint grid lines, and
    would otherwise outweigh them in every strip they lie in."""
    inside = gx[margin:-margin:3, margin:-margin:3] + gy[margin:-margin:3, margin:-margin:3]
    cap = float(np.quantile(inside, _ENERGY_CAP))
    return np.minimum(gx, cap), np.minimum(gy, cap)


def _bands(energy: np.ndarray, cell: int, lo: int, hi: int) -> np.ndarray:
    """Energy profiles across the lines, one per strip of cells (rows of `energy`), summed over
    the strip's middle part (`lo` to `hi` px into each cell)."""
    strips = energy.shape[0] // cell
    middle = energy[: strips * cell].reshape(strips, cell, -1)[:, lo:hi]
    return middle.sum(axis=1)


def _plausible(corners: np.ndarray) -> bool:
    """Whether a quadrilateral can be a square grid seen by a camera at most ~50 degrees off
    vertical: convex, with no side more than twice as long as the opposite or adjacent one."""
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    edges = np.roll(corners, -1, axis=0) - corners
    following = np.roll(edges, -1, axis=0)
    turns = edges[:, 0] * following[:, 1] - edges[:, 1] * following[:, 0]
    convex = bool((turns > 0).all() or (turns < 0).all())
    return convex and sides.max() < _MAX_SIDE_RATIO * sides.min()


def _line_contrast(bands: np.ndarray, lines: np.ndarray, width: int) -> float:
    """Median excess of line energy on the grid lines over midway between them, per pixel."""
    profile = bands[1:-1].sum(axis=0) / ((len(bands) - 2) * width)
    mids = (lines[:-1] + lines[1:]) // 2
    between = np.interp(lines, mids, profile[mids])
    return float(np.median(profile[lines] - between))


def _cell_size(corners: np.ndarray, rows: int, cols: int) -> float:
    """The smaller mean cell side, in pixels, of a grid with these corners."""
    sides = np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1)
    return float(min((sides[0] + sides[2]) / (2 * cols), (sides[1] + sides[3]) / (2 * rows)))


def _cellness(bands: np.ndarray, lines: np.ndarray, cell: int) -> np.ndarray:
    """Per band (a strip of cells across the grid), how strongly the crossing grid lines show:
    a strip of real cells is cut by every line, a strip of frame or table is not."""
    r = max(cell // 8, 1)
    mids = (lines[:-1] + lines[1:]) // 2
    on = _near(bands, lines, r).max(axis=2)
    off = _near(bands, mids, r).mean(axis=2)
    on_mean, off_mean = on.mean(axis=1), off.mean(axis=1)
    # A strip much fainter than the grid's typical one (a plain frame or table whose faint
    # texture happens to fall on the lines) is not made of cells, however regular it looks.
    level = _FAINT_STRIP * float(np.median((on_mean + off_mean)[1:-1]))
    return (on_mean - off_mean) / (np.maximum(on_mean + off_mean, level) + 1e-6)


def _near(bands: np.ndarray, positions: np.ndarray, r: int) -> np.ndarray:
    """(bands, positions, 2r + 1): each band's values within `r` px of each position."""
    return bands[:, positions[:, None] + np.arange(-r, r + 1)[None, :]]


def _best_shift(cellness: np.ndarray) -> int:
    """-1, 0 or +1: the shift of the grid by one cell that covers the most cell-like strips.

    `cellness` has one value per strip, the first and last for the strips just outside the grid.
    """
    cells = len(cellness) - 2
    sums = [cellness[s : s + cells].sum() for s in range(3)]
    best = int(np.argmax(sums))
    # Move only on a clear win: a dropped edge strip must be much less cell-like than the new one.
    typical = float(np.median(cellness[1:-1]))
    return best - 1 if sums[best] - sums[1] > _SHIFT_GAIN * typical else 0


def _quality(vfit: np.ndarray, hfit: np.ndarray, strips: np.ndarray, crossings: float) -> float:
    """Fit quality in [0, 1]: every strip of cells must be cut by its lines (a grid laid partly
    over the table is not), most lines must be straight and found, most crossings must agree."""
    support = float(np.mean(np.concatenate([vfit[:, 2], hfit[:, 2]])))
    strip_score = float(np.clip(np.quantile(strips, 0.1) / _STRIP_CONTRAST, 0, 1))
    return float(np.clip(support * crossings, 0, 1) ** 0.5 * strip_score)
