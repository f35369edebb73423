"""Look-alike letters weighed against the known tiles of the same photo (`vision.exemplars`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from scorer.board import Board, Tile
from vision.exemplars import with_known_letters
from vision.reading import BoardReading

WIDTH = 8
# Features of this edition's C and G as the cell model sees them: alike, as look-alikes are.
C_LOOK = np.array([1.0, 0.2, 0.0, 0.1] + [0.0] * (WIDTH - 4))
G_LOOK = np.array([1.0, 0.2, 0.5, 0.1] + [0.0] * (WIDTH - 4))
OTHER = np.array([0.0, 0.0, 0.0, 0.0, 1.0] + [0.0] * (WIDTH - 5))
# The known tiles: CAT across from H8, GAG down from E6.
KNOWN = {(7, 7): "C", (7, 8): "A", (7, 9): "T", (5, 4): "G", (6, 4): "A", (7, 4): "G"}
LOOKS = {"C": C_LOOK, "G": G_LOOK}


def reading_with(
    doubt: list[tuple[str, float]],
    look: np.ndarray,
    known_conf: float = 0.99,
    known: dict[tuple[int, int], str] = KNOWN,
    looks: dict[tuple[int, int], np.ndarray] | None = None,
):
    """A reading of the `known` tiles (each at `known_conf`, with the features of its letter in
    `LOOKS`, or its own in `looks`) and one new tile at H10 with the candidates `doubt` and
    features `look`; every other square surely empty."""
    classes = [["empty"] * 15 for _ in range(15)]
    confidence = [[0.999] * 15 for _ in range(15)]
    top3 = [
        [[("empty", 0.999), ("A", 0.0005), ("B", 0.0005)] for _ in range(15)] for _ in range(15)
    ]
    features = np.tile(OTHER, (15, 15, 1)).astype(np.float32)
    for (r, c), letter in known.items():
        classes[r][c], confidence[r][c] = letter, known_conf
        top3[r][c] = [(letter, known_conf), ("empty", 1 - known_conf)]
        features[r, c] = (looks or {}).get((r, c), LOOKS.get(letter, OTHER))
    r, c = 9, 7
    classes[r][c], confidence[r][c], top3[r][c] = doubt[0][0], doubt[0][1], doubt
    features[r, c] = look
    return BoardReading(
        variant="en",
        classes=classes,
        confidence=confidence,
        top3=top3,
        corners=[[0, 0], [1, 0], [1, 1], [0, 1]],
        rotation=0,
        quality=1.0,
        photo_size=(100, 100),
        features=features,
    )


def known_board(known: dict[tuple[int, int], str] = KNOWN) -> Board:
    return Board.empty().place({square: Tile(letter) for square, letter in known.items()})


# Known tiles PEP across from H8 and PEE down from H8 (H8 shared), each with its own look: two
# tiles of one letter are alike, never the same, in a photo.
P_AND_E = {(7, 7): "P", (7, 8): "E", (7, 9): "P", (8, 7): "E", (9, 8): "E"}
F_LOOK = np.array([0.0, 1.0, 0.2, 0.0, 0.0, 0.1, 0.0, 0.0])
P_LOOK = np.array([0.0, 1.0, 0.0, 0.6, 0.0, 0.1, 0.0, 0.0])
E_LOOK = np.array([0.0, 1.0, 0.6, 0.0, 0.0, 0.1, 0.0, 0.0])


def nudged(look: np.ndarray, *by: float) -> np.ndarray:
    """`look` moved a little along its last two features, as light and focus move a tile's."""
    return look + np.array([0.0] * (WIDTH - 2) + list(by))


P_AND_E_LOOKS = {
    (7, 7): nudged(P_LOOK, 0.1, 0.0),
    (7, 9): nudged(P_LOOK, 0.0, 0.1),
    (7, 8): nudged(E_LOOK, 0.1, 0.0),
    (8, 7): nudged(E_LOOK, 0.0, 0.1),
    (9, 8): nudged(E_LOOK, 0.1, 0.1),
}


def test_a_letter_without_known_tiles_is_made_sure_by_look_alikes_it_looks_unlike() -> None:
    # An F read 0.9 / P 0.07 / E 0.03 on a board with no F yet: its Ps and Es look alike as
    # two tiles of one letter do, and this tile looks far less like either.
    reading = reading_with(
        [("F", 0.9), ("P", 0.07), ("E", 0.03)], F_LOOK, known=P_AND_E, looks=P_AND_E_LOOKS
    )
    weighed = with_known_letters(reading, known_board(P_AND_E))
    assert weighed.classes[9][7] == "F"
    assert weighed.confidence[9][7] >= 0.95
    assert abs(sum(p for _, p in weighed.top3[9][7]) - 1.0) < 1e-9


def test_a_look_alike_it_looks_like_keeps_its_odds() -> None:
    # Read F 0.9 / P 0.07, but as like the board's Ps as they are like each other: a P the
    # model nearly misread. Only the words may settle it.
    reading = reading_with(
        [("F", 0.9), ("P", 0.07), ("E", 0.03)],
        nudged(P_LOOK, 0.05, 0.05),
        known=P_AND_E,
        looks=P_AND_E_LOOKS,
    )
    weighed = dict(with_known_letters(reading, known_board(P_AND_E)).top3[9][7])
    assert weighed["P"] == 0.07 and weighed["F"] < 0.95


def test_a_letter_nearer_its_known_tiles_is_made_sure() -> None:
    # A C read 0.8 / G 0.2 that looks just like the board's own C: the Gs in the photo show that
    # a G of this set has the bar this tile lacks.
    reading = reading_with([("C", 0.8), ("G", 0.2)], C_LOOK + 0.02)
    weighed = with_known_letters(reading, known_board())
    assert weighed.classes[9][7] == "C"
    assert weighed.confidence[9][7] >= 0.95
    assert [label for label, _ in weighed.top3[9][7]] == ["C", "G"]
    assert abs(sum(p for _, p in weighed.top3[9][7]) - 1.0) < 1e-9


def test_the_known_tiles_never_overturn_the_models_best_letter() -> None:
    # Read C 0.8 / G 0.2 but looking like the board's Gs: left as read, for the words to settle.
    reading = reading_with([("C", 0.8), ("G", 0.2)], G_LOOK)
    assert with_known_letters(reading, known_board()) is reading


def test_no_tile_and_letters_without_known_tiles_keep_their_odds() -> None:
    reading = reading_with([("C", 0.6), ("empty", 0.25), ("G", 0.15)], C_LOOK)
    weighed = dict(with_known_letters(reading, known_board()).top3[9][7])
    assert weighed["empty"] == 0.25 and weighed["C"] < 0.75 + 1e-9
    reading = reading_with([("C", 0.6), ("O", 0.25), ("G", 0.15)], C_LOOK)
    assert dict(with_known_letters(reading, known_board()).top3[9][7])["O"] == 0.25


def test_known_tiles_read_doubtfully_are_no_examples() -> None:
    # A hand or a glare over the known tiles: what the photo shows there is no example.
    reading = reading_with([("C", 0.8), ("G", 0.2)], C_LOOK, known_conf=0.6)
    assert with_known_letters(reading, known_board()) is reading


def test_a_reading_without_features_is_left_alone() -> None:
    reading = replace(reading_with([("C", 0.8), ("G", 0.2)], C_LOOK), features=None)
    assert with_known_letters(reading, known_board()) is reading
