"""trec_eval's measures, ERR and RBP against the slow reference (tests/reference.py), which
enumerates every ordering of tied scores: exact tie averaging, both tie modes, judged
non-relevant and unjudged candidates, judged items never ranked, empty rankings."""

import numpy as np
import pytest
from reference import reference_trec

import sklearn_rank as sr
from sklearn_rank.conventions._declarations import resolve
from sklearn_rank.metrics._interpolated import _interpolated_precision

# (our name, reference measure, its parameters)
MEASURES = [
    ("num_ret", "num_ret", {}),
    ("num_rel", "num_rel", {}),
    ("num_rel_ret", "num_rel_ret", {}),
    ("num_nonrel_judged_ret", "num_nonrel_judged_ret", {}),
    ("rprec", "rprec", {}),
    ("rprec_mult(x=0.6)", "rprec_mult", {"x": 0.6}),
    ("rprec_mult(x=1.8)", "rprec_mult", {"x": 1.8}),
    ("iprec(recall=0.0)", "iprec", {"recall": 0.0}),
    ("iprec(recall=0.3)", "iprec", {"recall": 0.3}),
    ("iprec(recall=0.5)", "iprec", {"recall": 0.5}),
    ("iprec(recall=1.0)", "iprec", {"recall": 1.0}),
    ("iprec_avg", "iprec_avg", {}),
    ("bpref", "bpref", {}),
    ("infap", "infap", {}),
    ("judged", "judged", {}),
    ("judged@2", "judged", {}),
    ("unjudged@3", "unjudged", {}),
    ("unjudged", "unjudged", {}),
    ("err(max_grade=3)", "err", {"max_grade": 3}),
    ("err(max_grade=4)@2", "err", {"max_grade": 4}),
    ("rbp", "rbp", {"p": 0.8}),
    ("rbp(p=0.5)@3", "rbp", {"p": 0.5}),
    ("rbp_residual(p=0.6)", "rbp_residual", {"p": 0.6}),
    ("rbp_residual@2", "rbp_residual", {"p": 0.8}),
    ("gm_map@3", "gm_map", {}),
]


def _k(name):
    return int(name.rsplit("@", 1)[1]) if "@" in name else None


def _query(rng):
    """(labels of the ranked items, None = unjudged; scores; labels of unranked judged)."""
    n = int(rng.integers(0, 8))
    labels = [
        None if rng.random() < 0.3 else int(rng.integers(0, 4) * (rng.random() < 0.6))
        for _ in range(n)
    ]
    scores = list(rng.integers(0, 3 if rng.random() < 0.7 else 6, n) / 2.0)
    unranked = [int(rng.integers(0, 4)) for _ in range(int(rng.integers(0, 3)))]
    if not any(x for x in labels if x) and not unranked and rng.random() < 0.5:
        unranked = [1]
    return labels, scores, unranked


def _as_items(queries):
    tq, ti, tr, rq, ri, rs = [], [], [], [], [], []
    for q, (labels, scores, unranked) in enumerate(queries):
        for i, (label, score) in enumerate(zip(labels, scores)):
            rq.append(q), ri.append(f"d{i}"), rs.append(score)
            if label is not None:
                tq.append(q), ti.append(f"d{i}"), tr.append(label)
        for j, label in enumerate(unranked):
            tq.append(q), ti.append(f"u{j}"), tr.append(label)
    truth = sr.ItemJudgments(
        np.array(tq, dtype=np.int64), np.array(ti, dtype=object), np.array(tr, float)
    )
    run = sr.ItemRanking(
        np.array(rq, dtype=np.int64), np.array(ri, dtype=object), np.array(rs, float)
    )
    return truth, run


@pytest.mark.slow
@pytest.mark.parametrize("ties", ["average", "stable"])
@pytest.mark.parametrize("seed", range(3))
def test_measures_equal_the_reference(ties, seed):
    rng = np.random.default_rng(100 * seed + (ties == "stable"))
    names = [name for name, _m, _p in MEASURES]
    for case in range(40):
        queries = [_query(rng) for _ in range(int(rng.integers(1, 5)))]
        if not any(labels or unranked for labels, _s, unranked in queries):
            continue
        truth, run = _as_items(queries)
        threshold = 2 if case % 4 == 3 else None
        rounding = "plus_0.9" if case % 3 == 2 else "nearest"
        ids = list(sr.query_ids(truth, run))
        got = sr.evaluate(
            truth,
            run,
            names,
            ties=ties,
            relevance_threshold=threshold,
            iprec_rounding=rounding,
            no_relevant=0.0,
            per_query=True,
        )
        for name, measure, params in MEASURES:
            if measure in ("iprec", "iprec_avg"):
                params = dict(params, rounding=rounding)
            for row, q in enumerate(ids):
                labels, scores, unranked = queries[q]
                expected = reference_trec(
                    measure,
                    labels,
                    scores,
                    unranked,
                    k=_k(name),
                    ties=ties,
                    threshold=threshold,
                    **params,
                )
                assert got[name][row] == pytest.approx(expected, rel=1e-9, abs=1e-12), (
                    name,
                    queries[q],
                    threshold,
                )


@pytest.mark.slow
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_dense_and_long_forms_judge_every_item(ties):
    """Matrices and long format judge every cell: the same values as ItemJudgments with a
    row (relevance 0 included) for every candidate, which the reference checks above."""
    rng = np.random.default_rng(5)
    names = [name for name, _m, _p in MEASURES]
    for _ in range(30):
        n_queries, n_items = int(rng.integers(1, 5)), int(rng.integers(1, 7))
        y_true = rng.integers(0, 4, (n_queries, n_items)) * (rng.random((n_queries, n_items)) < 0.5)
        y_score = rng.integers(0, 3, (n_queries, n_items)) / 2.0
        queries = [(list(map(int, t)), list(s), []) for t, s in zip(y_true, y_score)]
        truth, run = _as_items(queries)
        expected = sr.evaluate(truth, run, names, ties=ties, per_query=True, no_relevant=0.0)
        dense = sr.evaluate(y_true, y_score, names, ties=ties, per_query=True)
        groups = np.repeat(np.arange(n_queries), n_items)
        long = sr.evaluate(
            y_true.ravel(), y_score.ravel(), names, groups=groups, ties=ties, per_query=True
        )
        for name in names:
            np.testing.assert_allclose(dense[name], expected[name], rtol=1e-12, err_msg=name)
            np.testing.assert_allclose(long[name], expected[name], rtol=1e-12, err_msg=name)


@pytest.mark.parametrize("ties", ["average", "stable"])
def test_interpolated_precision_in_small_blocks_equals_the_reference(ties, monkeypatch):
    """iprec and iprec_avg go through their queries in blocks, their holding groups found
    per block (one request) or once for all the requests of a call: with blocks of a few
    queries and groups, both give the reference's values, as does the curve."""
    from sklearn_rank.metrics import _trec

    monkeypatch.setattr(_trec, "_QUERY_CELLS", 5)
    monkeypatch.setattr(_trec, "_GROUP_BLOCK", 2)
    rng = np.random.default_rng(11 + (ties == "stable"))
    queries = [_query(rng) for _ in range(40)]
    truth, run = _as_items(queries)
    ids = list(sr.query_ids(truth, run))
    levels = [0.0, 0.3, 0.5, 1.0]
    names = [f"iprec(recall={p})" for p in levels] + ["iprec_avg"]
    conventions = dict(ties=ties, no_relevant=0.0, per_query=True)
    together = sr.evaluate(truth, run, names, **conventions)
    alone = {name: sr.evaluate(truth, run, [name], **conventions)[name] for name in names}
    curve_conventions = resolve(None, {"ties": ties, "no_relevant": 0.0})
    _levels, curve = _interpolated_precision(
        truth, run, recall_levels=levels, conventions=curve_conventions, per_query=True
    )
    for row, q in enumerate(ids):
        labels, scores, unranked = queries[q]
        for i, name in enumerate(names):
            params = {"recall": levels[i]} if i < len(levels) else {}
            params["rounding"] = "nearest"
            measure = "iprec" if i < len(levels) else "iprec_avg"
            expected = reference_trec(measure, labels, scores, unranked, ties=ties, **params)
            got = [together[name][row], alone[name][row]] + (
                [curve[row, i]] if i < len(levels) else []
            )
            for value in got:
                assert value == pytest.approx(expected, rel=1e-9, abs=1e-12), (name, queries[q])


@pytest.mark.parametrize("ties", ["average", "stable"])
def test_eleven_point_average_adds_the_levels_in_order(ties):
    # trec_eval adds the 11 interpolated precisions one after the other and divides by 11;
    # numpy's pairwise mean differs from that in the last bits on about a third of queries.
    rng = np.random.default_rng(9)
    rel = rng.integers(0, 3, (3000, 30)) * (rng.random((3000, 30)) < 0.4)
    score = np.round(rng.random((3000, 30)), 1)
    names = [f"iprec(recall={level / 10})" for level in range(11)]
    got = sr.evaluate(rel, score, [*names, "iprec_avg"], per_query=True, ties=ties)
    total = np.zeros(rel.shape[0])
    for name in names:
        total = total + np.nan_to_num(got[name])
    expected = np.where(np.isnan(got["iprec_avg"]), np.nan, total / 11)
    np.testing.assert_array_equal(got["iprec_avg"], expected)
