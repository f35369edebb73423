"""The whole reading of one photo: decode -> locate -> rectify -> classify -> orient -> BoardReading.

Each stage is timed; the classifier is passed in so a caller reading many photos loads it once.
Grid corners a person marked on a photo where no board was found replace the locate stage.
A board that is not square may lie either way across the photo: its grid is looked for as rows ×
cols and as cols × rows, the better fit kept, and the reading turned upright as rows × cols.

Where the premium squares alone placed the grid, and placed others too
(`GridLocation.alternatives`), the others are read as well, and one whose squares the reading
leaves free show the layout clearly better (`vision.premium_grid.vacant_margin` higher by
`MIN_MARGIN`) is taken: the locator weighs every square, tiles included, and on a lineless wood
print thick with tiles it fitted one side of a grid a cell past the board's (held-out edition
photo 7400028: margins 0.133 there, 0.491 at the true grid). Of 800 held-out photos
(bench_editions' seeds from 7400000 and 7500000), 49 had their grids placed so; on two an
alternative stood that much clearer, and it was the true grid (0.07 of a cell off, where the
locator's was 0.97 and 0.34 off); on none a grid farther off.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

import cv2
import numpy as np

from scorer.board import Board
from scorer.tracking import Reading, Thresholds, known_board_likelihood, known_tiles_vouch
from scorer.variant import Variant
from vision.calibrate import BoardLooks, cell_looks, rotate_looks
from vision.classify import (
    UNORIENTED,
    CellClassifier,
    CellPredictions,
    cell_scores,
    check_readable,
    read_cells,
)
from vision.decode import DEFAULT_MAX_PIXELS, Photo, decode_photo
from vision.locate import BoardNotFound, GridLocation, locate_grid
from vision.orient import choose_rotation, rotate_predictions
from vision.plain_vacant import CHECKED, plain_squares, plainly_vacant
from vision.premium_fit import MIN_MARGIN
from vision.premium_grid import vacant_margin
from vision.reading import EMPTY, BoardReading
from vision.rectify import Corners, CornersError, check_corners, rectify

T = TypeVar("T")
R = TypeVar("R", bound=Reading)

# A square the first model's reading, weighed against the board's own empty squares and tiles
# (`vision.calibrate`), calls empty with this confidence is not read by the second model nor
# again from shifted views: on rendered phone photos those reads were mostly of empty squares
# that only the board-relative weighing settles, and they doubled the classifier's time.
SURELY_EMPTY = 0.99


def _timed(timings: dict[str, float], stage: str, work: Callable[[], T]) -> T:
    start = time.perf_counter()
    result = work()
    timings[stage] = (time.perf_counter() - start) * 1000
    return result


def read_board(
    data: bytes,
    variant: Variant,
    classifier: CellClassifier | None = None,
    max_pixels: int = DEFAULT_MAX_PIXELS,
    corners: Corners | None = None,
    free_squares: bool = False,
) -> BoardReading:
    """Read the board in a photo (JPEG, PNG or WebP bytes) for `variant`.

    `corners`: the grid's corners marked by a person, in the upright full-size photo's pixels
    (top-left, top-right, bottom-right, bottom-left as seen); the grid is then not searched for
    (quality 1), and the tiles' rotation is still found from the cells.

    `free_squares`: where the locator finds no grid, each grid it placed by the premium squares
    without vouching for it is read, and the one whose squares without a tile show the layout
    clearly (`vouched_by_free_squares`) is taken. A photo read alone has nothing else to vouch
    for a grid; in a game the known tiles do (`read_in_game`), so this is off by default. A grid
    found by the premium squares alone gives way to another they placed whose free squares show
    the layout clearly better (module docstring), photo read alone or not.

    Raises `vision.decode.PhotoError` for bytes that are not a usable image,
    `vision.locate.BoardNotFound` when the photo shows no board grid (its `unvouched` grids in
    the upright full-size photo's pixels, to be read with `corners` where something vouches),
    `vision.rectify.CornersError` when the marked corners cannot be the grid and
    `vision.classify.UnreadableVariant` for a variant whose letters the cell model cannot read.

    >>> reading = read_board(open("board.jpg", "rb").read(), load_variant("en"))  # doctest: +SKIP
    >>> print(reading.text)  # doctest: +SKIP
    """
    check_readable(variant)
    timings: dict[str, float] = {}
    photo = _timed(timings, "decode", lambda: decode_photo(data, max_pixels=max_pixels))
    return _read_photo(photo, variant, classifier, corners, free_squares, timings)


def _read_photo(
    photo: Photo,
    variant: Variant,
    classifier: CellClassifier | None,
    corners: Corners | None,
    free_squares: bool,
    timings: dict[str, float],
) -> BoardReading:
    """`read_board` of a decoded `photo`, its decode's time in `timings`; the other grids it
    weighs are read from the same decode."""
    upright = variant.layout.height, variant.layout.width

    def read_at(grid: Corners) -> BoardReading:
        return _read_photo(photo, variant, classifier, grid, False, {"decode": timings["decode"]})

    if corners is None:
        try:
            location, (rows, cols) = _timed(
                timings, "locate", lambda: locate_photo(photo.image, variant)
            )
        except BoardNotFound as refusal:
            grids = [_full_size(grid, photo.scale) for grid in refusal.unvouched]
            if free_squares:
                classifier = classifier or CellClassifier()
                found = vouched_by_free_squares(
                    grids,
                    read_at,
                    lambda reading: _free_margin(photo.image, photo.scale, variant, reading),
                )
                if found is not None:
                    return found
            raise BoardNotFound(str(refusal), grids) from None
    else:
        rows, cols = _marked_shape(corners, upright)
        marked = check_corners(corners, photo.width, photo.height, rows, cols)
        location = GridLocation(corners=(marked + 0.5) / photo.scale - 0.5, quality=1.0)
    # Loaded only now, so a photo without a board is refused even where no model is installed.
    classifier = classifier or CellClassifier()
    grid = _timed(
        timings,
        "rectify",
        lambda: rectify(photo.image, location.corners, classifier.cell_px, rows, cols),
    )
    seen_looks, seen_halves = cell_looks(grid, rows, cols)
    kinds = [code for line in variant.layout.rows for code in line]
    # The looks as each rotation shows them upright, each weighed against once: the final
    # reading's weighing reuses what the first model's computed when the rotation is the same.
    turned: dict[int, tuple[np.ndarray, BoardLooks]] = {}

    def upright_looks(rotation: int) -> tuple[np.ndarray, BoardLooks]:
        if rotation not in turned:
            looks = rotate_looks(seen_looks, rows, cols, rotation)
            turned[rotation] = looks, BoardLooks(looks, kinds, upright[1])
        return turned[rotation]

    def read_turned(predictions: CellPredictions, rotation: int):
        looks, board = upright_looks(rotation)
        cells = read_cells(
            rotate_predictions(predictions, rotation), variant, whole_board=True, looks=board
        )
        return rotation, cells, looks

    def orient(predictions: CellPredictions):
        rotation, _ = choose_rotation(predictions, upright=upright)
        first = read_turned(predictions, rotation)
        # Every cell that might hold a letter voted; premium labels (digits, words) can outvote
        # the few tiles of an early game. The cells this reading, weighed against the board's
        # own squares, takes for lettered tiles vote again, alone.
        lettered = np.array([[cell.label not in UNORIENTED for cell in line] for line in first[1]])
        if not lettered.any():
            return first
        again, _ = choose_rotation(
            predictions, upright=upright, voters=np.rot90(lettered, rotation).ravel()
        )
        return first if again == rotation else read_turned(predictions, again)

    def surely_empty(predictions: CellPredictions) -> np.ndarray:
        """The cells the first model's reading, weighed against the board, calls empty with
        at least `SURELY_EMPTY`, in the grid's order as seen."""
        rotation, _ = choose_rotation(predictions, upright=upright)
        scores = cell_scores(
            rotate_predictions(predictions, rotation),
            variant,
            whole_board=True,
            looks=upright_looks(rotation)[1],
        )
        # Empty is the first label: it is the reading's label where no other scores higher.
        empty = (scores.argmax(axis=1) == 0) & (scores[:, 0] >= SURELY_EMPTY)
        return np.rot90(empty.reshape(upright), rotation).ravel()

    # Plain squares their look alone shows vacant are not read (`vision.plain_vacant`).
    plain = plain_squares(variant.layout.rows, rows, cols)
    predictions = _timed(
        timings,
        "classify",
        lambda: classifier.predict(
            grid,
            rows,
            cols,
            settled=surely_empty,
            vacant=plainly_vacant(seen_looks, plain),
            checked=CHECKED,
        ),
    )
    rotation, cells, looks = _timed(timings, "orient", lambda: orient(predictions))
    halves = rotate_looks(seen_halves.reshape(rows * cols, -1), rows, cols, rotation)
    features = None
    if predictions.features is not None:
        upright_features = rotate_looks(predictions.features, rows, cols, rotation)
        features = upright_features.reshape(len(cells), len(cells[0]), -1).astype(np.float32)
    timings["total"] = sum(timings.values())
    # Corners in board order: the grid image turned `rotation` quarter-turns clockwise is upright,
    # so the upright top-left corner is the image's corner `rotation` places before it.
    full_size = _full_size(location.corners, photo.scale)
    reading = BoardReading(
        variant=variant.name,
        classes=[[cell.label for cell in line] for line in cells],
        confidence=[[cell.confidence for cell in line] for line in cells],
        top3=[[list(cell.top3) for cell in line] for line in cells],
        corners=np.roll(full_size, rotation, axis=0).tolist(),
        rotation=rotation,
        quality=location.quality,
        photo_size=(photo.width, photo.height),
        timings_ms=timings,
        looks=np.round(looks, 1).reshape(len(cells), len(cells[0]), -1).tolist(),
        halves=halves.reshape(len(cells), len(cells[0]), *seen_halves.shape[1:]),
        features=features,
        alternatives=[_full_size(grid, photo.scale).tolist() for grid in location.alternatives],
    )
    if not location.alternatives:
        return reading
    # The premium squares alone placed this grid, and others: one whose squares the reading
    # leaves free show the layout clearly better is the board (module docstring).
    clearer = vouched_by_free_squares(
        [_full_size(grid, photo.scale) for grid in location.alternatives],
        read_at,
        lambda other: _free_margin(photo.image, photo.scale, variant, other),
        least=_free_margin(photo.image, photo.scale, variant, reading) + MIN_MARGIN,
    )
    if clearer is None:
        return reading
    return dataclasses.replace(clearer, alternatives=[*clearer.alternatives, full_size.tolist()])


def vouched_by_free_squares(
    grids: Sequence[np.ndarray],
    read: Callable[[Corners], BoardReading],
    margin: Callable[[BoardReading], float],
    least: float = MIN_MARGIN,
) -> BoardReading | None:
    """The reading, by `read`, of the one of `grids` (a refused photo's unvouched grids, or the
    alternatives of a grid the premium squares placed) whose squares the reading leaves free
    show the premium layout most clearly (`margin`, at least `least`), with the others as its
    `alternatives` and that margin as its quality; None where none does. On boards of many
    tiles and pale premium squares (held-out wood prints) the tiles hide the layout from the
    locator, which sees every square. Leaving them out, on 11 such photos of bench_editions'
    seeds from 7500000 that the locator refused, the true grid stood 0.08-0.19 above its
    whole-cell moves on 9, the other unvouched grids at most 0.051 (0.039 but one, on a photo
    whose true grid stood at 0.185); no grid of bench_locate's photos without a board stood
    over 0.03."""
    best: tuple[float, int, BoardReading] | None = None
    for index, grid in enumerate(grids):
        try:
            reading = read([[float(x), float(y)] for x, y in grid])
        except (BoardNotFound, CornersError):
            continue
        shown = margin(reading)
        if shown >= least and (best is None or shown > best[0]):
            best = shown, index, reading
    if best is None:
        return None
    shown, index, reading = best
    others = [grid.tolist() for i, grid in enumerate(grids) if i != index]
    return dataclasses.replace(reading, quality=shown, alternatives=others)


def _free_margin(image: np.ndarray, scale: float, variant: Variant, reading: BoardReading) -> float:
    """`vacant_margin` of a reading's grid in the decoded working `image`, the squares it
    reads as tiles left out."""
    corners = (np.asarray(reading.corners, dtype=np.float64) + 0.5) / scale - 0.5
    layout = np.array([list(line) for line in variant.layout.rows])
    tiles = np.array([[label != EMPTY for label in line] for line in reading.classes])
    return vacant_margin(image, corners, layout, tiles)


def _full_size(points: np.ndarray, scale: float) -> np.ndarray:
    """Points in the decoded working photo's pixels, in the upright full-size photo's."""
    return (points + 0.5) * scale - 0.5


def vouched_grid(
    grids: Sequence[np.ndarray | Corners], known: Board, read: Callable[[Corners], R | None]
) -> R | None:
    """The reading, by `read` (None where it refuses the corners), of the one of a refused
    photo's unvouched `grids` (`BoardNotFound.unvouched`) that the game's `known` tiles vouch
    for (`scorer.tracking.known_tiles_vouch`) and that reads the known board most surely
    (`known_board_likelihood`); None when they vouch for none. Late in a game tiles cover most
    premium squares, and the colours left vouch for no grid alone."""
    best: tuple[float, R] | None = None
    for grid in grids:
        reading = read([[float(x), float(y)] for x, y in grid])
        if reading is None or not known_tiles_vouch(known, reading):
            continue
        likelihood = known_board_likelihood(known, reading)
        if best is None or likelihood > best[0]:
            best = likelihood, reading
    return None if best is None else best[1]


def read_game_photo(
    data: bytes, variant: Variant, known: Board, classifier: CellClassifier | None = None
) -> BoardReading:
    """`read_board` for a photo of a game whose board is `known`, its grid checked by the known
    tiles (`read_in_game`); raises the refusal where no grid is found and they vouch for none."""
    return read_in_game(
        lambda corners: read_board(data, variant, classifier, corners=corners),
        known,
        (BoardNotFound, CornersError),
    )


def read_in_game(
    read: Callable[[Corners | None], R], known: Board, refused: tuple[type[Exception], ...]
) -> R:
    """`read(None)`, a photo read on the grid searched for, with its grid checked by the game's
    `known` tiles: where no grid is found (`BoardNotFound`), the photo read by `read(corners)` on
    an unvouched grid they vouch for (`vouched_grid`), and where they do not vouch for the grid
    found, on an alternative they vouch for (`checked_grid`). An exception in `refused` from
    `read(corners)` refuses that grid. Raises the `BoardNotFound` where they vouch for none."""

    def attempt(corners: Corners) -> R | None:
        try:
            return read(corners)
        except refused:
            return None

    try:
        reading = read(None)
    except BoardNotFound as refusal:
        vouched = vouched_grid(refusal.unvouched, known, attempt)
        if vouched is None:
            raise
        return vouched
    return checked_grid(reading, known, attempt)


def checked_grid(reading: R, known: Board, read: Callable[[Corners], R | None]) -> R:
    """`reading`, or where the game's `known` tiles do not vouch for its grid, the reading by
    `read` of another grid they vouch for (`vouched_grid`): one of its alternatives
    (`BoardReading.alternatives`: the premium squares placed several grids; late in a game the
    squares left empty may fit a grid part of a cell off better than the true one), else one a
    cell away from it (`nearby_grids`) that reads the known board more surely
    (`known_board_likelihood`). Where the known tiles are too few to vouch for any grid
    (`Thresholds.vouchers`), `reading`."""
    if known.tile_count() < Thresholds().vouchers or known_tiles_vouch(known, reading):
        return reading
    vouched = vouched_grid(getattr(reading, "alternatives", ()), known, read)
    corners = getattr(reading, "corners", None)
    if vouched is None and corners is not None:
        rows, cols = len(reading.classes), len(reading.classes[0])
        nearby = vouched_grid(nearby_grids(corners, rows, cols), known, read)
        # A grid with a side a cell off still shows nine in ten known tiles where the grid
        # found misread a few letters (a held-out wood print's I's read as J's): only one that
        # reads the known board more surely than the grid found replaces it.
        if nearby is not None and known_board_likelihood(known, nearby) > known_board_likelihood(
            known, reading
        ):
            vouched = nearby
    return vouched or reading


def nearby_grids(corners: Corners, rows: int, cols: int) -> list[np.ndarray]:
    """The grids a cell away from the `rows` x `cols` grid at `corners` (the board's top-left,
    top-right, bottom-right and bottom-left, as `BoardReading.corners`), in the same order: the
    whole grid moved by a row or a column, and each side alone moved a cell out or in. A grid
    found a cell off is most often off so: lines fitted a strip of cells short or long at one
    side (a German self-played game's lineless black board, seed 7000 turn 25: one column
    short), or the premium squares fitted with one side a cell past the board's (the held-out
    edition photo 7400028)."""
    canonical = np.float32([[0, 0], [cols, 0], [cols, rows], [0, rows]])
    to_photo = cv2.getPerspectiveTransform(canonical, np.float32(corners))
    # (corners moved, the move in cells along x and y): a side is two consecutive corners.
    moves = [((0, 1, 2, 3), (dx, dy)) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))]
    for step in (1, -1):
        moves += [
            ((0, 1), (0, step)),
            ((1, 2), (step, 0)),
            ((2, 3), (0, step)),
            ((3, 0), (step, 0)),
        ]
    grids = []
    for moved, shift in moves:
        grid = canonical.copy()
        grid[list(moved)] += np.float32(shift)
        grids.append(cv2.perspectiveTransform(grid.reshape(1, 4, 2), to_photo).reshape(4, 2))
    return grids


def locate_photo(image: np.ndarray, variant: Variant) -> tuple[GridLocation, tuple[int, int]]:
    """The grid in a decoded photo's `image` and its (rows, cols) as the photo shows it (raises
    `BoardNotFound`): a board that is not square is looked
    for both ways across, and the better fit wins (a wrong shape fits part of the grid at best:
    a 12×16 board turned a quarter fit 0.82 as 16×12 and 0.47 as 12×16)."""
    height, width = variant.layout.height, variant.layout.width
    shapes = [(height, width)] if height == width else [(height, width), (width, height)]
    found: list[tuple[GridLocation, tuple[int, int]]] = []
    refusal: BoardNotFound | None = None
    for shape in shapes:
        # The turns the board may lie at when its grid shows this shape.
        turns = (0, 1, 2, 3) if len(shapes) == 1 else (0, 2) if shape == shapes[0] else (1, 3)
        seen = _seen_layout(variant.layout.rows, turns)
        try:
            found.append((locate_grid(image, *shape, seen), shape))
        except BoardNotFound as exc:
            refusal = refusal or exc
    if not found:
        assert refusal is not None
        raise refusal
    return max(found, key=lambda item: item[0].quality)


def _seen_layout(layout: tuple[str, ...], quarter_turns: tuple[int, ...]) -> list[str] | None:
    """The premium layout as a photo of the board lying at any of `quarter_turns` shows it, or
    None when those turns show it differently (the locator then does without the premium squares,
    since which turn it is is known only once the tiles are read), or where it has no premium
    squares to tell a grid by. The centre square is left out of the comparison: a kind of one
    square tells the locator nothing."""
    views = [np.rot90(np.array([list(line) for line in layout]), k) for k in quarter_turns]
    centre = np.logical_or.reduce([np.isin(view, list("*+")) for view in views])
    plain = [np.where(centre, "", view) for view in views]
    if any(not np.array_equal(plain[0], other) for other in plain[1:]):
        return None
    if len(set(plain[0][~centre].ravel())) < 2:
        return None
    return ["".join(line) for line in views[0]]


def _marked_shape(corners: Corners, upright: tuple[int, int]) -> tuple[int, int]:
    """The (rows, cols) of a grid a person marked: a board that is not square lies the way its
    marked sides are longer (top and bottom against left and right)."""
    rows, cols = upright
    points = np.asarray(corners, dtype=np.float64)
    if rows == cols or points.shape != (4, 2):
        return upright
    sides = np.linalg.norm(np.roll(points, -1, axis=0) - points, axis=1)
    across, down = sides[0] + sides[2], sides[1] + sides[3]
    return upright if (across > down) == (cols > rows) else (cols, rows)
