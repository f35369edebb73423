"""Training and held-out cell crops cut from rendered board photos, the way the reader cuts them.

Each synthetic photo is warped back to the canonical grid image with slightly wrong corners (as a
real locator would find them) and cut with `vision.classify.cut_cells`, so crops carry real
neighbouring context and misalignment. `python -m training.dataset --boards N` previews a build.
"""

from __future__ import annotations

import argparse
import json
import time
import unicodedata
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scorer.notation import split_tiles, unbracket
from scorer.variant import load_variant
from training.render import GRID, Split, random_rows, random_style, render_board_photo
from vision.classify import (
    BLANK,
    CELL_PX,
    CROP_PX,
    EMPTY,
    MARGIN_PX,
    PLAIN_EMPTY_KEPT,
    STAR,
    CellClassifier,
    cut_cells,
    visual_class,
)
from vision.decode import PhotoError
from vision.locate import BoardNotFound
from vision.pipeline import read_board
from vision.rectify import rectify

SHARED = Path(__file__).resolve().parents[2] / "shared"
REAL_CROPS = SHARED / "realphotos" / "erudit" / "tile_crops"
REAL_BOARDS = SHARED / "realphotos" / "english" / "boards"
# Alphabet-layout photos whose position is truth.txt's (the CV_test* photos show another one).
ALPHABET_PHOTOS = ("f1", "f3", "f4", "f5", "f6", "f7", "f8", "ML_IMG_20200616_105900")
# The CV_test* photos in the same folder show a game position instead (МИГАЛКА, РАБОТА, two
# stars); truth.txt does not describe them, so their position is written here, transcribed by eye.
GAME_PHOTOS = ("CV_test2", "CV_test3", "CV_test4")
GAME_POSITION = (
    *["." * GRID] * 6,
    "...С....Ж..П...",
    "...*.МИГАЛКА...",
    "...О.О..Б..Р...",
    "...НОС.РАБОТА..",
    ".....Т.*...А...",
    ".......В.......",
    *["." * GRID] * 3,
)

# Editions a synthetic board imitates: (variant for layout and tile values, blank look).
EDITIONS: tuple[tuple[str, str], ...] = (
    ("en", "?"),
    ("ru", "?"),
    ("uk", "?"),
    ("erudit", "*"),
    ("pl", "?"),
    ("de", "?"),
    ("es", "?"),
    ("fr", "?"),
)


@dataclass(frozen=True)
class Crops:
    """Cell crops (uint8 [N, crop, crop, 3] BGR, upright) and their visual class indices."""

    images: np.ndarray
    labels: np.ndarray

    @staticmethod
    def concat(parts: list[Crops]) -> Crops:
        return Crops(
            np.concatenate([p.images for p in parts]), np.concatenate([p.labels for p in parts])
        )


def _label(ch: str) -> int:
    if ch == ".":
        return visual_class(EMPTY)
    if ch == "*":
        return visual_class(STAR)
    if ch == "?" or ch.islower():
        return visual_class(BLANK)
    return visual_class(ch)


def rectify_to_grid(photo: np.ndarray, corners: np.ndarray, cell_px: int = CELL_PX) -> np.ndarray:
    """The reader's own warp (vision.rectify) of the grid given by corners (board order)."""
    return rectify(photo, corners, cell_px, GRID, GRID)


def base_letter(letter: str) -> str:
    """The letter a tile's letter is built on, the one it is most easily taken for: Ä → A,
    Ñ → N, CH → C; a plain letter is its own."""
    return unicodedata.normalize("NFD", letter)[0]


def _focused(alphabet: tuple[str, ...], focus: tuple[str, ...]) -> tuple[str, ...]:
    """`alphabet` with its letters among `focus`, and their base letters, repeated so that each
    group is drawn about as often as all the other letters together."""
    new = [letter for letter in alphabet if letter in focus]
    if not new:
        return alphabet
    wanted = set(new) | {base_letter(letter) for letter in new}
    others = tuple(letter for letter in alphabet if letter not in wanted)
    repeats = max(1, round(len(others) / len(new)))
    return others + tuple(letter for letter in alphabet if letter in wanted) * repeats


def board_crops(
    seed: int, split: Split, keep_empty: float = PLAIN_EMPTY_KEPT, focus: tuple[str, ...] = ()
) -> Crops:
    """All tile crops, every empty premium square and a share of the plain empty squares from one
    rendered photo (premium squares, labelled or not, are the empties most like tiles).

    With `focus` letters, the board is an edition whose alphabet holds some of them, and about a
    third of its tiles are those letters, a third their base letters: a fine-tune that adds
    classes (Ä, CH) sees them and the letters they must be told from (A, C) often enough to
    learn the difference."""
    rng = np.random.default_rng(seed)
    editions = [
        edition
        for edition in EDITIONS
        if not focus or set(load_variant(edition[0]).alphabet) & set(focus)
    ]
    variant_name, blank = editions[int(rng.integers(len(editions)))]
    variant = load_variant(variant_name)
    alphabet = _focused(variant.alphabet, focus)
    rows = random_rows(rng, alphabet, float(rng.uniform(0.3, 0.9)), blank)
    cell = float(rng.uniform(18, 72))
    fill = float(rng.uniform(0.45, 0.9))
    side = int(cell * GRID / fill)
    size = (int(side * rng.uniform(1.0, 1.4)), side)
    photo, corners, _ = render_board_photo(
        rows, variant_name, random_style(rng, split), int(rng.integers(1 << 31)), size
    )
    # The locator lands within a few percent of a cell: jitter corners like that.
    grid_cell = np.linalg.norm(corners[1] - corners[0]) / GRID
    corners = corners + rng.normal(0, 0.05, (4, 2)) * grid_cell + rng.normal(0, 0.04, 2) * grid_cell
    if grid_cell > 1.6 * CELL_PX and rng.random() < 0.5:
        factor = 1.3 * CELL_PX / grid_cell
        photo = cv2.resize(photo, None, fx=factor, fy=factor, interpolation=cv2.INTER_AREA)
        corners = corners * factor
    # A locator's grid may be a little too large or small: vary the cell size, then resize.
    cell_px = int(round(CELL_PX * rng.uniform(0.87, 1.15)))
    margin = int(round(MARGIN_PX * cell_px / CELL_PX))
    crops = cut_cells(rectify_to_grid(photo, corners, cell_px), GRID, GRID, cell_px, margin)
    if cell_px != CELL_PX:
        crops = np.stack(
            [cv2.resize(c, (CROP_PX, CROP_PX), interpolation=cv2.INTER_AREA) for c in crops]
        )
    labels = np.array([_label(unbracket(t)) for line in rows for t in split_tiles(line)])
    premium = np.array([code != "." for line in variant.layout.rows for code in line])
    keep = (labels != visual_class(EMPTY)) | premium | (rng.random(len(labels)) < keep_empty)
    return Crops(crops[keep], labels[keep])


def build(seeds: range, split: Split, workers: int = 2, focus: tuple[str, ...] = ()) -> Crops:
    """Crops of many boards (`board_crops`, with its `focus`), built in parallel; the same seeds
    always give the same crops."""
    n = len(seeds)
    with ProcessPoolExecutor(workers) as pool:
        parts = list(
            pool.map(
                board_crops, seeds, [split] * n, [PLAIN_EMPTY_KEPT] * n, [focus] * n, chunksize=4
            )
        )
    return Crops.concat(parts)


def real_tile_crops(root: Path = REAL_CROPS) -> Crops | None:
    """The 50×50 real Эрудит cell crops, resized to the model's crop size."""
    if not root.is_dir():
        return None
    images, labels = [], []
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        name = (
            EMPTY
            if folder.name.startswith("empty")
            else STAR
            if folder.name == "star"
            else folder.name
        )
        for f in sorted(folder.glob("*.jpg")):
            # The crops hold a cell and a sliver of its neighbours, like a model crop does.
            images.append(
                cv2.resize(cv2.imread(str(f)), (CROP_PX, CROP_PX), interpolation=cv2.INTER_AREA)
            )
            labels.append(visual_class(name))
    return Crops(np.stack(images), np.array(labels))


def real_english_boards(root: Path = REAL_BOARDS) -> list[tuple[str, np.ndarray, list[str], str]]:
    """The real English boards as (name, grid image rectified with the true corners, rows,
    variant); empty when ../shared is absent."""
    truth_file = root / "truth.json"
    if not truth_file.is_file():
        return []
    boards = []
    for name, truth in json.loads(truth_file.read_text(encoding="utf-8")).items():
        photo = cv2.imread(str(root / name))
        grid = rectify_to_grid(photo, np.float32(truth["corners"]))
        boards.append((name, grid, truth["rows"], truth["variant"]))
    return boards


@dataclass(frozen=True)
class PhotoResult:
    """One real photo read end to end: cells right of 225, and (truth, read) board-text pairs of
    the wrong cells; `error` says why no reading came back."""

    group: str
    name: str
    right: int
    wrong: tuple[tuple[str, str], ...]
    error: str = ""


def real_board_photos(shared: Path = SHARED) -> list[tuple[str, Path, str, list[str]]]:
    """The real photos with a known position, as (group, path, variant, truth rows in board text,
    a blank or star tile written '?'): Эрудит alphabet layouts, a game position and empty boards,
    English boards."""
    photos: list[tuple[str, Path, str, list[str]]] = []
    erudit = shared / "realphotos" / "erudit"
    alphabet = erudit / "alphabet_layout" / "truth.txt"
    if alphabet.is_file():
        rows = alphabet.read_text(encoding="utf-8").split()
        for name in ALPHABET_PHOTOS:
            photos.append(("erudit_alphabet", alphabet.parent / f"{name}.jpg", "erudit", rows))
        for name in GAME_PHOTOS:
            path = alphabet.parent / f"{name}.jpg"
            photos.append(("erudit_game", path, "erudit", list(GAME_POSITION)))
    empty = erudit / "empty_boards"
    for path in sorted(empty.glob("*.jpg")) if empty.is_dir() else []:
        if not path.name.startswith("bad_"):
            photos.append(("erudit_empty", path, "erudit", ["." * GRID] * GRID))
    english = shared / "realphotos" / "english" / "boards" / "truth.json"
    if english.is_file():
        for name, truth in json.loads(english.read_text(encoding="utf-8")).items():
            photos.append(("english", english.parent / name, truth["variant"], truth["rows"]))
    return [
        (
            group,
            path,
            variant,
            ["".join("?" if ch == "*" or ch.islower() else ch for ch in line) for line in rows],
        )
        for group, path, variant, rows in photos
    ]


def read_real_photos(classifier: CellClassifier, shared: Path = SHARED) -> list[PhotoResult]:
    """Read every real photo of `real_board_photos` end to end (`vision.pipeline.read_board`:
    decode, locate, rectify, classify, orient) and compare the board text with the truth."""
    results = []
    for group, path, variant, truth in real_board_photos(shared):
        try:
            rows = read_board(path.read_bytes(), load_variant(variant), classifier).rows
        except (PhotoError, BoardNotFound) as error:
            results.append(PhotoResult(group, path.name, 0, (), f"{type(error).__name__}: {error}"))
            continue
        pairs = [
            (t, r) for tl, rl in zip(truth, rows, strict=True) for t, r in zip(tl, rl, strict=True)
        ]
        wrong = tuple((t, r) for t, r in pairs if t != r)
        results.append(PhotoResult(group, path.name, len(pairs) - len(wrong), wrong))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--boards", type=int, default=8)
    parser.add_argument("--split", choices=["train", "heldout"], default="train")
    parser.add_argument("--preview", help="write a PNG mosaic of the first crops here")
    args = parser.parse_args()
    start = time.time()
    crops = build(range(args.boards), args.split)
    print(f"{len(crops.labels)} crops from {args.boards} boards in {time.time() - start:.1f} s")
    if args.preview:
        tiles = crops.images[:400]
        tiles = np.concatenate([tiles, np.zeros((400 - len(tiles), *tiles.shape[1:]), np.uint8)])
        mosaic = tiles.reshape(20, 20, *tiles.shape[1:]).transpose(0, 2, 1, 3, 4)
        cv2.imwrite(args.preview, mosaic.reshape(20 * tiles.shape[1], 20 * tiles.shape[2], 3))


if __name__ == "__main__":
    main()
