"""Bad input gets a clear error naming the parameter and the value; nothing returns NaN."""

import warnings

import numpy as np
import pytest
import scipy.sparse

import sklearn_rank as sr
from sklearn_rank.metrics._registry import METRICS

# The click-log estimators need a side input (the propensities) that the inputs here do not
# carry; tests/metrics/test_clicks.py checks them on the forms that carry one.
METRICS = {name: metric for name, metric in METRICS.items() if metric.side_inputs is None}

Y_TRUE = [[1, 0, 2], [0, 1, 0]]
Y_SCORE = [[0.3, 0.2, 0.1], [0.5, 0.6, 0.7]]


@pytest.mark.parametrize(
    "y_true, y_score, groups, message",
    [
        ([[1, 0]], [[1, 0, 0]], None, r"same shape; got \(1, 2\) and \(1, 3\)"),
        ([1, 0, 1], [0.1, 0.2, 0.3], None, "need groups"),
        ([[1, 0]], [[0.1, 0.2]], [0, 0], "groups must be None for 2-D"),
        ([1, 0, 1], [0.1, 0.2, 0.3], [0, 0], "one query id per row"),
        ([1, 0], [0.1, 0.2], [0.0, np.nan], "groups must not contain NaN"),
        ([[1, np.nan]], [[0.1, 0.2]], None, r"y_true must contain only finite numbers; got nan"),
        ([[1, 0]], [[0.1, np.inf]], None, r"y_score must contain only finite numbers; got inf"),
        ([[1, 0]], [[0.1, -np.inf]], None, r"y_score must contain only finite numbers; got -inf"),
        ([[1, 0]], [["a", "b"]], None, "y_score must contain real numbers"),
        ([[[1]]], [[[1]]], None, "got 3-D input"),
        ([[]], [[]], None, "at least one query and one item"),
        ([], [], [], "y_true is empty"),
        ([[1, 0], [1]], [[1, 0], [1]], None, "y_true must be a rectangular array"),
    ],
)
def test_bad_arrays(y_true, y_score, groups, message):
    with pytest.raises(ValueError, match=message):
        sr.ndcg_score(y_true, y_score, groups=groups)


@pytest.mark.parametrize("n_jobs", [None, 2])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_huge_finite_scores_are_finite_and_one_bad_value_is_found(dtype, n_jobs):
    # The finite check sums the scores first: a sum that overflows must not be taken
    # for a non-finite score, and a sum that stays finite must not hide one.
    huge = np.finfo(dtype).max
    y_score = np.array([[huge, huge / 2, -huge, huge / 4]] * 3, dtype=dtype)
    with np.errstate(over="ignore"):
        assert not np.isfinite(y_score.sum())
    y_true = [[1, 1, 0, 0]] * 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the overflowing sum warns nobody
        assert sr.ndcg_score(y_true, y_score, n_jobs=n_jobs) == 1.0
    for bad in (np.nan, np.inf, -np.inf):
        scores = np.zeros((3, 4), dtype=dtype)
        scores[2, 1] = bad
        with pytest.raises(ValueError, match=rf"got {bad!r} at index \(2, 1\)"):
            sr.ndcg_score(y_true, scores, n_jobs=n_jobs)


@pytest.mark.parametrize("k", [0, -1, 2.5, True, "3", np.float64(2.0)])
def test_bad_k(k):
    with pytest.raises(
        ValueError, match=r"k must be a positive integer \(up to 2\*\*62\) or None; got"
    ):
        sr.precision_at_k_score(Y_TRUE, Y_SCORE, k=k)


def test_numpy_integer_k_is_accepted():
    assert sr.precision_at_k_score(Y_TRUE, Y_SCORE, k=np.int32(1)) == 0.5


@pytest.mark.parametrize(
    "params, message",
    [
        ({"ties": "random"}, "ties must be one of 'average', 'stable'; got 'random'"),
        ({"gain": "log"}, "gain must be one of 'linear', 'exponential'; got 'log'"),
        ({"ap_denominator": "R"}, "ap_denominator must be one of"),
        ({"short_lists": "pad"}, "short_lists must be one of"),
        (
            {"no_relevant": "ignore"},
            "no_relevant must be a finite number, 'skip' or 'error'; got 'ignore'",
        ),
        ({"no_relevant": np.nan}, "no_relevant must be a finite number"),
        ({"no_relevant": True}, "no_relevant must be a finite number"),
        ({"relevance_threshold": 0}, "relevance_threshold must be None or a positive"),
        ({"relevance_threshold": "2"}, "relevance_threshold must be None or a positive"),
        ({"log_base": 1}, "log_base must be a finite number greater than 1; got 1"),
        ({"per_query": "yes"}, "per_query must be True, False or 'table'; got 'yes'"),
    ],
)
def test_bad_conventions(params, message):
    with pytest.raises(ValueError, match=message):
        sr.evaluate(Y_TRUE, Y_SCORE, ["ndcg@2", "map"], **params)


@pytest.mark.parametrize(
    "name",
    [
        "foo",
        "ndcg@0",
        "ndcg@x",
        "ndcg@",
        "arp@3",
        "Ndcg@2",  # NDCG@2 is ir_measures' spelling
        "kendall_tau@2",
        "@3",
        "ndcg@-1",
        "ndcg@2.5",
    ],
)
def test_bad_metric_names(name):
    with pytest.raises(ValueError, match="metric name|takes no cut-off|must be a positive"):
        sr.evaluate(Y_TRUE, Y_SCORE, [name])


def test_bad_metric_list():
    with pytest.raises(ValueError, match="at least one metric"):
        sr.evaluate(Y_TRUE, Y_SCORE, [])
    with pytest.raises(ValueError, match="must be strings"):
        sr.evaluate(Y_TRUE, Y_SCORE, [10])


@pytest.mark.parametrize(
    "weights, message",
    [
        ([1.0, -1.0], "sample_weight must be non-negative; got -1.0"),
        ([0.0, 0.0], "must not be all zero"),
        ([1.0, 2.0, 3.0], "sample_weight must have length 2 \\(one per query\\); got 3"),
        ([1.0, np.nan], "sample_weight must contain only finite numbers"),
        ([[1.0, 2.0]], "sample_weight must be 1-D"),
    ],
)
def test_bad_sample_weight(weights, message):
    with pytest.raises(ValueError, match=message):
        sr.ndcg_score(Y_TRUE, Y_SCORE, sample_weight=weights)


def test_skipped_queries_with_zero_weight_left():
    with pytest.raises(ValueError, match="sample_weight 0"):
        sr.ndcg_score(
            [[0, 0], [1, 0]], [[1, 2], [1, 2]], no_relevant="skip", sample_weight=[1.0, 0.0]
        )


def test_all_queries_skipped_is_an_error_not_nan():
    with pytest.raises(ValueError, match="every query was skipped"):
        sr.ndcg_score([[0, 0]], [[1, 2]], no_relevant="skip")


@pytest.mark.parametrize("name", sorted(METRICS))
def test_negative_relevance(name):
    y_true = [[-1.0, 2.0, 0.0]]
    y_score = [[0.1, 0.2, 0.3]]
    metric = METRICS[name]
    if metric.negative_relevance:
        value = sr.evaluate(y_true, y_score, [name])[name]
        assert np.isfinite(value)
        if name != "kendall_tau":
            with pytest.raises(ValueError, match="must be non-negative"):
                sr.evaluate(y_true, y_score, [name], gain="exponential")
    else:
        with pytest.raises(ValueError, match=f"y_true must be non-negative for '{name}'; got -1.0"):
            sr.evaluate(y_true, y_score, [name])


def test_negative_dcg_matches_closed_form():
    # sklearn's dcg_score accepts negative gains; so do we.
    value = sr.dcg_score([[-1.0, 2.0, 0.0]], [[0.3, 0.2, 0.1]])
    assert value == pytest.approx(-1.0 + 2.0 / np.log2(3), abs=1e-15)


def test_list_form_errors():
    with pytest.raises(ValueError, match="one entry per query; got 2 and 1"):
        sr.ndcg_score([{1}, {2}], [[1, 2]])
    with pytest.raises(ValueError, match=r"y_score ranks item 1 more than once for query 0"):
        sr.ndcg_score([{1}], [[1, 2, 1]])
    with pytest.raises(ValueError, match="relevance must be a finite number"):
        sr.ndcg_score([{1: "high"}], [[1, 2]])
    with pytest.raises(ValueError, match="a score must be a finite number"):
        sr.ndcg_score([{1: 1}], [{1: "x"}])
    with pytest.raises(ValueError, match="mixes sets/dicts"):
        sr.ndcg_score([{1}, [1, 0]], [[1], [1, 0]])
    with pytest.raises(ValueError, match="groups must be None"):
        sr.ndcg_score([{1}], [[1]], groups=[0])
    with pytest.raises(ValueError, match=r"y_score\[0\] must be a sequence"):
        sr.ndcg_score([{1}], ["abc"])
    with pytest.raises(ValueError, match=r"y_true\[0\] maps item 1 to inf; relevance must be"):
        sr.ndcg_score([{1: np.inf}], [[1]])
    with pytest.raises(ValueError, match=r"y_score\[0\] maps item 1 to nan; a score must be"):
        sr.ndcg_score([{1: 1}], [{1: np.nan}])


def test_sparse_scores_are_refused_clearly():
    with pytest.raises(TypeError, match="scores must be dense.*ItemRanking.from_topn"):
        sr.ndcg_score(Y_TRUE, scipy.sparse.csr_matrix(np.array(Y_SCORE)))


@pytest.mark.parametrize("name", sorted(METRICS))
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_no_nan_on_degenerate_queries(name, ties):
    # No relevant item, all relevant, all tied, one item, k beyond the list.
    y_true = [[0, 0, 0], [1, 1, 1], [2, 0, 1], [1, 0, 0]]
    y_score = [[1, 1, 1], [0.1, 0.2, 0.3], [5, 5, 5], [9, 0, 0]]
    metric = METRICS[name]
    label = f"{name}@10" if metric.takes_k else name
    values = sr.evaluate(y_true, y_score, [label], ties=ties, no_relevant=0.0, per_query=True)[
        label
    ]
    assert np.isfinite(values).all()
    single = sr.evaluate(
        [1, 0], [0.3, 0.1], [label], groups=[1, 2], ties=ties, no_relevant=0.0, per_query=True
    )[label]
    assert np.isfinite(single).all()


def test_huge_cut_offs_are_refused_clearly():
    with pytest.raises(ValueError, match="must be a positive integer up to 2\\*\\*62"):
        sr.evaluate(Y_TRUE, Y_SCORE, ["hit_rate@99999999999999999999"])
    with pytest.raises(ValueError, match="up to 2\\*\\*62"):
        sr.hit_rate_score(Y_TRUE, Y_SCORE, k=2**70)


def test_overflowing_values_raise_instead_of_vanishing_from_the_mean():
    # Found in review: 2**1100 is inf, and the NaN it made was dropped from the mean.
    with pytest.raises(ValueError, match="needs relevance <= 1023"):
        sr.ndcg_score([[1100, 0], [1, 0]], [[1, 0], [0, 1]], gain="exponential")
    with pytest.raises(ValueError, match="too large to add up in float64"):
        sr.ndcg_score([[1e308, 1e308, 1e308], [1, 0, 0]], [[3, 2, 1], [3, 2, 1]])


def test_mixed_type_ids_stay_distinct():
    assert sr.query_ids(["1", 1, "1"]).tolist() == ["1", 1]
    values = sr.hit_rate_score(
        [1, 0, 0, 1], [0.9, 0.1, 0.2, 0.3], groups=["1", 1, 1, "1"], k=1, per_query=True
    )
    assert values.tolist() == [1.0, 0.0]


def test_unhashable_ranked_items_are_refused_clearly():
    with pytest.raises(ValueError, match="item ids must hold hashable ids; got list"):
        sr.evaluate([{1}], [[[1], 2]], ["map"])
