"""The bad-input matrix of the metric functions, `evaluate` and every input form.

One row per case. Each case either raises a clean error (ValueError or TypeError whose
message names the parameter and the offending value or what is accepted) or is accepted
with its documented value, asserted exactly (and never NaN). `pytest.raises` with a
ValueError / TypeError also proves the error is not an IndexError, KeyError,
ZeroDivisionError or a numpy broadcasting error.
"""

import re
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import scipy.sparse

import sklearn_rank as sr
from sklearn_rank import ItemJudgments, ItemRanking
from sklearn_rank.metrics._registry import METRICS

# The click-log estimators need a side input (the propensities) that the inputs here do not
# carry; tests/metrics/test_clicks.py checks them on the forms that carry one.
METRICS = {name: metric for name, metric in METRICS.items() if metric.side_inputs is None}

NAMES = sorted(METRICS)
FUNCTIONS = {name: getattr(sr, metric.function) for name, metric in METRICS.items()}
TAKES_K = sorted(name for name, metric in METRICS.items() if metric.takes_k)
# One label per metric, with a cut-off where it takes one: every reduction runs.
LABELS = [f"{name}@2" if METRICS[name].takes_k else name for name in NAMES] + [
    name for name in NAMES if METRICS[name].takes_k
]

# Documented values below (one-item queries, items judged but never ranked...) are those of
# the first metrics; trec_eval's measures, ERR and RBP have their own tests.
CORE = [name for name in NAMES if METRICS[name].family == "core"]
# Sparse truth judges its stored entries only, a dense matrix every cell: the two agree on
# every measure that does not tell judged non-relevant from unjudged items.
ORDER_LABELS = [label for label in LABELS if not METRICS[label.split("@")[0]].needs_judged]

Y_TRUE = [[1.0, 0.0, 2.0], [0.0, 1.0, 0.0]]
Y_SCORE = [[0.3, 0.2, 0.1], [0.5, 0.6, 0.7]]


def _finite(result):
    """Every value of an evaluate result (or one value) is finite."""
    values = result.values() if isinstance(result, dict) else [result]
    return all(np.isfinite(v).all() for v in values)


def _same(got, expected):
    """Results equal exactly, metric by metric (NaN, where documented, equals NaN)."""
    assert got.keys() == expected.keys()
    for name in expected:
        np.testing.assert_array_equal(got[name], expected[name], err_msg=name)


# --- arrays: shapes, lengths, empty input, non-finite and non-numeric values ---------------

BAD_ARRAYS = [
    # id, y_true, y_score, groups, error, message
    (
        "rows-differ",
        [[1, 0]],
        [[1, 0], [0, 1]],
        None,
        ValueError,
        r"y_true and y_score must have the same shape; got \(1, 2\) and \(2, 2\)",
    ),
    (
        "columns-differ",
        [[1, 0]],
        [[1, 0, 0]],
        None,
        ValueError,
        r"y_true and y_score must have the same shape; got \(1, 2\) and \(1, 3\)",
    ),
    (
        "1d-true-2d-score",
        [1, 0],
        [[1, 0]],
        None,
        ValueError,
        r"same shape; got \(2,\) and \(1, 2\)",
    ),
    (
        "2d-true-1d-score",
        [[1, 0]],
        [1, 0],
        None,
        ValueError,
        r"same shape; got \(1, 2\) and \(2,\)",
    ),
    (
        "long-lengths-differ",
        [1, 0, 1],
        [0.1, 0.2],
        [0, 0, 0],
        ValueError,
        r"same shape; got \(3,\) and \(2,\)",
    ),
    (
        "groups-too-short",
        [1, 0, 1],
        [0.1, 0.2, 0.3],
        [0, 0],
        ValueError,
        r"groups must be 1-D with one query id per row \(3 rows\); got shape \(2,\)",
    ),
    (
        "groups-too-long",
        [1, 0],
        [0.1, 0.2],
        [0, 0, 1],
        ValueError,
        r"groups must be 1-D with one query id per row \(2 rows\); got shape \(3,\)",
    ),
    (
        "1d-without-groups",
        [1, 0, 1],
        [0.1, 0.2, 0.3],
        None,
        ValueError,
        r"1-D y_true and y_score need groups: one query id per row",
    ),
    (
        "groups-with-2d",
        [[1, 0]],
        [[0.1, 0.2]],
        [0],
        ValueError,
        r"groups must be None for 2-D y_true and y_score",
    ),
    (
        "scalars",
        1,
        0.5,
        None,
        ValueError,
        r"y_true must be 2-D \(n_queries, n_items\) or 1-D with groups; got 0-D input",
    ),
    ("3d", [[[1]]], [[[1]]], None, ValueError, r"got 3-D input"),
    ("empty-1d", [], [], None, ValueError, r"y_true is empty; at least one row is needed"),
    ("empty-1d-groups", [], [], [], ValueError, r"y_true is empty"),
    (
        "empty-2d-no-rows",
        np.zeros((0, 3)),
        np.zeros((0, 3)),
        None,
        ValueError,
        r"y_true must have at least one query and one item; got shape \(0, 3\)",
    ),
    (
        "empty-2d-no-items",
        [[]],
        [[]],
        None,
        ValueError,
        r"at least one query and one item; got shape \(1, 0\)",
    ),
    (
        "ragged-lists",
        [[1, 0], [1]],
        [[1, 0], [1]],
        None,
        ValueError,
        r"y_true must be a rectangular array of numbers",
    ),
    ("none-true", None, [[0.1]], None, ValueError, r"y_true must be an array of numbers; got None"),
    ("none-score", [[1]], None, None, ValueError, r"y_score must be an array of numbers; got None"),
    (
        "none-element",
        [[1, None]],
        [[0.1, 0.2]],
        None,
        ValueError,
        r"y_true must contain real numbers; got None at index \(0, 1\)",
    ),
    (
        "none-element-long",
        [1, 0],
        [0.1, None],
        [0, 0],
        ValueError,
        r"y_score must contain real numbers; got None at index 1",
    ),
    (
        "string-true",
        np.array([["1", "0"]]),
        [[0.1, 0.2]],
        None,
        ValueError,
        r"y_true must contain real numbers; got an array of dtype <U1",
    ),
    (
        "string-score",
        [[1, 0]],
        [["a", "b"]],
        None,
        ValueError,
        r"y_score must contain real numbers; got an array of dtype <U1",
    ),
    (
        "bytes-score",
        [[1, 0]],
        np.array([[b"1", b"0"]]),
        None,
        ValueError,
        r"y_score must contain real numbers; got an array of dtype \|S1",
    ),
    (
        "object-with-string",
        [[1, 0]],
        np.array([[0.1, "0.2"]], dtype=object),
        None,
        ValueError,
        r"y_score must contain real numbers; got an array of dtype object",
    ),
    (
        "object-with-dict",
        [[1, 0]],
        np.array([[0.1, {}]], dtype=object),
        None,
        ValueError,
        r"y_score must contain real numbers; got an array of dtype object whose elements",
    ),
    (
        "complex-score",
        [[1, 0]],
        [[0.1 + 1j, 0.2]],
        None,
        ValueError,
        r"y_score must contain real numbers; got an array of dtype complex128",
    ),
    (
        "datetime-score",
        [[1, 0]],
        np.array([[1, 2]], dtype="datetime64[s]"),
        None,
        ValueError,
        r"y_score must contain real numbers; got an array of dtype datetime64\[s\]",
    ),
    (
        "timedelta-true",
        np.array([[1, 0]], dtype="timedelta64[s]"),
        [[0.1, 0.2]],
        None,
        ValueError,
        r"y_true must contain real numbers; got an array of dtype timedelta64\[s\]",
    ),
    (
        "structured-score",
        [[1, 0]],
        np.zeros((1, 2), dtype=[("a", "f8")]),
        None,
        ValueError,
        r"y_score must contain real numbers; got an array of dtype \[\('a', '<f8'\)\]",
    ),
    (
        "masked-score",
        [[1, 0]],
        np.ma.array([[0.1, 0.2]], mask=[[True, False]]),
        None,
        ValueError,
        r"y_score is a masked array with masked entries",
    ),
    (
        "sparse-score",
        Y_TRUE,
        scipy.sparse.csr_matrix(np.array(Y_SCORE)),
        None,
        TypeError,
        r"y_score is a scipy.sparse matrix; scores must be dense",
    ),
]
for _name, _value in (("nan", np.nan), ("inf", np.inf), ("-inf", -np.inf)):
    _shown = re.escape(repr(float(_value)))
    BAD_ARRAYS += [
        (
            f"{_name}-score-2d",
            [[1, 0]],
            [[0.1, _value]],
            None,
            ValueError,
            rf"y_score must contain only finite numbers; got {_shown} at index \(0, 1\)",
        ),
        (
            f"{_name}-label-2d",
            [[_value, 0]],
            [[0.1, 0.2]],
            None,
            ValueError,
            rf"y_true must contain only finite numbers; got {_shown} at index \(0, 0\)",
        ),
        (
            f"{_name}-score-long",
            [1, 0],
            [0.1, _value],
            [0, 0],
            ValueError,
            rf"y_score must contain only finite numbers; got {_shown} at index 1",
        ),
        (
            f"{_name}-label-long",
            [1, _value],
            [0.1, 0.2],
            [0, 0],
            ValueError,
            rf"y_true must contain only finite numbers; got {_shown} at index 1",
        ),
        (
            f"{_name}-label-sparse",
            scipy.sparse.csr_matrix(np.array([[0.0, _value]])),
            [[0.1, 0.2]],
            None,
            ValueError,
            rf"y_true must contain only finite numbers; got {_shown}",
        ),
    ]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    "y_true, y_score, groups, error, message",
    [case[1:] for case in BAD_ARRAYS],
    ids=[case[0] for case in BAD_ARRAYS],
)
def test_bad_arrays_raise_clean_errors_in_every_metric(
    name, y_true, y_score, groups, error, message
):
    with pytest.raises(error, match=message):
        FUNCTIONS[name](y_true, y_score, groups=groups)


@pytest.mark.parametrize(
    "y_true, y_score, groups, error, message",
    [case[1:] for case in BAD_ARRAYS],
    ids=[case[0] for case in BAD_ARRAYS],
)
def test_bad_arrays_raise_clean_errors_in_evaluate(y_true, y_score, groups, error, message):
    with pytest.raises(error, match=message):
        sr.evaluate(y_true, y_score, LABELS, groups=groups)


@pytest.mark.parametrize("name", NAMES)
def test_negative_relevance_is_refused_or_scored_as_documented(name):
    y_true, y_score = [[-1.0, 2.0, 0.0]], [[0.3, 0.2, 0.1]]
    if not METRICS[name].negative_relevance:
        with pytest.raises(
            ValueError, match=rf"y_true must be non-negative for '{name}'; got -1.0"
        ):
            FUNCTIONS[name](y_true, y_score)
        return
    # cg, dcg (linear gain) and kendall_tau take negative gains at face value.
    expected = {"cg": 1.0, "dcg": -1.0 + 2.0 / np.log2(3.0), "kendall_tau": -1.0 / 3.0}[name]
    assert FUNCTIONS[name](y_true, y_score) == pytest.approx(expected, abs=1e-15)
    if name != "kendall_tau":
        with pytest.raises(
            ValueError, match=rf"y_true must be non-negative for '{name}'; got -1.0"
        ):
            FUNCTIONS[name](y_true, y_score, gain="exponential")


@pytest.mark.parametrize("form", ["sparse", "lists", "items"])
def test_negative_relevance_in_other_forms(form):
    y_true = {
        "sparse": scipy.sparse.csr_matrix(np.array([[-1.0, 2.0]])),
        "lists": [{0: -1.0, 1: 2.0}],
        "items": ItemJudgments([0, 0], [0, 1], [-1.0, 2.0]),
    }[form]
    y_score = (
        ItemRanking([0, 0], [0, 1], [0.3, 0.2])
        if form == "items"
        else ([[0, 1]] if form == "lists" else [[0.3, 0.2]])
    )
    with pytest.raises(ValueError, match="y_true must be non-negative for 'ndcg'; got -1.0"):
        sr.ndcg_score(y_true, y_score)
    assert sr.dcg_score(y_true, y_score) == pytest.approx(-1.0 + 2.0 / np.log2(3.0), abs=1e-15)


# --- accepted dtypes: the value is the float64 value ------------------------------------

ACCEPTED_DTYPES = [
    # id, converts (y_true, y_score) to the dtype under test
    ("bool-true", lambda t, s: (np.asarray(t) > 0, s)),  # binary relevance
    ("int-true", lambda t, s: (np.asarray(t, dtype=np.int64), s)),
    ("uint8-true", lambda t, s: (np.asarray(t, dtype=np.uint8), s)),
    (
        "float32-both",
        lambda t, s: (np.asarray(t, dtype=np.float32), np.asarray(s, dtype=np.float32)),
    ),
    ("float16-true", lambda t, s: (np.asarray(t, dtype=np.float16), s)),
    (
        "longdouble-both",
        lambda t, s: (np.asarray(t, dtype=np.longdouble), np.asarray(s, dtype=np.longdouble)),
    ),
    ("object-numbers", lambda t, s: (np.asarray(t, dtype=object), np.asarray(s, dtype=object))),
    ("lists", lambda t, s: (np.asarray(t).tolist(), np.asarray(s).tolist())),
    ("np-matrix", lambda t, s: (np.matrix(t), np.matrix(s))),
    ("masked-without-mask", lambda t, s: (np.ma.array(t), np.ma.array(s))),
    ("decimal-scores", lambda t, s: (t, [[Decimal(str(v)) for v in row] for row in s])),
    ("fraction-true", lambda t, s: ([[Fraction(int(v)) for v in row] for row in t], s)),
]


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
@pytest.mark.parametrize(
    "convert", [case[1] for case in ACCEPTED_DTYPES], ids=[case[0] for case in ACCEPTED_DTYPES]
)
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_accepted_dtypes_give_the_float64_value(convert, ties):
    # Scores in quarters are exact in float16/float32, so the ranking is the same.
    y_true = np.array([[1.0, 0.0, 2.0, 0.0], [0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0]])
    y_score = np.array([[0.25, 0.5, 0.5, 0.75], [1.0, 0.25, 0.25, 0.0], [0.5, 0.5, 0.5, 0.5]])
    if convert is ACCEPTED_DTYPES[0][1]:
        y_true = (y_true > 0).astype(float)  # bool keeps only "relevant or not"
    expected = sr.evaluate(y_true, y_score, LABELS, ties=ties, per_query=True)
    got = sr.evaluate(*convert(y_true, y_score), LABELS, ties=ties, per_query=True)
    _same(got, expected)


def test_boolean_scores_rank_true_first_with_false_tied():
    # Documented as numbers: True is 1.0 and False 0.0.
    got = sr.evaluate([[1, 0, 1]], np.array([[True, False, True]]), ["precision@1", "mrr", "auc"])
    assert got == {"precision@1": 1.0, "mrr": 1.0, "auc": 1.0}
    tied = sr.evaluate([[0, 1, 0]], np.array([[True, True, False]]), ["mrr"])
    assert tied == {"mrr": 0.75}  # the relevant item is first or second with equal chance


# --- query ids: any hashable id, relabelling changes nothing -------------------------------

LONG_TRUE = [1, 0, 1, 0, 1, 0, 2]
LONG_SCORE = [0.3, 0.9, 0.1, 0.5, 0.2, 0.2, 0.4]
LONG_CODES = [0, 0, 1, 1, 0, 2, 2]  # three queries, interleaved rows

ACCEPTED_IDS = [
    ("strings", ["q7", "q3", "q1"]),
    ("floats", [1.5, -2.25, 1e300]),
    ("ints", [7, -3, 2**62]),
    ("bools-and-int", [True, False, 2]),
    ("bytes", [b"a", b"b", b"c"]),
    ("tuples", [(1, 2), (3,), ("a", 1)]),
    ("mixed-types", ["1", 1, 2.5]),  # "1" and 1 are different queries
    ("numpy-unicode", np.array(["x", "y", "z"])),
    ("numpy-uint64", np.array([2**64 - 1, 0, 5], dtype=np.uint64)),
    ("beyond-int64", [2**64 - 1, -(2**63) - 1, 2**70]),  # raised OverflowError
    ("datetime64", np.array(["2020-01-01", "2020-01-02", "2021-01-01"], dtype="datetime64[D]")),
]


@pytest.mark.parametrize(
    "ids", [case[1] for case in ACCEPTED_IDS], ids=[case[0] for case in ACCEPTED_IDS]
)
@pytest.mark.parametrize("container", ["list", "array", "series"])
def test_any_query_ids_give_the_values_of_integer_ids(ids, container):
    groups = [ids[code] for code in LONG_CODES]
    if container == "array":
        groups = (
            np.fromiter(groups, dtype=object, count=len(groups))
            if isinstance(ids, list)
            else np.asarray(ids)[LONG_CODES]
        )
    elif container == "series":
        groups = pd.Series(groups, dtype=object if isinstance(ids, list) else None)
    expected = sr.evaluate(LONG_TRUE, LONG_SCORE, LABELS, groups=LONG_CODES, per_query=True)
    got = sr.evaluate(LONG_TRUE, LONG_SCORE, LABELS, groups=groups, per_query=True)
    _same(got, expected)
    # Per-query order is first appearance, for every kind of id.
    assert list(sr.query_ids(groups)) == [ids[0], ids[1], ids[2]]


def test_equal_ids_of_different_types_are_one_query_as_in_python():
    # 1 == 1.0 == True in Python (and in a dict), while "1" is a different id.
    groups = [1, 1.0, "1", "1", True, 1, 1]
    got = sr.evaluate(LONG_TRUE, LONG_SCORE, ["map"], groups=groups, per_query=True)["map"]
    expected = sr.evaluate(
        LONG_TRUE, LONG_SCORE, ["map"], groups=[0, 0, 1, 1, 0, 0, 0], per_query=True
    )["map"]
    np.testing.assert_array_equal(got, expected)


def test_categorical_query_ids_are_their_labels():
    groups = pd.Series(["b", "b", "a", "a", "b", "c", "c"], dtype="category")
    expected = sr.evaluate(LONG_TRUE, LONG_SCORE, LABELS, groups=LONG_CODES, per_query=True)
    _same(sr.evaluate(LONG_TRUE, LONG_SCORE, LABELS, groups=groups, per_query=True), expected)


BAD_IDS = [
    (
        "nan-float",
        [0.0, np.nan, 1.0, 1.0, 0.0, 2.0, 2.0],
        r"groups must not contain NaN; got NaN at row 1",
    ),
    (
        "nan-in-list-of-strings",
        ["a", float("nan"), "b", "b", "a", "c", "c"],
        r"groups must not contain None or NaN; got NaN at row 1",
    ),
    (
        "none",
        ["a", "a", None, "b", "a", "c", "c"],
        r"groups must not contain None or NaN; got None at row 2",
    ),
    (
        "pandas-na",
        pd.array([1, 1, None, 2, 1, 3, 3], dtype="Int64"),
        r"groups must not contain None or NaN; got <NA> at row 2",
    ),
    (
        "pandas-string-na",
        pd.Series(["a", "a", None, "b", "a", "c", "c"], dtype="string"),
        r"groups must not contain None or NaN; got <NA> at row 2",
    ),
    (
        "nat",
        np.array(["2020-01-01"] * 3 + ["NaT"] * 4, dtype="datetime64[D]"),
        r"groups must not contain None or NaN; got NaT at row 3",
    ),
    (
        "complex",
        np.array([1j, 1j, 2, 2, 1j, 3, 3]),
        r"groups must hold numbers or strings; got dtype complex128",
    ),
    (
        "unhashable",
        [{1}, {1}, {2}, {2}, {1}, {3}, {3}],
        r"groups must hold hashable ids; got set at row 0",
    ),
    (
        "nested-lists",
        [[0], [0], [1], [1], [0], [2], [2]],
        r"groups must be 1-D with one query id per row; got a nested sequence \(row 0 is \[0\]\)",
    ),
    ("2-d-list", [LONG_CODES], r"got a nested sequence \(row 0 is \[0, 0, 1"),
    (
        "2-d-array",
        np.array([LONG_CODES]),
        r"groups must be 1-D with one query id per row \(7 rows\); got shape \(1, 7\)",
    ),
    ("a-string", "aabbacc", r"groups must be a 1-D array-like with one query id per row; got str"),
    (
        "a-set",
        {0, 1, 2, 3, 4, 5, 6},
        r"groups must be a 1-D array-like with one query id per row; got set",
    ),
    ("a-dict", dict.fromkeys(range(7)), r"groups must be a 1-D array-like .* got dict"),
    ("a-number", 3, r"groups must be a 1-D array-like with one query id per row; got int"),
    (
        "0-d-array",
        np.array(3),
        r"groups must be 1-D with one query id per row \(7 rows\); got shape \(\)",
    ),
]


@pytest.mark.parametrize(
    "groups, message", [case[1:] for case in BAD_IDS], ids=[case[0] for case in BAD_IDS]
)
def test_bad_query_ids_raise_clean_errors(groups, message):
    with pytest.raises(ValueError, match=message):
        sr.evaluate(LONG_TRUE, LONG_SCORE, LABELS, groups=groups)


@pytest.mark.parametrize(
    "groups, message",
    [
        (5, r"groups must be a 1-D array-like with one query id per row; got int"),
        (None, r"got NoneType"),
        ([[1, 2]], r"got a nested sequence"),
        (np.array([[1, 2]]), r"groups must be 1-D with one query id per row; got shape \(1, 2\)"),
        ([1, np.nan], r"groups must not contain None or NaN; got NaN at row 1"),
    ],
    ids=["int", "none", "nested", "2-d", "nan"],
)
def test_query_ids_refuses_what_groups_refuses(groups, message):
    with pytest.raises(ValueError, match=message):
        sr.query_ids(groups)


# --- row order: unsorted and interleaved rows give the values of sorted rows --------------


def _dense_case(seed):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 3, (6, 7)) * (rng.random((6, 7)) < 0.5)
    y_true[0] = 0  # a query with no relevant item
    y_score = rng.integers(0, 4, (6, 7)) / 2.0  # many ties
    return y_true.astype(float), y_score


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_interleaved_long_rows_equal_the_matrix(seed, ties):
    y_true, y_score = _dense_case(seed)
    rng = np.random.default_rng(seed + 100)
    query = np.repeat(np.arange(6), 7)
    if ties == "average":
        order = rng.permutation(query.size)  # any order at all
    else:
        # Interleave the queries but keep each query's rows in column order: stable ties
        # are broken by row order, which must be the matrix's column order.
        sequence = rng.permutation(query)  # the query of each output row
        order = np.empty(query.size, dtype=np.int64)
        for q in range(6):
            order[sequence == q] = np.flatnonzero(query == q)
    assert not (np.diff(query[order]) >= 0).all()  # really unsorted
    labels = ["q" + str(i) for i in rng.permutation(6)]
    groups = np.array(labels)[query[order]]
    got = sr.evaluate(
        y_true.ravel()[order],
        y_score.ravel()[order],
        LABELS,
        groups=groups,
        ties=ties,
        no_relevant=0.0,
        per_query=True,
    )
    expected = sr.evaluate(y_true, y_score, LABELS, ties=ties, no_relevant=0.0, per_query=True)
    position = [labels.index(i) for i in sr.query_ids(groups)]
    for name in LABELS:
        np.testing.assert_allclose(
            got[name], expected[name][position], rtol=0, atol=1e-14, err_msg=name
        )
        assert np.isfinite(got[name]).all()


# --- one item, one query -------------------------------------------------------------------

# Documented values of a one-item query whose item is relevant (docs/metrics.md): AUC is
# 0.5 without a pair, Kendall tau is 0 with fewer than two candidates, ARP is 1 / 1.
ONE_RELEVANT_ITEM = {
    "precision": 1.0,
    "recall": 1.0,
    "f1": 1.0,
    "hit_rate": 1.0,
    "mrr": 1.0,
    "map": 1.0,
    "cg": 1.0,
    "dcg": 1.0,
    "ndcg": 1.0,
    "auc": 0.5,
    "arp": 1.0,
    "kendall_tau": 0.0,
}


@pytest.mark.parametrize("ties", ["average", "stable"])
@pytest.mark.parametrize("form", ["dense", "long", "lists", "items"])
def test_one_item_query(ties, form):
    y_true, y_score, groups = {
        "dense": ([[1]], [[0.5]], None),
        "long": ([1], [0.5], ["only"]),
        "lists": ([{"a"}], [["a"]], None),
        "items": (ItemJudgments(["u"], ["a"]), ItemRanking(["u"], ["a"], [0.5]), None),
    }[form]
    got = sr.evaluate(y_true, y_score, CORE, groups=groups, ties=ties)
    assert got == ONE_RELEVANT_ITEM


def test_one_item_query_beyond_k():
    got = sr.evaluate([[1]], [[0.5]], [name + "@5" for name in TAKES_K if name in CORE])
    # k beyond the list: the whole list, except Precision@k (and F1) dividing by k.
    expected = {f"{name}@5": ONE_RELEVANT_ITEM[name] for name in TAKES_K if name in CORE}
    expected.update({"precision@5": 0.2, "f1@5": 2 * 1 / (5 + 1)})
    assert got == expected
    assert sr.evaluate([[1]], [[0.5]], ["precision@5", "f1@5"], short_lists="length") == {
        "precision@5": 1.0,
        "f1@5": 1.0,
    }


def test_one_item_query_without_relevant_item():
    got = sr.evaluate([[0]], [[0.5]], CORE, per_query=True)
    # no_relevant: 0.0 for every metric but ARP, which skips the query (NaN per query).
    assert {name: float(v[0]) for name, v in got.items() if name != "arp"} == dict.fromkeys(
        set(CORE) - {"arp"}, 0.0
    )
    assert np.isnan(got["arp"][0])
    with pytest.raises(ValueError, match="arp: every query was skipped"):
        sr.average_relative_position([[0]], [[0.5]])


# --- duplicates and truth items that are not candidates -----------------------------------


@pytest.mark.parametrize(
    "y_true, y_score, message",
    [
        ([{1}], [[1, 2, 1]], r"y_score ranks item 1 more than once for query 0"),
        (
            [{1}, {"a"}],
            [[1], ["a", "b", "a"]],
            r"y_score ranks item 'a' more than once for query 1",
        ),
        ([{1}], [[1, 1.0]], r"y_score ranks item 1.0 more than once for query 0"),  # 1 == 1.0
        (
            ItemJudgments([0, 0], [1, 1], [1, 2]),
            ItemRanking([0], [1], [1.0]),
            r"y_true judges item 1 more than once for query 0",
        ),
        (
            ItemJudgments([0], [1]),
            ItemRanking(["q", "q"], ["d", "d"], [1.0, 2.0]),
            r"y_score ranks item 'd' more than once for query 'q'",
        ),
        (
            scipy.sparse.csr_matrix([[1, 0]]),
            ItemRanking.from_topn([[1, 1]]),
            r"y_score ranks item 1 more than once for query 0",
        ),
    ],
    ids=["list", "list-second-query", "list-1-and-1.0", "judgments", "run", "top-n"],
)
def test_duplicate_items_within_a_query_are_refused(y_true, y_score, message):
    with pytest.raises(ValueError, match=message + "; each item may appear once per query"):
        sr.evaluate(y_true, y_score, LABELS)


def test_duplicate_sparse_entries_add_up_as_in_scipy():
    # A COO matrix with (0, 0) stored twice means relevance 1 + 1 (scipy's own convention).
    coo = scipy.sparse.coo_matrix(([1.0, 1.0, 2.0], ([0, 0, 0], [0, 0, 2])), shape=(2, 3))
    # Row 1 has no relevant item: one rule for both forms (a sparse truth skips it).
    _same(
        sr.evaluate(coo, Y_SCORE, ORDER_LABELS, per_query=True, convention="sklearn"),
        sr.evaluate(coo.toarray(), Y_SCORE, ORDER_LABELS, per_query=True, convention="sklearn"),
    )
    np.testing.assert_array_equal(coo.row, [0, 0, 0])  # the caller's matrix is untouched


def test_items_judged_but_never_ranked_count_as_missed():
    # Truth {1, 5}, ranking [1, 2]: item 5 is relevant and missed (R = 2), item 2 is
    # not judged (relevance 0). AUC pairs and ARP positions use candidates only.
    expected = {
        "precision": 0.5,
        "recall": 0.5,
        "f1": 0.5,
        "hit_rate": 1.0,
        "mrr": 1.0,
        "map": 0.5,
        "cg": 1.0,
        "dcg": 1.0,
        "ndcg": 1.0 / (1.0 + 1.0 / np.log2(3.0)),
        "auc": 1.0,
        "arp": 0.5,
        "kendall_tau": 1.0,
    }
    for y_true, y_score in [
        ([{1, 5}], [[1, 2]]),
        ([{1: 1.0, 5: 1.0}], [{1: 0.9, 2: 0.1}]),
        (ItemJudgments([0, 0], [1, 5]), ItemRanking([0, 0], [1, 2], [2.0, 1.0])),
    ]:
        got = sr.evaluate(y_true, y_score, CORE)
        assert got == pytest.approx(expected, abs=1e-15)


def test_no_truth_item_among_the_candidates():
    got = sr.evaluate([{5, 6}], [[1, 2]], CORE, per_query=True)
    # Relevant items exist (R = 2) but none was ranked: every hit-based metric is 0, AUC
    # has no (relevant, non-relevant) pair among candidates (0.5), ARP has no relevant
    # candidate (skipped: NaN per query).
    values = {name: float(v[0]) for name, v in got.items()}
    assert np.isnan(values.pop("arp"))
    assert values == {**dict.fromkeys(set(CORE) - {"arp", "auc"}, 0.0), "auc": 0.5}


@pytest.mark.parametrize(
    "y_true, y_score",
    [
        ([{1}], [[]]),
        (ItemJudgments([0], [1]), ItemRanking.from_topn([[]])),
    ],
    ids=["list", "top-n"],
)
def test_empty_ranking_of_a_judged_query(y_true, y_score):
    # docs/inputs.md: an empty ranking scores 0 for most metrics, 0.5 for auc; arp skips.
    got = sr.evaluate(y_true, y_score, CORE, per_query=True)
    values = {name: float(v[0]) for name, v in got.items()}
    assert np.isnan(values.pop("arp"))
    assert values == {**dict.fromkeys(set(CORE) - {"arp", "auc"}, 0.0), "auc": 0.5}


# --- sample weights ---------------------------------------------------------------------------


def _per_query(name="ndcg"):
    return sr.evaluate(Y_TRUE, Y_SCORE, [name], per_query=True)[name]


@pytest.mark.parametrize(
    "weights, error, message",
    [
        ([1.0, -1.0], ValueError, r"sample_weight must be non-negative; got -1.0"),
        ([-0.5, -0.5], ValueError, r"sample_weight must be non-negative; got -0.5"),
        ([0.0, 0.0], ValueError, r"sample_weight must not be all zero"),
        ([False, False], ValueError, r"sample_weight must not be all zero"),
        ([1.0], ValueError, r"sample_weight must have length 2 \(one per query\); got 1"),
        ([1.0, 2.0, 3.0], ValueError, r"sample_weight must have length 2 \(one per query\); got 3"),
        ([], ValueError, r"sample_weight must have length 2 \(one per query\); got 0"),
        (
            [1.0, np.nan],
            ValueError,
            r"sample_weight must contain only finite numbers; got nan at index 1",
        ),
        (
            [np.inf, 1.0],
            ValueError,
            r"sample_weight must contain only finite numbers; got inf at index 0",
        ),
        ([1.0, -np.inf], ValueError, r"sample_weight must contain only finite numbers; got -inf"),
        ([[1.0, 2.0]], ValueError, r"sample_weight must be 1-D; got shape \(1, 2\)"),
        (1.0, ValueError, r"sample_weight must be 1-D; got shape \(\)"),
        (
            ["a", "b"],
            ValueError,
            r"sample_weight must contain real numbers; got an array of dtype <U1",
        ),
        ([1.0, None], ValueError, r"sample_weight must contain real numbers; got None at index 1"),
    ],
    ids=[
        "negative",
        "all-negative",
        "all-zero",
        "all-false",
        "short",
        "long",
        "empty",
        "nan",
        "inf",
        "-inf",
        "2-d",
        "scalar",
        "strings",
        "none",
    ],
)
def test_bad_sample_weight(weights, error, message):
    for name in NAMES:
        with pytest.raises(error, match=message):
            FUNCTIONS[name](Y_TRUE, Y_SCORE, sample_weight=weights)


@pytest.mark.parametrize(
    "weights, expected",
    [
        ([0.0, 1.0], lambda v: v[1]),  # a zero weight drops the query from the mean
        ([1.0, 0.0], lambda v: v[0]),
        ([True, False], lambda v: v[0]),  # booleans weigh 1 and 0
        ([3.0, 1.0], lambda v: (3 * v[0] + v[1]) / 4),
        ([1e308, 1e308], lambda v: (v[0] + v[1]) / 2),  # was 0.0: the weights' sum overflowed
        ([1e-320, 0.0], lambda v: v[0]),  # was off in the 4th digit: subnormal
        ([5e-324, 5e-324], lambda v: (v[0] + v[1]) / 2),
        ([1e300, 1e-300], lambda v: v[0]),
    ],
    ids=[
        "zero-first",
        "zero-second",
        "bools",
        "three-to-one",
        "huge",
        "subnormal",
        "smallest",
        "ratio-1e600",
    ],
)
def test_accepted_sample_weights(weights, expected):
    for name in [n for n in NAMES if METRICS[n].aggregate == "mean"]:
        values = _per_query(name)
        assert np.isfinite(values).all()  # both queries have relevant candidates
        got = FUNCTIONS[name](Y_TRUE, Y_SCORE, sample_weight=weights)
        assert got == pytest.approx(expected(values), rel=1e-15, abs=0), name


def test_sample_weight_in_long_format():
    y_true, y_score, groups = [1, 0, 1, 0, 1], [0.3, 0.9, 0.1, 0.5, 0.2], ["a", "a", "b", "b", "a"]
    values = sr.ndcg_score(y_true, y_score, groups=groups, per_query=True)
    expected = (values[0] * 1 + values[1] * 2) / 3
    # Per query (query_ids order) or per row, constant within each query.
    assert sr.ndcg_score(y_true, y_score, groups=groups, sample_weight=[1, 2]) == pytest.approx(
        expected, rel=1e-15
    )
    assert sr.ndcg_score(
        y_true, y_score, groups=groups, sample_weight=[1, 1, 2, 2, 1]
    ) == pytest.approx(expected, rel=1e-15)
    with pytest.raises(
        ValueError,
        match=r"sample_weight given per row must be constant within "
        r"each query .* query 'a' has weights from 1.0 to 2.0",
    ):
        sr.ndcg_score(y_true, y_score, groups=groups, sample_weight=[1, 2, 2, 2, 1])
    with pytest.raises(
        ValueError,
        match=r"sample_weight must have length 2 \(one per query\) "
        r"or 5 \(one per row\); got 3",
    ):
        sr.ndcg_score(y_true, y_score, groups=groups, sample_weight=[1, 2, 3])


@pytest.mark.parametrize(
    "y_true, y_score",
    [
        ([{1}], [[1]]),
        (ItemJudgments([0], [1]), ItemRanking([0], [1], [1.0])),
    ],
    ids=["lists", "items"],
)
def test_sample_weight_length_with_item_forms(y_true, y_score):
    with pytest.raises(
        ValueError, match=r"sample_weight must have length 1 \(one per query\); got 2"
    ):
        sr.ndcg_score(y_true, y_score, sample_weight=[1, 2])


def test_weights_left_after_skipping_are_all_zero():
    with pytest.raises(
        ValueError,
        match=r"ndcg: the queries left after no_relevant='skip' all "
        r"have sample_weight 0",
    ):
        sr.ndcg_score(
            [[0, 0], [1, 0]], [[1, 2], [1, 2]], no_relevant="skip", sample_weight=[1.0, 0.0]
        )


# --- the cut-off k ------------------------------------------------------------------------------

BAD_K = [
    0,
    -1,
    -(2**70),
    2.0,
    2.5,
    np.float64(2.0),
    np.nan,
    np.inf,
    True,
    False,
    np.bool_(True),
    "2",
    [2],
    np.array(2),
    np.array([2]),
    2**62 + 1,
    10**30,
]


@pytest.mark.parametrize("name", TAKES_K)
@pytest.mark.parametrize("k", BAD_K, ids=[repr(k) for k in BAD_K])
def test_bad_k_is_refused_by_every_function(name, k):
    shown = re.escape(repr(k))
    with pytest.raises(
        ValueError,
        match=r"k must be a positive integer \(up to 2\*\*62\) or "
        rf"None; got {shown}",
    ):
        FUNCTIONS[name](Y_TRUE, Y_SCORE, k=k)


@pytest.mark.parametrize("name", sorted(set(NAMES) - set(TAKES_K)))
def test_metrics_without_cut_off_take_no_k(name):
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'k'"):
        FUNCTIONS[name](Y_TRUE, Y_SCORE, k=2)


@pytest.mark.parametrize("name", TAKES_K)
@pytest.mark.parametrize(
    "k", [np.int8(2), np.int64(2), np.uint64(2)], ids=["int8", "int64", "uint64"]
)
def test_numpy_integer_k_equals_python_int(name, k):
    assert FUNCTIONS[name](Y_TRUE, Y_SCORE, k=k) == FUNCTIONS[name](Y_TRUE, Y_SCORE, k=2)


@pytest.mark.parametrize("name", TAKES_K)
@pytest.mark.parametrize("k", [4, 1000, 2**62], ids=["4", "1000", "2**62"])
def test_k_larger_than_every_query(name, k):
    got = FUNCTIONS[name](Y_TRUE, Y_SCORE, k=k, per_query=True)
    whole = FUNCTIONS[name](Y_TRUE, Y_SCORE, per_query=True)
    assert np.isfinite(got).all()
    if name not in ("precision", "f1"):
        np.testing.assert_array_equal(got, whole)  # the whole list
        return
    # Precision@k divides by k (short_lists="k"): hits / k, and F1@k = 2 hits / (k + R);
    # with short_lists="length" both are their whole-list values.
    hits, relevant = np.array([2.0, 1.0]), np.array([2.0, 1.0])  # every relevant item is hit
    expected = hits / k if name == "precision" else 2 * hits / (k + relevant)
    np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0)
    length = FUNCTIONS[name](Y_TRUE, Y_SCORE, k=k, short_lists="length", per_query=True)
    np.testing.assert_array_equal(length, whole)


# --- metric names in evaluate and get_scorer -----------------------------------------------------

UNKNOWN = [
    "",
    " ",
    "foo",
    "Ndcg",  # NDCG is ir_measures' spelling
    "ndcg@",
    "ndcg@-1",
    "ndcg@+1",
    "ndcg@1.0",
    "ndcg@1e3",
    "ndcg@ 2",
    "ndcg@2@3",
    "ndcg@@2",
    "ndcg@x",
    "ndcg@k",
    "ndcg@K",
    "@3",
    "map@10x",
    "ndcg_at_2",
    "ndcg@\uff12",
    "precision @5",
]


@pytest.mark.parametrize("name", UNKNOWN)
@pytest.mark.parametrize("entry", ["evaluate", "get_scorer"])
def test_unknown_and_malformed_metric_names(name, entry):
    message = (
        rf"Unknown metric name {re.escape(repr(name))}\.( Did you mean [^?]*\?)? Known "
        r"names: aclt, aclt@K, aplt, aplt@K, arp, auc, auc@K, "
        r".* \(K a positive integer\)"
    )
    with pytest.raises(ValueError, match=message):
        if entry == "evaluate":
            sr.evaluate(Y_TRUE, Y_SCORE, ["map", name])
        else:
            sr.get_scorer(name)


@pytest.mark.parametrize(
    "name, message",
    [
        ("ndcg@0", r"The cut-off in 'ndcg@0' must be a positive integer up to 2\*\*62"),
        ("ndcg@00", r"The cut-off in 'ndcg@00' must be a positive integer"),
        ("hit_rate@4611686018427387905", r"The cut-off in 'hit_rate@4611686018427387905' must be"),
        ("hit_rate@99999999999999999999", r"must be a positive integer up to 2\*\*62"),
        ("arp@1", r"Metric 'arp' takes no cut-off; got 'arp@1'"),
        ("kendall_tau@3", r"Metric 'kendall_tau' takes no cut-off; got 'kendall_tau@3'"),
    ],
    ids=["zero", "zeros", "2**62+1", "huge", "arp", "kendall_tau"],
)
@pytest.mark.parametrize("entry", ["evaluate", "get_scorer"])
def test_bad_cut_offs_in_names(name, message, entry):
    with pytest.raises(ValueError, match=message):
        if entry == "evaluate":
            sr.evaluate(Y_TRUE, Y_SCORE, [name])
        else:
            sr.get_scorer(name)


@pytest.mark.parametrize(
    "metrics, message",
    [
        ([], r"metrics must name at least one metric; got an empty list"),
        (None, r"metrics must be a metric name or a list of names .*; got None"),
        (5, r"metrics must be a metric name or a list of names .*; got 5"),
        (b"ndcg", r"metrics must be a metric name or a list of names .*; got b'ndcg'"),
        ({"ndcg": 1}, r"metrics must be a metric name or a list of names .*; got \{'ndcg': 1\}"),
        ([10], r"metric names must be strings such as 'ndcg@10'; got 10"),
        ([None], r"metric names must be strings such as 'ndcg@10'; got None"),
        ([b"map"], r"metric names must be strings such as 'ndcg@10'; got b'map'"),
    ],
    ids=["empty", "none", "int", "bytes", "dict", "int-name", "none-name", "bytes-name"],
)
def test_bad_metric_lists(metrics, message):
    with pytest.raises(ValueError, match=message):
        sr.evaluate(Y_TRUE, Y_SCORE, metrics)


@pytest.mark.parametrize(
    "name, message",
    [
        (None, r"metric names must be strings such as 'ndcg@10'; got None"),
        (5, r"metric names must be strings such as 'ndcg@10'; got 5"),
        ("arp", r"'arp' is lower-is-better; .* its scorer is named 'neg_arp'"),
        ("neg_arp@2", r"Metric 'arp' takes no cut-off; got 'arp@2'"),
    ],
    ids=["none", "int", "arp", "neg_arp@2"],
)
def test_bad_scorer_names(name, message):
    with pytest.raises(ValueError, match=message):
        sr.get_scorer(name)


def test_lenient_but_unambiguous_names():
    # Surrounding spaces are stripped and a leading zero in K is read as a number; the
    # result keeps the name as given. Repeated names give one entry. A line break or
    # another control character is refused (a name read from a file with its newline).
    reference = sr.evaluate(Y_TRUE, Y_SCORE, ["ndcg@1", "map"])
    assert sr.evaluate(Y_TRUE, Y_SCORE, [" ndcg@1 ", "map"]) == {
        " ndcg@1 ": reference["ndcg@1"],
        "map": reference["map"],
    }
    with pytest.raises(ValueError, match="contains a line break"):
        sr.evaluate(Y_TRUE, Y_SCORE, [" ndcg@1\n", "map"])
    assert sr.evaluate(Y_TRUE, Y_SCORE, ["ndcg@01"]) == {"ndcg@01": reference["ndcg@1"]}
    assert sr.evaluate(Y_TRUE, Y_SCORE, ("map", "map")) == {"map": reference["map"]}
    assert sr.evaluate(Y_TRUE, Y_SCORE, "map") == {"map": reference["map"]}


# --- sparse truth -----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil", "dok", "bsr", "dia"])
@pytest.mark.parametrize("kind", ["matrix", "array"])
def test_every_sparse_format_equals_dense(fmt, kind):
    make = scipy.sparse.csr_matrix if kind == "matrix" else scipy.sparse.csr_array
    sparse = make(np.array(Y_TRUE)).asformat(fmt)
    _same(
        sr.evaluate(sparse, Y_SCORE, ORDER_LABELS, per_query=True),
        sr.evaluate(Y_TRUE, Y_SCORE, ORDER_LABELS, per_query=True),
    )


def test_sparse_explicit_zeros_are_not_relevant():
    stored = scipy.sparse.csr_matrix(
        (np.array([1.0, 0.0, 2.0, 0.0, 1.0]), np.array([0, 1, 2, 0, 1]), np.array([0, 3, 5])),
        shape=(2, 3),
    )
    assert stored.nnz == 5
    _same(
        sr.evaluate(stored, Y_SCORE, ORDER_LABELS, per_query=True),
        sr.evaluate(Y_TRUE, Y_SCORE, ORDER_LABELS, per_query=True),
    )
    assert stored.nnz == 5  # never edits the caller's matrix
    run = ItemRanking.from_topn([[0, 1, 2], [2, 1, 0]])
    explicit = sr.evaluate(stored, run, ORDER_LABELS, per_query=True)
    _same(
        explicit,
        sr.evaluate(scipy.sparse.csr_matrix(np.array(Y_TRUE)), run, ORDER_LABELS, per_query=True),
    )


def test_sparse_int64_index_arrays():
    matrix = scipy.sparse.csr_matrix(np.array(Y_TRUE))
    matrix.indices = matrix.indices.astype(np.int64)
    matrix.indptr = matrix.indptr.astype(np.int64)
    _same(
        sr.evaluate(matrix, Y_SCORE, ORDER_LABELS, per_query=True),
        sr.evaluate(Y_TRUE, Y_SCORE, ORDER_LABELS, per_query=True),
    )


def test_sparse_truth_with_item_ids_beyond_int32():
    # 2**41 columns: int64 indices and item ids, joined without a dense matrix.
    big = scipy.sparse.csr_matrix(
        (np.array([1.0, 2.0]), np.array([2**40, 7]), np.array([0, 1, 2])), shape=(2, 2**41)
    )
    run = ItemRanking([0, 0, 1, 1], [5, 2**40, 7, 2**40 + 1], [2.0, 1.0, 1.0, 3.0])
    small = ItemJudgments([0, 1], [1, 2], [1.0, 2.0])
    small_run = ItemRanking([0, 0, 1, 1], [0, 1, 2, 3], [2.0, 1.0, 1.0, 3.0])
    _same(
        sr.evaluate(big, run, LABELS, per_query=True),
        sr.evaluate(small, small_run, LABELS, per_query=True),
    )


@pytest.mark.parametrize(
    "y_true, error, message",
    [
        (
            scipy.sparse.csr_matrix(np.ones((2, 4))),
            ValueError,
            r"y_true and y_score must have the same shape; got \(2, 4\) and \(2, 3\)",
        ),
        (
            scipy.sparse.csr_matrix(np.array([[1j, 0, 1], [0, 1, 0]])),
            ValueError,
            r"y_true must contain real numbers; got a sparse matrix of dtype complex128",
        ),
        (
            scipy.sparse.csr_matrix(np.array([[-1.0, 0, 1], [0, 1, 0]])),
            ValueError,
            r"y_true must be non-negative for 'map'; got -1.0",
        ),
        (np.ones((2, 3, 1)), ValueError, r"same shape; got \(2, 3, 1\) and \(2, 3\)"),
        (object(), ValueError, r"y_true must contain real numbers; got an array of dtype object"),
        ({0: 1}, ValueError, r"y_true must contain real numbers; got an array of dtype object"),
        ("abc", ValueError, r"y_true must contain real numbers; got an array of dtype <U3"),
    ],
    ids=["shape", "complex", "negative", "3-d-array", "object", "dict", "string"],
)
def test_bad_sparse_or_non_array_truth(y_true, error, message):
    with pytest.raises(error, match=message):
        sr.evaluate(y_true, Y_SCORE, ["map", "ndcg@2"])


@pytest.mark.parametrize("shape", [(0, 3), (2, 0)])
def test_empty_sparse_truth(shape):
    shown = re.escape(str(shape))
    with pytest.raises(ValueError, match=rf"at least one query and one item; got shape {shown}"):
        sr.evaluate(scipy.sparse.csr_matrix(shape), np.zeros(shape), ["ndcg"])


def test_sparse_truth_with_groups():
    with pytest.raises(ValueError, match="groups must be None for 2-D y_true and y_score"):
        sr.evaluate(scipy.sparse.csr_matrix(np.array(Y_TRUE)), Y_SCORE, ["ndcg"], groups=[0, 1])


@pytest.mark.parametrize(
    "matrix, message",
    [
        (
            np.ones((1, 2, 2)),
            r"matrix must be a 2-D scipy.sparse matrix or array \(queries x items\); "
            r"got ndarray with 3 dimensions",
        ),
        (
            object(),
            r"matrix must be a 2-D scipy.sparse matrix or array .* got object with 0 dimensions",
        ),
        (np.array([[object(), 1]]), r"matrix must hold real numbers"),
        (
            scipy.sparse.csr_matrix(np.array([[np.nan, 1.0]])),
            r"relevance must contain only finite numbers; got nan",
        ),
        (
            scipy.sparse.csr_matrix(np.array([[1j, 1.0]])),
            r"relevance must contain real numbers; got an array of dtype complex128",
        ),
    ],
    ids=["3-d", "object", "object-array", "nan", "complex"],
)
def test_bad_from_sparse(matrix, message):
    with pytest.raises(ValueError, match=message):
        ItemJudgments.from_sparse(matrix)


def test_from_sparse_takes_dense_2d_input_and_drops_zeros():
    truth = ItemJudgments.from_sparse([[0, 3], [1, 0]])
    assert truth.queries.tolist() == [0, 1]
    assert truth.items.tolist() == [1, 0]
    assert truth.relevance.tolist() == [3.0, 1.0]


# --- exclude ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "y_true, y_score, exclude, groups, message",
    [
        (
            [[1, 0]],
            [[0, 1]],
            [[np.nan, 0]],
            None,
            r"exclude must contain only finite numbers; got nan at index \(0, 0\)",
        ),
        (
            [[1, 0]],
            [[0, 1]],
            [[1, 0, 0]],
            None,
            r"exclude must have the shape of y_score \(1, 2\); got \(1, 3\)",
        ),
        (
            [[1, 0]],
            [[0, 1]],
            scipy.sparse.csr_matrix([[1, 0, 0]]),
            None,
            r"exclude must have the shape of y_score \(1, 2\); got \(1, 3\)",
        ),
        (
            [[1, 0]],
            [[0, 1]],
            [["a", "0"]],
            None,
            r"exclude must contain real numbers; got an array of dtype <U1",
        ),
        (
            [1, 0],
            [0, 1],
            [[1, 0]],
            [0, 0],
            r"exclude needs items: .* long-format rows have no item ids",
        ),
        (
            [{"a"}],
            [["b", "a"]],
            [[1, 0]],
            None,
            r"exclude is a 1 x 2 matrix: y_score's item ids must be integers in \[0, 2\) to "
            r"index it",
        ),
        (
            ItemJudgments([0, 4], [7, 7]),
            ItemRanking([0, 0, 4, 4], [7, 8, 7, 8], [2.0, 1.0, 2.0, 1.0]),
            scipy.sparse.coo_matrix(([1.0], ([4], [7])), shape=(5, 2**62)),
            None,
            r"exclude has shape \(5, 4611686018427387904\): rows x columns must be below 2\*\*63",
        ),
    ],
    ids=[
        "nan",
        "shape",
        "sparse-shape",
        "strings",
        "long-format",
        "string-items",
        "int64-overflow",
    ],
)
def test_bad_exclude(y_true, y_score, exclude, groups, message):
    # int64-overflow: was a silent wrong value, keys 4 * 2**62 + 7 and 0 * 2**62 + 7
    # collided, so excluding (4, 7) also excluded (0, 7).
    with pytest.raises(ValueError, match=message):
        sr.evaluate(y_true, y_score, ["mrr"], exclude=exclude, groups=groups)


# --- ranked lists --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "y_true, y_score, groups, message",
    [
        (
            [{1}, {2}],
            [[1, 2]],
            None,
            r"y_true and y_score must have one entry per query; got 2 and 1",
        ),
        ([{1}], "12", None, r"y_score must be a list with one ranking per query .*; got str"),
        ([{1}], None, None, r"y_score must be a list with one ranking per query .*; got NoneType"),
        ([{1}], {0: [1]}, None, r"y_score must be a list with one ranking per query .*; got dict"),
        (
            [{1}],
            ["abc"],
            None,
            r"y_score\[0\] must be a sequence of item ids in rank order or a dict "
            r"item id -> score; got str",
        ),
        ([{1}], [{1, 2}], None, r"y_score\[0\] must be a sequence .*; got set"),
        ([{1}], [5], None, r"y_score\[0\] must be a sequence .*; got int"),
        ([{1}, [1, 0]], [[1], [1, 0]], None, r"y_true mixes sets/dicts with other values"),
        ([{1}], [[1]], [0], r"groups must be None when y_true is a list of sets or dicts"),
        (
            [{1: "high"}],
            [[1, 2]],
            None,
            r"y_true\[0\] maps item 1 to 'high'; relevance must be a finite number",
        ),
        (
            [{1: True}],
            [[1, 2]],
            None,
            r"y_true\[0\] maps item 1 to True; relevance must be a finite number",
        ),
        (
            [{1: np.inf}],
            [[1]],
            None,
            r"y_true\[0\] maps item 1 to inf; relevance must be a finite number",
        ),
        (
            [{1: None}],
            [[1]],
            None,
            r"y_true\[0\] maps item 1 to None; relevance must be a finite number",
        ),
        (
            [{1: 1}],
            [{1: np.nan}],
            None,
            r"y_score\[0\] maps item 1 to nan; a score must be a finite number",
        ),
        (
            [{1: 1}],
            [{1: "x"}],
            None,
            r"y_score\[0\] maps item 1 to 'x'; a score must be a finite number",
        ),
        ([{1}], [[np.nan, 1]], None, r"items must not contain None or NaN; got NaN at row 0"),
        ([{1}], [[None, 1]], None, r"items must not contain None or NaN; got None at row 0"),
        (
            [{float("nan")}],
            [[1]],
            None,
            r"items must not contain None or NaN; got NaN at row 0",
        ),
        ([{1}], [[[1], 2]], None, r"item ids must hold hashable ids; got list at row 1"),
    ],
    ids=[
        "lengths",
        "string",
        "none",
        "dict",
        "string-ranking",
        "set-ranking",
        "int-ranking",
        "mixed-truth",
        "groups",
        "string-relevance",
        "bool-relevance",
        "inf-relevance",
        "none-relevance",
        "nan-score",
        "string-score",
        "nan-item",
        "none-item",
        "nan-truth-item",
        "unhashable-item",
    ],
)
def test_bad_ranked_lists(y_true, y_score, groups, message):
    with pytest.raises(ValueError, match=message):
        sr.evaluate(y_true, y_score, LABELS, groups=groups)


def test_ranked_lists_as_tuples_arrays_and_dicts_agree():
    expected = sr.evaluate([{1, 4}], [[1, 3, 4]], LABELS)
    for y_score in [
        ([1, 3, 4],),
        np.array([[1, 3, 4]]),
        [np.array([1, 3, 4])],
        [{1: 3.0, 3: 2.0, 4: 1.0}],
    ]:
        assert sr.evaluate([{1, 4}], y_score, LABELS) == expected
    assert sr.evaluate([frozenset({1, 4})], [[1, 3, 4]], LABELS) == expected
    assert sr.evaluate([{1: 1, 4: 1}], [[1, 3, 4]], LABELS) == expected


# --- ItemRanking and ItemJudgments ---------------------------------------------------------------


@pytest.mark.parametrize(
    "make, message",
    [
        (
            lambda: ItemRanking([0, 0], [1], [1.0]),
            r"queries and items must have the same length; got 2 and 1",
        ),
        (
            lambda: ItemRanking([0, 0], [1, 2], [1.0]),
            r"scores must have one value per row \(2\); got shape \(1,\)",
        ),
        (
            lambda: ItemRanking([[0, 0]], [[1, 2]], [1.0, 2.0]),
            r"queries must be 1-D; got a nested sequence \(row 0 is \[0, 0\]\)",
        ),
        (lambda: ItemRanking(np.zeros((1, 2)), [1, 2]), r"queries must be 1-D; got shape \(1, 2\)"),
        (lambda: ItemRanking(0, 1, 1.0), r"queries must be a 1-D array-like of ids; got int"),
        (lambda: ItemRanking("ab", "cd"), r"queries must be a 1-D array-like of ids; got str"),
        (
            lambda: ItemRanking([0, 0], [1, 2], [1.0, np.nan]),
            r"scores must contain only finite numbers; got nan at index 1",
        ),
        (
            lambda: ItemRanking([0, 0], [1, 2], [1.0, np.inf]),
            r"scores must contain only finite numbers; got inf at index 1",
        ),
        (
            lambda: ItemRanking([0, 0], [1, 2], [-np.inf, 1.0]),
            r"scores must contain only finite numbers; got -inf at index 0",
        ),
        (
            lambda: ItemRanking([0, 0], [1, 2], ["a", "b"]),
            r"scores must contain real numbers; got an array of dtype <U1",
        ),
        (
            lambda: ItemRanking([0, None], [1, 2], [1.0, 2.0]),
            r"queries must not contain None or NaN; got None at row 1",
        ),
        (
            lambda: ItemRanking([0, 0], [1, np.nan], [1.0, 2.0]),
            r"items must not contain None or NaN; got NaN at row 1",
        ),
        (
            lambda: ItemRanking(pd.array([1, None], dtype="Int64"), [1, 2], [1.0, 2.0]),
            r"queries must not contain None or NaN; got <NA> at row 1",
        ),
        (
            lambda: ItemRanking(np.array(["NaT", "2020-01-01"], dtype="datetime64[D]"), [1, 2]),
            r"queries must not contain None or NaN; got NaT at row 0",
        ),
        (
            lambda: ItemJudgments([0], [1], [np.nan]),
            r"relevance must contain only finite numbers; got nan at index 0",
        ),
        (
            lambda: ItemJudgments([0], [1], ["1"]),
            r"relevance must contain real numbers; got an array of dtype <U1",
        ),
        (
            lambda: ItemJudgments([0, 0], [1, 2], [1.0]),
            r"relevance must have one value per row \(2\); got shape \(1,\)",
        ),
    ],
    ids=[
        "lengths",
        "score-length",
        "nested",
        "2-d-array",
        "scalar",
        "string",
        "nan-score",
        "inf-score",
        "-inf-score",
        "string-score",
        "none-query",
        "nan-item",
        "pandas-na",
        "nat",
        "nan-relevance",
        "string-relevance",
        "relevance-length",
    ],
)
def test_bad_item_rows(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize(
    "make, message",
    [
        (
            lambda: ItemRanking.from_topn(np.array([1, 2, 3])),
            r"ids must be 2-D \(one row of ranked item "
            r"ids per query\) or a list of lists; got an array of shape \(3,\)",
        ),
        (lambda: ItemRanking.from_topn(np.ones((1, 2, 3))), r"got an array of shape \(1, 2, 3\)"),
        (lambda: ItemRanking.from_topn("abc"), r"ids must be 2-D .* or a list of lists; got str"),
        (lambda: ItemRanking.from_topn(5), r"ids must be 2-D .* or a list of lists; got int"),
        (
            lambda: ItemRanking.from_topn(["ab", "cd"]),
            r"ids must hold one sequence of ranked item ids per "
            r"query; got a row 'ab'",
        ),
        (lambda: ItemRanking.from_topn([[1, 2], 3]), r"got a row 3"),
        (
            lambda: ItemRanking.from_topn([[1, None]]),
            r"items must not contain None or NaN; got None at row 1",
        ),
        (
            lambda: ItemRanking.from_topn(np.array([[1.0, np.nan]])),
            r"items must not contain None or NaN; got "
            r"NaN at row 1",
        ),
        (
            lambda: ItemRanking.from_topn([[1], [2]], queries=[0]),
            r"queries must have one id per row of ids "
            r"\(2\); got 1",
        ),
    ],
    ids=["1-d", "3-d", "string", "int", "string-rows", "int-row", "none-id", "nan-id", "queries"],
)
def test_bad_top_n(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize(
    "run, message",
    [
        (
            ItemRanking.from_topn(np.array([[1, 7, -1]])),
            r"item ids .* \[0, 3\) .*; got 7 \(query 0, rank 2\)",
        ),
        (ItemRanking.from_topn([[1, 7, -1]]), r"got 7 \(query 0, row 1\)"),
        (ItemRanking.from_topn(np.array([[1, -1, 7]])), r"got -1 \(query 0, rank 2\)"),
        (ItemRanking.from_topn(np.array([[1, 2], [0, 3]])), r"got 3 \(query 1, rank 2\)"),
        (ItemRanking.from_topn([[1, 7, 0], [2]]), r"got 7 \(query 0, row 1\)"),
        (ItemRanking([0, 0], [2, 3], [0.5, 0.1]), r"got 3 \(query 0, row 1\)"),
        (ItemRanking([0], ["a"], [0.5]), r"item ids must be integers .*; got 'a'"),
        (
            ItemRanking.from_topn(np.array([[1], [2]])),
            r"2 rows of ids: query ids must be row numbers in \[0, 1\); got 1",
        ),
        (ItemRanking([0, 4], [1, 1], [0.5, 0.1]), r"query ids .*; got 4 \(query 4, row 1\)"),
    ],
    ids=[
        "matrix",
        "issue",
        "minus-one",
        "second-row",
        "lists",
        "rows",
        "string",
        "rows-of-ids",
        "query",
    ],
)
def test_ids_outside_the_truth_matrix_are_refused(run, message):
    # Row and column numbers are the ids of a sparse truth matrix: an id past its edge is
    # no item or query of it (it was scored as an unjudged item: precision@3 1/3).
    truth = scipy.sparse.csr_matrix([[0, 1, 0]])
    for exclude in (None, truth):  # with exclude= the same ids were refused already
        with pytest.raises(ValueError, match=message):
            sr.evaluate(truth, run, ["precision@3"], exclude=exclude)


def test_ids_outside_an_exclude_matrix_are_named():
    truth = ItemJudgments([0], [1])
    with pytest.raises(ValueError, match=r"item ids .* \[0, 3\) .*; got 7 \(query 0, row 1\)"):
        sr.evaluate(truth, ItemRanking.from_topn([[1, 7]]), ["mrr"], exclude=[[0, 0, 1]])


@pytest.mark.parametrize(
    "y_true, y_score, params, message",
    [
        (
            [[1, 0]],
            ItemRanking([0], [1], [1.0]),
            {},
            r"With y_score an ItemRanking, y_true must be an ItemJudgments or a scipy.sparse "
            r"matrix "
            r"\(queries x items\); got list",
        ),
        (
            ItemJudgments([0], [1]),
            [[1, 0]],
            {},
            r"With y_true an ItemJudgments, y_score must be an ItemRanking .*; got list",
        ),
        (
            ItemJudgments([0], [1]),
            ItemRanking([0], [1], [1.0]),
            {"groups": [0]},
            r"groups must be None with ItemRanking / ItemJudgments",
        ),  # was silently ignored
        (
            ItemJudgments([], []),
            ItemRanking([], [], []),
            {},
            r"No query left to evaluate: both inputs are empty",
        ),
        (
            ItemJudgments(["a"], [1]),
            ItemRanking(["b"], [1], [1.0]),
            {"query_set": "both"},
            r"No query left to evaluate: the judgments and the run share no query "
            r"\(query_set='both'\)",
        ),
    ],
    ids=["dense-truth", "dense-scores", "groups", "empty", "disjoint-queries"],
)
def test_bad_item_pairs(y_true, y_score, params, message):
    with pytest.raises(ValueError, match=message):
        sr.evaluate(y_true, y_score, LABELS, **params)


# --- DataFrames ----------------------------------------------------------------------------------


def _frame_libraries():
    try:
        import polars
    except ImportError:  # the test extra installs it; without it only pandas runs
        return [pd]
    return [pd, polars]


FRAME_LIBRARIES = _frame_libraries()


@pytest.mark.parametrize("lib", FRAME_LIBRARIES, ids=lambda lib: lib.__name__)
@pytest.mark.parametrize(
    "columns, kwargs, message",
    [
        (
            {"q": [1, 1], "i": ["a", "b"], "s": [1.0, 2.0]},
            {"score": "score"},
            r"The score column 'score' is not in the table; its columns are \['q', 'i', 's'\]",
        ),
        (
            {"q": [1, 1], "i": ["a", "b"], "s": [1.0, 2.0]},
            {"query": "user"},
            r"The query column 'user' is not in the table; its columns are \['q', 'i', 's'\]",
        ),
        (
            {"q": [1, 1], "i": ["a", "b"], "s": [1.0, None]},
            {},
            r"Column 's' has a missing value at row 1",
        ),
        (
            {"q": [1, 1], "i": ["a", "b"], "s": [1.0, float("nan")]},
            {},
            r"Column 's' has a missing value at row 1",
        ),
        (
            {"q": [1, None], "i": ["a", "b"], "s": [1.0, 2.0]},
            {},
            r"Column 'q' has a missing value at row 1",
        ),
        (
            {"q": [1, 1], "i": [None, "b"], "s": [1.0, 2.0]},
            {},
            r"Column 'i' has a missing value at row 0",
        ),
        (
            {"q": [1, 1], "i": ["a", "b"], "s": ["x", "y"]},
            {},
            r"scores must contain real numbers; got an array of dtype",
        ),
        (
            {"q": [1, 1], "i": ["a", "a"], "s": [1.0, 2.0]},
            {"evaluate": True},
            r"y_score ranks item 'a' more than once for query 1",
        ),
    ],
    ids=[
        "missing-score",
        "missing-query",
        "null-score",
        "nan-score",
        "null-query",
        "null-item",
        "string-scores",
        "duplicate-item",
    ],
)
def test_bad_run_frames(lib, columns, kwargs, message):
    kwargs = dict(kwargs)
    run_evaluate = kwargs.pop("evaluate", False)
    names = {"query": "q", "item": "i", "score": "s", **kwargs}
    frame = lib.DataFrame(columns)
    with pytest.raises(ValueError, match=message):
        run = ItemRanking.from_frame(frame, **names)
        if run_evaluate:
            sr.evaluate(ItemJudgments([1], ["a"]), run, ["mrr"])


@pytest.mark.parametrize("lib", FRAME_LIBRARIES, ids=lambda lib: lib.__name__)
@pytest.mark.parametrize(
    "columns, kwargs, message",
    [
        (
            {"q": [1], "i": ["a"]},
            {"relevance": "rel"},
            r"The relevance column 'rel' is not in the table; its columns are \['q', 'i'\]",
        ),
        ({"q": [1], "i": ["a"]}, {"item": "doc"}, r"The item column 'doc' is not in the table"),
        (
            {"q": [1, 1], "i": ["a", "b"], "r": [1, None]},
            {"relevance": "r"},
            r"Column 'r' has a missing value at row 1",
        ),
        (
            {"q": [1, 1], "i": ["a", "b"], "r": [1.0, -2.0]},
            {"relevance": "r", "evaluate": True},
            r"y_true must be non-negative for 'mrr'; got -2.0",
        ),
    ],
    ids=["missing-relevance", "missing-item", "null-relevance", "negative-relevance"],
)
def test_bad_judgment_frames(lib, columns, kwargs, message):
    kwargs = dict(kwargs)
    run_evaluate = kwargs.pop("evaluate", False)
    names = {"query": "q", "item": "i", **kwargs}
    with pytest.raises(ValueError, match=message):
        truth = ItemJudgments.from_frame(lib.DataFrame(columns), **names)
        if run_evaluate:
            sr.evaluate(truth, ItemRanking([1], ["a"], [1.0]), ["mrr"])


@pytest.mark.parametrize(
    "column, message",
    [
        (pd.array([1, None], dtype="Int64"), r"Column 'q' has a missing value at row 1"),
        (pd.array(["a", None], dtype="string"), r"Column 'q' has a missing value at row 1"),
        (pd.to_datetime(["2020-01-01", None]), r"Column 'q' has a missing value at row 1"),
        (pd.Categorical(["a", None]), r"Column 'q' has a missing value at row 1"),
    ],
    ids=["Int64-NA", "string-NA", "NaT", "categorical-NaN"],
)
def test_pandas_extension_nulls(column, message):
    # Int64 and string NA raised "boolean value of NA is ambiguous"; NaT was a query id.
    frame = pd.DataFrame({"q": column, "i": ["a", "b"], "s": [1.0, 2.0]})
    with pytest.raises(ValueError, match=message):
        ItemRanking.from_frame(frame, query="q", item="i", score="s")


def test_pandas_float64_extension_null_score():
    scores = pd.array([1.0, None], dtype="Float64")
    frame = pd.DataFrame({"q": [1, 1], "i": ["a", "b"], "s": scores})
    with pytest.raises(ValueError, match=r"Column 's' has a missing value at row 1"):
        ItemRanking.from_frame(frame, query="q", item="i", score="s")


def test_polars_nulls_of_every_type():
    pl = pytest.importorskip("polars")
    import datetime

    for column in (
        [1, None],
        [1.0, float("nan")],
        ["a", None],
        [datetime.datetime(2020, 1, 1), None],
    ):
        frame = pl.DataFrame({"q": column, "i": ["a", "b"], "s": [1.0, 2.0]})
        with pytest.raises(ValueError, match=r"Column 'q' has a missing value at row 1"):
            ItemRanking.from_frame(frame, query="q", item="i", score="s")
    with pytest.raises(TypeError, match=r"frame is a polars LazyFrame; pass frame.collect\(\)"):
        ItemRanking.from_frame(pl.DataFrame({"query": [1], "item": [1], "score": [1.0]}).lazy())


@pytest.mark.parametrize(
    "frame, error, message",
    [
        (
            {"query": [1], "item": [1], "score": [1.0]},
            TypeError,
            r"frame must be a pandas or polars DataFrame; got dict",
        ),
        ([[1, 1, 1.0]], TypeError, r"frame must be a pandas or polars DataFrame; got list"),
        (
            pd.DataFrame([[1, "a", 1.0, 2.0]], columns=["query", "item", "score", "score"]),
            ValueError,
            r"The score column 'score' appears more than once in the table",
        ),
    ],
    ids=["dict", "list", "duplicate-column"],
)
def test_bad_frame_objects(frame, error, message):
    # dict raised AttributeError; a duplicated column was read as a 2-D score array.
    with pytest.raises(error, match=message):
        ItemRanking.from_frame(frame)


def test_frame_columns_named_by_numbers():
    # pandas column 0 is found by 0 and by "0" (the name shown in error messages);
    # "0" raised KeyError and 0 was reported missing.
    frame = pd.DataFrame({0: ["u", "u"], 1: ["a", "b"], 2: [2.0, 1.0]})
    expected = ItemRanking(["u", "u"], ["a", "b"], [2.0, 1.0])
    for names in ({"query": 0, "item": 1, "score": 2}, {"query": "0", "item": "1", "score": "2"}):
        run = ItemRanking.from_frame(frame, **names)
        for field in ("queries", "items", "scores"):
            np.testing.assert_array_equal(getattr(run, field), getattr(expected, field))


@pytest.mark.parametrize("lib", FRAME_LIBRARIES, ids=lambda lib: lib.__name__)
def test_frames_with_booleans_categories_and_float32(lib):
    # Accepted: boolean relevance (0/1), float32 scores, categorical query ids; the
    # value equals the one from plain arrays.
    run = lib.DataFrame(
        {"q": ["x", "x", "y"], "i": [1, 2, 1], "s": np.array([0.5, 0.25, 1.0], dtype=np.float32)}
    )
    truth = lib.DataFrame({"q": ["x", "y", "y"], "i": [2, 1, 2], "r": [True, True, False]})
    if lib is pd:
        run["q"] = run["q"].astype("category")
    got = sr.evaluate(
        ItemJudgments.from_frame(truth, query="q", item="i", relevance="r"),
        ItemRanking.from_frame(run, query="q", item="i", score="s"),
        LABELS,
        per_query=True,
    )
    expected = sr.evaluate(
        ItemJudgments(["x", "y", "y"], [2, 1, 2], [1.0, 1.0, 0.0]),
        ItemRanking(["x", "x", "y"], [1, 2, 1], [0.5, 0.25, 1.0]),
        LABELS,
        per_query=True,
    )
    _same(got, expected)


# Issue 28, item 7: the min(k, R) denominator compared k with int32 counts, and numpy refused
# to cast k >= 2**31 (OverflowError, a traceback on the command line).
@pytest.mark.parametrize("name", ["map", "gm_map"])
@pytest.mark.parametrize(
    "conventions",
    [
        {"ap_denominator": "min_k"},
        {"convention": "lightgbm"},
        {"convention": "xgboost"},
        {"convention": "spark"},
        {"convention": "catboost"},
    ],
    ids=["min_k", "lightgbm", "xgboost", "spark", "catboost"],
)
@pytest.mark.parametrize("k", [2**31, 2**62], ids=["2**31", "2**62"])
def test_min_k_denominator_with_k_beyond_int32_is_the_whole_list(name, conventions, k):
    y_true = [[1, 0, 1, 0, 1, 1], [0, 1, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1]]
    y_score = [[6, 5, 4, 3, 2, 1], [1, 1, 2, 2, 3, 3], [1, 2, 3, 4, 5, 6]]
    got = sr.evaluate(y_true, y_score, [f"{name}@{k}"], **conventions)[f"{name}@{k}"]
    n_items = sr.evaluate(y_true, y_score, [f"{name}@6"], **conventions)[f"{name}@6"]
    assert got == n_items
    assert 0.0 < got < 1.0


def test_min_k_denominator_with_k_beyond_int32_on_the_command_line(capsys):
    from sklearn_rank.cli import main

    args = ["evaluate", "--example", "--ap-denominator", "min_k", "-m"]
    assert main([*args, f"map@{2**31}"]) == 0
    beyond = capsys.readouterr().out.split()[-1]
    assert main([*args, "map@1000"]) == 0
    assert beyond == capsys.readouterr().out.split()[-1] == "0.5556"


@pytest.mark.parametrize("dense", [False, True])
@pytest.mark.parametrize(
    "top_ids, hinted",
    [([[1, 2], [0, 1]], True), ([[1, 2], [0]], True), ([[0.5, 0.2], [0.1, 0.3]], False)],
    ids=["rectangular", "ragged", "scores"],
)
def test_top_n_ids_passed_as_scores_point_to_from_topn(top_ids, hinted, dense):
    truth = scipy.sparse.csr_matrix([[0, 1, 0], [0, 0, 0]])
    with pytest.raises(ValueError) as error:
        sr.evaluate(truth.toarray() if dense else truth, top_ids, ["precision@1"])
    assert ("pass ItemRanking.from_topn(y_score)" in str(error.value)) == hinted
