"""Invariances every metric must keep, property-based, over the whole registry.

Each property is checked for every metric of `sklearn_rank.metrics._registry.METRICS`, with and
without a cut-off (k = 1, 2, 3 and 7, beyond every generated list), under both tie modes and
random conventions, on small tie-heavy inputs that include queries with no relevant item:

- permuting the queries permutes the per-query values and keeps the mean;
- permuting the items of a query keeps its value (under ``ties="stable"`` only permutations
  that keep tied items in their relative order, which is what breaks their tie);
- query ids are labels only: ints, strings, any first-appearance order give the same values;
- a query given twice counts as that query with weight 2;
- a perfect ranking scores the best value the metric can give its candidates, which is the
  top of the documented range where the query can reach it;
- every value lies in its metric's documented range, and a query with no relevant item
  takes ``no_relevant``;
- float32 and float64 inputs agree.

Dense matrices and long format are both exercised (long format with ragged queries and
interleaved rows), the relabelling also through `ItemJudgments` / `ItemRanking`.
"""

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import sklearn_rank as sr
from sklearn_rank.metrics._registry import METRICS, _bounds

# The click-log estimators need a side input (the propensities) that the inputs here do not
# carry; tests/metrics/test_clicks.py checks them on the forms that carry one.
METRICS = {name: metric for name, metric in METRICS.items() if metric.side_inputs is None}

pytestmark = pytest.mark.slow

SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Few values, so many ties; all exact in float32, and 1 + 2**-20 and 1 + 2**-19 not in
# float16, so that a narrower conversion would show.
SCORE_GRID = [0.0, 0.25, 1.0, 1.0 + 2**-20, 1.0 + 2**-19, 2.5e5]
REL_VALUES = [0, 0, 0, 1, 2, 3]
K_VALUES = [None, 1, 2, 3, 7]
TOL = 1e-12


def _names(k):
    if k is None:
        return list(METRICS)
    return [f"{m.name}@{k}" for m in METRICS.values() if m.takes_k]


ALL_NAMES = [name for k in K_VALUES for name in _names(k)]


def _metric(name):
    return METRICS[name.split("@")[0]]


def _k(name):
    return int(name.split("@")[1]) if "@" in name else None


# ---- strategies ---------------------------------------------------------------------------

conventions = st.fixed_dictionaries(
    {
        "ties": st.sampled_from(["average", "stable"]),
        "gain": st.sampled_from(["linear", "exponential"]),
        "ap_denominator": st.sampled_from(["relevant", "min_k", "hits"]),
        "short_lists": st.sampled_from(["k", "length"]),
        "relevance_threshold": st.sampled_from([None, None, 2]),
        "no_relevant": st.sampled_from([None, 0.0, 1.0, "skip"]),
    }
)


def _rel_row(n):
    return st.one_of(
        st.lists(st.sampled_from(REL_VALUES), min_size=n, max_size=n), st.just([0] * n)
    )  # often a query with no relevant item


def _score_row(n):
    return st.one_of(
        st.lists(st.sampled_from(SCORE_GRID), min_size=n, max_size=n),
        st.lists(st.sampled_from(SCORE_GRID), min_size=n, max_size=n),
        st.sampled_from(SCORE_GRID).map(lambda v: [v] * n),
    )  # all tied


@st.composite
def dense_inputs(draw, max_queries=4, max_items=6):
    n_queries, n_items = draw(st.integers(1, max_queries)), draw(st.integers(1, max_items))
    rel = [draw(_rel_row(n_items)) for _ in range(n_queries)]
    score = [draw(_score_row(n_items)) for _ in range(n_queries)]
    return np.array(rel, dtype=float), np.array(score, dtype=float)


@st.composite
def ragged_queries(draw, max_queries=4, max_items=6):
    """A list of (relevance, scores) per query, of different lengths."""
    queries = []
    for _ in range(draw(st.integers(1, max_queries))):
        n = draw(st.integers(1, max_items))
        queries.append(
            (np.array(draw(_rel_row(n)), dtype=float), np.array(draw(_score_row(n)), dtype=float))
        )
    return queries


def _interleaving(draw, sizes):
    """Row order of a long-format table: queries interleaved, each query's rows in order."""
    slots = [q for q, size in enumerate(sizes) for _ in range(size)]
    return draw(st.permutations(slots))


def _long_format(queries, owner_sequence, labels):
    """Flatten per-query rows into long format following ``owner_sequence`` (query of each
    row); each query's rows keep their order."""
    cursor = [0] * len(queries)
    rel, score, groups = [], [], []
    for q in owner_sequence:
        rel.append(queries[q][0][cursor[q]])
        score.append(queries[q][1][cursor[q]])
        groups.append(labels[q])
        cursor[q] += 1
    return np.array(rel), np.array(score), groups


def _tie_keeping_permutation(draw, score, ties):
    """A permutation of the items (new position -> old index); under "stable" tied items
    keep their relative order."""
    perm = np.array(draw(st.permutations(range(len(score)))), dtype=int)
    if ties == "stable":
        for value in np.unique(score):
            slots = np.flatnonzero(score[perm] == value)
            perm[slots] = np.sort(perm[slots])
    return perm


# ---- evaluation helpers -----------------------------------------------------------------


def _per_query(y_true, y_score, conv, **extra):
    """Every metric name, per query: one evaluate per cut-off, so each cut-off takes its own
    path through the kernel."""
    out = {}
    for k in K_VALUES:
        out.update(sr.evaluate(y_true, y_score, _names(k), per_query=True, **conv, **extra))
    return out


def _means(y_true, y_score, conv, names=ALL_NAMES, **extra):
    """Every metric's mean, or the message of the error it raises (every query skipped)."""
    out = {}
    for k in K_VALUES:
        chosen = [name for name in names if _k(name) == k]
        try:  # one call per cut-off; name by name only to see which metric raised
            out.update(sr.evaluate(y_true, y_score, chosen, **conv, **extra))
        except ValueError:
            for name in chosen:
                try:
                    out[name] = sr.evaluate(y_true, y_score, [name], **conv, **extra)[name]
                except ValueError as error:
                    out[name] = str(error)
    return {name: out[name] for name in names}


def _assert_values_equal(a, b, context, tol=TOL):
    assert list(a) == list(b), context
    for name in a:
        if isinstance(a[name], str) or isinstance(b[name], str):
            assert a[name] == b[name], (name, a[name], b[name], context)
            continue
        np.testing.assert_allclose(
            a[name], b[name], rtol=tol, atol=tol, equal_nan=True, err_msg=f"{name} {context}"
        )


def _reorder(values, order):
    return {name: value[order] for name, value in values.items()}


# ---- permutations -----------------------------------------------------------------------


@SETTINGS
@given(dense_inputs(), conventions, st.data())
def test_permuting_queries_permutes_the_values(inputs, conv, data):
    y_true, y_score = inputs
    order = np.array(data.draw(st.permutations(range(len(y_true)))), dtype=int)
    before = _per_query(y_true, y_score, conv)
    after = _per_query(y_true[order], y_score[order], conv)
    _assert_values_equal(_reorder(before, order), after, "dense rows")
    _assert_values_equal(
        _means(y_true, y_score, conv), _means(y_true[order], y_score[order], conv), "dense means"
    )


@SETTINGS
@given(ragged_queries(), conventions, st.data())
def test_permuting_queries_in_long_format(queries, conv, data):
    sizes = [len(rel) for rel, _ in queries]
    labels = list(range(len(queries)))
    rows = _interleaving(data.draw, sizes)
    rel, score, groups = _long_format(queries, rows, labels)
    before = _per_query(rel, score, conv, groups=groups)
    order = data.draw(st.permutations(range(len(queries))))
    moved = [queries[q] for q in order]
    rel2, score2, groups2 = _long_format(
        moved, _interleaving(data.draw, [sizes[q] for q in order]), labels
    )
    after = _per_query(rel2, score2, conv, groups=groups2)
    # per-query values come in first-appearance order of the ids
    first_before = list(sr.query_ids(groups))
    first_after = list(sr.query_ids(groups2))
    by_query_before = {
        name: {first_before[i]: v[i] for i in range(len(v))} for name, v in before.items()
    }
    for name, values in after.items():
        for i, label in enumerate(first_after):
            expected = by_query_before[name][order[label]]
            assert math.isclose(values[i], expected, rel_tol=TOL, abs_tol=TOL) or (
                math.isnan(values[i]) and math.isnan(expected)
            ), (name, label)
    _assert_values_equal(
        _means(rel, score, conv, groups=groups),
        _means(rel2, score2, conv, groups=groups2),
        "long means",
    )


@SETTINGS
@given(dense_inputs(), conventions, st.data())
def test_permuting_items_within_queries(inputs, conv, data):
    y_true, y_score = inputs
    permuted_true, permuted_score = y_true.copy(), y_score.copy()
    for q in range(len(y_true)):
        perm = _tie_keeping_permutation(data.draw, y_score[q], conv["ties"])
        permuted_true[q], permuted_score[q] = y_true[q][perm], y_score[q][perm]
    _assert_values_equal(
        _per_query(y_true, y_score, conv),
        _per_query(permuted_true, permuted_score, conv),
        "dense items",
    )


@SETTINGS
@given(ragged_queries(), conventions, st.data())
def test_permuting_rows_in_long_format(queries, conv, data):
    """Rows of long format in any order, as long as tied rows of a query keep their order
    under "stable": the values are those of the queries, whatever the row order."""
    sizes = [len(rel) for rel, _ in queries]
    labels = [f"q{q}" for q in range(len(queries))]
    rel, score, groups = _long_format(queries, _interleaving(data.draw, sizes), labels)
    shuffled = []
    for rel_q, score_q in queries:
        perm = _tie_keeping_permutation(data.draw, score_q, conv["ties"])
        shuffled.append((rel_q[perm], score_q[perm]))
    rel2, score2, groups2 = _long_format(shuffled, _interleaving(data.draw, sizes), labels)
    before = _per_query(rel, score, conv, groups=groups)
    after = _per_query(rel2, score2, conv, groups=groups2)
    position = {label: i for i, label in enumerate(sr.query_ids(groups))}
    order = np.array([position[label] for label in sr.query_ids(groups2)])
    _assert_values_equal(_reorder(before, order), after, "long rows")


# ---- query ids --------------------------------------------------------------------------

LABELINGS = {
    "ints": lambda q: q,
    "strings": lambda q: f"query-{q}",
    "large negative ints": lambda q: -(10**12) + 7 * q,
    "floats": lambda q: q + 0.5,
    "mixed objects": lambda q: (q, "a") if q % 2 else f"{q}",
}


@SETTINGS
@given(dense_inputs(), conventions, st.sampled_from(sorted(LABELINGS)), st.data())
def test_relabelling_query_ids(inputs, conv, labeling, data):
    """Long format with any ids, in any first-appearance order, gives each query the value of
    its dense row; so do ItemJudgments / ItemRanking with string query ids."""
    y_true, y_score = inputs
    n_queries, n_items = y_true.shape
    dense = _per_query(y_true, y_score, conv)
    queries = list(zip(y_true, y_score))
    labels = [LABELINGS[labeling](q) for q in data.draw(st.permutations(range(n_queries)))]
    rel, score, groups = _long_format(
        queries, _interleaving(data.draw, [n_items] * n_queries), labels
    )
    if labeling == "mixed objects":
        ids = np.empty(len(groups), dtype=object)
        ids[:] = groups
        groups = ids
    long = _per_query(rel, score, conv, groups=groups)
    row_of = {labels[q]: q for q in range(n_queries)}
    order = np.array([row_of[label] for label in sr.query_ids(groups)])
    _assert_values_equal(_reorder(dense, order), long, f"long, {labeling} ids")

    # items with ids: every cell a judged candidate, rows in column order (stable ties);
    # their default skips a query without a relevant item, as no_relevant="skip" does.
    if conv["no_relevant"] is None:
        dense = _per_query(y_true, y_score, dict(conv, no_relevant="skip"))
    names = [f"user {labels[q]}" for q in range(n_queries)]
    query_col = np.repeat(names, n_items)
    item_col = np.tile([f"item {i}" for i in range(n_items)], n_queries)
    items = _per_query(
        sr.ItemJudgments(query_col, item_col, y_true.ravel()),
        sr.ItemRanking(query_col, item_col, y_score.ravel()),
        conv,
    )
    _assert_values_equal(dense, items, "items with string ids")


# ---- weights ------------------------------------------------------------------------------


@SETTINGS
@given(dense_inputs(), conventions, st.data())
def test_repeating_a_query_equals_weight_two(inputs, conv, data):
    y_true, y_score = inputs
    n_queries = len(y_true)
    j = data.draw(st.integers(0, n_queries - 1))
    base = data.draw(
        st.lists(st.sampled_from([0.5, 1.0, 3.0]), min_size=n_queries, max_size=n_queries)
    )
    weights = np.array(base)
    weights[j] *= 2
    repeated = _means(
        np.vstack([y_true, y_true[j : j + 1]]),
        np.vstack([y_score, y_score[j : j + 1]]),
        conv,
        sample_weight=np.append(base, base[j]),
    )
    weighted = _means(y_true, y_score, conv, sample_weight=weights)
    _assert_values_equal(repeated, weighted, "dense, weight 2")

    # long format: the repeat is a new query id; weights given per row
    queries = list(zip(y_true, y_score)) + [(y_true[j], y_score[j])]
    sizes = [y_true.shape[1]] * len(queries)
    rel, score, groups = _long_format(
        queries, _interleaving(data.draw, sizes), list(range(len(queries)))
    )
    row_weights = np.append(base, base[j])[groups]
    long = _means(rel, score, conv, groups=groups, sample_weight=row_weights)
    _assert_values_equal(long, weighted, "long, weight 2 per row")


# ---- the best ranking ---------------------------------------------------------------------


def _gain(rel, gain):
    rel = np.asarray(rel, dtype=float)
    return rel if gain == "linear" else np.exp2(rel) - 1.0


def _perfect_value(name, rel, conv):
    """The value of ``rel`` (one query, all judged items candidates) ranked by relevance,
    from the definitions of docs/metrics.md; None where the query has no relevant item."""
    metric, k = _metric(name), _k(name)
    rel = np.sort(np.asarray(rel, dtype=float))[::-1]
    n = rel.size
    threshold = conv["relevance_threshold"]
    hits = int((rel >= threshold).sum()) if threshold else int((rel > 0).sum())
    top = n if k is None else min(k, n)
    in_top = min(hits, top)
    base = metric.name
    if base in ("cg", "dcg", "ndcg", "kendall_tau"):
        if not (rel > 0).any():
            return None
    elif hits == 0:
        return None
    low, high = _bounds(metric.value_range) or (None, None)
    best = high if metric.greater_is_better else low
    if base in ("hit_rate", "mrr", "ndcg"):
        return best
    if base == "precision":
        denominator = n if k is None else (k if conv["short_lists"] == "k" else top)
        return in_top / denominator
    if base == "recall":
        return in_top / hits
    if base == "f1":
        denominator = n if k is None else (k if conv["short_lists"] == "k" else top)
        return 2 * in_top / (denominator + hits)
    if base == "map":
        if conv["ap_denominator"] == "hits":
            return best
        return in_top / (
            hits if conv["ap_denominator"] == "relevant" or k is None else min(hits, k)
        )
    if base == "auc":
        # pairs (of the top k for auc@k): all in the right order, or none to count
        return best if 0 < in_top < top else 0.5
    if base == "arp":
        return (hits + 1) / (2 * n)
    gains = _gain(rel[:top], conv["gain"])
    if base == "cg":
        return gains.sum()
    if base == "dcg":
        return (gains / np.log2(np.arange(2, top + 2))).sum()
    # kendall_tau: every pair not tied in relevance is concordant
    pairs = n * (n - 1) / 2
    tied = sum(c * (c - 1) / 2 for c in np.unique(rel, return_counts=True)[1])
    return 0.0 if pairs == tied else math.sqrt((pairs - tied) / pairs)


@SETTINGS
@given(
    st.integers(1, 5).flatmap(
        lambda n: st.lists(st.sampled_from([0, 0, 1, 1, 2, 3]), min_size=n, max_size=n)
    ),
    conventions,
)
def test_perfect_ranking_scores_the_best_value(rel, conv):
    """Scores sorted by relevance, no ties: the value is the one docs/metrics.md gives a
    perfect ranking (the top of the documented range where the query can reach it), and no
    ordering of the same items does better."""
    n = len(rel)
    order = np.argsort(-np.asarray(rel, dtype=float), kind="stable")
    perfect = np.empty(n)
    perfect[order] = np.arange(n, 0, -1, dtype=float)
    positions = np.array(list(itertools.permutations(range(n))))
    every_order = (n - positions).astype(float)  # row: item i at position positions[row, i]
    best = _per_query([rel], [perfect], conv)
    every = _per_query(
        np.tile(np.asarray(rel, dtype=float), (len(every_order), 1)), every_order, conv
    )
    for name in ALL_NAMES:
        if _metric(name).family != "core":
            continue  # trec_eval's measures, ERR, RBP: tests/test_trec_*.py
        metric, value = _metric(name), best[name][0]
        expected = _perfect_value(name, rel, conv)
        if expected is None:  # no relevant item: the no_relevant rule, whatever the order
            rule = (
                conv["no_relevant"]
                if conv["no_relevant"] is not None
                else metric.no_relevant_default
            )
            assert math.isnan(value) if rule == "skip" else value == rule, (name, value)
            continue
        assert math.isclose(value, expected, rel_tol=TOL, abs_tol=TOL), (name, rel, value, expected)
        if metric.name == "auc" and _k(name) is not None:
            continue  # Hivemall's top-k form: a top k of relevant items has no pair, 0.5
        others = every[name]
        if metric.greater_is_better:
            assert value >= others.max() - TOL, (name, rel, value, others.max())
        else:
            assert value <= others.min() + TOL, (name, rel, value, others.min())


# ---- documented ranges and no_relevant ----------------------------------------------------


def _has_relevant(name, rel, threshold):
    """A query's relevant item, in each metric's own sense (docs/metrics.md, no_relevant)."""
    base = _metric(name).name
    if base in ("cg", "dcg", "kendall_tau"):
        return bool((rel != 0).any())
    if base == "ndcg" or "relevance_threshold" not in _metric(name).conventions:
        return bool((rel > 0).any())  # graded measures (NDCG, ERR): a positive grade
    return bool((rel >= threshold).any() if threshold else (rel > 0).any())


def _check_ranges(values, rows, conv, context):
    for name, per_query in values.items():
        metric = _metric(name)
        bounds = _bounds(metric.value_range)
        rule = (
            conv["no_relevant"] if conv["no_relevant"] is not None else metric.no_relevant_default
        )
        for rel, value in zip(rows, per_query):
            no_rule = metric.scores_without_relevant  # counts, Judged@k: always a value
            if not no_rule and not _has_relevant(name, rel, conv["relevance_threshold"]):
                assert math.isnan(value) if rule == "skip" else value == rule, (
                    name,
                    rel,
                    value,
                    context,
                )
                continue
            assert math.isfinite(value), (name, rel, value, context)
            if bounds is not None:
                low, high = bounds
                assert low <= value <= high, (name, rel, value, context)
                if metric.value_range.startswith("("):
                    assert value > low, (name, rel, value, context)
            elif (rel >= 0).all() and not metric.value_range.startswith("(-inf"):
                # CG, DCG, counts: [0, inf) unless relevance is negative (utility: signed)
                assert value >= 0, (name, rel, value, context)


@SETTINGS
@given(dense_inputs(max_items=7), conventions)
def test_values_lie_in_the_documented_range(inputs, conv):
    y_true, y_score = inputs
    _check_ranges(_per_query(y_true, y_score, conv), y_true, conv, "dense")
    for name, mean in _means(y_true, y_score, conv).items():
        if isinstance(mean, str):  # every query skipped: an error, never NaN
            assert conv["no_relevant"] == "skip" or _metric(name).name == "arp", mean
            assert "every query was skipped" in mean
            continue
        assert math.isfinite(mean), (name, mean)
        bounds = _bounds(_metric(name).value_range)
        if bounds is not None:
            assert bounds[0] <= mean <= bounds[1], (name, mean)


@SETTINGS
@given(ragged_queries(max_items=8), conventions, st.data())
def test_values_lie_in_the_documented_range_long_format(queries, conv, data):
    sizes = [len(r) for r, _ in queries]
    rel, score, groups = _long_format(
        queries, _interleaving(data.draw, sizes), list(range(len(queries)))
    )
    values = _per_query(rel, score, conv, groups=groups)
    rows = [queries[q][0] for q in sr.query_ids(groups)]
    _check_ranges(values, rows, conv, "long")


@SETTINGS
@given(
    dense_inputs(),
    st.sampled_from(["average", "stable"]),
    st.sampled_from([None, "skip"]),
    st.data(),
)
def test_negative_relevance_in_range_where_accepted(inputs, ties, no_relevant, data):
    """CG and DCG (linear gain) and Kendall tau accept negative relevance: CG and DCG may
    then be negative, Kendall tau stays in [-1, 1], and only an all-zero query has no value."""
    y_true, y_score = inputs
    flip = np.array(
        data.draw(st.lists(st.booleans(), min_size=y_true.size, max_size=y_true.size))
    ).reshape(y_true.shape)
    y_true = np.where(flip, -y_true, y_true)
    names = [n for n in ALL_NAMES if _metric(n).negative_relevance]
    conv = {"ties": ties, "no_relevant": no_relevant, "relevance_threshold": None}
    values = {}
    for k in K_VALUES:
        chosen = [n for n in names if _k(n) == k]
        if chosen:
            values.update(
                sr.evaluate(
                    y_true, y_score, chosen, per_query=True, ties=ties, no_relevant=no_relevant
                )
            )
    _check_ranges(values, y_true, conv, "negative relevance")
    # DCG of a query is its sum of gain / log2(position + 1) for a strict ranking
    if ties == "stable":
        for q, (rel, score) in enumerate(zip(y_true, y_score)):
            if (rel != 0).any():
                ranked = rel[np.argsort(-score, kind="stable")]
                expected = (ranked / np.log2(np.arange(2, rel.size + 2))).sum()
                assert math.isclose(values["dcg"][q], expected, rel_tol=TOL, abs_tol=TOL)


# ---- float32 ------------------------------------------------------------------------------


@SETTINGS
@given(dense_inputs(), conventions)
def test_float32_and_float64_inputs_agree(inputs, conv):
    """Scores and relevance exactly representable in float32: the float32 arrays, and
    score_dtype="float32", give the float64 values."""
    y_true, y_score = inputs
    as64 = _per_query(y_true, y_score, conv)
    _assert_values_equal(
        as64,
        _per_query(y_true.astype(np.float32), y_score.astype(np.float32), conv),
        "float32 arrays",
        tol=1e-6,
    )
    _assert_values_equal(
        as64,
        _per_query(y_true, y_score, conv, score_dtype="float32"),
        "score_dtype float32",
        tol=1e-6,
    )
    groups = np.repeat(np.arange(len(y_true)), y_true.shape[1])
    _assert_values_equal(
        _reorder(as64, np.arange(len(y_true))),
        _per_query(
            y_true.ravel().astype(np.float32),
            y_score.ravel().astype(np.float32),
            conv,
            groups=groups,
        ),
        "long float32",
        tol=1e-6,
    )


@SETTINGS
@given(st.integers(1, 4), st.integers(1, 7), conventions, st.data())
def test_float32_rounding_of_separated_scores_keeps_the_values(n_queries, n_items, conv, data):
    """Scores in float64 that float32 rounds without changing their order (no two closer
    than float32 resolution): the rounded scores give the same values."""
    rel = np.array([data.draw(_rel_row(n_items)) for _ in range(n_queries)], dtype=float)
    steps = np.array(
        [
            data.draw(st.lists(st.integers(0, 50), min_size=n_items, max_size=n_items))
            for _ in range(n_queries)
        ]
    )
    noise = data.draw(st.floats(0.0, 1.0))
    score = steps * 0.01 + noise * 1e-9 + 1.0  # ties (equal steps) stay ties, others 1e-2 apart
    rounded = score.astype(np.float32)
    for q in range(n_queries):
        same64 = score[q][:, None] == score[q][None, :]
        same32 = rounded[q][:, None] == rounded[q][None, :]
        assume((same64 == same32).all())
    as64 = _per_query(rel, score, conv)
    _assert_values_equal(as64, _per_query(rel, rounded, conv), "separated scores", tol=1e-6)
    _assert_values_equal(
        as64,
        _per_query(rel, score, conv, score_dtype="float32"),
        "separated scores, score_dtype float32",
        tol=1e-6,
    )


def test_every_registry_metric_is_covered():
    assert {_metric(name).name for name in ALL_NAMES} == set(METRICS)
    for metric in METRICS.values():
        assert (f"{metric.name}@7" in ALL_NAMES) == metric.takes_k
    with pytest.raises(ValueError, match="Metric 'arp' takes no cut-off"):
        sr.evaluate([[1]], [[1.0]], ["arp@7"])
