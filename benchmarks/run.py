"""Speed and memory of sklearn_rank against the peers that are installed.

Generates five workloads with a fixed seed (W1 dense 10,000 x 1,000; W2 dense 100,000 x 100;
W3 long format, 1,000,000 rows; W4 recommender top-100 ids against sparse truth; W5 the W1
matrix with scores rounded to 2 decimals), times sklearn_rank and every installed peer
(scikit-learn, ranx, pytrec_eval-terrier) on NDCG@10, P@10, R@10, MAP and MRR, each alone and
all five in one call, and prints one table per workload plus a PASS/FAIL summary of the
performance targets. See benchmarks/README.md. Not part of the test suite.

    python benchmarks/run.py                      # everything (about 15 minutes on 2 cores)
    python benchmarks/run.py --quick              # every workload 10x smaller: smoke run
    python benchmarks/run.py --workloads W1,W3 --repeat 3 --markdown results.md
"""

import argparse
import gc
import importlib.metadata
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
import warnings

import numpy as np
import scipy
import scipy.sparse

import sklearn_rank as sr

METRICS = ["ndcg@10", "precision@10", "recall@10", "map", "mrr"]
ALL = "all five"
QUERIES = METRICS + [ALL]
PYTREC = {  # our name -> (trec_eval measure, key in pytrec_eval's result)
    "ndcg@10": ("ndcg_cut.10", "ndcg_cut_10"),
    "precision@10": ("P.10", "P_10"),
    "recall@10": ("recall.10", "recall_10"),
    "map": ("map", "map"),
    "mrr": ("recip_rank", "recip_rank"),
}
SEED = 0
MIB = 2**20

OURS = "sklearn_rank"
OURS_JOBS = "sklearn_rank n_jobs=2"
OURS_STABLE = "sklearn_rank ties=stable"
RANX = "ranx compute on pre-sorted typed lists (its sort not counted)"
RANX_OBJECTS = "ranx evaluate(Qrels, Run) (derived)"
RANX_ARRAYS = "ranx from the raw arrays (dicts, Qrels/Run.from_dict, evaluate)"
RANX_ARRAYS_METRICS = ("ndcg@10", "map")  # the README table's metrics: each run costs seconds
STREAM = "one pass over the inputs (np.sum of every input array)"
# The single-thread figures of the README table before n_jobs (same machine): a regression
# check, not a target of their own.
PREVIOUS = {("W1", "ndcg@10"): 0.130, ("W1", "map"): 0.275, ("W3", "ndcg@10"): 0.227}
PREVIOUS[("W4", "ndcg@10")] = 0.264
PYTREC_EVAL = "pytrec_eval"
SK_IGNORE = "scikit-learn ndcg_score ignore_ties=True"
SK_DEFAULT = "scikit-learn ndcg_score"
CONV_DICTS = "conversion: dicts {qid: {docid: value}}"
CONV_RANX = "conversion: ranx Qrels/Run.from_dict"
CONV_TYPED = "conversion: ranx .to_typed_list()"
CONV_PYTREC = "conversion: pytrec_eval RelevanceEvaluator(qrels)"
NO_RANX = "ranx not installed or left out by --peers"


# --------------------------------------------------------------------------- peers


def _load_peers(wanted):
    """Import the installed peers; return (modules, notes about the missing ones)."""
    peers, notes = {}, []
    if "sklearn" in wanted:
        try:
            from sklearn.metrics import ndcg_score

            peers["sklearn"] = ndcg_score
        except ImportError as error:
            notes.append(f"scikit-learn skipped: {error}")
    if "ranx" in wanted:
        try:
            import ranx
            from numba.core.errors import NumbaTypeSafetyWarning

            # ranx's kernels warn about an unsigned hash cast on every call.
            warnings.simplefilter("ignore", NumbaTypeSafetyWarning)
            peers["ranx"] = ranx
        except ImportError as error:
            notes.append(f"ranx skipped (pip install ranx): {error}")
    if "pytrec_eval" in wanted:
        try:
            import pytrec_eval

            peers["pytrec_eval"] = pytrec_eval
        except ImportError as error:
            notes.append(f"pytrec_eval skipped (pip install pytrec_eval-terrier): {error}")
    return peers, notes


# --------------------------------------------------------------------------- workloads


def _graded(rng, shape):
    """Relevance 0-4, about 5% non-zero, and float scores mildly correlated with it."""
    relevant = rng.random(shape) < 0.05
    rel = np.where(relevant, rng.integers(1, 5, shape), 0)
    score = rng.random(shape) + 0.1 * rel
    return rel, score


def _dense_dicts(rel, score):
    """{qid: {docid: rel}} (relevant items only) and {qid: {docid: score}} of a matrix."""
    n_queries, n_items = rel.shape
    width = len(str(n_items - 1))  # fixed-width ids: ranx compiles per id width
    docs = [f"{j:0{width}d}" for j in range(n_items)]
    rows, cols = np.nonzero(rel)
    values = rel[rows, cols].tolist()
    bounds = np.searchsorted(rows, np.arange(n_queries + 1)).tolist()
    cols = cols.tolist()
    qrels, run = {}, {}
    for i in range(n_queries):
        qid = str(i)
        a, b = bounds[i], bounds[i + 1]
        # A query without relevant items keeps one judgment of 0, so that it counts.
        qrels[qid] = {docs[c]: v for c, v in zip(cols[a:b], values[a:b])} or {docs[0]: 0}
        run[qid] = dict(zip(docs, score[i].tolist()))
    return qrels, run


def _long_dicts(rel, score, qid):
    """Group the rows of each query; the doc id of a row is its row number."""
    n = rel.size
    order = np.argsort(qid, kind="stable")
    sorted_qid = qid[order]
    starts = np.flatnonzero(np.r_[True, sorted_qid[1:] != sorted_qid[:-1]])
    ends = np.r_[starts[1:], n].tolist()
    width = len(str(n - 1))
    docs = [f"{j:0{width}d}" for j in order.tolist()]
    rels, scores = rel[order].tolist(), score[order].tolist()
    qrels, run = {}, {}
    for q, a, b in zip(sorted_qid[starts].tolist(), starts.tolist(), ends):
        key = str(q)
        run[key] = dict(zip(docs[a:b], scores[a:b]))
        qrels[key] = {docs[j]: rels[j] for j in range(a, b) if rels[j] > 0} or {docs[a]: 0}
    return qrels, run


def _topn_dicts(truth, top):
    """Sparse truth rows and top-N ids (scores N, N-1, ..., 1) as dicts."""
    n_users, n = top.shape
    width = len(str(truth.shape[1] - 1))
    items = [f"{j:0{width}d}" for j in range(truth.shape[1])]
    rank_scores = [float(n - r) for r in range(n)]
    indptr, indices = truth.indptr.tolist(), truth.indices.tolist()
    data = truth.data.astype(np.int64).tolist()
    qrels, run = {}, {}
    for u, row in enumerate(top.tolist()):
        key = str(u)
        a, b = indptr[u], indptr[u + 1]
        qrels[key] = {items[indices[j]]: data[j] for j in range(a, b)} or {items[row[0]]: 0}
        run[key] = dict(zip([items[j] for j in row], rank_scores))
    return qrels, run


class Workload:
    """One workload: the raw arrays, our call, the peers' conversion to dicts."""

    def __init__(self, name, title, inputs, ours, to_dicts, dense=None, stable=False):
        self.name, self.title, self.inputs = name, title, inputs
        self.ours = ours  # ours(metric_names, **params) -> dict
        self.to_dicts = to_dicts  # () -> (qrels dict, run dict)
        self.dense = dense  # (y_true, y_score) for scikit-learn, or None
        self.stable = stable  # also time ties="stable"
        self.input_bytes = sum(_nbytes(a) for a in inputs.values())


def _nbytes(a):
    if scipy.sparse.issparse(a):
        return a.data.nbytes + a.indices.nbytes + a.indptr.nbytes
    return a.nbytes


def make_w1(scale, rounded=False):
    rng = np.random.default_rng(SEED)
    rel, score = _graded(rng, (10_000 // scale, 1_000))
    name = "W1"
    title = "dense %s queries x 1,000 items, relevance 0-4 (~5%% non-zero), float scores"
    if rounded:
        score = np.round(score, 2)
        name = "W5"
        title = (
            "the W1 matrix (%s x 1,000) with scores rounded to 2 decimals "
            "(heavy ties), ties='average' vs 'stable'"
        )
    return Workload(
        name,
        title % f"{rel.shape[0]:,}",
        {"y_true": rel, "y_score": score},
        lambda names, **kw: sr.evaluate(rel, score, names, **kw),
        lambda: _dense_dicts(rel, score),
        dense=(rel, score),
        stable=rounded,
    )


def make_w2(scale):
    rng = np.random.default_rng(SEED + 2)
    rel, score = _graded(rng, (100_000 // scale, 100))
    title = f"dense {rel.shape[0]:,} queries x 100 items, relevance 0-4 (~5% non-zero)"
    return Workload(
        "W2",
        title,
        {"y_true": rel, "y_score": score},
        lambda names, **kw: sr.evaluate(rel, score, names, **kw),
        lambda: _dense_dicts(rel, score),
        dense=(rel, score),
    )


def make_w3(scale):
    rng = np.random.default_rng(SEED + 3)
    n_rows = 1_000_000 // scale
    sizes = rng.integers(1, 201, n_rows)  # far more queries than needed
    ends = np.cumsum(sizes)
    n_queries = int(np.searchsorted(ends, n_rows)) + 1
    sizes = sizes[:n_queries].copy()
    sizes[-1] -= ends[n_queries - 1] - n_rows  # the last query ends at n_rows exactly
    ids = np.unique(rng.integers(-(2**62), 2**62, n_queries + 100))
    ids = rng.permutation(ids)[:n_queries]  # arbitrary distinct int64 ids
    qid = np.repeat(ids, sizes)
    rel, score = _graded(rng, n_rows)
    shuffle = rng.permutation(n_rows)  # rows of a query are not together
    qid, rel, score = qid[shuffle], rel[shuffle], score[shuffle]
    title = (
        f"long format, {n_rows:,} rows, {n_queries:,} queries of 1 to 200 rows, "
        "query ids shuffled int64, rows not grouped"
    )
    return Workload(
        "W3",
        title,
        {"y_true": rel, "y_score": score, "groups": qid},
        lambda names, **kw: sr.evaluate(rel, score, names, groups=qid, **kw),
        lambda: _long_dicts(rel, score, qid),
    )


def make_w4(scale):
    rng = np.random.default_rng(SEED + 4)
    n_users, n_items, relevant, top_n = 50_000 // scale, 20_000, 20, 100
    rows = np.repeat(np.arange(n_users), relevant)
    cols = rng.integers(0, n_items, rows.size)
    truth = scipy.sparse.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n_users, n_items))
    truth.sum_duplicates()
    truth.data[:] = 1.0
    # Top-100 distinct items per user: a random permutation prefix, vectorised.
    top = np.argsort(rng.random((n_users, 400)), axis=1)[:, :top_n] * (n_items // 400)
    top += rng.integers(0, n_items // 400, (n_users, 1))
    title = (
        f"recommender, {n_users:,} users x {n_items:,} items, ~{relevant} relevant per "
        f"user (sparse CSR, {truth.nnz:,} entries), top-{top_n} item ids per user; "
        "ours includes ItemRanking.from_topn"
    )
    return Workload(
        "W4",
        title,
        {"truth": truth, "top_ids": top},
        lambda names, **kw: sr.evaluate(truth, sr.ItemRanking.from_topn(top), names, **kw),
        lambda: _topn_dicts(truth, top),
    )


MAKERS = {
    "W1": make_w1,
    "W2": make_w2,
    "W3": make_w3,
    "W4": make_w4,
    "W5": lambda scale: make_w1(scale, rounded=True),
}


# --------------------------------------------------------------------------- measuring


def _status_kib(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


def _rss_start():
    """Reset the peak resident set size (Linux); return the current one in KiB, or None."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return _status_kib("VmRSS")
    except (OSError, KeyError):
        return None


def _rss_growth(start):
    if start is None:
        return None
    try:
        return (_status_kib("VmHWM") - start) * 1024
    except (OSError, KeyError):
        return None


class Row:
    """One line of a table: a tool on a metric (or a conversion step)."""

    def __init__(self, tool, metric, fn, *, ours=False, conversion=False, trace=True):
        self.tool, self.metric, self.fn = tool, metric, fn
        self.ours, self.conversion, self.trace = ours, conversion, trace
        self.times, self.rss = [], []
        self.value = None
        self.n = None  # repetitions allowed (set after the first one)
        self.peak = None  # tracemalloc peak, bytes
        self.note = ""
        self.paired = []  # times of the n_jobs pairs (_time_jobs_pairs)

    def run_timed(self):
        start = _rss_start()
        t0 = time.perf_counter()
        value = self.fn()
        seconds = time.perf_counter() - t0
        growth = _rss_growth(start)
        self.times.append(seconds)
        if growth is not None:
            self.rss.append(growth)
        if self.value is None:
            if isinstance(value, dict) and len(value) == 1:  # evaluate([one metric])
                value = next(iter(value.values()))
            self.value = value
        return seconds

    def run_traced(self):
        gc.collect()
        tracemalloc.start()
        tracemalloc.reset_peak()
        try:
            self.fn()
            self.peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    @property
    def median(self):
        return statistics.median(self.times) if self.times else None


def _time_rows(conversions, rows, repeat, budget, log):
    """Interleave: each repetition runs the conversions (the first repetition of those ran
    during the set-up), then every metric with every tool in turn, the tool order rotated
    between repetitions. Peer rows slower than the budget are repeated fewer times."""
    by_metric = {}
    for row in rows:
        by_metric.setdefault(row.metric, []).append(row)
    for rep in range(repeat):
        started = time.perf_counter()
        for row in conversions:
            if rep > 0 and rep < row.n:  # repetition 1 ran while the workload was set up
                row.run_timed()
        for metric in QUERIES:
            group = by_metric.get(metric, [])
            if not group:
                continue
            shift = rep % len(group)
            for row in group[shift:] + group[:shift]:
                if row.n is None or rep < row.n:
                    row.run_timed()
        if rep == 0:
            for row in conversions + rows:
                row.n = repeat if row.ours else max(1, min(repeat, int(budget // row.times[0])))
        log(f"  repetition {rep + 1}/{repeat}: {time.perf_counter() - started:.1f} s")
    for row in conversions + rows:
        if row.n < repeat:
            row.note = f"{row.n} of {repeat} repetitions (first took {row.times[0]:.1f} s)"


def _mean_pytrec(result, key):
    return float(np.mean([per_query[key] for per_query in result.values()]))


def _subset(d, keys):
    return {k: d[k] for k in keys}


def bench_workload(wl, peers, repeat, budget, log):
    """Time and measure one workload; return (rows, conversions, notes)."""
    notes = []
    rows, conversions = [], []
    state = {}

    # Warm-up outside any measurement: imports, caches, numba compilation.
    for names in [[m] for m in METRICS] + [METRICS]:
        if wl.dense is not None:
            sr.evaluate(wl.dense[0][:16], wl.dense[1][:16], names)
    wl.ours(["ndcg@10"])

    for metric in QUERIES:
        names = METRICS if metric == ALL else [metric]
        rows.append(Row(OURS, metric, lambda names=names: wl.ours(names), ours=True))
        rows.append(Row(OURS_JOBS, metric, lambda names=names: wl.ours(names, n_jobs=2), ours=True))
        if wl.stable:
            rows.append(
                Row(
                    OURS_STABLE,
                    metric,
                    lambda names=names: wl.ours(names, ties="stable"),
                    ours=True,
                )
            )

    arrays = _input_arrays(wl.inputs)
    conversions.append(
        Row(STREAM, "-", lambda: sum(float(a.sum()) for a in arrays), conversion=True, trace=False)
    )
    conversions[-1].run_timed()

    if "sklearn" in peers and wl.dense is not None:
        ndcg = peers["sklearn"]
        y_true, y_score = wl.dense
        ndcg(y_true[:16], y_score[:16], k=10)
        rows.append(
            Row(SK_IGNORE, "ndcg@10", lambda: float(ndcg(y_true, y_score, k=10, ignore_ties=True)))
        )
        rows.append(Row(SK_DEFAULT, "ndcg@10", lambda: float(ndcg(y_true, y_score, k=10))))
    elif "sklearn" in peers:
        notes.append("scikit-learn: not applicable (its ndcg_score takes dense matrices only)")

    ranx, pytrec_eval = peers.get("ranx"), peers.get("pytrec_eval")
    if ranx is not None or pytrec_eval is not None:

        def build_dicts():
            state["qd"], state["rd"] = None, None  # free the previous copy first
            state["qd"], state["rd"] = wl.to_dicts()

        conversions.append(Row(CONV_DICTS, "-", build_dicts, conversion=True, trace=False))
        conversions[-1].run_timed()  # repetition 1 of the conversions runs here, in order

    if ranx is not None:
        # First calls on a 16-query sample (same id widths): numba compiles here, or loads
        # its on-disk cache if an earlier run left one.
        keys = list(state["qd"])[:16]
        sample_q, sample_r = _subset(state["qd"], keys), _subset(state["rd"], keys)
        first = {}
        t0 = time.perf_counter()
        q_obj = ranx.Qrels.from_dict(sample_q)
        r_obj = ranx.Run.from_dict(sample_r)
        first["Qrels+Run.from_dict"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        q_tl, r_tl = q_obj.to_typed_list(), r_obj.to_typed_list()
        first["to_typed_list"] = time.perf_counter() - t0
        for metric in QUERIES:
            t0 = time.perf_counter()
            ranx.evaluate(q_tl, r_tl, METRICS if metric == ALL else metric)
            first[metric] = time.perf_counter() - t0
        notes.append(
            "ranx first calls on a 16-query sample (numba JIT compile, or load from "
            "numba's on-disk cache): " + ", ".join(f"{k} {v:.2f} s" for k, v in first.items())
        )

        def build_ranx():
            state["qrels"], state["run"] = None, None
            state["qrels"] = ranx.Qrels.from_dict(state["qd"])
            state["run"] = ranx.Run.from_dict(state["rd"])

        def build_typed():
            state["qtl"], state["rtl"] = None, None
            state["qtl"] = state["qrels"].to_typed_list()
            state["rtl"] = state["run"].to_typed_list()

        conversions.append(Row(CONV_RANX, "-", build_ranx, conversion=True, trace=False))
        conversions[-1].run_timed()
        conversions.append(Row(CONV_TYPED, "-", build_typed, conversion=True, trace=False))
        conversions[-1].run_timed()
        for metric in QUERIES:
            arg = METRICS if metric == ALL else metric
            rows.append(
                Row(
                    RANX,
                    metric,
                    lambda arg=arg: _ranx_value(ranx.evaluate(state["qtl"], state["rtl"], arg)),
                )
            )

        def from_arrays(metric):
            # What a user with the arrays runs: build the dicts, the objects, evaluate.
            qrels_dict, run_dict = wl.to_dicts()
            qrels = ranx.Qrels.from_dict(qrels_dict)
            run = ranx.Run.from_dict(run_dict)
            del qrels_dict, run_dict
            return _ranx_value(ranx.evaluate(qrels, run, metric))

        for metric in RANX_ARRAYS_METRICS:
            rows.append(
                Row(RANX_ARRAYS, metric, lambda metric=metric: from_arrays(metric), trace=False)
            )

    if pytrec_eval is not None:
        measures = {m: PYTREC[m][0] for m in METRICS}

        def build_pytrec():
            state["pte"] = None
            state["pte"] = pytrec_eval.RelevanceEvaluator(state["qd"], set(measures.values()))

        conversions.append(Row(CONV_PYTREC, "-", build_pytrec, conversion=True, trace=False))
        conversions[-1].run_timed()
        single = {}

        def evaluator(metric):  # one evaluator per measure, built once, not timed
            if metric not in single:
                single[metric] = pytrec_eval.RelevanceEvaluator(state["qd"], {measures[metric]})
            return single[metric]

        for metric in METRICS:
            key = PYTREC[metric][1]
            rows.append(
                Row(
                    PYTREC_EVAL,
                    metric,
                    lambda metric=metric, key=key: _mean_pytrec(
                        evaluator(metric).evaluate(state["rd"]), key
                    ),
                    trace=False,
                )
            )
        rows.append(
            Row(
                PYTREC_EVAL,
                ALL,
                lambda: _pytrec_all(state["pte"].evaluate(state["rd"])),
                trace=True,
            )
        )

        for metric in METRICS:
            evaluator(metric)

    _time_rows(conversions, rows, repeat, budget, log)

    log("  tracemalloc pass")
    for row in rows:
        if row.trace:
            row.run_traced()
    for key in list(state):
        state[key] = None
    gc.collect()
    log("  n_jobs pairs")
    notes += _time_jobs_pairs(rows)
    return rows, conversions, notes


JOBS_PAIRS = 7  # n_jobs=1 / n_jobs=2 pairs per metric


def _time_jobs_pairs(rows):
    """Time n_jobs=1 and n_jobs=2 back to back in alternating order, once the peers' data
    is freed; return the notes that give the medians.

    The speed-up is a ratio of two medians measured in the same state of the process: in
    the rotation above, a row that follows a peer which allocated gigabytes (ranx from
    the raw arrays, pytrec_eval) pays for the state it left (fresh pages to fault in),
    and with two threads faulting pages at once, more than one thread does.
    """
    by_key = {(r.tool, r.metric): r for r in rows if r.tool in (OURS, OURS_JOBS)}
    notes = []
    for metric in QUERIES:
        one, two = by_key.get((OURS, metric)), by_key.get((OURS_JOBS, metric))
        if one is None or two is None:
            continue
        gc.collect()
        for i in range(JOBS_PAIRS):
            for row in (one, two) if i % 2 == 0 else (two, one):
                t0 = time.perf_counter()
                row.fn()
                row.paired.append(time.perf_counter() - t0)
        a, b = statistics.median(one.paired), statistics.median(two.paired)
        notes.append(
            f"n_jobs pairs {metric}: n_jobs=1 {_fmt_s(a)} s, n_jobs=2 {_fmt_s(b)} s "
            f"({a / b:.2f}x; medians of {JOBS_PAIRS} alternating pairs)"
        )
    return notes


def _input_arrays(inputs):
    """Every array a workload's input holds (a sparse matrix's three)."""
    arrays = []
    for value in inputs.values():
        if scipy.sparse.issparse(value):
            arrays += [value.data, value.indices, value.indptr]
        else:
            arrays.append(np.asarray(value))
    return arrays


def _ranx_value(value):
    return {k: float(v) for k, v in value.items()} if isinstance(value, dict) else float(value)


def _pytrec_all(result):
    return {m: _mean_pytrec(result, PYTREC[m][1]) for m in METRICS}


# --------------------------------------------------------------------------- reporting


def _fmt_s(seconds):
    return "-" if seconds is None else f"{seconds:#.3g}"


def _fmt_ratio(ratio):
    return f"{ratio:.0f}x" if ratio >= 10 else f"{ratio:.2f}x"


def _fmt_mib(nbytes):
    return "-" if nbytes is None else f"{nbytes / MIB:.1f}"


def _value_text(row, singles):
    if row.value is None:
        return "-"
    if isinstance(row.value, dict):
        mine = singles.get(row.tool, {})
        same = all(m in mine and abs(row.value[m] - mine[m]) <= 1e-9 for m in METRICS)
        return "same as singles" if same else ", ".join(f"{v:.4f}" for v in row.value.values())
    return f"{row.value:.5f}"


def table_lines(wl, rows, conversions):
    """Header and cells of a workload's table."""
    ours = {r.metric: r.median for r in rows if r.tool == OURS}
    singles = {}
    for r in rows:
        if r.metric != ALL and not isinstance(r.value, dict) and r.value is not None:
            singles.setdefault(r.tool, {})[r.metric] = r.value
    header = [
        "tool",
        "metric",
        "n",
        "median s",
        "x ours",
        "peak MiB",
        "peak/inputs",
        "RSS+ MiB",
        "value",
    ]
    cells = []
    typed = next((c for c in conversions if c.tool == CONV_TYPED), None)
    ranx_rows = {r.metric: r for r in rows if r.tool == RANX}
    for metric in QUERIES:
        for r in rows:
            if r.metric != metric:
                continue
            ratio = r.median / ours[metric] if ours.get(metric) else None
            cells.append(
                [
                    r.tool,
                    metric,
                    str(len(r.times)),
                    _fmt_s(r.median),
                    "-" if ratio is None else f"{ratio:.2f}",
                    _fmt_mib(r.peak),
                    "-" if r.peak is None else f"{r.peak / wl.input_bytes:.2f}",
                    _fmt_mib(max(r.rss)) if r.rss else "-",
                    _value_text(r, singles),
                ]
            )
        if typed is not None and metric in ranx_rows:
            derived = typed.median + ranx_rows[metric].median
            cells.append(
                [
                    RANX_OBJECTS,
                    metric,
                    "-",
                    _fmt_s(derived),
                    f"{derived / ours[metric]:.2f}",
                    "-",
                    "-",
                    "-",
                    "-",
                ]
            )
    for c in conversions:
        cells.append(
            [
                c.tool,
                "-",
                str(len(c.times)),
                _fmt_s(c.median),
                "-",
                "-",
                "-",
                _fmt_mib(max(c.rss)) if c.rss else "-",
                "-",
            ]
        )
    return header, cells


def format_text(header, cells):
    widths = [max(len(str(x)) for x in col) for col in zip(header, *cells)]

    def line(xs):
        return "  ".join(str(x).ljust(w) for x, w in zip(xs, widths)).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(c) for c in cells])


def format_markdown(header, cells):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(x) for x in c) + " |" for c in cells]
    return "\n".join(out)


def checks(results, peers):
    """The performance targets: list of (status, check, detail)."""
    out = []

    def med(name, tool, metric):
        for r in results[name][0]:
            if r.tool == tool and r.metric == metric:
                return r.median
        return None

    def ratio_check(name, peer_tool, peer_metric, metric, minimum, label, status_if=True):
        ours, peer = med(name, OURS, metric), med(name, peer_tool, peer_metric)
        ratio = peer / ours
        status = ("PASS" if ratio >= minimum else "FAIL") if status_if else "info"
        out.append(
            (
                status,
                f"{name} {metric}: {label} >= {minimum:g}x ours",
                f"{_fmt_s(peer)} s / {_fmt_s(ours)} s = {ratio:.2f}x",
            )
        )

    for name in ("W1", "W2", "W4"):
        if name not in results:
            continue
        if "ranx" in peers:
            for m in METRICS:
                ratio_check(name, RANX, m, m, 4, "ranx compute on typed lists")
        else:
            out.append(("SKIP", f"{name}: 4x faster than ranx", NO_RANX))
        if name != "W4":
            if "sklearn" in peers:
                for m in METRICS:
                    ratio_check(
                        name,
                        SK_IGNORE,
                        "ndcg@10",
                        m,
                        4,
                        "scikit-learn ndcg_score(k=10, ignore_ties=True)",
                    )
            else:
                out.append(
                    (
                        "SKIP",
                        f"{name}: 4x faster than scikit-learn",
                        "scikit-learn not installed or left out by --peers",
                    )
                )
    if "W3" in results:
        if "ranx" in peers:
            for m in METRICS:
                ratio_check("W3", RANX, m, m, 1, "ranx compute on its pre-built typed lists")
        else:
            out.append(("SKIP", "W3: no slower than ranx", NO_RANX))
    if "W5" in results:
        for m in QUERIES:
            avg, stable = med("W5", OURS, m), med("W5", OURS_STABLE, m)
            ratio = avg / stable
            out.append(
                (
                    "PASS" if ratio <= 1.5 else "FAIL",
                    f"W5 {m}: ties='average' <= 1.5x ties='stable'",
                    f"{_fmt_s(avg)} s / {_fmt_s(stable)} s = {ratio:.2f}x",
                )
            )
    for name, (rows, _, _) in results.items():
        singles = {r.metric: r.median for r in rows if r.tool == OURS and r.metric != ALL}
        slowest = max(singles, key=singles.get)
        together = med(name, OURS, ALL)
        ratio = together / singles[slowest]
        out.append(
            (
                "PASS" if ratio <= 2 else "FAIL",
                f"{name}: all five in one call <= 2x slowest single ({slowest})",
                f"{_fmt_s(together)} s / {_fmt_s(singles[slowest])} s = {ratio:.2f}x",
            )
        )
    # n_jobs=2 computes two blocks at once, each with its own temporaries: its bound is
    # the one-thread bound plus what a second block in flight may hold.
    for tools, bound, label in (
        ({OURS, OURS_STABLE}, 1.5, "one thread"),
        ({OURS_JOBS}, 2.0, "n_jobs=2"),
    ):
        for name, (rows, _, wl_bytes) in results.items():
            ours = [r for r in rows if r.ours and r.tool in tools and r.peak is not None]
            if not ours:
                continue
            worst = max(ours, key=lambda r: r.peak)
            ratio = worst.peak / wl_bytes
            out.append(
                (
                    "PASS" if ratio < bound else "FAIL",
                    f"{name}: our peak memory above the inputs < {bound}x the inputs ({label})",
                    f"worst {worst.tool} {worst.metric}: {worst.peak / MIB:.1f} MiB / "
                    f"{wl_bytes / MIB:.1f} MiB = {ratio:.2f}x",
                )
            )

    def paired(name, tool, metric):
        for r in results[name][0]:
            if r.tool == tool and r.metric == metric and r.paired:
                return statistics.median(r.paired)
        return med(name, tool, metric)

    for name in ("W1", "W2", "W3", "W4"):
        for m in ("ndcg@10", "map"):
            if name in results:
                one, two = paired(name, OURS, m), paired(name, OURS_JOBS, m)
                out.append(
                    (
                        "PASS" if one / two >= 1.7 else "FAIL",
                        f"{name} {m}: n_jobs=2 >= 1.7x faster than n_jobs=1 (pairs)",
                        f"{_fmt_s(one)} s / {_fmt_s(two)} s = {one / two:.2f}x",
                    )
                )
    for (name, m), before in PREVIOUS.items():
        if name in results:
            now = med(name, OURS, m)
            out.append(
                (
                    "info",
                    f"{name} {m}: n_jobs=1 against the README table before n_jobs",
                    f"{_fmt_s(now)} s now, {_fmt_s(before)} s then ({now / before:.2f}x)",
                )
            )
    if "ranx" in peers:  # not a target: the documented end-user call, for context
        for name, minimum in (("W1", 4), ("W2", 4), ("W4", 4), ("W3", 1)):
            if name in results:
                typed = next(c for c in results[name][1] if c.tool == CONV_TYPED)
                for m in METRICS:
                    ours, peer = med(name, OURS, m), med(name, RANX, m) + typed.median
                    out.append(
                        (
                            "info",
                            f"{name} {m}: ranx evaluate(Qrels, Run) "
                            f"(= to_typed_list + compute) >= {minimum}x ours",
                            f"{_fmt_s(peer)} s / {_fmt_s(ours)} s = {peer / ours:.2f}x",
                        )
                    )
    return out


def small_call_check(repeat=300):
    """A 10-query, 100-row call: n_jobs=2 must cost what n_jobs=1 costs (no threads)."""
    rng = np.random.default_rng(SEED)
    y_true, y_score = rng.integers(0, 3, (10, 10)), rng.random((10, 10))
    times = {1: [], 2: []}
    for _ in range(repeat):
        for n_jobs in (1, 2):
            t0 = time.perf_counter()
            sr.evaluate(y_true, y_score, METRICS, n_jobs=n_jobs)
            times[n_jobs].append(time.perf_counter() - t0)
    one, two = statistics.median(times[1]), statistics.median(times[2])
    return (
        "PASS" if two <= 1.1 * one else "FAIL",
        "10 queries x 10 items, all five metrics: n_jobs=2 costs no more than n_jobs=1 (+10%)",
        f"{one * 1e6:.0f} us / {two * 1e6:.0f} us = {two / one:.2f}x",
    )


README_WORKLOADS = {
    "W1": "W1 dense 10,000 x 1,000",
    "W2": "W2 dense 100,000 x 100",
    "W3": "W3 long, 10^6 rows, unsorted ids",
    "W4": "W4 50,000 users, top-100 ids",
}


def readme_table(results):
    """The README's table: NDCG@10 and MAP per workload, every column of one run."""
    columns = [
        ("sklearn_rank", OURS),
        ("sklearn_rank `n_jobs=2`", OURS_JOBS),
        ("scikit-learn `ndcg_score(ignore_ties=True)`", SK_IGNORE),
        ("ranx from the raw arrays", RANX_ARRAYS),
        ("ranx `evaluate(Qrels, Run)`", RANX_OBJECTS),
        ("ranx compute on pre-sorted lists (no sort)", RANX),
        ("pytrec_eval", PYTREC_EVAL),
        ("one pass over the inputs", STREAM),
    ]
    header = ["workload", "metric"] + [title for title, _ in columns]
    cells = []
    for name, label in README_WORKLOADS.items():
        if name not in results:
            continue
        rows, conversions, _ = results[name]
        times = {(r.tool, r.metric): r.median for r in rows}
        pairs = {(r.tool, r.metric): statistics.median(r.paired) for r in rows if r.paired}
        typed = next((c.median for c in conversions if c.tool == CONV_TYPED), None)
        stream = next(c.median for c in conversions if c.tool == STREAM)
        for m in ("ndcg@10", "map"):
            ours = times[(OURS, m)]
            line = [label if m == "ndcg@10" else name, "NDCG@10" if m == "ndcg@10" else "MAP"]
            for _title, tool in columns:
                if tool == OURS:
                    line.append(f"{_fmt_s(ours)} s")
                    continue
                if tool == STREAM:
                    seconds = stream
                elif tool == RANX_OBJECTS:
                    compute = times.get((RANX, m))
                    seconds = None if compute is None or typed is None else compute + typed
                else:
                    seconds = times.get((tool, m))
                if seconds is None:
                    line.append("-")
                elif tool == OURS_JOBS and (OURS_JOBS, m) in pairs:
                    one, two = pairs[(OURS, m)], pairs[(OURS_JOBS, m)]
                    line.append(f"{_fmt_s(two)} s ({one / two:.2f}x faster)")
                else:
                    line.append(f"{_fmt_s(seconds)} s ({_fmt_ratio(seconds / ours)})")
            cells.append(line)
    return format_markdown(header, cells)


def _numba_threads():
    try:
        import numba

        return str(numba.get_num_threads())
    except ImportError:
        return "numba not installed"


def machine_info():
    def version(dist):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    try:
        commit = (
            subprocess.run(
                ["git", "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
                cwd=os.path.dirname(os.path.abspath(__file__)),
                timeout=10,
            ).stdout.strip()
            or "unknown"
        )
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    cpu = platform.processor() or "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return [
        ("platform", platform.platform()),
        ("CPU", f"{cpu}, {os.cpu_count()} logical CPUs"),
        ("Python", sys.version.split()[0]),
        ("numpy", np.__version__),
        ("scipy", scipy.__version__),
        ("scikit-learn", version("scikit-learn")),
        ("ranx", version("ranx")),
        ("numba", version("numba")),
        ("pytrec_eval-terrier", version("pytrec_eval-terrier")),
        ("numba threads (ranx's kernels run in parallel)", _numba_threads()),
        ("sklearn_rank", f"{sr.__version__} (git {commit}, working tree as found)"),
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--workloads",
        default="W1,W2,W3,W4,W5",
        help="comma-separated subset of W1..W5 (default: all)",
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed repetitions (default 5)")
    parser.add_argument(
        "--quick", action="store_true", help="scale every workload down 10x (smoke run)"
    )
    parser.add_argument(
        "--peer-budget",
        type=float,
        default=10.0,
        help="a peer step whose first repetition takes longer than this many "
        "seconds is repeated only budget/first times (at least once; "
        "default 10)",
    )
    parser.add_argument(
        "--peers",
        default="sklearn,ranx,pytrec_eval",
        help="comma-separated peers to try (default: all)",
    )
    parser.add_argument("--markdown", metavar="FILE", help="also write the tables as markdown")
    args = parser.parse_args(argv)

    names = [w.strip().upper() for w in args.workloads.split(",") if w.strip()]
    unknown = [w for w in names if w not in MAKERS]
    if unknown:
        parser.error(f"unknown workloads {unknown}; choose from {list(MAKERS)}")
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    scale = 10 if args.quick else 1

    def log(message):
        print(message, file=sys.stderr, flush=True)

    started = time.perf_counter()
    peers, peer_notes = _load_peers({p.strip() for p in args.peers.split(",")})
    info = machine_info()
    md = ["## Machine", ""] + [f"- {k}: {v}" for k, v in info] + [""]
    print("Machine")
    for k, v in info:
        print(f"  {k}: {v}")
    print(
        f"repetitions: {args.repeat} (medians); peer budget {args.peer_budget:g} s; "
        f"{'QUICK (10x smaller) ' if args.quick else ''}workloads {', '.join(names)}"
    )
    for note in peer_notes:
        print("note:", note)
    md += [
        f"Repetitions: {args.repeat} (medians), peer budget {args.peer_budget:g} s"
        + (", QUICK run (every workload 10x smaller)" if args.quick else "")
        + "."
    ]
    md += [f"Note: {note}" for note in peer_notes] + [""]

    results = {}
    for name in names:
        log(f"{name}: generating")
        wl = MAKERS[name](scale)
        log(f"{name}: {wl.title}; timing")
        rows, conversions, notes = bench_workload(wl, peers, args.repeat, args.peer_budget, log)
        results[name] = (rows, conversions, wl.input_bytes)
        header, cells = table_lines(wl, rows, conversions)
        heading = f"{name}: {wl.title}. Inputs {wl.input_bytes / MIB:.1f} MiB."
        reduced = [
            f"{r.tool}{'' if r.conversion else ' ' + r.metric}: {r.note}"
            for r in conversions + rows
            if r.note
        ]
        extra = notes + (["fewer repetitions: " + "; ".join(reduced)] if reduced else [])
        print(f"\n{heading}")
        print(format_text(header, cells))
        for note in extra:
            print("note:", note)
        md += [f"### {heading}", "", format_markdown(header, cells), ""]
        md += [f"- {note}" for note in extra] + [""]
        del wl, rows, conversions
        gc.collect()

    summary = checks(results, peers)
    summary.append(small_call_check())
    counts = {s: sum(1 for x in summary if x[0] == s) for s in ("PASS", "FAIL", "SKIP")}
    total = time.perf_counter() - started
    print("\nSummary of the targets" + (" (QUICK run: sizes 10x smaller)" if args.quick else ""))
    print(format_text(["status", "check", "measured"], summary))
    print(
        f"{counts['PASS']} PASS, {counts['FAIL']} FAIL, {counts['SKIP']} SKIP "
        f"('info' lines are context, not targets). Total run time {total / 60:.1f} min."
    )
    md += [
        "### Summary of the targets",
        "",
        format_markdown(["status", "check", "measured"], summary),
        "",
    ]
    md += [
        f"{counts['PASS']} PASS, {counts['FAIL']} FAIL, {counts['SKIP']} SKIP. "
        f"Total run time {total / 60:.1f} min.",
        "",
    ]
    table = readme_table(results)
    print(
        "\nThe README's table (ratios: time / sklearn_rank's time; n_jobs=2: its time and "
        "speed-up in the n_jobs pairs)"
    )
    print(table)
    md += ["### The README's table", "", table, ""]
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(md))
        log(f"markdown written to {args.markdown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
