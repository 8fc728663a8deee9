"""Sampled negatives: each user's held-out positives with m negatives drawn uniformly from
the items the user has neither as a positive nor among the excluded ones.

The draws are vectorised over users: the j-th allowed item of a user is found by binary
search among the user's forbidden items (positives and excluded), never by listing the
allowed ones, so the work grows with the forbidden items and the draws, not with the
catalogue; distinct draws use Floyd's algorithm, one step per draw for every user at once.
"""

import numpy as np

from ..conventions._docs import _with_declarations
from ..conventions._sampling import N_NEGATIVES, REPLACEMENT
from ..utils._sparse import _issparse, _sparse


def _as_csr(name, matrix, shape=None):
    if _issparse(matrix):
        csr = _sparse().csr_matrix(matrix)
    else:
        array = np.asarray(matrix)
        if array.ndim != 2 or array.dtype.kind not in "biuf":
            raise ValueError(
                f"{name} must be a 2-D array or sparse matrix of numbers (users x items); "
                f"got an array of shape {array.shape} and dtype {array.dtype}."
            )
        csr = _sparse().csr_matrix(array)
    if shape is not None and csr.shape != shape:
        raise ValueError(f"{name} must have the shape of y_true {shape}; got {csr.shape}.")
    if csr.dtype.kind == "f" and not np.isfinite(csr.data).all():
        raise ValueError(f"{name} must be finite.")
    csr.eliminate_zeros()
    csr.sort_indices()
    return csr


@_with_declarations([N_NEGATIVES, REPLACEMENT])
def sample_negatives(y_true, n_negatives, *, exclude=None, replacement=False, random_state=None):
    """Draw ``n_negatives`` negatives for every user with a positive, uniformly.

    The sampled protocol of recommender evaluation: each user's held-out positives are
    ranked among m negatives instead of the whole catalogue. Negatives are drawn from the
    items that are neither the user's positives nor excluded (the user's training items).
    Score the rows returned with the model, then pass them to `evaluate` with
    ``catalog_size`` (and a ``correction`` for an estimate of the catalogue's metric).

    Parameters
    ----------
    y_true : array-like or sparse matrix of shape (n_users, n_items)
        The held-out relevance: every non-zero entry is a positive of its user.
    {n_negatives}
    exclude : array-like or sparse matrix of shape (n_users, n_items), default=None
        Items never drawn as negatives (non-zero entries), such as each user's training
        items. They are not in the user's catalogue.
    {replacement}
    random_state : int, RandomState instance or None, default=None
        Seeds the draws, as in scikit-learn.

    Returns
    -------
    sample : Bunch
        The sampled lists in long format, one row per positive and per drawn negative,
        users in row order, each user's positives first (item order):

        groups : ndarray of shape (n_rows,)
            The user (row of ``y_true``) of each row.
        item_ids : ndarray of shape (n_rows,)
            The item (column of ``y_true``) of each row; with ``replacement=True`` a
            negative may appear twice.
        y_true : ndarray of shape (n_rows,)
            The relevance of each row: the positive's value, 0 for a negative.
        catalog_size : ndarray of shape (n_sampled_users,)
            Per user with a positive (in the order of ``groups``), the number of items its
            list was drawn from: its positives and every item it could draw; pass it to
            `evaluate` as ``catalog_size``.

    Users without a positive get no rows.

    See Also
    --------
    evaluate : ``catalog_size`` and ``correction`` estimate the catalogue's metric.

    References
    ----------
    .. [1] W. Krichene and S. Rendle, "On Sampled Metrics for Item Recommendation",
       KDD 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank import sample_negatives
    >>> y_true = np.array([[1, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 1]])
    >>> train = np.array([[0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]])
    >>> sample = sample_negatives(y_true, 2, exclude=train, random_state=0)
    >>> sample.groups
    array([0, 0, 0, 1, 1, 1, 1])
    >>> sample.y_true
    array([1, 0, 0, 1, 1, 0, 0])
    >>> sample.catalog_size
    array([5, 6])
    >>> bool(np.isin(sample.item_ids[:3], [0, 2, 3, 4, 5]).all())
    True
    """
    m = N_NEGATIVES.validate(n_negatives)
    replacement = REPLACEMENT.validate(replacement)
    truth = _as_csr("y_true", y_true)
    n_users, n_items = truth.shape
    positives = truth.astype(bool).astype(np.int8)
    forbidden = positives
    if exclude is not None:
        excluded = _as_csr("exclude", exclude, truth.shape).astype(bool).astype(np.int8)
        forbidden = (positives + excluded).astype(bool).astype(np.int8)
    forbidden = _sparse().csr_matrix(forbidden)
    forbidden.sort_indices()
    n_positives = np.diff(positives.indptr).astype(np.int64)
    n_allowed = n_items - np.diff(forbidden.indptr).astype(np.int64)
    users = np.flatnonzero(n_positives > 0)
    _check_draws(users, n_allowed, m, replacement)
    # scikit-learn's utils import pandas and pyarrow: imported when called, so that
    # importing the package (and reading a small file) stays light.
    from sklearn.utils import check_random_state

    rng = check_random_state(random_state)
    allowed_counts = n_allowed[users]
    if replacement:
        drawn = rng.randint(0, np.repeat(allowed_counts, m)).reshape(users.size, m)
    else:
        drawn = _distinct_draws(rng, allowed_counts, m)
        drawn.sort(axis=1)
    negatives = _allowed_items(forbidden, users, drawn, n_items)
    return _long_format(truth, users, n_positives, negatives, n_allowed)


def _check_draws(users, n_allowed, m, replacement):
    too_few = n_allowed[users] < (1 if replacement else m)
    if too_few.any():
        user = int(users[np.flatnonzero(too_few)[0]])
        need = "at least one" if replacement else f"at least n_negatives={m}"
        raise ValueError(
            f"user {user} has {int(n_allowed[user])} items to draw negatives from; "
            f"{'with' if replacement else 'without'} replacement it needs {need}."
        )


def _distinct_draws(rng, counts, m):
    """Per user, m distinct numbers from 0 .. count - 1 (Floyd's algorithm, each step
    over every user at once)."""
    drawn = np.empty((counts.size, m), dtype=np.int64)
    for step in range(m):
        top = counts - m + step  # the step's largest number
        pick = rng.randint(0, top + 1)
        seen = (drawn[:, :step] == pick[:, None]).any(axis=1)
        drawn[:, step] = np.where(seen, top, pick)
    return drawn


def _allowed_items(forbidden, users, drawn, n_items):
    """The ``drawn[u, j]``-th allowed item (0-based) of each user: j plus the number of
    forbidden items f_t (the t-th of its row) with f_t - t <= j."""
    start = forbidden.indptr[:-1]
    row = np.repeat(np.arange(forbidden.shape[0]), np.diff(forbidden.indptr))
    rank_in_row = np.arange(forbidden.indices.size) - start[row]
    stride = n_items + 1
    keys = row * stride + (forbidden.indices - rank_in_row)
    wanted = users[:, None] * stride + drawn
    before = np.searchsorted(keys, wanted, side="right") - start[users][:, None]
    return drawn + before


def _long_format(truth, users, n_positives, negatives, n_allowed):
    m = negatives.shape[1]
    counts = n_positives[users]
    positive_values = truth.data
    per_user = counts + m
    groups = np.repeat(users, per_user)
    items = np.empty(groups.size, dtype=np.int64)
    y_true = np.zeros(groups.size, dtype=positive_values.dtype)
    first = np.cumsum(per_user) - per_user
    positive_slots = np.repeat(first, counts) + (
        np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
    )
    items[positive_slots] = truth.indices
    y_true[positive_slots] = positive_values
    negative_slots = (first + counts)[:, None] + np.arange(m)[None, :]
    items[negative_slots.ravel()] = negatives.ravel()
    from sklearn.utils import Bunch

    return Bunch(
        groups=groups, item_ids=items, y_true=y_true, catalog_size=n_allowed[users] + counts
    )
