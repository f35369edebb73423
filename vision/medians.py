"""Sums of absolute deviations from the median, within groups, along the last axis of stacked
arrays: the premium-square fits' measure of how alike squares of one kind look.

Hand-written over `np.median`: those fits take, per photo, the deviations of hundreds of
thousands of small groups (each premium kind's squares, at each offset tried, per channel).
The sum of |x - median| over a group is the sum of its upper half less the sum of its lower half
(the middle element of an odd count weighs nothing), so one sort of the whole last axis, with
each group's values lifted above the previous group's, gives every group's sum at once: no
median is taken, no group is cut out. Inputs hold no NaN.
"""

from __future__ import annotations

import numpy as np


def median_deviations(values: np.ndarray, groups: np.ndarray | None = None) -> np.ndarray:
    """Per group, the sum over the last axis of |x - the median of x's group|, summed over the
    groups: `values` (..., n) floats; `groups` (..., n) small non-negative ints naming each
    element's group, broadcast against `values` (None: one group). Returns `values.shape[:-1]`.

    >>> a = np.array([[3.0, 1.0, 2.0, 5.0], [4.0, 0.0, 1.0, 2.0]])
    >>> median_deviations(a).tolist()
    [5.0, 5.0]
    >>> median_deviations(a, np.array([0, 0, 1, 1])).tolist()
    [5.0, 5.0]
    """
    if groups is None:
        # Partitioned about the middle, the halves are in place without a whole sort.
        n = values.shape[-1]
        return np.partition(values, n // 2, axis=-1) @ _half_weights(np.zeros(n, int))
    groups = np.asarray(groups)
    ordered_groups = np.sort(groups, axis=-1)
    # Each group's values lifted clear of the previous group's: one sort orders them group by
    # group, and within each group by value.
    lift = float(values.max() - values.min()) + 1.0 if values.size else 1.0
    ordered = values + groups * lift
    ordered.sort(axis=-1)
    ordered -= ordered_groups * lift
    ordered *= _half_weights(ordered_groups)
    return ordered.sum(axis=-1)


def _half_weights(ordered_groups: np.ndarray) -> np.ndarray:
    """-1 for the lower half of each run of equal group numbers, +1 for its upper half, 0 for
    the middle element of a run of odd length (`ordered_groups` sorted along its last axis)."""
    n = ordered_groups.shape[-1]
    index = np.broadcast_to(np.arange(n), ordered_groups.shape)
    starts = np.ones(ordered_groups.shape, bool)
    starts[..., 1:] = ordered_groups[..., 1:] != ordered_groups[..., :-1]
    ends = np.ones(ordered_groups.shape, bool)
    ends[..., :-1] = starts[..., 1:]
    first = np.maximum.accumulate(np.where(starts, index, 0), axis=-1)
    last = np.flip(np.minimum.accumulate(np.flip(np.where(ends, index, n), -1), axis=-1), -1)
    size, rank = last - first + 1, index - first
    return np.where(rank < size // 2, -1.0, np.where(rank >= size - size // 2, 1.0, 0.0))
