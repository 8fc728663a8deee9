"""Hand-made cases of trec_eval's measures, ERR and RBP from their papers' definitions and
closed forms; judged non-relevant against unjudged items in every input form; condensed
lists; sums and geometric means over queries."""

import math

import numpy as np
import pytest
import scipy.sparse

import sklearn_rank as sr
from sklearn_rank import ItemJudgments, ItemRanking


def _items(judgments, ranking):
    """judgments: {doc: grade}; ranking: docs best first (one query)."""
    truth = ItemJudgments(["q"] * len(judgments), list(judgments), list(judgments.values()))
    scores = -np.arange(len(ranking), dtype=float)
    return truth, ItemRanking(["q"] * len(ranking), ranking, scores)


# --- bpref (Buckley and Voorhees, SIGIR 2004) and infAP (Yilmaz and Aslam, CIKM 2006) ---------


@pytest.mark.parametrize(
    "judgments, ranking, expected",
    [
        # Each relevant item ranked below the only judged non-relevant one: no preference kept.
        ({"n": 0, "r1": 1, "r2": 1, "r3": 1}, ["n", "r1", "r2", "u", "r3"], 0.0),
        # Relevant items above every judged non-relevant item: all preferences kept.
        ({"n1": 0, "n2": 0, "r1": 1, "r2": 1}, ["r1", "u", "r2", "n1", "n2"], 1.0),
        # R = 2, N_J = 2: r1 below one of them (1 - 1/2), r2 below both (1 - 2/2).
        ({"n1": 0, "n2": 0, "r1": 1, "r2": 1}, ["n1", "r1", "n2", "r2"], 0.25),
        # Unjudged items are skipped; r2 is below the one judged non-relevant item, r3 is
        # never retrieved: (1 + 0 + 0) / 3.
        ({"n1": 0, "r1": 1, "r2": 1, "r3": 1}, ["u1", "r1", "u2", "n1", "r2"], 1 / 3),
        # N_J = 5 > R = 2: only min(N_J, R) = 2 non-relevant items count.
        (
            {**{f"n{i}": 0 for i in range(5)}, "r1": 1, "r2": 1},
            ["n0", "r1", "n1", "n2", "r2"],
            0.25,
        ),
    ],
)
def test_bpref_hand_made(judgments, ranking, expected):
    assert sr.bpref_score(*_items(judgments, ranking)) == pytest.approx(expected, abs=1e-15)


def test_infap_hand_made():
    # r at rank 1: 1. r at 0-based rank 3 with one relevant and one judged non-relevant
    # above (the unjudged one only enlarges the rank): [1 + 2 (1 + e)/(2 + 2e)] / 4 = 1/2.
    truth, run = _items({"r1": 1, "n": 0, "r2": 1}, ["r1", "u", "n", "r2"])
    assert sr.inferred_average_precision_score(truth, run) == pytest.approx(0.75, abs=1e-15)
    # A relevant item below only unjudged ones: (1 + 0) / (j + 1); R = 2 -> 1/3 / 2.
    truth, run = _items({"r1": 1, "r2": 1}, ["u1", "u2", "r1"])
    assert sr.inferred_average_precision_score(truth, run) == pytest.approx(1 / 6, abs=1e-15)
    # Complete judgments: infAP is AP up to e (Yilmaz and Aslam).
    truth, run = _items({"r1": 1, "n": 0, "r2": 1}, ["n", "r1", "r2"])
    assert sr.inferred_average_precision_score(truth, run) == pytest.approx(
        sr.mean_average_precision_score(truth, run), abs=1e-5
    )


# --- ERR and RBP: closed forms ------------------------------------------------------------------


def test_err_closed_forms():
    # rho = 3/4, 1/4, 0: 3/4 + (1/4)(1/4)/2.
    assert sr.err_score([[2, 1, 0]], [[3, 2, 1]], max_grade=2) == 0.78125
    # A cut-off stops the sum; max_grade None takes the truth's largest grade (2 here).
    assert sr.err_score([[2, 1, 0]], [[3, 2, 1]], k=1) == 0.75
    # Two tied items, grades 2 and 0: rho either at rank 1 or rank 2, (rho + rho/2) / 2.
    assert sr.err_score([[2, 0]], [[1, 1]], max_grade=2) == pytest.approx(0.5625, abs=1e-15)
    # Binary grades with rho = 1/2 (max_grade 1): the cascade halves at each relevant item.
    assert sr.err_score([[1, 1, 1]], [[3, 2, 1]]) == pytest.approx(
        0.5 + 0.25 / 2 + 0.125 / 3, abs=1e-15
    )
    with pytest.raises(ValueError, match="a grade of 3.0 is above max_grade=2.0"):
        sr.err_score([[3, 1]], [[1, 2]], max_grade=2)


def test_err_of_a_large_tie_group_equals_monte_carlo_free_symmetry():
    # All n items tied, one of grade g, the rest 0: its rank is uniform, and nothing above
    # it stops the user, so ERR = rho * mean(1 / rank) = rho * H_n / n.
    n = 300
    y_true = np.zeros((1, n))
    y_true[0, 7] = 2
    value = sr.err_score(y_true, np.zeros((1, n)), max_grade=2)
    harmonic = math.fsum(1.0 / i for i in range(1, n + 1))
    assert value == pytest.approx(0.75 * harmonic / n, rel=1e-12)


def test_rbp_closed_forms():
    p = 0.8
    # Every one of the top d relevant: (1 - p)(1 + p + ... + p**(d - 1)) = 1 - p**d.
    assert sr.rbp_score([[1, 1, 1, 0]], [[4, 3, 2, 1]], p=p) == pytest.approx(1 - p**3, abs=1e-15)
    # Ties are linear: a tied pair with one relevant item gives each rank half its weight.
    assert sr.rbp_score([[1, 0]], [[1, 1]], p=p) == pytest.approx((1 - p) * (1 + p) / 2)
    # The residual of a fully judged list is the weight below it, p**N.
    assert sr.rbp_residual([[1, 0, 1]], [[3, 2, 1]], p=p) == pytest.approx(p**3, abs=1e-15)
    # Unjudged items at ranks 2 and 4 of 4, cut at 3: (1 - p)(p + 0) + p**3 ... rank 4 is below.
    truth, run = _items({"a": 1, "c": 0}, ["a", "u1", "c", "u2"])
    assert sr.rbp_residual(truth, run, k=3, p=p) == pytest.approx((1 - p) * p + p**3)
    assert sr.rbp_residual(truth, run, p=p) == pytest.approx((1 - p) * (p + p**3) + p**4)
    assert sr.rbp_score(truth, run, p=p) == pytest.approx(1 - p)


# --- judged non-relevant against unjudged, in every input form ----------------------------------


def test_judged_non_relevant_and_unjudged_stay_distinct():
    # The same ranking; "b" judged non-relevant or not judged at all.
    judged = sr.evaluate(*_items({"a": 1, "b": 0}, ["b", "a"]), ["bpref", "judged@2"])
    unjudged = sr.evaluate(*_items({"a": 1}, ["b", "a"]), ["bpref", "judged@2"])
    assert judged == {"bpref": 1.0 - 1.0, "judged@2": 1.0}  # b outranks a: no preference kept
    assert unjudged == {"bpref": 1.0, "judged@2": 0.5}
    # Ranked lists: a dict key with value 0 is judged; an item outside the truth is not.
    assert sr.evaluate([{"a": 1, "b": 0}], [["b", "a"]], ["bpref", "judged@2"]) == judged
    assert sr.evaluate([{"a": 1}], [["b", "a"]], ["bpref", "judged@2"]) == unjudged
    assert sr.evaluate([{"a"}], [["b", "a"]], ["bpref", "judged@2"]) == unjudged
    # Dense matrices and long format judge every cell and row.
    assert sr.evaluate([[0, 1]], [[2, 1]], ["bpref", "judged@2"]) == judged
    assert sr.evaluate([0, 1], [2, 1], ["bpref", "judged@2"], groups=[0, 0]) == judged
    # Sparse truth judges its stored entries; explicit zeros are dropped (unjudged).
    stored = scipy.sparse.csr_matrix((np.array([0.0, 1.0]), ([0, 0], [0, 1])), shape=(1, 2))
    assert sr.evaluate(stored, [[2, 1]], ["bpref", "judged@2"]) == unjudged
    top_n = ItemRanking.from_topn(np.array([[0, 1]]))
    assert sr.evaluate(ItemJudgments([0, 0], [0, 1], [0, 1]), top_n, ["judged@2"]) == {
        "judged@2": 1.0
    }
    assert sr.evaluate(ItemJudgments([0], [1], [1]), top_n, ["judged@2"]) == {"judged@2": 0.5}


def test_trec_qrels_zero_is_judged(tmp_path):
    (tmp_path / "qrels").write_text("q 0 a 1\nq 0 b 0\n")
    (tmp_path / "run").write_text("q Q0 b 1 2.0 r\nq Q0 c 2 1.5 r\nq Q0 a 3 1.0 r\n")
    truth, run = sr.read_trec_qrels(tmp_path / "qrels"), sr.read_trec_run(tmp_path / "run")
    got = sr.evaluate(truth, run, ["num_nonrel_judged_ret", "unjudged@3", "bpref"])
    assert got == {"num_nonrel_judged_ret": 1.0, "unjudged@3": 1 / 3, "bpref": 0.0}


# --- condensed lists ------------------------------------------------------------------------------


def test_judged_only_removes_unjudged_items_in_every_form():
    names = ["map", "ndcg@3", "precision@2", "mrr", "bpref", "judged@3"]
    truth, run = _items({"a": 2, "b": 0, "c": 1}, ["u1", "b", "u2", "a", "c"])
    condensed = _items({"a": 2, "b": 0, "c": 1}, ["b", "a", "c"])
    expected = sr.evaluate(*condensed, names)
    assert sr.evaluate(truth, run, names, judged_only=True) == expected
    assert sr.evaluate(truth, run, names) != expected
    lists = ([{"a": 2, "b": 0, "c": 1}], [["u1", "b", "u2", "a", "c"]])
    assert sr.evaluate(*lists, names, judged_only=True) == expected
    # Sparse truth: the cells that are not stored leave the ranking.
    sparse = scipy.sparse.csr_matrix(np.array([[0.0, 2.0, 1.0, 0.0]]))
    scores = np.array([[4.0, 3.0, 2.0, 1.0]])
    got = sr.evaluate(sparse, scores, ["map", "precision@2"], judged_only=True)
    assert got == sr.evaluate([[2.0, 1.0]], [[3.0, 2.0]], ["map", "precision@2"])
    # Dense matrices and long format: every item is judged, nothing changes.
    dense = sr.evaluate([[0, 2, 1]], [[3, 2, 1]], names)
    assert sr.evaluate([[0, 2, 1]], [[3, 2, 1]], names, judged_only=True) == dense
    with pytest.raises(ValueError, match="judged_only must be True or False; got 1"):
        sr.evaluate(truth, run, names, judged_only=1)


# --- sums and geometric means over queries --------------------------------------------------------


def test_counts_sum_and_gm_map_is_a_geometric_mean():
    y_true = [[1, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]]
    y_score = [[4, 3, 2, 1], [4, 3, 2, 1], [4, 3, 2, 1]]
    names = ["num_ret", "num_rel", "num_rel_ret", "gm_map", "map"]
    per_query = sr.evaluate(y_true, y_score, names, per_query=True)
    ap = per_query["map"]
    np.testing.assert_array_equal(per_query["gm_map"], ap)
    weights = np.array([1.0, 2.0, 0.5])
    got = sr.evaluate(y_true, y_score, names, sample_weight=weights)
    assert got["num_ret"] == 4 * weights.sum()
    assert got["num_rel"] == 2 * 1.0 + 1 * 2.0 + 0 * 0.5
    assert got["num_rel_ret"] == got["num_rel"]
    logs = np.log(np.maximum(ap, 1e-5))
    assert got["gm_map"] == pytest.approx(math.exp((weights * logs).sum() / weights.sum()))
    # A query with no relevant item floors at 1e-5 (trec_eval): the geometric mean drops.
    assert got["gm_map"] < got["map"]


def test_counts_alone_skip_the_sort_and_agree_with_a_ranked_call():
    counts = ["num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"]
    rng = np.random.default_rng(8)
    y_true = rng.integers(0, 3, (6, 9)) * (rng.random((6, 9)) < 0.5)
    y_score = rng.integers(0, 3, (6, 9)).astype(float)
    truth, run = _items({"a": 1, "b": 0, "c": 2, "d": 0}, ["b", "x", "a", "y", "c"])
    top_n = (ItemJudgments([0, 0, 1], [0, 1, 2], [1, 0, 1]), ItemRanking.from_topn([[0, 1, 2]] * 2))
    groups = np.repeat(np.arange(6), 9)
    for args, kwargs in [
        ((y_true, y_score), {}),
        ((y_true.ravel(), y_score.ravel()), {"groups": groups}),
        ((truth, run), {}),
        (top_n, {}),
    ]:
        alone = sr.evaluate(*args, counts, per_query=True, **kwargs)
        ranked = sr.evaluate(*args, counts + ["map"], per_query=True, **kwargs)
        for name in counts:
            np.testing.assert_array_equal(alone[name], ranked[name], err_msg=name)
    assert sr.evaluate(truth, run, counts) == {
        "num_ret": 5.0,
        "num_rel": 2.0,
        "num_rel_ret": 2.0,
        "num_nonrel_judged_ret": 1.0,
    }
