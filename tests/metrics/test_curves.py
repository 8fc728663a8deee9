"""metric_at_k_curve equals evaluate at every cut-off, from one ranking of the input."""

import inspect

import numpy as np
import pytest
import scipy.sparse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sklearn_rank as sr
from sklearn_rank.conventions._sampling import EVALUATE_SAMPLING
from sklearn_rank.metrics import _blocks, _curves
from sklearn_rank.metrics._curves import _CURVES

CURVED = sorted(_CURVES)
TOLERANCE = 1e-12


def _assert_curve_is_evaluate(y_true, y_score, metric, k_max, **kwargs):
    """Mean and per-query curves against evaluate at each k, conventions alike."""
    ks, values = sr.metric_at_k_curve(y_true, y_score, metric, k_max=k_max, **kwargs)
    _ks, per_query = sr.metric_at_k_curve(
        y_true, y_score, metric, k_max=k_max, per_query=True, **kwargs
    )
    np.testing.assert_array_equal(ks, np.arange(1, k_max + 1))
    assert values.shape == (k_max,)
    weights = kwargs.pop("sample_weight", None)
    for k in ks:
        name = f"{metric}@{k}"
        expected = sr.evaluate(y_true, y_score, [name], sample_weight=weights, **kwargs)[name]
        assert abs(values[k - 1] - expected) <= TOLERANCE, (name, values[k - 1], expected)
        expected_per_query = sr.evaluate(y_true, y_score, [name], per_query=True, **kwargs)[name]
        np.testing.assert_allclose(
            per_query[:, k - 1], expected_per_query, rtol=0, atol=TOLERANCE, err_msg=name
        )
    return values


def _tied_case(seed, n_queries=9, n_items=8, levels=3):
    """Graded relevance, coarse scores (many ties), a query without relevant items."""
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, (n_queries, n_items)) * (rng.random((n_queries, n_items)) < 0.4)
    y_true[0] = 0
    y_score = rng.integers(0, levels, (n_queries, n_items)) / (levels - 1.0)
    return y_true, y_score


@pytest.mark.parametrize("metric", CURVED)
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_dense_with_ties_equals_evaluate_at_every_k(metric, ties):
    for seed in range(3):
        y_true, y_score = _tied_case(seed)
        _assert_curve_is_evaluate(y_true, y_score, metric, 11, ties=ties)


@pytest.mark.parametrize(
    "metric, conventions",
    [
        ("map", {"ap_denominator": "min_k"}),
        ("map", {"ap_denominator": "hits"}),
        ("precision", {"short_lists": "length"}),
        ("f1", {"short_lists": "length", "relevance_threshold": 2}),
        ("recall", {"relevance_threshold": 2}),
        ("hit_rate", {"relevance_threshold": 3}),
        ("mrr", {"relevance_threshold": 2}),
        ("auc", {"relevance_threshold": 2}),
        ("ndcg", {"gain": "exponential"}),
        ("ndcg", {"ideal_dcg": "k"}),
        ("ndcg", {"convention": "rectools"}),
        ("dcg", {"gain": "exponential", "log_base": 10}),
        ("cg", {"gain": "exponential"}),
        ("ndcg", {"no_relevant": 1.0}),
        ("map", {"no_relevant": "skip", "ap_denominator": "hits"}),
        ("precision", {"no_relevant": "skip"}),
        ("ndcg", {"convention": "lightgbm"}),
        ("map", {"convention": "xgboost"}),
        ("auc", {"convention": "hivemall"}),
        ("precision", {"convention": "trec_eval"}),
    ],
)
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_conventions_and_weights(metric, conventions, ties):
    conventions = {"ties": ties, **conventions} if "convention" not in conventions else conventions
    for seed in range(2):
        y_true, y_score = _tied_case(seed + 10)
        weights = np.random.default_rng(seed).random(y_true.shape[0])
        _assert_curve_is_evaluate(y_true, y_score, metric, 10, sample_weight=weights, **conventions)


@pytest.mark.parametrize("metric", ["map", "auc", "precision", "mrr", "ndcg"])
def test_large_tie_groups_cut_by_many_k(metric):
    # One group of 30 tied items with 7 relevant: every k from 1 to 29 cuts it; the AP
    # over hits and the AUC are averaged over the hypergeometric count at each k.
    y_true = np.zeros((3, 40), dtype=int)
    y_true[0, [1, 5, 8, 13, 21, 22, 29]] = [1, 2, 1, 3, 1, 1, 2]
    y_true[1, [0, 39]] = 1
    y_true[2, 10:20] = 1
    y_score = np.zeros((3, 40))
    y_score[0, 30:] = 1.0  # ten items ahead of the tie group
    y_score[1, :35] = 0.5
    for extra in ({}, {"ap_denominator": "hits"}, {"ap_denominator": "min_k"}):
        if extra and metric != "map":
            continue
        _assert_curve_is_evaluate(y_true, y_score, metric, 45, **extra)


@pytest.mark.parametrize("metric", CURVED)
def test_long_format_shuffled_with_row_weights(metric):
    y_true, y_score = _tied_case(3)
    rng = np.random.default_rng(0)
    n_queries, n_items = y_true.shape
    groups = np.repeat([f"q{i}" for i in rng.permutation(n_queries)], n_items)
    weights = np.repeat(rng.random(n_queries), n_items)
    order = rng.permutation(y_true.size)
    long_true, long_score = y_true.ravel()[order], y_score.ravel()[order]
    long_groups, long_weights = groups[order], weights[order]
    for ties in ("average", "stable"):
        _assert_curve_is_evaluate(
            long_true,
            long_score,
            metric,
            9,
            groups=long_groups,
            sample_weight=long_weights,
            ties=ties,
        )


@pytest.mark.parametrize("metric", CURVED)
def test_item_forms_with_empty_and_unranked_queries(metric):
    # Judged items never ranked count in R and in the ideal DCG; a judged query missing
    # from the run is an empty query; a run query without judgments has no relevant item.
    truth = sr.ItemJudgments(
        ["a", "a", "a", "b", "b", "c", "d"],
        ["x", "y", "z", "x", "w", "y", "x"],
        [2, 1, 1, 3, 1, 1, 0],
    )
    run = sr.ItemRanking(
        ["a", "a", "a", "a", "b", "b", "b", "e", "e"],
        ["x", "w", "y", "v", "v", "x", "u", "x", "y"],
        [0.5, 0.5, 0.2, 0.9, 0.3, 0.3, 0.3, 1.0, 0.0],
    )
    for conventions in (
        {},
        {"ties": "stable"},
        {"convention": "trec_eval"},
        {"query_set": "judged"},
    ):
        _assert_curve_is_evaluate(truth, run, metric, 6, **conventions)


@pytest.mark.parametrize("metric", CURVED)
def test_ranked_lists_and_sparse_truth_with_top_n(metric):
    truth = [{"a": 2, "b": 1}, {"c": 1}, set(), {"d", "e", "f"}]
    ranked = [["b", "x", "a"], [], ["a"], ["e", "g", "d", "h", "f"]]
    _assert_curve_is_evaluate(truth, ranked, metric, 7)
    rng = np.random.default_rng(1)
    sparse_truth = scipy.sparse.random(12, 30, density=0.15, random_state=2, format="csr")
    sparse_truth.data[:] = rng.integers(1, 3, sparse_truth.nnz)
    top = np.argsort(rng.random((12, 30)), axis=1)[:, :8]
    _assert_curve_is_evaluate(sparse_truth, sr.ItemRanking.from_topn(top), metric, 10)


@pytest.mark.parametrize("metric", CURVED)
def test_exclude_and_all_excluded_query(metric):
    y_true, y_score = _tied_case(4)
    exclude = np.random.default_rng(3).random(y_true.shape) < 0.3
    exclude[2] = True  # every item of this query is excluded: an empty query
    _assert_curve_is_evaluate(y_true, y_score, metric, 9, exclude=exclude)


def test_negative_relevance_for_cg_and_dcg():
    y_true = np.array([[-1, 2, 0, -3], [0, -1, 0, 0]])
    y_score = np.array([[0.4, 0.4, 0.2, 0.9], [0.5, 0.5, 0.1, 0.2]])
    for metric in ("cg", "dcg"):
        _assert_curve_is_evaluate(y_true, y_score, metric, 5)
    with pytest.raises(ValueError, match="non-negative for 'ndcg'"):
        sr.metric_at_k_curve(y_true, y_score, "ndcg", k_max=3)


@st.composite
def _cases(draw):
    n_queries = draw(st.integers(1, 5))
    n_items = draw(st.integers(1, 9))
    cells = n_queries * n_items
    y_true = draw(st.lists(st.integers(0, 3), min_size=cells, max_size=cells))
    y_score = draw(st.lists(st.integers(0, 3), min_size=cells, max_size=cells))
    shape = (n_queries, n_items)
    conventions = {
        "ties": draw(st.sampled_from(["average", "stable"])),
        "ap_denominator": draw(st.sampled_from(["relevant", "min_k", "hits"])),
        "short_lists": draw(st.sampled_from(["k", "length"])),
        "gain": draw(st.sampled_from(["linear", "exponential"])),
        "no_relevant": draw(st.sampled_from([0.0, 1.0, "skip"])),
        "relevance_threshold": draw(st.sampled_from([None, 2])),
    }
    return (
        np.array(y_true).reshape(shape),
        np.array(y_score, dtype=float).reshape(shape),
        draw(st.sampled_from(CURVED)),
        draw(st.integers(1, 12)),
        conventions,
    )


@pytest.mark.slow
@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(_cases())
def test_random_cases_equal_evaluate(case):
    y_true, y_score, metric, k_max, conventions = case
    try:
        sr.evaluate(y_true, y_score, [f"{metric}@1"], **conventions)
    except ValueError as error:  # every query skipped: the curve refuses alike
        with pytest.raises(ValueError, match="every query was skipped"):
            sr.metric_at_k_curve(y_true, y_score, metric, k_max=k_max, **conventions)
        assert "every query was skipped" in str(error)
        return
    _assert_curve_is_evaluate(y_true, y_score, metric, k_max, **conventions)


def test_signature_holds_every_convention_of_evaluate():
    curve = inspect.signature(sr.metric_at_k_curve).parameters
    evaluate = inspect.signature(sr.evaluate).parameters
    conventions = [
        name
        for name, parameter in evaluate.items()
        if parameter.kind == parameter.KEYWORD_ONLY
        and name not in ("groups", "exclude", "sample_weight", "per_query")
        and name not in EVALUATE_SAMPLING  # sampled input: evaluate only
        # the side inputs of the beyond-accuracy metrics, which have no curve here
        and name not in ("train", "item_features", "catalog")
        and name not in ("propensity", "position")  # side inputs of metrics without curves
    ]
    assert {"judged_only", "iprec_rounding", "n_jobs", "log_base"} <= set(conventions)
    for name in conventions:
        assert name in curve, name
        assert curve[name].kind == curve[name].KEYWORD_ONLY
        assert curve[name].default == evaluate[name].default, name  # log_base: None


def _judged_case():
    truth = sr.ItemJudgments(
        ["a", "a", "a", "b", "b", "b", "c"],
        ["x", "y", "z", "x", "w", "u", "y"],
        [2, 0, 1, 3, 1, 0, 1],
    )
    run = sr.ItemRanking(
        ["a"] * 6 + ["b"] * 5 + ["c"] * 3,
        ["v", "x", "q", "y", "z", "r", "v", "x", "u", "t", "w", "zz", "y", "o"],
        [0.9, 0.9, 0.8, 0.5, 0.5, 0.5, 0.7, 0.7, 0.7, 0.6, 0.1, 0.9, 0.9, 0.2],
    )
    return truth, run


@pytest.mark.parametrize(
    "metric, conventions",
    [
        ("ndcg", {"judged_only": True}),
        ("map", {"judged_only": True, "ap_denominator": "hits"}),
        ("precision", {"judged_only": True, "ties": "stable", "tie_break": "item_descending"}),
        ("auc", {"judged_only": True, "no_relevant": 1.0}),
        ("dcg", {"judged_only": True, "gain": "exponential", "log_base": 10}),
        ("mrr", {"convention": "trec_eval", "judged_only": True}),
        ("recall", {"convention": "trec_eval", "query_set": "judged"}),
    ],
)
def test_judged_only_and_other_conventions_equal_evaluate(metric, conventions):
    truth, run = _judged_case()
    values = _assert_curve_is_evaluate(truth, run, metric, 7, **conventions)
    if "judged_only" in conventions:  # the convention is honoured, not ignored
        without = dict(conventions, judged_only=False)
        other = sr.metric_at_k_curve(truth, run, metric, k_max=7, **without)[1]
        assert not np.array_equal(values, other)


@pytest.mark.parametrize(
    "metric, conventions",
    [
        ("ndcg", {"gain": "exponential"}),
        ("dcg", {"log_base": 10, "ties": "stable"}),
        ("map", {"ap_denominator": "hits", "no_relevant": "skip"}),
        ("auc", {"relevance_threshold": 2}),
        ("f1", {"short_lists": "length"}),
        ("hit_rate", {"convention": "hivemall"}),
        ("precision", {"convention": "trec_eval"}),
    ],
)
def test_n_jobs_gives_the_same_curves(metric, conventions, monkeypatch):
    # Blocks of a few queries: the curves of each block are joined in query order.
    monkeypatch.setattr(_blocks, "_MIN_BLOCK_ENTRIES", 8)
    y_true, y_score = _tied_case(7, n_queries=13, n_items=9)
    weights = np.random.default_rng(7).random(13)
    split = _blocks._split_queries
    n_blocks = []
    monkeypatch.setattr(
        _curves,
        "_split_queries",
        lambda queries, n: n_blocks.append(len(split(queries, n))) or split(queries, n),
    )
    kwargs = dict(k_max=10, sample_weight=weights, **conventions)
    for per_query in (False, True):
        one = sr.metric_at_k_curve(y_true, y_score, metric, per_query=per_query, **kwargs)[1]
        two = sr.metric_at_k_curve(
            y_true, y_score, metric, per_query=per_query, n_jobs=2, **kwargs
        )[1]
        np.testing.assert_array_equal(two, one)
    assert n_blocks == [1, 4, 1, 4]
    _assert_curve_is_evaluate(y_true, y_score, metric, 10, n_jobs=2, **conventions)


def test_a_convention_no_curve_can_honour_is_refused():
    y_true, y_score = _tied_case(0)
    with pytest.raises(ValueError, match="cannot honour iprec_rounding='plus_0.9'.*iprec"):
        sr.metric_at_k_curve(y_true, y_score, "map", k_max=3, iprec_rounding="plus_0.9")
    # A preset's iprec_rounding is not given by the caller: nothing to refuse.
    values = sr.metric_at_k_curve(y_true, y_score, "map", k_max=3, convention="trec_eval")[1]
    assert values[-1] == sr.evaluate(y_true, y_score, ["map@3"], convention="trec_eval")["map@3"]
    with pytest.raises(TypeError, match="unexpected keyword argument 'gains'"):
        sr.metric_at_k_curve(y_true, y_score, "ndcg", k_max=3, gains="linear")


def test_display_takes_the_conventions_and_n_jobs():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    truth, run = _judged_case()
    display = sr.MetricAtKDisplay.from_predictions(
        truth, run, metric="ndcg", k_max=5, judged_only=True, n_jobs=2
    )
    names = [f"ndcg@{k}" for k in range(1, 6)]
    expected = sr.evaluate(truth, run, names, judged_only=True)
    np.testing.assert_allclose(display.values, [expected[n] for n in names], rtol=0, atol=1e-12)
    plt.close("all")


def test_one_ranking_for_the_whole_curve(monkeypatch):
    calls = []
    rank = _curves._rank

    def counting_rank(queries, k, *args):
        calls.append(k)
        return rank(queries, k, *args)

    monkeypatch.setattr(_curves, "_rank", counting_rank)
    y_true, y_score = _tied_case(0)
    sr.metric_at_k_curve(y_true, y_score, "ndcg", k_max=7)
    assert calls == [7]


@pytest.mark.parametrize(
    "metric, message",
    [
        ("arp", "takes no cut-off"),
        ("kendall_tau", "takes no cut-off"),
        ("ndcg@10", r"without a cut-off .* pass 'ndcg' and k_max=10"),
        ("ndgc", "Unknown metric name"),
        (["ndcg"], "metric must be a metric name"),
    ],
)
def test_metrics_without_a_curve_are_refused(metric, message):
    with pytest.raises(ValueError, match=message):
        sr.metric_at_k_curve([[1, 0]], [[0.5, 0.2]], metric, k_max=2)


def test_metric_without_a_curve_form_is_named(monkeypatch):
    monkeypatch.delitem(_CURVES, "auc")
    with pytest.raises(ValueError, match="no curve for 'auc'; it has curves for cg, dcg"):
        sr.metric_at_k_curve([[1, 0]], [[0.5, 0.2]], "auc", k_max=2)


@pytest.mark.parametrize("k_max", [0, -1, 2.0, None, True])
def test_bad_k_max(k_max):
    with pytest.raises(ValueError, match="k_max must be a positive integer"):
        sr.metric_at_k_curve([[1, 0]], [[0.5, 0.2]], "ndcg", k_max=k_max)


def test_no_relevant_errors_match_evaluate():
    y_true, y_score = np.array([[0, 0], [1, 0]]), np.array([[0.5, 0.2], [0.1, 0.3]])
    with pytest.raises(ValueError, match="no_relevant='error'"):
        sr.metric_at_k_curve(y_true, y_score, "ndcg", k_max=2, no_relevant="error")
    with pytest.raises(ValueError, match="every query was skipped"):
        sr.metric_at_k_curve(y_true[:1], y_score[:1], "map", k_max=2, no_relevant="skip")
    with pytest.raises(ValueError, match="sample_weight 0"):
        sr.metric_at_k_curve(
            y_true, y_score, "map", k_max=2, no_relevant="skip", sample_weight=[1.0, 0.0]
        )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"no_relevant": "error"},
        {"no_relevant": "skip", "sample_weight": [0.0, 1.0, 0.0]},
        {"no_relevant": "skip", "y_true": np.zeros((3, 2))},
    ],
)
def test_one_aggregator_says_what_evaluate_says(kwargs):
    # The curve's points go through evaluate's aggregator: at k_max=1 the messages are
    # evaluate's, word for word.
    y_true = kwargs.pop("y_true", np.array([[1, 0], [0, 0], [0, 1]]))
    y_score = np.array([[0.5, 0.2], [0.1, 0.3], [0.4, 0.4]])
    with pytest.raises(ValueError) as curve:
        sr.metric_at_k_curve(y_true, y_score, "map", k_max=1, **kwargs)
    with pytest.raises(ValueError) as expected:
        sr.evaluate(y_true, y_score, ["map@1"], **kwargs)
    assert str(curve.value) == str(expected.value)


def test_overflowing_gains_are_reported_as_evaluate_does():
    y_score = np.array([[0.5, 0.2], [0.5, 0.2]])
    y_true = np.array([[1.5e308, 1.5e308], [1.0, 0.0]])
    with pytest.raises(ValueError, match="dcg@2: the value of query number 0 is") as error:
        sr.metric_at_k_curve(y_true, y_score, "dcg", k_max=2)
    with pytest.raises(ValueError) as expected:
        sr.evaluate(y_true, y_score, ["dcg@2"])
    assert str(error.value) == str(expected.value)
    # Values whose sum over queries overflows: the overflow-safe mean, as evaluate.
    huge = np.array([[1e308, 0.0], [1e308, 0.0]])
    values = sr.metric_at_k_curve(huge, y_score, "cg", k_max=2)[1]
    assert values.tolist() == [1e308, 1e308] == [sr.evaluate(huge, y_score, ["cg@1"])["cg@1"]] * 2
