"""ir_measures' names give ir_measures' numbers where its providers run here: ERR@k
(gdeval.pl, grades 0-4), Judged@k (its judged provider) and RBP(rel, p) (cwl_eval), per
query, on random runs with graded qrels and unjudged documents. The trec_eval measures
behind ir_measures' other names are pytrec_eval's (tests/conventions/test_trec_measures.py)."""

import numpy as np
import pytest

import sklearn_rank as sr

pytestmark = pytest.mark.slow

ir_measures = pytest.importorskip("ir_measures")

# gdeval prints 5 decimals (an abs error up to 5e-6); cwl_eval and Judged are exact.
PRINTED = 6e-6


def _case(rng):
    qrels, run = [], []
    for q in map(str, rng.choice(50, int(rng.integers(1, 6)), replace=False) + 1):
        pool = [f"d{d}" for d in rng.choice(40, int(rng.integers(2, 16)), replace=False)]
        for d in pool:
            if rng.random() < 0.6:
                qrels.append(ir_measures.Qrel(q, d, int(rng.integers(0, 5))))
        if not any(qrel.query_id == q for qrel in qrels):
            qrels.append(ir_measures.Qrel(q, pool[0], 1))
        ranked = rng.choice(pool, int(rng.integers(1, len(pool) + 1)), replace=False)
        scores = rng.permutation(len(ranked)) + rng.random()  # distinct: ties differ by tool
        run += [ir_measures.ScoredDoc(q, d, float(s)) for d, s in zip(ranked, scores)]
    return qrels, run


def _ours(qrels, run, names):
    truth = sr.ItemJudgments(
        np.array([x.query_id for x in qrels], dtype=object),
        np.array([x.doc_id for x in qrels], dtype=object),
        [x.relevance for x in qrels],
    )
    ranking = sr.ItemRanking(
        np.array([x.query_id for x in run], dtype=object),
        np.array([x.doc_id for x in run], dtype=object),
        [x.score for x in run],
    )
    values = sr.evaluate(truth, ranking, names, per_query=True, query_set="judged", no_relevant=0.0)
    ids = [str(q) for q in sr.query_ids(truth, ranking, query_set="judged")]
    return ids, values


@pytest.mark.parametrize("seed", range(3))
def test_err_judged_and_rbp_equal_ir_measures(seed):
    from ir_measures import ERR, RBP, Judged

    rng = np.random.default_rng(40 + seed)
    measures = {
        "ERR@5": ERR @ 5,
        "ERR@20": ERR @ 20,
        "Judged@3": Judged @ 3,
        "Judged@10": Judged @ 10,
        "RBP(rel=1, p=0.8)": RBP(rel=1, p=0.8),
        "RBP(rel=2, p=0.5)": RBP(rel=2, p=0.5),
    }
    for _ in range(30):
        qrels, run = _case(rng)
        ids, ours = _ours(qrels, run, list(measures))
        for name, measure in measures.items():
            theirs = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
            for row, q in enumerate(ids):
                # ir_measures leaves out a topic with no relevant document for ERR (gdeval
                # skips it) and fills 0 into its mean: ours scores it 0 (no_relevant).
                want = theirs.get(q, 0.0)
                tolerance = PRINTED if name.startswith("ERR") else 1e-12
                assert ours[name][row] == pytest.approx(want, abs=tolerance), (name, q, qrels, run)


def test_num_rel_of_a_topic_the_run_lacks_is_r_here_and_0_in_ir_measures():
    # The documented difference (docs/reproducing_other_tools.md): R is a property of the
    # judgments; ir_measures reports 0 for every measure of a topic the run lacks.
    from ir_measures import AP, NumRel

    qrels = [
        ir_measures.Qrel("1", "a", 1),
        ir_measures.Qrel("1", "b", 1),
        ir_measures.Qrel("2", "a", 2),
        ir_measures.Qrel("2", "c", 1),
    ]
    run = [ir_measures.ScoredDoc("1", "a", 1.0), ir_measures.ScoredDoc("1", "c", 0.5)]
    theirs = {
        (m.query_id, str(m.measure)): m.value
        for m in ir_measures.iter_calc([NumRel, AP], qrels, run)
    }
    ids, ours = _ours(qrels, run, ["num_rel", "map"])
    assert ids == ["1", "2"]
    assert theirs[("2", "NumRel")] == 0.0 and ours["num_rel"][1] == 2.0
    assert theirs[("1", "NumRel")] == ours["num_rel"][0] == 2.0
    assert ours["map"][1] == theirs[("2", "AP")] == 0.0
