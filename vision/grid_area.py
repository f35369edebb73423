"""Where a learned net sees the playing grid: a mask of the pixels inside it.

The net (`models/grid_area.onnx`, trained by `training/grid_area.py` on rendered photos, its
card `models/grid_area.md`) reads the photo shrunk to `INPUT_LONG_SIDE` px and marks each pixel
of half that size inside the board's cell area or not: by the squares' pattern, not by one
colour, so it outlines boards whose lines, light and colours give no region of their own (wood
print, a frame of the table's colour). `vision.locate` outlines its mask as one more outline
to seek the grid in by its premium squares; the grid is then fitted and checked as from any
other outline, so a wrong mask costs time, not a wrong grid. Without the model file the
locator does without it.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import cv2
import numpy as np

from vision.classify import model_bytes

INPUT_LONG_SIDE = 256
OUTPUT_STRIDE = 2
MODEL_FILE = "grid_area.onnx"
_MULTIPLE = 16  # the net halves its input four times


def network_input(image: np.ndarray) -> np.ndarray:
    """A BGR `image` resized for the net: its long side `INPUT_LONG_SIDE`, each side a multiple
    of 16 (the aspect changes by a few per cent at most, and the mask is resized back)."""
    h, w = image.shape[:2]
    scale = INPUT_LONG_SIDE / max(h, w)
    size = [max(_MULTIPLE, int(round(side * scale / _MULTIPLE)) * _MULTIPLE) for side in (w, h)]
    if (w, h) == tuple(size):
        return image
    return cv2.resize(image, tuple(size), interpolation=cv2.INTER_AREA)


def _shipped() -> bytes | None:
    """The shipped model's bytes, or None where it is not installed."""
    try:
        return model_bytes(None, MODEL_FILE)
    except FileNotFoundError:
        return None


@cache
def _session(path: str | None):  # noqa: ANN202 - onnxruntime is imported lazily
    """A session on the model file `path`, or on the shipped one; None when it is not installed."""
    import onnxruntime as ort

    data = _shipped() if path is None else Path(path).read_bytes()
    if data is None:
        return None
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    options.inter_op_num_threads = 1
    # Idle threads must not spin: the cell models' sessions take turns on the same cores.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])


def grid_logits(image: np.ndarray, path: str | Path | None = None) -> np.ndarray | None:
    """The net's logit of each pixel being inside the grid, at half `network_input`'s size;
    None when no model is installed."""
    session = _session(None if path is None else str(path))
    if session is None:
        return None
    small = network_input(image)
    x = np.ascontiguousarray(small.transpose(2, 0, 1)[None], dtype=np.float32)
    return session.run(None, {session.get_inputs()[0].name: x})[0][0, 0]


def grid_mask(image: np.ndarray, path: str | Path | None = None) -> np.ndarray:
    """Whether each pixel of half `network_input`'s size is inside the grid (the model at
    `path`, or the shipped one)."""
    logits = grid_logits(image, path)
    if logits is None:
        raise FileNotFoundError(f"no {MODEL_FILE} installed")
    return logits > 0


def area_mask(image: np.ndarray) -> np.ndarray | None:
    """A 0/255 mask of `image`'s size, set inside the grid as the shipped net sees it; None
    when it is not installed. The logits are resized before the threshold, so the mask's edge
    falls between the net's pixels where the grid's does."""
    logits = grid_logits(image)
    if logits is None:
        return None
    h, w = image.shape[:2]
    resized = cv2.resize(logits, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.where(resized > 0, 255, 0).astype(np.uint8)
