"""Beyond-accuracy metrics on Dask: the numbers of `evaluate`, to the bit, per-user ones
per query and corpus-level ones merged from the partitions' item counts; the training
popularity from an in-memory table or one aggregation over a Dask table."""

import numpy as np
import pytest

import sklearn_rank as sr

dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")

from sklearn_rank.distributed import evaluate_dask  # noqa: E402

NAMES = [
    "coverage@10", "entropy@10", "entropy(weighting='users')@10", "gini@10",
    "gini(counts='lists')@10", "novelty@10", "novelty(average='slots')@10",
    "popularity@10", "aplt@10", "aclt@10", "efd@10", "epc@10", "mean_pop_rank@10",
    "diversity@10", "ndcg@10",
]  # fmt: skip


def _case(seed=0, n_users=150, n_items=40):
    rng = np.random.default_rng(seed)
    rows = []
    for user in range(n_users):
        for position, item in enumerate(rng.permutation(n_items)[: rng.integers(0, 13)]):
            rows.append((user, int(item), float(-position)))  # short and empty lists
    run = pd.DataFrame(rows, columns=["query", "item", "score"])
    truth = pd.DataFrame(
        {"query": rng.integers(0, n_users, 400), "item": rng.integers(0, n_items, 400)}
    ).drop_duplicates()
    truth["relevance"] = 1.0
    train = (rng.integers(0, 200, 900), np.minimum(rng.zipf(1.4, 900), n_items) - 1)
    features = rng.integers(0, 2, (n_items, 5)).astype(float)
    return run, truth, train, features, n_items


def _in_memory(run, truth, names, **kwargs):
    return sr.evaluate(
        sr.ItemJudgments(truth["query"], truth["item"], truth["relevance"]),
        sr.ItemRanking(run["query"], run["item"], run["score"]),
        names,
        ties="stable",
        no_relevant="skip",
        **kwargs,
    )


@pytest.mark.parametrize("npartitions", [1, 3])
def test_every_metric_equals_evaluate_to_the_bit(npartitions):
    run, truth, train, features, n_items = _case()
    side = dict(train=train, catalog=n_items, item_features=features)
    expected = _in_memory(run, truth, NAMES, **side)
    got = evaluate_dask(
        dd.from_pandas(run, npartitions=npartitions),
        NAMES,
        judgments=dd.from_pandas(truth, npartitions=2),
        ties="stable",
        no_relevant="skip",
        **side,
    )
    assert list(got) == NAMES
    assert got == expected


def test_a_dask_training_table_gives_the_same_popularity():
    run, truth, train, features, n_items = _case(1)
    names = ["novelty@10", "popularity@10", "aplt@10", "gini@10", "coverage@10"]
    expected = _in_memory(run, truth, names, train=train, catalog=n_items)
    table = dd.from_pandas(pd.DataFrame({"query": train[0], "item": train[1]}), npartitions=3)
    got = evaluate_dask(
        dd.from_pandas(run, npartitions=2),
        names,
        judgments=dd.from_pandas(truth, npartitions=2),
        train=table,
        catalog=n_items,
        ties="stable",
        no_relevant="skip",
    )
    assert got == expected


def test_per_user_values_per_query():
    run, truth, train, features, n_items = _case(2)
    names = ["novelty@5", "popularity@5", "diversity@5"]
    side = dict(train=train, catalog=n_items, item_features=features)
    expected = sr.evaluate(
        sr.ItemJudgments(truth["query"], truth["item"], truth["relevance"]),
        sr.ItemRanking(run["query"], run["item"], run["score"]),
        names, ties="stable", per_query="table", **side,
    )  # fmt: skip
    got = evaluate_dask(
        dd.from_pandas(run, npartitions=3), names, judgments=dd.from_pandas(truth, npartitions=2),
        ties="stable", per_query=True, **side,
    ).compute().set_index("query")  # fmt: skip
    for name in names:
        np.testing.assert_array_equal(got.loc[expected["query"], name].to_numpy(), expected[name])


def test_refusals_name_the_reason():
    run, truth, train, _features, n_items = _case(3)
    data, judgments = dd.from_pandas(run, npartitions=2), dd.from_pandas(truth, npartitions=1)
    with pytest.raises(ValueError, match="corpus-level"):
        evaluate_dask(data, ["coverage@5"], judgments=judgments, catalog=n_items, per_query=True)
    with pytest.raises(ValueError, match="training items"):
        evaluate_dask(data, ["serendipity@5"], judgments=judgments, train=train, catalog=n_items)
    with pytest.raises(ValueError, match="need the catalog"):
        evaluate_dask(data, ["coverage@5"], judgments=judgments)
