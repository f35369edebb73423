"""vision.grid_edges: a grid placed near a lineless board's grid settles on its outer squares'
edges, and stays where it is where no edge shows."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from scorer.variant import load_variant
from training.render import heldout_edition, random_rows, render_board_photo
from vision.grid_edges import settle_on_edges
from vision.pyramid import Pyramid


def _error_cells(found: np.ndarray, truth: np.ndarray) -> float:
    cell = float(np.linalg.norm(truth[1] - truth[0])) / 15
    return float(np.linalg.norm(found - truth, axis=1).max()) / cell


@pytest.mark.parametrize("seed", [3, 11])
def test_a_grid_off_by_a_third_of_a_cell_settles_on_the_outer_squares(seed: int) -> None:
    rng = np.random.default_rng(seed)
    style = dataclasses.replace(heldout_edition(rng, "wood_print"), line_width=0.0)
    rows = random_rows(rng, load_variant("en").alphabet, 0.15)
    photo, truth, _ = render_board_photo(rows, "en", style, seed, (960, 720))
    truth = np.asarray(truth, np.float64)
    cell = float(np.linalg.norm(truth[1] - truth[0])) / 15
    # Every corner moved a third of a cell, each its own way: the grid is skewed, not shifted.
    directions = np.array([[-1.0, -0.5], [0.8, -1.0], [1.0, 0.6], [-0.6, 1.0]])
    off = truth + 0.33 * cell * directions / np.linalg.norm(directions, axis=1, keepdims=True)
    assert _error_cells(off, truth) > 0.3
    settled = settle_on_edges(Pyramid(photo), off, 15, 15)
    assert _error_cells(settled, truth) < 0.12


def test_a_grid_where_no_edge_shows_stays_where_it_was() -> None:
    rng = np.random.default_rng(5)
    plain = np.clip(rng.normal(140, 3, (600, 600, 3)), 0, 255).astype(np.uint8)
    corners = np.array([[100.0, 110.0], [500.0, 100.0], [505.0, 500.0], [95.0, 490.0]])
    settled = settle_on_edges(Pyramid(plain), corners, 15, 15)
    assert np.allclose(settled, corners, atol=1e-3)
