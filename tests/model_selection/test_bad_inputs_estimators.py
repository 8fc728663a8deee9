"""Bad inputs to scorers, grouped model selection and QueryGroupRanker, one row per case.

Every row either raises a ValueError or TypeError whose message names the parameter and
the offending value, or gives a value proved against `tests/reference.py` (or against
the same computation on clean input). A scorer never returns NaN, and no row may end in
an IndexError, KeyError, ZeroDivisionError or a numpy broadcasting error.
"""

import re
import warnings

import numpy as np
import pytest
import sklearn
from reference import reference_mean, reference_per_query
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    GridSearchCV,
    GroupKFold,
    KFold,
    ShuffleSplit,
    cross_val_score,
)

import sklearn_rank as sr

# Four queries of three rows, rows interleaved; the score of a row is its first feature.
GROUPS = np.array([7, 3, 7, 5, 3, 9, 5, 7, 9, 3, 5, 9])
Y = np.array([2, 0, 0, 1, 1, 0, 0, 1, 2, 0, 1, 0])
X = np.column_stack([[0.9, 0.2, 0.3, 0.5, 0.8, 0.1, 0.7, 0.3, 0.6, 0.4, 0.1, 0.6], np.arange(12.0)])

CLEAN_ERRORS = (ValueError, TypeError)
UNHELPFUL = (IndexError, KeyError, ZeroDivisionError)


class FirstColumn(RegressorMixin, BaseEstimator):
    """Scores a row by its first feature; fit learns nothing, so values are exact."""

    def fit(self, X, y=None, sample_weight=None):
        self.n_features_in_ = np.shape(X)[1]
        return self

    def predict(self, X):
        return np.asarray(X, dtype=float)[:, 0].copy()


class Predicts(RegressorMixin, BaseEstimator):
    """Predicts X[:, 0] with row 0 replaced by ``value``, or an output of ``kind``."""

    def __init__(self, value=np.nan, kind="1-D"):
        self.value = value
        self.kind = kind

    def fit(self, X, y=None):
        return self

    def predict(self, X):
        scores = np.asarray(X, dtype=float)[:, 0].copy()
        if self.kind == "2-D":
            return np.column_stack([scores, scores])
        if self.kind == "short":
            return scores[:-1]
        if self.kind == "strings":
            return np.array(["high"] * len(scores))
        scores[0] = self.value
        return scores


def _expected(metric, y, scores, groups, *, k=None, weights=None, no_relevant=0.0):
    """The slow reference: per query (first-appearance order), then the weighted mean."""
    values = []
    for query in sr.query_ids(groups):
        rows = np.asarray(groups) == query
        values.append(
            reference_per_query(
                metric, np.asarray(y)[rows].tolist(), np.asarray(scores)[rows].tolist(), k=k
            )
        )
    return reference_mean(values, weights, no_relevant)


# --------------------------------------------------------------------------------------
# get_scorer / make_ranking_scorer: names, cut-offs and conventions
# --------------------------------------------------------------------------------------

NAME_ERRORS = [
    ("unknown", "nope", "Unknown metric name 'nope'. Known names: aclt"),
    ("mixed_case", "Ndcg@3", "Unknown metric name 'Ndcg@3'"),
    ("empty", "", "Unknown metric name ''"),
    ("at_without_k", "ndcg@", "Unknown metric name 'ndcg@'"),
    ("k_without_name", "@3", "Unknown metric name '@3'"),
    ("two_cut_offs", "ndcg@3@4", "Unknown metric name 'ndcg@3@4'"),
    ("k_word", "ndcg@ten", "Unknown metric name 'ndcg@ten'"),
    ("k_float", "ndcg@1.5", "Unknown metric name 'ndcg@1.5'"),
    ("k_negative", "ndcg@-1", "Unknown metric name 'ndcg@-1'"),
    ("k_space", "ndcg@ 3", "Unknown metric name 'ndcg@ 3'"),
    ("k_bool_word", "ndcg@True", "Unknown metric name 'ndcg@True'"),
    (
        "k_zero",
        "ndcg@0",
        re.escape("The cut-off in 'ndcg@0' must be a positive integer up to 2**62"),
    ),
    ("k_over_int64", "map@" + "9" * 20, re.escape("must be a positive integer up to 2**62")),
    ("cut_off_on_arp", "neg_arp@3", "Metric 'arp' takes no cut-off; got 'arp@3'"),
    ("cut_off_on_tau", "kendall_tau@3", "Metric 'kendall_tau' takes no cut-off"),
    ("neg_of_greater", "neg_ndcg@3", "'neg_ndcg@3': 'ndcg' is greater-is-better already"),
    ("neg_twice", "neg_neg_arp", "Unknown metric name 'neg_arp'"),
    ("lower_is_better", "arp", "'arp' is lower-is-better; .* 'neg_arp'"),
    ("order_free_without_k", "recall", "A 'recall' scorer needs a cut-off \\('recall@10'\\)"),
    ("none", None, "metric names must be strings such as 'ndcg@10'; got None"),
    ("int", 3, "metric names must be strings such as 'ndcg@10'; got 3"),
]


@pytest.mark.parametrize(
    "name, message", [row[1:] for row in NAME_ERRORS], ids=[row[0] for row in NAME_ERRORS]
)
def test_get_scorer_refuses_malformed_names(name, message):
    with pytest.raises(ValueError, match=message):
        sr.get_scorer(name)


MAKE_ERRORS = [
    ("k_zero", {"k": 0}, "k must be a positive integer (up to 2**62) or None; got 0"),
    ("k_negative", {"k": -2}, "k must be a positive integer (up to 2**62) or None; got -2"),
    ("k_float", {"k": 2.0}, "k must be a positive integer (up to 2**62) or None; got 2.0"),
    ("k_bool", {"k": True}, "k must be a positive integer (up to 2**62) or None; got True"),
    ("k_string", {"k": "3"}, "k must be a positive integer (up to 2**62) or None; got '3'"),
    ("k_over_int64", {"k": 2**63}, f"or None; got {2**63}"),
    ("ties", {"ties": "random"}, "ties must be one of 'average', 'stable'; got 'random'"),
    (
        "no_relevant_nan",
        {"no_relevant": float("nan")},
        "no_relevant must be a finite number, 'skip' or 'error'; got nan",
    ),
    (
        "no_relevant_bool",
        {"no_relevant": True},
        "no_relevant must be a finite number, 'skip' or 'error'; got True",
    ),
    ("convention", {"convention": "ranx"}, "convention must be one of 'sklearn', "),
    (
        "score_dtype",
        {"score_dtype": "float16"},
        "score_dtype must be one of 'float64', 'float32'; got 'float16'",
    ),
    ("unknown_parameter", {"foo": 1}, "metric 'ndcg' takes no parameter 'foo'"),
]


@pytest.mark.parametrize(
    "params, message", [row[1:] for row in MAKE_ERRORS], ids=[row[0] for row in MAKE_ERRORS]
)
def test_make_ranking_scorer_refuses_bad_parameters(params, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        sr.make_ranking_scorer(sr.ndcg_score, **params)


def test_make_ranking_scorer_refuses_k_beside_a_cut_off_in_the_name():
    with pytest.raises(ValueError, match=re.escape("not as k=3")):
        sr.make_ranking_scorer("ndcg@3", k=3)


@pytest.mark.parametrize(
    "spelling, canonical",
    [
        ("ndcg@03", "ndcg@3"),
        (" map ", "map"),
        ((sr.ndcg_score, np.int64(3)), "ndcg@3"),
    ],
    ids=["leading_zero", "surrounding_spaces", "numpy_int_k"],
)
def test_scorer_spellings_that_are_accepted_score_like_the_canonical_name(spelling, canonical):
    if isinstance(spelling, tuple):
        scorer = sr.make_ranking_scorer(spelling[0], k=spelling[1])
        assert scorer.k == 3 and isinstance(scorer.k, int)
    else:
        scorer = sr.get_scorer(spelling)
    got = scorer(FirstColumn(), X, Y, groups=GROUPS)
    assert got == sr.get_scorer(canonical)(FirstColumn(), X, Y, groups=GROUPS)


# --------------------------------------------------------------------------------------
# RankingScorer called directly: query ids, labels, weights, the estimator's output
# --------------------------------------------------------------------------------------

_MIXED = [1, "1"] * 6  # 1 and "1" are two queries, as everywhere in sklearn_rank

SCORER_ERRORS = [
    (
        "groups_missing",
        {"groups": None},
        ValueError,
        "Scorer 'ndcg@2' was called without query ids.*enable_metadata_routing",
    ),
    (
        "groups_short",
        {"groups": GROUPS[:5]},
        ValueError,
        re.escape("Scorer 'ndcg@2' got 5 query ids (groups) for 12 rows"),
    ),
    (
        "groups_2d",
        {"groups": GROUPS.reshape(-1, 1)},
        ValueError,
        re.escape("Scorer 'ndcg@2' got groups of shape (12, 1) (groups) for 12 rows"),
    ),
    ("groups_scalar", {"groups": 7}, ValueError, re.escape("groups of shape () (groups)")),
    (
        "groups_nan",
        {"groups": np.where(GROUPS == 5, np.nan, GROUPS)},
        ValueError,
        re.escape("groups must not contain NaN; got NaN at row 3"),
    ),
    (
        "groups_none_inside",
        {"groups": [7, 3, None] + [5] * 9},
        ValueError,
        re.escape("groups must not contain None or NaN; got None at row 2"),
    ),
    (
        "groups_unhashable",
        {"groups": [{1}] * 12},
        ValueError,
        re.escape("groups must hold hashable ids; got set at row 0"),
    ),
    (
        "y_2d",
        {"y": Y.reshape(-1, 1)},
        ValueError,
        re.escape(
            "Scorer 'ndcg@2': y must be 1-D with the relevance of every row of X; got shape (12, 1)"
        ),
    ),
    (
        "y_nan",
        {"y": np.where(Y == 2, np.nan, Y)},
        ValueError,
        re.escape("y_true must contain only finite numbers; got nan at index 0"),
    ),
    (
        "y_inf",
        {"y": np.where(Y == 2, np.inf, Y)},
        ValueError,
        re.escape("y_true must contain only finite numbers; got inf at index 0"),
    ),
    (
        "y_minus_inf",
        {"y": np.where(Y == 2, -np.inf, Y)},
        ValueError,
        re.escape("y_true must contain only finite numbers; got -inf at index 0"),
    ),
    (
        "y_negative",
        {"y": Y - 1},
        ValueError,
        re.escape("y_true must be non-negative for 'ndcg@2'; got -1.0"),
    ),
    (
        "y_strings",
        {"y": Y.astype(str)},
        ValueError,
        re.escape("y_true must contain real numbers; got an array of dtype <U"),
    ),
    (
        "X_fewer_rows_than_y",
        {"X": X[:6]},
        ValueError,
        re.escape("Scorer 'ndcg@2': FirstColumn returned scores of shape (6,) for 12 rows"),
    ),
    (
        "weights_negative",
        {"sample_weight": -np.ones(12)},
        ValueError,
        re.escape("sample_weight must be non-negative; got -1.0"),
    ),
    (
        "weights_all_zero",
        {"sample_weight": np.zeros(12)},
        ValueError,
        re.escape("sample_weight must not be all zero"),
    ),
    (
        "weights_wrong_length",
        {"sample_weight": np.ones(5)},
        ValueError,
        re.escape("sample_weight must have length 4 (one per query) or 12 (one per row); got 5"),
    ),
    (
        "weights_vary_in_query",
        {"sample_weight": np.arange(12.0)},
        ValueError,
        re.escape("sample_weight given per row must be constant within each query"),
    ),
    (
        "weights_nan",
        {"sample_weight": np.full(12, np.nan)},
        ValueError,
        re.escape("sample_weight must contain only finite numbers; got nan at index 0"),
    ),
    (
        "weights_strings",
        {"sample_weight": ["1"] * 12},
        ValueError,
        re.escape("sample_weight must contain real numbers"),
    ),
]


@pytest.mark.parametrize(
    "change, error, message",
    [row[1:] for row in SCORER_ERRORS],
    ids=[row[0] for row in SCORER_ERRORS],
)
def test_scorer_refuses_bad_inputs(change, error, message):
    inputs = {"X": X, "y": Y, "groups": GROUPS, "sample_weight": None, **change}
    with pytest.raises(error, match=message):
        sr.get_scorer("ndcg@2")(
            FirstColumn(),
            inputs["X"],
            inputs["y"],
            groups=inputs["groups"],
            sample_weight=inputs["sample_weight"],
        )


ESTIMATOR_OUTPUTS = [
    ("nan", Predicts(np.nan), "Predicts predicted nan for row 0 of X (1 of 12 scores"),
    ("inf", Predicts(np.inf), "Predicts predicted inf for row 0 of X"),
    ("minus_inf", Predicts(-np.inf), "Predicts predicted -inf for row 0 of X"),
    ("two_columns", Predicts(kind="2-D"), "Predicts returned scores of shape (12, 2) for 12 rows"),
    ("one_short", Predicts(kind="short"), "Predicts returned scores of shape (11,) for 12 rows"),
    ("strings", Predicts(kind="strings"), "Predicts returned scores of dtype <U4"),
]


@pytest.mark.parametrize(
    "estimator, message",
    [row[1:] for row in ESTIMATOR_OUTPUTS],
    ids=[row[0] for row in ESTIMATOR_OUTPUTS],
)
def test_scorer_names_the_estimator_whose_scores_cannot_rank(estimator, message):
    with pytest.raises(ValueError, match="^" + re.escape("Scorer 'map@2': " + message)):
        sr.get_scorer("map@2")(estimator, X, Y, groups=GROUPS)


def _shuffled(*arrays, seed=0):
    order = np.random.default_rng(seed).permutation(len(arrays[0]))
    return [np.asarray(a)[order] for a in arrays]


SCORER_VALUES = [
    # (id, scorer name, inputs changed, expected from the reference)
    ("interleaved_rows", "ndcg@2", {}, lambda: _expected("ndcg", Y, X[:, 0], GROUPS, k=2)),
    (
        "shuffled_rows_equal_sorted",
        "map",
        {"shuffle": True},
        lambda: _expected("map", Y, X[:, 0], GROUPS),
    ),
    (
        "string_ids",
        "mrr",
        {"groups": np.array([f"q{g}" for g in GROUPS])},
        lambda: _expected("mrr", Y, X[:, 0], GROUPS),
    ),
    ("float_ids", "mrr", {"groups": GROUPS + 0.5}, lambda: _expected("mrr", Y, X[:, 0], GROUPS)),
    (
        "object_ids_as_list",
        "mrr",
        {"groups": [f"q{g}" for g in GROUPS]},
        lambda: _expected("mrr", Y, X[:, 0], GROUPS),
    ),
    (
        "mixed_1_and_str_1_are_two_queries",
        "map",
        {"groups": _MIXED},
        lambda: _expected("map", Y, X[:, 0], np.array(["i", "s"] * 6)),
    ),
    (
        "one_item_queries",
        "ndcg@3",
        {"groups": np.arange(12)},
        lambda: _expected("ndcg", Y, X[:, 0], np.arange(12), k=3),
    ),
    (
        "single_query",
        "auc",
        {"groups": np.zeros(12)},
        lambda: _expected("auc", Y, X[:, 0], np.zeros(12)),
    ),
    ("k_beyond_every_query", "ndcg@100", {}, lambda: _expected("ndcg", Y, X[:, 0], GROUPS)),
    (
        "bool_labels",
        "map",
        {"y": Y > 0},
        lambda: _expected("map", (Y > 0).astype(int), X[:, 0], GROUPS),
    ),
    (
        "float32_labels",
        "ndcg@2",
        {"y": Y.astype(np.float32)},
        lambda: _expected("ndcg", Y, X[:, 0], GROUPS, k=2),
    ),
    # Queries 3 and 5 hold no positive label but a -1 (a non-zero relevance, which
    # counts for DCG: docs/metrics.md, no_relevant); their DCG@2 is negative.
    (
        "negative_labels_for_dcg",
        "dcg@2",
        {"y": Y - 1},
        lambda: np.mean(
            [
                reference_per_query("dcg", [1, -1, 0], [0.9, 0.3, 0.3], k=2),
                -1 / np.log2(3),
                -1.0,
                reference_per_query("dcg", [-1, 1, -1], [0.1, 0.6, 0.6], k=2),
            ]
        ),
    ),
    (
        "weight_zero_for_one_query",
        "ndcg@2",
        {"sample_weight": np.where(GROUPS == 7, 0.0, 1.0)},
        lambda: _expected("ndcg", Y, X[:, 0], GROUPS, k=2, weights=[0, 1, 1, 1]),
    ),
    (
        "weights_per_query",
        "ndcg@2",
        {"sample_weight": [1.0, 2.0, 3.0, 4.0]},
        lambda: _expected("ndcg", Y, X[:, 0], GROUPS, k=2, weights=[1, 2, 3, 4]),
    ),
    (
        "weights_per_row_constant_in_query",
        "ndcg@2",
        {"sample_weight": np.select([GROUPS == 7, GROUPS == 3, GROUPS == 5], [1.0, 2.0, 3.0], 4.0)},
        lambda: _expected("ndcg", Y, X[:, 0], GROUPS, k=2, weights=[1, 2, 3, 4]),
    ),
    (
        "neg_arp_is_negated",
        "neg_arp",
        {},
        lambda: -_expected("arp", Y, X[:, 0], GROUPS, no_relevant="skip"),
    ),
]


@pytest.mark.parametrize(
    "name, change, expected",
    [row[1:] for row in SCORER_VALUES],
    ids=[row[0] for row in SCORER_VALUES],
)
def test_scorer_values_on_edge_inputs(name, change, expected):
    x, y, groups = X, change.get("y", Y), change.get("groups", GROUPS)
    if change.get("shuffle"):
        x, y, groups = _shuffled(x, y, groups)
    got = sr.get_scorer(name)(
        FirstColumn(), x, y, groups=groups, sample_weight=change.get("sample_weight")
    )
    assert not np.isnan(got)
    assert got == pytest.approx(expected(), rel=1e-12, abs=1e-12)


def test_scorer_on_shuffled_rows_equals_the_sorted_rows():
    order = np.argsort(GROUPS, kind="stable")
    scorer = sr.get_scorer("ndcg@2")
    for seed in range(5):
        x, y, groups = _shuffled(X, Y, GROUPS, seed=seed)
        assert scorer(FirstColumn(), x, y, groups=groups) == pytest.approx(
            scorer(FirstColumn(), X[order], Y[order], groups=GROUPS[order]), rel=1e-14
        )


# --------------------------------------------------------------------------------------
# Inside scikit-learn: cross_val_score and GridSearchCV
# --------------------------------------------------------------------------------------


def _per_fold(metric, cv, x, y, groups, estimator=None, k=None):
    estimator = estimator or FirstColumn()
    return [
        _expected(metric, y[test], estimator.fit(x[train]).predict(x[test]), groups[test], k=k)
        for train, test in cv.split(x, y, groups)
    ]


def test_cross_val_score_with_routing_gives_the_reference_per_fold():
    x, y, groups = _shuffled(X, Y, np.array([f"q{g}" for g in GROUPS]))
    with sklearn.config_context(enable_metadata_routing=True):
        got = cross_val_score(
            FirstColumn(),
            x,
            y,
            scoring=sr.get_scorer("ndcg@2"),
            cv=GroupKFold(2),
            params={"groups": groups},
        )
    assert got == pytest.approx(_per_fold("ndcg", GroupKFold(2), x, y, groups, k=2), abs=1e-12)


def test_cross_val_score_nan_predictions_raise_when_asked():
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.raises(ValueError, match=re.escape("Predicts predicted nan for row 0")):
            cross_val_score(
                Predicts(np.nan),
                X,
                Y,
                scoring=sr.get_scorer("map"),
                cv=GroupKFold(2),
                params={"groups": GROUPS},
                error_score="raise",
            )


def test_cross_val_score_nan_predictions_default_error_score_is_nan_with_the_reason():
    # scikit-learn's default error_score=np.nan puts NaN in place of a fold that failed
    # and warns; the warning carries the scorer's message. This is the only NaN.
    with sklearn.config_context(enable_metadata_routing=True):
        with pytest.warns(UserWarning, match=re.escape("Predicts predicted nan for row 0")):
            got = cross_val_score(
                Predicts(np.nan),
                X,
                Y,
                scoring=sr.get_scorer("map"),
                cv=GroupKFold(2),
                params={"groups": GROUPS},
            )
    assert np.isnan(got).all()


def test_grid_search_without_routing_says_how_to_pass_query_ids():
    search = GridSearchCV(
        FirstColumn(), {}, scoring=sr.get_scorer("map"), cv=GroupKFold(2), error_score="raise"
    )
    with pytest.raises(ValueError, match="called without query ids.*enable_metadata_routing"):
        search.fit(X, Y, groups=GROUPS)


# --------------------------------------------------------------------------------------
# grouped_cross_validate, GroupedGridSearchCV, GroupedRandomizedSearchCV
# --------------------------------------------------------------------------------------


def _cross_validate(**change):
    arguments = {
        "estimator": FirstColumn(),
        "X": X,
        "y": Y,
        "groups": GROUPS,
        "scoring": "ndcg@2",
        "cv": 2,
        "error_score": "raise",
        **change,
    }
    estimator, x, y = arguments.pop("estimator"), arguments.pop("X"), arguments.pop("y")
    return sr.grouped_cross_validate(estimator, x, y, **arguments)


def _grid(**change):
    groups = change.pop("groups", GROUPS)
    fit_params = change.pop("fit_params", {})
    arguments = {"scoring": "ndcg@2", "cv": 2, "error_score": "raise", **change}
    return sr.GroupedGridSearchCV(FirstColumn(), {}, **arguments).fit(
        X, Y, groups=groups, **fit_params
    )


def _randomized(**change):
    groups = change.pop("groups", GROUPS)
    arguments = {"scoring": "ndcg@2", "cv": 2, "error_score": "raise", "n_iter": 1, **change}
    return sr.GroupedRandomizedSearchCV(Ridge(), {"alpha": [1.0]}, **arguments).fit(
        X, Y, groups=groups
    )


_FOLDS = [(np.flatnonzero(np.isin(GROUPS, [7, 3])), np.flatnonzero(np.isin(GROUPS, [5, 9])))]
_SPLIT_QUERY_FOLD = [(np.arange(6), np.arange(6, 12))]  # query 7 has rows on both sides

HELPER_ERRORS = [
    (
        "groups_none",
        {"groups": None},
        "groups is required: pass the query id of every row of X (",
    ),
    (
        "groups_short",
        {"groups": GROUPS[:-1]},
        "groups must hold one query id per row of X (12 rows); got shape (11,)",
    ),
    (
        "groups_2d",
        {"groups": GROUPS.reshape(-1, 1)},
        "groups must hold one query id per row of X (12 rows); got shape (12, 1)",
    ),
    (
        "groups_scalar",
        {"groups": 3},
        "groups must hold one query id per row of X (12 rows); got shape ()",
    ),
    (
        "groups_nan",
        {"groups": np.where(GROUPS == 9, np.nan, GROUPS)},
        "groups must not contain NaN; got NaN at row 5",
    ),
    (
        "groups_none_inside",
        {"groups": [None] + GROUPS.tolist()[1:]},
        "groups must not contain None or NaN; got None at row 0",
    ),
    ("cv_zero", {"cv": 0}, "cv=0: an int is the number of GroupKFold folds and must be at least 2"),
    ("cv_one", {"cv": 1}, "cv=1: an int is the number of GroupKFold folds and must be at least 2"),
    ("cv_negative", {"cv": -3}, "cv=-3: an int is the number of GroupKFold folds"),
    (
        "cv_bool",
        {"cv": True},
        "cv must be None, an int (at least 2: the number of GroupKFold "
        "folds), a splitter or a list of (train, test) folds; got True",
    ),
    ("cv_float", {"cv": 2.0}, "splitter or a list of (train, test) folds; got 2.0"),
    ("cv_string", {"cv": "2"}, "splitter or a list of (train, test) folds; got '2'"),
    (
        "cv_more_folds_than_queries",
        {"cv": 5},
        "Cannot have number of splits n_splits=5 greater than the number of groups: 4",
    ),
    ("cv_empty_list", {"cv": []}, "cv (a list of 0 folds) produced no folds"),
    (
        "cv_index_out_of_range",
        {"cv": [(_FOLDS[0][0], np.array([12]))]},
        "cv (a list of 1 fold): fold 0's test set holds row index 12; indices must be in [0, 12)",
    ),
    (
        "cv_negative_index",
        {"cv": [(_FOLDS[0][0], np.array([-1]))]},
        "fold 0's test set holds row index -1; indices must be in [0, 12)",
    ),
    (
        "cv_float_indices",
        {"cv": [(_FOLDS[0][0].astype(float), _FOLDS[0][1])]},
        "fold 0's training set must be a 1-D array of integer row indices or a boolean mask; "
        "got an array of shape (6,) and dtype float64",
    ),
    (
        "cv_short_mask",
        {"cv": [(np.ones(3, bool), np.ones(3, bool))]},
        "fold 0's training set is a boolean mask of shape (3,); a mask needs one entry per "
        "row (12)",
    ),
    (
        "cv_empty_test",
        {"cv": [(np.arange(12), np.array([], dtype=int))]},
        "fold 0's test set is empty; every fold needs rows to score",
    ),
    (
        "cv_not_pairs",
        {"cv": [(1, 2, 3)]},
        "fold 0 must be a (train indices, test indices) pair; got tuple",
    ),
    (
        "cv_splits_a_query",
        {"cv": _SPLIT_QUERY_FOLD},
        "cv (a list of 1 fold) put rows of query 7 in both the training and the test set of "
        "fold 0: it ignores groups. Use a group-aware splitter",
    ),
    (
        "kfold_splits_a_query",
        {"cv": KFold(2)},
        "put rows of query 7 in both the training and the test set of fold 0",
    ),
    (
        "shuffle_split_ignores_groups",
        {"cv": ShuffleSplit(2, test_size=0.5, random_state=0)},
        "it ignores groups",
    ),
    ("scoring_unknown_cut_off", {"scoring": "ndcg@0"}, "The cut-off in 'ndcg@0' must be"),
    (
        "scoring_malformed_in_list",
        {"scoring": ["ndcg@2", "map@-1"]},
        "Unknown metric name 'map@-1'",
    ),
    ("scoring_lower_is_better", {"scoring": "arp"}, "'arp' is lower-is-better"),
    (
        "scoring_order_free",
        {"scoring": {"hits": "hit_rate"}},
        "A 'hit_rate' scorer needs a cut-off",
    ),
    (
        "scoring_unknown_name",
        {"scoring": "nope"},
        "Unknown scoring name 'nope': neither a sklearn_rank scorer (aclt, aclt@K, ",
    ),
    (
        "scoring_unknown_name_in_dict",
        {"scoring": {"a": "map", "b": "Ndcg@10"}},
        "Unknown scoring name 'Ndcg@10': neither a sklearn_rank scorer",
    ),
    (
        "estimator_predicts_nan",
        {"estimator": Predicts(np.nan)},
        "Scorer 'ndcg@2': Predicts predicted nan for row",
    ),
    ("estimator_predicts_inf", {"estimator": Predicts(np.inf)}, "Predicts predicted inf"),
    ("labels_negative", {"y": Y - 1.0}, "y_true must be non-negative for 'ndcg@2'; got -1.0"),
]


@pytest.mark.parametrize(
    "change, message", [row[1:] for row in HELPER_ERRORS], ids=[row[0] for row in HELPER_ERRORS]
)
def test_grouped_cross_validate_refuses_bad_inputs(change, message):
    with pytest.raises(CLEAN_ERRORS, match=re.escape(message)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # KFold: "groups are ignored"
            _cross_validate(**change)


SEARCH_ROWS = [
    row for row in HELPER_ERRORS if row[0].startswith(("groups", "cv", "kfold", "scoring_unknown"))
]


@pytest.mark.parametrize("search", [_grid, _randomized], ids=["grid", "randomized"])
@pytest.mark.parametrize(
    "change, message", [row[1:] for row in SEARCH_ROWS], ids=[row[0] for row in SEARCH_ROWS]
)
def test_grouped_searches_refuse_bad_inputs(search, change, message):
    with pytest.raises(CLEAN_ERRORS, match=re.escape(message)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            search(**change)


def _weights_request():
    scorer = sr.get_scorer("ndcg@2").set_score_request(sample_weight=True)
    with sklearn.config_context(enable_metadata_routing=True):
        estimator = FirstColumn().set_fit_request(sample_weight=False)
    return scorer, estimator


_WEIGHT_OF = {7: 1.0, 3: 2.0, 5: 3.0, 9: 4.0}
_ROW_WEIGHTS = np.array([_WEIGHT_OF[g] for g in GROUPS])

WEIGHT_ERRORS = [
    ("negative", -_ROW_WEIGHTS, "sample_weight must be non-negative; got -"),
    ("all_zero", np.zeros(12), "sample_weight must not be all zero"),
    (
        "nan",
        np.where(GROUPS == 7, np.nan, _ROW_WEIGHTS),
        "sample_weight must contain only finite numbers; got nan",
    ),
    (
        "vary_within_a_query",
        np.arange(12.0),
        "sample_weight given per row must be constant within each query",
    ),
    (
        "wrong_length",
        np.ones(5),
        "sample_weight must hold one weight per row of X (12 rows); got shape (5,)",
    ),
    (
        "per_query_in_cross_validation",
        np.ones(4),
        "sample_weight must hold one weight per row of X (12 rows); got shape (4,). In "
        "cross-validation a query's weight is repeated on each of its rows",
    ),
]


@pytest.mark.parametrize(
    "weights, message", [row[1:] for row in WEIGHT_ERRORS], ids=[row[0] for row in WEIGHT_ERRORS]
)
def test_routed_sample_weight_errors(weights, message):
    scorer, estimator = _weights_request()
    with pytest.raises(ValueError, match=re.escape(message)):
        sr.grouped_cross_validate(
            estimator,
            X,
            Y,
            groups=GROUPS,
            scoring=scorer,
            cv=2,
            params={"sample_weight": weights},
            error_score="raise",
        )
    with pytest.raises(ValueError, match=re.escape(message)):
        sr.GroupedGridSearchCV(estimator, {}, scoring=scorer, cv=2, error_score="raise").fit(
            X, Y, groups=GROUPS, sample_weight=weights
        )


def test_routed_sample_weight_zero_for_a_query_leaves_it_out_of_the_fold_mean():
    scorer, estimator = _weights_request()
    weights = np.where(GROUPS == 7, 0.0, _ROW_WEIGHTS)
    cv = GroupKFold(2)
    got = sr.grouped_cross_validate(
        estimator, X, Y, groups=GROUPS, scoring=scorer, cv=cv, params={"sample_weight": weights}
    )["test_score"]
    expected = []
    for _train, test in cv.split(X, Y, GROUPS):
        ids = sr.query_ids(GROUPS[test])
        expected.append(
            _expected(
                "ndcg",
                Y[test],
                X[test, 0],
                GROUPS[test],
                k=2,
                weights=[weights[test][GROUPS[test] == q][0] for q in ids],
            )
        )
    assert got == pytest.approx(expected, abs=1e-12)


def _folds_of(cv, groups):
    return list(cv.split(X, Y, groups))


HELPER_VALUES = [
    # (id, changes, the per-fold reference)
    (
        "numpy_int_cv",
        {"cv": np.int64(2)},
        lambda: _per_fold("ndcg", GroupKFold(2), X, Y, GROUPS, k=2),
    ),
    (
        "string_ids",
        {"groups": np.array([f"q{g}" for g in GROUPS])},
        lambda: _per_fold("ndcg", GroupKFold(2), X, Y, np.array([f"q{g}" for g in GROUPS]), k=2),
    ),
    (
        "mixed_1_and_str_1_are_two_queries",
        {"groups": _MIXED, "cv": [(np.arange(12)[::2], np.arange(12)[1::2])]},
        lambda: [_expected("ndcg", Y[1::2], X[1::2, 0], np.zeros(6), k=2)],
    ),
    (
        "boolean_mask_folds",
        {"cv": [(np.isin(GROUPS, [7, 3]), np.isin(GROUPS, [5, 9]))]},
        lambda: [_expected("ndcg", Y[_FOLDS[0][1]], X[_FOLDS[0][1], 0], GROUPS[_FOLDS[0][1]], k=2)],
    ),
    (
        "one_item_queries",
        {"groups": np.arange(12), "cv": 3},
        lambda: _per_fold("ndcg", GroupKFold(3), X, Y, np.arange(12), k=2),
    ),
    (
        "k_beyond_every_query",
        {"scoring": "ndcg@50"},
        lambda: _per_fold("ndcg", GroupKFold(2), X, Y, GROUPS),
    ),
    (
        "sklearn_scorer_alone_needs_no_query_ids",
        {"estimator": Ridge(), "scoring": "r2"},
        lambda: [
            Ridge().fit(X[train], Y[train]).score(X[test], Y[test])
            for train, test in GroupKFold(2).split(X, Y, GROUPS)
        ],
    ),
]


@pytest.mark.parametrize(
    "change, expected", [row[1:] for row in HELPER_VALUES], ids=[row[0] for row in HELPER_VALUES]
)
def test_grouped_cross_validate_values_on_edge_inputs(change, expected):
    got = _cross_validate(**change)["test_score"]
    assert not np.isnan(got).any()
    assert got == pytest.approx(expected(), rel=1e-12, abs=1e-12)


def test_grouped_cross_validate_on_shuffled_rows_equals_the_sorted_rows():
    order = np.argsort(GROUPS, kind="stable")
    sorted_result = sr.grouped_cross_validate(
        Ridge(), X[order], Y[order], groups=GROUPS[order], scoring="ndcg@2", cv=2
    )
    x, y, groups = _shuffled(X, Y, GROUPS, seed=3)
    shuffled_result = sr.grouped_cross_validate(
        Ridge(), x, y, groups=groups, scoring="ndcg@2", cv=2
    )
    # GroupKFold assigns whole queries by size and id, whatever the row order.
    assert shuffled_result["test_score"] == pytest.approx(sorted_result["test_score"], rel=1e-9)


def test_grouped_search_with_sklearn_scorer_alone_and_score():
    search = sr.GroupedGridSearchCV(Ridge(), {"alpha": [0.1, 10.0]}, scoring="r2", cv=2)
    search.fit(X, Y, groups=GROUPS)
    assert search.score(X, Y, groups=GROUPS) == pytest.approx(
        search.best_estimator_.score(X, Y), rel=1e-12
    )


@pytest.mark.filterwarnings("ignore:One or more of the test scores are non-finite")
def test_grouped_search_nan_candidate_scores_nan_and_loses():
    search = sr.GroupedGridSearchCV(Predicts(), {"value": [np.nan, 0.5]}, scoring="map", cv=2)
    with pytest.warns(UserWarning, match=re.escape("Predicts predicted nan for row")):
        search.fit(X, Y, groups=GROUPS)
    assert np.isnan(search.cv_results_["mean_test_score"][0])
    assert search.best_params_ == {"value": 0.5}
    assert np.isfinite(search.best_score_)


@pytest.mark.parametrize(
    "groups, message",
    [
        (None, "groups is required"),
        (GROUPS[:3], "groups must hold one query id per row of X (12 rows); got shape (3,)"),
        (np.full(12, np.nan), "groups must not contain NaN; got NaN at row 0"),
    ],
    ids=["none", "short", "nan"],
)
def test_grouped_search_score_refuses_bad_groups(groups, message):
    search = sr.GroupedGridSearchCV(Ridge(), {"alpha": [1.0]}, scoring="map", cv=2)
    search.fit(X, Y, groups=GROUPS)
    with pytest.raises(ValueError, match=re.escape(message)):
        search.score(X, Y, groups=groups)


# --------------------------------------------------------------------------------------
# QueryGroupRanker
# --------------------------------------------------------------------------------------


class GroupSpy(RegressorMixin, BaseEstimator):
    """Records what QueryGroupRanker passes to fit."""

    def fit(self, X, y, group=None, sample_weight=None):
        self.X_, self.y_, self.group_, self.sample_weight_ = X, y, group, sample_weight
        return self

    def predict(self, X):
        return np.asarray(X, dtype=float)[:, 0]


RANKER_ERRORS = [
    (
        "groups_missing",
        {"groups": None},
        ValueError,
        re.escape("QueryGroupRanker.fit requires the query id of each row"),
    ),
    (
        "groups_short",
        {"groups": GROUPS[:5]},
        ValueError,
        re.escape("X has 12 rows but groups has 5 entries"),
    ),
    (
        "groups_2d",
        {"groups": GROUPS.reshape(-1, 1)},
        ValueError,
        re.escape("X has 12 rows but groups has shape (12, 1)"),
    ),
    (
        "groups_nan",
        {"groups": np.where(GROUPS == 3, np.nan, GROUPS)},
        ValueError,
        re.escape("groups must not contain NaN; got NaN at row 1"),
    ),
    (
        "groups_none_inside",
        {"groups": [None] + GROUPS.tolist()[1:]},
        ValueError,
        re.escape("groups must not contain None or NaN; got None at row 0"),
    ),
    (
        "groups_unhashable",
        {"groups": [{1}] * 12},
        ValueError,
        re.escape("groups must hold hashable ids; got set at row 0"),
    ),
    ("y_short", {"y": Y[:4]}, ValueError, re.escape("X has 12 rows but y has 4")),
    (
        "group_param_unknown",
        {"group_param": "groups"},
        ValueError,
        re.escape(
            "group_param must be 'auto', 'group', 'qid', 'group_id' or None; "
            "got group_param='groups'"
        ),
    ),
    (
        "group_param_not_taken",
        {"group_param": "qid"},
        ValueError,
        re.escape("group_param='qid' but GroupSpy.fit has no parameter 'qid'"),
    ),
    (
        "explicit_group",
        {"fit_params": {"group": [3, 3, 3, 3]}},
        ValueError,
        re.escape("got group=...; do not pass group or qid"),
    ),
]


@pytest.mark.parametrize(
    "change, error, message",
    [row[1:] for row in RANKER_ERRORS],
    ids=[row[0] for row in RANKER_ERRORS],
)
def test_query_group_ranker_refuses_bad_inputs(change, error, message):
    ranker = sr.QueryGroupRanker(GroupSpy(), group_param=change.get("group_param", "auto"))
    with pytest.raises(error, match=message):
        ranker.fit(
            X,
            change.get("y", Y),
            groups=change.get("groups", GROUPS),
            **change.get("fit_params", {}),
        )


RANKER_VALUES = [
    # (id, groups, expected group sizes, expected row order)
    (
        "interleaved_rows_sorted_by_first_appearance",
        GROUPS,
        [3, 3, 3, 3],
        np.argsort([[7, 3, 5, 9].index(g) for g in GROUPS], kind="stable"),
    ),
    (
        "string_ids",
        np.array([f"q{g}" for g in GROUPS]),
        [3, 3, 3, 3],
        np.argsort([[7, 3, 5, 9].index(g) for g in GROUPS], kind="stable"),
    ),
    (
        "float_ids",
        GROUPS + 0.25,
        [3, 3, 3, 3],
        np.argsort([[7, 3, 5, 9].index(g) for g in GROUPS], kind="stable"),
    ),
    (
        "mixed_1_and_str_1_are_two_queries",
        _MIXED,
        [6, 6],
        np.r_[np.arange(0, 12, 2), np.arange(1, 12, 2)],
    ),
    ("one_item_queries", np.arange(12), [1] * 12, np.arange(12)),
    ("one_query", np.zeros(12), [12], np.arange(12)),
]


@pytest.mark.parametrize(
    "groups, sizes, order",
    [row[1:] for row in RANKER_VALUES],
    ids=[row[0] for row in RANKER_VALUES],
)
def test_query_group_ranker_groups_on_edge_ids(groups, sizes, order):
    weights = np.arange(12.0)  # varies within queries: follows its rows, unchanged
    ranker = sr.QueryGroupRanker(GroupSpy()).fit(X, Y, groups=groups, sample_weight=weights)
    spy = ranker.estimator_
    assert spy.group_.tolist() == sizes
    assert ranker.n_queries_ == len(sizes)
    np.testing.assert_array_equal(spy.X_, X[order])
    np.testing.assert_array_equal(spy.y_, Y[order])
    np.testing.assert_array_equal(spy.sample_weight_, weights[order])


def test_query_group_ranker_in_grouped_search_with_mixed_ids_and_one_item_queries():
    groups = [g if g % 2 else str(g) for g in range(12)]  # 12 one-row queries, mixed types
    search = sr.GroupedGridSearchCV(
        sr.QueryGroupRanker(GroupSpy()), {}, scoring="ndcg@2", cv=3, error_score="raise"
    ).fit(X, Y, groups=groups)
    assert search.best_estimator_.n_queries_ == 12
    assert search.best_estimator_.estimator_.group_.tolist() == [1] * 12
    # Every test query has one row: NDCG@2 is 1 where it is relevant, 0 otherwise.
    codes = np.arange(12)
    for fold, (_train, test) in enumerate(GroupKFold(3).split(X, Y, codes)):
        expected = _expected("ndcg", Y[test], X[test, 0], codes[test], k=2)
        assert search.cv_results_[f"split{fold}_test_score"][0] == pytest.approx(expected)
