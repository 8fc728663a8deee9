"""Random TREC qrels and runs, seeded, for comparing with trec_eval's recorded output
(tests/data/trec_eval10/README.md): tied scores, graded and unjudged documents, judged
topics missing from the run and run topics without judgments."""

import numpy as np

# trec_eval's measure parameters: set_F's x, a fractional cut-off, utility's coefficients,
# rbp_resid's p, relstring's length, 11pt_avg's recall levels, gains per grade; yaap.
_PARAMETERS = ["-m", "set_F.0.5", "-m", "ndcg_cut.23.4,5", "-m", "utility.2,-1,0,0"]
_PARAMETERS += ["-m", "rbp_resid.p=0.8", "-m", "relstring.20", "-m", "relative_P.3,7"]
_PARAMETERS += ["-m", "11pt_avg..25,.5,.75", "-m", "set_F.3", "-m", "ndcg.1=3,2=9,3=4.5"]
_PARAMETERS += ["-m", "G.1=3,2=9", "-m", "ndcg_rel.1=2,2=2,3=5", "-m", "Rndcg.1=5", "-m", "yaap"]

# What tests/data/trec_eval10/record_random.py recorded from the trec_eval 10.0 binary:
# (seed, queries, topics missing from the run, trec_eval's options, output file)
RECORDINGS = [
    (6, 400, True, ["-c", "-m", "all_trec"], "random6_400_c.out"),
    (6, 400, True, ["-c", "-M", "20", "-m", "all_trec"], "random6_400_c_M20.out"),
    (6, 400, True, ["-q", "-c"], "random6_400_q_c.out.gz"),
    (6, 400, False, ["-m", "all_trec"], "random6_400_complete.out"),
    (0, 2000, True, ["-c", "-M", "20", "-m", "all_trec"], "random0_2000_c_M20.out"),
    (1, 100, True, ["-q", "-c", "-M", "20", "-m", "all_trec"], "random1_100_q_c_M20.out.gz"),
    (6, 400, True, ["-q", "-c", "-m", "all_trec"], "random6_400_q_c_all_trec.out.gz"),
    (3, 200, True, ["-q", "-c", *_PARAMETERS], "random3_200_q_c_parameters.out"),
]


def random_trec(seed, n_queries, missing_topics=True):
    """(qrels text, run text) of ``n_queries`` judged topics.

    Scores take few values (ties, broken by docno), docnos have different lengths (so
    that strcmp's order is not the numbers'), about one topic in 40 is missing from the
    run (unless ``missing_topics`` is False) and the run has a few topics without
    judgments.
    """
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(n_queries):
        topic = f"{q + 1}"
        n_docs = int(rng.integers(5, 60))
        docs = rng.choice(200, size=n_docs, replace=False)
        grades = rng.choice([0, 0, 0, 1, 1, 2, 3], size=n_docs)
        judged = rng.random(n_docs) < 0.7
        for doc, grade in zip(docs[judged], grades[judged]):
            qrels.append(f"{topic} 0 d{doc} {grade}\n")
        if rng.random() < 0.025 and missing_topics:
            continue
        retrieved = rng.choice(200, size=int(rng.integers(1, 50)), replace=False)
        scores = rng.integers(0, 12, size=retrieved.size) / 4
        for rank, (doc, score) in enumerate(zip(retrieved, scores)):
            run.append(f"{topic} Q0 d{doc} {rank + 1} {score} tag{seed}\n")
    for extra in range(3):
        run.append(f"x{extra} Q0 d1 1 1.0 tag{seed}\n")
    return "".join(qrels), "".join(run)
