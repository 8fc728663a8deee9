"""Many small queries: the paths that keep their bookkeeping small give the reference values.

One-item queries (a column matrix, or long format with one row per query) and queries that
all have the same number of candidates take shortcuts that save memory: a count shared by
every query is one broadcast value, groups of one item reuse the item arrays, a query
alone with its group has nothing before it. Here every metric is compared, query by query,
with the slow reference of tests/reference.py on such inputs; benchmarks/
memory_small_queries.py measures the memory.
"""

import numpy as np
import pytest
from reference import METRICS, reference_per_query

import sklearn_rank as sr

NAMES = [name if name in ("auc", "arp", "kendall_tau") else f"{name}@2" for name in METRICS]
NAMES += ["ndcg", "map", "mrr", "precision", "dcg"]


def _reference(rows, name, **conventions):
    """Per-query reference values, NaN where a query has no relevant item."""
    metric, _, k = name.partition("@")
    values = [
        reference_per_query(metric, rel, score, k=int(k) if k else None, **conventions)
        for rel, score in rows
    ]
    return np.array([np.nan if v is None else v for v in values])


def _check(got, expected, name):
    got = np.asarray(got)
    assert got.flags.writeable, name  # never a broadcast or a cached array of ours
    known = ~np.isnan(expected)  # queries without a relevant item get no_relevant
    np.testing.assert_allclose(got[known], expected[known], rtol=1e-12, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("relevant", [0.05, 0.5, 1.0])
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_one_item_queries(relevant, ties):
    rng = np.random.default_rng(int(relevant * 100))
    n = 400
    rel = np.where(rng.random(n) < relevant, rng.integers(1, 4, n), 0)
    score = rng.integers(0, 3, n).astype(float)
    rows = [([r], [s]) for r, s in zip(rel.tolist(), score.tolist())]
    ids = rng.permutation(n) * 3 + 1  # one row per query, ids in no order
    assert sr.query_ids(ids).tolist() == ids.tolist()  # results come in row order
    for name in NAMES:
        expected = _reference(rows, name, ties=ties)
        dense = sr.evaluate(rel[:, None], score[:, None], [name], ties=ties, per_query=True)
        _check(dense[name], expected, name)
        long = sr.evaluate(rel, score, [name], groups=ids, ties=ties, per_query=True)
        _check(long[name], expected, name)


@pytest.mark.parametrize("ties", ["average", "stable"])
def test_long_format_queries_of_one_size(ties):
    """Every query has 3 rows (shuffled): the run starts are multiples of 3."""
    rng = np.random.default_rng(5)
    n_queries, size = 150, 3
    rel = np.where(rng.random(n_queries * size) < 0.4, rng.integers(1, 4, n_queries * size), 0)
    score = rng.integers(0, 3, n_queries * size).astype(float)  # heavy ties
    groups = np.repeat(np.arange(n_queries), size)
    shuffle = rng.permutation(groups.size)
    ids = sr.query_ids(groups[shuffle])
    rows = [
        (rel[shuffle][groups[shuffle] == q].tolist(), score[shuffle][groups[shuffle] == q].tolist())
        for q in ids
    ]
    for name in NAMES:
        got = sr.evaluate(
            rel[shuffle], score[shuffle], [name], groups=groups[shuffle], ties=ties, per_query=True
        )
        _check(got[name], _reference(rows, name, ties=ties), name)


def test_one_item_queries_with_weights_and_no_relevant():
    rng = np.random.default_rng(9)
    n = 300
    rel = np.where(rng.random(n) < 0.3, 1, 0)
    score = rng.random(n)
    weights = rng.random(n)
    for name in ["ndcg", "map", "mrr", "auc", "precision@1"]:
        per_query = sr.evaluate(rel[:, None], score[:, None], [name], per_query=True)[name]
        for no_relevant in (0.0, 1.0, "skip"):
            got = sr.evaluate(
                rel[:, None],
                score[:, None],
                [name],
                no_relevant=no_relevant,
                sample_weight=weights,
            )[name]
            values = per_query.copy()
            kept = rel > 0
            if no_relevant == "skip":
                expected = np.average(values[kept], weights=weights[kept])
            else:
                values[~kept] = no_relevant
                expected = np.average(values, weights=weights)
            assert got == pytest.approx(expected, rel=1e-13), (name, no_relevant)
