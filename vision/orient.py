"""Board orientation: which way up the tiles are, voted from the cell model's text directions.

Tiles are upright from one side of the table; a photo may be taken from any side. Each lettered
tile votes for the number of quarter-turns its text shows, so the whole board is turned once.
Convention: k means the rectified grid image shows the text turned k quarter-turns
counter-clockwise (`np.rot90(upright, k)`); `np.rot90(grid, -k)` is upright. A board that is not
square is upright only after turns that give it its own height and width: a 12×16 board seen
as 16×12 lies a quarter turn either way, never upright or upside down.
"""

from __future__ import annotations

import numpy as np

from vision.classify import UNORIENTED, VISUAL_CLASSES, CellPredictions

_TEXTLESS = [i for i, name in enumerate(VISUAL_CLASSES) if name in UNORIENTED]


def choose_rotation(
    preds: CellPredictions,
    min_tile_prob: float = 0.5,
    upright: tuple[int, int] | None = None,
    voters: np.ndarray | None = None,
) -> tuple[int, float]:
    """The board's text rotation k (0–3) and a confidence in [0, 1].

    Cells that are probably lettered tiles vote with their direction probabilities (log-summed,
    so a few confident tiles outweigh many unsure ones). `upright`, the board's (rows, cols),
    leaves only the turns that bring the grid to that shape. `voters` (a mask over the cells, in
    the predictions' order) lets only those cells vote: the ones a reading took for lettered tiles.
    The confidence is the winning share of the softmax over the turns left; an even share when no
    cell holds a lettered tile.

    >>> k, confidence = choose_rotation(CellClassifier().predict(grid_image))  # doctest: +SKIP
    """
    turns = [
        k
        for k in range(4)
        if upright is None
        or upright == ((preds.rows, preds.cols) if k % 2 == 0 else (preds.cols, preds.rows))
    ]
    if not turns:
        raise ValueError(f"a {preds.rows}×{preds.cols} grid cannot be the {upright} board")
    lettered = 1.0 - preds.probs[:, _TEXTLESS].sum(axis=1)
    if voters is None:
        voters = lettered >= min_tile_prob
    if not voters.any():
        return turns[0], 1 / len(turns)
    direction = preds.joint[voters][
        :, :, [i for i in range(len(VISUAL_CLASSES)) if i not in _TEXTLESS]
    ]
    direction = direction.sum(axis=2)
    direction = direction / direction.sum(axis=1, keepdims=True)
    totals = np.log(np.clip(direction, 1e-4, 1.0)).sum(axis=0)[turns]
    share = np.exp(totals - totals.max())
    share /= share.sum()
    best = int(share.argmax())
    return turns[best], float(share[best])


def rotate_predictions(preds: CellPredictions, k: int) -> CellPredictions:
    """The predictions of the grid turned upright: cells moved as `np.rot90(grid, -k)` moves
    them, and each cell's text direction shifted so that upright is 0."""
    k %= 4
    if k == 0:
        return preds
    grid = preds.joint.reshape(preds.rows, preds.cols, 4, -1)
    grid = np.rot90(grid, -k, axes=(0, 1))
    grid = np.roll(grid, -k, axis=2)
    rows, cols = grid.shape[:2]
    return CellPredictions(np.ascontiguousarray(grid.reshape(rows * cols, 4, -1)), rows, cols)
