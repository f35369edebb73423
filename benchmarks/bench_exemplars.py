"""Look-alike letters settled by the photo's own known tiles (`vision.exemplars`), on rendered
boards: how many doubtful letters the known tiles make sure, and how many of those wrongly.

    python benchmarks/bench_exemplars.py [--photos 60] [--first 7300000] [--size 1600x1200]
        [--styles heldout|train] [--variants en,ru,erudit]

Each photo is a board of 40–94 tiles from the bag (`training.render.bag_rows`), in an edition of
the held-out family (`heldout_edition`, as `bench_editions.py` renders them) or of the training
family (`random_style`). It is read as usual; then the game is taken to know every tile of the
photo but those read below what the tracker takes as read (the doubtful ones, as if just laid),
and `with_known_letters` weighs the doubtful ones against the known. Prints the doubtful squares
whose best class is a letter, how many the known tiles raised to what the tracker takes as read,
how many of those are the wrong letter (a move recorded wrongly, were the words to allow it), and
how many the known tiles lowered below the truth's reading. Last, over the pairs of a doubtful
tile's true letter and another letter of its top 3, both with known tiles, how often it lies
nearer the other's, and the scale of the logistic fit of "the true one" on the gap in cosine
similarity, from which `vision.exemplars.SCALE` is taken.
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scorer.board import Board  # noqa: E402
from scorer.notation import split_tiles  # noqa: E402
from scorer.tracking import Thresholds  # noqa: E402
from scorer.variant import load_variant  # noqa: E402
from training.render import (  # noqa: E402
    EDITION_KINDS,
    bag_rows,
    heldout_edition,
    random_style,
    render_board_photo,
)
from vision.classify import CellClassifier  # noqa: E402
from vision.exemplars import similarities, with_known_letters  # noqa: E402
from vision.locate import BoardNotFound  # noqa: E402
from vision.pipeline import read_board  # noqa: E402
from vision.reading import BLANK, EMPTY, STAR, board_char  # noqa: E402

CERTAIN = Thresholds().certain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=60)
    parser.add_argument("--first", type=int, default=7_300_000, help="first photo's seed")
    parser.add_argument("--size", default="1600x1200")
    parser.add_argument("--styles", choices=["heldout", "train"], default="heldout")
    parser.add_argument("--variants", default="en,ru,erudit")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))
    variants = [load_variant(name) for name in args.variants.split(",")]
    classifier = CellClassifier()
    tally: collections.Counter[str] = collections.Counter()
    wrong: collections.Counter[str] = collections.Counter()
    gaps: list[float] = []
    for i in range(args.photos):
        seed = args.first + i
        rng = np.random.default_rng(seed)
        kind = EDITION_KINDS[i % len(EDITION_KINDS)]
        variant = variants[(i // len(EDITION_KINDS)) % len(variants)]
        style = heldout_edition(rng, kind) if args.styles == "heldout" else random_style(rng)
        rows = bag_rows(rng, variant, int(rng.integers(40, 95)))
        image, _, _ = render_board_photo(rows, variant.name, style, seed, size)
        ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        assert ok
        try:
            reading = read_board(jpeg.tobytes(), variant, classifier)
        except BoardNotFound:
            tally["photos without a grid found"] += 1
            continue
        tally["photos"] += 1
        # The renderer writes a star tile `*`; the board text, like any blank, `?`.
        truth = [["?" if ch == "*" else ch for ch in split_tiles(line)] for line in rows]
        doubtful = set(reading.uncertain(CERTAIN))
        known = Board.from_rows(
            "".join("." if (r, c) in doubtful else ch for c, ch in enumerate(line))
            for r, line in enumerate(truth)
        )
        weighed = with_known_letters(reading, known)
        near = similarities(reading, known)
        for r, c in sorted(doubtful):
            best = reading.classes[r][c]
            if best in {EMPTY, BLANK, STAR} or truth[r][c] == ".":
                continue
            tally["doubtful letters"] += 1
            want = truth[r][c]
            alike = {board_char(label): value for label, value in near.get((r, c), {}).items()}
            for label, _ in reading.top3[r][c]:
                other = board_char(label)
                if other != want and want in alike and other in alike:
                    gaps.append(alike[want] - alike[other])
            after = dict(weighed.top3[r][c])
            before = dict(reading.top3[r][c])
            right = {label for label in after if board_char(label) == want}
            if weighed.confidence[r][c] >= CERTAIN:
                tally["made sure"] += 1
                if board_char(weighed.classes[r][c]) != want:
                    tally["made sure wrongly"] += 1
                    wrong[f"{want} read {board_char(best)}"] += 1
            if sum(after[x] for x in right) < sum(before.get(x, 0.0) for x in right) - 1e-9:
                tally["the truth made less likely"] += 1
    print(
        f"{args.styles} styles, {args.photos} photos from seed {args.first}, {args.size}: "
        + ", ".join(f"{key} {value}" for key, value in tally.items())
    )
    if wrong:
        print("  made sure wrongly: " + ", ".join(f"{k} ×{n}" for k, n in wrong.most_common()))
    print(
        f"  letter pairs: {len(gaps)}, nearer the wrong letter's known tiles "
        f"{sum(g <= 0 for g in gaps)}; logistic scale on the gap {_logistic_scale(gaps):.0f}"
    )


def _logistic_scale(gaps: list[float]) -> float:
    """The k of the likeliest P(the true letter) = 1 / (1 + exp(-k · gap)), on a grid."""
    if not gaps:
        return float("nan")
    values = np.asarray(gaps)
    scales = np.arange(1.0, 201.0)
    likelihood = [-np.logaddexp(0.0, -k * values).sum() for k in scales]
    return float(scales[int(np.argmax(likelihood))])


if __name__ == "__main__":
    main()
