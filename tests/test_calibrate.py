"""Tile or empty weighed against the board's own empty squares and tiles (vision.calibrate)."""

import numpy as np
import pytest

from scorer.variant import load_variant
from training.render import heldout_edition, render_board_photo
from vision.calibrate import (
    DOUBT,
    SURE,
    BoardLooks,
    cell_looks,
    relative_to_board,
    tile_coloured,
)
from vision.classify import CellClassifier, read_cells
from vision.rectify import rectify

# Columns of the test scores: empty, blank, and one letter.
EMPTY, BLANK, LETTER = 0, 1, 2
# How many tiles of each column the set holds (the empty column is not counted).
COUNTS = np.array([0, 2, 9])
WOOD = np.array([180.0, 140.0, 165.0, 175.0, 140.0, 162.0, 8.0])
TILE = np.array([235.0, 128.0, 128.0, 232.0, 128.0, 128.0, 30.0])


def _board(n: int = 60) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """n plain squares on a 6-wide board, all wood-looking and sure empty, with scores and looks
    the tests then change."""
    rng = np.random.default_rng(0)
    looks = WOOD + rng.normal(0, 2.0, (n, 7))
    scores = np.tile([0.98, 0.01, 0.01], (n, 1))
    return scores, looks, ["."] * n


def test_squares_like_their_empty_siblings_are_empty_however_sure_the_classifier() -> None:
    scores, looks, kinds = _board()
    scores[:20] = [0.0005, 0.999, 0.0005]  # wood-print squares taken for blank tiles
    scores[20:26] = [0.01, 0.0, 0.99]  # lettered tiles
    looks[20:26] = TILE
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    assert (out[:20].argmax(axis=1) == EMPTY).all()
    assert (out[20:26].argmax(axis=1) == LETTER).all()
    assert np.allclose(out.sum(axis=1), 1)


def test_forty_blanks_read_surely_on_a_set_of_two_read_empty_where_the_squares_look_empty() -> None:
    # Wood print of nearly the cream tiles' colour (held-out edition 7000151, es): the classifier
    # takes each of 40 plain squares for a blank at 0.99999, none sure empty; the look alone
    # (a little darker and yellower than the tiles) moves the odds by about e⁸, too little; the
    # set holds two blanks, so at most two of the 41 are. The one real blank, tile-coloured,
    # stays a blank.
    scores, looks, kinds = _board(66)
    wood = TILE + [-30, 0, 12, -25, 0, 10, -22]
    looks[:] = wood + np.random.default_rng(4).normal(0, 1.0, looks.shape)
    scores[:] = [0.00001, 0.99999, 0.0]
    scores[20:26] = [0.01, 0.0, 0.99]
    looks[20:26] = TILE
    scores[60:] = [0.01, 0.0, 0.99]
    looks[60:] = TILE
    scores[30] = [0.001, 0.999, 0.0]
    looks[30] = TILE * [1, 1, 1, 1, 1, 1, 0] + [0, 0, 0, 0, 0, 0, 4]
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    wooden = np.ones(66, bool)
    wooden[[*range(20, 26), 30, *range(60, 66)]] = False
    assert (out[wooden].argmax(axis=1) == EMPTY).all()
    assert out[30].argmax() == BLANK
    assert (out[20:26].argmax(axis=1) == LETTER).all()


def test_a_blank_that_looks_like_the_tiles_stays_a_tile() -> None:
    scores, looks, kinds = _board()
    scores[20:26] = [0.01, 0.0, 0.99]
    looks[20:26] = TILE
    scores[30] = [0.3, 0.7, 0.0]  # an unsure blank, tile-coloured and with no ink
    looks[30] = TILE * [1, 1, 1, 1, 1, 1, 0] + [0, 0, 0, 0, 0, 0, 4]
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    assert out[30].argmax() == BLANK
    assert out[30, BLANK] > 0.7


def test_a_blank_read_on_a_square_plainly_unlike_the_tiles_reads_empty_as_a_doubt() -> None:
    # A red board with white tiles (held-out edition 7000035, pl): squares along its top edge,
    # lit paler than the rest, were not among their siblings (hue 2 spreads off) and stayed the
    # blanks the classifier took them for, though nothing about them looks like a tile.
    scores, looks, kinds = _board()
    scores[20:26] = [0.01, 0.0, 0.99]
    looks[20:26] = TILE
    looks[:6] = WOOD + [15, -15, -10, 15, -15, -10, 0]
    scores[:6] = [0.1, 0.9, 0.0]
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    assert (out[:6].argmax(axis=1) == EMPTY).all()
    assert (out[:6, EMPTY] <= DOUBT + 1e-9).all()
    # A letter read there stays a letter: its ink, not its look, makes it a tile.
    scores[:6] = [0.1, 0.0, 0.9]
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    assert (out[:6].argmax(axis=1) == LETTER).all()


def test_a_square_of_the_tiles_colours_unlike_its_siblings_in_hue_is_a_tile() -> None:
    # A white blank on a green board (held-out edition 7000003, fr), read empty at 0.98: its
    # colours are the tiles', its hue far from its siblings', which no light makes so. A glare
    # that whitens an empty square keeps its hue and stays empty.
    scores, looks, kinds = _board()
    looks[:] = [40.0, 60.0, 140.0, 45.0, 70.0, 140.0, 3.0] + np.random.default_rng(1).normal(
        0, 2.0, looks.shape
    )
    scores[20:26] = [0.01, 0.0, 0.99]
    looks[20:26] = TILE
    scores[30] = [0.98, 0.02, 0.0]
    looks[30] = TILE * [1, 1, 1, 1, 1, 1, 0] + [0, 0, 0, 0, 0, 0, 3]
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    assert out[30].argmax() == BLANK


def test_more_blanks_of_one_kind_than_the_set_holds_are_that_kinds_empty_look() -> None:
    # Every square of a premium kind read as a blank tile, none sure empty: the set has 2 blanks,
    # so the 8 look-alikes are the kind's empty squares.
    scores, looks, kinds = _board()
    premium = np.array([200.0, 170.0, 150.0, 198.0, 168.0, 150.0, 6.0])
    for i in range(40, 48):
        kinds[i] = "="
        scores[i] = [0.001, 0.998, 0.001]
        looks[i] = premium + np.random.default_rng(i).normal(0, 2, 7)
    scores[20:26] = [0.01, 0.0, 0.99]
    looks[20:26] = TILE
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    assert (out[40:48].argmax(axis=1) == EMPTY).all()


def test_a_printed_label_read_as_one_letter_more_often_than_the_set_holds_is_empty() -> None:
    # Seven squares of a kind printed "3" all read as the letter З, of which the set holds 2.
    scores, looks, kinds = _board()
    counts = np.array([0, 2, 2])
    label = np.array([150.0, 170.0, 140.0, 150.0, 168.0, 140.0, 25.0])
    for i in range(40, 47):
        kinds[i] = "="
        scores[i] = [0.01, 0.0, 0.99]
        looks[i] = label + np.random.default_rng(i).normal(0, 2, 7)
    scores[20:26] = [0.01, 0.0, 0.99]
    looks[20:26] = TILE
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, counts)
    assert (out[40:47].argmax(axis=1) == EMPTY).all()
    assert (out[20:26].argmax(axis=1) == LETTER).all()


def test_without_tiles_nothing_becomes_a_tile() -> None:
    # An empty board: a glare spot on one square looks like none of its siblings, and stays empty.
    scores, looks, kinds = _board()
    looks[5] = TILE
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    assert out[5, EMPTY] >= scores[5, EMPTY]
    assert (out.argmax(axis=1) == EMPTY).all()


def test_a_shadowed_square_keeps_its_hue_and_changes_only_its_lightness() -> None:
    # Two squares of one wood colour, the second in a shadow that halves its light.
    grid = np.zeros((44, 88, 3), np.uint8)
    grid[:, :44] = (110, 160, 200)
    grid[:, 44:] = (55, 80, 100)
    lit, shadowed = cell_looks(grid, 1, 2)[0]
    assert shadowed[0] < lit[0] - 40
    assert np.allclose(shadowed[[1, 2, 4, 5]], lit[[1, 2, 4, 5]], atol=1.5)


def test_a_square_half_covered_shows_its_own_colour_in_its_far_half() -> None:
    # A green square whose top 0.55 a neighbouring tile's overhang covers (cream): its middle
    # is mostly cream, its bottom half green.
    grid = np.zeros((44, 44, 3), np.uint8)
    grid[:] = (60, 200, 120)
    grid[:24] = (200, 225, 230)
    looks, halves = cell_looks(grid, 1, 1)
    middle = looks[0, :3]
    green = cell_looks(np.full((44, 44, 3), (60, 200, 120), np.uint8), 1, 1)[0][0, :3]
    cream = cell_looks(np.full((44, 44, 3), (200, 225, 230), np.uint8), 1, 1)[0][0, :3]
    assert np.abs(middle - green).max() > 5
    assert min(np.abs(half - green).max() for half in halves[0]) < 1.5
    assert min(np.abs(half - cream).max() for half in halves[0]) < 1.5


def test_darker_bands_of_grain_are_empty_though_the_classifier_is_sure_of_the_lit_ones() -> None:
    # Wood print: the classifier is sure only of the lit squares; those in darker bands of grain
    # (same hue, 40 less light) it takes for blanks, and they are empty like their siblings.
    scores, looks, kinds = _board()
    dark = np.arange(60) % 6 < 2
    looks[dark] -= [40, 0, 0, 40, 0, 0, 0]
    scores[dark] = [0.05, 0.95, 0.0]
    scores[dark & (np.arange(60) >= 36)] = [0.9, 0.1, 0.0]
    scores[20:24] = [0.01, 0.0, 0.99]
    looks[20:24] = TILE
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    tiles = np.zeros(60, bool)
    tiles[20:24] = True
    assert (out[dark & ~tiles].argmax(axis=1) == EMPTY).all()
    assert (out[20:24].argmax(axis=1) == LETTER).all()


def test_blanks_on_a_darker_band_of_wood_of_the_boards_hue_read_empty_as_doubts() -> None:
    # Held-out wood print 7400121 (ru, pale grey-green tiles): 60 plain squares in a darker band
    # of the cream wood read as blanks at 1.00 (the set holds two). Their light is nearer the
    # tiles' than their lit siblings', so all colours weighed together made them tiles; their
    # hue is their siblings' and not the tiles'. A blank of the tiles' hue stays a blank.
    rng = np.random.default_rng(2)
    lit = np.array([212.6, -4.6, 15.7, 206.5, -4.7, 15.4, 4.2])
    dark = np.array([164.0, -5.0, 15.8, 162.0, -5.1, 15.6, 4.9])
    tile = np.array([152.0, -7.9, 7.0, 154.5, -8.2, 8.3, 28.0])
    scores, looks, kinds = _board(90)
    looks[:] = lit + rng.normal(0, 1.5, looks.shape)
    band = (np.arange(90) >= 30) & (np.arange(90) < 60)
    looks[band] = dark + rng.normal(0, 1.5, (band.sum(), 7))
    scores[band] = [0.0001, 0.9999, 0.0]
    tiles = np.zeros(90, bool)
    tiles[[32, 38, 44, 50, 56, 62, 68, 74]] = True
    looks[tiles] = tile + rng.normal(0, 1.5, (tiles.sum(), 7))
    scores[tiles] = [0.01, 0.0, 0.99]
    looks[41] = tile * [1, 1, 1, 1, 1, 1, 0] + [0, 0, 0, 0, 0, 0, 4]
    scores[41] = [0.0001, 0.9999, 0.0]
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    wood = band & ~tiles
    wood[41] = False
    assert (out[wood].argmax(axis=1) == EMPTY).all()
    assert (out[wood, EMPTY] <= DOUBT + 1e-9).all()
    assert out[41].argmax() == BLANK
    assert (out[tiles].argmax(axis=1) == LETTER).all()


def test_a_glare_on_an_empty_square_reads_empty_as_a_doubt_and_on_a_letter_leaves_it() -> None:
    # A glare lights one empty square and one lettered tile far beyond their siblings; the
    # square keeps the board's hue and no ink, the tile its letter's ink.
    scores, looks, kinds = _board()
    scores[20:26] = [0.01, 0.0, 0.99]
    looks[20:26] = TILE
    looks[40] = WOOD + [70, 0, 0, 70, 0, 0, 0]
    scores[40] = [0.001, 0.999, 0.0]
    looks[41] = WOOD + [70, 0, 0, 70, 0, 0, 30]
    scores[41] = [0.1, 0.0, 0.9]
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    assert out[40].argmax() == EMPTY
    assert out[40, EMPTY] <= DOUBT + 1e-9
    assert out[41].argmax() == LETTER


def test_more_blanks_than_the_set_holds_on_tile_coloured_squares_read_empty_as_doubts() -> None:
    # Pale premium squares of nearly the tiles' colour, six read as blanks (the set holds two):
    # they are like their sure empty siblings, so they read empty, but only as a doubt.
    scores, looks, kinds = _board()
    pale = TILE * [1, 1, 1, 1, 1, 1, 0] + [0, 0, 0, 0, 0, 0, 12]
    rng = np.random.default_rng(1)
    for i in range(40, 50):
        kinds[i] = "="
        looks[i] = pale + rng.normal(0, 1.0, 7) + [8, 0, 0, 8, 0, 0, 0]
        scores[i] = [0.3, 0.7, 0.0] if i < 46 else [0.95, 0.05, 0.0]
    scores[20:26] = [0.01, 0.0, 0.99]
    looks[20:26] = TILE
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    assert (out[40:46].argmax(axis=1) == EMPTY).all()
    assert (out[40:46, EMPTY] <= DOUBT + 1e-9).all()
    # Without more look-alikes than the set holds, the classifier's blank stands.
    scores[42:46] = [0.95, 0.05, 0.0]
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    assert (out[40:42].argmax(axis=1) == BLANK).all()


def test_a_kind_nothing_vouches_for_takes_its_majority_look_as_empty_as_doubts() -> None:
    # Eight squares of a premium kind, each unsure (its printed label half read as a letter),
    # and no tile read with confidence anywhere: the seven alike read empty, as doubts; the one
    # unlike them (a tile) stays the classifier's.
    scores, looks, kinds = _board()
    premium = np.array([150.0, 170.0, 140.0, 150.0, 168.0, 140.0, 25.0])
    rng = np.random.default_rng(2)
    for i in range(40, 48):
        kinds[i] = "="
        looks[i] = premium + rng.normal(0, 1.0, 7)
        scores[i] = [0.4, 0.0, 0.6]
    looks[47] = TILE
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    assert (out[40:47].argmax(axis=1) == EMPTY).all()
    assert (out[40:47, EMPTY] <= DOUBT + 1e-9).all()
    assert out[47].argmax() == LETTER


def test_a_lone_centre_square_unlike_the_tiles_reads_empty_as_a_doubt() -> None:
    # The centre is a kind of its own: its logo read as a letter, its colours far from the tiles'.
    scores, looks, kinds = _board()
    scores[20:26] = [0.01, 0.0, 0.99]
    looks[20:26] = TILE
    kinds[33] = "*"
    looks[33] = [90.0, 180.0, 120.0, 90.0, 180.0, 120.0, 20.0]
    scores[33] = [0.3, 0.0, 0.7]
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    assert out[33].argmax() == EMPTY
    assert out[33, EMPTY] < SURE
    # On a pale board nearly the tiles' colour, one printed like the plain squares reads empty
    # too, as a doubt.
    pale = TILE + [0, 0, 14, 0, 0, 14, -22]
    looks = pale + np.random.default_rng(3).normal(0, 1.0, looks.shape)
    looks[20:26] = TILE
    looks[33] = pale
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    assert out[33].argmax() == EMPTY
    assert out[33, EMPTY] < SURE
    # One that looks like a tile stays the classifier's.
    looks[33] = TILE
    out = relative_to_board(scores, BoardLooks(looks, kinds, 6), EMPTY, BLANK, COUNTS)
    assert out[33].argmax() == LETTER


def test_a_square_of_the_tiles_colours_not_its_kinds_is_tile_coloured() -> None:
    # Six premium squares of a green print among wood ones, and six cream tiles: one premium
    # square shows the tiles' colours, another its kind's green with a letter-like print.
    _, looks, kinds = _board()
    green = np.array([120.0, 90.0, 140.0, 125.0, 90.0, 140.0, 25.0])
    for index in range(40, 46):
        kinds[index] = '"'
        looks[index] = green + np.random.default_rng(index).normal(0, 1.0, 7)
    looks[20:26] = TILE
    tiles = np.zeros(len(looks), bool)
    tiles[20:26] = True
    vacant = np.ones(len(looks), bool)
    vacant[20:26] = vacant[40:42] = False
    looks[40] = TILE + [2.0, -1.0, 1.0, 2.0, -1.0, 1.0, 4.0]
    targets = np.zeros(len(looks), bool)
    targets[[10, 40, 41]] = True
    coloured = tile_coloured(looks, kinds, 6, vacant, targets, tiles)
    assert np.flatnonzero(coloured).tolist() == [40]
    # With fewer than three tiles, nothing tells a tile's colours.
    tiles[22:26] = False
    assert not tile_coloured(looks, kinds, 6, vacant, targets, tiles).any()


@pytest.fixture(scope="module")
def classifier() -> CellClassifier:
    return CellClassifier()


def test_wood_print_board_of_the_held_out_family(classifier: CellClassifier) -> None:
    """An edition the model never saw: wood-print squares that it takes for blank tiles."""
    variant = load_variant("ru")
    seed = 7_000_004
    rng = np.random.default_rng(seed)
    style = heldout_edition(rng, "wood_print")
    rows = ["." * 15] * 6 + ["....КОРОВА.....", ".......Б.......", ".......Е.......", "." * 15]
    rows += ["." * 15] * 5
    image, corners, _ = render_board_photo(rows, "ru", style, seed, (1200, 900))
    grid = rectify(image, corners, classifier.cell_px, 15, 15)
    preds = classifier.predict(grid)
    looks = BoardLooks(
        cell_looks(grid, 15, 15)[0], [c for line in variant.layout.rows for c in line], 15
    )

    def tallies(cells: list) -> tuple[int, int]:
        flat = [c.label for line in cells for c in line]
        truth = [ch for line in rows for ch in line]
        false_tiles = sum(t == "." and got != "empty" for t, got in zip(truth, flat, strict=True))
        right_tiles = sum(t != "." and got == t for t, got in zip(truth, flat, strict=True))
        return false_tiles, right_tiles

    alone = tallies(read_cells(preds, variant, whole_board=True))
    weighed = tallies(read_cells(preds, variant, whole_board=True, looks=looks))
    assert alone[0] >= 10, "the classifier alone should stumble on this edition"
    # Measured: 158 squares taken for tiles alone, 11 weighed against the board.
    assert weighed[0] <= alone[0] // 8
    assert weighed[1] >= alone[1] == 8
