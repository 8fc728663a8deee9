"""Dense, long (shuffled, arbitrary ids) and list forms give the same values on the same data."""

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.metrics._registry import METRICS

ALL_NAMES = [
    "precision@3",
    "recall@3",
    "f1@3",
    "hit_rate@2",
    "mrr",
    "mrr@2",
    "map",
    "map@3",
    "cg@3",
    "dcg@3",
    "ndcg",
    "ndcg@3",
    "auc",
    "auc@3",
    "arp",
    "kendall_tau",
    "precision",
    "dcg",
]


def _dense_case(seed, n_queries=7, n_items=6):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, (n_queries, n_items)) * (rng.random((n_queries, n_items)) < 0.5)
    y_true[0] = 0  # a query with no relevant item
    y_score = rng.integers(0, 4, (n_queries, n_items)) / 3.0  # many ties
    return y_true, y_score


def _to_long(y_true, y_score, ids, rng):
    n_queries, n_items = y_true.shape
    groups = np.repeat(ids, n_items)
    order = rng.permutation(y_true.size)
    return y_true.ravel()[order], y_score.ravel()[order], groups[order], order


@pytest.mark.parametrize("seed", range(4))
def test_dense_and_long_agree_with_average_ties(seed):
    y_true, y_score = _dense_case(seed)
    rng = np.random.default_rng(seed + 50)
    ids = np.array([f"query-{i}" for i in rng.permutation(y_true.shape[0])])
    long_true, long_score, groups, _ = _to_long(y_true, y_score, ids, rng)
    dense = sr.evaluate(y_true, y_score, ALL_NAMES, per_query=True)
    long = sr.evaluate(long_true, long_score, ALL_NAMES, groups=groups, per_query=True)
    # Per-query order of long format is first appearance: map it back to row order.
    position = {qid: i for i, qid in enumerate(sr.query_ids(groups))}
    rows = [position[qid] for qid in ids]
    for name in ALL_NAMES:
        np.testing.assert_allclose(
            long[name][rows], dense[name], atol=1e-12, equal_nan=True, err_msg=name
        )


@pytest.mark.parametrize("seed", range(4))
def test_dense_and_long_agree_with_stable_ties_when_rows_keep_their_order(seed):
    y_true, y_score = _dense_case(seed)
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.array([-(10**12), 7, 3, 99, -5, 0, 42]), y_true.shape[1])
    # Interleave the queries at random, but give each query's slots its rows in column
    # order, so that input order within a query (the stable tie-break) is unchanged.
    slot_query = groups[rng.permutation(groups.size)]
    slots = np.empty(groups.size, dtype=np.int64)
    for qid in np.unique(groups):
        slots[slot_query == qid] = np.flatnonzero(groups == qid)
    dense = sr.evaluate(y_true, y_score, ALL_NAMES, ties="stable", per_query=True)
    long = sr.evaluate(
        y_true.ravel()[slots],
        y_score.ravel()[slots],
        ALL_NAMES,
        groups=groups[slots],
        ties="stable",
        per_query=True,
    )
    position = {qid: i for i, qid in enumerate(sr.query_ids(groups[slots]))}
    rows = [position[qid] for qid in groups[:: y_true.shape[1]]]
    for name in ALL_NAMES:
        np.testing.assert_allclose(
            long[name][rows], dense[name], atol=1e-12, equal_nan=True, err_msg=name
        )


@pytest.mark.parametrize("ties", ["average", "stable"])
@pytest.mark.parametrize("seed", range(3))
def test_dense_and_lists_agree(seed, ties):
    y_true, y_score = _dense_case(seed)
    truth = [{item: rel for item, rel in enumerate(row) if rel} for row in y_true]
    # A query with no judged item at all is an empty dict (still a list-form query).
    scores = [dict(enumerate(row)) for row in y_score]
    # Lists skip a query without a relevant item by default (a recommender's user
    # without test items); arrays do so with no_relevant="skip".
    dense = sr.evaluate(y_true, y_score, ALL_NAMES, ties=ties, per_query=True, no_relevant="skip")
    lists = sr.evaluate(truth, scores, ALL_NAMES, ties=ties, per_query=True)
    for name in ALL_NAMES:
        np.testing.assert_allclose(
            lists[name], dense[name], atol=1e-12, equal_nan=True, err_msg=name
        )


def test_binary_truth_as_sets_equals_dicts_of_ones():
    ranked = [["a", "b", "c"], ["x", "y"], []]
    as_sets = sr.evaluate([{"b", "z"}, {"x"}, {"q"}], ranked, ALL_NAMES)
    as_dicts = sr.evaluate([{"b": 1, "z": 1}, {"x": 1}, {"q": 1}], ranked, ALL_NAMES)
    assert as_sets == as_dicts


def test_relevant_items_never_ranked_count():
    # Item "z" is relevant but not ranked: recall halves, NDCG's ideal includes it.
    assert sr.recall_at_k_score([{"b", "z"}], [["a", "b", "c"]], k=3) == 0.5
    assert sr.ndcg_score([{"b", "z"}], [["a", "b", "c"]]) == pytest.approx(
        (1 / np.log2(3)) / (1 + 1 / np.log2(3)), abs=1e-15
    )
    # An empty ranking hits nothing; a query with empty truth has no relevant item: it
    # is skipped by default, as recommender libraries leave out users without test items.
    recall = sr.recall_at_k_score([{"z"}, set()], [[], ["a"]], no_relevant=0, per_query=True)
    assert recall.tolist() == [0.0, 0.0]
    with pytest.warns(UserWarning, match="1 of 2 queries have no relevant item"):
        recall = sr.recall_at_k_score([{"z"}, set()], [[], ["a"]], per_query=True)
    assert recall[0] == 0.0 and np.isnan(recall[1])


def test_query_ids_first_appearance_order():
    groups = np.array([30, 10, 30, 20, 10])
    assert sr.query_ids(groups).tolist() == [30, 10, 20]
    values = sr.precision_at_k_score(
        [1, 0, 0, 1, 1], [1, 2, 3, 4, 5], k=1, groups=groups, per_query=True
    )
    # query 30: rows 0, 2 -> top is row 2 (rel 0); query 10: rows 1, 4 -> row 4 (rel 1).
    assert values.tolist() == [0.0, 1.0, 1.0]


def test_mixed_type_query_ids():
    groups = np.array([1, "1", 1, "1"], dtype=object)
    assert sr.query_ids(groups).tolist() == [1, "1"]
    values = sr.hit_rate_score(
        [1, 0, 0, 0], [0.1, 0.2, 0.3, 0.4], groups=groups, k=1, per_query=True, no_relevant=-1.0
    )
    assert values.tolist() == [0.0, -1.0]


def test_sample_weight_per_row_equals_per_query():
    y_true = np.array([1, 0, 0, 1, 1, 0])
    y_score = np.array([0.9, 0.1, 0.8, 0.2, 0.5, 0.4])
    groups = np.array(["a", "a", "b", "b", "c", "c"])
    per_query = sr.mean_reciprocal_rank_score(
        y_true, y_score, groups=groups, sample_weight=[1.0, 3.0, 0.0]
    )
    per_row = sr.mean_reciprocal_rank_score(
        y_true, y_score, groups=groups, sample_weight=[1, 1, 3, 3, 0, 0]
    )
    # Query values 1, 1/2, 1; weights 1, 3, 0.
    assert per_query == per_row == pytest.approx((1 + 1.5) / 4, abs=1e-15)
    with pytest.raises(ValueError, match="constant within each query"):
        sr.mean_reciprocal_rank_score(
            y_true, y_score, groups=groups, sample_weight=[1, 2, 3, 3, 0, 0]
        )


@pytest.mark.parametrize("ties", ["average", "stable"])
def test_all_rankings_empty(ties):
    # Found by the property tests: with no candidate at all, sums came back as integers.
    # Lists carry no propensities: the metrics that read them are left out
    # (tests/metrics/test_clicks.py and test_propensity_scored.py check them).
    names = [
        n.replace("@K", "@2")
        for n in sr.get_metric_names()
        if n.split("@")[0] in METRICS and METRICS[n.split("@")[0]].side_inputs is None
    ]
    values = sr.evaluate([{1}, {2: 3}], [[], {}], names, ties=ties, per_query=True)
    for name in names:
        expected = np.nan if name == "arp" else (0.5 if name.startswith("auc") else 0.0)
        if name == "num_rel":  # each query has one relevant item, ranked or not
            expected = 1.0
        if name.startswith("rbp_residual"):  # nothing judged is ranked: all is residual
            expected = 1.0
        if name == "yaap":  # log((1 + S) / (1 + R - S)) with S = 0, R = 1
            expected = np.log(0.5)
        np.testing.assert_array_equal(values[name], [expected, expected], err_msg=name)


@pytest.mark.parametrize("ties", ["average", "stable"])
def test_long_format_beyond_65536_queries_agrees_with_dense(ties):
    """Query codes past 16 bits take two radix passes when rows are grouped by query."""
    rng = np.random.default_rng(7)
    n_queries = 70_000
    y_true = rng.integers(0, 3, (n_queries, 3)).astype(float)
    y_score = rng.integers(0, 4, (n_queries, 3)).astype(float)  # ties within queries
    ids = rng.permutation(np.arange(n_queries) * 7 - 3)  # arbitrary, in any order
    keys = rng.random((n_queries, 3))
    if ties == "stable":  # input order breaks ties: each query's rows stay in order
        keys.sort(axis=1)
    rows = np.argsort(keys.ravel())  # queries interleaved
    query = rows // 3
    names = ["ndcg@2", "map", "mrr", "precision@1", "auc"]
    dense = sr.evaluate(y_true, y_score, names, ties=ties, per_query=True)
    long = sr.evaluate(
        y_true.ravel()[rows],
        y_score.ravel()[rows],
        names,
        groups=ids[query],
        ties=ties,
        per_query=True,
    )
    # Per-query values come in order of first appearance.
    _, first = np.unique(ids[query], return_index=True)
    back = query[np.sort(first)]
    for name in names:
        np.testing.assert_allclose(long[name], dense[name][back], atol=1e-12, err_msg=name)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_first_relevant_only_ranking_equals_the_full_ranking(seed, ties):
    """MRR and hit rate alone keep only each row's first relevant group (no sort); asked
    with a metric that needs the whole ranking, they read the full one. Both must agree,
    with exclusion, thresholds, cut-offs and column tie-breaks."""
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, (30, 12)) * (rng.random((30, 12)) < 0.4)
    y_score = rng.integers(0, 4, (30, 12)) / 2.0  # heavy ties
    exclude = rng.random((30, 12)) < 0.2
    for params in (
        {},
        {"relevance_threshold": 2},
        {"exclude": exclude},
        {"tie_break": "item_descending"},
    ):
        for name in ("mrr", "mrr@3", "hit_rate@1", "hit_rate@4"):
            alone = sr.evaluate(y_true, y_score, [name], ties=ties, per_query=True, **params)
            full = sr.evaluate(y_true, y_score, [name, "map"], ties=ties, per_query=True, **params)
            np.testing.assert_allclose(
                alone[name], full[name], atol=1e-12, err_msg=f"{name} {params}"
            )
