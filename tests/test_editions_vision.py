"""German Ä Ö Ü and Spanish Ñ CH LL RR are classes of the cell model of their own, read like any
letter; a letter an edition holds and the model has no class for (a player's own edition with a
Hungarian Ő) is read through the class it looks like (`[vision] read_as`) and never taken on the
photo alone: the reading offers both letters. A rendered German board read end to end never
records an Ä as an A.
"""

from __future__ import annotations

import numpy as np
import pytest

from scorer.variant import load_variant, parse_variant
from vision.classify import VISUAL_CLASSES, CellPredictions, check_readable, read_cells

DE, ES = load_variant("de"), load_variant("es")
# A player's own edition with a letter the model has no class for.
HU = parse_variant(
    'name = "hu"\ntitle = "Hungarian"\nlanguage = "hu"\nlayout = "scrabble"\nrack_size = 7\n'
    'bingo_bonus = 50\nbingo_sizes = [7]\nblank_count = 2\nblank_name = "blank"\n'
    'first_move_min_tiles = 2\nexchange_min_bag = 7\ndictionary = "wordlist"\n'
    '[vision]\nread_as = { "Ő" = "O" }\n'
    '[tiles]\nA = [6, 1]\nO = [4, 1]\n"Ő" = [1, 7]\nN = [4, 1]\n'
)


def _sure_of(label: str) -> CellPredictions:
    """One cell the model is sure shows `label`, upright."""
    joint = np.full((1, 4, len(VISUAL_CLASSES)), 1e-6)
    joint[0, 0, VISUAL_CLASSES.index(label)] = 1.0
    return CellPredictions(joint / joint.sum(), 1, 1)


def test_the_editions_are_readable() -> None:
    for name in ("de", "fr", "es", "pl"):
        check_readable(load_variant(name))
        assert not load_variant(name).read_as
    check_readable(HU)


@pytest.mark.parametrize(
    ("variant", "letter"), [(DE, "Ä"), (DE, "Ü"), (ES, "Ñ"), (ES, "CH"), (ES, "RR")]
)
def test_letters_of_the_new_editions_have_classes_of_their_own(variant, letter: str) -> None:
    cell = read_cells(_sure_of(letter), variant)[0][0]
    assert cell.label == letter and cell.confidence > 0.99


def test_a_letter_without_a_class_is_read_as_both_letters_and_neither_is_sure() -> None:
    cell = read_cells(_sure_of("O"), HU)[0][0]
    assert cell.confidence <= 0.51
    assert cell.label == "O"  # of the tie, the letter with a class of its own comes first
    assert {label for label, p in cell.top3 if p > 0.4} == {"O", "Ő"}


def test_letters_with_a_class_of_their_own_stay_sure() -> None:
    cell = read_cells(_sure_of("A"), HU)[0][0]
    assert cell.label == "A" and cell.confidence > 0.99


def _photo(rows: list[str], seed: int) -> bytes:
    import cv2

    render = pytest.importorskip("training.render", reason="rendering needs Pillow (dev extra)")
    pose = render.Pose(angle=3.0, tilt=15.0, tilt_direction=40.0, fill=0.8)
    image, _, _ = render.render_board_photo(
        rows, "de", render.scrabble_style(), seed=seed, size=(1200, 900), pose=pose
    )
    ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return encoded.tobytes()


def _start(word: str) -> int:
    """The column a first play starts at so that it ends on the centre square H8."""
    return 8 - len(word)


def _rows(word: str) -> list[str]:
    return ["." * 15] * 7 + [("." * _start(word) + word).ljust(15, ".")] + ["." * 15] * 7


@pytest.mark.parametrize(
    ("word", "seed"),
    [("KÄSE", 3), ("BÄR", 5), ("MÜDE", 8), ("KÖNIG", 2)],
)
def test_a_rendered_german_play_never_records_an_umlaut_as_its_plain_letter(
    word: str, seed: int
) -> None:
    from scorer.dictionary import dictionary_for
    from scorer.game import Game
    from scorer.tracking import TurnStatus
    from scorer.turns import turn_from_reading
    from vision.pipeline import read_board

    reading = read_board(_photo(_rows(word), seed), DE)
    turn = turn_from_reading(Game(DE, ("Ann", "Ben")), reading, dictionary_for(DE))
    result = turn.result
    if result.status is TurnStatus.COMMITTED:
        assert result.play is not None and result.play.word == word
    else:
        # BAR is a word too: the photo cannot tell, so the player is asked, with both letters.
        assert result.status is TurnStatus.NEEDS_REVIEW
        umlaut = next(i for i, ch in enumerate(word) if ch in "ÄÖÜ")
        cell = next(c for c in result.uncertain if c.square == (7, _start(word) + umlaut))
        assert word[umlaut] in cell.candidates
