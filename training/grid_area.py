"""Train the grid-area net: a small fully convolutional net that marks, in a photo shrunk to
`vision.grid_area.INPUT_LONG_SIDE` px, the pixels inside the board's playing grid (not its
frame, not the table). `vision.locate` outlines its mask as one more candidate for boards whose
light, lines and colours give no usable outline.

    python -m training.grid_area --out models/ [--photos 4000] [--epochs 16]

Renders `--photos` training photos from fixed seeds (`grid_style`: the training editions of
`training.render.random_style`, a share of them with their grid lines faint, absent or the
board's colour, wood grain printed over the squares, and any centre mark; never the held-out
family of `training.render.heldout_edition`), trains with a fixed seed on the CPU, exports
`models/grid_area.onnx` and writes its card `models/grid_area.md` with the mask's overlap with
the true grid and the error of the corners outlined from it, on photos of the held-out edition
family and on the real photos in ../shared (when present).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from scorer.variant import load_variant
from training.render import (
    EDITION_KINDS,
    GRID,
    Style,
    bag_rows,
    heldout_edition,
    random_style,
    render_board_photo,
)
from vision.grid_area import INPUT_LONG_SIDE, MODEL_FILE, OUTPUT_STRIDE, grid_mask, network_input

TRAIN_SEEDS_FROM = 5_000_000
HELDOUT_SEEDS_FROM = 9_500_000
RENDER_SIZE = (640, 480)
VARIANTS = ("en", "ru", "erudit", "de", "fr", "es", "pl", "uk")


def grid_style(rng: np.random.Generator) -> Style:
    """A training edition (`random_style`), a share of them with faint, absent or board-coloured
    grid lines, wood grain over the squares, or a printed centre mark: the grid must be found by
    its squares and frame where no line shows it."""
    style = random_style(rng, "train")
    changes: dict[str, object] = {}
    if rng.random() < 0.4:
        changes["line_width"] = float(rng.choice([0.0, rng.uniform(0.0, 0.03)]))
    if rng.random() < 0.2:
        changes["line"] = style.board
    if rng.random() < 0.25:
        changes["square_grain"] = float(rng.uniform(0.04, 0.14))
    if rng.random() < 0.5:
        changes["centre"] = str(rng.choice(["star", "logo", "plain", "dark"]))
    return dataclasses.replace(style, **changes)  # type: ignore[arg-type]


def _target(corners: np.ndarray, size: tuple[int, int], shape: tuple[int, int]) -> np.ndarray:
    """The share of each output pixel inside the grid quadrilateral (`corners` in pixels of a
    photo of `size`), at the net's output `shape` (h, w): drawn 8× finer and averaged, so that
    the mask's edge lies where the grid's does to a fraction of a pixel."""
    h, w = shape
    fine = 8
    scale = np.array([w / size[0], h / size[1]]) * fine
    canvas = np.zeros((h * fine, w * fine), np.uint8)
    points = np.rint((corners + 0.5) * scale - 0.5).astype(np.int32)
    cv2.fillPoly(canvas, [points], 255)
    return cv2.resize(canvas, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255


def _photo(seed: int, heldout: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One rendered photo as the net sees it (uint8 HWC), its target and its grid corners (in
    the net input's pixels)."""
    rng = np.random.default_rng(seed)
    variant = load_variant(VARIANTS[seed % len(VARIANTS)])
    style = heldout_edition(rng, EDITION_KINDS[seed % 3]) if heldout else grid_style(rng)
    rows = bag_rows(rng, variant, int(rng.integers(0, 90)))
    image, corners, _ = render_board_photo(rows, variant, style, seed, RENDER_SIZE)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(70, 95))])
    assert ok
    image = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    small = network_input(image)
    h, w = small.shape[:2]
    target = _target(corners, RENDER_SIZE, (h // OUTPUT_STRIDE, w // OUTPUT_STRIDE))
    seen = (corners + 0.5) * np.array([w / RENDER_SIZE[0], h / RENDER_SIZE[1]]) - 0.5
    return small, target, seen.astype(np.float32)


def render_set(first: int, count: int, heldout: bool, workers: int = 2):
    """`count` photos from seed `first` on: stacked inputs, targets and corners."""
    seeds = range(first, first + count)
    with ProcessPoolExecutor(workers) as pool:
        photos = list(pool.map(_photo, seeds, [heldout] * count, chunksize=16))
    return tuple(np.stack(part) for part in zip(*photos, strict=True))


def _block(cin: int, cout: int, stride: int = 1, dilation: int = 1) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, stride, padding=dilation, dilation=dilation, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class GridAreaNet(nn.Module):
    """A small U-Net: stride 2 to 16 and back to 2 (`OUTPUT_STRIDE`), dilated convolutions at
    the coarsest scale so that a pixel sees the whole board around it; one logit per output
    pixel, inside the grid or not. Input: BGR uint8 values as float, normalised here."""

    def __init__(self, width: int = 16) -> None:
        super().__init__()
        w = width
        self.stem = nn.Sequential(_block(3, w, 2), _block(w, w))  # /2
        self.down1 = nn.Sequential(_block(w, 2 * w, 2), _block(2 * w, 2 * w))  # /4
        self.down2 = nn.Sequential(_block(2 * w, 4 * w, 2), _block(4 * w, 4 * w))  # /8
        self.down3 = nn.Sequential(
            _block(4 * w, 4 * w, 2),
            _block(4 * w, 4 * w, dilation=2),
            _block(4 * w, 4 * w, dilation=4),
            _block(4 * w, 4 * w, dilation=8),
        )  # /16
        self.up2 = _block(8 * w, 4 * w)
        self.up1 = _block(6 * w, 2 * w)
        self.up0 = _block(3 * w, w)
        self.head = nn.Conv2d(w, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x / 127.5 - 1.0
        s0 = self.stem(x)
        s1 = self.down1(s0)
        s2 = self.down2(s1)
        s3 = self.down3(s2)
        up = nn.functional.interpolate(s3, size=s2.shape[2:], mode="bilinear", align_corners=False)
        y = self.up2(torch.cat([up, s2], 1))
        y = nn.functional.interpolate(y, size=s1.shape[2:], mode="bilinear", align_corners=False)
        y = self.up1(torch.cat([y, s1], 1))
        y = nn.functional.interpolate(y, size=s0.shape[2:], mode="bilinear", align_corners=False)
        y = self.up0(torch.cat([y, s0], 1))
        return self.head(y)


def _augmented(
    x: np.ndarray, y: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Flips and light changes: boards lie any way round in a photo, under any light."""
    # x is (height, width, channel), y (height, width).
    if rng.random() < 0.5:
        x, y = x[:, ::-1], y[:, ::-1]
    if rng.random() < 0.5:
        x, y = x[::-1], y[::-1]
    gain = rng.uniform(0.7, 1.3, 3)
    x = np.clip(x * gain + rng.uniform(-25, 25), 0, 255)
    return np.ascontiguousarray(x), np.ascontiguousarray(y)


def train(
    inputs: np.ndarray, targets: np.ndarray, epochs: int, batch: int = 24, seed: int = 0
) -> GridAreaNet:
    """Train the net on (uint8 NHWC inputs, targets NHW) with a fixed seed."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = GridAreaNet()
    steps = epochs * (len(inputs) // batch)
    optimiser = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 3e-3, total_steps=steps)
    loss_of = nn.BCEWithLogitsLoss()
    started = time.time()
    for epoch in range(epochs):
        order = rng.permutation(len(inputs))
        net.train()
        total = 0.0
        for start in range(0, len(order) - batch + 1, batch):
            pairs = [_augmented(inputs[i], targets[i], rng) for i in order[start : start + batch]]
            x = torch.from_numpy(np.stack([p[0] for p in pairs]).transpose(0, 3, 1, 2)).float()
            y = torch.from_numpy(np.stack([p[1] for p in pairs]))[:, None]
            loss = loss_of(net(x), y)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * batch
        print(
            f"epoch {epoch + 1}/{epochs}: loss {total / (len(order) // batch * batch):.4f}, "
            f"{time.time() - started:.0f} s",
            flush=True,
        )
    return net.eval()


def export(net: GridAreaNet, path: Path) -> None:
    """ONNX with dynamic height and width (multiples of 16), input `photo` float32 [1, 3, H, W]
    BGR 0-255, output `logits` [1, 1, H/2, W/2]."""
    import onnx

    dummy = torch.zeros(1, 3, 192, 256)
    torch.onnx.export(
        net,
        dummy,
        str(path),
        input_names=["photo"],
        output_names=["logits"],
        dynamic_axes={"photo": {2: "height", 3: "width"}, "logits": {2: "h", 3: "w"}},
        opset_version=17,
        dynamo=False,
    )
    model = onnx.load(str(path))
    entry = model.metadata_props.add()
    entry.key, entry.value = "input_long_side", json.dumps(INPUT_LONG_SIDE)
    onnx.save(model, str(path))


def corner_errors(
    masks: list[np.ndarray], corners: np.ndarray, shape: tuple[int, int]
) -> tuple[list[float], list[float]]:
    """Per photo, the overlap (IoU) of the mask with the true grid and the largest corner error
    of the best quadrilateral outlined from it, in cells (inf where none is outlined)."""
    from vision.locate import _quad_from_sides

    ious, errors = [], []
    for mask, true in zip(masks, corners, strict=True):
        want = _target(true, (shape[1], shape[0]), mask.shape) > 0.5
        got = mask > 0
        ious.append(float((want & got).sum() / max(1, (want | got).sum())))
        scale = mask.shape[1] / shape[1]
        cell = float(np.linalg.norm(true[1] - true[0])) / GRID
        contours, _ = cv2.findContours(
            got.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
        )
        best = np.inf
        for contour in contours:
            quad = _quad_from_sides(contour)
            if quad is None:
                continue
            quad = (quad + 0.5) / scale - 0.5
            error = min(
                float(np.linalg.norm(np.roll(quad, s, axis=0) - true, axis=1).max())
                for s in range(4)
            )
            best = min(best, error / cell)
        errors.append(best)
    return ious, errors


def measure(path: Path, inputs: np.ndarray, corners: np.ndarray) -> dict[str, float]:
    """Median IoU, and the share of photos whose outlined quadrilateral is within a half and a
    whole cell of the true grid, for the model at `path`."""
    masks = [grid_mask(image, path) for image in inputs]
    ious, errors = corner_errors(masks, corners, inputs.shape[1:3])
    errors_arr = np.array(errors)
    return {
        "photos": len(inputs),
        "median IoU": float(np.median(ious)),
        "within 0.5 cell": float(np.mean(errors_arr <= 0.5)),
        "within 1 cell": float(np.mean(errors_arr <= 1.0)),
        "median corner error (cells)": float(np.median(errors_arr)),
    }


def real_agreement(shared: Path) -> dict[str, float] | None:
    """On the real photos in `shared`, how far the quadrilateral outlined from the net's mask
    lies from the grid `vision.locate` finds there (their truth gives no corners): the share
    within half a cell, and the median distance in cells."""
    from training.dataset import real_board_photos
    from vision.decode import decode_photo
    from vision.locate import _working_image
    from vision.pipeline import locate_photo

    photos = real_board_photos(shared)
    if not photos:
        return None
    errors = []
    for _, path, variant, _ in photos:
        photo = decode_photo(path.read_bytes())
        location, _ = locate_photo(photo.image, load_variant(variant))
        work, factor = _working_image(photo.image)
        small = network_input(work)
        to_small = np.array([small.shape[1] / work.shape[1], small.shape[0] / work.shape[0]])
        located = ((location.corners + 0.5) / factor) * to_small - 0.5
        mask = grid_mask(small, None)
        _, error = corner_errors([mask], located[None], small.shape[:2])
        errors.append(error[0])
    values = np.array(errors)
    return {
        "photos": len(values),
        "within 0.5 cell": float(np.mean(values <= 0.5)),
        "median corner distance (cells)": float(np.median(values)),
    }


def write_card(path: Path, figures: dict, real: dict | None, photos: int, epochs: int) -> None:
    """The model card: what the net reads and marks, how it was trained, what it measures."""
    size_kib = (path.parent / MODEL_FILE).stat().st_size / 1024
    held = figures
    lines = [
        "# Grid-area net (`grid_area.onnx`)",
        "",
        "Marks the pixels of a photo that lie inside the board's playing grid (the cell area, not",
        "the frame, not the table). `vision.locate` outlines its mask as one more candidate",
        "quadrilateral where the grid is sought by its premium squares (`vision.grid_area`);",
        "the grid is then fitted and checked from it as from the other masks' outlines.",
        "",
        "- **Input**: `photo`, float32 `[1, 3, H, W]`, BGR 0-255 (normalised inside the graph),",
        f"  the locator's working image shrunk to {INPUT_LONG_SIDE} px on its long side, each",
        "  side a multiple of 16 (`vision.grid_area.network_input`).",
        f"- **Output**: `logits`, `[1, 1, H/{OUTPUT_STRIDE}, W/{OUTPUT_STRIDE}]`: one logit per",
        "  pixel, inside the grid (> 0) or not. Resized to the working image before the",
        "  threshold, so the mask's edge falls between the net's pixels.",
        f"- **Size**: {size_kib:.0f} KiB; `GridAreaNet(width=16)` in `training/grid_area.py`, a",
        "  U-Net of 13 convolutions, dilated at 1/16 scale so a pixel sees the board around it.",
        "",
        "## Training data",
        "",
        f"{photos} photos rendered by `training.render.render_board_photo` at 640×480 from seeds",
        f"{TRAIN_SEEDS_FROM} on (variants {', '.join(VARIANTS)}, 0-90 tiles from the bag), JPEG",
        "quality 70-95, of the training editions of `random_style` (`grid_style`): two in five",
        "with the grid lines faint or absent, one in five with lines of the board's colour, one",
        "in four with wood grain over the squares, half with a centre star, logo, plain or dark",
        "square. Never the held-out family (`heldout_edition`: its palettes, textures, typefaces",
        "and tile shapes), nor a real photo. Target: the share of each output pixel inside the",
        "true grid quadrilateral (drawn 8× finer). Flips and colour gains as augmentation; BCE",
        f"loss, AdamW, one-cycle learning rate 3e-3, {epochs} epochs, batch 24, seed 0, on the CPU.",
        "",
        "## Measured",
        "",
        f"- Held-out edition family (`heldout_edition`, {held['photos']} photos from seed",
        f"  {HELDOUT_SEEDS_FROM}, German, wood-print and any-hue kinds): median IoU",
        f"  {held['median IoU']:.3f}; the quadrilateral outlined from the mask",
        "  (`vision.locate._quad_from_sides`, at the net's output size: the locator outlines it",
        "  resized to its working image, finer) within half a cell of the true grid on",
        f"  {100 * held['within 0.5 cell']:.1f} % of photos, within a cell on",
        f"  {100 * held['within 1 cell']:.1f} %, median corner error",
        f"  {held['median corner error (cells)']:.2f} of a cell.",
    ]
    if real is not None:
        lines += [
            f"- Real photos in ../shared ({real['photos']}: black Эрудит boards, red English",
            "  boards; no true corners): the outlined quadrilateral within half a cell of the",
            f"  grid `vision.locate` finds on {100 * real['within 0.5 cell']:.1f} % of them,",
            f"  median distance {real['median corner distance (cells)']:.2f} of a cell.",
        ]
    lines += [
        "- As the locator uses it: `benchmarks/bench_editions.py --grid-only` and",
        "  `benchmarks/bench_locate.py` (figures in `vision/locate.py`).",
        "",
    ]
    (path.parent / "grid_area.md").write_text("\n".join(lines), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("models"))
    parser.add_argument("--photos", type=int, default=4000)
    parser.add_argument("--heldout", type=int, default=300)
    parser.add_argument("--epochs", type=int, default=16)
    parser.add_argument(
        "--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared"
    )
    parser.add_argument("--cache", type=Path, help="keep the rendered photos in this .npz")
    parser.add_argument("--card-only", action="store_true", help="measure the model in --out")
    args = parser.parse_args()
    torch.set_num_threads(2)
    started = time.time()
    if args.cache and args.cache.is_file():
        data = np.load(args.cache)
        inputs, targets, heldout, heldout_corners = (
            data[k] for k in ("inputs", "targets", "heldout", "heldout_corners")
        )
    else:
        inputs, targets, _ = render_set(TRAIN_SEEDS_FROM, args.photos, heldout=False)
        heldout, _, heldout_corners = render_set(HELDOUT_SEEDS_FROM, args.heldout, heldout=True)
        if args.cache:
            np.savez(
                args.cache,
                inputs=inputs,
                targets=targets,
                heldout=heldout,
                heldout_corners=heldout_corners,
            )
    print(f"rendered in {time.time() - started:.0f} s: {inputs.shape}", flush=True)
    path = args.out / MODEL_FILE
    if not args.card_only:
        export(train(inputs, targets, args.epochs), path)
    figures = measure(path, heldout, heldout_corners)
    real = real_agreement(args.shared) if args.shared.is_dir() else None
    print(json.dumps({"heldout": figures, "real": real}, indent=1))
    write_card(path, figures, real, len(inputs), args.epochs)


if __name__ == "__main__":
    main()
