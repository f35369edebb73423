"""Cell classifier figures: accuracy on held-out rendered boards, on real crops and real English
boards (true corners from ../shared), real photos read end to end (cells right per photo and the
confusions), orientation votes, and inference time for 225 cells.

Run from the repository root: `python benchmarks/bench_classify.py [--boards N] [--model ONNX
[--second ONNX]] [--only real]`.
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorer.notation import split_tiles, unbracket  # noqa: E402
from scorer.variant import load_variant  # noqa: E402
from training.dataset import (  # noqa: E402
    EDITIONS,
    SHARED,
    read_real_photos,
    real_tile_crops,
    rectify_to_grid,
)
from training.render import random_rows, random_style, render_board_photo  # noqa: E402
from vision.classify import (  # noqa: E402
    BLANK,
    EMPTY,
    STAR,
    CellClassifier,
    read_cells,
    visual_class,
)
from vision.orient import choose_rotation, rotate_predictions  # noqa: E402

SEEDS_FROM = 5_000_000


def truth_labels(rows: list[str], star: bool) -> list[str]:
    """The class each cell of board text `rows` should read as (a multi-letter tile is one)."""
    return [
        EMPTY if ch == "." else (STAR if star else BLANK) if ch in "?*" or ch.islower() else ch
        for line in rows
        for ch in map(unbracket, split_tiles(line))
    ]


def rendered(clf: CellClassifier, boards: int, split: str) -> dict:
    """Per-cell and per-tile accuracy with the variant mask, boards read exactly, and rotation
    votes, on boards rendered at random turns in the given renderer split."""
    cells = tiles_ok = tiles = exact = rot_ok = 0
    for i in range(boards):
        rng = np.random.default_rng(SEEDS_FROM + i)
        name, blank = EDITIONS[i % len(EDITIONS)]
        variant = load_variant(name)
        rows = random_rows(rng, variant.alphabet, float(rng.uniform(0.1, 0.5)), blank)
        photo, corners, _ = render_board_photo(
            rows, name, random_style(rng, split), SEEDS_FROM + i, (1000, 800)
        )
        turns = i % 4
        grid = np.ascontiguousarray(np.rot90(rectify_to_grid(photo, corners, clf.cell_px), turns))
        preds = clf.predict(grid)
        k, _ = choose_rotation(preds)
        rot_ok += k == turns
        reading = read_cells(rotate_predictions(preds, k), variant)
        labels = [c.label for line in reading for c in line]
        truth = truth_labels(rows, blank == "*")
        right = [a == b for a, b in zip(labels, truth, strict=True)]
        cells += sum(right)
        tiles += sum(t != EMPTY for t in truth)
        tiles_ok += sum(r for r, t in zip(right, truth, strict=True) if t != EMPTY)
        exact += all(right)
    return {
        "boards": boards,
        "cell_acc": cells / (225 * boards),
        "tile_acc": tiles_ok / max(1, tiles),
        "boards_exact": exact / boards,
        "rotation_acc": rot_ok / boards,
    }


def real_english(clf: CellClassifier) -> dict:
    """The three real English boards, rectified with their true corners from truth.json."""
    folder = SHARED / "realphotos" / "english" / "boards"
    if not (folder / "truth.json").is_file():
        return {}
    result = {}
    for name, truth in json.loads((folder / "truth.json").read_text()).items():
        photo = cv2.imread(str(folder / name))
        grid = rectify_to_grid(photo, np.float32(truth["corners"]), clf.cell_px)
        preds = clf.predict(grid)
        k, confidence = choose_rotation(preds)
        reading = read_cells(preds, load_variant(truth["variant"]))
        labels = [c.label for line in reading for c in line]
        expected = truth_labels(truth["rows"], False)
        wrong = [
            (i // 15 + 1, i % 15 + 1, e, got)
            for i, (e, got) in enumerate(zip(expected, labels, strict=True))
            if e != got
        ]
        result[name] = {
            "cell_acc": 1 - len(wrong) / 225,
            "rotation": k,
            "rotation_conf": round(confidence, 3),
            "wrong": wrong[:12],
        }
    return result


def real_crops(clf: CellClassifier) -> dict:
    data = real_tile_crops()
    if data is None:
        return {}
    preds = clf.predict_crops(data.images, 1, len(data.labels))
    reading = read_cells(preds, load_variant("erudit"))[0]
    right = [visual_class(c.label) == label for c, label in zip(reading, data.labels, strict=True)]
    return {"crops": len(right), "masked_acc": sum(right) / len(right)}


def real_photos(clf: CellClassifier) -> dict:
    """Every real photo with a known position read end to end (locate included): cells right of
    225 per photo, totals per group, and the commonest (truth → read) confusions."""
    per_photo, groups = {}, collections.defaultdict(lambda: [0, 0, 0])
    confusions: collections.Counter[str] = collections.Counter()
    for result in read_real_photos(clf):
        per_photo[result.name] = result.error or result.right
        total = groups[result.group]
        total[0] += result.right
        total[1] += 225
        total[2] += result.right == 225
        confusions.update(f"{t}→{r}" for t, r in result.wrong)
    return {
        "per_photo": per_photo,
        "groups": {
            g: {"cells": f"{right}/{n}", "acc": round(right / n, 4), "photos_exact": exact}
            for g, (right, n, exact) in groups.items()
        },
        "confusions": dict(confusions.most_common(25)),
    }


def timing(clf: CellClassifier) -> dict:
    grid = np.random.default_rng(0).integers(
        0, 255, (15 * clf.cell_px, 15 * clf.cell_px, 3), dtype=np.uint8
    )
    clf.predict(grid)
    times = []
    for _ in range(20):
        start = time.perf_counter()
        clf.predict(grid)
        times.append((time.perf_counter() - start) * 1000)
    return {
        "predict_225_cells_ms_median": round(statistics.median(times), 1),
        "ms_min": round(min(times), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--boards", type=int, default=12)
    parser.add_argument("--model", help="an ONNX file to measure instead of the shipped model")
    parser.add_argument("--second", help="with --model: the ONNX file of its second opinion")
    parser.add_argument("--only", choices=["real"], help="measure only the real photos end to end")
    args = parser.parse_args()
    clf = CellClassifier(args.model, second=args.second)
    if args.only == "real":
        print(json.dumps(real_photos(clf), indent=1, ensure_ascii=False))
        return
    figures = {
        "rendered_heldout": rendered(clf, args.boards, "heldout"),
        "rendered_train_styles": rendered(clf, args.boards, "train"),
        "real_erudit_crops": real_crops(clf),
        "real_english_boards_true_corners": real_english(clf),
        "real_photos_end_to_end": real_photos(clf),
        "timing": timing(clf),
    }
    print(json.dumps(figures, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
