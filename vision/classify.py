"""Cell classifier: cuts a rectified grid image into cells and reads them all in one ONNX call.

The model (models/cells.onnx, described in models/MODEL.md; read through its int8 copy, as the
second model is, see below) knows one set of *visual* classes for
all variants: empty, blank tile, star tile and every letter glyph, with Latin/Cyrillic look-alikes
(A/А, B/В, ...) merged into one class because they are drawn identically. Its output is the joint
probability of (text rotation, visual class), so one pass gives both the letters and which way up
the tiles are. Only the classes of the chosen variant then compete (`read_cells`).

Letters the model has no class for (a player's own edition with a Hungarian Ő) are read through
the class they look most like, as the variant's `[vision] read_as` table says (Ő as O): the two
letters then share that class's probability equally, so such a cell is never sure of either and
the tracker settles it by the words and tile counts or asks.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from scorer.variant import Variant
from vision.calibrate import BoardLooks, relative_to_board

EMPTY, BLANK, STAR = "empty", "blank", "star"
LATIN = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
CYRILLIC = "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ"
UKRAINIAN = "ҐЄІЇ'"
POLISH = "ĄĆĘŁŃÓŚŹŻ"
GERMAN = "ÄÖÜ"
# Spanish: Ñ and the tiles of two letters, each one class (one square, one tile).
SPANISH = ("Ñ", "CH", "LL", "RR")
# Cyrillic (and Ukrainian) capitals whose tile glyph is the Latin one.
LOOK_ALIKES: dict[str, str] = {
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H",
    "О": "O", "Р": "P", "С": "C", "Т": "T", "Х": "X", "І": "I",
}  # fmt: skip
# Cell labels a reading can hold: the three non-letter classes and every letter of every alphabet.
LABELS: tuple[str, ...] = (
    EMPTY, BLANK, STAR, *LATIN, *CYRILLIC, *UKRAINIAN, *POLISH, *GERMAN, *SPANISH,
)  # fmt: skip
# The model's output classes; a merged class is named by its Latin member.
VISUAL_CLASSES: tuple[str, ...] = tuple(label for label in LABELS if label not in LOOK_ALIKES)
# Classes whose crops carry no readable text direction.
UNORIENTED: frozenset[str] = frozenset({EMPTY, BLANK, STAR})

# Training keeps every tile and empty premium square but only this share of the plain empty
# squares, so the model's odds that a plain square is empty are that much too low. Reading a whole
# board divides them back out (a label-shift correction); without it, rendered games showed plain
# squares in tinted light doubting between empty and a blank tile (8 % of them, 1 in 500 read blank).
PLAIN_EMPTY_KEPT = 0.3

# The int8 copies of the trained float models (`training/quantize.py`, models/INT8.md): the same
# readings of the real photos and the held-out editions in about two thirds of the CPU time.
MODEL_FILE = "cells.int8.onnx"
# The models' second output (`training.features`).
FEATURES = "features"
# A second model, trained by the same script for longer (models/cells_second.md), reads again the
# cells the first one is unsure of and the two are averaged: in rendered games the pair got more
# turns right than either model alone and kept a blurred Q from passing as a sure O, at a fraction
# of the cost of reading every cell twice.
SECOND_MODEL_FILE = "cells_second.int8.onnx"
SECOND_BELOW = 0.95
CELL_PX = 44
MARGIN_PX = 6
CROP_PX = CELL_PX + 2 * MARGIN_PX
# A cell whose top class is below this is read again from shifted and rescaled crops and the
# readings averaged: a letter that flips when the grid moves by a few percent of a cell is a guess.
REFINE_BELOW = 0.9
# At most this many cells (the least certain) are read again, which bounds the extra time.
REFINE_MAX_CELLS = 12
# (dx, dy, scale) of the extra crops, shifts in pixels of a CELL_PX cell.
REFINE_VIEWS: tuple[tuple[int, int, float], ...] = (
    (-2, 0, 1.0), (2, 0, 1.0), (0, -2, 1.0), (0, 2, 1.0), (0, 0, 0.92), (0, 0, 1.08),
)  # fmt: skip


def visual_class(label: str) -> int:
    """Index in VISUAL_CLASSES of the model class that shows `label` (a letter or EMPTY/BLANK/STAR).

    >>> VISUAL_CLASSES[visual_class("В")]
    'B'
    """
    return VISUAL_CLASSES.index(LOOK_ALIKES.get(label, label))


class UnreadableVariant(ValueError):
    """A variant with tile letters the cell model was not trained to read."""


def check_readable(variant: Variant) -> None:
    """Raise `UnreadableVariant` naming the letters of `variant` that no class of the model shows.

    >>> from scorer.variant import load_variant
    >>> check_readable(load_variant("erudit"))
    """
    unknown = [
        letter
        for letter in variant.alphabet
        if letter not in LABELS and variant.read_as.get(letter) not in LABELS
    ]
    if unknown:
        raise UnreadableVariant(
            f"the cell model cannot read the letters {' '.join(unknown)} of {variant.title}; "
            f"it knows {''.join(label for label in LABELS if len(label) == 1)}"
        )


def variant_labels(variant: Variant) -> tuple[str, ...]:
    """The labels that compete for a cell in this variant: empty, its blank tile (the star tile
    when the variant's blank shows a star, else the plain blank) and its alphabet.

    A star variant has no plain blank tiles, so a plain coloured square there is a premium square.
    """
    blank = STAR if variant.blank_symbol == "*" else BLANK
    return (EMPTY, blank, *variant.alphabet)


def cut_cells(
    grid_image: np.ndarray,
    rows: int = 15,
    cols: int = 15,
    cell_px: int = CELL_PX,
    margin_px: int = MARGIN_PX,
) -> np.ndarray:
    """Cut a rectified grid image (rows·cell_px × cols·cell_px) into per-cell crops.

    Each crop is the cell plus `margin_px` of its neighbours on every side (the image edge is
    replicated), so a tile lying a little off its square is still seen whole. Returns uint8
    [rows·cols, crop, crop, channels] in row-major cell order.
    """
    height, width = grid_image.shape[:2]
    if (height, width) != (rows * cell_px, cols * cell_px):
        raise ValueError(
            f"grid image is {width}×{height}, expected {cols * cell_px}×{rows * cell_px} "
            f"({cols}×{rows} cells of {cell_px} px)"
        )
    m = margin_px
    padded = np.pad(grid_image, ((m, m), (m, m), (0, 0)), mode="edge")
    crop = cell_px + 2 * m
    return np.stack(
        [
            padded[r * cell_px : r * cell_px + crop, c * cell_px : c * cell_px + crop]
            for r in range(rows)
            for c in range(cols)
        ]
    )


def _view_crops(grid_image: np.ndarray, cells: np.ndarray, cols: int, cell_px: int) -> np.ndarray:
    """The `REFINE_VIEWS` crops of each of `cells` (flat indices), resized to the model's size."""
    crop = cell_px + 2 * MARGIN_PX
    unit = cell_px / CELL_PX
    pad = int(crop * max(scale for _, _, scale in REFINE_VIEWS) / 2 + 2 * unit) + 1
    padded = np.pad(grid_image, ((pad, pad), (pad, pad), (0, 0)), mode="edge")
    views = []
    for index in cells:
        row, col = divmod(int(index), cols)
        cx, cy = pad + (col + 0.5) * cell_px, pad + (row + 0.5) * cell_px
        for dx, dy, scale in REFINE_VIEWS:
            half = crop * scale / 2
            x0, y0 = int(round(cx + dx * unit - half)), int(round(cy + dy * unit - half))
            size = int(round(2 * half))
            view = padded[y0 : y0 + size, x0 : x0 + size]
            views.append(cv2.resize(view, (crop, crop), interpolation=cv2.INTER_AREA))
    return np.stack(views)


@dataclass(frozen=True)
class CellPredictions:
    """The model's output for a grid of cells: `joint[i, k, v]` is the probability that cell i
    shows visual class v with its text turned k quarter-turns counter-clockwise."""

    joint: np.ndarray
    rows: int
    cols: int
    # [N, F]: the first model's features of each cell's crop (`training.features`), if it has
    # them; `vision.exemplars` compares a doubtful cell's with the known tiles'.
    features: np.ndarray | None = field(default=None, compare=False)

    @property
    def probs(self) -> np.ndarray:
        """[N, V] class probabilities, whatever the text direction."""
        return self.joint.sum(axis=1)

    @property
    def orientation(self) -> np.ndarray:
        """[N, 4] probabilities of the text direction (meaningful on lettered tiles only)."""
        return self.joint.sum(axis=2)


@dataclass(frozen=True)
class CellReading:
    """One cell's verdict among a variant's labels."""

    label: str
    confidence: float
    top3: tuple[tuple[str, float], ...]


def cell_scores(
    preds: CellPredictions,
    variant: Variant,
    rotation: int = 0,
    whole_board: bool = False,
    looks: BoardLooks | None = None,
) -> np.ndarray:
    """[N, labels] probabilities of the variant's labels (`variant_labels`, in that order) per
    cell, given that the text is turned `rotation` quarter-turns (see vision.orient); rows sum
    to 1. `whole_board` and `looks` as for `read_cells`."""
    labels = variant_labels(variant)
    columns = [visual_class(variant.read_as.get(label, label)) for label in labels]
    unoriented = [i for i, label in enumerate(labels) if label in UNORIENTED]
    # Text-less classes cannot tell direction, so they keep their mass over all four directions.
    scores = preds.joint[:, rotation % 4, columns] * 4
    scores[:, unoriented] = preds.joint[:, :, columns][:, :, unoriented].sum(axis=1)
    # Letters read through one class (`read_as`: A and Ä) share its probability equally.
    sharing = np.array([columns.count(column) for column in columns], dtype=np.float64)
    scores = scores / sharing
    if whole_board:
        plain = np.array([code == "." for line in variant.layout.rows for code in line])
        if plain.shape != (len(scores),):
            raise ValueError(f"{len(scores)} cells are not the {variant.name} board")
        scores[plain, labels.index(EMPTY)] /= PLAIN_EMPTY_KEPT
    scores = scores / np.maximum(scores.sum(axis=1, keepdims=True), 1e-12)
    if looks is not None:
        if not whole_board:
            raise ValueError("looks need the whole board's layout")
        counts = np.array(
            [0, variant.blank_count, *(variant.tiles[letter][0] for letter in variant.alphabet)]
        )
        scores = relative_to_board(scores, looks, 0, 1, counts)
    return scores


def read_cells(
    preds: CellPredictions,
    variant: Variant,
    rotation: int = 0,
    whole_board: bool = False,
    looks: BoardLooks | None = None,
) -> list[list[CellReading]]:
    """Per cell, the most likely of the variant's labels given that the text is turned
    `rotation` quarter-turns (see vision.orient); rows × cols, in the predictions' grid order.

    Classes outside the variant never win: a Russian board never reads a Latin letter.
    `whole_board`: the predictions are the variant's board in upright order, so its plain squares
    get back the odds of being empty that training took from them (`PLAIN_EMPTY_KEPT`).
    `looks` (whole board only; the photo's `vision.calibrate.BoardLooks`, upright like the
    predictions, on the variant's layout): tile or empty is weighed against the photo's own empty
    squares and tiles (`vision.calibrate.relative_to_board`).
    """
    labels = variant_labels(variant)
    scores = cell_scores(preds, variant, rotation, whole_board, looks)
    # Stable: of letters tied through one class (A, Ä) the one with a class of its own, listed
    # first in the tile set, is the reading's top label (the tie itself keeps either unsure).
    order = np.argsort(-scores, axis=1, kind="stable")[:, :3]
    cells = [
        CellReading(
            labels[order[i, 0]],
            float(scores[i, order[i, 0]]),
            tuple((labels[j], float(scores[i, j])) for j in order[i]),
        )
        for i in range(len(scores))
    ]
    return [cells[r * preds.cols : (r + 1) * preds.cols] for r in range(preds.rows)]


def model_bytes(path: str | None, name: str) -> bytes:
    """The bytes of the ONNX file `path`, or of the shipped model `name` when `path` is None
    (raises `FileNotFoundError` where it is not installed)."""
    if path is not None:
        return Path(path).read_bytes()
    try:
        return resources.files("vision.models").joinpath(name).read_bytes()
    except ModuleNotFoundError:
        # Running from a source checkout: `vision.models` is the top-level models/ folder.
        return (Path(__file__).resolve().parents[1] / "models" / name).read_bytes()


@cache
def _session(path: str | None, name: str, threads: int):  # noqa: ANN202 - onnxruntime is lazy
    """A session on the ONNX file `path`, or on the packaged model `name` when `path` is None."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Idle threads must not spin: two sessions take turns on the same cores, and a spinning pool
    # left by one slowed the other's small batches twofold.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(
        model_bytes(path, name), options, providers=["CPUExecutionProvider"]
    )
    classes = session.get_modelmeta().custom_metadata_map.get("classes", "[]")
    if json.loads(classes) != list(VISUAL_CLASSES):
        raise RuntimeError(f"{path or name} was trained for other classes than vision.classify")
    return session


def joint_probabilities(session, crops: np.ndarray) -> np.ndarray:  # noqa: ANN001 - onnxruntime
    """[N, 4, V] joint probabilities of (text direction, visual class) for uint8 crops, V the
    classes of the session's model."""
    return _run(session, crops)[0]


def _run(session, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:  # noqa: ANN001
    """The joint probabilities of `joint_probabilities` and, from a model that has them
    (`training.features`), the [N, F] features its head read."""
    x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32)
    names = [output.name for output in session.get_outputs()]
    outputs = session.run(names, {session.get_inputs()[0].name: x})
    flat = outputs[0].reshape(len(crops), -1).astype(np.float64)
    e = np.exp(flat - flat.max(axis=1, keepdims=True))
    joint = (e / e.sum(axis=1, keepdims=True)).reshape(len(crops), 4, -1)
    return joint, (outputs[names.index(FEATURES)] if FEATURES in names else None)


class CellClassifier:
    """The shipped cell models, loaded once; `predict` reads a whole grid in one call.

    >>> clf = CellClassifier()
    >>> preds = clf.predict(np.zeros((15 * clf.cell_px, 15 * clf.cell_px, 3), np.uint8))
    """

    cell_px: int = CELL_PX

    def __init__(
        self,
        model: str | Path | None = None,
        threads: int = 2,
        second: str | Path | None = None,
    ) -> None:
        """Load the packaged pair of models, or the ONNX file `model` with the ONNX file `second`
        (if given) as its second opinion; sessions are shared and cached."""
        if model is None:
            self._session = _session(None, MODEL_FILE, threads)
            self._second = _session(None, SECOND_MODEL_FILE, threads)
        else:
            self._session = _session(str(model), MODEL_FILE, threads)
            self._second = (
                None if second is None else _session(str(second), SECOND_MODEL_FILE, threads)
            )

    def cut_cells(self, grid_image: np.ndarray, rows: int = 15, cols: int = 15) -> np.ndarray:
        """Crops of every cell, as the model wants them (see `cut_cells`)."""
        return cut_cells(grid_image, rows, cols, self.cell_px, MARGIN_PX)

    def predict(
        self,
        grid_image: np.ndarray,
        rows: int = 15,
        cols: int = 15,
        refine_below: float = REFINE_BELOW,
        settled: Callable[[CellPredictions], np.ndarray] | None = None,
        vacant: np.ndarray | None = None,
        checked: int = 0,
    ) -> CellPredictions:
        """Classify every cell of a rectified BGR uint8 grid image (rows·cell_px × cols·cell_px).

        Cells whose top class scores below `refine_below` are also read from a few shifted and
        rescaled crops (`REFINE_VIEWS`), and their probabilities averaged over all views.
        `settled` (the first model's predictions -> a mask over the cells) names the cells the
        caller's own reading already decides, such as squares surely empty relative to the rest
        of the board: they are read by the first model only, neither by the second nor again.
        `vacant` (cell indices) names squares the caller's look at the photo calls empty
        (`vision.plain_vacant`): they are not read but given as empty, without features (NaN),
        except the first `checked` of them, read as the rest; where the first model reads one of
        those as no empty square, every cell is read.
        """
        batch = self.cut_cells(grid_image, rows, cols)
        skipped = np.zeros(len(batch), bool)
        if vacant is not None:
            skipped[vacant[checked:]] = True
        joint, features = self._first_read(batch, ~skipped)
        # A checked square the first model takes for no empty square: the look was wrong there
        # (a kind whose core is its tiles, late in a game), so the others are read too.
        checks = joint[vacant[:checked]] if vacant is not None else joint[:0]
        if (
            skipped.any()
            and (checks.sum(axis=1).argmax(axis=1) != VISUAL_CLASSES.index(EMPTY)).any()
        ):
            joint[skipped], rest = _run(self._session, batch[skipped])
            if features is not None and rest is not None:
                features[skipped] = rest
        first = CellPredictions(joint, rows, cols, features)
        done = np.zeros(len(batch), bool) if settled is None else settled(first)
        preds = self._second_opinion(first, batch, ~done)
        top = preds.probs.max(axis=1)
        unsure = np.argsort(top)[:REFINE_MAX_CELLS]
        unsure = unsure[(top[unsure] < refine_below) & ~done[unsure]]
        if len(unsure) == 0:
            return preds
        views = _view_crops(grid_image, unsure, cols, self.cell_px)
        extra = self.predict_crops(views, 1, len(views)).joint
        joint = preds.joint.copy()
        per_cell = extra.reshape(len(unsure), len(REFINE_VIEWS), *extra.shape[1:])
        joint[unsure] = (joint[unsure] + per_cell.sum(axis=1)) / (1 + len(REFINE_VIEWS))
        return CellPredictions(joint, rows, cols, preds.features)

    def _first_read(
        self, crops: np.ndarray, read: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The first model's joint probabilities and features of the `read` crops (a mask); the
        others are given as empty squares, their text in every direction alike, without
        features (NaN)."""
        joint, features = _run(self._session, crops[read])
        if read.all():
            return joint, features
        full = np.zeros((len(crops), *joint.shape[1:]))
        full[:, :, VISUAL_CLASSES.index(EMPTY)] = 1 / full.shape[1]
        full[read] = joint
        if features is not None:
            known, features = features, np.full((len(crops), features.shape[1]), np.nan, np.float32)
            features[read] = known
        return full, features

    def predict_crops(self, crops: np.ndarray, rows: int, cols: int) -> CellPredictions:
        """Classify crops already cut by `cut_cells` (uint8 [N, crop, crop, 3], BGR); crops whose
        top class scores below `SECOND_BELOW` are also read by the second model, if any."""
        first = CellPredictions(joint_probabilities(self._session, crops), rows, cols)
        return self._second_opinion(first, crops, np.ones(len(crops), bool))

    def _second_opinion(
        self, first: CellPredictions, crops: np.ndarray, candidates: np.ndarray
    ) -> CellPredictions:
        """The first model's predictions with the second model's averaged in on the crops of
        the `candidates` mask whose top class scores below `SECOND_BELOW`."""
        joint = first.joint
        if self._second is not None:
            doubt = np.flatnonzero(candidates & (joint.sum(axis=1).max(axis=1) < SECOND_BELOW))
            if len(doubt):
                joint[doubt] = (joint[doubt] + joint_probabilities(self._second, crops[doubt])) / 2
        return CellPredictions(joint, first.rows, first.cols, first.features)
