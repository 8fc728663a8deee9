"""The training-time adapters (sklearn_rank/integrations) give the numbers they promise.

- Under the matching preset, an adapter's value at every boosting round equals the
  library's built-in metric on the same model (LightGBM ``ndcg@k``/``map@k``; XGBoost
  ``ndcg@k``/``map@k``) at cut-offs 1, 3, 5, 10, on data with queries without a relevant
  item; predictions of small trees are heavily tied. Tolerance 1e-9: both libraries rank
  the same scores (XGBoost's float32 ones, which the preset reads as float32) and add in
  double. XGBoost logs a custom metric with six decimals ("%f"), so its log is compared at
  1e-6 and full precision comes from calling the adapter on each round's predictions.
- Early stopping on the adapter stops at the built-in metric's best iteration.
- Under the default conventions an adapter equals `evaluate` on the same predictions.
- XGBRanker's once-per-query path gives each query's `evaluate` value, and XGBoost's own
  mean of them (size-weighted, one-row queries 1.0), round after round.
Models are tiny (a few rounds, one thread).
"""

import copy
import inspect
import pickle

import numpy as np
import pytest

import sklearn_rank as sr

CUTS = (1, 3, 5, 10)
ATOL = 1e-9
LOGGED_ATOL = 1e-6  # XGBoost prints custom metric values with "%f"


def make_data(seed, n_queries=50, binary=False):
    """Queries of 1-24 rows, graded (or binary) labels from a noisy linear model, about a
    fifth of the queries without any relevant item."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 25, n_queries)
    sizes[:3] = (1, 2, 30)
    n = int(sizes.sum())
    X = rng.normal(size=(n, 4))
    latent = X[:, 0] + 0.8 * X[:, 1] + rng.normal(size=n)
    y = (latent > 1.0).astype(int) if binary else np.digitize(latent, [0.5, 1.2, 2.0])
    starts = np.cumsum(sizes) - sizes
    for start, size in zip(starts, sizes):
        if rng.random() < 0.2:
            y[start : start + size] = 0
    return X, y, sizes


def qid_of(sizes):
    return np.repeat(np.arange(len(sizes)), sizes)


# --------------------------------------------------------------------------------------------
# LightGBM
# --------------------------------------------------------------------------------------------

LGBM = dict(
    num_leaves=4,
    min_child_samples=3,
    learning_rate=0.3,
    n_jobs=1,
    deterministic=True,
    verbose=-1,
)


def _lgbm_fit(metric_params, fit_params, n_estimators=8):
    lightgbm = pytest.importorskip("lightgbm")
    X, y, sizes = make_data(0)
    Xv, yv, sizes_v = make_data(1, n_queries=40)
    model = lightgbm.LGBMRanker(n_estimators=n_estimators, **LGBM, **metric_params)
    model.fit(X, y, group=sizes, eval_X=(Xv,), eval_y=(yv,), eval_group=[sizes_v], **fit_params)
    return model, (Xv, yv, sizes_v)


def test_lightgbm_adapter_equals_builtin_every_round():
    names = [f"{m}@{k}" for m in ("ndcg", "map") for k in CUTS]
    builtin, _ = _lgbm_fit({"metric": ["ndcg", "map"]}, {"eval_at": list(CUTS)})
    metric = sr.lightgbm_metric(names, convention="lightgbm")
    adapted, (Xv, yv, sizes_v) = _lgbm_fit({"metric": "None"}, {"eval_metric": metric})
    expected, got = builtin.evals_result_["valid_0"], adapted.evals_result_["valid_0"]
    assert set(got) == set(names)
    for name in names:
        assert len(got[name]) == 8
        np.testing.assert_allclose(got[name], expected[name], rtol=0, atol=ATOL, err_msg=name)
    # The data exercise what the preset is about: ties and queries with nothing relevant.
    scores = adapted.predict(Xv, num_iteration=1)
    assert np.unique(scores).size < scores.size / 10
    relevant = np.bincount(qid_of(sizes_v), weights=yv > 0)
    assert (relevant == 0).sum() >= 3


def test_lightgbm_early_stopping_picks_the_builtin_best_iteration():
    lightgbm = pytest.importorskip("lightgbm")
    stop = [lightgbm.early_stopping(3, first_metric_only=True, verbose=False)]
    builtin, _ = _lgbm_fit({"metric": "ndcg"}, {"eval_at": [5], "callbacks": stop}, n_estimators=60)
    metric = sr.lightgbm_metric("ndcg@5", convention="lightgbm")
    adapted, _ = _lgbm_fit(
        {"metric": "None"}, {"eval_metric": metric, "callbacks": stop}, n_estimators=60
    )
    assert 1 <= builtin.best_iteration_ < 55  # it did stop early
    assert adapted.best_iteration_ == builtin.best_iteration_
    assert adapted.best_score_["valid_0"]["ndcg@5"] == pytest.approx(
        builtin.best_score_["valid_0"]["ndcg@5"], abs=ATOL
    )


def test_lightgbm_train_feval_with_two_eval_sets():
    """lightgbm.train passes (preds, Dataset): the training and the validation Dataset
    alternate every round, each keeps its own cached structure."""
    lightgbm = pytest.importorskip("lightgbm")
    X, y, sizes = make_data(2)
    Xv, yv, sizes_v = make_data(3, n_queries=30)
    params = dict(objective="lambdarank", num_leaves=4, min_data_in_leaf=3, verbose=-1)
    params.update(num_threads=1, deterministic=True, learning_rate=0.3)
    logs = []
    for extra, feval in (
        ({"metric": "ndcg", "eval_at": [3]}, None),
        ({"metric": "None"}, sr.lightgbm_metric("ndcg@3", convention="lightgbm")),
    ):
        train = lightgbm.Dataset(X, y, group=sizes)
        valid = lightgbm.Dataset(Xv, yv, group=sizes_v, reference=train)
        log = {}
        lightgbm.train(
            {**params, **extra},
            train,
            num_boost_round=6,
            valid_sets=[train, valid],
            valid_names=["train", "valid"],
            feval=feval,
            callbacks=[lightgbm.record_evaluation(log)],
        )
        logs.append(log)
        if feval is not None:
            assert len(feval._cache) == 2
    for data in ("train", "valid"):
        np.testing.assert_allclose(
            logs[1][data]["ndcg@3"], logs[0][data]["ndcg@3"], rtol=0, atol=ATOL
        )


def test_lightgbm_query_weights_are_the_mean_row_weight():
    """LightGBM weights a query by the mean of its rows' weights in its ranking metrics, but
    adds 1 for a query without a relevant item whatever its weight (rank_metric.hpp): the
    two agree where those queries weigh 1. LightGBM keeps weights in float32: 1e-6."""
    _Xv, yv, sizes_v = make_data(1, n_queries=40)  # _lgbm_fit's eval set
    rng = np.random.default_rng(6)
    weights = rng.integers(1, 24, yv.size) / 8.0  # not constant in a query
    qid = qid_of(sizes_v)
    nothing_relevant = np.bincount(qid, weights=yv > 0) == 0
    assert 3 <= nothing_relevant.sum() < sizes_v.size
    weights[nothing_relevant[qid]] = 1.0
    builtin, _ = _lgbm_fit({"metric": "ndcg"}, {"eval_at": [3], "eval_sample_weight": [weights]})
    adapted, _ = _lgbm_fit(
        {"metric": "None"},
        {
            "eval_metric": sr.lightgbm_metric("ndcg@3", convention="lightgbm"),
            "eval_sample_weight": [weights],
        },
    )
    np.testing.assert_allclose(
        adapted.evals_result_["valid_0"]["ndcg@3"],
        builtin.evals_result_["valid_0"]["ndcg@3"],
        rtol=0,
        atol=1e-6,
    )
    unweighted, _ = _lgbm_fit({"metric": "ndcg"}, {"eval_at": [3]})
    assert not np.allclose(
        unweighted.evals_result_["valid_0"]["ndcg@3"],
        builtin.evals_result_["valid_0"]["ndcg@3"],
        rtol=0,
        atol=1e-3,
    )


DEFAULT_NAMES = ["ndcg@3", "ndcg", "map@5", "mrr", "precision@3", "recall@5", "arp", "auc"]


def _random_case(seed):
    """Long-format predictions with heavy ties and queries without a relevant item."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 15, 40)
    n = int(sizes.sum())
    y = rng.integers(0, 4, n) * (rng.random(n) < 0.35)
    scores = rng.integers(0, 4, n) / 3.0
    return y, scores, sizes


@pytest.mark.parametrize("seed", range(3))
def test_lightgbm_adapter_equals_evaluate_under_default_conventions(seed):
    y, scores, sizes = _random_case(seed)
    metric = sr.lightgbm_metric(DEFAULT_NAMES)
    got = metric(y.astype(np.float32), scores, None, sizes)
    expected = sr.evaluate(y, scores, DEFAULT_NAMES, groups=qid_of(sizes))
    assert [name for name, _, _ in got] == DEFAULT_NAMES
    for name, value, higher in got:
        assert value == pytest.approx(expected[name], abs=1e-12, rel=0), name
        assert higher is (name != "arp")
    # Per-row weights constant within queries are the per-query weights of evaluate.
    per_query = np.random.default_rng(seed).uniform(0.5, 2.0, sizes.size)
    got = dict((n, v) for n, v, _ in metric(y, scores, np.repeat(per_query, sizes), sizes))
    expected = sr.evaluate(y, scores, DEFAULT_NAMES, groups=qid_of(sizes), sample_weight=per_query)
    for name in DEFAULT_NAMES:
        assert got[name] == pytest.approx(expected[name], abs=1e-12, rel=0), name


def test_lightgbm_adapter_reuses_the_structure_of_an_eval_set():
    y, scores, sizes = _random_case(7)
    metric = sr.lightgbm_metric("ndcg@3")
    labels = y.astype(np.float32)
    first = metric(labels, scores, None, sizes)
    cached = next(iter(metric._cache.values()))[1]
    for round_ in range(3):  # new predictions, same arrays: the same structure object
        new = scores + round_
        assert metric(labels, new, None, sizes) == first
        assert next(iter(metric._cache.values()))[1] is cached
    # Equal arrays that are other objects are the same eval set too.
    metric(labels.copy(), scores, None, sizes.copy())
    assert {id(entry[1]) for entry in metric._cache.values()} == {id(cached)}
    # Another eval set gets its own entry and its own value.
    y2, scores2, sizes2 = _random_case(8)
    value = metric(y2, scores2, None, sizes2)[1]
    assert value == pytest.approx(
        sr.evaluate(y2, scores2, ["ndcg@3"], groups=qid_of(sizes2))["ndcg@3"], abs=1e-12
    )


# --------------------------------------------------------------------------------------------
# XGBoost
# --------------------------------------------------------------------------------------------


def _xgb_train(metric_names, custom=None, rounds=8, binary=False, **train_kwargs):
    xgboost = pytest.importorskip("xgboost")
    X, y, sizes = make_data(10, binary=binary)
    Xv, yv, sizes_v = make_data(11, n_queries=40, binary=binary)
    train = xgboost.DMatrix(X, label=y, qid=qid_of(sizes))
    valid = xgboost.DMatrix(Xv, label=yv, qid=qid_of(sizes_v))
    params = {"objective": "rank:ndcg", "max_depth": 2, "eta": 0.3, "nthread": 1}
    params["eval_metric"] = metric_names
    if custom is not None:
        params["disable_default_eval_metric"] = True
        del params["eval_metric"]
    log = {}
    booster = xgboost.train(
        params,
        train,
        rounds,
        evals=[(train, "train"), (valid, "valid")],
        custom_metric=custom,
        evals_result=log,
        verbose_eval=False,
        **train_kwargs,
    )
    return booster, log, valid


@pytest.mark.parametrize(
    "metric, binary", [("ndcg", False), ("map", True)], ids=["ndcg", "map-binary"]
)
def test_xgboost_adapter_equals_builtin_every_round(metric, binary):
    """XGBoost's map takes binary labels only."""
    names = [f"{metric}@{k}" for k in CUTS]
    booster, expected, valid = _xgb_train(names, binary=binary)
    adapter = sr.xgboost_metric(names, convention="xgboost")
    _b, logged, _v = _xgb_train(names, custom=adapter, binary=binary)
    for data in ("train", "valid"):
        for name in names:
            np.testing.assert_allclose(
                logged[data][name], expected[data][name], rtol=0, atol=LOGGED_ATOL
            )
    # Full precision: the adapter on each round's predictions.
    for i in range(8):
        margin = booster.predict(valid, output_margin=True, iteration_range=(0, i + 1))
        for name, value in adapter(margin, valid):
            assert value == pytest.approx(expected["valid"][name][i], abs=ATOL, rel=0)


def test_xgboost_early_stopping_picks_the_builtin_best_iteration():
    xgboost = pytest.importorskip("xgboost")
    builtin, _, _ = _xgb_train(["ndcg@5"], rounds=60, early_stopping_rounds=3)
    adapter = sr.xgboost_metric("ndcg@5", convention="xgboost")
    stop = xgboost.callback.EarlyStopping(
        rounds=3, metric_name="ndcg@5", data_name="valid", maximize=True
    )
    adapted, _, _ = _xgb_train(None, custom=adapter, rounds=60, callbacks=[stop])
    assert builtin.best_iteration < 55
    assert adapted.best_iteration == builtin.best_iteration


@pytest.mark.parametrize("seed", range(3))
def test_xgboost_adapter_equals_evaluate_under_default_conventions(seed):
    xgboost = pytest.importorskip("xgboost")
    y, scores, sizes = _random_case(seed)
    data = xgboost.DMatrix(np.zeros((y.size, 1)), label=y, qid=qid_of(sizes))
    metric = sr.xgboost_metric(DEFAULT_NAMES)
    got = dict(metric(scores, data))
    expected = sr.evaluate(y, scores, DEFAULT_NAMES, groups=qid_of(sizes))
    for name in DEFAULT_NAMES:
        assert got[name] == pytest.approx(expected[name], abs=1e-12, rel=0), name
    # XGBoost's ranking weights are one per query, float32. (A DMatrix is read once.)
    weights = np.random.default_rng(seed).uniform(0.5, 2.0, sizes.size).astype(np.float32)
    data = xgboost.DMatrix(np.zeros((y.size, 1)), label=y, qid=qid_of(sizes), weight=weights)
    got = dict(metric(scores, data))
    expected = sr.evaluate(y, scores, DEFAULT_NAMES, groups=qid_of(sizes), sample_weight=weights)
    for name in DEFAULT_NAMES:
        assert got[name] == pytest.approx(expected[name], abs=1e-12, rel=0), name


@pytest.mark.parametrize("name", ["ndcg@3", "mrr", "map"])
def test_xgbranker_per_query_path(name):
    """XGBoost's own per-query wrapper, given chosen predictions for four rounds: each
    query's value is evaluate's; XGBoost averages them weighted by query size and scores
    one-row queries 1.0. The first round ranks every query alone, the others in one pass."""
    xgboost = pytest.importorskip("xgboost")
    from xgboost.sklearn import ltr_metric_decorator

    y, _scores, sizes = _random_case(20)
    data = xgboost.DMatrix(np.zeros((y.size, 1)), label=y, qid=qid_of(sizes))
    metric = sr.xgboost_metric(name)
    wrapped = ltr_metric_decorator(metric, n_jobs=2)
    rng = np.random.default_rng(21)
    for _round in range(4):
        scores = (rng.integers(0, 4, y.size) / 3.0).astype(np.float32)
        label, mean = wrapped(scores, data)
        per_query = sr.evaluate(y, scores, [name], groups=qid_of(sizes), per_query=True)[name]
        per_query = np.where(sizes == 1, 1.0, per_query)
        assert label == name
        assert mean == pytest.approx(np.average(per_query, weights=sizes), abs=1e-12, rel=0)
    state = next(iter(metric._per_query.states.values()))[1]
    assert len(state.seen) == (sizes > 1).sum()  # only the first round ranked alone


def test_xgbranker_logs_the_per_query_values():
    """Trained through XGBRanker: the log is XGBoost's size-weighted mean of the adapter's
    per-query values (evaluate's), one-row queries 1.0."""
    xgboost = pytest.importorskip("xgboost")
    X, y, sizes = make_data(30)
    qid = qid_of(sizes)
    model = xgboost.XGBRanker(
        n_estimators=4,
        max_depth=2,
        n_jobs=2,
        eval_metric=sr.xgboost_metric("ndcg@5"),
        disable_default_eval_metric=True,
    )
    model.fit(X, y, qid=qid, eval_set=[(X, y)], eval_qid=[qid], verbose=False)
    logged = model.evals_result()["validation_0"]["ndcg@5"]
    data = xgboost.DMatrix(X, qid=qid)
    for i, value in enumerate(logged):
        margin = model.get_booster().predict(data, output_margin=True, iteration_range=(0, i + 1))
        per_query = sr.evaluate(y, margin, ["ndcg@5"], groups=qid, per_query=True)["ndcg@5"]
        per_query = np.where(sizes == 1, 1.0, per_query)
        assert value == pytest.approx(np.average(per_query, weights=sizes), abs=LOGGED_ATOL)


def test_xgbranker_path_refuses_what_it_cannot_do():
    with pytest.raises(ValueError, match="once per query.*one name"):
        sr.xgboost_metric(["ndcg@3", "map"])([1, 0], [0.5, 0.2])
    with pytest.raises(ValueError, match="no_relevant='skip'"):
        sr.xgboost_metric("ndcg", no_relevant="skip")([0, 0], [0.5, 0.2])


# --------------------------------------------------------------------------------------------
# The adapter objects
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("factory", [sr.lightgbm_metric, sr.xgboost_metric])
def test_adapters_pickle_copy_and_describe_themselves(factory):
    y, scores, sizes = _random_case(40)
    metric = factory([" ndcg@10", "arp"], convention="lightgbm", gain="linear")
    assert metric.names == ("ndcg@10", "arp")
    assert metric.greater_is_better == (True, False)
    assert metric.__name__ == "ndcg@10"
    assert repr(metric).endswith("(['ndcg@10', 'arp'], convention='lightgbm', gain='linear')")
    if factory is sr.lightgbm_metric:
        before = metric(y, scores, None, sizes)
    else:
        xgboost = pytest.importorskip("xgboost")
        data = xgboost.DMatrix(np.zeros((y.size, 1)), label=y, qid=qid_of(sizes))
        before = metric(scores, data)
        sizes = data
    assert metric._cache  # something to leave behind
    for other in (pickle.loads(pickle.dumps(metric)), copy.deepcopy(metric)):
        assert other._cache == {}
        assert other.names == metric.names
        after = (
            other(y, scores, None, sizes) if factory is sr.lightgbm_metric else other(scores, sizes)
        )
        assert after == before


@pytest.mark.parametrize("factory", [sr.lightgbm_metric, sr.xgboost_metric])
def test_adapters_validate_up_front(factory):
    with pytest.raises(ValueError, match="Unknown metric name 'ndgc@3'"):
        factory("ndgc@3")
    with pytest.raises(ValueError, match="at least one metric"):
        factory([])
    # A name given twice is computed once, as evaluate and the engines read names.
    assert factory(["ndcg@3", " NDCG@3", "map"]).names == ("ndcg@3", "map")
    with pytest.raises(ValueError, match="gain must be one of .*got 'exp'"):
        factory("ndcg@3", gain="exp")
    with pytest.raises(ValueError, match="tie_break='item_descending' needs item ids"):
        factory("ndcg@3", tie_break="item_descending")
    with pytest.raises(TypeError):
        factory("ndcg@3", k=3)


def test_default_k_of_a_preset_applies():
    """XGBoost's ndcg without @k stops at 32, as the preset says."""
    y = np.r_[np.zeros(40), 1.0]
    scores = -np.arange(41.0)  # the relevant item is 41st
    metric = sr.lightgbm_metric(["ndcg", "ndcg@40"], convention="xgboost")
    values = {name: value for name, value, _ in metric(y, scores, None, [41])}
    assert values == {"ndcg": 0.0, "ndcg@40": 0.0}
    assert sr.lightgbm_metric("ndcg")(y, scores, None, [41])[1] > 0


def test_lightgbm_adapter_needs_groups():
    with pytest.raises(ValueError, match="needs the eval set's query groups"):
        sr.lightgbm_metric("ndcg@3")([1, 0], [0.3, 0.1], None, None)
    with pytest.raises(ValueError, match="add up to its 3 rows"):
        sr.lightgbm_metric("ndcg@3")([1, 0, 0], [0.3, 0.1, 0.2], None, [2])
    with pytest.raises(ValueError, match="one score per row"):
        sr.lightgbm_metric("ndcg@3")([1, 0, 0], [0.3, 0.1], None, [3])


@pytest.mark.parametrize("name", ["lightgbm_metric", "xgboost_metric", "catboost_metric"])
def test_adapters_take_every_declared_convention(name):
    # Generated from the declarations, as evaluate's: none is written (or forgotten) by hand.
    from sklearn_rank.conventions._declarations import CONVENTION, CONVENTIONS

    function = getattr(sr, name)
    parameters = inspect.signature(function).parameters
    assert list(parameters) == ["metrics", "convention", *CONVENTIONS]
    doc = inspect.cleandoc(function.__doc__)
    for convention in CONVENTIONS:
        if convention != "no_relevant":
            assert CONVENTIONS[convention].numpydoc() in doc
    assert CONVENTION.numpydoc() in doc


def test_xgboost_per_query_path_checks_relevance_and_reads_the_eval_sets_top_grade():
    metric = sr.xgboost_metric("map")
    with pytest.raises(ValueError, match="y_true must be non-negative"):
        metric(np.array([2.0, -1.0, 1.0]), np.array([0.9, 0.8, 0.1]))
    # ERR's top grade is the eval set's (3 here), whether a query is computed alone (the
    # first round) or with the others (the later rounds).
    err = sr.xgboost_metric("err")
    labels = np.array([1.0, 0, 0, 3, 0, 1])
    scores = np.array([0.9, 0.5, 0.1, 0.2, 0.8, 0.4])
    rounds = [[err(labels[a:b], scores[a:b]) for a, b in ((0, 3), (3, 6))] for _ in range(3)]
    assert rounds[0] == rounds[1] == rounds[2]
    expected = sr.err_score(labels, scores, groups=[0, 0, 0, 1, 1, 1], per_query=True)
    np.testing.assert_array_equal(rounds[0], expected)
