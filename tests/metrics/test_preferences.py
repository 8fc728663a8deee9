"""evaluate_preferences and evaluate_judgment_groups: the preference counts of
trec_eval's own documentation (get_prefs.c), the page's worked example, the refusals, and
judgment groups against evaluate on each group alone. Byte-for-byte agreement with the
trec_eval binary is tests/cli/test_trec_formats.py's."""

import numpy as np
import pytest
from _random_prefs import random_prefs
from _reference_prefs import query_values

import sklearn_rank as sr


def _prefs(rows):
    """GroupedJudgments from (query, group, subgroup, docno, level) tuples."""
    q, g, s, d, level = zip(*rows)
    objects = [np.array(column, dtype=object) for column in (q, g, s)]
    return sr.GroupedJudgments(*objects, np.array(d), np.array(level, dtype=float))


def _run(docs):
    """A run of query q1 ranking ``docs`` in that order."""
    return sr.ItemRanking(["q1"] * len(docs), docs, np.arange(len(docs), 0, -1.0))


# get_prefs.c: "establishes a total of 13 preferences (5 with docno4 preferred, 4 with
# docno1 preferred, 2 each with docno2 and docno6 preferred)".
THIRTEEN = [("q1", "u", "s", f"d{i}", v) for i, v in enumerate([3, 2, 0, 6, 0, 2], 1)]


def test_one_subgroup_prefers_every_higher_level():
    prefs = _prefs(THIRTEEN)
    best_first = sr.evaluate_preferences(prefs, _run(["d4", "d1", "d2", "d6", "d3", "d5"]))
    assert best_first["prefs_num_prefs_poss"] == 13
    assert best_first["prefs_num_prefs_ful"] == 13
    assert best_first["prefs_simp"] == best_first["prefs_pair"] == 1.0
    worst_first = sr.evaluate_preferences(prefs, _run(["d3", "d5", "d2", "d6", "d1", "d4"]))
    assert worst_first["prefs_num_prefs_ful"] == 0
    assert worst_first["prefs_simp"] == worst_first["prefs_avgjg"] == 0.0
    # Only d4 retrieved: its 5 preferences fulfilled (over unretrieved documents), the 8
    # others possible but not fulfilled; none between two retrieved documents.
    only_d4 = sr.evaluate_preferences(prefs, _run(["d4"]))
    assert only_d4["prefs_num_prefs_ful"] == 5 and only_d4["prefs_simp"] == 5 / 13
    assert only_d4["prefs_num_prefs_ful_ret"] == 0 and only_d4["prefs_simp_ret"] == 0.0
    assert only_d4["prefs_simp_imp"] == 1.0  # the 5 preferences with one retrieved


def test_subgroups_of_a_group_are_transitive():
    # get_prefs.c: "expresses 5 preferences (1>2, 1>3, 2>3, 2>4, 1>4)".
    rows = [("q1", "u", "s1", "d1", 3), ("q1", "u", "s1", "d2", 2), ("q1", "u", "s1", "d3", 1)]
    rows += [("q1", "u", "s2", "d2", 5), ("q1", "u", "s2", "d4", 4)]
    values = sr.evaluate_preferences(_prefs(rows), _run(["d4", "d1", "d2", "d3"]))
    assert values["prefs_num_prefs_poss"] == 5
    # d4 above d1 and d2 breaks 1>4 and 2>4; 1>2, 1>3, 2>3 hold.
    assert values["prefs_num_prefs_ful"] == 3


def test_groups_may_disagree():
    # get_prefs.c: "expresses 5 preferences (1>2, 3>1, 4>1, 3>4, 2>1)".
    rows = [("q1", "u1", "s1", "d1", 3.0), ("q1", "u1", "s1", "d2", 2.0)]
    rows += [("q1", "u2", "s1", "d1", 0.0), ("q1", "u2", "s1", "d3", 6.0)]
    rows += [("q1", "u2", "s1", "d4", 2.0), ("q1", "u2", "s2", "d1", 0.0)]
    rows += [("q1", "u2", "s2", "d2", 8.0)]
    values = sr.evaluate_preferences(_prefs(rows), _run(["d1", "d2", "d3", "d4"]))
    assert values["prefs_num_prefs_poss"] == 5
    # u1: 1>2 fulfilled (1/1). u2: 3>1, 4>1, 2>1 broken, 3>4 fulfilled (1/4).
    assert values["prefs_simp"] == 2 / 5
    assert values["prefs_avgjg"] == (1.0 + 1 / 4) / 2
    # Pairs: {1,2} judged both ways (share 1/2), {1,3}, {1,4}: 0, {3,4}: 1.
    assert values["prefs_pair"] == (0.5 + 0 + 0 + 1) / 4


def test_worked_example_of_the_page():
    rows = [("1", "alice", "a", "d1", 2), ("1", "alice", "a", "d2", 1)]
    rows += [("1", "alice", "a", "d3", 0), ("1", "bob", "b", "d2", 1), ("1", "bob", "b", "d1", 0)]
    rows += [("2", "alice", "a", "d5", 1), ("2", "alice", "a", "d6", 0)]
    run = sr.ItemRanking(["1", "1", "1", "2"], ["d2", "d1", "d4", "d5"], [3.0, 2, 1, 1])
    values = sr.evaluate_preferences(_prefs(rows), run, per_query=True)
    np.testing.assert_array_equal(values["prefs_simp"], [3 / 4, 1.0])
    np.testing.assert_array_equal(values["prefs_avgjg"], [(2 / 3 + 1) / 2, 1.0])
    np.testing.assert_array_equal(values["prefs_pair"], [(1 / 2 + 1 + 1) / 3, 1.0])
    np.testing.assert_array_equal(values["prefs_num_prefs_ful_ret"], [1, 0])
    means = sr.evaluate_preferences(_prefs(rows), run, ["prefs_simp", "prefs_num_prefs_poss"])
    assert means == {"prefs_simp": (3 / 4 + 1) / 2, "prefs_num_prefs_poss": 5.0}


def test_rnonrel_counts_as_many_nonrelevant_as_relevant():
    # One relevant document, three non-relevant: only the first non-relevant one (by rank)
    # is kept, and trec_eval's loop pairs every document of the group with it, the
    # non-relevant ones (itself included) too: 4 possible preferences, as the binary says.
    rows = [("q1", "u", "s", "r", 1)] + [("q1", "u", "s", f"n{i}", 0) for i in range(3)]
    values = sr.evaluate_preferences(_prefs(rows), _run(["n0", "r", "n1", "n2"]))
    assert values["prefs_simp"] == 2 / 3
    # Kept: n0 (rank 0), above r and every other document: 0 / 4.
    assert values["prefs_avgjg_Rnonrel"] == 0.0
    values = sr.evaluate_preferences(_prefs(rows), _run(["r", "n0", "n1", "n2"]))
    # r over n0 fulfilled; n0, n1, n2 over n0 not: 1 / 4 (trec_eval 10.0 prints 0.2500).
    assert values["prefs_avgjg_Rnonrel"] == 0.25


def test_max_documents_cuts_the_run():
    prefs = _prefs(THIRTEEN)
    run = _run(["d3", "d4", "d1", "d2", "d6", "d5"])
    cut = sr.evaluate_preferences(prefs, run, ["prefs_num_prefs_ful"], max_documents=1)
    assert cut["prefs_num_prefs_ful"] == 0  # only d3 (level 0) retrieved
    with pytest.raises(ValueError, match="max_documents must be a positive integer; got 0"):
        sr.evaluate_preferences(prefs, run, max_documents=0)


def test_refusals_name_the_problem():
    prefs = _prefs(THIRTEEN)
    with pytest.raises(ValueError, match="metrics: unknown preference measure 'map'"):
        sr.evaluate_preferences(prefs, _run(["d1"]), ["map"])
    twice = _prefs([("q1", "u", "s", "d1", 2), ("q1", "u", "s", "d1", 1)])
    with pytest.raises(ValueError, match="two levels in one judgment subgroup"):
        sr.evaluate_preferences(twice, _run(["d1"]))
    cycle = [("q1", "u", "s1", "d1", 2), ("q1", "u", "s1", "d2", 1)]
    cycle += [("q1", "u", "s2", "d2", 2), ("q1", "u", "s2", "d1", 1)]
    with pytest.raises(ValueError, match="inconsistent preferences"):
        sr.evaluate_preferences(_prefs(cycle), _run(["d1"]))
    zero = [("q1", "u", "s1", "d1", 2), ("q1", "u", "s1", "d2", 0)]
    zero += [("q1", "u", "s2", "d2", 3), ("q1", "u", "s2", "d3", 1)]
    with pytest.raises(ValueError, match="both level 0 and a level above 0"):
        sr.evaluate_preferences(_prefs(zero), _run(["d1"]))


def test_inputs_checked_up_front():
    prefs = _prefs(THIRTEEN)
    with pytest.raises(TypeError, match="judgments must be a GroupedJudgments"):
        sr.evaluate_preferences({"q1": {"d1": 1}}, _run(["d1"]))
    with pytest.raises(TypeError, match="ranking must be an ItemRanking; got list"):
        sr.evaluate_judgment_groups(prefs, [["d1"]], ["map"])
    short = prefs._replace(levels=prefs.levels[:2])
    with pytest.raises(ValueError, match=r"judgments: every column must be 1-D of one length"):
        sr.evaluate_preferences(short, _run(["d1"]))
    nan = prefs._replace(levels=np.full(6, np.nan))
    with pytest.raises(ValueError, match="judgments: levels must be finite numbers"):
        sr.evaluate_preferences(nan, _run(["d1"]))


def test_ranking_without_scores_is_in_row_order():
    prefs = _prefs(THIRTEEN)
    order = ["d3", "d4", "d1", "d2", "d6", "d5"]
    unscored = sr.ItemRanking(["q1"] * 6, order)
    assert sr.evaluate_preferences(prefs, unscored) == sr.evaluate_preferences(prefs, _run(order))


def test_one_metric_name_as_a_string_as_evaluate_takes_it():
    # A string was iterated letter by letter: "unknown preference measure 'p'".
    prefs = _prefs(THIRTEEN)
    run = _run(["d3", "d4", "d1", "d2", "d6", "d5"])
    assert sr.evaluate_preferences(prefs, run, "prefs_simp") == sr.evaluate_preferences(
        prefs, run, ["prefs_simp"]
    )
    assert sr.evaluate_judgment_groups(prefs, run, "map") == sr.evaluate_judgment_groups(
        prefs, run, ["map"]
    )
    assert list(sr.evaluate_judgment_groups(prefs, run, "map")) == ["map"]


def test_judgment_groups_average_evaluate_on_each_group():
    rng = np.random.default_rng(0)
    rows, docs = [], [f"d{i}" for i in range(12)]
    for q in ("q1", "q2", "q3"):
        for g in ("1", "2", "3")[: int(rng.integers(1, 4))]:
            for d in rng.choice(docs, size=8, replace=False):
                rows.append((q, g, "0", d, int(rng.integers(0, 3))))
    judgments = _prefs(rows)
    queries = [q for q in ("q1", "q2", "q3") for _ in docs]
    run = sr.ItemRanking(queries, docs * 3, rng.integers(0, 4, size=36) / 2)
    names = ["map", "precision@5", "ndcg@10"]
    got = sr.evaluate_judgment_groups(judgments, run, names, per_query=True)
    for name in names:
        expected = []
        for q in ("q1", "q2", "q3"):
            groups = sorted({g for row_q, g, *_ in rows if row_q == q})
            total = 0.0
            for g in groups:
                keep = [(d, v) for row_q, row_g, _, d, v in rows if (row_q, row_g) == (q, g)]
                truth = sr.ItemJudgments([q] * len(keep), *map(list, zip(*keep)))
                total += sr.evaluate(truth, run, [name], convention="trec_eval")[name]
            expected.append(total / len(groups))
        np.testing.assert_allclose(got[name], expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize("seed, max_documents", [(30, None), (31, None), (32, 6)])
@pytest.mark.parametrize("judged", ["prefs", "qrels"])
def test_equal_to_the_bit_to_a_literal_port_of_trec_eval(seed, max_documents, judged, tmp_path):
    prefs_text, qrels_text, _, run_text = random_prefs(seed, 25)
    path = tmp_path / "judged"
    path.write_text(prefs_text if judged == "prefs" else qrels_text)
    reader = sr.read_trec_prefs if judged == "prefs" else sr.read_trec_qrels_prefs
    judgments = reader(path)
    (tmp_path / "run").write_text(run_text)
    run = sr.read_trec_run(tmp_path / "run")
    got = sr.evaluate_preferences(judgments, run, per_query=True, max_documents=max_documents)
    lines, scores = {}, {}
    for q, g, s, d, level in zip(*judgments):
        lines.setdefault(q, []).append((g, s, d, level))
    for q, d, score in zip(run.queries, run.items, run.scores):
        scores.setdefault(q, {})[d] = score
    for row, q in enumerate(sorted(lines)):
        expected = query_values(lines[q], scores.get(q, {}), max_documents)
        for name, value in expected.items():
            assert got[name][row] == value, (q, name)
