"""``n_jobs``: the same values to the bit on any number of threads, and no threads where
they cannot pay.

The thresholds below which a call stays on one thread are lowered here, so that inputs of
a few hundred rows are cut into many blocks of queries (and their ids factorized in
several value ranges, their top-N rows joined in several blocks, their checks done in
several chunks): every metric of the registry, with and without a cut-off, in both tie
modes and under every preset, over every input form, must give per-query values and
means equal to the bit to those of one thread.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse
from threadpoolctl import threadpool_limits

import sklearn_rank as sr
from sklearn_rank.conventions._declarations import PRESETS
from sklearn_rank.inputs import _items
from sklearn_rank.metrics import _blocks
from sklearn_rank.metrics._registry import METRICS
from sklearn_rank.utils import _ids, _threads
from sklearn_rank.utils._threads import _check_n_jobs

# The click-log estimators need a side input (the propensities) that the inputs here do not
# carry; tests/metrics/test_clicks.py checks them on the forms that carry one.
METRICS = {name: metric for name, metric in METRICS.items() if metric.side_inputs is None}

NAMES = list(METRICS) + [f"{m.name}@3" for m in METRICS.values() if m.takes_k]


@pytest.fixture
def small_blocks(monkeypatch):
    monkeypatch.setattr(_blocks, "_MIN_BLOCK_ENTRIES", 8)
    monkeypatch.setattr(_ids, "_SPLIT_ROWS", 16)
    monkeypatch.setattr(_threads, "_CHUNK", 64)
    monkeypatch.setattr(_items, "_BLOCK", 64)


def _relevance(rng, shape, fractional):
    rel = rng.integers(0, 4, shape) * (rng.random(shape) < 0.3)
    return rel * 0.3 if fractional else rel


def _forms(seed, fractional):
    """Every input form, on random data with ties, missing judgments and queries without
    a relevant item: (name, y_true, y_score, keyword arguments)."""
    rng = np.random.default_rng(seed)
    n_queries, width = 70, 30
    rel = _relevance(rng, (n_queries, width), fractional)
    rel[:5] = 0  # queries without a relevant item
    score = rng.integers(0, 6, (n_queries, width)) / 4.0  # many ties
    weight = rng.integers(1, 4, n_queries).astype(float)
    yield "dense", rel, score, {"sample_weight": weight}
    yield "sparse truth", scipy.sparse.csr_matrix(rel), score, {}
    exclude = rng.random((n_queries, width)) < 0.1
    yield "dense with exclude", rel, score, {"exclude": exclude}

    sizes = rng.integers(1, 25, 60)
    codes = np.repeat(np.arange(sizes.size), sizes)
    long_rel = _relevance(rng, codes.size, fractional)
    long_score = rng.integers(0, 5, codes.size).astype(float)
    yield "long, grouped", long_rel, long_score, {"groups": codes * 7}
    shuffle = rng.permutation(codes.size)
    ids = np.array([f"q{c}" for c in codes])[shuffle]
    yield "long, shuffled", long_rel[shuffle], long_score[shuffle], {"groups": ids}

    top = np.argsort(rng.random((n_queries, 40)), axis=1)[:, :12]
    truth = scipy.sparse.csr_matrix(_relevance(rng, (n_queries, 40), fractional))
    yield "top-N ids", truth, sr.ItemRanking.from_topn(top), {}

    run_q = np.repeat(np.arange(40), 15)
    run_i = rng.integers(0, 60, run_q.size)
    keep = np.unique(run_q * 100 + run_i, return_index=True)[1]
    run_q, run_i = run_q[keep], run_i[keep]
    ranking = sr.ItemRanking(run_q, run_i, rng.integers(0, 4, run_q.size).astype(float))
    true_q = np.repeat(np.arange(45), 8)  # queries the run has nothing for, too
    true_i = rng.integers(0, 60, true_q.size)
    keep = np.unique(true_q * 100 + true_i, return_index=True)[1]
    true_rel = _relevance(rng, keep.size, fractional)
    judgments = sr.ItemJudgments(true_q[keep], true_i[keep], true_rel)
    yield "ItemRanking with ItemJudgments", judgments, ranking, {}


def _per_query(y_true, y_score, names, n_jobs, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        values = sr.evaluate(y_true, y_score, names, per_query=True, n_jobs=n_jobs, **kwargs)
        means = sr.evaluate(y_true, y_score, names, n_jobs=n_jobs, **kwargs)
    return values, means, sorted(str(w.message) for w in caught)


def _assert_same(one, many, form=""):
    values, means, messages = one
    values_n, means_n, messages_n = many
    for name in values:
        assert np.array_equal(values[name], values_n[name], equal_nan=True), (form, name)
        assert means[name] == means_n[name] or (np.isnan(means[name]) and np.isnan(means_n[name]))
    assert messages == messages_n


@pytest.mark.slow
@pytest.mark.parametrize("fractional", [False, True], ids=["integer rel", "fractional rel"])
@pytest.mark.parametrize("ties", ["average", "stable"])
@pytest.mark.parametrize("seed", [0, 1])
def test_every_metric_and_form_is_the_same_on_several_threads(small_blocks, seed, ties, fractional):
    for form, y_true, y_score, kwargs in _forms(seed, fractional):
        one = _per_query(y_true, y_score, NAMES, 1, ties=ties, **kwargs)
        many = _per_query(y_true, y_score, NAMES, 3, ties=ties, **kwargs)
        _assert_same(one, many, form)


@pytest.mark.slow
@pytest.mark.parametrize("convention", sorted(PRESETS))
def test_every_preset_is_the_same_on_several_threads(small_blocks, convention):
    computed = 0
    for form, y_true, y_score, kwargs in _forms(5, fractional=False):
        results = []
        for n_jobs in (1, 2):
            try:
                results.append(
                    _per_query(y_true, y_score, NAMES, n_jobs, convention=convention, **kwargs)
                )
            except ValueError as error:  # a form the preset's tool cannot read
                results.append(str(error))
        if isinstance(results[0], str):
            assert results[0] == results[1], form
        else:
            _assert_same(*results, form)
            computed += 1
    assert computed >= 3


def _uneven_forms(seed):
    """Input forms whose blocks differ: each third of the queries has its own grade scale
    (binary, 0-4, fractional up to 7.5), its own list lengths and its own item counts, so
    that a statistic computed per block (ERR's top grade) would differ from the whole's."""
    rng = np.random.default_rng(seed)
    n_queries, width = 90, 24
    scale = np.repeat([1.0, 4.0, 7.5], n_queries // 3)[:, None]
    grades = np.where(scale == 7.5, rng.integers(0, 16, (n_queries, width)) * 0.5, 0.0)
    grades = np.where(scale == 4.0, rng.integers(0, 5, (n_queries, width)), grades)
    grades = np.where(scale == 1.0, rng.integers(0, 2, (n_queries, width)), grades)
    rel = grades * (rng.random((n_queries, width)) < 0.35)
    rel[[0, 40, 80]] = 0  # a query without a relevant item in each third
    score = rng.integers(0, 6, (n_queries, width)) / 4.0
    yield "dense", rel, score, {}
    yield "sparse truth", scipy.sparse.csr_matrix(rel), score, {}
    sizes = np.concatenate(
        [rng.integers(1, 6, 30), rng.integers(10, 40, 30), rng.integers(2, 15, 30)]
    )
    codes = np.repeat(np.arange(sizes.size), sizes)
    long_rel = np.round(
        rng.random(codes.size)
        * np.repeat([1.0, 4.0, 7.5], [sizes[:30].sum(), sizes[30:60].sum(), sizes[60:].sum()])
    ) * (rng.random(codes.size) < 0.4)
    long_score = rng.integers(0, 5, codes.size).astype(float)
    shuffle = rng.permutation(codes.size)
    yield "long, shuffled", long_rel[shuffle], long_score[shuffle], {"groups": codes[shuffle]}
    order = np.argsort(rng.random((n_queries, 40)), axis=1)
    top = [row[: 3 + i % 9] for i, row in enumerate(order)]  # lists of 3 to 11 ids
    truth = scipy.sparse.csr_matrix(np.hstack([rel, rel[:, :16]]))
    yield "top-N ids", truth, sr.ItemRanking.from_topn(top), {}


@pytest.mark.parametrize("convention", [None, "trec_eval"])
def test_blocks_with_different_grade_scales_give_the_values_of_one_thread(small_blocks, convention):
    # The whole input's statistics (ERR's top grade: 7.5 here) reach every block.
    computed = 0
    for form, y_true, y_score, kwargs in _uneven_forms(7):
        if convention == "trec_eval" and "groups" in kwargs:
            continue  # trec_eval's tie rule reads item ids, which long format lacks
        one = _per_query(y_true, y_score, NAMES, 1, convention=convention, **kwargs)
        many = _per_query(y_true, y_score, NAMES, 4, convention=convention, **kwargs)
        _assert_same(one, many, form)
        computed += 1
    assert computed >= 3


def test_err_reads_the_top_grade_of_the_whole_input_on_any_number_of_threads():
    rng = np.random.default_rng(0)
    y = (rng.random((400, 1000)) < 0.01).astype(float)
    y[200:] *= 4
    s = rng.random((400, 1000))
    one = sr.err_score(y, s, k=10, n_jobs=1)
    assert sr.err_score(y, s, k=10, n_jobs=4) == one
    assert one == sr.err_score(y, s, k=10, max_grade=4)  # the whole input's largest grade


def test_the_inputs_are_really_cut_into_blocks(small_blocks, monkeypatch):
    # Otherwise the tests above would compare one thread with itself.
    seen = []
    split = _blocks._split_queries

    def counting(queries, n_threads):
        blocks = split(queries, n_threads)
        seen.append(len(blocks))
        return blocks

    monkeypatch.setattr("sklearn_rank.metrics._evaluate._split_queries", counting)
    for form, y_true, y_score, kwargs in _forms(0, fractional=False):
        seen.clear()
        sr.evaluate(y_true, y_score, ["ndcg@3"], n_jobs=3, **kwargs)
        assert seen and seen[0] == 6, form  # 2 blocks per thread


def test_factorizing_in_value_ranges_gives_the_same_codes(small_blocks):
    rng = np.random.default_rng(3)
    for ids in (
        rng.integers(-(2**62), 2**62, 40)[rng.integers(0, 40, 3000)],
        np.array([f"id{v}" for v in rng.integers(0, 500, 2000)]),
        rng.integers(0, 3, 1000),  # fewer distinct ids than threads
        np.array([0.5, -0.0, 0.0, 2.5] * 100),  # -0.0 and 0.0 are one id, shown as first
    ):
        codes, distinct = _ids._factorize(ids, None)
        assert len(_ids._value_ranges(ids, 3)) > 1
        codes_n, distinct_n = _ids._factorize(ids, None, n_threads=3)
        np.testing.assert_array_equal(codes, codes_n)
        assert distinct.dtype == distinct_n.dtype
        assert distinct.tobytes() == distinct_n.tobytes()
        np.testing.assert_array_equal(distinct[codes], ids)  # the codes name the ids


def test_small_inputs_start_no_thread(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a thread pool was started for a small input")

    monkeypatch.setattr("concurrent.futures.ThreadPoolExecutor", refuse)
    rng = np.random.default_rng(0)
    y_true, y_score = rng.integers(0, 3, (10, 10)), rng.random((10, 10))
    expected = sr.evaluate(y_true, y_score, ["ndcg@10", "map"])
    assert sr.evaluate(y_true, y_score, ["ndcg@10", "map"], n_jobs=-1) == expected
    assert (
        sr.evaluate(
            y_true.ravel(), y_score.ravel(), ["map"], groups=np.arange(100) // 10, n_jobs=4
        )["map"]
        == expected["map"]
    )


def test_errors_from_a_block_are_those_of_one_thread(small_blocks):
    top = np.tile(np.arange(12), (70, 1))
    top[50, 3] = top[50, 4]  # a repeated id in a late block
    truth = scipy.sparse.csr_matrix(np.ones((70, 12)))
    messages = []
    for n_jobs in (1, 3):
        with pytest.raises(ValueError) as raised:
            sr.evaluate(truth, sr.ItemRanking.from_topn(top), ["map"], n_jobs=n_jobs)
        messages.append(str(raised.value))
    assert messages[0] == messages[1]
    assert "for query 50" in messages[0]


def test_metric_functions_take_n_jobs(small_blocks):
    rng = np.random.default_rng(4)
    y_true, y_score = rng.integers(0, 3, (40, 20)), rng.integers(0, 4, (40, 20))
    for metric in METRICS.values():
        function = getattr(sr, metric.function)
        one = function(y_true, y_score, per_query=True)
        np.testing.assert_array_equal(one, function(y_true, y_score, per_query=True, n_jobs=2))


@pytest.mark.parametrize("bad", [0, 1.5, True, "2", np.float64(2.0)])
def test_bad_n_jobs_is_refused_by_name(bad):
    with pytest.raises(ValueError, match=r"n_jobs must be None, a positive integer"):
        sr.evaluate([[1, 0]], [[0.5, 0.2]], ["map"], n_jobs=bad)
    with pytest.raises(ValueError, match=r"n_jobs must be None"):
        sr.ndcg_score([[1, 0]], [[0.5, 0.2]], n_jobs=bad)


def test_n_jobs_has_scikit_learns_meaning(monkeypatch):
    monkeypatch.setattr(_threads, "_usable_cores", lambda: 8)
    monkeypatch.setattr(_threads, "_native_thread_limit", lambda: 8)
    assert _check_n_jobs(None) == 1
    assert _check_n_jobs(3) == 3
    assert _check_n_jobs(np.int64(2)) == 2
    assert _check_n_jobs(-1) == 8
    assert _check_n_jobs(-2) == 7
    assert _check_n_jobs(-20) == 1


def test_every_core_honours_a_threadpool_limit():
    with threadpool_limits(limits=1):
        assert _check_n_jobs(-1) == 1
        assert _check_n_jobs(2) == 2  # asked for explicitly: as given


@pytest.mark.parametrize(
    "environment",
    [{}, {"LOKY_MAX_CPU_COUNT": "1"}, {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}],
)
def test_cores_counted_without_joblib_are_joblibs_count(environment):
    """Before joblib is imported (the command line never imports it) the cores are those
    joblib would count, under the limits of the environment too."""
    import os
    import subprocess
    import sys

    code = (
        "import sys\n"
        "import numpy  # (its BLAS: a native pool the environment may limit)\n"
        "from sklearn_rank.utils._threads import _check_n_jobs\n"
        "ours = _check_n_jobs(-1)\n"
        "assert 'joblib' not in sys.modules\n"
        "import joblib\n"
        "print(ours, joblib.cpu_count())\n"
    )
    env = {**os.environ, **environment}
    ours, joblibs = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout.split()
    code = code.replace("ours = _check_n_jobs(-1)", "import joblib; ours = _check_n_jobs(-1)")
    code = code.replace("assert 'joblib' not in sys.modules", "")
    before = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout.split()[0]
    assert ours == before  # what joblib's count and the native pools' limits give
    if environment:
        assert ours == "1"


@pytest.mark.parametrize(
    "files, quota",
    [
        ({"/sys/fs/cgroup/cpu.max": "150000 100000\n"}, 2),
        ({"/sys/fs/cgroup/cpu.max": "max 100000\n"}, None),
        (
            {
                "/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "300000\n",
                "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n",
            },
            3,
        ),
        ({"/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "-1\n"}, None),
        ({}, None),
    ],
)
def test_a_containers_cpu_quota_caps_the_cores(monkeypatch, files, quota):
    import io

    def fake_open(path, *args, **kwargs):
        if path not in files:
            raise FileNotFoundError(path)
        return io.StringIO(files[path])

    monkeypatch.setattr(_threads, "open", fake_open, raising=False)
    assert _threads._cgroup_cpu_quota() == quota


def test_the_command_line_takes_jobs(tmp_path, capsys):
    from sklearn_rank.cli import main

    rng = np.random.default_rng(6)
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text(
        "".join(f"{q} 0 d{d} {rng.integers(0, 3)}\n" for q in range(30) for d in range(8))
    )
    run.write_text(
        "".join(
            f"{q} Q0 d{d} {r} {s} x\n"
            for q in range(30)
            for r, (d, s) in enumerate(zip(rng.permutation(12), np.sort(rng.random(12))[::-1]))
        )
    )
    outputs = []
    for extra in ([], ["--jobs", "2"], ["-j", "-1"]):
        argv = ["evaluate", "--qrels", str(qrels), "--run", str(run), "-m", "ndcg@5", "map"]
        assert main(argv + ["--format", "json"] + extra) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] == outputs[2]
    assert main(["evaluate", "--qrels", str(qrels), "--run", str(run), "--jobs", "0"]) == 2
    assert "--jobs: must be a positive number of threads" in capsys.readouterr().err


def test_compare_is_the_same_on_several_threads(small_blocks):
    rng = np.random.default_rng(8)
    y_true = rng.integers(0, 3, (60, 20))
    runs = {name: rng.integers(0, 5, (60, 20)) / 4.0 for name in ("a", "b", "c")}
    one = sr.compare(y_true, runs, ["ndcg@5", "map"], random_state=0)
    many = sr.compare(y_true, runs, ["ndcg@5", "map"], random_state=0, n_jobs=2)
    for metric in ("ndcg@5", "map"):
        np.testing.assert_array_equal(one.per_query[metric], many.per_query[metric])
    for column, values in one.pairs.items():
        np.testing.assert_array_equal(values, many.pairs[column])


def test_the_block_runner_keeps_block_order_and_uses_the_calling_thread():
    import threading
    import time

    caller = threading.get_ident()
    seen = []

    def work(block):
        time.sleep(0.002 * (block % 3))  # blocks end out of order
        seen.append(threading.get_ident())
        return block * block

    with _threads._block_runner(9, 3) as run:
        assert run(work, range(9)) == [b * b for b in range(9)]
        assert run(work, range(9, 12)) == [b * b for b in range(9, 12)]  # the pool is reused
    assert caller in seen  # the calling thread took blocks
    assert 1 < len(set(seen)) <= 3


def test_the_block_runner_raises_the_first_error_in_block_order():
    import time

    def work(block):
        if block == 1:
            time.sleep(0.05)  # fails after block 4 has failed
            raise ValueError("block 1")
        if block == 4:
            raise KeyError("block 4")
        return block

    with _threads._block_runner(6, 2) as run:
        with pytest.raises(ValueError, match="block 1"):
            run(work, range(6))


@pytest.mark.parametrize("error", [ValueError, KeyboardInterrupt])
def test_no_block_starts_after_a_block_failed(error):
    # Blocks after the first failure are not started: an error (or Ctrl-C, which lands in
    # the calling thread) does not wait for the rest of the job.
    import time

    started = []

    def work(block):
        started.append(block)
        if block == 2:
            raise error("stop")
        time.sleep(0.01)
        return block

    with _threads._block_runner(200, 2) as run:
        with pytest.raises(error, match="stop"):
            run(work, range(200))
    assert set(range(3)) <= set(started)  # every block before the failure ran
    assert len(started) < 10  # and almost none after it (those already taken)
