"""Board reading benchmark: per-stage time for a 12 MP JPEG, the cost of a read against a plain
full-size decode of the same files (nine 12 MP phone-sized JPEGs, measured in one run), peak
memory, and accuracy on the real photos in ../shared/realphotos (cells right per photo, grid
corner error in cells).

Run: python benchmarks/bench_read.py [--runs N] [--shared DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import statistics
import sys
import time
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scorer.variant import load_variant  # noqa: E402
from training.dataset import real_board_photos  # noqa: E402
from vision.decode import decode_photo  # noqa: E402
from vision.locate import BoardNotFound, locate_grid  # noqa: E402
from vision.rectify import rectify  # noqa: E402

STAGES = ("decode", "locate", "rectify", "classify", "orient", "total")


def find_shared(given: str | None) -> Path | None:
    for candidate in (given, os.environ.get("SCOREKEEPER_SHARED"), REPO.parent / "shared"):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


def has_model() -> bool:
    return resources.files("vision.models").joinpath("cells.onnx").is_file()


def twelve_megapixel_jpeg(shared: Path | None) -> bytes:
    """A 4000x3000 JPEG (quality 90): a real board photo upscaled, or a drawn board."""
    source = shared / "realphotos/erudit/empty_boards/c1.jpg" if shared else None
    if source and source.is_file():
        image = cv2.imread(str(source))
    else:
        image = np.full((1500, 2000, 3), (150, 170, 190), np.uint8)
        cv2.rectangle(image, (450, 150), (1550, 1250), (40, 40, 45), -1)
        for k in range(16):
            p = 500 + k * 66
            cv2.line(image, (p, 200), (p, 1190), (10, 10, 10), 3)
            cv2.line(image, (500, p - 300), (1490, p - 300), (10, 10, 10), 3)
    big = cv2.resize(image, (4000, 3000), interpolation=cv2.INTER_CUBIC)
    ok, encoded = cv2.imencode(".jpg", big, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return encoded.tobytes()


def time_stages(data: bytes, runs: int) -> dict[str, float]:
    """Median milliseconds per stage over `runs` reads (model load excluded)."""
    variant = load_variant("erudit")
    samples: dict[str, list[float]] = {stage: [] for stage in STAGES}
    if has_model():
        from vision.classify import CellClassifier
        from vision.pipeline import read_board

        classifier = CellClassifier()
        read_board(data, variant, classifier)  # warm-up
        for _ in range(runs):
            reading = read_board(data, variant, classifier)
            for stage in STAGES:
                samples[stage].append(reading.timings_ms.get(stage, 0.0))
    else:
        print("(models/cells.onnx missing: timing decode, locate and rectify only)")
        for _ in range(runs):
            t0 = time.perf_counter()
            photo = decode_photo(data)
            t1 = time.perf_counter()
            found = locate_grid(photo.image, 15, 15, variant.layout.rows)
            t2 = time.perf_counter()
            rectify(photo.image, found.corners, 32)
            t3 = time.perf_counter()
            for stage, ms in zip(STAGES, (t1 - t0, t2 - t1, t3 - t2, 0, 0, t3 - t0), strict=True):
                samples[stage].append(ms * 1000)
    return {stage: statistics.median(values) for stage, values in samples.items()}


def phone_jpegs(count: int = 9) -> list[tuple[str, bytes]]:
    """`count` rendered 4032x3024 board photos (JPEG quality 92, as a phone saves them), of
    calibrated and random editions, boards from empty to full, each with its variant's name."""
    from training.render import random_rows, random_style, render_board_photo

    jpegs = []
    for i in range(count):
        rng = np.random.default_rng(900 + i)
        variant = ("en", "ru", "erudit")[i % 3]
        rows = random_rows(rng, load_variant(variant).alphabet, i / count * 0.5)
        image, _, _ = render_board_photo(
            rows, variant, random_style(rng), 900 + i, size=(4032, 3024)
        )
        ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])
        assert ok
        jpegs.append((variant, encoded.tobytes()))
    return jpegs


def read_versus_decode(
    jpegs: list[tuple[str, bytes]], runs: int
) -> tuple[float, float, dict[str, float], list[tuple[str, float, dict[str, float]]]]:
    """Median ms of a whole read (each photo read as its own variant) and of a full-size
    `cv2.imdecode`, over all photos and runs, interleaved in one process so that both see the
    same machine; the reads' median ms per stage; and per photo (its variant, the median ms of
    its reads and per stage): the photo in the middle of those sets the whole median."""
    from vision.classify import CellClassifier
    from vision.pipeline import read_board

    classifier = CellClassifier()
    reads, decodes = [], []
    stages: dict[str, list[float]] = {stage: [] for stage in STAGES}
    photos = []
    for name, data in jpegs:
        variant = load_variant(name)
        buffer = np.frombuffer(data, np.uint8)
        for attempt in range(runs + 1):
            t0 = time.perf_counter()
            cv2.imdecode(buffer, cv2.IMREAD_COLOR)
            t1 = time.perf_counter()
            # A refusal costs what it costs, as for a player.
            reading = None
            with contextlib.suppress(BoardNotFound):
                reading = read_board(data, variant, classifier)
            t2 = time.perf_counter()
            if attempt:  # the first is a warm-up
                decodes.append((t1 - t0) * 1000)
                reads.append((t2 - t1) * 1000)
                for stage in STAGES:
                    stages[stage].append(reading.timings_ms.get(stage, 0.0) if reading else 0.0)
        own = {stage: statistics.median(values[-runs:]) for stage, values in stages.items()}
        photos.append((name, statistics.median(reads[-runs:]), own))
    medians = {stage: statistics.median(values) for stage, values in stages.items()}
    return statistics.median(reads), statistics.median(decodes), medians, photos


def truth_sets(shared: Path) -> list[tuple[str, Path, str, list[str], np.ndarray | None]]:
    """(group, photo, variant, rows, true grid corners or None) for every real photo of known position
    (`training.dataset.real_board_photos`: a blank or star tile is `?`, whatever it stands for,
    since a photo cannot show that); corners are known for the English boards."""
    english = shared / "realphotos/english/boards/truth.json"
    corners = (
        {
            name: np.array(entry["corners"])
            for name, entry in json.loads(english.read_text()).items()
        }
        if english.is_file()
        else {}
    )
    return [
        (group, path, variant, rows, corners.get(path.name))
        for group, path, variant, rows in real_board_photos(shared)
    ]


def accuracy(shared: Path) -> None:
    model = has_model()
    if model:
        from vision.classify import CellClassifier
        from vision.pipeline import read_board

        classifier = CellClassifier()
    print(f"\n{'photo':<34} {'quality':>7} {'corner err (cells)':>19} {'cells right':>12}")
    totals: dict[str, list[int]] = {}
    for group, photo, variant_name, rows, corners in truth_sets(shared):
        variant = load_variant(variant_name)
        data = photo.read_bytes()
        try:
            if model:
                reading = read_board(data, variant, classifier)
                found_corners, quality = np.array(reading.corners), reading.quality
            else:
                decoded = decode_photo(data)
                found = locate_grid(decoded.image, 15, 15, variant.layout.rows)
                found_corners = (found.corners + 0.5) * decoded.scale - 0.5
                quality = found.quality
        except BoardNotFound as exc:
            print(f"{photo.name:<34} NOT FOUND ({exc})")
            continue
        error = "-"
        if corners is not None:
            cell = np.linalg.norm(corners[1] - corners[0]) / 15
            error = f"{np.linalg.norm(found_corners - corners, axis=1).max() / cell:.3f}"
        right = "-"
        if model:
            hits = sum(
                a == b
                for got, want in zip(reading.rows, rows, strict=True)
                for a, b in zip(got, want, strict=True)
            )
            right = f"{hits}/225"
            totals.setdefault(group, []).append(hits)
        print(f"{photo.name:<34} {quality:>7.2f} {error:>19} {right:>12}")
    for group, hits in totals.items():
        cells = 225 * len(hits)
        print(
            f"{group}: {sum(hits)}/{cells} cells ({sum(hits) / cells:.2%}), "
            f"{hits.count(225)}/{len(hits)} photos exact"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--shared", help="the shared folder (default ../shared)")
    args = parser.parse_args()
    shared = find_shared(args.shared)
    data = twelve_megapixel_jpeg(shared)
    print(f"12 MP JPEG: {len(data) / 1e6:.1f} MB, {args.runs} runs, median ms per stage")
    for stage, ms in time_stages(data, args.runs).items():
        print(f"  {stage:<9} {ms:7.1f}")
    if has_model():
        read_ms, decode_ms, stages, photos = read_versus_decode(
            phone_jpegs(), max(1, args.runs // 5)
        )
        print(
            f"nine 4032x3024 JPEGs: read {read_ms:.1f} ms, full-size decode {decode_ms:.1f} ms, "
            f"ratio {read_ms / decode_ms:.2f}"
        )
        print(
            "  their reads, median ms per stage: "
            + ", ".join(f"{k} {v:.1f}" for k, v in stages.items())
        )
        print("  per photo, fastest read first:")
        for name, ms, own in sorted(photos, key=lambda photo: photo[1]):
            parts = ", ".join(f"{k} {v:.1f}" for k, v in own.items() if k != "total")
            print(f"    {name:<7} read {ms:6.1f}: {parts}")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak_mb:.0f} MB")
    if shared is None:
        print("../shared not found: real-photo accuracy skipped")
        return
    accuracy(shared)


if __name__ == "__main__":
    main()
