"""`sample_negatives`: what it draws from, how uniformly, seeded, and what it refuses."""

import itertools

import numpy as np
import pytest
import scipy.sparse
from scipy import stats

from sklearn_rank import sample_negatives


def _random_truth(seed, n_users=40, n_items=60):
    rng = np.random.default_rng(seed)
    y_true = (rng.random((n_users, n_items)) < 0.05).astype(np.int64)
    y_true[0] = 0  # a user without positives gets no rows
    train = (rng.random((n_users, n_items)) < 0.3).astype(np.int64)
    return y_true, train


@pytest.mark.parametrize("replacement", [False, True])
def test_draws_only_allowed_items_and_sizes_the_catalogue(replacement):
    y_true, train = _random_truth(0)
    sample = sample_negatives(y_true, 7, exclude=train, replacement=replacement, random_state=3)
    users = np.unique(sample.groups)
    assert 0 not in users
    np.testing.assert_array_equal(users, np.flatnonzero(y_true.any(axis=1)))
    for position, user in enumerate(users):
        rows = sample.groups == user
        items, labels = sample.item_ids[rows], sample.y_true[rows]
        np.testing.assert_array_equal(items[labels == 1], np.flatnonzero(y_true[user]))
        negatives = items[labels == 0]
        assert negatives.size == 7
        assert not y_true[user, negatives].any() and not train[user, negatives].any()
        if not replacement:
            assert np.unique(negatives).size == 7
        allowed = np.flatnonzero((y_true[user] == 0) & (train[user] == 0)).size
        assert sample.catalog_size[position] == allowed + y_true[user].sum()


def test_dense_and_sparse_inputs_draw_the_same_and_seeds_repeat():
    y_true, train = _random_truth(1)
    dense = sample_negatives(y_true, 5, exclude=train, random_state=11)
    sparse = sample_negatives(
        scipy.sparse.csr_matrix(y_true), 5, exclude=scipy.sparse.coo_matrix(train), random_state=11
    )
    for key in ("groups", "item_ids", "y_true", "catalog_size"):
        np.testing.assert_array_equal(dense[key], sparse[key])
    other = sample_negatives(y_true, 5, exclude=train, random_state=12)
    assert not np.array_equal(dense.item_ids, other.item_ids)


def test_distinct_draws_are_uniform_over_subsets():
    # 6 allowed items, 2 drawn: each of the 15 pairs equally likely (chi-square).
    n_users = 15_000
    y_true = np.zeros((n_users, 9), dtype=np.int64)
    y_true[:, 0] = 1
    train = np.zeros_like(y_true)
    train[:, [3, 7]] = 1
    sample = sample_negatives(y_true, 2, exclude=train, random_state=0)
    pairs = sample.item_ids[sample.y_true == 0].reshape(n_users, 2)
    allowed = [1, 2, 4, 5, 6, 8]
    index = {pair: i for i, pair in enumerate(itertools.combinations(allowed, 2))}
    counts = np.bincount([index[tuple(sorted(p))] for p in pairs], minlength=15)
    assert stats.chisquare(counts).pvalue > 1e-3


def test_draws_with_replacement_are_independent_and_uniform():
    n_users = 12_000
    y_true = np.zeros((n_users, 5), dtype=np.int64)
    y_true[:, 2] = 1
    sample = sample_negatives(y_true, 2, replacement=True, random_state=5)
    pairs = sample.item_ids[sample.y_true == 0].reshape(n_users, 2)
    assert set(np.unique(pairs)) == {0, 1, 3, 4}
    code = np.searchsorted([0, 1, 3, 4], pairs)
    counts = np.bincount(code[:, 0] * 4 + code[:, 1], minlength=16)  # 16 ordered pairs
    assert stats.chisquare(counts).pvalue > 1e-3


def test_refuses_too_few_items_and_bad_sizes():
    y_true = np.array([[1, 0, 0], [0, 1, 0]])
    with pytest.raises(ValueError, match="user 0 has 2 items .* n_negatives=3"):
        sample_negatives(y_true, 3)
    assert sample_negatives(y_true, 3, replacement=True, random_state=0).groups.size == 8
    with pytest.raises(ValueError, match="n_negatives must be a positive integer; got 0"):
        sample_negatives(y_true, 0)
    with pytest.raises(ValueError, match="exclude must have the shape of y_true"):
        sample_negatives(y_true, 1, exclude=np.zeros((2, 4)))
    with pytest.raises(ValueError, match="replacement must be True or False"):
        sample_negatives(y_true, 1, replacement="yes")
