"""compare_per_query: per-query values already computed give, to the bit, what `compare`
gives from judgments on the same values, in every table form."""

import numpy as np
import pytest

from sklearn_rank import ItemJudgments, ItemRanking, compare, compare_per_query, evaluate

METRICS = ["ndcg@5", "map", "num_rel_ret", "gm_map", "arp"]


def _data(seed=0, n_queries=30):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 3, size=(n_queries, 15))
    runs = {
        "noisy": y_true + rng.normal(0, 2, y_true.shape),
        "better": y_true + rng.normal(0, 1, y_true.shape),
        "random": rng.normal(0, 1, y_true.shape),
    }
    return y_true, runs


def _same(a, b):
    assert a.run_names == b.run_names
    assert np.array_equal(a.query_ids, b.query_ids)
    assert a.lower_is_better == b.lower_is_better and a.notes == b.notes
    for table_a, table_b in ((a.runs, b.runs), (a.pairs, b.pairs)):
        assert list(table_a) == list(table_b)
        for column in table_a:
            x, y = table_a[column], table_b[column]
            assert x.dtype == y.dtype, column
            assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), column
    for label in a.per_query:
        assert np.array_equal(a.per_query[label], b.per_query[label], equal_nan=True)


def _long(per_run):
    """The long form of {run: evaluate(..., per_query="table")}."""
    rows = {"query": [], "run": [], "metric": [], "value": []}
    for run, table in per_run.items():
        for metric in table:
            if metric == "query":
                continue
            rows["query"].extend(table["query"].tolist())
            rows["run"].extend([run] * table["query"].size)
            rows["metric"].extend([metric] * table["query"].size)
            rows["value"].extend(table[metric].tolist())
    return rows


@pytest.mark.parametrize(
    "options",
    [
        {"test": "randomization"},
        {"test": "t", "baseline": "noisy", "alternative": "greater"},
        {"test": "wilcoxon", "correction": "fdr_bh"},
        {"test": "bootstrap", "n_resamples": 500, "correction": None},
        {"test": "tukey_hsd", "n_resamples": 300},
        {"test": "randomization", "decimals": 3, "confidence": 0.9},
    ],
)
def test_equal_to_compare_from_judgments(options):
    y_true, runs = _data()
    expected = compare(y_true, runs, METRICS, random_state=3, **options)
    per_run = {
        name: evaluate(y_true, run, METRICS, per_query="table") for name, run in runs.items()
    }
    _same(expected, compare_per_query(per_run, random_state=3, **options))
    _same(expected, compare_per_query(_long(per_run), random_state=3, **options))
    # num_rel_ret is summed, gm_map a geometric mean, arp lower-is-better: as evaluate says
    assert expected.lower_is_better == ("arp",)


def test_dataframes_and_skipped_queries():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    y_true, runs = _data(1)
    y_true[:4] = 0  # no relevant item: NaN under no_relevant="skip"
    expected = compare(y_true, runs, ["ndcg@5", "map"], no_relevant="skip", random_state=0)
    per_run = {
        name: evaluate(y_true, run, ["ndcg@5", "map"], no_relevant="skip", per_query="table")
        for name, run in runs.items()
    }
    assert np.isnan(per_run["noisy"]["map"][:4]).all()
    long = _long(per_run)
    for table in (
        pd.DataFrame(long),
        pl.DataFrame(long),
        {name: pd.DataFrame(t) for name, t in per_run.items()},
        {name: pl.DataFrame(t) for name, t in per_run.items()},
    ):
        _same(expected, compare_per_query(table, random_state=0))


def test_missing_queries_as_compare():
    truth = ItemJudgments(["q1", "q1", "q2", "q3", "q4"], list("abcde"), [1, 0, 1, 1, 1])
    runs = {
        "a": ItemRanking(["q1", "q1", "q2", "q3", "q4"], list("abcde"), [2, 1, 1, 1, 1]),
        "b": ItemRanking(["q1", "q1", "q3", "q4"], list("bacd"), [2, 1, 1, 1]),  # no q2
    }
    table = {
        "query": ["q1", "q2", "q3", "q4", "q1", "q3", "q4"],
        "run": ["a"] * 4 + ["b"] * 3,
        "metric": ["mrr"] * 7,
        "value": [1.0, 1.0, 1.0, 1.0, 0.5, 0.0, 0.0],
    }
    for missing in ("zero", "drop"):
        expected = compare(truth, runs, ["mrr"], missing=missing, test="t")
        got = compare_per_query(table, missing=missing, test="t")
        assert got.per_query["mrr"].tolist() == expected.per_query["mrr"].tolist()
        assert got.runs["n_missing"].tolist() == expected.runs["n_missing"].tolist() == [0, 1]
        assert got.pairs["pvalue"].tolist() == expected.pairs["pvalue"].tolist()
    with pytest.raises(ValueError, match="missing='raise': run 'b' has no ranking for 1"):
        compare_per_query(table, missing="raise")


def test_another_tools_metric_is_averaged_and_greater_is_better():
    table = {
        "query": [1, 2, 3, 1, 2, 3],
        "run": ["x", "x", "x", "y", "y", "y"],
        "metric": ["my_score"] * 6,
        "value": [0.1, 0.2, 0.3, 0.3, 0.3, 0.6],
    }
    result = compare_per_query(table, test="t")
    assert result.runs["mean"].tolist() == pytest.approx([0.2, 0.4], abs=1e-15)
    assert result.pairs["diff"][0] == pytest.approx(0.2, abs=1e-15)
    assert result.lower_is_better == ()


@pytest.mark.parametrize(
    "table, message",
    [
        ({"query": [1], "run": ["a"], "metric": ["m"]}, "table has no column 'value'"),
        (
            {"query": [1, 1, 2], "run": ["a", "a", "b"], "metric": ["m"] * 3, "value": [1, 2, 3]},
            "more than one value for query 1, run 'a', metric 'm'",
        ),
        (
            {"query": [1, 2], "run": ["a", "a"], "metric": ["m", "m"], "value": [1, 2]},
            "at least two runs",
        ),
        (
            {
                "query": [1, 1, 1, 2, 2],
                "run": ["a", "a", "b", "b", "a"],
                "metric": ["m", "n", "m", "m", "m"],
                "value": [1, 1, 1, 1, 1],
            },
            "run 'b' has values of query 1 for some metrics but not for 'n'",
        ),
        ({"a": {"query": [1, 2], "m": [1, 2]}, "b": {"q": [1, 2]}}, "no column 'query'"),
        ([1, 2, 3], "table must be a dict of arrays"),
        (
            {
                "query": [1, 2, 1, 2],
                "run": ["a", "a", "b", "b"],
                "metric": ["m"] * 4,
                "value": [0.1, np.inf, 0.3, 0.4],
            },
            r"table: the value of query 2, run 'a', metric 'm' is inf; values must be "
            r"finite numbers \(NaN: a query the metric left out\)",
        ),
        (
            {"a": {"query": [1, 2], "m": [0.1, 0.2]}, "b": {"query": [1, 2], "m": [0.3, -np.inf]}},
            "the value of query 2, run 'b', metric 'm' is -inf",
        ),
    ],
)
def test_checks(table, message):
    with pytest.raises(ValueError, match=message):
        compare_per_query(table)


def test_checks_of_compare_parameters():
    table = {"query": [1, 2, 1, 2], "run": ["a", "a", "b", "b"], "metric": ["m"] * 4}
    table["value"] = [0.1, 0.2, 0.3, 0.4]
    with pytest.raises(ValueError, match="baseline must be None or the name of a run"):
        compare_per_query(table, baseline="c")
    with pytest.raises(ValueError, match="corrected_t"):
        compare_per_query(table, test="corrected_t")
    with pytest.raises(ValueError, match="at least 2 queries"):
        compare_per_query({k: v[:1] + v[2:3] for k, v in table.items()})
