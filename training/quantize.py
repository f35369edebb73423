"""Int8 copies of the cell models, for reading: onnxruntime's own static quantization.

    python -m training.quantize [--boards 40] [--heldout-boards 30] [MODEL.onnx ...]

writes `models/cells.int8.onnx` next to `models/cells.onnx` (and the same for every model given;
by default both shipped models), which `vision.classify` reads with, and the card
`models/INT8.md` with each copy's agreement with its float model on crops of held-out boards.
The float files stay: they are what training fine-tunes from (`train.py --init`) and what this
script quantizes again after a retrain (a test checks the shipped copies still agree with them).

- Static QOperator quantization (QLinearConv), activations uint8 calibrated by min-max on crops of
  `--boards` rendered training boards at all four turns (`training.dataset.build`, fixed seeds: the same file on any
  machine), weights int8 per output channel.
- The first convolution (3 input channels: little to gain) and the classifier head stay float:
  quantizing them moved the class probabilities most.
- `reduce_range`: weights use 7 bits. On x86 CPUs without VNNI, onnxruntime multiplies uint8 by
  int8 with an instruction that saturates pairs of products in 16 bits; 7-bit weights never
  saturate, so the integer results are the same on every CPU.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnx

from training.dataset import Crops, build
from training.features import expose_features
from vision.classify import VISUAL_CLASSES, CellClassifier

MODELS = Path(__file__).resolve().parents[1] / "models"
FLOAT_MODELS = ("cells.onnx", "cells_second.onnx")
INPUT = "crops"
BATCH = 64
HELDOUT_FIRST_SEED = 5_100_000
CARD = "INT8.md"
# The card's last section: whole boards read with the int8 files, measured by the benchmarks
# (`bench_editions.py`, `bench_read.py`, `bench_players.py`) and written by hand; kept when the
# card is written again, and to be measured again after a retrain.
END_TO_END = "## Whole boards, end to end"


def int8_path(model: Path) -> Path:
    """Where the int8 copy of float model `model` is written: `cells.onnx` -> `cells.int8.onnx`."""
    return model.with_suffix(".int8.onnx")


def _float_ends(model: onnx.ModelProto) -> list[str]:
    """The nodes kept in float: the first convolution and the last node (the head)."""
    convs = [node.name for node in model.graph.node if node.op_type == "Conv"]
    return [convs[0], model.graph.node[-1].name]


def quantize(model: Path, crops: np.ndarray) -> Path:
    """Write the int8 copy of the float ONNX `model`, calibrated on uint8 BGR `crops`
    ([N, 56, 56, 3]); returns its path. The model's metadata (classes) is carried over, and its
    `features` output (`training.features`)."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )

    class Calibration(CalibrationDataReader):
        def __init__(self) -> None:
            batches = range(0, len(crops), BATCH)
            self._batches = iter(
                {INPUT: np.ascontiguousarray(crops[i : i + BATCH].transpose(0, 3, 1, 2), "f4")}
                for i in batches
            )

        def get_next(self):  # noqa: ANN202 - onnxruntime's interface
            return next(self._batches, None)

    source = onnx.load(str(model))
    target = int8_path(model)
    quantize_static(
        str(model),
        str(target),
        Calibration(),
        quant_format=QuantFormat.QOperator,
        activation_type=QuantType.QUInt8,
        weight_type=QuantType.QInt8,
        per_channel=True,
        reduce_range=True,
        calibrate_method=CalibrationMethod.MinMax,
        nodes_to_exclude=_float_ends(source),
    )
    quantized = expose_features(onnx.load(str(target)))
    onnx.helper.set_model_props(quantized, {prop.key: prop.value for prop in source.metadata_props})
    onnx.save(quantized, str(target))
    return target


def all_turns(crops: np.ndarray) -> np.ndarray:
    """Upright crops turned 0, 1, 2, 3 quarter-turns in turn: boards are photographed from any
    side."""
    return np.stack([np.rot90(crop, i % 4) for i, crop in enumerate(crops)])


def agreement(float_model: Path, int8_model: Path, heldout: Crops) -> dict[str, float]:
    """How the int8 copy reads `heldout`'s upright crops, turned as `all_turns` turns them,
    against its float model: each one's share of classes right, the share of crops both give
    the same class and the same text direction, and the largest and 99th-percentile difference
    of the top class's probability."""
    crops = all_turns(heldout.images)
    probs = [
        CellClassifier(model).predict_crops(crops, 1, len(crops)).joint
        for model in (float_model, int8_model)
    ]
    (f_class, q_class), (f_turn, q_turn) = ([p.sum(axis=axis) for p in probs] for axis in (1, 2))
    gap = np.abs(f_class.max(axis=1) - q_class.max(axis=1))
    return {
        "crops": len(crops),
        "float_right": float((f_class.argmax(1) == heldout.labels).mean()),
        "int8_right": float((q_class.argmax(1) == heldout.labels).mean()),
        "same_class": float((f_class.argmax(1) == q_class.argmax(1)).mean()),
        "same_turn": float((f_turn.argmax(1) == q_turn.argmax(1)).mean()),
        "top_gap_max": float(gap.max()),
        "top_gap_p99": float(np.percentile(gap, 99)),
    }


def card(
    figures: dict[str, dict[str, float]],
    boards: int,
    first_seed: int,
    heldout: int,
    end_to_end: str = "",
) -> str:
    """The int8 copies' model card, ending with `end_to_end`: the whole-board figures measured
    with the files by the benchmarks (kept from the card written before)."""
    rows = "\n".join(
        f"| `{name}` | {f['crops']} | {f['float_right']:.2%} | {f['int8_right']:.2%} | "
        f"{f['same_class']:.2%} | {f['same_turn']:.2%} | {f['top_gap_p99']:.3f} | "
        f"{f['top_gap_max']:.3f} |"
        for name, f in figures.items()
    )
    return f"""# Int8 copies of the cell models (`*.int8.onnx`)

What `vision.classify` reads with: each file is its float model (same name without `.int8`,
described in `MODEL.md` and `cells_second.md`) quantized by `training/quantize.py`, with the
same input, output and classes ({len(VISUAL_CLASSES)}).

- **How**: onnxruntime static quantization, QOperator (QLinearConv); activations uint8 calibrated
  (min-max) on crops of {boards} rendered training boards (seeds from {first_seed}) at all four
  turns; weights int8 per output channel in 7 bits (`reduce_range`: no 16-bit saturation on
  CPUs without VNNI, so every CPU computes the same integers); the first convolution and the
  classifier head kept in float.
- **Why**: the convolutions run in about two thirds of the float time on this project's 2-core
  x86 machine (`benchmarks/bench_read.py` has the whole read).
- **Command**: `python -m training.quantize --boards {boards} --first-seed {first_seed}
  --heldout-boards {heldout}` (after any retrain of the float models).

## Agreement with the float models

Crops of {heldout} boards of the held-out edition family (`heldout` split, seeds from
{HELDOUT_FIRST_SEED}), read alone (no board-relative weighing), every crop at one of four turns:

| model | crops | float right | int8 right | same class | same text direction | top-probability gap, 99th pct | largest |
|---|---|---|---|---|---|---|---|
{rows}

{END_TO_END}

{end_to_end}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", type=Path, help="float ONNX models (default: both)")
    parser.add_argument("--boards", type=int, default=40, help="rendered boards to calibrate on")
    parser.add_argument("--first-seed", type=int, default=2_000_000)
    parser.add_argument("--heldout-boards", type=int, default=30, help="held-out boards to check")
    args = parser.parse_args()
    crops = all_turns(build(range(args.first_seed, args.first_seed + args.boards), "train").images)
    heldout = build(range(HELDOUT_FIRST_SEED, HELDOUT_FIRST_SEED + args.heldout_boards), "heldout")
    models = args.models or [MODELS / name for name in FLOAT_MODELS]
    figures = {}
    for model in models:
        target = quantize(model, crops)
        figures[target.name] = agreement(model, target, heldout)
        print(f"{target}: calibrated on {len(crops)} crops, {figures[target.name]}")
    path = models[0].parent / CARD
    before = path.read_text() if path.is_file() else ""
    kept = before.split(END_TO_END, 1)[1].lstrip("\n") if END_TO_END in before else ""
    path.write_text(card(figures, args.boards, args.first_seed, args.heldout_boards, kept))


if __name__ == "__main__":
    main()
