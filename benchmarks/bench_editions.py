"""Reading boards of the held-out edition family (`training.render.heldout_edition`), end to end.

Photos of editions the model never trained on — green boards with saturated premiums and white
tiles, wood-print squares, boards of any hue, printed centre marks, held-out typefaces — each
holding a random set of tiles drawn from the variant's own bag (so never more blanks than the set
has). Prints, per edition kind, per variant and in all: cells right, tiles right, empty squares
read as tiles, tiles read as empty, boards exact, grids found and grids wrong (a corner off by
over half a cell); then the commonest misreads (the square's truth -> what was read, `.` an
empty square), per edition kind, or only of `--confusions KIND`; last, the seed of each photo
whose grid was not found or wrong.

Run: python benchmarks/bench_editions.py [--photos N] [--first SEED] [--variants en,ru,erudit]
         [--grid-only] [--confusions KIND]

`--grid-only` finds the grids and reads no cells (grids found and wrong, and the locator's CPU
time: median, 75th and 90th percentiles, max, and the photos over 300 ms).

A letter the model has no class for (`[vision] read_as`: Ä read through A) ties with its
look-alike and counts as right only where the tie falls its way: these figures are the photo's
reading alone, before the tracker settles such cells by the words and tile counts.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorer.notation import split_tiles  # noqa: E402
from scorer.variant import Variant, load_variant  # noqa: E402
from training.render import (  # noqa: E402
    EDITION_KINDS,
    GRID,
    bag_rows,
    heldout_edition,
    render_board_photo,
)
from vision.classify import CellClassifier  # noqa: E402
from vision.decode import decode_photo  # noqa: E402
from vision.locate import BoardNotFound  # noqa: E402
from vision.pipeline import locate_photo, read_board  # noqa: E402


def grid_corners(data: bytes, variant: Variant) -> tuple[np.ndarray, float]:
    """The grid's corners located in a photo's bytes (full-size pixels, as seen) and the CPU
    milliseconds locating took (CPU, not wall time: the machine may be busy)."""
    photo = decode_photo(data)
    started = time.process_time()
    location, _ = locate_photo(photo.image, variant)
    elapsed = (time.process_time() - started) * 1000
    return (location.corners + 0.5) * photo.scale - 0.5, elapsed


def truth_char(ch: str) -> str:
    return "?" if ch in "?*" else ch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=45)
    parser.add_argument("--first", type=int, default=7_000_000, help="first photo's seed")
    parser.add_argument("--variants", default="en,ru,erudit")
    parser.add_argument("--size", default="1600x1200")
    parser.add_argument("--grid-only", action="store_true", help="find the grids, read no cells")
    parser.add_argument(
        "--free-squares",
        action="store_true",
        help="where no grid is found, read the unvouched grids as `scorekeeper read` does "
        "(vision.pipeline.read_board's free_squares)",
    )
    parser.add_argument("--confusions", help="list only this edition kind's misreads")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))
    variants = [load_variant(name) for name in args.variants.split(",")]
    classifier = None if args.grid_only else CellClassifier()
    locate_ms: list[float] = []
    totals: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    by_variant: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    misreads: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    missed: list[str] = []  # the seeds of the grids not found or wrong, to look at one by one
    started = time.perf_counter()
    for i in range(args.photos):
        seed = args.first + i
        rng = np.random.default_rng(seed)
        kind = EDITION_KINDS[i % len(EDITION_KINDS)]
        variant = variants[(i // len(EDITION_KINDS)) % len(variants)]
        style = heldout_edition(rng, kind)
        rows = bag_rows(rng, variant, int(rng.integers(0, 90)))
        image, corners, _ = render_board_photo(rows, variant.name, style, seed, size)
        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        assert ok
        tally = collections.Counter(photos=1)
        # Each photo counts under its edition kind and under its variant.
        totals[kind] += tally
        by_variant[variant.name] += tally
        tally = collections.Counter()
        try:
            if args.grid_only:
                found, located = grid_corners(jpeg.tobytes(), variant)
                locate_ms.append(located)
            else:
                reading = read_board(
                    jpeg.tobytes(), variant, classifier, free_squares=args.free_squares
                )
                found = np.asarray(reading.corners, np.float32)
        except BoardNotFound:
            totals[kind]["not found"] += 1
            by_variant[variant.name]["not found"] += 1
            missed.append(f"{seed} ({kind}, {variant.name}): not found")
            continue
        cell = float(np.linalg.norm(corners[1] - corners[0])) / GRID
        # The reading's corners follow the board, as the renderer's do; the located grid's are
        # as seen, so any cyclic order of them counts, as it does for an empty board: no tile
        # shows which way is up.
        empty_board = all(ch == "." for line in rows for ch in line)
        error = min(
            float(np.linalg.norm(np.roll(found, s, axis=0) - corners, axis=1).max())
            for s in range(4 if args.grid_only or empty_board else 1)
        )
        if error > 0.5 * cell:
            totals[kind]["wrong grid"] += 1
            by_variant[variant.name]["wrong grid"] += 1
            missed.append(f"{seed} ({kind}, {variant.name}): wrong by {error / cell:.1f} cells")
            continue
        if args.grid_only:
            continue
        wrong = 0
        for truth_line, line in zip(rows, reading.text.splitlines(), strict=True):
            for want, got in zip(split_tiles(truth_line), split_tiles(line), strict=True):
                want = truth_char(want)
                tally["cells"] += 1
                if want != ".":
                    tally["tiles"] += 1
                    tally["tiles right"] += got == want
                    tally["tile read empty"] += got == "."
                else:
                    tally["empty read tile"] += got != "."
                wrong += got != want
                if got != want:
                    misreads[kind][f"{want}->{got}"] += 1
        tally["cells right"] += GRID * GRID - wrong
        tally["exact"] += wrong == 0
        totals[kind] += tally
        by_variant[variant.name] += tally
    totals["all"] = sum(totals.values(), collections.Counter())
    for kind, t in [*totals.items(), *by_variant.items()]:
        read = t["photos"] - t["not found"] - t["wrong grid"]
        grids = (
            f"{kind:>10}: {t['photos']} photos, grid found {t['photos'] - t['not found']}"
            f" ({100 * (t['photos'] - t['not found']) / max(1, t['photos']):.1f} %),"
            f" wrong grids {t['wrong grid']}"
        )
        if args.grid_only:
            print(grids)
            continue
        print(
            f"{grids}; cells {100 * t['cells right'] / max(1, t['cells']):.2f} %,"
            f" tiles {100 * t['tiles right'] / max(1, t['tiles']):.2f} % of {t['tiles']},"
            f" empty read as tile {t['empty read tile']}, tile read as empty {t['tile read empty']},"
            f" exact {t['exact']}/{read}"
        )
    for kind, counts in misreads.items():
        if args.confusions in (None, kind):
            listed = ", ".join(f"{pair} {n}" for pair, n in counts.most_common(30))
            print(f"{kind:>10} misreads: {listed}")
    for line in missed:
        print(f"  grid {line}")
    if locate_ms:
        # The tail too: a photo that misses the first look costs a player many times the median.
        p75, p90 = np.percentile(locate_ms, [75, 90])
        slow = sum(ms > 300 for ms in locate_ms)
        print(
            f"locate CPU ms: median {np.median(locate_ms):.0f}, p75 {p75:.0f}, p90 {p90:.0f}, "
            f"max {max(locate_ms):.0f}; over 300 ms: {slow}/{len(locate_ms)}"
        )
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
