"""Many small queries: the paths that keep their bookkeeping small give the reference values.

One-item queries (a column matrix, or long format with one row per query) and queries that
all have the same number of candidates take shortcuts that save memory: a count shared by
every query is one broadcast value, groups of one item reuse the item arrays, a query
alone with its group has nothing before it. Here every metric is compared, query by query,
with the slow reference of tests/reference.py on such inputs; benchmarks/
memory_small_queries.py measures the memory, and the last test bounds it.
"""

import gc
import tracemalloc

import numpy as np
import pytest
from reference import METRICS, reference_per_query

import sklearn_rank as sr
from sklearn_rank.metrics._registry import METRICS as REGISTRY

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


def _traced_peak(function):
    """The value of ``function()`` and the tracemalloc peak (numpy's allocations
    included) of the call, as benchmarks/memory_small_queries.py measures it."""
    gc.collect()
    tracemalloc.start()
    try:
        value = function()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return value, peak


def _one_item_queries(form, n=200_000, seed=0):
    """Half of the queries relevant, as benchmarks/memory_small_queries.py makes them."""
    rng = np.random.default_rng(seed)
    rel = np.where(rng.random(n) < 0.5, rng.integers(1, 5, n), 0)
    score = rng.random(n) + 0.1 * rel
    if form == "dense":
        return rel, (rel[:, None], score[:, None]), {}
    ids = rng.permutation(np.arange(n, dtype=np.int64) * 7 + 3)  # distinct, in no order
    return rel, (rel, score), {"groups": ids}


@pytest.mark.slow
@pytest.mark.parametrize("form", ["dense", "long"])
@pytest.mark.parametrize(
    "names", [["ndcg@10", "precision@10", "recall@10", "map", "mrr"], ["auc"], ["mrr"]]
)
def test_one_item_queries_take_less_than_three_times_the_input(form, names):
    """200,000 one-item queries, half of them relevant: one evaluate call peaks at less
    than 3x the input's bytes (it was 3.7x for the five metrics in long format, 4.3x-5.5x
    for dense). Per-query arrays (each metric's values, those kept for later metrics)
    grow with the queries, and one-item queries have as many queries as rows. Matrix rows
    go in blocks of 2**18, so here one block is the whole matrix: this also bounds the
    kernel's temporaries."""
    rel, arrays, kwargs = _one_item_queries(form)
    input_bytes = sum(a.nbytes for a in arrays) + sum(a.nbytes for a in kwargs.values())
    sr.evaluate(*(a[:10] for a in arrays), names, **{k: v[:10] for k, v in kwargs.items()})
    got, peak = _traced_peak(lambda: sr.evaluate(*arrays, names, **kwargs))
    assert peak < 3 * input_bytes, f"{names}: peak {peak / input_bytes:.2f}x the inputs"
    # Closed forms: a one-item query scores 1 (precision@10: 1/10; auc: 0.5, no pair)
    # where its item is relevant, and 0 (no_relevant) where it is not.
    share = np.count_nonzero(rel) / rel.size
    closed = {"precision@10": share / 10, "auc": share / 2}
    for name in names:
        assert got[name] == pytest.approx(closed.get(name, share), rel=1e-12), name


@pytest.mark.slow
@pytest.mark.parametrize("form", ["dense", "long"])
def test_every_metric_in_one_call_frees_per_query_arrays(form):
    """Every registry metric in one call on 200,000 one-item queries: an array shared by
    several metrics lives until its last reader only, each metric's values until its
    mean, so the peak stays that of the largest metric (it was 8.7x-12x the input,
    growing with every metric asked for; 2.8x-3.1x at this size, 4x leaves room for
    blocks of a fixed size). Every value is checked against the same call made metric
    by metric."""
    rel, arrays, kwargs = _one_item_queries(form, seed=1)
    # The metrics that read propensities need a side input these inputs do not carry
    # (tests/metrics/test_clicks.py and test_propensity_scored.py check them).
    names = [
        n.replace("@K", "@10")
        for n in sr.get_metric_names()
        if n.split("@")[0] in REGISTRY and REGISTRY[n.split("@")[0]].side_inputs is None
    ]
    input_bytes = sum(a.nbytes for a in arrays) + sum(a.nbytes for a in kwargs.values())
    sr.evaluate(*(a[:10] for a in arrays), names, **{k: v[:10] for k, v in kwargs.items()})
    got, peak = _traced_peak(lambda: sr.evaluate(*arrays, names, **kwargs))
    assert peak < 4 * input_bytes, f"peak {peak / input_bytes:.2f}x the inputs"
    for name in ["ndcg@10", "dcg@10", "iprec_avg", "kendall_tau", "num_rel", "bpref"]:
        assert got[name] == sr.evaluate(*arrays, [name], **kwargs)[name], name
