"""Each convention preset reproduces its tool, run on the same random data.

scikit-learn, trec_eval (through pytrec_eval), LightGBM, XGBoost and CatBoost compute their
metrics here on hundreds of random cases built to hit every convention they differ on: heavy
score ties (scores drawn from a few values), graded relevance 0-4 with many zeros, queries with
no relevant item and queries with a single item. ``evaluate(..., convention=<tool>)`` must
give the tool's numbers (1e-12 against scikit-learn; 1e-6 against the others, whose values
pass through float32 or are printed). A peer that is not installed is skipped.

How each peer is made to score given scores (docs/reproducing_other_tools.md):
- LightGBM: the scores are each validation Dataset's ``init_score``; a Booster without any
  tree reports their metrics (``eval_valid``).
- XGBoost: the scores are each DMatrix's ``base_margin``; a Booster trained for 0 rounds
  reports their metrics (``eval_set``, printed with 17 significant digits).
- For both, every case and every query of it alone is an evaluation set: the peer gives the
  mean and each query's value.
- trec_eval: ``pytrec_eval.RelevanceEvaluator`` on dicts of qrels and run, per query.
- CatBoost: ``catboost.utils.eval_metric(label, approx, metric, group_id=...)`` on every case
  and every query alone.
"""

import re

import numpy as np
import pytest

import sklearn_rank as sr

pytestmark = pytest.mark.slow

CUTS = (1, 3, 5, 10)
PEER_ATOL = 1e-6
SKLEARN_ATOL = 1e-12


def _relevance(rng, size, p_relevant=0.4, top=4):
    """Graded relevance 0..top, mostly zeros."""
    return rng.integers(1, top + 1, size) * (rng.random(size) < p_relevant)


def _tied_scores(rng, size):
    """Scores from a handful of values (heavy ties), sometimes on a finer grid."""
    values = rng.choice([2, 3, 4, 8]) if rng.random() < 0.85 else 50
    return rng.integers(0, values, size) / 2.0 - 0.5


def _long_case(rng, max_queries=8, max_items=14, p_relevant=0.4, binary=False):
    """Contiguous query groups (as LightGBM and XGBoost need), sizes from 1 up."""
    n_queries = int(rng.integers(1, max_queries + 1))
    sizes = rng.integers(1, max_items + 1, n_queries)
    sizes[rng.random(n_queries) < 0.15] = 1  # single-item queries
    n = int(sizes.sum())
    y = _relevance(rng, n, p_relevant, top=1 if binary else 4)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    for start, size in zip(starts, sizes):  # some queries with no relevant item
        if rng.random() < 0.2:
            y[start : start + size] = 0
    scores = _tied_scores(rng, n)
    # Increasing, non-consecutive ids (XGBoost needs sorted qid).
    qid = np.repeat(np.cumsum(rng.integers(1, 5, n_queries)), sizes)
    return y, scores, qid, sizes


def _interleave(qid, rng):
    """A row order that mixes the queries but keeps each query's rows in their order."""
    slot_query = qid[rng.permutation(qid.size)]
    slots = np.empty(qid.size, dtype=np.int64)
    for q in np.unique(qid):
        slots[slot_query == q] = np.flatnonzero(qid == q)
    return slots


def _assert_close(got, expected, atol, context):
    assert got == pytest.approx(expected, abs=atol, rel=0), context


# --------------------------------------------------------------------------------------------
# scikit-learn
# --------------------------------------------------------------------------------------------


def _sklearn_dense_case(rng):
    n_queries, n_items = int(rng.integers(1, 7)), int(rng.integers(2, 13))
    y_true = _relevance(rng, (n_queries, n_items))
    y_true[rng.random(n_queries) < 0.2] = 0  # rows with no relevant item
    y_score = _tied_scores(rng, (n_queries, n_items))
    weights = rng.random(n_queries) + 0.05 if rng.random() < 0.3 else None
    return y_true, y_score, weights


@pytest.mark.parametrize("seed", range(4))
def test_sklearn_ndcg_and_dcg(seed):
    from sklearn.metrics import dcg_score, ndcg_score

    rng = np.random.default_rng(1000 + seed)
    for case in range(60):
        y_true, y_score, weights = _sklearn_dense_case(rng)
        k = [None, 1, 2, 3, 5, 10, 20][case % 7]
        names = ["ndcg", "dcg"] if k is None else [f"ndcg@{k}", f"dcg@{k}"]
        got = sr.evaluate(y_true, y_score, names, sample_weight=weights, convention="sklearn")
        context = (y_true.tolist(), y_score.tolist(), weights, k)
        _assert_close(
            got[names[0]],
            ndcg_score(y_true, y_score, k=k, sample_weight=weights),
            SKLEARN_ATOL,
            context,
        )
        _assert_close(
            got[names[1]],
            dcg_score(y_true, y_score, k=k, sample_weight=weights),
            SKLEARN_ATOL,
            context,
        )
        # Row by row too.
        rows = sr.evaluate(y_true, y_score, names, convention="sklearn", per_query=True)
        for i in range(y_true.shape[0]):
            one_true, one_score = y_true[i : i + 1], y_score[i : i + 1]
            _assert_close(
                rows[names[0]][i], ndcg_score(one_true, one_score, k=k), SKLEARN_ATOL, (context, i)
            )
            _assert_close(
                rows[names[1]][i], dcg_score(one_true, one_score, k=k), SKLEARN_ATOL, (context, i)
            )


# --------------------------------------------------------------------------------------------
# trec_eval (pytrec_eval-terrier)
# --------------------------------------------------------------------------------------------

TREC_MEASURES = {
    "map": "map",
    "ndcg": "ndcg",
    "recip_rank": "mrr",
    **{f"P_{k}": f"precision@{k}" for k in CUTS},
    **{f"recall_{k}": f"recall@{k}" for k in CUTS},
    **{f"map_cut_{k}": f"map@{k}" for k in CUTS},
    **{f"ndcg_cut_{k}": f"ndcg@{k}" for k in CUTS},
    **{f"success_{k}": f"hit_rate@{k}" for k in CUTS},
}
_CUT_LIST = ",".join(map(str, CUTS))
TREC_REQUEST = {
    "map",
    "ndcg",
    "recip_rank",
    f"P.{_CUT_LIST}",
    f"recall.{_CUT_LIST}",
    f"map_cut.{_CUT_LIST}",
    f"ndcg_cut.{_CUT_LIST}",
    f"success.{_CUT_LIST}",
}


def _trec_scores(rng, size):
    """Few distinct values, some nudged below float32 resolution (ties in trec_eval), some
    nudged above it (not ties)."""
    scores = (
        rng.choice([-1.0, 0.25, 0.5, 1.0, 3.0], size)
        if rng.random() < 0.7
        else rng.integers(0, 30, size) / 7.0
    )
    nudge = rng.random(size)
    scores = np.where(nudge < 0.15, scores * (1 + 1e-9) + 1e-12 * (scores != 0), scores)
    scores = np.where(nudge > 0.9, scores + 1e-5, scores)
    return scores


def _docno(number, style):
    return {0: f"d{number}", 1: str(number), 2: f"doc-{number:x}"}[style]


def _trec_case(rng, n_queries=None):
    """Returns (qrels, run) as pytrec_eval takes them: {qid: {docno: int}}, {qid: {docno: float}}.

    Queries: in both (most), only in the run (trec_eval ignores them), with judgments that
    are all 0, with a single retrieved document. Documents: judged and retrieved, judged but
    not retrieved (relevant ones count in R and in the ideal DCG), retrieved but not judged,
    judged 0. Docnos "d9"/"d10" and "9"/"10" sort differently as strings and as numbers.
    """
    if n_queries is None:
        n_queries = int(rng.integers(1, 9))
    qids = rng.choice(
        ["q1", "q2", "q10", "7", "70", "8", "b", "a", "Q", "q-3"], n_queries, replace=False
    )
    qrels, run = {}, {}
    for number, q in enumerate(map(str, qids)):
        style = int(rng.integers(0, 3))
        pool_size = int(rng.integers(1, 16))
        pool = [_docno(int(d), style) for d in rng.choice(40, pool_size, replace=False)]
        n_run = 1 if rng.random() < 0.15 else int(rng.integers(1, pool_size + 1))
        retrieved = [pool[i] for i in rng.choice(pool_size, n_run, replace=False)]
        run[q] = dict(zip(retrieved, map(float, _trec_scores(rng, n_run))))
        if number > 0 and rng.random() < 0.15:
            continue  # a query of the run without judgments (never all of them)
        judged = [d for d in pool if rng.random() < 0.7] or [pool[0]]
        rel = _relevance(rng, len(judged), p_relevant=0.45)
        if rng.random() < 0.2:
            rel[:] = 0  # judged, nothing relevant
        qrels[q] = dict(zip(judged, map(int, rel)))
    return qrels, run


def _trec_tie_kinds(run):
    """Which trec_eval tie rules this run exercises: scores distinct as doubles but equal as
    float32, and tied docnos whose order as strings differs from their order as numbers."""
    kinds = set()
    for docs in run.values():
        by_score = {}
        for doc, score in docs.items():
            by_score.setdefault(np.float32(score), []).append((score, doc))
        for tied in by_score.values():
            if len({score for score, _ in tied}) > 1:
                kinds.add("float32")
            names = [doc for _, doc in tied]
            numbers = [re.fullmatch(r"d?([0-9]+)", doc) for doc in names]
            if all(numbers) and sorted(names) != [
                n for _, n in sorted(zip([int(m.group(1)) for m in numbers], names))
            ]:
                kinds.add("docno")
    return kinds


def _pytrec(qrels, run):
    import pytrec_eval

    return pytrec_eval.RelevanceEvaluator(qrels, TREC_REQUEST).evaluate(run)


def _as_item_arrays(nested, dtype):
    queries, items, values = [], [], []
    for q, docs in nested.items():
        for d, v in docs.items():
            queries.append(q)
            items.append(d)
            values.append(v)
    return (
        np.array(queries, dtype=object),
        np.array(items, dtype=object),
        np.array(values, dtype=dtype),
    )


def _library_trec(qrels, run, names, rng, convention="trec_eval9"):
    """sklearn_rank with pytrec_eval's trec_eval (9.x: float32 scores), by default:
    (query ids of the per-query values, {name: per-query values}, {name: mean})."""
    judgments = sr.ItemJudgments(*_as_item_arrays(qrels, np.int64))
    q, d, s = _as_item_arrays(run, np.float64)
    order = rng.permutation(q.size)  # the run's line order must not matter
    ranking = sr.ItemRanking(q[order], d[order], s[order])
    per_query = sr.evaluate(judgments, ranking, names, convention=convention, per_query=True)
    means = sr.evaluate(judgments, ranking, names, convention=convention)
    # query_ids order, less the queries without judgments that trec_eval leaves out.
    ids = [q for q in sr.query_ids(judgments, ranking) if q in qrels]
    return ids, per_query, means


@pytest.mark.parametrize("seed", range(6))
def test_trec_eval_measures(seed):
    pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(2000 + seed)
    names = list(TREC_MEASURES.values())
    exercised = set()
    for _ in range(40):
        qrels, run = _trec_case(rng)
        exercised |= _trec_tie_kinds(run)
        expected = _pytrec(qrels, run)
        ids, per_query, means = _library_trec(qrels, run, names, rng)
        context = (qrels, run)
        # Same queries: those of the run that have judgments.
        values = {str(q): i for i, q in enumerate(ids)}
        assert set(values) == set(expected), context
        for measure, name in TREC_MEASURES.items():
            assert len(per_query[name]) == len(values), (context, name)
            for q, i in values.items():
                _assert_close(
                    per_query[name][i], expected[q][measure], PEER_ATOL, (context, q, measure)
                )
            _assert_close(
                means[name],
                np.mean([expected[q][measure] for q in expected]),
                PEER_ATOL,
                (context, measure),
            )
    assert exercised == {"float32", "docno"}


def test_trec_eval_10_reads_scores_as_double_and_9_as_float():
    """trec_eval 10.0 (convention "trec_eval") ties only equal doubles; 9.x ("trec_eval9",
    pytrec_eval) also scores equal in float32: RR 1.0 against 0.5 (MEASURES_TREC.md 6.2)."""
    pytest.importorskip("pytrec_eval")
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 0.1000000002, "b": 0.1000000001}}
    assert _pytrec(qrels, run)["q"]["recip_rank"] == 0.5  # "b" > "a": first among ties
    rng = np.random.default_rng(0)
    assert _library_trec(qrels, run, ["mrr"], rng)[2] == {"mrr": 0.5}
    assert _library_trec(qrels, run, ["mrr"], rng, "trec_eval")[2] == {"mrr": 1.0}


@pytest.mark.parametrize("seed", range(2))
def test_trec_eval_ignores_judged_queries_missing_from_the_run(seed):
    """Without -c, trec_eval loops over the run's queries that have judgments: a query with
    judgments but no retrieved document is in neither the per-query output nor the mean."""
    pytest.importorskip("pytrec_eval")
    rng = np.random.default_rng(2500 + seed)
    names = list(TREC_MEASURES.values())
    for _ in range(20):
        qrels, run = _trec_case(rng)
        for extra in ("z1", "z10", "z9")[: int(rng.integers(1, 4))]:  # judged, not retrieved
            docs = [f"d{d}" for d in rng.choice(40, int(rng.integers(1, 6)), replace=False)]
            qrels[extra] = dict(zip(docs, map(int, _relevance(rng, len(docs), 0.7))))
        expected = _pytrec(qrels, run)
        assert not {"z1", "z10", "z9"} & set(expected)
        _ids, per_query, means = _library_trec(qrels, run, names, rng)
        context = (qrels, run)
        for measure, name in TREC_MEASURES.items():
            assert len(per_query[name]) == len(expected), (context, name)
            _assert_close(
                means[name],
                np.mean([expected[q][measure] for q in expected]),
                PEER_ATOL,
                (context, measure),
            )


# --------------------------------------------------------------------------------------------
# LightGBM and XGBoost
# --------------------------------------------------------------------------------------------


def _query_slices(sizes):
    ends = np.cumsum(sizes)
    return [slice(end - size, end) for end, size in zip(ends, sizes)]


def _lightgbm_batch(cases, cuts):
    """LightGBM's ndcg@k and map@k of the scores of each (y, scores, sizes) case.

    The scores are each validation set's ``init_score``; the Booster has no tree, so
    ``eval_valid`` scores them as they are. Returns, per case, (metrics of the whole case,
    [metrics of each query alone]), metrics as {name: value}.
    """
    import lightgbm

    params = {
        "objective": "lambdarank",
        "metric": ["ndcg", "map"],
        "eval_at": list(cuts),
        "verbose": -1,
        "num_threads": 1,
    }
    train = lightgbm.Dataset(np.zeros((2, 1)), label=[0, 1], group=[2], params=params)
    booster = lightgbm.Booster(params, train_set=train)
    assert booster.current_iteration() == 0
    for c, (y, scores, sizes) in enumerate(cases):
        parts = [("all", slice(None), sizes)]
        parts += [
            (i, part, [part.stop - part.start]) for i, part in enumerate(_query_slices(sizes))
        ]
        for name, part, part_sizes in parts:
            booster.add_valid(
                lightgbm.Dataset(
                    np.zeros((y[part].size, 1)),
                    label=y[part],
                    group=part_sizes,
                    init_score=scores[part],
                    reference=train,
                    params=params,
                ),
                f"{c}/{name}",
            )
    values = {}
    for data_name, metric, value, *_ in booster.eval_valid():
        values.setdefault(data_name, {})[metric] = float(value)
    return [
        (values[f"{c}/all"], [values[f"{c}/{i}"] for i in range(len(sizes))])
        for c, (_y, _scores, sizes) in enumerate(cases)
    ]


_XGB_RESULT = re.compile(r"\t([^\t:-]+)-([^\t:]+):([^\t]+)")


def _xgboost_batch(cases, metrics):
    """XGBoost's eval metrics of the scores of each (y, scores, sizes) case.

    The scores are each DMatrix's ``base_margin`` and the Booster is trained for 0 rounds;
    ``eval_set`` prints the metrics with 17 significant digits. Returns as `_lightgbm_batch`.
    """
    import xgboost

    params = {"objective": "rank:ndcg", "eval_metric": list(metrics), "nthread": 1}
    dummy = xgboost.DMatrix(np.zeros((2, 1)), label=[0, 1], qid=[0, 0], base_margin=[0.0, 0.0])
    booster = xgboost.train(params, dummy, num_boost_round=0)
    evals = []
    for c, (y, scores, sizes) in enumerate(cases):
        qid = np.repeat(np.arange(len(sizes)), sizes)
        parts = [("all", slice(None))] + list(enumerate(_query_slices(sizes)))
        for name, part in parts:
            data = xgboost.DMatrix(
                np.zeros((y[part].size, 1)),
                label=y[part],
                qid=qid[part],
                base_margin=scores[part],
                nthread=1,
            )
            np.testing.assert_array_equal(
                booster.predict(data, output_margin=True), scores[part].astype(np.float32)
            )
            evals.append((data, f"c{c}q{name}"))
    values = {}
    for data_name, metric, value in _XGB_RESULT.findall(booster.eval_set(evals)):
        values.setdefault(data_name, {})[metric] = float(value)
    return [
        (values[f"c{c}qall"], [values[f"c{c}q{i}"] for i in range(len(sizes))])
        for c, (_y, _scores, sizes) in enumerate(cases)
    ]


def _compare_long(cases, peer_values, pairs, convention, rng):
    """pairs: (peer metric, sklearn_rank metric, extra evaluate parameters)."""
    batches = {}  # one evaluate call per set of extra parameters
    for peer, name, params in pairs:
        batches.setdefault(tuple(sorted(params.items())), []).append((peer, name))
    for (y, scores, qid, _sizes), (mean, per_query) in zip(cases, peer_values):
        assert set(mean) == {peer for peer, _, _ in pairs}, mean
        context = dict(y=y.tolist(), scores=scores.tolist(), qid=qid.tolist())
        slots = _interleave(qid, rng)
        for params, batch in batches.items():
            names = [name for _, name in batch]
            kwargs = dict(convention=convention, **dict(params))
            got = sr.evaluate(y, scores, names, groups=qid, **kwargs)
            rows = sr.evaluate(y, scores, names, groups=qid, per_query=True, **kwargs)
            # Rows of the queries interleaved, each query's rows in their order: same values.
            mixed = sr.evaluate(y[slots], scores[slots], names, groups=qid[slots], **kwargs)
            for peer, name in batch:
                where = (context, peer, name, params)
                _assert_close(got[name], mean[peer], PEER_ATOL, where)
                assert len(rows[name]) == len(per_query), where
                for i, expected in enumerate(per_query):  # query_ids order: qid increases
                    _assert_close(rows[name][i], expected[peer], PEER_ATOL, (where, "query", i))
                _assert_close(
                    mixed[name], mean[peer], PEER_ATOL, (where, "interleaved", slots.tolist())
                )


@pytest.mark.parametrize("seed", range(4))
def test_lightgbm_ndcg_and_map(seed):
    pytest.importorskip("lightgbm")
    rng = np.random.default_rng(3000 + seed)
    cases = []
    for _ in range(50):
        y, scores, qid, sizes = _long_case(rng)
        if rng.random() < 0.3:  # distinct as doubles, equal as float32: LightGBM keeps doubles
            scores = scores + 1e-9 * (rng.random(scores.size) < 0.5)
        cases.append((y, scores, qid, sizes))
    peer = _lightgbm_batch([(y, s, sizes) for y, s, _qid, sizes in cases], CUTS)
    pairs = [(f"{m}@{k}", f"{m}@{k}", {}) for m in ("ndcg", "map") for k in CUTS]
    _compare_long(cases, peer, pairs, "lightgbm", rng)


def _xgboost_cases(rng, n_cases, **kwargs):
    cases = []
    for _ in range(n_cases):
        y, scores, qid, sizes = _long_case(rng, **kwargs)
        if rng.random() < 0.4:  # nudged below float32 resolution: ties in XGBoost
            scores = scores * (1 + 1e-9 * (rng.random(scores.size) < 0.5))
        cases.append((y, scores, qid, sizes))
    return cases


def _check_xgboost(rng, cases, pairs):
    pytest.importorskip("xgboost")
    peer = _xgboost_batch(
        [(y, s, sizes) for y, s, _qid, sizes in cases], [peer for peer, _, _ in pairs]
    )
    _compare_long(cases, peer, pairs, "xgboost", rng)


@pytest.mark.parametrize("seed", range(4))
def test_xgboost_ndcg(seed):
    rng = np.random.default_rng(4000 + seed)
    pairs = [(f"ndcg@{k}", f"ndcg@{k}", {}) for k in CUTS]
    pairs += [(f"ndcg@{k}-", f"ndcg@{k}", {"no_relevant": 0.0}) for k in CUTS]
    _check_xgboost(rng, _xgboost_cases(rng, 50), pairs)


@pytest.mark.parametrize("seed", range(4))
def test_xgboost_map(seed):
    """map accepts binary labels only."""
    rng = np.random.default_rng(5000 + seed)
    pairs = [(f"map@{k}", f"map@{k}", {}) for k in CUTS]
    pairs += [(f"map@{k}-", f"map@{k}", {"no_relevant": 0.0}) for k in CUTS]
    _check_xgboost(rng, _xgboost_cases(rng, 50, binary=True), pairs)


@pytest.mark.parametrize("seed", range(2))
def test_xgboost_precision(seed):
    """pre@k divides by min(k, group size); binary labels only."""
    rng = np.random.default_rng(6000 + seed)
    pairs = [(f"pre@{k}", f"precision@{k}", {}) for k in CUTS]
    _check_xgboost(rng, _xgboost_cases(rng, 50, binary=True), pairs)


@pytest.mark.parametrize("seed", range(2))
def test_xgboost_without_cut_off_is_top_32(seed):
    """XGBoost's ndcg and map without @k stop at 32 rows (LambdaRankParam's default top-k)."""
    rng = np.random.default_rng(7000 + seed)
    pairs = [
        ("ndcg", "ndcg", {}),
        ("ndcg-", "ndcg", {"no_relevant": 0.0}),
        ("map", "map", {}),
        ("map-", "map", {"no_relevant": 0.0}),
    ]
    _check_xgboost(
        rng,
        _xgboost_cases(rng, 30, max_queries=4, max_items=45, p_relevant=0.15, binary=True),
        pairs,
    )


# --------------------------------------------------------------------------------------------
# CatBoost
# --------------------------------------------------------------------------------------------


def _catboost_values(y, scores, sizes, metrics):
    """CatBoost's metrics (catboost.utils.eval_metric with group_id) of the whole case and
    of each query alone, as `_compare_long` takes them."""
    from catboost.utils import eval_metric

    def values(part):
        group_id = np.repeat(np.arange(len(sizes)), sizes)[part]
        return {m: eval_metric(y[part], scores[part], m, group_id=group_id)[0] for m in metrics}

    return values(slice(None)), [values(part) for part in _query_slices(sizes)]


@pytest.mark.parametrize("seed", range(3))
def test_catboost_ndcg_and_map(seed):
    """CatBoost breaks ties in the prediction by label ascending, gives a query without gain
    NDCG 1 and MAP 0, and keeps predictions in double (nudges of 1e-9 are not ties)."""
    pytest.importorskip("catboost")
    rng = np.random.default_rng(8000 + seed)
    cases = []
    for _ in range(30):
        y, scores, qid, sizes = _long_case(rng)
        if rng.random() < 0.3:
            scores = scores + 1e-9 * (rng.random(scores.size) < 0.5)
        cases.append((y, scores, qid, sizes))
    pairs = [(f"NDCG:top={k};type=Base", f"ndcg@{k}", {}) for k in CUTS]
    pairs += [(f"NDCG:top={k};type=Exp", f"ndcg@{k}", {"gain": "exponential"}) for k in CUTS]
    pairs += [(f"MAP:top={k}", f"map@{k}", {}) for k in CUTS]
    pairs += [("NDCG", "ndcg", {}), ("MAP", "map", {})]
    peer = [_catboost_values(y, s, sizes, [p for p, _, _ in pairs]) for y, s, _q, sizes in cases]
    _compare_long(cases, peer, pairs, "catboost", rng)


def test_catboost_map_counts_labels_above_its_border():
    """MAP's border 0.5: a float32 label counts when above it, as with the preset's
    threshold (the smallest float32 above 0.5)."""
    pytest.importorskip("catboost")
    labels = [0.0, 0.25, 0.5, float(np.nextafter(np.float32(0.5), np.float32(1))), 0.75, 2.0]
    rng = np.random.default_rng(8100)
    for label in labels:
        y = np.array([0.0, label, 0.0, label, 0.0])
        scores = rng.permutation(5) / 4.0
        sizes = np.array([5])
        mean, _per_query = _catboost_values(y, scores, sizes, ["MAP"])
        got = sr.evaluate(y, scores, ["map"], groups=np.zeros(5), convention="catboost")
        _assert_close(got["map"], mean["MAP"], 1e-12, label)


@pytest.mark.parametrize("seed", range(3))
def test_relevance_ascending_tie_break_is_input_order_after_sorting_by_relevance(seed):
    """The reference: long-format rows sorted by relevance first, then ties by input order.
    Every input form (long, dense and sparse matrices, item rows) agrees with it, per
    query, for every metric."""
    import scipy.sparse

    rng = np.random.default_rng(8200 + seed)
    names = [
        f"{m}@{k}" for m in ("ndcg", "map", "precision", "mrr", "hit_rate", "auc") for k in (1, 3)
    ] + ["ndcg", "map", "mrr", "arp", "kendall_tau"]
    stable = {"ties": "stable", "no_relevant": 0.0}
    for _ in range(20):
        n_queries, n_items = int(rng.integers(1, 6)), int(rng.integers(1, 9))
        y = _relevance(rng, (n_queries, n_items))
        scores = _tied_scores(rng, (n_queries, n_items))
        qid = np.repeat(np.arange(n_queries), n_items)
        flat_y, flat_s = y.ravel(), scores.ravel()
        order = np.argsort(flat_y, kind="stable")  # relevance first, then input order
        expected = sr.evaluate(
            flat_y[order], flat_s[order], names, groups=qid[order], per_query=True, **stable
        )
        # The reordering changes the first-appearance order of the queries: map back.
        back = np.argsort(sr.query_ids(qid[order]))
        expected = {name: values[back] for name, values in expected.items()}
        items = np.tile(np.arange(n_items), n_queries)
        forms = {
            "long": (flat_y, flat_s, {"groups": qid}),
            "dense": (y, scores, {}),
            "sparse": (scipy.sparse.csr_matrix(y), scores, {}),
            "items": (
                sr.ItemJudgments(qid, items, flat_y),
                sr.ItemRanking(qid, items, flat_s),
                {},
            ),
        }
        for form, (truth, run, extra) in forms.items():
            got = sr.evaluate(
                truth,
                run,
                names,
                per_query=True,
                tie_break="relevance_ascending",
                **stable,
                **extra,
            )
            for name in names:
                np.testing.assert_allclose(
                    got[name], expected[name], rtol=0, atol=1e-12, err_msg=f"{form} {name}"
                )
