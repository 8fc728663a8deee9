"""Blocks of whole queries, for computing a call on several threads (``n_jobs``).

Every metric is a per-query value, computed from that query's items only, so a `_Queries`
cut into blocks of consecutive queries gives, block by block, the very values the whole
gives (the tests check it bit for bit over every metric and input form): each block is
ranked and reduced on its own thread, and the per-query values are joined in query order
before the one aggregation. Blocks are made only when there is enough work for them.
"""

import dataclasses
import functools

import numpy as np

from ._counting import _offsets_of_counts

# Entries (candidates) a block must have at least: below that, starting threads and
# reducing a block cost more than they save. Tests lower it to split small inputs.
_MIN_BLOCK_ENTRIES = 1 << 16
# Blocks per thread: blocks of equal size can still take unequal time (relevant items
# and ties are not spread evenly), and a few more blocks than threads even it out.
_BLOCKS_PER_THREAD = 2


def _split_queries(queries, n_threads):
    """``queries`` cut into blocks of consecutive queries of about equal entries.

    Returns one function per block that makes it, as a `_Queries` of its own (query codes
    and entry numbers counted from the block's start), so that each block's copies are
    made on the thread that computes it; one block, ``queries`` itself, when one thread
    is asked for or the input is small.
    """
    n_entries = _n_entries(queries)
    n_blocks = min(n_threads * _BLOCKS_PER_THREAD, n_entries // _MIN_BLOCK_ENTRIES)
    n_blocks = min(n_blocks, queries.n_queries)
    if n_threads <= 1 or n_blocks <= 1:
        return [lambda: queries]
    extra = _extra_finder(queries.extra_codes)
    if queries.width is not None:
        bounds = np.linspace(0, queries.n_queries, n_blocks + 1).round().astype(np.int64)
        return [
            functools.partial(_matrix_block, queries, extra, lo, hi)
            for lo, hi in zip(bounds[:-1], bounds[1:])
        ]
    offsets = _offsets_of_counts(queries.n_cand)
    targets = np.linspace(0, n_entries, n_blocks + 1)
    bounds = np.unique(np.searchsorted(offsets, targets))
    bounds[0], bounds[-1] = 0, queries.n_queries
    codes = queries.codes
    grouped = _is_sorted(codes)
    return [
        functools.partial(_long_block, queries, extra, grouped, offsets, lo, hi)
        for lo, hi in zip(bounds[:-1], bounds[1:])
        if hi > lo
    ]


def _n_entries(queries):
    if queries.width is not None:
        return queries.n_queries * queries.width
    return queries.codes.size


def _sorted_range(keys, low, high, values=None):
    """The sorted ``keys`` in [low, high), counted from ``low`` (and their ``values``)."""
    if keys is None:
        return None, None
    a, b = np.searchsorted(keys, [low, high])
    return keys[a:b] - low, (None if values is None else values[a:b])


def _is_sorted(values):
    return values.size < 2 or bool(np.all(values[1:] >= values[:-1]))


def _extra_finder(codes):
    """A function giving the positions of the judged-never-scored items of queries lo..hi-1
    (their codes are sorted when they come from sorted judgments, as top-N inputs' are:
    then each block finds its own by a search instead of a pass over all of them)."""
    if codes is None:
        return None
    if _is_sorted(codes):
        return lambda lo, hi: slice(*np.searchsorted(codes, [lo, hi]))
    return lambda lo, hi: np.flatnonzero((codes >= lo) & (codes < hi))


def _extra_range(queries, extra, lo, hi):
    """Judged items never scored of queries lo..hi-1, with codes counted from lo."""
    if extra is None:
        return None, None
    keep = extra(lo, hi)
    return queries.extra_codes[keep] - lo, queries.extra_rel[keep]


def _matrix_block(queries, extra, lo, hi):
    width = queries.width
    low, high = lo * width, hi * width
    rows = slice(low, high)
    truth_keys, truth_rel = _sorted_range(queries.truth_keys, low, high, queries.truth_rel)
    zero_keys, _ = _sorted_range(queries.zero_keys, low, high)
    extra_codes, extra_rel = _extra_range(queries, extra, lo, hi)
    return dataclasses.replace(
        queries,
        n_queries=int(hi - lo),
        score=None if queries.score is None else queries.score[rows],
        n_cand=queries.n_cand[lo:hi],
        rel=None if queries.rel is None else queries.rel[rows],
        truth_keys=truth_keys,
        truth_rel=truth_rel,
        excluded=None if queries.excluded is None else queries.excluded[rows],
        extra_codes=extra_codes,
        extra_rel=extra_rel,
        judged_mask=None if queries.judged_mask is None else queries.judged_mask[rows],
        zero_keys=zero_keys,
        n_cand_unexcluded=None,
        side=_side_part(queries.side, rows),
    )


def _long_block(queries, extra, grouped, offsets, lo, hi):
    if grouped:  # the rows of queries lo..hi-1 are one run
        index = slice(offsets[lo], offsets[hi])
    else:
        # Rows of a query anywhere in the input: found by one pass on the block's own
        # thread, each query's rows in input order (what ties="stable" breaks ties by).
        codes = queries.codes
        index = np.flatnonzero((codes >= lo) & (codes < hi))
    extra_codes, extra_rel = _extra_range(queries, extra, lo, hi)

    def take(values):
        return None if values is None else values[index]

    return dataclasses.replace(
        queries,
        n_queries=int(hi - lo),
        score=take(queries.score),
        n_cand=queries.n_cand[lo:hi],
        codes=take(queries.codes) - lo,
        rel=take(queries.rel),
        extra_codes=extra_codes,
        extra_rel=extra_rel,
        judged_mask=take(queries.judged_mask),
        n_cand_unexcluded=None,
        side=_side_part(queries.side, index),
    )


def _side_part(side, index):
    """The side inputs of a block's entries (``index``: their positions)."""
    return None if side is None else {name: values[index] for name, values in side.items()}
