"""`sklearn-rank evaluate QRELS RUN` against the trec_eval binary on trec_eval's own files.

Writes, into a temporary folder, a TREC run of 2,000 queries x 1,000 string docnos
(2,000,000 lines) and qrels of 200 judgments per query (400,000 lines; about half of them
retrieved by the run), then in the same run, alternately, ``--repeat`` times each:

- the trec_eval binary (``--trec-eval``, default ``~/.cache/trec_eval/trec_eval``, which
  ``../shared/tools/build-trec-eval`` builds), with its default measures and with
  ``-q -m all_trec``; when the binary is absent the script says so and prints our side only;
- ``sklearn-rank evaluate QRELS RUN`` with the same options, one thread and ``-j 2``;
- in this process: ``read_trec_qrels``, ``read_trec_run`` and ``read_table`` (the run as a
  CSV table ``query,item,score``) against ``pandas.read_csv`` of the same files, ``evaluate`` of
  ``["map", "ndcg", "P_10"]`` under ``convention="trec_eval"`` on the read files, and the
  same rows with the ids as integers;
- the peak memory of each reader and of ``pandas.read_csv``, each in a fresh process.

Each command's time is its wall-clock time, its memory the peak resident set size (max
RSS) of its process, read from ``os.wait4``. The outputs of one and two threads are
compared with trec_eval's (values of the measures both print). Ratios are of the
medians measured in this run. Run: python benchmarks/trec_eval_cli.py [--repeat 3]
[--queries 2000] [--docs 1000] [--judged 200] [--folder DIR]
"""

import argparse
import gc
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

TREC_EVAL = os.path.expanduser("~/.cache/trec_eval/trec_eval")


def write_files(folder, n_queries, n_docs, n_judged, seed=0):
    """A run and its qrels, TREC format, with GOV2-like string docnos; {kind: path}."""
    rng = np.random.default_rng(seed)
    paths = {
        "run": os.path.join(folder, "run.txt"),
        "qrels": os.path.join(folder, "qrels.txt"),
        "table": os.path.join(folder, "run.csv"),
    }
    corpus = 25_000_000
    topics = np.arange(301, 301 + n_queries)
    with (
        open(paths["run"], "w") as run,
        open(paths["qrels"], "w") as qrels,
        open(paths["table"], "w") as table,
    ):
        table.write("query,item,score\n")
        for topic in topics.tolist():
            docs = np.unique(rng.integers(0, corpus, 2 * n_docs))
            rng.shuffle(docs)
            ranked = docs[:n_docs]
            # Half of the judged documents retrieved, half not.
            judged = np.concatenate([ranked[: 2 * n_judged : 4], docs[n_docs:][: n_judged // 2]])
            judged = judged[:n_judged]
            scores = np.round(np.sort(rng.normal(size=n_docs))[::-1] * 10, 4)
            names = [f"GX{d // 10**6:03d}-{d // 10**4 % 100:02d}-{d % 10**4:07d}" for d in ranked]
            run.writelines(
                f"{topic} Q0 {name} {rank} {score!r} bench\n"
                for rank, (name, score) in enumerate(zip(names, scores.tolist()), 1)
            )
            table.writelines(
                f"{topic},{name},{score!r}\n" for name, score in zip(names, scores.tolist())
            )
            grades = rng.choice([0, 0, 0, 1, 2], judged.size).tolist()
            judged_names = [
                f"GX{d // 10**6:03d}-{d // 10**4 % 100:02d}-{d % 10**4:07d}" for d in judged
            ]
            qrels.writelines(f"{topic} 0 {n} {g}\n" for n, g in zip(judged_names, grades))
    return paths


def run_command(command, env=None):
    """(wall-clock seconds, max RSS in bytes, CPU seconds, stdout) of one process."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True
    )
    output = process.stdout.read()
    _pid, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(command)} failed with status {status}")
    return seconds, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime, output


def values(output):
    """{(measure, query): text} of trec_eval's three columns."""
    lines = (line.split("\t") for line in output.splitlines() if line.strip())
    return {(fields[0].strip(), fields[1]): fields[2] for fields in lines if len(fields) == 3}


# pandas.read_csv of each file, as a user would read it.
_PANDAS_OPTIONS = {
    "qrels": {"sep": " ", "header": None},
    "run": {"sep": " ", "header": None},
    "table": {},
}
_OUR_READERS = {
    "qrels": "sr.read_trec_qrels(path)",
    "run": "sr.read_trec_run(path)",
    "table": "sr.read_table(path, query='query', item='item', score='score')",
}


# The peak resident memory of this process (VmHWM: since its exec; a fork's max RSS from
# wait4 would count the parent's pages too).
_PRINT_PEAK = (
    "; print(next(int(line.split()[1]) * 1024 for line in open('/proc/self/status') "
    "if line.startswith('VmHWM')))"
)


def reader_memory(paths, env):
    """{(kind, reader): peak RSS in bytes} of a fresh process that imports the reader's
    library and reads the file: ours and pandas.read_csv."""
    peaks = {}
    for kind, call in _OUR_READERS.items():
        for reader, code in (
            ("sklearn_rank", f"import sklearn_rank as sr; path = {paths[kind]!r}; {call}"),
            (
                "pandas",
                f"import pandas; pandas.read_csv({paths[kind]!r}, **{_PANDAS_OPTIONS[kind]!r})",
            ),
        ):
            output = run_command([sys.executable, "-c", code + _PRINT_PEAK], env)[3]
            peaks[kind, reader] = int(output.split()[-1])
    return peaks


def in_process(paths, n_repeat):
    """{label: median seconds} of the readers, pandas and evaluate, in this process."""
    import sklearn_rank as sr

    try:
        import pandas
    except ImportError:
        pandas = None
    qrels, run = sr.read_trec_qrels(paths["qrels"]), sr.read_trec_run(paths["run"])
    # The same rows with integer ids: numbered once, outside the timing.
    _, query_codes = np.unique(np.concatenate([qrels.queries, run.queries]), return_inverse=True)
    _, item_codes = np.unique(np.concatenate([qrels.items, run.items]), return_inverse=True)
    n = len(qrels)
    int_qrels = sr.ItemJudgments(query_codes[:n], item_codes[:n], qrels.relevance)
    int_run = sr.ItemRanking(query_codes[n:], item_codes[n:], run.scores)
    metrics = ["map", "ndcg", "P_10"]
    calls = {
        "read_trec_qrels": lambda: sr.read_trec_qrels(paths["qrels"]),
        "read_trec_run": lambda: sr.read_trec_run(paths["run"]),
        "read_table": lambda: sr.read_table(
            paths["table"], query="query", item="item", score="score"
        ),
        "evaluate, string ids": lambda: sr.evaluate(qrels, run, metrics, convention="trec_eval"),
        "evaluate, integer ids": lambda: sr.evaluate(
            int_qrels, int_run, metrics, convention="trec_eval"
        ),
    }
    if pandas is not None:
        for kind, options in _PANDAS_OPTIONS.items():
            calls[f"pandas.read_csv, {kind}"] = lambda kind=kind, options=options: pandas.read_csv(
                paths[kind], **options
            )
    times = {label: [] for label in calls}
    for _ in range(n_repeat):
        for label, call in calls.items():
            gc.collect()
            start = time.perf_counter()
            call()
            times[label].append(time.perf_counter() - start)
    return {label: statistics.median(seconds) for label, seconds in times.items()}


def _has_pandas():
    try:
        import pandas  # noqa: F401
    except ImportError:
        return False
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--docs", type=int, default=1000)
    parser.add_argument("--judged", type=int, default=200)
    parser.add_argument("--folder", default=None, help="where to write the files (a temp dir)")
    parser.add_argument("--trec-eval", default=TREC_EVAL, help="the trec_eval binary")
    args = parser.parse_args()
    load_before = os.getloadavg()
    folder = args.folder or tempfile.mkdtemp(prefix="sklearn_rank_trec_eval_")
    os.makedirs(folder, exist_ok=True)
    try:
        start = time.perf_counter()
        paths = write_files(folder, args.queries, args.docs, args.judged)
        print(
            f"files: run of {args.queries * args.docs:,} lines, qrels of "
            f"{args.queries * args.judged:,}; written in {time.perf_counter() - start:.1f} s",
            file=sys.stderr,
        )
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env = dict(os.environ, PYTHONPATH=root)
        # As an installed package is: its modules compiled once (pip compiles them when it
        # installs), not again at every command as under PYTHONDONTWRITEBYTECODE.
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        ours = [sys.executable, "-m", "sklearn_rank", "evaluate", "--quiet"]
        files = [paths["qrels"], paths["run"]]
        have_binary = os.access(args.trec_eval, os.X_OK)
        if not have_binary:
            print(f"trec_eval binary not found at {args.trec_eval}: our side only")
        cases = {}
        for name, options in (
            ("default measures", []),
            ("-q -m all_trec", ["-q", "-m", "all_trec"]),
        ):
            if have_binary:
                cases[name, "trec_eval"] = [args.trec_eval, *options, *files]
            cases[name, "sklearn-rank"] = [*ours, *options, *files]
            cases[name, "sklearn-rank -j 2"] = [*ours, "-j", "2", *options, *files]
        results = {case: [] for case in cases}
        outputs = {}
        run_command([*ours, *files], env)  # (untimed: compiles the modules, fills caches)
        for _ in range(args.repeat):  # alternately: a slow spell of the machine hits all
            for case, command in cases.items():
                seconds, rss, cpu, output = run_command(command, env)
                results[case].append((seconds, rss, cpu))
                outputs[case] = output
        measured = in_process(paths, args.repeat)
        memory = reader_memory(paths, env) if _has_pandas() else {}
    finally:
        if args.folder is None:
            shutil.rmtree(folder, ignore_errors=True)
    _report(cases, results, outputs, measured, have_binary, args)
    for kind in _OUR_READERS:
        if (kind, "pandas") in memory:
            ours, theirs = memory[kind, "sklearn_rank"], memory[kind, "pandas"]
            print(
                f"{_OUR_READERS[kind].split('(')[0][3:]} peak memory {ours / 1e6:.0f} MB, "
                f"pandas.read_csv {theirs / 1e6:.0f} MB: {ours / theirs:.2f}x (target 1.5x; "
                "each a fresh process: import and read)"
            )
    try:
        import pyarrow

        path = f"pyarrow {pyarrow.__version__}: the readers' fast path"
    except Exception:  # noqa: BLE001 - absent or broken: the readers go line by line
        path = "pyarrow does not import: the readers read line by line"
    load_after = os.getloadavg()
    print(f"\n{path}")
    print(
        f"\nload average (1, 5, 15 min): {', '.join(f'{x:.2f}' for x in load_before)} before, "
        f"{', '.join(f'{x:.2f}' for x in load_after)} after; {os.cpu_count()} logical CPUs; "
        f"medians of {args.repeat} runs"
    )


def _report(cases, results, outputs, measured, have_binary, args):
    print(f"{'command':<42}{'wall s':>8}{'CPU s':>8}{'max RSS MB':>12}{'x time':>8}{'x RSS':>7}")
    for case in cases:
        seconds = statistics.median(r[0] for r in results[case])
        cpu = statistics.median(r[2] for r in results[case])
        rss = statistics.median(r[1] for r in results[case])
        ratios = ""
        if have_binary:
            peer = results[case[0], "trec_eval"]
            ratios = (
                f"{seconds / statistics.median(r[0] for r in peer):>8.2f}"
                f"{rss / statistics.median(r[1] for r in peer):>7.2f}"
            )
        print(f"{case[0] + ': ' + case[1]:<42}{seconds:>8.2f}{cpu:>8.2f}{rss / 1e6:>12.0f}{ratios}")
    for name in dict.fromkeys(case[0] for case in cases):
        ours = values(outputs[name, "sklearn-rank"])
        same_threads = ours == values(outputs[name, "sklearn-rank -j 2"])
        line = f"{name}: -j 2 output identical to one thread: {same_threads}"
        if have_binary:
            theirs = values(outputs[name, "trec_eval"])
            shared = [key for key in theirs if key in ours]
            differ = [key for key in shared if theirs[key] != ours[key]]
            line += f"; {len(shared)} values shared with trec_eval, {len(differ)} differ"
            if differ:
                line += f" ({', '.join(sorted({measure for measure, _query in differ}))})"
        print(line)
    print()
    for label, seconds in measured.items():
        print(f"{label:<42}{seconds:>8.2f}")
    if "pandas.read_csv, run" in measured:
        for kind, call in _OUR_READERS.items():
            reader = call.split("(")[0][3:]
            ratio = measured[reader] / measured[f"pandas.read_csv, {kind}"]
            print(f"{reader} / pandas.read_csv: {ratio:.2f}x (target 2x)")
    strings, integers = measured["evaluate, string ids"], measured["evaluate, integer ids"]
    print(f"evaluate, string ids / integer ids: {strings / integers:.2f}x (target 1.5x)")
    if have_binary:
        binary = statistics.median(r[0] for r in results["default measures", "trec_eval"])
        print(f"evaluate / trec_eval's whole run: {strings / binary:.2f}x (target 0.5x)")


if __name__ == "__main__":
    main()
