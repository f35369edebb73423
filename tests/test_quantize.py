"""The int8 copies the reader uses: made from the shipped float models by `training.quantize`,
reproducibly, and reading held-out crops as their float models do."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.classify import (
    MODEL_FILE,
    SECOND_MODEL_FILE,
    VISUAL_CLASSES,
    CellClassifier,
)

pytest.importorskip("PIL", reason="rendering test boards needs Pillow (dev extra)")
pytest.importorskip("onnx", reason="quantizing needs onnx (dev extra)")

from training.dataset import board_crops  # noqa: E402
from training.quantize import FLOAT_MODELS, all_turns, int8_path, quantize  # noqa: E402

MODELS = Path(__file__).resolve().parents[1] / "models"


@pytest.fixture(scope="module")
def heldout_crops() -> np.ndarray:
    """Crops of two boards of the held-out edition family, at all four turns."""
    return all_turns(np.concatenate([board_crops(seed, "heldout").images for seed in (91, 92)]))


def test_the_reader_uses_the_int8_copies_of_the_float_models() -> None:
    assert [int8_path(MODELS / name).name for name in FLOAT_MODELS] == [
        MODEL_FILE,
        SECOND_MODEL_FILE,
    ]


@pytest.mark.parametrize("name", FLOAT_MODELS)
def test_shipped_int8_copy_reads_as_its_float_model(name: str, heldout_crops: np.ndarray) -> None:
    """A retrained float model whose int8 copy was not made again fails here."""
    crops = heldout_crops
    float_joint = CellClassifier(MODELS / name).predict_crops(crops, 1, len(crops)).joint
    int8_joint = CellClassifier(int8_path(MODELS / name)).predict_crops(crops, 1, len(crops)).joint
    same_class = float_joint.sum(axis=1).argmax(1) == int8_joint.sum(axis=1).argmax(1)
    same_turn = float_joint.sum(axis=2).argmax(1) == int8_joint.sum(axis=2).argmax(1)
    assert same_class.mean() >= 0.99
    assert same_turn.mean() >= 0.99
    gap = np.abs(float_joint.sum(axis=1).max(1) - int8_joint.sum(axis=1).max(1))
    assert np.percentile(gap, 99) < 0.05


def test_quantizing_is_reproducible_and_keeps_the_classes(
    tmp_path: Path, heldout_crops: np.ndarray
) -> None:
    calibration = all_turns(board_crops(2_000_000, "train").images)
    files = []
    for run in ("a", "b"):
        model = tmp_path / run / "cells.onnx"
        model.parent.mkdir()
        model.write_bytes((MODELS / "cells.onnx").read_bytes())
        files.append(quantize(model, calibration))
    assert files[0].read_bytes() == files[1].read_bytes()
    # The reader checks the classes in the file's metadata when it loads it.
    reader = CellClassifier(files[0])
    probs = reader.predict_crops(heldout_crops[:8], 1, 8).probs
    assert probs.shape == (8, len(VISUAL_CLASSES))
