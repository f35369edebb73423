"""`scorekeeper read` (DESIGN.md §5), the BoardReading JSON shape, the overlay picture and the
variant mask of the whole pipeline."""

from __future__ import annotations

import dataclasses
import json
from importlib import resources
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorekeeper.cli import main
from scorekeeper.commands.read import overlay_paths
from vision.overlay import SURE_RGB, UNSURE_RGB, draw_overlay, overlay_jpeg, overlay_png
from vision.reading import BoardReading

HAS_MODEL = resources.files("vision.models").joinpath("cells.onnx").is_file()
needs_model = pytest.mark.skipif(not HAS_MODEL, reason="models/cells.onnx is not trained yet")
DESIGN_KEYS = {"photo", "variant", "rows", "confidence", "corners", "rotation", "timings_ms"}


def _reading(confidence: float = 0.99) -> BoardReading:
    classes = [["empty"] * 15 for _ in range(15)]
    classes[7][7], classes[7][8], classes[0][0] = "Ж", "star", "Q"
    conf = [[confidence] * 15 for _ in range(15)]
    conf[0][0] = 0.3
    return BoardReading(
        variant="erudit",
        classes=classes,
        confidence=conf,
        top3=[[[(c, 0.9), ("empty", 0.05), ("blank", 0.01)] for c in row] for row in classes],
        corners=[[100.0, 80.0], [700.0, 90.0], [690.0, 690.0], [110.0, 700.0]],
        rotation=1,
        quality=0.93,
        photo_size=(800, 800),
        timings_ms={"decode": 10.0, "locate": 50.0},
    )


def test_reading_json_has_the_design_shape() -> None:
    reading = _reading()
    obj = reading.to_json("photos/a.jpg")
    assert set(obj) >= DESIGN_KEYS
    assert obj["photo"] == "photos/a.jpg"
    assert len(obj["rows"]) == 15 and all(len(r) == 15 for r in obj["rows"])
    assert obj["rows"][7][7:9] == "Ж?"  # a star tile is a blank in the board text
    assert obj["rows"][0][0] == "Q"
    assert len(obj["confidence"]) == 15 and len(obj["confidence"][0]) == 15
    assert len(obj["corners"]) == 4 and all(len(c) == 2 for c in obj["corners"])
    json.dumps(obj, ensure_ascii=False)
    assert reading.uncertain(0.5) == [(0, 0)]


def test_overlay_marks_uncertain_cells(tmp_path: Path) -> None:
    image = np.full((800, 800, 3), 90, np.uint8)
    picture = draw_overlay(image, _reading(), threshold=0.5)
    assert picture.shape == (800, 800, 3)
    rgb = picture[..., ::-1].reshape(-1, 3).astype(int)
    assert (np.abs(rgb - UNSURE_RGB).sum(axis=1) < 40).any()  # the uncertain "Q"
    assert (np.abs(rgb - SURE_RGB).sum(axis=1) < 40).any()  # "Ж" and "?"
    out = tmp_path / "overlay.png"
    _, small = cv2.imencode(".png", cv2.resize(image, (400, 400)))
    out.write_bytes(overlay_png(small.tobytes(), _reading(), threshold=0.5))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert cv2.imread(str(out)).shape == (400, 400, 3)
    # The service's overlays: JPEG, at most the overlay's size.
    _, large = cv2.imencode(".jpg", cv2.resize(image, (3000, 3000)))
    kept = overlay_jpeg(large.tobytes(), _reading(), threshold=0.5)
    assert kept[:3] == b"\xff\xd8\xff"
    assert cv2.imdecode(np.frombuffer(kept, np.uint8), cv2.IMREAD_COLOR).shape == (1400, 1400, 3)


def test_overlay_paths_number_several_photos() -> None:
    assert overlay_paths("out.png", 1) == [Path("out.png")]
    assert overlay_paths("dir/out.png", 3)[2] == Path("dir/out-3.png")


def test_unknown_variant_exits_2(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as info:
        main(["read", str(tmp_path / "x.jpg"), "--variant", "klingon"])
    assert info.value.code == 2
    assert "klingon" in capsys.readouterr().err


def _no_board_png(path: Path) -> Path:
    rng = np.random.default_rng(1)
    cv2.imwrite(str(path), rng.integers(0, 256, (300, 400, 3), dtype=np.uint8))
    return path


def test_failed_photos_give_error_objects_in_order(tmp_path: Path, capsys) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a photo")
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    noise = _no_board_png(tmp_path / "noise.png")
    missing = tmp_path / "missing.jpg"
    photos = [str(text), str(empty), str(noise), str(missing)]
    code = main(["read", *photos, "--variant", "en", "--json"])
    captured = capsys.readouterr()
    assert code == 2
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [obj["photo"] for obj in lines] == photos
    assert all(set(obj) == {"photo", "error"} for obj in lines)
    assert "no board" in lines[2]["error"]
    errors = captured.err.strip().splitlines()
    assert len(errors) == 4 and all("Traceback" not in e for e in errors)


def test_failed_photo_in_text_mode_prints_reason_only(tmp_path: Path, capsys) -> None:
    noise = _no_board_png(tmp_path / "noise.png")
    assert main(["read", str(noise), "--variant", "ru"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(str(noise))


@needs_model
def test_real_photo_reads_with_json_and_overlay(shared, tmp_path: Path, capsys) -> None:
    photo = shared / "realphotos" / "erudit" / "empty_boards" / "c1.jpg"
    out = tmp_path / "check.png"
    code = main(["read", str(photo), "--variant", "erudit", "--json", "--overlay", str(out)])
    obj = json.loads(capsys.readouterr().out)
    assert code == 0
    assert set(obj) >= DESIGN_KEYS
    assert obj["rows"] == ["." * 15] * 15
    assert obj["rotation"] in range(4)
    assert {"decode", "locate", "rectify", "classify", "orient"} <= set(obj["timings_ms"])
    assert out.read_bytes()[:4] == b"\x89PNG"


@needs_model
def test_russian_reading_never_returns_latin_letters(shared) -> None:
    from scorer.variant import load_variant
    from vision.pipeline import read_board

    folder = shared / "realphotos" / "english" / "boards"
    reading = read_board((folder / "board_001.jpeg").read_bytes(), load_variant("ru"))
    letters = {ch for row in reading.rows for ch in row} - {".", "?"}
    assert letters and all("А" <= ch <= "я" or ch == "Ё" for ch in letters)


class _LatinLovingClassifier:
    """A test double for CellClassifier: every cell looks most like a Latin "Q" whose text is
    turned one quarter-turn, with Cyrillic "Ж" second."""

    cell_px = 16

    def predict(
        self,
        grid_image: np.ndarray,
        rows: int,
        cols: int,
        settled: object = None,
        vacant: object = None,
        checked: int = 0,
    ):
        # Every square is read, whatever the pipeline's look calls vacant.
        from vision.classify import VISUAL_CLASSES, CellPredictions

        assert grid_image.shape == (rows * self.cell_px, cols * self.cell_px, 3)
        joint = np.full((rows * cols, 4, len(VISUAL_CLASSES)), 1e-4)
        joint[:, 1, VISUAL_CLASSES.index("Q")] = 0.6
        joint[:, 1, VISUAL_CLASSES.index("Ж")] = 0.3
        return CellPredictions(joint / joint.sum(axis=(1, 2), keepdims=True), rows, cols)


def test_pipeline_masks_letters_outside_the_variant_and_turns_the_board(
    shared, monkeypatch: pytest.MonkeyPatch
) -> None:
    from scorer.variant import load_variant
    from vision import classify
    from vision.pipeline import read_board

    # A fake classifier reading every square as one letter: the board-relative weighing (tested
    # in test_calibrate.py) would rightly take 225 such "tiles" for the empty look.
    monkeypatch.setattr(classify, "relative_to_board", lambda scores, *args, **kwargs: scores)

    photo = shared / "realphotos" / "erudit" / "empty_boards" / "c1.jpg"
    data = photo.read_bytes()
    russian = read_board(data, load_variant("ru"), _LatinLovingClassifier())
    assert russian.rows == ["Ж" * 15] * 15
    assert russian.rotation == 1
    assert set(russian.timings_ms) >= {"decode", "locate", "rectify", "classify", "orient"}
    english = read_board(data, load_variant("en"), _LatinLovingClassifier())
    assert english.rows == ["Q" * 15] * 15
    # Corners are listed in board order: one quarter-turn moves the first corner by one place.
    from vision.decode import decode_photo
    from vision.locate import locate_grid

    decoded = decode_photo(data)
    seen = locate_grid(decoded.image, 15, 15, load_variant("en").layout.rows).corners
    assert np.allclose(np.array(english.corners)[1], seen[0], atol=1.0)


def test_overlay_of_a_turned_board_marks_uncertain_empty_cells() -> None:
    # The grid seen upside down: corners in board order run right-to-left across the photo.
    reading = _reading()
    conf = [row[:] for row in reading.confidence]
    conf[3][4] = 0.2  # an uncertain empty cell gets a box
    turned = dataclasses.replace(
        reading,
        confidence=conf,
        corners=[[690.0, 690.0], [110.0, 700.0], [100.0, 80.0], [700.0, 90.0]],
    )
    picture = draw_overlay(np.full((800, 800, 3), 90, np.uint8), turned, threshold=0.5)
    rgb = picture[..., ::-1].reshape(-1, 3).astype(int)
    assert (np.abs(rgb - UNSURE_RGB).sum(axis=1) < 40).sum() > 50
