"""Grid locator benchmark: how often `vision.locate.locate_grid` finds the grid on rendered photos
(random and calibrated styles, random poses), how far its corners are off, how often it returns a
wrong grid, how long it takes; refusal of photos without a board; and the real photos in
../shared/realphotos (English corners against truth.json, Эрудит corners against a saved run).

Run: python benchmarks/bench_locate.py [--count N] [--first SEED] [--cache DIR] [--shared DIR]
         [--save-corners FILE] [--compare-corners FILE] [--failures DIR]
         [--kinds KIND ...] [--variants VARIANT ...]

Rendering a photo takes seconds; `--cache DIR` keeps the rendered photos between runs (empty it
when training/render.py changes). Photo `seed` cycles through the variants en/ru/erudit, the style
kinds (random training style twice, random held-out style, the calibrated edition style) and three
photo sizes; its pose is `training.render.random_pose`, shrunk until the grid fits the photo.
`--kinds` and `--variants` keep only the seeds of those style kinds and variants (e.g. the
calibrated light English board: `--kinds calibrated --variants en`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from scorer.variant import load_variant  # noqa: E402
from training.render import (  # noqa: E402
    erudit_style,
    random_rows,
    random_style,
    render_board_photo,
    scrabble_style,
)
from vision.decode import decode_photo  # noqa: E402
from vision.locate import BoardNotFound, locate_grid  # noqa: E402

VARIANTS = ("en", "ru", "erudit")
STYLE_KINDS = ("train", "train", "heldout", "calibrated")
SIZES = ((1600, 1200), (2000, 1500), (1200, 1600))
WRONG_CELLS = 0.5  # a found grid whose corners are further off than this is a wrong grid


def find_shared(given: str | None) -> Path | None:
    for candidate in (given, os.environ.get("SCOREKEEPER_SHARED"), REPO.parent / "shared"):
        if candidate and Path(candidate).is_dir():
            return Path(candidate)
    return None


def corner_error_cells(found: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner distance in cells; `truth` is in board order, so any cyclic order counts."""
    sides = np.linalg.norm(truth - np.roll(truth, -1, axis=0), axis=1)
    cell = sides.mean() / 15
    return min(
        float(np.linalg.norm(np.roll(found, s, axis=0) - truth, axis=1).max()) / cell
        for s in range(4)
    )


def chosen_seeds(first: int, count: int, kinds: list[str], variants: list[str]) -> list[int]:
    """The first `count` seeds from `first` whose style kind and variant are among those given."""
    seeds, seed = [], first
    while len(seeds) < count:
        if (
            STYLE_KINDS[seed % len(STYLE_KINDS)] in kinds
            and VARIANTS[seed % len(VARIANTS)] in variants
        ):
            seeds.append(seed)
        seed += 1
    return seeds


def rendered_case(seed: int) -> tuple[str, str, np.ndarray, np.ndarray]:
    """(variant, description, photo, true corners) of benchmark photo `seed`."""
    variant_name = VARIANTS[seed % len(VARIANTS)]
    kind = STYLE_KINDS[seed % len(STYLE_KINDS)]
    size = SIZES[seed // len(VARIANTS) % len(SIZES)]
    variant = load_variant(variant_name)
    rng = np.random.default_rng(10_000 + seed)
    if kind == "calibrated":
        style = erudit_style() if variant_name == "erudit" else scrabble_style()
    else:
        style = random_style(rng, kind)
    rows = random_rows(
        rng, variant.alphabet, float(rng.uniform(0.0, 0.5)), variant.blank_symbol or "?"
    )
    photo, corners, _ = render_board_photo(rows, variant_name, style, seed, size)
    return variant_name, f"{variant_name} {style.name} {size[0]}x{size[1]}", photo, corners


def cached_case(seed: int, cache: Path | None) -> tuple[str, str, np.ndarray, np.ndarray]:
    if cache is None:
        return rendered_case(seed)
    image_path, meta_path = cache / f"{seed:04d}.png", cache / f"{seed:04d}.json"
    if image_path.is_file() and meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        return meta["variant"], meta["name"], cv2.imread(str(image_path)), np.array(meta["corners"])
    variant, name, photo, corners = rendered_case(seed)
    cache.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(image_path), photo)
    meta = {"variant": variant, "name": name, "corners": corners.tolist()}
    meta_path.write_text(json.dumps(meta))
    return variant, name, photo, corners


def draw_failure(
    path: Path, photo: np.ndarray, truth: np.ndarray, found: np.ndarray | None
) -> None:
    """The photo with the true grid (green) and the found one (red)."""
    canvas = photo.copy()
    cv2.polylines(canvas, [np.int32(truth)], True, (0, 255, 0), 3)
    if found is not None:
        cv2.polylines(canvas, [np.int32(found)], True, (0, 0, 255), 3)
    scale = 800 / max(canvas.shape[:2])
    cv2.imwrite(
        str(path), cv2.resize(canvas, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    )


def rendered(seeds: list[int], cache: Path | None, failures: Path | None) -> None:
    count = len(seeds)
    print(f"rendered photos: {count} (seeds {seeds[0]}..{seeds[-1]})")
    errors, times, big_times = [], [], []
    refused, wrong = [], []
    for seed in seeds:
        variant, name, photo, truth = cached_case(seed, cache)
        layout = load_variant(variant).layout.rows
        start = time.perf_counter()
        try:
            found = locate_grid(photo, 15, 15, layout)
        except BoardNotFound as exc:
            found, reason = None, str(exc)
        elapsed = (time.perf_counter() - start) * 1000
        times.append(elapsed)
        if max(photo.shape[:2]) >= 2000:
            big_times.append(elapsed)
        if found is None:
            refused.append(seed)
            print(f"  {seed:4d} REFUSED  {name}: {reason}")
        else:
            error = corner_error_cells(found.corners, truth)
            if error > WRONG_CELLS:
                wrong.append(seed)
                print(
                    f"  {seed:4d} WRONG    {name}: error {error:.2f} cells, q {found.quality:.2f}"
                )
            else:
                errors.append(error)
        if failures is not None and (found is None or seed in wrong):
            failures.mkdir(parents=True, exist_ok=True)
            draw_failure(failures / f"{seed:04d}.png", photo, truth, found and found.corners)
    print(
        f"found {len(errors)}/{count} ({100 * len(errors) / count:.1f} %), "
        f"refused {len(refused)}, wrong grid {len(wrong)}"
    )
    if errors:
        print(
            f"corner error (cells): median {statistics.median(errors):.3f}, "
            f"p90 {np.quantile(errors, 0.9):.3f}, max {max(errors):.3f}"
        )
    print(f"locate ms: median {statistics.median(times):.0f}, max {max(times):.0f}", end="")
    if big_times:
        print(f"; 2000 px photos median {statistics.median(big_times):.0f}")
    print()


def no_board_photos() -> dict[str, np.ndarray]:
    """Photos without a board: noise, a wall, a blank page, a drawn face, a chessboard, a table."""
    rng = np.random.default_rng(7)
    h, w = 1200, 1600
    photos = {"noise": rng.integers(0, 256, (h, w, 3), dtype=np.uint8)}
    wall = cv2.GaussianBlur(rng.normal(180, 25, (h, w)).astype(np.float32), (0, 0), 6)
    wall = np.clip(wall + np.linspace(-30, 30, w)[None, :], 0, 255).astype(np.uint8)
    photos["wall"] = cv2.cvtColor(wall, cv2.COLOR_GRAY2BGR)
    page = np.full((h, w, 3), 120, np.uint8)
    cv2.rectangle(page, (300, 120), (1300, 1080), (245, 245, 245), -1)
    photos["blank page"] = page
    face = np.full((h, w, 3), (90, 120, 150), np.uint8)
    cv2.ellipse(face, (800, 600), (340, 460), 0, 0, 360, (150, 180, 220), -1)
    for x in (660, 940):
        cv2.circle(face, (x, 500), 44, (40, 40, 40), -1)
    cv2.ellipse(face, (800, 800), (140, 50), 0, 0, 180, (40, 40, 120), 16)
    photos["face"] = face
    chess = np.kron((np.indices((8, 8)).sum(axis=0) % 2) * 200 + 30, np.ones((120, 120)))
    chess = cv2.cvtColor(chess.astype(np.uint8), cv2.COLOR_GRAY2BGR)
    photos["chessboard"] = cv2.copyMakeBorder(
        chess, 120, 120, 320, 320, cv2.BORDER_CONSTANT, value=(128, 128, 128)
    )
    table = np.full((h, w, 3), (60, 90, 130), np.uint8)
    for _ in range(12):
        colour = tuple(int(v) for v in rng.integers(0, 256, 3))
        x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
        cv2.rectangle(table, (x, y), (x + int(rng.integers(80, 500)), y + 80), colour, -1)
    photos["cluttered table"] = cv2.GaussianBlur(table, (5, 5), 0)
    return photos


def refusals() -> None:
    print("\nphotos without a board:")
    for name, photo in no_board_photos().items():
        try:
            found = locate_grid(photo, 15, 15, load_variant("en").layout.rows)
            print(f"  {name:<16} FOUND A GRID (quality {found.quality:.2f})")
        except BoardNotFound:
            print(f"  {name:<16} refused")


def real_photos(shared: Path, save: Path | None, compare: Path | None) -> None:
    """Every real photo: quality, and corner error against truth.json or a saved run."""
    english = shared / "realphotos/english/boards"
    truth = {
        f"english/boards/{name}": np.array(entry["corners"])
        for name, entry in json.loads((english / "truth.json").read_text()).items()
    }
    earlier = {}
    if compare is not None:
        earlier = {k: np.array(v) for k, v in json.loads(compare.read_text()).items()}
    photos = sorted((shared / "realphotos/english/boards").glob("*.jpeg"))
    photos += sorted(
        p for p in (shared / "realphotos/erudit").rglob("*.jpg") if "tile_crops" not in p.parts
    )
    print(f"\nreal photos: {len(photos)}")
    print(f"  {'photo':<40} {'quality':>7} {'err truth':>9} {'vs saved':>9} {'ms':>5}")
    saved, found_count = {}, 0
    for path in photos:
        key = str(path.relative_to(shared / "realphotos"))
        variant = "en" if key.startswith("english") else "erudit"
        photo = decode_photo(path.read_bytes())
        start = time.perf_counter()
        try:
            found = locate_grid(photo.image, 15, 15, load_variant(variant).layout.rows)
        except BoardNotFound as exc:
            print(f"  {key:<40} NOT FOUND ({exc})")
            continue
        elapsed = (time.perf_counter() - start) * 1000
        found_count += 1
        corners = (found.corners + 0.5) * photo.scale - 0.5
        saved[key] = corners.tolist()
        versus_truth = versus_saved = "-"
        if key in truth:
            versus_truth = f"{corner_error_cells(corners, truth[key]):.3f}"
        if key in earlier:
            versus_saved = f"{corner_error_cells(corners, earlier[key]):.3f}"
        print(
            f"  {key:<40} {found.quality:7.2f} {versus_truth:>9} {versus_saved:>9} {elapsed:5.0f}"
        )
    print(f"found {found_count}/{len(photos)}")
    if save is not None:
        save.write_text(json.dumps(saved, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=120, help="rendered photos (default 120)")
    parser.add_argument("--first", type=int, default=0, help="first photo's seed (default 0)")
    parser.add_argument("--cache", type=Path, help="folder keeping rendered photos between runs")
    parser.add_argument("--shared", help="the shared folder (default ../shared)")
    parser.add_argument("--save-corners", type=Path, help="write the real photos' corners here")
    parser.add_argument("--compare-corners", type=Path, help="compare with corners saved earlier")
    parser.add_argument("--failures", type=Path, help="draw refused and wrong photos here")
    parser.add_argument(
        "--kinds",
        nargs="+",
        choices=sorted(set(STYLE_KINDS)),
        default=sorted(set(STYLE_KINDS)),
        help="style kinds to render (default all)",
    )
    parser.add_argument(
        "--variants",
        nargs="+",
        choices=VARIANTS,
        default=list(VARIANTS),
        help="variants to render (default all)",
    )
    args = parser.parse_args()
    if args.count > 0:
        seeds = chosen_seeds(args.first, args.count, args.kinds, args.variants)
        rendered(seeds, args.cache, args.failures)
    refusals()
    shared = find_shared(args.shared)
    if shared is None:
        print("../shared not found: real photos skipped")
        return
    real_photos(shared, args.save_corners, args.compare_corners)


if __name__ == "__main__":
    main()
