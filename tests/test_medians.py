"""The premium-square fits' sorted median gives `np.median`'s values exactly."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from vision.medians import median_keepdims


@settings(max_examples=200, deadline=None)
@given(
    arrays(
        np.float64,
        array_shapes(min_dims=1, max_dims=4, max_side=6),
        elements=st.floats(-1e6, 1e6, allow_nan=False),
    ),
    st.data(),
)
def test_same_values_as_numpy(values: np.ndarray, data: st.DataObject) -> None:
    axis = data.draw(st.integers(-values.ndim, values.ndim - 1))
    expected = np.median(values, axis=axis, keepdims=True)
    assert np.array_equal(median_keepdims(values, axis), expected)


def test_float32_stays_float32() -> None:
    values = np.arange(24, dtype=np.float32).reshape(2, 4, 3) / 7
    got = median_keepdims(values, 1)
    assert got.dtype == np.float32
    assert np.array_equal(got, np.median(values, axis=1, keepdims=True))
