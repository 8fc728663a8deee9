"""The folds of grouped cross-validation and searches: query ids and routed weights
checked against the rows, and every fold checked to keep each query whole, whatever
splitter made it."""

from numbers import Integral, Real

import numpy as np
from sklearn.model_selection import GroupKFold

from ..utils._ids import _factorize, _id_array
from ..utils._validation import _num_rows, _python_value


def _checked_cv(cv):
    """``cv`` as a splitter or an iterable of folds; ints (numpy's too) mean GroupKFold."""
    if cv is None:
        return GroupKFold(n_splits=5)
    not_a_count = isinstance(cv, Real) and not isinstance(cv, Integral)
    if isinstance(cv, (bool, np.bool_, str, bytes)) or not_a_count:
        # A str has a split method of its own; floats and bools are not fold counts.
        raise ValueError(
            "cv must be None, an int (at least 2: the number of GroupKFold folds), a "
            f"splitter or a list of (train, test) folds; got {cv!r}."
        )
    if isinstance(cv, Integral):
        if cv < 2:
            raise ValueError(
                f"cv={cv!r}: an int is the number of GroupKFold folds and must be at least 2."
            )
        return GroupKFold(n_splits=int(cv))
    if not hasattr(cv, "split") and not hasattr(cv, "__iter__"):
        raise ValueError(
            "cv must be None, an int, a splitter (with a split method) or a list of "
            f"(train, test) folds; got {type(cv).__name__}."
        )
    return cv


def _describe(cv, folds):
    """``cv`` for an error message: a splitter's repr, never a list of index arrays."""
    if hasattr(cv, "split"):
        return f"cv={cv!r}"
    return f"cv (a list of {len(folds)} fold{'' if len(folds) == 1 else 's'})"


def _fold_indices(cv, number, side, indices, n_rows):
    """One side of a fold as an int64 index array, with an error naming the fold."""
    where = f"{cv}: fold {number}'s {side} set"
    try:
        indices = np.asarray(indices)
    except ValueError:  # ragged
        raise ValueError(f"{where} must be a 1-D array of row indices.") from None
    if indices.dtype == bool:
        if indices.shape != (n_rows,):
            raise ValueError(
                f"{where} is a boolean mask of shape {indices.shape}; a mask needs one "
                f"entry per row ({n_rows})."
            )
        indices = np.flatnonzero(indices)
    elif indices.ndim != 1 or (indices.size and indices.dtype.kind not in "iu"):
        raise ValueError(
            f"{where} must be a 1-D array of integer row indices or a boolean mask; got an "
            f"array of shape {indices.shape} and dtype {indices.dtype}."
        )
    indices = indices.astype(np.int64, copy=False)
    if indices.size == 0:
        purpose = "score" if side == "test" else "fit"
        raise ValueError(f"{where} is empty; every fold needs rows to {purpose}.")
    bad = (indices < 0) | (indices >= n_rows)
    if bad.any():
        raise ValueError(
            f"{where} holds row index {int(indices[bad][0])}; indices must be in [0, {n_rows})."
        )
    return indices


def _split_ids(groups, codes):
    """The ids a splitter receives: the caller's, unless numpy cannot sort them.

    Splitters such as GroupKFold sort the ids (np.unique); ids of mixed types (1 and
    "1", which are different queries) cannot be sorted, so the splitter gets each
    query's number in order of first appearance instead.
    """
    if groups.dtype != object:
        return groups
    try:
        np.unique(groups)
    except TypeError:
        return codes
    return groups


def _checked_splits(cv, X, y, groups):
    """Materialise the folds of ``cv`` and refuse any that splits a query."""
    codes, ids = _factorize(groups, groups.shape[0])  # also refuses NaN, unhashable ids
    n_rows = groups.shape[0]
    cv = _checked_cv(cv)
    if hasattr(cv, "split"):
        folds = list(cv.split(X, y, _split_ids(groups, codes)))
    else:
        folds = list(cv)
    described = _describe(cv, folds)
    if not folds:
        raise ValueError(f"{described} produced no folds.")
    checked = []
    for number, fold in enumerate(folds):
        try:
            train, test = fold
        except (TypeError, ValueError):
            raise ValueError(
                f"{described}: fold {number} must be a (train indices, test indices) pair; "
                f"got {type(fold).__name__}."
            ) from None
        train = _fold_indices(described, number, "training", train, n_rows)
        test = _fold_indices(described, number, "test", test, n_rows)
        shared = np.intersect1d(codes[train], codes[test])
        if shared.size:
            query = _python_value(ids[shared[0]])
            raise ValueError(
                f"{described} put rows of query {query!r} in both the training and "
                f"the test set of fold {number}: it ignores groups. Use a group-aware "
                "splitter such as GroupKFold, GroupShuffleSplit, StratifiedGroupKFold or "
                "LeaveOneGroupOut (or an int for GroupKFold)."
            )
        checked.append((train, test))
    return checked


def _check_groups(groups, X, call="groups=query_ids"):
    """Query ids as a 1-D array, one per row of X; 1 and "1" stay different ids."""
    if groups is None:
        raise ValueError(
            f"groups is required: pass the query id of every row of X ({call}); got None. "
            "The splitter keeps each query in one fold with them, and the ranking scorers "
            "score per query."
        )
    n_rows = _num_rows(X)
    if isinstance(groups, (list, tuple)):
        # np.asarray would turn [1, "1"] into ["1", "1"]: two queries into one.
        ids = _id_array(list(groups))
    else:
        ids = np.asarray(groups)
    if ids.ndim != 1 or ids.shape[0] != n_rows:
        raise ValueError(
            f"groups must hold one query id per row of X ({n_rows} rows); got shape {ids.shape}."
        )
    return ids


def _check_row_weights(params, n_rows):
    """A routed ``sample_weight`` must have one entry per row: folds select rows of it.

    scikit-learn passes metadata of any other length to every fold unchanged, where a
    ranking scorer would compare it with the fold's own queries and rows.
    """
    weights = params.get("sample_weight")
    if weights is None:
        return
    shape = np.shape(weights)
    if shape != (n_rows,):
        raise ValueError(
            f"sample_weight must hold one weight per row of X ({n_rows} rows); got shape "
            f"{shape}. In cross-validation a query's weight is repeated on each of its "
            "rows, so that every fold selects its own."
        )
