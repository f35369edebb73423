"""The premium-square fits' grouped deviations from the median equal, group by group, the sums
of `np.abs(x - np.median(x))` they stand for."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from vision.medians import median_deviations


def _reference(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Group by group, with `np.median`; `groups` is one row of labels for every row."""
    return sum(
        np.abs(
            values[..., groups == g] - np.median(values[..., groups == g], -1, keepdims=True)
        ).sum(axis=-1)
        for g in np.unique(groups)
    )


@settings(max_examples=200, deadline=None)
@given(
    arrays(
        np.float64,
        array_shapes(min_dims=1, max_dims=3, max_side=7),
        elements=st.floats(-1e4, 1e4, allow_nan=False),
    ),
    st.data(),
)
def test_same_sums_as_numpy_medians(values: np.ndarray, data: st.DataObject) -> None:
    n = values.shape[-1]
    groups = np.array(data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)))
    got = median_deviations(values, groups)
    assert got.shape == values.shape[:-1]
    assert np.allclose(got, _reference(values, groups), rtol=1e-9, atol=1e-6)
    assert np.allclose(median_deviations(values), _reference(values, np.zeros(n, int)))


def test_groups_may_differ_row_by_row() -> None:
    rng = np.random.default_rng(3)
    values = rng.normal(0, 50, (4, 2, 9))
    groups = rng.integers(0, 3, (2, 9))  # one labelling per block, broadcast over the first axis
    got = median_deviations(values, groups)
    for b in range(2):
        assert np.allclose(got[:, b], _reference(values[:, b], groups[b]))


def test_a_group_of_one_and_equal_values_weigh_nothing() -> None:
    values = np.array([[5.0, 7.0, 7.0, 7.0, -2.0]])
    assert median_deviations(values, np.array([0, 1, 1, 1, 2])).tolist() == [0.0]
