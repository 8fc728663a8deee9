"""ir_measures' names give ir_measures' numbers where its providers run here: ERR@k
(gdeval.pl, grades 0-4), Judged@k (its judged provider) and RBP(rel, p) (cwl_eval), per
query, on random runs with graded qrels and unjudged documents. The trec_eval measures
behind ir_measures' other names are pytrec_eval's (tests/test_trec_measures.py)."""

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
