"""`rank_biased_overlap` (two rankings) and `rank_biased_overlap_runs` (per query, two
runs): how much two rankings agree, top-weighted, with ties (kernel in ``_rbo_kernel``)."""

from collections.abc import Set

import numpy as np

from ..utils._ids import _concat_ids, _factorize
from ..utils._validation import _shown
from ._rbo_kernel import SCORES, _rbo

TIES = ("a", "b", "w")

_SHARED_DOC = """p : float, default=0.9
        Persistence, in (0, 1): the weight of depth d is proportional to p ** (d - 1), so
        the top ``1 / (1 - p)`` ranks hold most of it (p = 0.9: 86% on the top 10).
    ties : {"a", "b", "w"}, default="a"
        How tied items count (Corsi & Urbano): ``"w"`` as equals, each seen from its group's
        top rank (ties that mean equality, as in sports); ``"a"`` as tied at random, the
        expected RBO over the ways to break the ties; ``"b"`` as ``"a"`` corrected for the
        information ties lose, so that a ranking with ties scores 1 with itself. Without
        ties the three are Webber, Moffat & Zobel's RBO."""


def _check_p_and_ties(p, ties):
    if (
        isinstance(p, (bool, np.bool_))
        or not isinstance(p, (int, float, np.integer, np.floating))
        or not 0 < p < 1
    ):
        raise ValueError(f"p must be a number in (0, 1); got {_shown(p)}.")
    if not isinstance(ties, str) or ties not in TIES:
        raise ValueError(f"ties must be one of 'a', 'b', 'w'; got {_shown(ties)}.")
    return float(p)


def _flatten(ranking, name, codes):
    """(item codes, top ranks, group sizes) of a ranking given as items or tie groups."""
    if isinstance(ranking, (str, bytes, Set)) or not hasattr(ranking, "__iter__"):
        raise ValueError(
            f"{name} must be a sequence of items or of tie groups (sets); got {_shown(ranking)}."
        )
    items, tops, sizes = [], [], []
    rank = 1
    for entry in ranking:
        group = list(entry) if isinstance(entry, (Set, list)) else [entry]
        if not group:
            raise ValueError(f"{name} has an empty tie group at rank {rank}.")
        for item in group:
            try:
                code = codes.setdefault(item, len(codes))
            except TypeError:
                raise ValueError(
                    f"{name} must hold hashable items; got {type(item).__name__}."
                ) from None
            items.append(code)
            tops.append(rank)
            sizes.append(len(group))
        rank += len(group)
    if not items:
        raise ValueError(f"{name} must rank at least one item; got an empty ranking.")
    items = np.array(items, dtype=np.int64)
    if np.unique(items).size != items.size:
        counts = np.bincount(items)
        repeated = next(item for item, code in codes.items() if counts[code] > 1)
        raise ValueError(f"{name} ranks item {repeated!r} more than once.")
    pair = np.zeros(items.size, dtype=np.int64)
    return pair, items, np.array(tops, dtype=np.int64), np.array(sizes, dtype=np.int64)


def rank_biased_overlap(x, y, *, p=0.9, ties="a"):
    """Rank-biased overlap of two rankings, with ties: extrapolated score and bounds.

    RBO is the expected overlap of the two rankings' tops at a depth drawn with weight
    ``(1 - p) * p ** (d - 1)``: 1 for identical infinite rankings, 0 for disjoint ones, and
    most sensitive to the top ranks. From two finite prefixes (of any lengths: "uneven"
    lists are handled exactly) it gives the lower bound ``min`` (nothing more in common
    below the prefixes), the upper bound ``max`` (everything unseen matches as soon as
    possible), their difference ``res``, and the extrapolation ``ext`` (the agreement of
    the seen part continues).

    Parameters
    ----------
    x, y : sequence
        The two rankings, best first: each entry an item (any hashable but a set or a
        list) or a tie group of items (a set or a list), e.g. ``["red", {{"blue",
        "green"}}, "yellow"]``. Each item at most once per ranking; neither empty.
    {shared}

    Returns
    -------
    scores : dict
        ``{{"ext": float, "min": float, "max": float, "res": float}}``, each in [0, 1],
        with ``min <= ext <= max`` and ``res = max - min``.

    Raises
    ------
    ValueError
        For ``p`` outside (0, 1), an unknown ``ties``, an empty ranking or tie group, or
        an item ranked twice in one ranking.

    See Also
    --------
    rank_biased_overlap_runs : The same per query between two runs.

    Notes
    -----
    Without ties, the formulas are Webber, Moffat & Zobel's [1]_ (eqs. 11, 30 and 32 for
    min, res and ext). With ties, the variants and their sections for uneven lists are
    Corsi & Urbano's [2]_, as their published code computes them; scores are clipped to
    [0, 1] as in their R code (sums of floats may give 1.0000000000000002). Unlike some
    packages, the overlap at each depth is counted, not estimated from the shorter list,
    so uneven lists are right.

    References
    ----------
    .. [1] W. Webber, A. Moffat and J. Zobel, "A similarity measure for indefinite
       rankings", ACM TOIS 28(4), 2010.
    .. [2] M. Corsi and J. Urbano, "The treatment of ties in rank-biased overlap", SIGIR
       2024.

    Examples
    --------
    >>> from sklearn_rank import rank_biased_overlap
    >>> # The authors' example (p = 0.95):
    >>> x = ["red", {{"blue", "green"}}, "yellow", "pink"]
    >>> y = [{{"blue", "red"}}, "white", {{"yellow", "black", "purple"}}, "green"]
    >>> scores = rank_biased_overlap(x, y, p=0.95, ties="a")
    >>> {{name: round(value, 7) for name, value in scores.items()}}
    {{'ext': 0.6922853, 'min': 0.3310519, 'max': 0.8930692, 'res': 0.5620173}}
    >>> round(rank_biased_overlap(["a", "b", "c"], ["a", "b", "c"])["ext"], 12)
    1.0
    """
    p = _check_p_and_ties(p, ties)
    codes = {}
    flat_x = _flatten(x, "x", codes)
    flat_y = _flatten(y, "y", codes)
    scores = _rbo(flat_x, flat_y, 1, p, ties)
    return {name: float(scores[name][0]) for name in SCORES}


rank_biased_overlap.__doc__ = rank_biased_overlap.__doc__.format(shared=_SHARED_DOC)


def _ranked(pair, item, score):
    """Flat (pair, item, top, size) of rankings by descending score, equal scores tied;
    ``score`` None keeps the rows' order (no ties)."""
    key = -np.arange(pair.size, dtype=np.float64) if score is None else score
    order = np.lexsort((-key, pair))
    pair, item, key = pair[order], item[order], key[order]
    start_of_pair = np.searchsorted(pair, pair, side="left")
    new_group = np.ones(pair.size, dtype=bool)
    new_group[1:] = (pair[1:] != pair[:-1]) | (key[1:] != key[:-1])
    group = np.cumsum(new_group) - 1
    group_start = np.flatnonzero(new_group)
    size = np.diff(np.append(group_start, pair.size))[group]
    top = group_start[group] - start_of_pair + 1
    return pair, item, top.astype(np.int64), size.astype(np.int64)


def _runs_as_rows(run_x, run_y):
    """Each run as (query ids, item ids, scores or None), or the shared query ids and
    (rows, columns, scores) of two score matrices."""
    runs = []
    for name, run in (("run_x", run_x), ("run_y", run_y)):
        if hasattr(run, "queries") and hasattr(run, "items") and hasattr(run, "scores"):
            runs.append((np.asarray(run.queries), np.asarray(run.items), run.scores))
            continue
        matrix = np.asarray(run, dtype=np.float64) if not isinstance(run, np.ndarray) else run
        if matrix.ndim != 2 or matrix.dtype.kind not in "fiu":
            raise ValueError(
                f"{name} must be an ItemRanking or a 2-D array of scores (queries x items, "
                f"NaN for an item not ranked); got {_shown(run)}."
            )
        matrix = matrix.astype(np.float64, copy=False)
        rows, columns = np.nonzero(~np.isnan(matrix))
        runs.append((rows, columns, matrix[rows, columns]))
    return runs


def rank_biased_overlap_runs(run_x, run_y, *, p=0.9, ties="a", depth=None):
    """Rank-biased overlap of two runs, query by query, ties from equal scores.

    Each query's two rankings (items by descending score, equal scores tied) are compared
    as `rank_biased_overlap` compares two rankings; all queries at once.

    Parameters
    ----------
    run_x, run_y : ItemRanking or ndarray of shape (n_queries, n_items)
        The two runs, both in the same form: `ItemRanking` (query, item and score per row;
        without scores the rows of a query are in rank order), or score matrices with one
        row per query and one column per item, NaN for an item a run does not rank.
    {shared}
    depth : int, default=None
        Compare only the items ranked in the top ``depth`` of each run (a tie group that
        straddles the cut is kept whole: its items are equally placed); None compares
        everything ranked.

    Returns
    -------
    scores : dict
        ``"query_ids"``: ndarray of shape (n_queries,), every query of either run (row
        numbers for matrices); ``"ext"``, ``"min"``, ``"max"``, ``"res"``: ndarrays of
        shape (n_queries,), NaN for a query one run does not rank.

    Raises
    ------
    ValueError
        For runs of different forms or shapes, an item ranked twice for a query, ``p``
        outside (0, 1), an unknown ``ties`` or a ``depth`` below 1.

    See Also
    --------
    rank_biased_overlap : Two rankings given as lists; the formulas and references.

    Notes
    -----
    Ties come from equal scores only: trec_eval's order of tied documents (by document
    id) is not applied, since a tie is what RBO's variants are for.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank import rank_biased_overlap_runs
    >>> run_x = np.array([[3.0, 2.0, 1.0, np.nan], [1.0, 1.0, 2.0, 3.0]])
    >>> run_y = np.array([[3.0, 1.0, 2.0, np.nan], [4.0, 3.0, 2.0, 1.0]])
    >>> scores = rank_biased_overlap_runs(run_x, run_y, p=0.9)
    >>> scores["query_ids"], np.round(scores["ext"], 4)
    (array([0, 1]), array([0.955, 0.783]))
    """
    p = _check_p_and_ties(p, ties)
    if depth is not None and (
        isinstance(depth, (bool, np.bool_)) or not isinstance(depth, (int, np.integer)) or depth < 1
    ):
        raise ValueError(f"depth must be None or an integer >= 1; got {_shown(depth)}.")
    item_forms = [hasattr(run, "queries") for run in (run_x, run_y)]
    if item_forms[0] != item_forms[1] or (not item_forms[0] and np.shape(run_x) != np.shape(run_y)):
        raise ValueError(
            "run_x and run_y must both be ItemRanking or score matrices of the same shape; "
            f"got {_shown(run_x)} and {_shown(run_y)}."
        )
    (qx, ix, sx), (qy, iy, sy) = _runs_as_rows(run_x, run_y)
    if item_forms[0]:
        codes, query_ids = _factorize(_concat_ids([qx, qy]), None, "queries")
        pair_x, pair_y = codes[: qx.size], codes[qx.size :]
        item_codes, _ = _factorize(_concat_ids([ix, iy]), None, "items")
        item_x, item_y = item_codes[: ix.size], item_codes[ix.size :]
    else:
        query_ids = np.arange(np.shape(run_x)[0])
        pair_x, pair_y, item_x, item_y = qx, qy, ix, iy
    flat = []
    for name, pair, item, score in (("run_x", pair_x, item_x, sx), ("run_y", pair_y, item_y, sy)):
        pair, item = pair.astype(np.int64), item.astype(np.int64)
        if item_forms[0]:  # rows of an ItemRanking may repeat an item; a matrix cannot
            key = np.sort(pair * (int(item.max(initial=-1)) + 1) + item)
            if (key[1:] == key[:-1]).any():
                raise ValueError(f"{name} ranks an item more than once for a query.")
        ranked = _ranked(pair, item, None if score is None else np.asarray(score, np.float64))
        if depth is not None:
            kept = ranked[2] <= depth
            ranked = tuple(column[kept] for column in ranked)
        flat.append(ranked)
    scores = _rbo(flat[0], flat[1], query_ids.size, p, ties)
    return {"query_ids": query_ids, **scores}


rank_biased_overlap_runs.__doc__ = rank_biased_overlap_runs.__doc__.format(shared=_SHARED_DOC)
