"""`scorekeeper replay` on the bundled sample games (rendered phone photos, one per turn), the
empty board before them, and injected faults: a repeated photo, a hand over the new tiles, a photo
with no board."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from scorekeeper.cli import main

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
GAMES = {
    "erudit_game": ("erudit", "Аня,Борис"),
    "ru_game": ("ru", "Ваня,Маша"),
    "en_game": ("en", "Ann,Ben"),
    # Its words were chosen so the word list settles Ä Ö Ü, which the cell model reads as A O U.
    "de_game": ("de", "Anna,Ben"),
}


def _photos(game: str) -> list[str]:
    return sorted(str(p) for p in (SAMPLES / game).glob("turn_*.jpg"))


# The Russian game's last photo reads two vacant squares (H7, L11) as no tile or a blank: both
# would make legal plays, and replay cannot ask; they look as in the photo before
# (`vision.answers.unchanged_vacancies`), which settles them.
@pytest.mark.parametrize("game", ["en_game", "de_game", "erudit_game", "ru_game"])
def test_sample_game_replays_to_its_expected_sheet(game: str, capsys) -> None:
    variant, players = GAMES[game]
    code = main(["replay", "--variant", variant, "--players", players, "--json", *_photos(game)])
    out, err = capsys.readouterr()
    assert code == 0, err
    sheet = json.loads(out)
    expected = json.loads((SAMPLES / game / "expected_sheet.json").read_text(encoding="utf-8"))
    assert sheet["moves"] == expected["moves"]
    assert sheet["totals"] == expected["totals"]


def test_text_sheet_lists_every_turn(capsys) -> None:
    photos = _photos("erudit_game")
    assert main(["replay", "--variant", "erudit", "--players", "Аня,Борис", *photos]) == 0
    out = capsys.readouterr().out
    assert "КАРаНДАШ" in out and "totals: Аня 91, Борис 110" in out


def test_repeated_photo_is_skipped_as_a_duplicate(capsys) -> None:
    photos = _photos("erudit_game")[:3]
    photos.insert(2, photos[1])
    code = main(["replay", "--variant", "erudit", "--players", "Аня,Борис", "--json", *photos])
    captured = capsys.readouterr()
    assert code == 0
    assert "the same bytes as the previous photo, skipped" in captured.err
    assert [m["word"] for m in json.loads(captured.out)["moves"]] == ["КОРОВА", "СЛОН", "АИСТ"]


def test_empty_board_before_the_first_move_records_nothing(tmp_path: Path, capsys) -> None:
    """The rule of the HTTP service too (scorer.turns): not a pass for the first player."""
    render = pytest.importorskip("training.render", reason="training.render needs Pillow")
    pose = render.Pose(angle=4.0, tilt=12.0, tilt_direction=30.0, fill=0.8)
    image, _, _ = render.render_board_photo(
        ["." * 15] * 15, "erudit", render.erudit_style(), seed=1, size=(1200, 900), pose=pose
    )
    empty = tmp_path / "empty.jpg"
    cv2.imwrite(str(empty), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    photos = _photos("erudit_game")[:2]
    code = main(
        ["replay", "--variant", "erudit", "--players", "Аня,Борис", "--json", str(empty), *photos]
    )
    captured = capsys.readouterr()
    assert code == 0, captured.err
    moves = json.loads(captured.out)["moves"]
    assert [(m["player"], m["word"]) for m in moves] == [("Аня", "КОРОВА"), ("Борис", "СЛОН")]


def _cover_cells(photo: Path, out: Path) -> None:
    """Paint a skin-coloured hand over the middle of the board, where the last move lies."""
    image = cv2.imread(str(photo))
    h, w = image.shape[:2]
    cv2.ellipse(image, (w // 2, h // 2), (w // 9, h // 7), 30, 0, 360, (120, 160, 215), -1)
    cv2.imwrite(str(out), image)


def test_hand_over_the_board_stops_for_review_not_a_guess(tmp_path: Path, capsys) -> None:
    photos = [Path(p) for p in _photos("erudit_game")[:4]]
    covered = tmp_path / "covered.jpg"
    _cover_cells(photos[3], covered)
    args = ["replay", "--variant", "erudit", "--players", "Аня,Борис", "--json"]
    code = main([*args, *map(str, photos[:3]), str(covered)])
    captured = capsys.readouterr()
    assert code != 0
    assert "covered.jpg" in captured.err
    # The three turns before the covered photo stand; no move was made up for it.
    assert [m["word"] for m in json.loads(captured.out)["moves"]] == ["КОРОВА", "СЛОН", "АИСТ"]


def test_photo_without_a_board_stops_the_replay(tmp_path: Path, capsys) -> None:
    wall = tmp_path / "wall.jpg"
    rng = np.random.default_rng(3)
    texture = cv2.GaussianBlur(rng.integers(90, 160, (600, 800, 3), dtype=np.uint8), (0, 0), 4)
    cv2.imwrite(str(wall), texture)
    first = _photos("erudit_game")[0]
    code = main(["replay", "--variant", "erudit", "--players", "Аня,Борис", first, str(wall)])
    captured = capsys.readouterr()
    assert code == 2
    assert "wall.jpg" in captured.err and "КОРОВА" in captured.out


def test_unknown_variant_and_bad_players_are_clear_errors(tmp_path: Path, capsys) -> None:
    first = _photos("erudit_game")[0]
    with pytest.raises(SystemExit):
        main(["replay", "--variant", "xx", "--players", "a,b", first])
    assert main(["replay", "--variant", "erudit", "--players", "Аня", first]) == 2
    assert "2 to 4 players" in capsys.readouterr().err
    copy = tmp_path / "turn.jpg"
    shutil.copy(first, copy)
    assert (
        main(["replay", "--variant", "erudit", "--players", "a,b", str(tmp_path / "no.jpg")]) == 2
    )
