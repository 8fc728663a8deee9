"""Random preference files, qrels of several judgment groups and runs, seeded, for
comparing with trec_eval's recorded output (tests/data/trec_eval10/formats/README.md):
judgment groups of one subgroup and of several (partial orders, consistent within a
group), groups with more, fewer or no non-relevant documents than relevant ones, tied
scores, documents judged but not retrieved, topics missing from the run."""

import numpy as np

# What tests/data/trec_eval10/formats/record.py recorded from the trec_eval 10.0 binary:
# (seed, topics, trec_eval's options, file judged (prefs, qrels_prefs or qrels_jg), output)
RECORDINGS = [
    (3, 60, ["-q", "-c", "-R", "prefs", "-m", "all_prefs"], "prefs", "random3_prefs_q_c.out.gz"),
    (
        4,
        200,
        ["-c", "-M", "15", "-R", "prefs", "-m", "all_prefs"],
        "prefs",
        "random4_prefs_c_M15.out",
    ),
    (
        5,
        80,
        ["-q", "-c", "-R", "qrels_prefs", "-m", "all_prefs"],
        "qrels",
        "random5_qrels_prefs_q_c.out.gz",
    ),
    (
        6,
        80,
        ["-q", "-c", "-R", "qrels_jg", "-m", "qrels_jg"],
        "qrels_jg",
        "random6_qrels_jg_q_c.out.gz",
    ),
    (
        7,
        80,
        ["-q", "-c", "-l", "2", "-J", "-R", "qrels_jg", "-m", "qrels_jg"],
        "qrels_jg",
        "random7_qrels_jg_q_c_l2_J.out.gz",
    ),
]


def random_prefs(seed, n_topics):
    """(prefs text, qrels text, qrels_jg text, run text) of ``n_topics`` topics."""
    rng = np.random.default_rng(seed)
    prefs, qrels, qrels_jg, run = [], [], [], []
    for t in range(n_topics):
        topic = f"{t + 1}"
        pool = rng.choice(80, size=int(rng.integers(4, 30)), replace=False)
        for g in range(int(rng.integers(1, 4))):
            group = f"jg{g}"
            # Each group's hidden level of every document keeps its subgroups consistent.
            levels = rng.choice([0.0, 0.0, 1.0, 2.0, 2.5, 4.0], size=pool.size)
            if rng.random() < 0.1:
                levels[:] = 0.0  # a group that finds nothing relevant
            for s in range(int(rng.integers(1, 4)) if rng.random() < 0.4 else 1):
                chosen = rng.random(pool.size) < 0.6
                for doc, level in zip(pool[chosen], levels[chosen]):
                    prefs.append(f"{topic} {group} s{s} d{doc} {level:g}\n")
            grades = rng.choice([-1, 0, 0, 1, 2, 3], size=pool.size)
            for doc, grade in zip(pool, grades):
                if rng.random() < 0.8:
                    qrels_jg.append(f"{topic} {g} d{doc} {grade}\n")
        for doc, grade in zip(pool, rng.choice([0, 0, 0, 1, 2], size=pool.size)):
            qrels.append(f"{topic} 0 d{doc} {grade}\n")
        if rng.random() < 0.04:
            continue
        retrieved = rng.choice(80, size=int(rng.integers(1, 40)), replace=False)
        scores = rng.integers(0, 8, size=retrieved.size) / 4
        for rank, (doc, score) in enumerate(zip(retrieved, scores)):
            run.append(f"{topic} Q0 d{doc} {rank + 1} {score} tag{seed}\n")
    run.append(f"x Q0 d1 1 1.0 tag{seed}\n")
    return "".join(prefs), "".join(qrels), "".join(qrels_jg), "".join(run)
