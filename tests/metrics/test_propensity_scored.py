"""PSP@k and PSnDCG@k: the spec's worked example (SAMPLED_AND_CLICKS.md C), a slow obvious
implementation of pyxclib's formulas (pyxclib itself is not on PyPI and was not built here),
tie averaging, the whole-input ideal mean whatever the blocks of n_jobs."""

import itertools
import math

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.metrics import _blocks

# C: N = 1000, label counts (400, 20, 1), A = 0.55, B = 1.5; one instance, relevant {1, 2}.
PROPENSITY = sr.jain_propensity([400, 20, 1], n_train=1000)
Y_TRUE = [[0, 1, 1]]
Y_SCORE = [[0.9, 0.5, 0.1]]


def test_worked_example_c():
    np.testing.assert_allclose(1 / PROPENSITY, [1.361628, 2.809041, 6.907755], atol=5e-7)
    assert 1 / sr.jain_propensity([1], n_train=1000)[0] == pytest.approx(math.log(1000))
    for k, p, ndcg, psp, psndcg in [
        (1, 0.0, 0.0, 0.0, 0.0),
        (2, 0.5, 0.386853, 0.289091, 0.204181),
        (3, 0.666667, 0.693426, 1.0, 0.602091),
    ]:
        assert sr.precision_at_k_score(Y_TRUE, Y_SCORE, k=k) == pytest.approx(p, abs=5e-7)
        assert sr.ndcg_score(Y_TRUE, Y_SCORE, k=k) == pytest.approx(ndcg, abs=5e-7)
        got = sr.psp_score(Y_TRUE, Y_SCORE, k=k, propensity=PROPENSITY)
        assert got == pytest.approx(psp, abs=5e-7)
        got = sr.psndcg_score(Y_TRUE, Y_SCORE, k=k, propensity=PROPENSITY)
        assert got == pytest.approx(psndcg, abs=5e-7)
    unnormalised = sr.psp_score(Y_TRUE, Y_SCORE, k=2, propensity=PROPENSITY, ps_normalize="none")
    assert unnormalised == pytest.approx(1.404520, abs=5e-7)
    ideal = sr.psp_score(Y_TRUE, [[0.1, 0.5, 0.9]], k=2, propensity=PROPENSITY, ps_normalize="none")
    assert ideal == pytest.approx(4.858398, abs=5e-7)


def _pyxclib(y_true, y_score, inverse, k):
    """pyxclib's PSP@k and PSnDCG@k (xc_metrics.py), written out: ratios of the dataset means
    of the prediction's and the propensity-ideal ranking's values; also the means of the
    per-instance ratios and the unnormalised means."""
    sums = {key: 0.0 for key in ("psp", "psp_ideal", "nd", "nd_ideal")}
    ratios = {"psp": [], "nd": []}
    for truth, score in zip(y_true, y_score):
        order = np.argsort(-score, kind="stable")[:k]
        relevant = np.flatnonzero(truth)
        ideal = sorted(inverse[relevant], reverse=True)[:k]
        denominator = sum(1 / math.log2(r + 1) for r in range(1, min(k, relevant.size) + 1))
        psp = sum(truth[j] * inverse[j] for j in order) / k
        psp_ideal = sum(ideal) / k
        gain = sum(truth[j] * inverse[j] / math.log2(r + 2) for r, j in enumerate(order))
        ideal_gain = sum(w / math.log2(r + 2) for r, w in enumerate(ideal))
        nd = gain / denominator if relevant.size else 0.0
        nd_ideal = ideal_gain / denominator if relevant.size else 0.0
        for key, value in zip(sums, (psp, psp_ideal, nd, nd_ideal)):
            sums[key] += value
        if relevant.size:
            ratios["psp"].append(psp / psp_ideal)
            ratios["nd"].append(nd / nd_ideal)
    n = len(y_true)
    return {
        "psp": sums["psp"] / sums["psp_ideal"],
        "psndcg": sums["nd"] / sums["nd_ideal"],
        "psp_none": sums["psp"] / n,
        "psndcg_none": sums["nd"] / n,
        "psp_ratios": np.mean(ratios["psp"]),
        "psndcg_ratios": np.mean(ratios["nd"]),
    }


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equal_to_pyxclibs_formulas(seed):
    rng = np.random.default_rng(seed)
    n, labels = 60, 12
    y_true = (rng.random((n, labels)) < 0.2).astype(int)
    y_true[:3] = 0  # instances without a relevant label count in both means, as in pyxclib
    y_score = rng.random((n, labels))  # distinct scores: no ties to break
    counts = y_true.sum(axis=0) + rng.integers(0, 50, labels)
    propensity = sr.jain_propensity(counts, n_train=500, a=0.5, b=0.4)
    for k in (1, 3, 5, 12, 20):
        expected = _pyxclib(y_true, y_score, 1 / propensity, k)
        names = [f"psp@{k}", f"psndcg@{k}"]
        got = sr.evaluate(y_true, y_score, names, propensity=propensity)
        assert got[f"psp@{k}"] == pytest.approx(expected["psp"], rel=1e-12)
        assert got[f"psndcg@{k}"] == pytest.approx(expected["psndcg"], rel=1e-12)
        for form, suffix in (("none", "_none"), ("mean_of_ratios", "_ratios")):
            for name in ("psp", "psndcg"):
                function = getattr(sr, f"{name}_score")
                value = function(
                    y_true,
                    y_score,
                    k=k,
                    propensity=propensity,
                    ps_normalize=form,
                    no_relevant="skip",
                )
                assert value == pytest.approx(expected[name + suffix], rel=1e-12), (name, form)


@pytest.mark.parametrize("name", ["psp@2", "psndcg@3"])
def test_tied_scores_give_the_mean_over_every_ordering(name):
    y_true = np.array([[1, 0, 1, 1, 0, 1], [0, 1, 1, 0, 0, 0]])
    y_score = np.array([[2.0, 1.0, 2.0, 2.0, 0.0, 1.0], [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]])
    propensity = np.array([0.2, 0.9, 0.5, 0.3, 1.0, 0.7])
    average = sr.evaluate(y_true, y_score, [name], propensity=propensity, per_query=True)[name]
    values = []
    for order in itertools.permutations(range(6)):
        strict = y_score * 10 + np.argsort(order) / 10
        values.append(
            sr.evaluate(
                y_true, strict, [name], propensity=propensity, per_query=True, ties="stable"
            )[name]
        )
    np.testing.assert_allclose(average, np.mean(values, axis=0), rtol=1e-12)


def test_the_ideal_mean_is_the_whole_inputs(monkeypatch):
    # Blocks of queries on threads divide by the mean over every instance, not their own;
    # a batch given the whole dataset's ideal_mean gives the whole's per-instance values.
    monkeypatch.setattr(_blocks, "_MIN_BLOCK_ENTRIES", 8)
    rng = np.random.default_rng(4)
    y_true = (rng.random((40, 10)) < 0.3).astype(int)
    y_score = rng.integers(0, 4, (40, 10)).astype(float)
    propensity = rng.uniform(0.1, 1.0, 10)
    names = ["psp@3", "psndcg@3"]
    one = sr.evaluate(y_true, y_score, names, propensity=propensity, per_query=True)
    threads = sr.evaluate(y_true, y_score, names, propensity=propensity, per_query=True, n_jobs=2)
    for name in names:
        np.testing.assert_array_equal(threads[name], one[name])
    none = sr.psp_score(y_true, y_score, k=3, propensity=propensity, ps_normalize="none")
    ideal = none / sr.psp_score(y_true, y_score, k=3, propensity=propensity)
    batch = sr.psp_score(
        y_true[:10], y_score[:10], k=3, propensity=propensity, ideal_mean=ideal, per_query=True
    )
    np.testing.assert_allclose(batch, one["psp@3"][:10], rtol=1e-13)


def test_long_format_and_per_cell_propensities_equal_the_matrix():
    rng = np.random.default_rng(6)
    y_true = (rng.random((20, 7)) < 0.3).astype(int)
    y_score = rng.random((20, 7))
    propensity = rng.uniform(0.1, 1.0, 7)
    names = ["psp@3", "psndcg@3"]
    matrix = sr.evaluate(y_true, y_score, names, propensity=propensity)
    cells = sr.evaluate(y_true, y_score, names, propensity=np.tile(propensity, (20, 1)))
    groups = np.repeat(np.arange(20), 7)
    long = sr.evaluate(
        y_true.ravel(),
        y_score.ravel(),
        names,
        groups=groups,
        propensity=np.tile(propensity, 20),
    )
    assert cells == matrix
    assert long == pytest.approx(matrix, rel=1e-14)


def test_checked_up_front():
    with pytest.raises(ValueError, match="'psp' needs a cut-off: psp@K"):
        sr.evaluate(Y_TRUE, Y_SCORE, ["psp"], propensity=PROPENSITY)
    with pytest.raises(ValueError, match="'psndcg@2' needs propensity="):
        sr.evaluate(Y_TRUE, Y_SCORE, ["psndcg@2"])
    with pytest.raises(ValueError, match="ps_normalize must be"):
        sr.psp_score(Y_TRUE, Y_SCORE, k=2, propensity=PROPENSITY, ps_normalize="pyxclib")
    with pytest.raises(ValueError, match="n_train must be an integer of at least 3"):
        sr.jain_propensity([1, 2], n_train=2)
    with pytest.raises(ValueError, match="label_counts must be a 1-D array"):
        sr.jain_propensity([1, -2], n_train=100)
