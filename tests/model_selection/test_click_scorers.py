"""The click-log estimators as scorers: the propensities (or logged positions) are routed
to them as metadata, as ``groups`` is, and sliced with each fold."""

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupKFold

import sklearn_rank as sr


def _click_log(seed=0, n_queries=40, n_docs=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_queries * n_docs, 3))
    groups = np.repeat(np.arange(n_queries), n_docs)
    position = np.tile(np.arange(1, n_docs + 1), n_queries)
    relevant = X[:, 0] > 0.3
    clicks = (relevant & (rng.random(X.shape[0]) < 1.0 / position)).astype(int)
    return X, clicks, groups, position


def test_scorer_equals_evaluate_with_the_routed_propensities():
    X, clicks, groups, position = _click_log()
    model = Ridge().fit(X, clicks)
    propensity = 1.0 / position
    for name in ["ips_dcg@3", "ips_precision@2", "ips_hits@4", "neg_ips_rank_sum"]:
        scorer = sr.get_scorer(name)
        label = name.removeprefix("neg_")
        expected = sr.evaluate(
            clicks, model.predict(X), [label], groups=groups, propensity=propensity
        )[label]
        sign = -1.0 if name.startswith("neg_") else 1.0
        assert scorer(model, X, clicks, groups=groups, propensity=propensity) == sign * expected
    requests = sr.get_scorer("ips_dcg@3").get_metadata_routing().score.requests
    assert requests == {"groups": True, "sample_weight": None, "propensity": True, "position": True}
    # The other scorers request what they did.
    assert "propensity" not in sr.get_scorer("ndcg@3").get_metadata_routing().score.requests
    with pytest.raises(ValueError, match="'ips_dcg@3' needs propensity="):
        sr.get_scorer("ips_dcg@3")(model, X, clicks, groups=groups)


def test_grouped_cross_validate_routes_positions_fold_by_fold():
    X, clicks, groups, position = _click_log(seed=1)
    cv = GroupKFold(4)
    names = ["ips_dcg(eta=1)@3", "ndcg@3"]
    result = sr.grouped_cross_validate(
        Ridge(),
        X,
        clicks,
        groups=groups,
        scoring=names,
        cv=cv,
        params={"position": position},
        return_estimator=True,
    )
    for fold, (_train, test) in enumerate(cv.split(X, clicks, groups)):
        model = result["estimator"][fold]
        expected = sr.evaluate(
            clicks[test],
            model.predict(X[test]),
            names,
            groups=groups[test],
            position=position[test],
            no_relevant=0.0,  # the scorers' default here, without its warning
        )
        for name in names:
            assert result[f"test_{name}"][fold] == expected[name]


def test_grouped_search_routes_positions_to_fit_and_score():
    X, clicks, groups, position = _click_log(seed=2)
    search = sr.GroupedGridSearchCV(
        Ridge(), {"alpha": [0.1, 100.0]}, scoring="ips_dcg(eta=1)@3", cv=GroupKFold(3)
    )
    search.fit(X, clicks, groups=groups, position=position)
    for number, (_train, test) in enumerate(GroupKFold(3).split(X, clicks, groups)):
        model = Ridge(alpha=search.cv_results_["param_alpha"][0]).fit(
            X[np.setdiff1d(np.arange(X.shape[0]), test)],
            clicks[np.setdiff1d(np.arange(X.shape[0]), test)],
        )
        expected = sr.ips_dcg_score(
            clicks[test],
            model.predict(X[test]),
            k=3,
            groups=groups[test],
            position=position[test],
            eta=1.0,
        )
        assert search.cv_results_[f"split{number}_test_score"][0] == pytest.approx(
            expected, rel=1e-12
        )
    expected = sr.ips_dcg_score(
        clicks, search.predict(X), k=3, groups=groups, position=position, eta=1.0
    )
    assert search.score(X, clicks, groups=groups, position=position) == expected
