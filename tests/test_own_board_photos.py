"""Photos of a player's own edition read by the same pipeline: a rendered 12×16 «Найди слово»
board (tests/data/naidi_slovo.toml) found, read upright whichever way it lies, a move scored from
two photos, and `scorekeeper read` / `replay --variant-file`."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorekeeper.cli import main
from scorer.game import Game
from scorer.turns import turn_from_move, turn_from_reading
from scorer.variant import parse_variant
from vision.classify import UnreadableVariant
from vision.pipeline import read_board

render = pytest.importorskip("training.render", reason="rendering test boards needs Pillow")
pytestmark = pytest.mark.skipif(
    not resources.files("vision.models").joinpath("cells.onnx").is_file(),
    reason="models/cells.onnx is not trained yet",
)

NAIDI_FILE = Path(__file__).parent / "data" / "naidi_slovo.toml"
NAIDI = parse_variant(NAIDI_FILE.read_text(encoding="utf-8"))
EMPTY = ["." * 16] * 12
KOTYONOK = EMPTY[:5] + ["...КОТЁНОК......"] + EMPTY[6:]  # 6D across, over the centre H6
KOT = EMPTY[:5] + [".....КОТ........"] + EMPTY[6:]  # 6F across: no Ё, nothing to ask a replay


def _photo(rows: list[str], quarter_turns: int, seed: int) -> bytes:
    pose = render.Pose(quarter_turns=quarter_turns, angle=3.0, tilt=12.0, fill=0.8)
    image, _, _ = render.render_board_photo(
        rows, NAIDI, render.erudit_style(), seed=seed, size=(1200, 900), pose=pose
    )
    return cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 92])[1].tobytes()


@pytest.mark.parametrize("quarter_turns", [0, 1])
def test_rectangular_board_is_read_upright_either_way_across(quarter_turns: int) -> None:
    pose = render.Pose(quarter_turns=quarter_turns, angle=3.0, tilt=12.0, fill=0.8)
    image, corners, _ = render.render_board_photo(
        KOTYONOK, NAIDI, render.erudit_style(), seed=3, size=(1200, 900), pose=pose
    )
    reading = read_board(cv2.imencode(".jpg", image)[1].tobytes(), NAIDI)
    # A quarter turn of the board shows its 16 columns down the photo; the reading is upright.
    assert reading.rows == KOTYONOK
    assert reading.rotation == (4 - quarter_turns) % 4
    assert np.abs(np.array(reading.corners) - corners).max() < 8  # px, in board order


def test_move_found_and_scored_from_an_empty_board_and_a_word() -> None:
    game = Game(NAIDI, ("Аня", "Борис"))
    empty = turn_from_reading(game, read_board(_photo(EMPTY, 1, 5), NAIDI), None)
    assert empty.committed and empty.event is None  # the empty board records nothing
    reading = read_board(_photo(KOTYONOK, 3, 6), NAIDI)
    assert reading.rows == KOTYONOK
    turn = turn_from_reading(game, reading, None)
    if not turn.committed:
        # Ё is Е with two dots: one read below the tracker's certainty is asked about, with no
        # dictionary to settle it, and never taken as Е; the player then types the move.
        asked = [(cell.square, set(cell.candidates)) for cell in turn.result.uncertain]
        assert asked == [((5, 6), {"Ё", "Е"})]
        turn = turn_from_move(game, "6D", "КОТЁНОК", None)
    assert turn.committed and turn.event is not None
    play = turn.event.play
    assert (play.position, play.word, play.score) == ("6D", "КОТЁНОК", (11 + 1) * 2 + 50)


def test_letters_the_model_cannot_read_are_refused_before_reading() -> None:
    text = NAIDI_FILE.read_text(encoding="utf-8").replace('"Я" = [2, 3]', '"Ω" = [2, 3]')
    with pytest.raises(UnreadableVariant, match="cannot read the letters Ω"):
        read_board(_photo(EMPTY, 0, 1), parse_variant(text))


def test_read_and_replay_take_a_variant_file(tmp_path: Path, capsys) -> None:
    photos = []
    for name, rows, turns in (("empty", EMPTY, 2), ("kot", KOT, 1)):
        path = tmp_path / f"{name}.jpg"
        path.write_bytes(_photo(rows, turns, 7))
        photos.append(str(path))
    assert main(["read", "--variant-file", str(NAIDI_FILE), "--json", photos[1]]) == 0
    reading = json.loads(capsys.readouterr().out)
    assert reading["variant"] == "naidi_slovo" and reading["rows"] == KOT
    args = ["replay", "--variant-file", str(NAIDI_FILE), "--players", "Аня,Борис", "--json"]
    assert main([*args, "--no-dictionary", *photos]) == 0
    sheet = json.loads(capsys.readouterr().out)
    assert [(m["position"], m["word"], m["score"]) for m in sheet["moves"]] == [
        ("6F", "КОТ", (2 * 2 + 1 + 1) * 2)
    ]


def test_variant_file_errors_are_one_line_and_exit_2(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(NAIDI_FILE.read_text(encoding="utf-8").replace("rack_size", "rack"), "utf-8")
    assert main(["read", "--variant-file", str(bad), "photo.jpg"]) == 2
    assert f"scorekeeper read: {bad}: unknown key 'rack'" in capsys.readouterr().err
    missing = tmp_path / "missing.toml"
    args = ["replay", "--variant-file", str(missing), "--players", "A,B", "photo.jpg"]
    assert main(args) == 2
    assert "cannot read the variant file" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # one of the two, not both
        main(["read", "--variant", "ru", "--variant-file", str(NAIDI_FILE), "photo.jpg"])
    assert "not allowed with argument" in capsys.readouterr().err
