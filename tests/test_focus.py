"""Focus boards of a fine-tune that adds classes (`training.dataset.board_crops(focus=...)`): the
new letters and the letters they are most easily taken for make up about a third of the tiles
each, and only editions holding a new letter are drawn."""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np
import pytest

from scorer.variant import load_variant
from vision.classify import VISUAL_CLASSES

dataset = pytest.importorskip("training.dataset", reason="building crops needs the renderer")

NEW = ("Ä", "Ö", "Ü", "Ñ", "CH", "LL", "RR")


def test_base_letters_are_the_look_alikes_new_classes_start_from() -> None:
    assert [dataset.base_letter(letter) for letter in NEW] == ["A", "O", "U", "N", "C", "L", "R"]
    assert dataset.base_letter("Q") == "Q"


@pytest.mark.parametrize("name", ["de", "es"])
def test_focused_alphabets_draw_new_letters_and_their_look_alikes_a_third_each(name: str) -> None:
    alphabet = load_variant(name).alphabet
    drawn = Counter(dataset._focused(alphabet, NEW))
    total = sum(drawn.values())
    new = sum(n for letter, n in drawn.items() if letter in NEW)
    bases = sum(n for letter, n in drawn.items() if letter in {"A", "O", "U", "N", "C", "L", "R"})
    assert 0.28 < new / total < 0.4 and 0.28 < bases / total < 0.45
    assert set(drawn) == set(alphabet)  # every letter still drawn


def test_an_alphabet_without_new_letters_is_left_as_it_is() -> None:
    alphabet = load_variant("en").alphabet
    assert dataset._focused(alphabet, NEW) == alphabet


def test_focus_boards_show_new_letters() -> None:
    crops = dataset.board_crops(3_000_000, "train", focus=NEW)
    classes = {VISUAL_CLASSES[i] for i in crops.labels}
    assert classes & set(NEW)


def test_focus_letters_are_the_option_or_the_lacking_classes_and_get_no_teacher_target() -> None:
    # `train.py --focus-letters`: the focus boards stress the letters given, and the model
    # fine-tuned from gives no target on their crops, since it reads them worst.
    train = pytest.importorskip("training.train", reason="training needs torch (the train extra)")
    args = argparse.Namespace(focus_letters="Ó,Ń", init_classes=list(VISUAL_CLASSES))
    assert train.focus_letters(args) == ("Ó", "Ń")
    # Without the option, the classes the init model lacks, as before.
    lacking = [c for c in VISUAL_CLASSES if c not in NEW]
    args = argparse.Namespace(focus_letters="", init_classes=lacking)
    assert train.focus_letters(args) == NEW
    labels = [VISUAL_CLASSES.index(c) for c in ("O", "Ó", "N", "Ń", "empty")]
    teacher = np.full((len(labels), len(VISUAL_CLASSES)), 1 / len(VISUAL_CLASSES))
    taught = train.untaught(teacher, np.array(labels), ("Ó", "Ń"))
    assert taught.sum(axis=1).round(6).tolist() == [1.0, 0.0, 1.0, 0.0, 1.0]
    assert teacher.sum() > taught.sum()  # the teacher given is left as it was
