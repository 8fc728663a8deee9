"""docs/edge_cases.md is executed here, row by row, so that the page cannot drift from the code.

The page's grammar (stated at its top): a table whose first column is "metric" computes each
named metric on the ``Input:`` line above it with the parameters of each column heading; a
table whose first column is "call" evaluates the call. A cell is a Python expression for the
value (per query in metric tables), ``skipped`` (NaN in per-query output) or
``SomeError: "fragment of the message"``. Then a few regression tests for what writing the page
found broken.
"""

import builtins
import math
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse
import sklearn.metrics

import sklearn_rank as sr
from sklearn_rank.metrics._registry import METRICS

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "edge_cases.md"

NAMESPACE = {name: getattr(sr, name) for name in sr.__all__}
NAMESPACE.update(
    np=np,
    scipy=scipy,
    nan=math.nan,
    inf=math.inf,
    log2=math.log2,
    sqrt=math.sqrt,
    comb=math.comb,
    skipped=math.nan,
)
ERROR = re.compile(r'^(\w+Error): "(.*)"$')
SEPARATOR = re.compile(r"^\|(\s*:?-+:?\s*\|)+\s*$")


def _cells(line):
    return [cell.strip() for cell in line.strip()[1:-1].split("|")]


def _code(cell):
    return re.findall(r"`([^`]*)`", cell)


def _tables(text):
    """(line number, header cells, Input of the section or None, [(line number, cells)])."""
    lines = text.splitlines()
    given, i = None, 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("#"):
            given = None
        match = re.match(r"^Input: `(.*)`$", line)
        if match:
            given = match.group(1)
        if line.startswith("|") and i + 1 < len(lines) and SEPARATOR.match(lines[i + 1]):
            rows, j = [], i + 2
            while j < len(lines) and lines[j].startswith("|"):
                rows.append((j + 1, _cells(lines[j])))
                j += 1
            yield i + 1, _cells(line), given, rows
            i = j
            continue
        i += 1


def _evaluate_text(text):
    return eval(text, dict(NAMESPACE))  # noqa: S307 - the project's own page


def _expected(cell):
    """("raises", ErrorType, fragment) or ("value", value)."""
    match = ERROR.match(cell)
    if match:
        return "raises", getattr(builtins, match.group(1)), match.group(2)
    text = cell[1:-1] if cell.startswith("`") and cell.endswith("`") else cell
    return "value", _evaluate_text(text)


def _metric_cases():
    for _line, header, given, rows in _tables(PAGE.read_text()):
        if header[0] != "metric":
            continue
        columns = {}
        for index, heading in enumerate(header[1:], start=1):
            if heading == "value":
                columns[index] = ("value", {})
            elif heading.startswith("`"):
                columns[index] = (heading.strip("`"), _evaluate_text(f"dict({_code(heading)[0]})"))
        for row_line, cells in rows:
            for name in _code(cells[0]):
                for index, (label, params) in columns.items():
                    yield pytest.param(
                        given, name, params, cells[index], id=f"line{row_line}-{name}-{label}"
                    )


def _call_cases():
    for _line, header, _given, rows in _tables(PAGE.read_text()):
        if header[0] != "call":
            continue
        for row_line, cells in rows:
            yield pytest.param(_code(cells[0])[0], cells[1], id=f"line{row_line}")


def _assert_same(got, expected, context):
    if isinstance(expected, dict):
        assert isinstance(got, dict) and list(got) == list(expected), (context, got)
        for key, value in expected.items():
            _assert_same(got[key], value, (context, key))
        return
    got_array, expected_array = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    assert got_array.shape == expected_array.shape, (context, got, expected)
    np.testing.assert_allclose(
        got_array, expected_array, rtol=1e-12, atol=1e-12, equal_nan=True, err_msg=str(context)
    )


@pytest.mark.parametrize(("given", "name", "params", "cell"), list(_metric_cases()))
def test_metric_table_row(given, name, params, cell):
    inputs = _evaluate_text(f"dict({given})")
    outcome = _expected(cell)

    def compute():
        return sr.evaluate(metrics=[name], per_query=True, **inputs, **params)[name]

    if outcome[0] == "raises":
        with pytest.raises(outcome[1], match=re.escape(outcome[2])):
            compute()
        return
    got = compute()
    expected = outcome[1]
    if np.ndim(expected) == 0:  # one value for a one-query input
        expected = [expected]
    _assert_same(got, expected, (given, name, params))


@pytest.mark.parametrize(("call", "cell"), list(_call_cases()))
def test_call_table_row(call, cell):
    outcome = _expected(cell)
    if outcome[0] == "raises":
        with pytest.raises(outcome[1], match=re.escape(outcome[2])):
            _evaluate_text(call)
        return
    got = _evaluate_text(call)
    if isinstance(outcome[1], float) or isinstance(outcome[1], int):
        assert isinstance(got, float), (call, type(got))  # a mean is a Python float
    _assert_same(got, outcome[1], call)


def test_page_tables_are_all_executed():
    """Every table is a metric or a call table, every metric table has an input and covers
    every metric of the registry: no row can be prose that nothing checks."""
    tables = list(_tables(PAGE.read_text()))
    assert len(tables) >= 20
    for line, header, given, rows in tables:
        assert header[0] in ("metric", "call"), f"line {line}: table of neither kind"
        assert rows, f"line {line}: empty table"
        if header[0] == "call":
            assert header[1:] == ["result"], f"line {line}"
            continue
        assert given is not None, f"line {line}: metric table without an Input line"
        assert any(h == "value" or h.startswith("`") for h in header[1:]), f"line {line}"
        names = {name.split("@")[0] for _row, cells in rows for name in _code(cells[0])}
        # The page covers the first metrics; trec_eval's measures, ERR and RBP are defined
        # with their edge cases in metrics.md and tested in test_trec_*.py.
        core = {name for name, metric in METRICS.items() if metric.family == "core"}
        assert names == core, f"line {line}: missing {core - names}"


def test_page_is_linked_from_the_documentation_lists():
    assert "[docs/edge_cases.md](docs/edge_cases.md)" in (ROOT / "README.md").read_text()
    assert "(edge_cases.md)" in (ROOT / "docs" / "api.md").read_text()


# ---- regressions: values that looked right but were not ----------------------------------


def test_negative_relevance_only_query_has_its_dcg_as_scikit_learn():
    # A query of zero and negative relevance was scored no_relevant (0.0) as if it had
    # nothing to score; scikit-learn's dcg_score gives its sum, -5.
    assert sr.dcg_score([[-5, 0]], [[1, 0]]) == sklearn.metrics.dcg_score([[-5, 0]], [[1, 0]])
    assert sr.cg_score([[0, -1, -2]], [[3, 2, 1]]) == -3.0
    # Kendall tau of relevance [0, -1, -2] ranked in that order is 1, not 0.
    assert sr.kendall_tau_score([[0, -1, -2]], [[3, 2, 1]]) == 1.0
    assert sr.kendall_tau_score([[0, -1, -2]], [[1, 2, 3]]) == -1.0
    # Only all-zero relevance is "no relevant item" for these metrics.
    with pytest.raises(ValueError, match="kendall_tau: 1 queries have no relevant item"):
        sr.kendall_tau_score([[0, -1], [0, 0]], [[2, 1], [2, 1]], no_relevant="error")


@pytest.mark.parametrize("ties", ["average", "stable"])
def test_perfect_graded_ranking_ndcg_is_exactly_one(ties):
    # DCG and ideal DCG are summed differently, so this NDCG was 1.0000000000000002.
    rel = [[1.0, 3.0, 3.0, 3.0, 2.0, 1.0, 3.0]]
    assert sr.ndcg_score(rel, rel, ties=ties) == 1.0


@pytest.mark.parametrize("gain", ["exponential", "linear"])
@pytest.mark.parametrize("k", [None, 1, 5, 40])
def test_perfect_binary_ranking_ndcg_is_exactly_one(gain, k):
    # Binary relevance takes the ideal DCG's one-level shortcut (partial sums of the
    # discount): it must add the very terms the DCG adds, in the same order.
    rng = np.random.default_rng(7)
    rel = (rng.random((60, 50)) < rng.random((60, 1))).astype(float)
    rel[rel.sum(axis=1) == 0, 0] = 1.0
    grades = rel * 3.0  # one level that is not 1: its gain multiplies every term
    for truth in (rel, grades):
        values = sr.ndcg_score(truth, truth, k=k, gain=gain, per_query=True)
        assert np.all(values == 1.0)


def _ideal_dcg_term_by_term(rel, k, gain):
    """One query's ideal DCG@k: its terms added one by one, in position order."""
    ideal = np.sort(rel)[::-1][:k]
    total = 0.0
    for term in gain(ideal) * (np.log(2.0) / np.log(np.arange(ideal.size) + 2.0)):
        total += term
    return total


@pytest.mark.parametrize("levels", [[1.0], [3.0], [0.5], [1.0, 2.0, 4.0]])
@pytest.mark.parametrize("k", [None, 1, 5])
def test_ideal_dcg_adds_its_terms_in_position_order(levels, k):
    # One relevance level takes a shortcut (partial sums): its values must be those of
    # adding each query's terms one by one in position order, as several levels do.
    from sklearn_rank.metrics._counting import _ideal_dcg

    rng = np.random.default_rng(3)
    query = np.sort(rng.integers(0, 30, 400))
    rel = rng.choice(levels, query.size)
    for gain in (lambda r: r, lambda r: np.exp2(r) - 1):
        got = _ideal_dcg(query, rel, 32, k, gain)
        for q in range(32):
            assert got[q] == _ideal_dcg_term_by_term(rel[query == q], k, gain)


def test_tie_averaged_ap_over_hits_never_exceeds_one():
    # Every top-3 position holds a relevant item or none is drawn: AP over hits is exactly 1,
    # and the closed form gave 1.0000000000000004.
    value = sr.mean_average_precision_score(
        [[2, 2, 2, 0, 3, 3, 3]], [[1, 1, 0, 0, 0, 0, 0]], k=3, ap_denominator="hits"
    )
    assert value == 1.0


def test_rounding_guard_leaves_real_excursions_visible():
    from sklearn_rank.metrics._registry import _ROUNDING, _Guarded

    def reduce(_ranking, _k):
        return np.array([1.0 + _ROUNDING / 2, 1.5, -_ROUNDING / 2, -0.5]), np.ones(4, bool)

    values, _ = _Guarded(reduce, (0.0, 1.0))(None, None)
    assert values.tolist() == [1.0, 1.5, 0.0, -0.5]


@pytest.mark.parametrize(
    "levels, k, items_per_query",
    [
        ([1.0, 2.0, 3.0, 4.0], 10, 30),  # a cut-off: few distinct lists, counted
        ([1.0, 2.0, 3.0, 4.0], 3, 30),
        ([1.0, 2.0, 3.0, 4.0], None, 6),  # no cut-off, short queries: counted
        ([0.5, 1.5, 2.5, 7.0, 9.0, 11.0, 12.0, 15.0], None, 5),  # many levels: sorted keys
    ],
)
def test_queries_sharing_an_ideal_list_get_the_ideal_dcg_of_their_own_terms(
    levels, k, items_per_query, monkeypatch
):
    # Many queries: the ideal DCG is computed once per distinct ideal list. Each value must
    # still be the sum, in position order, of that query's own terms.
    from sklearn_rank.metrics import _counting

    shared = []
    original = _counting._shared_ideal_lists
    monkeypatch.setattr(
        _counting,
        "_shared_ideal_lists",
        lambda *args: shared.append(original(*args)) or shared[-1],
    )
    rng = np.random.default_rng(11)
    n_queries = 3000
    sizes = rng.integers(0, items_per_query + 1, n_queries)
    query = np.repeat(np.arange(n_queries), sizes)
    weights = np.linspace(2, 1, len(levels))  # higher levels rarer, as in real judgments
    rel = rng.choice(levels, query.size, p=weights / weights.sum())
    for gain in (lambda r: r, lambda r: np.exp2(r) - 1):
        got = _counting._ideal_dcg(query, rel, n_queries, k, gain)
        for q in range(n_queries):
            assert got[q] == _ideal_dcg_term_by_term(rel[query == q], k, gain)
    assert shared and all(s is not None for s in shared)  # the shared lists were used
