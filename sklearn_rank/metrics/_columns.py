"""Per-query and per-group columns without needless copies.

Millions of one-item queries make every per-query array as large as the input's columns:
a column holding one value for every query stays that value broadcast (`_constant`,
`_take`, `_elementwise`, `_as_float` keep it so), and an array that several requests of
one `evaluate` call read is kept until the last of them has read it (`_ReadLater`).
"""

from collections import Counter

import numpy as np


def _take(values, index):
    """``values[index]``, one value broadcast where ``values`` is (no copy of a constant)."""
    if values.strides == (0,) and values.size:
        return np.broadcast_to(values[:1], np.shape(index))
    return values[index]


def _elementwise(function, *arrays):
    """``function(*arrays)``, computed on one value and broadcast where every array is
    one value broadcast (the same float operation on the same value)."""
    if arrays[0].size and all(a.strides == (0,) for a in arrays):
        return np.broadcast_to(function(*(a[:1] for a in arrays)), arrays[0].shape)
    return function(*arrays)


def _as_float(values):
    """``values`` as float64, still one value broadcast where they were (read-only)."""
    if values.strides == (0,) and values.size:
        return np.broadcast_to(values[:1].astype(np.float64), values.shape)
    return values.astype(np.float64)


def _constant(values):
    """``values`` (read-only), as one value broadcast when they are all equal.

    One-item queries all start at position 0 and have tie groups of size 1: such columns
    then take no memory.
    """
    if values.size and values.strides != (0,) and np.all(values == values[0]):
        return np.broadcast_to(values[:1].copy(), values.shape)
    return values


class _ReadLater:
    """Arrays that several requests of one call read, each dropped after its last reader.

    ``expect`` announces the (registry name, cut-off k) of every request; until it is
    called, every array is kept for good.
    """

    def __init__(self):
        self._expected = None  # Counter of (metric name, k) of the requests served
        self._kept = {}  # key -> (array, requests still to read it; None: all)

    def expect(self, requests):
        self._expected = Counter(requests)

    def get(self, key, names, k, compute, any_k=False):
        """``compute()``, made once for the expected requests of the metrics ``names``
        with cut-off ``k`` (``any_k``: any), each of which reads it once."""
        if key in self._kept:
            value, readers = self._kept.pop(key)
        else:
            value = compute()
            readers = self.readers(names, k, any_k)
        if readers is None or readers > 1:
            self._kept[key] = value, None if readers is None else readers - 1
        return value

    def readers(self, names, k, any_k=False):
        """How many expected requests of the metrics ``names`` with cut-off ``k``
        (``any_k``: any) read an array: `get` keeps it when more than one does. None
        before ``expect``."""
        if self._expected is None:
            return None
        return sum(
            count
            for (name, at), count in self._expected.items()
            if name in names and (any_k or at == k)
        )
