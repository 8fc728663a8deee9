"""Defaults a recommender user relies on: users without test items, exclusion from top-N
lists, and train/test pairs of one synthetic task."""

import warnings

import numpy as np
import pytest
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


def test_arrays_keep_scikit_learns_rule_without_a_warning():
    y_true, y_score = [[0, 0, 0], [1, 0, 2]], [[0.3, 0.2, 0.1], [0.1, 0.5, 0.2]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sr.ndcg_score(y_true, y_score) == pytest.approx(skm.ndcg_score(y_true, y_score))
        assert sr.ndcg_score(y_true, y_score, per_query=True)[0] == 0.0
        groups = np.repeat([0, 1], 3)
        assert sr.ndcg_score(np.ravel(y_true), np.ravel(y_score), groups=groups) == (
            pytest.approx(skm.ndcg_score(y_true, y_score))
        )


def test_a_preset_keeps_its_tools_rule():
    # trec_eval counts a judged query without relevant documents as 0.
    truth = sr.ItemJudgments(["q1", "q2"], ["d1", "d1"], [1, 0])
    run = sr.ItemRanking(["q1", "q2"], ["d1", "d1"], [1.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sr.evaluate(truth, run, ["map"], convention="trec_eval") == {"map": 0.5}
        assert sr.evaluate(truth, run, ["ndcg"], convention="lightgbm") == {"ndcg": 1.0}
