"""Beyond-accuracy metrics as scorers: each split's value is `evaluate` on its test rows
with the popularity of its training fold (never the test fold's) and the whole catalog."""

import warnings

import numpy as np
import pytest
import sklearn
from sklearn.linear_model import Ridge
from sklearn.model_selection import GroupKFold, cross_validate

import sklearn_rank as sr

SCORING = ["ndcg@5", "coverage@5", "neg_popularity@5", "novelty@5", "neg_gini@5"]


def _data(seed=0, n_users=45, n_items=30, per_user=12):
    rng = np.random.default_rng(seed)
    users = np.repeat(np.arange(n_users), per_user)
    items = np.concatenate([rng.choice(n_items, per_user, replace=False) for _ in range(n_users)])
    popular = 1.0 / (1.0 + items)
    X = np.c_[popular, rng.random(users.size)]
    y = (rng.random(users.size) < 3 * popular).astype(float)
    return X, y, users, items


def _expected(model, X, y, users, items, train, test, name):
    """`evaluate` on the split's test rows, the training fold's positive rows as train."""
    predicted = model.predict(X[test])
    if name == "ndcg@5":  # a ranking metric: the rows as every ranking scorer reads them
        return sr.evaluate(y[test], predicted, [name], groups=users[test])[name]
    catalog = np.unique(items)
    kept = train[y[train] > 0]
    truth = sr.ItemJudgments(users[test], items[test], y[test])
    run = sr.ItemRanking(users[test], items[test], predicted)
    return sr.evaluate(truth, run, [name], train=(users[kept], items[kept]), catalog=catalog)[name]


@pytest.mark.filterwarnings("ignore:.*no relevant item")
def test_every_split_is_evaluate_with_its_training_fold():
    X, y, users, items = _data()
    folds = list(GroupKFold(3).split(X, y, users))
    result = sr.grouped_cross_validate(
        Ridge(),
        X,
        y,
        groups=users,
        scoring=SCORING,
        cv=folds,
        params={"item_ids": items},
        return_estimator=True,
    )
    for split, (train, test) in enumerate(folds):
        model = result["estimator"][split]
        for key in SCORING:
            name, sign = (key[4:], -1) if key.startswith("neg_") else (key, 1)
            expected = sign * _expected(model, X, y, users, items, train, test, name)
            assert result[f"test_{key}"][split] == expected, (key, split)


@pytest.mark.filterwarnings("ignore:.*no relevant item")
def test_the_test_folds_own_interactions_are_never_read():
    X, y, users, items = _data(1)
    folds = list(GroupKFold(3).split(X, y, users))
    result = sr.grouped_cross_validate(
        Ridge(),
        X,
        y,
        groups=users,
        scoring=["neg_popularity@5"],
        cv=folds,
        params={"item_ids": items},
        return_estimator=True,
    )
    # Popularity read from every row instead (the test fold's too) gives other values.
    every = np.flatnonzero(y > 0)
    leaked = []
    for split, (_train, test) in enumerate(folds):
        model = result["estimator"][split]
        truth = sr.ItemJudgments(users[test], items[test], y[test])
        run = sr.ItemRanking(users[test], items[test], model.predict(X[test]))
        leaked.append(
            -sr.evaluate(
                truth,
                run,
                ["popularity@5"],
                train=(users[every], items[every]),
                catalog=np.unique(items),
            )["popularity@5"]
        )
    assert not np.allclose(result["test_neg_popularity@5"], leaked)


@pytest.mark.filterwarnings("ignore:.*no relevant item")
def test_a_search_refits_within_a_coverage_bound():
    X, y, users, items = _data(2)
    search = sr.GroupedGridSearchCV(
        Ridge(),
        {"alpha": [0.01, 100.0]},
        scoring=["ndcg@5", "coverage@5"],
        refit=sr.BestWithinBounds("ndcg@5", lower={"coverage@5": 0.0}),
        cv=3,
    ).fit(X, y, groups=users, item_ids=items)
    coverage = search.cv_results_["mean_test_coverage@5"]
    assert np.all((coverage > 0) & (coverage <= 1))
    tight = sr.BestWithinBounds("ndcg@5", lower={"coverage@5": float(coverage.max())})
    assert tight(search.cv_results_) == int(np.argmax(coverage))


@pytest.mark.filterwarnings("ignore:.*no relevant item")
def test_one_prediction_scorer_equals_each_scorer_alone():
    X, y, users, items = _data(3)
    model = Ridge().fit(X, y)
    train = (users[y > 0], items[y > 0])
    novelty = sr.make_ranking_scorer("novelty@5", train=train)
    combined = sr.MultimetricRankingScorer(
        {
            "ndcg@5": sr.get_scorer("ndcg@5"),
            "coverage@5": sr.get_scorer("coverage@5"),
            "novelty@5": novelty,
        }
    )
    got = combined(model, X, y, groups=users, item_ids=items)
    assert got["coverage@5"] == sr.get_scorer("coverage@5")(
        model, X, y, groups=users, item_ids=items
    )
    assert got["novelty@5"] == novelty(model, X, y, groups=users, item_ids=items)
    assert got["ndcg@5"] == sr.get_scorer("ndcg@5")(model, X, y, groups=users)
    fixed = sr.make_ranking_scorer("novelty@5", train=train, catalog=np.unique(items))
    expected = sr.evaluate(
        sr.ItemJudgments(users, items, y),
        sr.ItemRanking(users, items, model.predict(X)),
        ["novelty@5"],
        train=train,
        catalog=np.unique(items),
    )["novelty@5"]
    assert fixed(model, X, y, groups=users, item_ids=items) == expected


@pytest.mark.filterwarnings("ignore:.*no relevant item")
def test_scikit_learns_cross_validate_routes_item_ids_to_a_scorer_with_fixed_inputs():
    X, y, users, items = _data(4)
    train = (users[y > 0], items[y > 0])
    scorer = sr.make_ranking_scorer("novelty@5", train=train, catalog=np.unique(items))
    with sklearn.config_context(enable_metadata_routing=True):
        result = cross_validate(
            Ridge(),
            X,
            y,
            cv=GroupKFold(3),
            scoring=scorer,
            params={"groups": users, "item_ids": items},
        )
    assert np.all(np.isfinite(result["test_score"])) and np.all(result["test_score"] > 0)


def test_without_training_data_the_error_says_where_it_comes_from():
    X, y, users, items = _data(6)
    model = Ridge().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"novelty reads item popularity.*grouped_cross"):
            sr.get_scorer("novelty@5")(model, X, y, groups=users, item_ids=items)


def test_without_item_ids_the_error_says_how_to_pass_them():
    X, y, users, _items = _data(5)
    model = Ridge().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=r"coverage@5: a beyond-accuracy scorer.*item_ids"):
            sr.get_scorer("coverage@5")(model, X, y, groups=users)


def test_side_inputs_are_refused_for_ranking_metrics():
    with pytest.raises(ValueError, match=r"train= is read by the beyond-accuracy metrics only"):
        sr.make_ranking_scorer("ndcg@5", train=([0], [1]))


def test_lower_is_better_beyond_names_are_negated():
    with pytest.raises(ValueError, match=r"'popularity@5' is lower-is-better.*neg_popularity@5"):
        sr.get_scorer("popularity@5")
    assert sr.get_scorer("neg_gini@5").sign == -1


@pytest.mark.filterwarnings("ignore:.*no relevant item")
def test_compare_search_pairs_the_per_user_measures_and_names_the_corpus_ones():
    X, y, users, items = _data(7)
    search = sr.GroupedGridSearchCV(
        Ridge(),
        {"alpha": [0.1, 1e4]},
        scoring=["ndcg@5", "novelty@5", "coverage@5"],
        refit="ndcg@5",
        cv=3,
    ).fit(X, y, groups=users, item_ids=items)
    # Each candidate's out-of-fold novelty of every user averages to its fold scores.
    values = search.per_query_results_["novelty@5"]
    assert values.shape == (np.unique(users).size, 2)
    folds = [search.cv_results_[f"split{i}_test_novelty@5"] for i in range(3)]
    codes = np.unique(users, return_inverse=True)[1]
    for split, (_train, test) in enumerate(GroupKFold(3).split(X, y, users)):
        kept = np.unique(codes[test])
        np.testing.assert_allclose(np.nanmean(values[kept], axis=0), folds[split], rtol=1e-12)
    result = sr.compare_search(search, metrics=["novelty@5"])
    np.testing.assert_array_equal(result.per_query["novelty@5"], values)
    with pytest.raises(ValueError, match=r"'coverage@5' has no per-query values to pair"):
        sr.compare_search(search, metrics=["coverage@5"])


@pytest.mark.filterwarnings("ignore:.*no relevant item")
@pytest.mark.parametrize(
    "key, params",
    [("gini(complement=True)@5", {}), ("gini@5", {"convention": "elliot"})],
)
def test_gini_as_a_diversity_is_scored_greater_is_better(key, params):
    # complement=True (Elliot's Gini) reports 1 - G, 1 for equal exposure: negating it
    # would make a search prefer the most concentrated recommendations.
    with pytest.raises(ValueError, match="greater-is-better already"):
        sr.make_ranking_scorer(f"neg_{key}", **params)
    scorer = sr.make_ranking_scorer(key, **params)
    X, y, users, items = _data()
    model = Ridge().fit(X, y)
    run = sr.ItemRanking(users, items, model.predict(X))
    truth = sr.ItemJudgments(users, items, y)
    expected = sr.evaluate(truth, run, [key], train=(users, items), catalog=30, **params)[key]
    scored = sr.make_ranking_scorer(key, train=(users, items), catalog=30, **params)
    assert scored(model, X, y, groups=users, item_ids=items) == expected > 0
    assert scorer.sign == 1


@pytest.mark.parametrize(
    "key, params",
    [("diversity(form='similarity')@5", {}), ("diversity@5", {"convention": "lenskit"})],
)
def test_intra_list_similarity_is_scored_lower_is_better(key, params):
    # form="similarity" (LensKit's ILS) is the mean pairwise similarity: the more diverse
    # list has the lower value, so its scorer is neg_, as every lower-is-better measure's.
    with pytest.raises(ValueError, match="lower-is-better"):
        sr.make_ranking_scorer(key, **params)
    X, y, users, items = _data()
    features = np.random.default_rng(0).random((30, 4))
    model = Ridge().fit(X, y)
    run = sr.ItemRanking(users, items, model.predict(X))
    truth = sr.ItemJudgments(users, items, y)
    kwargs = dict(item_features=features, catalog=30, **params)
    expected = sr.evaluate(truth, run, [key], **kwargs)[key]
    scorer = sr.make_ranking_scorer(f"neg_{key}", **kwargs)
    assert scorer.sign == -1
    assert scorer(model, X, y, groups=users, item_ids=items) == -expected < 0
    hamming = sr.make_ranking_scorer("diversity(form='similarity', similarity='hamming')@5")
    assert hamming.sign == 1  # a distance whatever the form
