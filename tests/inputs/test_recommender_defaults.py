"""Defaults a recommender user relies on: users without test items, exclusion from top-N
lists, and train/test pairs of one synthetic task."""

import os
import warnings

import numpy as np
import pytest
import scipy.sparse
from sklearn import metrics as skm

import sklearn_rank as sr

# --------------------------------------------------------------------------------------
# Users without test items
# --------------------------------------------------------------------------------------


def test_users_without_test_items_are_left_out_with_item_ids():
    # Three users got recommendations; only u1 and u2 have test items (the usual split:
    # recommend to everyone, evaluate against the test interactions).
    truth = sr.ItemJudgments(["u1", "u2"], ["a", "b"])
    run = sr.ItemRanking.from_topn([["a", "c"], ["c", "b"], ["a", "b"]], queries=["u1", "u2", "u3"])
    with pytest.warns(UserWarning, match="1 of 3 queries have no relevant item"):
        assert sr.evaluate(truth, run, ["hit_rate@2", "mrr"]) == {"hit_rate@2": 1.0, "mrr": 0.75}
    with pytest.warns(UserWarning):
        per_user = sr.mean_reciprocal_rank_score(truth, run, per_query=True)
    np.testing.assert_array_equal(per_user, [1.0, 0.5, np.nan])
    # Explicit values: "skip" without a warning, 0 counts the user (the former default).
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sr.evaluate(truth, run, ["mrr"], no_relevant="skip") == {"mrr": 0.75}
        assert sr.evaluate(truth, run, ["mrr"], no_relevant=0) == {"mrr": 0.5}
    # Ranked lists: an empty test set is a user without test items.
    with pytest.warns(UserWarning, match="1 of 2 queries"):
        assert sr.recall_at_k_score([{"a"}, set()], [["a", "b"], ["b"]], k=2) == 1.0


def test_arrays_keep_scikit_learns_rule_and_say_so():
    # The default decides the mean here too (0 for a query without a relevant item): it
    # warns as the recommender's forms do; an explicit rule or a preset is silent.
    y_true, y_score = [[0, 0, 0], [1, 0, 2]], [[0.3, 0.2, 0.1], [0.1, 0.5, 0.2]]
    said = r"1 of 2 queries have no relevant item and were counted as 0, scikit-learn's value"
    with pytest.warns(UserWarning, match=said):
        assert sr.ndcg_score(y_true, y_score) == pytest.approx(skm.ndcg_score(y_true, y_score))
    with pytest.warns(UserWarning, match=said):
        assert sr.ndcg_score(y_true, y_score, per_query=True)[0] == 0.0
    groups = np.repeat([0, 1], 3)
    with pytest.warns(UserWarning, match=said):
        assert sr.ndcg_score(np.ravel(y_true), np.ravel(y_score), groups=groups) == (
            pytest.approx(skm.ndcg_score(y_true, y_score))
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for chosen in ({"no_relevant": 0}, {"convention": "sklearn"}):
            assert sr.ndcg_score(y_true, y_score, **chosen) == pytest.approx(
                skm.ndcg_score(y_true, y_score)
            )


def test_a_preset_keeps_its_tools_rule():
    # trec_eval counts a judged query without relevant documents as 0.
    truth = sr.ItemJudgments(["q1", "q2"], ["d1", "d1"], [1, 0])
    run = sr.ItemRanking(["q1", "q2"], ["d1", "d1"], [1.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sr.evaluate(truth, run, ["map"], convention="trec_eval") == {"map": 0.5}
        assert sr.evaluate(truth, run, ["ndcg"], convention="lightgbm") == {"ndcg": 1.0}


def test_a_score_matrix_and_its_top_n_ids_agree_on_users_without_test_items():
    # A sparse truth matrix is a recommender's form: its user 1, without a test item, is
    # left out of the mean whether the recommender gives scores or top-N ids (the score
    # matrix counted it as 0, silently: 0.5 against 1.0).
    truth = scipy.sparse.csr_matrix([[0, 1, 0], [0, 0, 0]])
    scores = np.array([[0.1, 0.9, 0.2], [0.3, 0.2, 0.1]])
    top = sr.ItemRanking.from_topn([[1, 2], [0, 1]])
    said = "1 of 2 queries have no relevant item and were left out of the mean"
    for run in (scores, top):
        with pytest.warns(UserWarning, match=said):
            assert sr.evaluate(truth, run, ["precision@1"]) == {"precision@1": 1.0}
        with pytest.warns(UserWarning, match=said):
            per_user = sr.evaluate(truth, run, ["precision@1"], per_query=True)
        np.testing.assert_array_equal(per_user["precision@1"], [1.0, np.nan])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert sr.evaluate(truth, run, ["precision@1"], no_relevant=0) == {"precision@1": 0.5}
    # Dense truth keeps scikit-learn's rule, and says so.
    with pytest.warns(UserWarning, match="were counted as 0, scikit-learn's value"):
        assert sr.evaluate(truth.toarray(), scores, ["precision@1"]) == {"precision@1": 0.5}


_MOVIELENS = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data", "ml-100k")


def _movielens_split(name):
    path = os.path.join(os.environ.get("SKLEARN_RANK_MOVIELENS", _MOVIELENS), name)
    if not os.path.exists(path):
        pytest.skip(f"MovieLens 100K is not at {path}")
    user, item, rating = np.loadtxt(path, dtype=np.int64, usecols=(0, 1, 2), unpack=True)
    return scipy.sparse.csr_matrix((rating, (user - 1, item - 1)), shape=(943, 1682))


def test_movielens_svd_scores_the_same_from_its_matrix_and_its_top_n_ids():
    # Issue 27: an SVD on u1.base/u1.test (relevant = rating >= 4) gave precision@10 0.1524
    # from its score matrix with exclude= and 0.3156 from its top-N ids.
    train, test = _movielens_split("u1.base"), _movielens_split("u1.test")
    truth = (test >= 4).astype(np.int64)
    seen = (train > 0).astype(np.int64)
    u, s, vt = np.linalg.svd(seen.toarray().astype(np.float64), full_matrices=False)
    scores = (u[:, :20] * s[:20]) @ vt[:20]
    unseen = np.where(seen.toarray() > 0, -np.inf, scores)
    top_ids = np.argsort(-unseen, axis=1, kind="stable")[:, :10]
    names = ["precision@10", "recall@10", "ndcg@10"]
    with pytest.warns(UserWarning, match="were left out of the mean"):
        from_matrix = sr.evaluate(truth, scores, names, exclude=seen)
    with pytest.warns(UserWarning, match="were left out of the mean"):
        from_ids = sr.evaluate(truth, sr.ItemRanking.from_topn(top_ids), names)
    assert from_matrix == from_ids
    # Users without a relevant test item are left out: the mean over the others.
    judged = np.flatnonzero(truth.getnnz(axis=1))
    assert 0 < judged.size < truth.shape[0]
    assert from_matrix == sr.evaluate(
        truth[judged], scores[judged], names, exclude=seen[judged], no_relevant=0
    )


# --------------------------------------------------------------------------------------
# exclude on top-N lists
# --------------------------------------------------------------------------------------


def test_exclude_that_shortens_top_n_lists_below_k_warns():
    truth = [{1}, {2}]
    exclude = np.zeros((2, 6))
    exclude[0, 0] = 1  # a training item of user 0, recommended in its top 3
    top3 = [[0, 1, 2], [2, 3, 4]]
    with pytest.warns(UserWarning, match=r"exclude left 1 of 2 ranked lists shorter than k=3"):
        values = sr.evaluate(truth, top3, ["precision@3", "mrr"], exclude=exclude)
    # The value is still that of the shorter list: 1 hit among 2 items, divided by k = 3.
    assert values == {"precision@3": pytest.approx(1 / 3), "mrr": 1.0}
    run = sr.ItemRanking.from_topn(np.array(top3))
    truth_rows = sr.ItemJudgments([0, 1], [1, 2])
    with pytest.warns(UserWarning, match=r"e\.g\. query 0: 3 ranked items, 2 left"):
        sr.precision_at_k_score(truth_rows, run, k=3, exclude=exclude)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Lists long enough for k after exclusion (N = k + training items), whole-list
        # metrics, and score matrices (every item scored) do not warn.
        sr.evaluate(truth, [[0, 1, 2, 3], [2, 3, 4, 5]], ["precision@3"], exclude=exclude)
        sr.evaluate(truth, top3, ["mrr", "map"], exclude=exclude)
        scores = np.random.default_rng(0).random((2, 6))
        sr.evaluate(np.eye(2, 6, 1), scores, ["precision@3"], exclude=exclude)


# --------------------------------------------------------------------------------------
# make_ranking: a training and a test set of one task
# --------------------------------------------------------------------------------------


def _fitted(**params):
    from sklearn.linear_model import Ridge

    from sklearn_rank.datasets import make_ranking

    X, y, groups = make_ranking(300, **params)
    return Ridge().fit(X, y), (X, y, groups)


def _cosine(a, b):
    return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))


def test_make_ranking_draws_samples_of_one_task_with_task_random_state():
    model, (X, y, _) = _fitted(task_random_state=3, random_state=1)
    same, (X2, y2, groups2) = _fitted(task_random_state=3, random_state=2)
    other, (X3, y3, groups3) = _fitted(random_state=2)
    assert not np.array_equal(X, X2)  # another sample...
    assert _cosine(model.coef_, same.coef_) > 0.99  # ...of the same rule
    assert abs(_cosine(model.coef_, other.coef_)) < 0.9  # seeds alone: another task
    on_same = sr.ndcg_score(y2, model.predict(X2), k=10, groups=groups2)
    on_other = sr.ndcg_score(y3, model.predict(X3), k=10, groups=groups3)
    assert on_same > on_other + 0.2
    # Both samples are labelled by the same cut points: grade frequencies 1/2, 1/4, ...
    for labels in (y, y2):
        np.testing.assert_allclose(
            np.bincount(labels, minlength=5)[:3] / labels.size, [0.5, 0.25, 0.125], atol=0.03
        )


def test_make_ranking_default_is_unchanged_by_the_task_parameter():
    from sklearn_rank.datasets import make_ranking

    for a, b in zip(make_ranking(30, random_state=5), make_ranking(30, random_state=5)):
        np.testing.assert_array_equal(a, b)
    # The labels make_ranking(50, random_state=0) gave before task_random_state existed.
    y = make_ranking(50, random_state=0)[1]
    assert y[:20].tolist() == [1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0]
