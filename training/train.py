"""Train the cell classifier on rendered crops, export it to ONNX and write its model card.

`python -m training.train --out models/` regenerates the data from fixed seeds, trains with a
fixed seed on the CPU, measures held-out renderer configurations and the real Эрудит tile crops
(when ../shared is present), and writes models/cells.onnx and models/MODEL.md. The shipped
second-opinion model is the same training run for longer:
`python -m training.train --out models/ --epochs 12 --model-file cells_second.onnx` writes
models/cells_second.onnx and models/cells_second.md. The shipped pair was then fine-tuned to new
classes (`--init`, `--focus-boards`, `--distill`): each card gives its commands.
`--focus-letters` fine-tunes a model to read letters it already has better (the focus boards
stress them). The pipeline reads the int8 copies that `python -m training.quantize` then makes of
both float models.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from torch import nn

from scorer.variant import load_variant
from training.dataset import (
    Crops,
    PhotoResult,
    base_letter,
    build,
    read_real_photos,
    real_english_boards,
    real_tile_crops,
)
from training.fonts import families
from training.quantize import FLOAT_MODELS
from training.render import HELDOUT_TILE_PALETTES
from vision.classify import (
    BLANK,
    CELL_PX,
    CROP_PX,
    EMPTY,
    MARGIN_PX,
    MODEL_FILE,
    REFINE_BELOW,
    REFINE_VIEWS,
    SECOND_BELOW,
    SECOND_MODEL_FILE,
    UNORIENTED,
    VISUAL_CLASSES,
    CellClassifier,
    joint_probabilities,
    read_cells,
    visual_class,
)
from vision.pipeline import SURELY_EMPTY

TRAIN_SEEDS_FROM = 1_000_000
HELDOUT_SEEDS_FROM = 9_000_000
FOCUS_SEEDS_FROM = 3_000_000
# Written into the model card; kept by hand from what the measurements and the photos show.
KNOWN_WEAKNESSES = """\
- Эрудит look-alikes (И/Й, Ъ/Ь, Ш/Щ, Г/Т) are settled in the real photos only by reading unsure
  cells again from shifted views (`vision.classify.REFINE_VIEWS`); without that two of the eight
  alphabet photos keep one slip each.
- Plain wooden blank tiles are the hardest English tiles: two of the five in the real photos read
  as empty squares. Learning faint blanks made some pale premium squares of unseen board styles
  (the held-out white board with mint tiles) read as blank tiles: 23 and 29 of 186 empty squares on
  the two test boards in tests/test_classify.py. In a game such scattered "tiles" make no legal
  play, so the turn goes to review rather than being recorded.
- Alone, the model takes empty squares of editions it never saw for tiles: on the held-out edition
  family (`benchmarks/bench_editions.py`: green boards with saturated premiums, wood-print
  squares, any hue; 30 photos) it read 468 empty squares as tiles, wood-print squares above all
  (73 % of those boards' cells right). The pipeline weighs tile or empty against the photo's own
  empty squares and tiles (`vision.calibrate`): 99.53 % and 99.76 % of cells right on two sets of
  45 photos (`--first 7100000`, `--first 7300000`; tiles 99.52 % and 99.27 %), 99.41 % on 32 German,
  French, Spanish and Polish photos (`--variants de,fr,es,pl`; tiles 99.39 %).
- Thin regular-weight letters in small photos (a 2 MP photo with the board filling half of it) slip
  between look-alikes (O/Q, I/T, E/F, N/W): `benchmarks/bench_replay.py` sends those turns to
  review. In one of its photos the short tail of the renderer's Liberation Sans Q and its small 10
  are lost in the blur and the tile shows a plain O: `cells.onnx` alone read it O 0.951 / Q 0.029
  and the move was recorded wrongly; with the second model's opinion it reads O 0.945 / Q 0.036
  and the turn asks.
- Squares at the very edge of a photo cropped tight to the board are read from replicated edge
  pixels: in `cropped_1.jpg` the middle square of the right edge reads З 0.63 / empty 0.27 with
  the pair (`cells.onnx` alone: empty 0.58 / З 0.28).
- A star variant (Эрудит) never reads a plain blank: `read_cells` lets only the star compete there,
  which keeps the Эрудит premium squares (some of the tiles' own blue) from reading as blanks, but
  a set with unmarked blanks would read them as empty squares or stars.
- Calibrated on one Эрудит board and two English editions (three English photos); other editions
  rely on the random styles. End-to-end figures also move with `vision.locate`'s grid.\
"""


class CellNet(nn.Module):
    """A small CNN: BGR crop (0–255) → logits of (text rotation k, visual class), 4·V outputs.

    `norm=False` builds it with each batch norm folded into its convolution's bias, the form the
    ONNX export has, so an exported model can be read back and fine-tuned (`from_onnx`)."""

    def __init__(self, classes: int, width: int = 32, norm: bool = True) -> None:
        super().__init__()

        def block(cin: int, cout: int, stride: int = 1) -> list[nn.Module]:
            conv = nn.Conv2d(cin, cout, 3, stride, 1, bias=not norm)
            return [conv, nn.BatchNorm2d(cout), nn.ReLU()] if norm else [conv, nn.ReLU()]

        w = width
        self.features = nn.Sequential(
            *block(3, w // 2, 2),  # 20×20
            *block(w // 2, w),
            nn.MaxPool2d(2),  # 10×10
            *block(w, 2 * w),
            *block(2 * w, 2 * w),
            nn.MaxPool2d(2),  # 5×5
            *block(2 * w, 4 * w),
            *block(4 * w, 4 * w),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Dropout(0.2),
        )
        self.head = nn.Linear(4 * w, 4 * classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features((x - 128.0) / 64.0))


def _look_alike(label: str, known: list[str]) -> str | None:
    """The class a new class starts from: its base letter (Ä→A, Ñ→N, CH→C), if the old model had it."""
    base = base_letter(label)
    return base if base in known and base != label else None


def trained_classes(path: Path) -> list[str]:
    """The classes an exported model was trained for (its `classes` metadata)."""
    import onnx

    proto = onnx.load(str(path), load_external_data=False)
    return json.loads({p.key: p.value for p in proto.metadata_props}["classes"])


def from_onnx(path: Path) -> tuple[CellNet, list[str]]:
    """An exported model's weights in a `CellNet(norm=False)` whose head has today's classes, and
    the classes the file was trained for. A class the file lacks starts as its look-alike's rows
    (`_look_alike`: Ä as A, in all four text directions), so fine-tuning begins from the old
    model's reading and only has to learn what tells the two apart."""
    import onnx
    from onnx import numpy_helper

    proto = onnx.load(str(path))
    weights = {i.name: numpy_helper.to_array(i) for i in proto.graph.initializer}
    known = trained_classes(path)
    convs = [n for n in proto.graph.node if n.op_type == "Conv"]
    width = int(weights[convs[1].input[1]].shape[0])
    model = CellNet(len(VISUAL_CLASSES), width, norm=False)
    layers = [m for m in model.features if isinstance(m, nn.Conv2d)]
    with torch.no_grad():
        for layer, node in zip(layers, convs, strict=True):
            layer.weight.copy_(torch.from_numpy(weights[node.input[1]].copy()))
            layer.bias.copy_(torch.from_numpy(weights[node.input[2]]))
        old_w = torch.from_numpy(weights["head.weight"]).view(4, len(known), -1)
        old_b = torch.from_numpy(weights["head.bias"]).view(4, len(known))
        new_w = model.head.weight.view(4, len(VISUAL_CLASSES), -1)
        new_b = model.head.bias.view(4, len(VISUAL_CLASSES))
        for index, label in enumerate(VISUAL_CLASSES):
            source = label if label in known else _look_alike(label, known)
            if source is not None:
                new_w[:, index] = old_w[:, known.index(source)]
                new_b[:, index] = old_b[:, known.index(source)]
    return model, known


def joint_loss(
    logits: torch.Tensor,
    labels: torch.Tensor,
    turns: torch.Tensor,
    oriented: torch.Tensor,
    smoothing: float = 0.0,
) -> torch.Tensor:
    """Cross-entropy of the joint (rotation, class) softmax; text-less classes may take any
    rotation, so their target is the class summed over the four rotations. Label smoothing
    spreads `smoothing` of the target uniformly over all outputs, so real photos unlike the
    renderer's meet less over-confident scores."""
    flat = torch.log_softmax(logits, dim=1)
    logp = flat.view(len(labels), 4, -1)
    index = torch.arange(len(labels))
    exact = logp[index, turns, labels]
    any_turn = torch.logsumexp(logp[index, :, labels], dim=1)
    nll = -torch.where(oriented, exact, any_turn)
    return ((1 - smoothing) * nll - smoothing * flat.mean(dim=1)).mean()


def distillation_loss(logits: torch.Tensor, teacher: torch.Tensor) -> torch.Tensor:
    """KL divergence from a teacher's class probabilities (rows of zeros: no target) to the
    model's class probabilities (the joint softmax summed over the four rotations, so the
    crop's turn does not matter), averaged over the rows that have a target."""
    has = teacher.sum(dim=1) > 0
    if not has.any():
        return logits.new_zeros(())
    logp = torch.log_softmax(logits[has], dim=1).view(int(has.sum()), 4, -1)
    classes = torch.logsumexp(logp, dim=1)
    target = teacher[has]
    return (target * (torch.log(target.clamp_min(1e-8)) - classes)).sum(dim=1).mean()


def teacher_probs(path: Path, data: Crops) -> np.ndarray:
    """An exported model's class probabilities for each crop, in today's class order (classes it
    lacks get 0); rows of zeros for crops of those classes, which it cannot teach."""
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    known = trained_classes(path)
    columns = np.array([VISUAL_CLASSES.index(label) for label in known])
    probs = np.zeros((len(data.labels), len(VISUAL_CLASSES)), np.float32)
    for start in range(0, len(data.labels), 512):
        crops = data.images[start : start + 512]
        probs[start : start + len(crops), columns] = joint_probabilities(session, crops).sum(axis=1)
    taught = np.isin(data.labels, columns)
    probs[~taught] = 0
    return probs


def untaught(teacher: np.ndarray, labels: np.ndarray, letters: tuple[str, ...]) -> np.ndarray:
    """`teacher` (`teacher_probs`) with no target on the crops of `letters` (labels: visual
    class indices): a model fine-tuned to read them better learns them from their labels alone,
    not from the reading it is to improve on."""
    taught = teacher.copy()
    taught[np.isin(labels, [visual_class(letter) for letter in letters])] = 0
    return taught


def augment(x: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Photometric jitter per crop: brightness, contrast, colour balance, channel order, noise."""
    n = len(x)
    gain = 0.7 + 0.6 * torch.rand(n, 1, 1, 1, generator=gen)
    colour = 0.9 + 0.2 * torch.rand(n, 3, 1, 1, generator=gen)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    contrast = 0.7 + 0.6 * torch.rand(n, 1, 1, 1, generator=gen)
    x = (x - mean) * contrast + mean
    x = x * gain * colour
    swap = torch.rand(n, generator=gen) < 0.15
    if swap.any():
        perm = torch.randperm(3, generator=gen)
        x[swap] = x[swap][:, perm]
    x = x + torch.randn(x.shape, generator=gen) * 4 * torch.rand(n, 1, 1, 1, generator=gen)
    return x.clamp(0, 255)


def rotate_batch(x: torch.Tensor, turns: torch.Tensor) -> torch.Tensor:
    """Turn each crop (N, C, H, W) by its own number of quarter-turns counter-clockwise."""
    out = x.clone()
    for k in range(1, 4):
        pick = turns == k
        if pick.any():
            out[pick] = torch.rot90(x[pick], k, dims=(2, 3))
    return out


def train(
    data: Crops,
    epochs: int,
    seed: int,
    width: int,
    log: Callable[[str], None],
    smoothing: float = 0.05,
    init: CellNet | None = None,
    lr: float = 3e-3,
    teacher: np.ndarray | None = None,
    distill: float = 1.0,
) -> CellNet:
    """Fit a CellNet (a new one, or `init` to fine-tune); crops are turned by random quarter-turns
    each epoch (label = turns). With `teacher` (`teacher_probs` of the model fine-tuned from),
    `distill` times `distillation_loss` is added, so that learning new classes does not change
    how the old ones are read."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    model = init if init is not None else CellNet(len(VISUAL_CLASSES), width)
    images = torch.from_numpy(data.images).permute(0, 3, 1, 2).contiguous()
    labels = torch.from_numpy(data.labels).long()
    unoriented = torch.tensor([VISUAL_CLASSES[i] in UNORIENTED for i in range(len(VISUAL_CLASSES))])
    oriented = ~unoriented[labels]
    batch = 256
    steps = epochs * (len(labels) // batch)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, lr, total_steps=steps)
    targets = None if teacher is None else torch.from_numpy(teacher)
    step = 0
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(labels), generator=gen)
        total, start = 0.0, time.time()
        for i in range(len(labels) // batch):
            idx = order[i * batch : (i + 1) * batch]
            turns = torch.randint(0, 4, (len(idx),), generator=gen)
            x = rotate_batch(augment(images[idx].float(), gen), turns)
            logits = model(x)
            loss = joint_loss(logits, labels[idx], turns, oriented[idx], smoothing)
            if targets is not None:
                loss = loss + distill * distillation_loss(logits, targets[idx])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            step += 1
            total += loss.item()
        log(
            f"epoch {epoch + 1}/{epochs}: loss {total / (len(labels) // batch):.4f} "
            f"({time.time() - start:.0f} s)"
        )
    return model.eval()


def export(model: CellNet, path: Path) -> None:
    """Write the model as ONNX (float32 NCHW BGR 0–255 input, dynamic batch) with its classes,
    and the features its head reads as a second output (`training.features`)."""
    import onnx

    from training.features import expose_features

    dummy = torch.zeros(1, 3, CROP_PX, CROP_PX)
    torch.onnx.export(
        model,
        (dummy,),
        str(path),
        input_names=["crops"],
        output_names=["logits"],
        dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    proto = expose_features(onnx.load(str(path)))
    entry = proto.metadata_props.add()
    entry.key, entry.value = "classes", json.dumps(list(VISUAL_CLASSES), ensure_ascii=False)
    onnx.save(proto, str(path))


def evaluate_crops(clf: CellClassifier, data: Crops, variant_name: str | None = None) -> dict:
    """Accuracy of the top visual class on upright crops, and of the text direction on tiles
    (each crop also tried at the three other quarter-turns)."""
    preds = clf.predict_crops(data.images, 1, len(data.labels))
    top = preds.probs.argmax(axis=1)
    result = {"n": len(data.labels), "class_acc": float((top == data.labels).mean())}
    if variant_name:
        variant = load_variant(variant_name)
        reading = read_cells(preds, variant)[0]
        names = [VISUAL_CLASSES[i] for i in data.labels]
        result["masked_acc"] = float(
            np.mean(
                [
                    visual_class(cell.label) == visual_class(name)
                    for cell, name in zip(reading, names, strict=True)
                ]
            )
        )
    tiles = np.array([VISUAL_CLASSES[i] not in UNORIENTED for i in data.labels])
    if tiles.any():
        correct = 0
        for k in range(4):
            turned = np.ascontiguousarray(np.rot90(data.images[tiles], k, axes=(1, 2)))
            orient = clf.predict_crops(turned, 1, len(turned)).orientation.argmax(axis=1)
            correct += int((orient == k).sum())
        result["orient_acc"] = correct / (4 * int(tiles.sum()))
    return result


def evaluate_letters(clf: CellClassifier, data: Crops, letters: tuple[str, ...]) -> dict:
    """Per letter of `letters` and of their base letters: crops of it and the share whose top
    class is it (upright crops)."""
    top = clf.predict_crops(data.images, 1, len(data.labels)).probs.argmax(axis=1)
    result = {}
    for letter in sorted(set(letters) | {base_letter(letter) for letter in letters}):
        mine = data.labels == visual_class(letter)
        result[letter] = {
            "n": int(mine.sum()),
            "acc": float((top[mine] == visual_class(letter)).mean()),
        }
    return result


def evaluate_english(clf: CellClassifier) -> dict[str, float]:
    """Cell accuracy (with the `en` mask) on each real English board, rectified with its true
    corners; a blank tile standing for a letter counts as read when read as a blank."""
    result = {}
    for name, grid, rows, variant_name in real_english_boards():
        reading = read_cells(clf.predict(grid), load_variant(variant_name))
        labels = [cell.label for line in reading for cell in line]
        truth = [
            EMPTY if ch == "." else BLANK if ch == "?" or ch.islower() else ch
            for line in rows
            for ch in line
        ]
        result[name] = float(np.mean([a == b for a, b in zip(labels, truth, strict=True)]))
    return result


def photos_section(photos: list[PhotoResult]) -> str:
    """Model-card lines for the real photos read end to end: per group, then per photo."""
    if not photos:
        return "  - ../shared absent; not measured."
    titles = {
        "erudit_alphabet": "Эрудит alphabet layouts (33 tiles)",
        "erudit_game": "Эрудит game position (CV_test*, 28 tiles, transcribed by eye)",
        "erudit_empty": "Эрудит empty boards",
        "english": "English boards",
    }
    lines = []
    for group, title in titles.items():
        mine = [p for p in photos if p.group == group]
        if not mine:
            continue
        right = sum(p.right for p in mine)
        exact = sum(p.right == 225 for p in mine)
        each = ", ".join(f"{p.name} {p.error or p.right}" for p in mine)
        lines.append(
            f"  - {title}: {right}/{225 * len(mine)} cells ({right / (225 * len(mine)):.1%}), "
            f"{exact}/{len(mine)} photos exact: {each}."
        )
    return "\n".join(lines)


# The float models this script writes, first and second opinion; the pipeline reads their int8
# copies (`MODEL_FILE`, `SECOND_MODEL_FILE`) that `training.quantize` makes of them.
FIRST_FLOAT, SECOND_FLOAT = FLOAT_MODELS


def card_name(model_file: str) -> str:
    """The model card's file name for a float model file: MODEL.md for the first model, else
    its stem (cells_second.md)."""
    return "MODEL.md" if model_file == FIRST_FLOAT else f"{Path(model_file).stem}.md"


def model_card(
    out: Path,
    figures: dict,
    args: argparse.Namespace,
    size: int,
    minutes: float,
    photos: list[PhotoResult],
    paired: bool,
) -> str:
    classes = ", ".join(VISUAL_CLASSES)
    held = figures["heldout"]
    new_line = ""
    if "new_letters" in figures:
        new_line = (
            f"- The letters the focus boards stress and their look-alikes, on held-out boards whose tiles are a third "
            f"those letters ({args.eval_boards} boards of the held-out configuration), top class: "
            + ", ".join(
                f"{k} {v['acc']:.1%} of {v['n']}" for k, v in figures["new_letters"].items()
            )
            + ".\n"
        )
    seen = figures["train_styles"]
    real = figures.get("real")
    english = figures.get("english") or {}
    english_line = (
        "- Real English boards (../shared/realphotos/english/boards, grid rectified with the true "
        "corners from truth.json, `en` mask): "
        + ", ".join(f"{name} {acc:.1%}" for name, acc in english.items())
        + " of 225 cells."
        if english
        else "- Real English boards: ../shared absent; not measured."
    )
    real_line = (
        f"- Real Эрудит tile crops (../shared/realphotos/erudit/tile_crops, {real['n']} crops of "
        f"empty, premium, star and letter cells; never trained on): top class "
        f"{real['class_acc']:.1%}, with the `erudit` mask {real['masked_acc']:.1%}, text direction "
        f"{real['orient_acc']:.1%}."
        if real
        else "- Real tile crops: ../shared absent when this card was written; not measured."
    )
    pair = (
        f"The pipeline reads every cell with `{MODEL_FILE}` (the int8 copy of `{FIRST_FLOAT}`, made by\n"
        f"`training.quantize`); cells whose top class scores below {SECOND_BELOW:.0%} are read by\n"
        f"`{SECOND_MODEL_FILE}` too (the same training for longer, described in\n"
        f"`{card_name(SECOND_FLOAT)}`), and the two models' probabilities are averaged; squares the\n"
        f"board-relative reading already calls empty at {SURELY_EMPTY:.0%} (`vision.pipeline.SURELY_EMPTY`) are not."
        " Plain squares whose look alone shows them vacant\n(`vision.plain_vacant`) are not read"
        " at all, but for the few least like the others."
    )
    command = (
        f"python -m training.train --out models/ --epochs {args.epochs} --boards {args.boards} "
        f"--first-seed {args.first_seed} --lr {args.lr} --seed {args.seed} "
        f"--model-file {args.model_file}"
    )
    if args.init and args.focus_boards:
        command += f" --focus-boards {args.focus_boards} --focus-seed {args.focus_seed}"
        if args.focus_letters:
            command += f" --focus-letters {args.focus_letters}"
    if args.threads != 1:
        command += f" --threads {args.threads}"
    if args.init and args.distill:
        command += f" --distill {args.distill}"
    if args.init:
        reproduce = f"git show {args.init_commit}:models/{args.model_file} > base.onnx\n{command} --init base.onnx"
    else:
        reproduce = command
    origin = (
        f"\nThe weights start from `{args.model_file}` of commit {args.init_commit} "
        f"({len(args.init_classes)} classes"
    )
    if args.init and args.focus_letters:
        start = (
            f"{origin}; its own card there says how it was trained), each "
            f"batch norm folded into its convolution. It is fine-tuned here on the boards below "
            f"and {args.focus_boards} focus boards (seeds from {args.focus_seed}) a third of whose "
            f"tiles are the letters it read worst ({args.focus_letters.replace(',', ', ')}) and a "
            f"third their look-alikes; its own class probabilities are targets on every other "
            f"crop (`--distill`), so that what it read right stays so.\n"
        )
    elif args.init:
        start = (
            f"{origin}, trained from random weights by this script as its "
            f"own card there says), each batch norm folded into its convolution; the classes it "
            f"lacked ({', '.join(c for c in VISUAL_CLASSES if c not in args.init_classes)}) start as "
            f"their look-alikes (Ä as A, CH as C) and are learned here from the boards below.\n"
        )
    else:
        start = ""
    return f"""# Cell classifier (`{args.model_file}`)

One model for every variant: it reads one board cell of a rectified grid image.
{pair}

- **Input**: `crops`, float32 `[N, 3, {CROP_PX}, {CROP_PX}]`, BGR, 0–255 (normalised inside the
  graph). A crop is a {CELL_PX}×{CELL_PX} px cell plus {MARGIN_PX} px of its neighbours on each side,
  cut from the rectified grid image (15·{CELL_PX} px square) by `vision.classify.cut_cells`.
- **Output**: `logits`, `[N, 4·{len(VISUAL_CLASSES)}]`: one softmax over (k, class), k the number of
  quarter-turns counter-clockwise of the tile text in the crop. Summing over k gives the class,
  summing over classes the text direction; `vision.orient` votes the board's rotation from it.
  And `features`, `[N, {4 * args.width}]`: the pooled features the head reads (`training.features`);
  `vision.exemplars` compares a doubtful cell's with the known tiles' of the same photo.
- **Classes** ({len(VISUAL_CLASSES)}, visual): {classes}. Latin/Cyrillic look-alikes share one class
  named by the Latin letter (А→A, В→B, Е→E, К→K, М→M, Н→H, О→O, Р→P, С→C, Т→T, Х→X, Ukrainian
  І→I): their glyphs are the same on tiles, and no variant holds both, so `vision.classify.read_cells`
  maps each class back to the chosen variant's letter. Y and У stay apart.
- **Size**: {size / 1024:.0f} KiB; `CellNet(width={args.width})` in `training/train.py`, 7 conv layers.

## Training data
{start}
Only synthetic photos from `training/render.py` ({args.boards} boards, seeds from
{args.first_seed}): random editions (English, Russian, Ukrainian, Эрудит, Polish, German, Spanish and
French layouts, values and alphabets; plain blanks or star tiles, a tenth of all tiles). About a third of the boards are
the three calibrated editions (`erudit_style`: black board, sky-to-royal blue tiles with the value
printed right after the letter, word ×2 squares of nearly the tiles' blue, labels in a deep shade
of each square, white centre; `scrabble_style`: red frame, beige squares between white lines,
printed premium words, wooden tiles nearly a square wide with a regular-weight letter and its small
value low at its right; `deluxe_style`: cream squares between dark ribs, muted premium squares,
pale grey wooden tiles) with colours, fonts (heavy ones for Эрудит, any weight for English), sizes
and placement varied, wood sometimes nearly the board's colour and tile edges lit from faint to
strong (so plain blank tiles must be told from empty squares by grain, edges and hidden grid
lines); the rest are random board/premium/tile palettes (some with
premium squares the colour of the tiles), values in the corner or beside the letter, printed
premium labels (English words, 2W/DW, ×2, СЛОВО ×2) in dark, light or deep-shade ink, wooden
grain, raised tiles with shadows, camera tilt up to 40°, clutter, uneven light, glare, blur, noise,
JPEG. Each photo is rectified with corners jittered by ~5 % of a cell and cut with `cut_cells`; all
tiles, every empty premium square and 30 % of the plain empty squares are kept. Crops are turned by
random quarter-turns (the rotation label) and photometrically jittered; the loss uses label
smoothing {args.smoothing}. Real photos in ../shared are used only to calibrate the renderer by eye
and to measure below.

Held out of training: the font family {", ".join(families("heldout"))} and the tile palette
{", ".join(HELDOUT_TILE_PALETTES)} (`random_style(rng, "heldout")`).

## Measured accuracy

- Held-out renderer configuration ({held["n"]} crops from {args.eval_boards} boards; unseen fonts,
  tile palette and seeds): top class {held["class_acc"]:.1%}, text direction {held["orient_acc"]:.1%}.
- Training styles, unseen seeds ({seen["n"]} crops): top class {seen["class_acc"]:.1%}, text direction
  {seen["orient_acc"]:.1%}.
{new_line}{real_line}
{english_line}
- Real photos read end to end by {"the pair of models" if paired else "this model alone"} (`vision.pipeline.read_board`: the grid found
  by `vision.locate`, no true corners; cells under {REFINE_BELOW:.0%} read again from {len(REFINE_VIEWS)} shifted and
  rescaled crops; plain squares get back the odds of being empty that training took from them),
  cells right of 225 per photo; a blank or star tile counts as `?`:
{photos_section(photos)}

Accuracies are per crop on upright crops; direction accuracy tries every tile at all four turns.
Renderer crops are cut with corners jittered by ~5 % of a cell and a cell size off by up to 15 %,
harder than a well-located grid; `benchmarks/bench_classify.py` reads whole rendered boards.

## Known weaknesses

{KNOWN_WEAKNESSES}

## Reproduce

```
pip install -e '.[dev,train]'            # torch==2.13.0, pillow, onnx
apt-get install $(python -m training.fonts)   # the font packages the renderer draws with
{reproduce}
```
{minutes:.0f} min on a shared 2-core CPU. Other options: `--width {args.width}
--seed {args.seed} --smoothing {args.smoothing}`. `python benchmarks/bench_classify.py` measures the shipped model again
(`--only real` for the real photos end to end, with the commonest confusions).
"""


def new_classes(known: list[str]) -> tuple[str, ...]:
    """The letter classes of today's model that a model trained for `known` lacks."""
    return tuple(c for c in VISUAL_CLASSES if c not in known and c not in UNORIENTED)


def focus_letters(args: argparse.Namespace) -> tuple[str, ...]:
    """The letters the focus boards stress (`--focus-letters`; by default the classes the init
    model lacks)."""
    if args.focus_letters:
        return tuple(args.focus_letters.split(","))
    return new_classes(args.init_classes)


def focus_crops(args: argparse.Namespace) -> Crops:
    """The focus boards' crops (`--focus-boards`), kept beside `--crops-cache` when it is given."""
    cache = args.crops_cache and args.crops_cache.with_name(args.crops_cache.stem + "-focus.npz")
    if cache and cache.exists():
        with np.load(cache) as cached:
            return Crops(cached["images"], cached["labels"])
    seeds = range(args.focus_seed, args.focus_seed + args.focus_boards)
    data = build(seeds, "train", args.workers, focus_letters(args))
    if cache:
        np.savez(cache, images=data.images, labels=data.labels)
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("models"))
    parser.add_argument("--boards", type=int, default=560)
    parser.add_argument("--eval-boards", type=int, default=24)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--width", type=int, default=32)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--smoothing", type=float, default=0.05)
    parser.add_argument("--lr", type=float, default=3e-3, help="peak learning rate")
    parser.add_argument(
        "--first-seed", type=int, default=TRAIN_SEEDS_FROM, help="seed of the first training board"
    )
    parser.add_argument(
        "--crops-cache",
        type=Path,
        help="keep the built training crops in this .npz and reuse them when it exists "
        "(two models trained on one set of boards render it once)",
    )
    parser.add_argument(
        "--init",
        type=Path,
        help="fine-tune this exported model (ONNX) instead of starting from random weights; "
        "classes it lacks start as their look-alikes",
    )
    parser.add_argument(
        "--focus-boards",
        type=int,
        default=0,
        help="with --init: this many more boards, a third of whose tiles are the classes the "
        "init model lacks and a third their look-alikes (training.dataset.board_crops' focus)",
    )
    parser.add_argument(
        "--distill",
        type=float,
        default=0.0,
        help="with --init: weight of the init model's class probabilities as targets on the "
        "crops of its own classes (keeps what it read right while new classes are learned)",
    )
    parser.add_argument(
        "--focus-seed", type=int, default=FOCUS_SEEDS_FROM, help="seed of the first focus board"
    )
    parser.add_argument(
        "--focus-letters",
        default="",
        help="with --focus-boards: the letters (comma-separated) their tiles stress, instead of "
        "the classes the init model lacks; with --distill the init model does not teach them, "
        "since it reads them worst",
    )
    parser.add_argument(
        "--init-commit",
        default="",
        help="the commit whose models/ holds the --init file (by the --model-file name), for the card",
    )
    parser.add_argument("--workers", type=int, default=2, help="processes rendering boards")
    parser.add_argument(
        "--threads",
        type=int,
        default=1,
        help="torch threads; one is steadiest on a shared 2-core machine and gives the same sums",
    )
    parser.add_argument(
        "--evaluate-only",
        action="store_true",
        help="measure the existing OUT/--model-file and rewrite its card (give the training options)",
    )
    parser.add_argument(
        "--minutes", type=float, default=0.0, help="training time, with --evaluate-only"
    )
    parser.add_argument(
        "--model-file",
        default=FIRST_FLOAT,
        choices=FLOAT_MODELS,
        help="the float model file to write in OUT, with its card (see card_name)",
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    start = time.time()

    def log(text: str) -> None:
        print(f"[{time.time() - start:6.0f} s] {text}", flush=True)

    path = args.out / args.model_file
    args.init_classes = trained_classes(args.init) if args.init else []
    if not args.evaluate_only:
        seeds = range(args.first_seed, args.first_seed + args.boards)
        if args.crops_cache and args.crops_cache.exists():
            with np.load(args.crops_cache) as cached:
                data = Crops(cached["images"], cached["labels"])
        else:
            data = build(seeds, "train", args.workers)
            if args.crops_cache:
                np.savez(args.crops_cache, images=data.images, labels=data.labels)
        if args.focus_boards:
            data = Crops.concat([data, focus_crops(args)])
        log(f"{len(data.labels)} training crops")
        init, teacher = None, None
        if args.init:
            init, known = from_onnx(args.init)
            log(f"fine-tuning {args.init} ({len(known)} classes) to {len(VISUAL_CLASSES)} classes")
            if args.distill:
                # By default the focus letters are the classes the init model lacks, whose
                # crops `teacher_probs` already gives no target.
                teacher = untaught(teacher_probs(args.init, data), data.labels, focus_letters(args))
                log(
                    f"its class probabilities taken as targets on {int((teacher.sum(1) > 0).sum())} crops"
                )
        model = train(
            data,
            args.epochs,
            args.seed,
            args.width,
            log,
            args.smoothing,
            init,
            args.lr,
            teacher,
            args.distill,
        )
        args.out.mkdir(parents=True, exist_ok=True)
        export(model, path)
        log(f"exported {path} ({path.stat().st_size} bytes)")
        minutes = (time.time() - start) / 60
    else:
        minutes = args.minutes

    clf = CellClassifier(path)
    eval_range = range(HELDOUT_SEEDS_FROM, HELDOUT_SEEDS_FROM + args.eval_boards)
    figures = {
        "heldout": evaluate_crops(clf, build(eval_range, "heldout", args.workers)),
        "train_styles": evaluate_crops(clf, build(eval_range, "train", args.workers)),
    }
    real = real_tile_crops()
    if real is not None:
        figures["real"] = evaluate_crops(clf, real, "erudit")
    figures["english"] = evaluate_english(clf)
    new = focus_letters(args)
    if new:
        focused = build(eval_range, "heldout", args.workers, new)
        figures["new_letters"] = evaluate_letters(clf, focused, new)
    log(json.dumps(figures))
    first, second = args.out / FIRST_FLOAT, args.out / SECOND_FLOAT
    paired = first.exists() and second.exists()
    photos = read_real_photos(CellClassifier(first, second=second) if paired else clf)
    log(" ".join(f"{p.name}:{p.error or p.right}" for p in photos))
    card = model_card(args.out, figures, args, path.stat().st_size, minutes, photos, paired)
    card_path = args.out / card_name(args.model_file)
    card_path.write_text(card, encoding="utf-8")
    log(f"wrote {card_path.name}")


if __name__ == "__main__":
    main()
