"""The file readers against pandas.read_csv (and pyarrow.csv.read_csv) on 10^6-line files.

Writes a TREC run of 10,000 queries x 100 documents (10^6 lines), a qrels file of the same
size and the run as a CSV table with a header, then prints, for each file, the median time
and the peak memory of:

- `read_trec_run` / `read_trec_qrels` / `read_table` (the library's reader: pyarrow's path
  when pyarrow imports, else line by line),
- the same reader forced line by line (the reader as it was before the pyarrow path),
- ``pandas.read_csv(path, sep=" ", header=None)`` (``pandas.read_csv(path)`` for the CSV
  table): the peer of the target, 2x its time and memory at most,
- ``pyarrow.csv.read_csv`` with the same delimiter, when pyarrow imports.

Time: the median over ``--repeat`` calls of the wall-clock time, and of the CPU time of the
process (every thread: pyarrow parses in threads of its own, the library converts each
block of fields on as many), the readers in turn in each repetition (a slow spell of a
shared machine hits them all), in this process, after one untimed call each. On a
machine shared with other jobs the CPU time says more than the wall-clock time.

Memory: the growth of the process's peak resident set size during one call, each call in a
fresh Python process that has imported and warmed up everything first (Linux: the peak is
reset through /proc/self/clear_refs and read as VmHWM; elsewhere the peak of the whole
process, ru_maxrss, less the resident size before the call). pyarrow and pandas allocate
outside Python's allocator, which tracemalloc does not see, so the resident set is the one
measure that is the same for all. It includes the result, which is alive at the end.

Run: python benchmarks/readers.py [--repeat 5] [--lines 1000000] [--folder DIR]
"""

import argparse
import gc
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

DOCS_PER_QUERY = 100


def write_files(folder, n_lines):
    """The run, qrels and CSV files of ``n_lines`` lines each; {kind: path}."""
    rng = np.random.default_rng(0)
    n_queries = n_lines // DOCS_PER_QUERY
    queries = np.repeat(np.arange(n_queries), DOCS_PER_QUERY)
    ranks = np.tile(np.arange(1, DOCS_PER_QUERY + 1), n_queries)
    paths = {kind: os.path.join(folder, name) for kind, name in NAMES.items()}
    docs = rng.integers(0, 10**6, (n_queries, 3 * DOCS_PER_QUERY))
    # Distinct documents per query: the first 100 distinct of 300 draws (sorted, unique).
    run_docs = np.array([np.unique(row)[:DOCS_PER_QUERY] for row in docs]).ravel()
    scores = (-np.sort(-rng.random((n_queries, DOCS_PER_QUERY)), axis=1)).ravel().tolist()
    qids, dids = queries.tolist(), run_docs.tolist()
    with open(paths["run"], "w") as f:
        f.writelines(
            f"{q} Q0 doc{d} {r} {s!r} run\n"
            for q, d, r, s in zip(qids, dids, ranks.tolist(), scores)
        )
    with open(paths["table"], "w") as f:
        f.write("query,item,score\n")
        f.writelines(f"{q},doc{d},{s!r}\n" for q, d, s in zip(qids, dids, scores))
    relevance = rng.integers(0, 3, queries.size).tolist()
    rng.shuffle(docs, axis=1)
    judged = np.array([np.unique(row)[:DOCS_PER_QUERY] for row in docs[:, ::-1]]).ravel()
    with open(paths["qrels"], "w") as f:
        f.writelines(f"{q} 0 doc{d} {r}\n" for q, d, r in zip(qids, judged.tolist(), relevance))
    return paths


NAMES = {"run": "run.txt", "qrels": "qrels.txt", "table": "run.csv"}


def _readers():
    """{file kind: {row label: (setup, call)}}; setup(flag) switches the reader's path."""
    import sklearn_rank as sr
    from sklearn_rank.inputs import read_table

    try:
        from sklearn_rank.inputs import _fast_files
    except ImportError:  # the library before the pyarrow path
        _fast_files = None

    def path_switch(enabled):
        def setup():
            if _fast_files is not None:
                _fast_files._ENABLED = enabled

        return setup

    ours = {
        "run": ("read_trec_run", sr.read_trec_run),
        "qrels": ("read_trec_qrels", sr.read_trec_qrels),
        "table": (
            "read_table",
            lambda path: read_table(path, query="query", item="item", score="score"),
        ),
    }
    readers = {}
    for kind, (name, call) in ours.items():
        rows = {name: (path_switch(True), call)}
        if _fast_files is not None:
            rows[f"{name}, line by line"] = (path_switch(False), call)
        try:
            import pandas

            sep = {"sep": " ", "header": None} if kind != "table" else {}
            rows["pandas.read_csv"] = (path_switch(True), lambda p, s=sep: pandas.read_csv(p, **s))
        except ImportError:
            pass
        try:
            import pyarrow.csv

            def arrow(path, kind=kind):
                options = pyarrow.csv.ParseOptions(delimiter=" " if kind != "table" else ",")
                read = pyarrow.csv.ReadOptions(autogenerate_column_names=kind != "table")
                return pyarrow.csv.read_csv(path, read_options=read, parse_options=options)

            rows["pyarrow.csv.read_csv"] = (path_switch(True), arrow)
        except Exception:  # noqa: BLE001 - pyarrow absent or broken: no row
            pass
        readers[kind] = rows
    return readers


def _status_kib(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise KeyError(field)


def memory_child(kind, label, path, warm_path):
    """In a fresh process: the growth of the peak resident set during one call (bytes)."""
    setup, call = _readers()[kind][label]
    setup()
    call(warm_path)  # imports and first-call costs outside the measurement
    gc.collect()
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # reset VmHWM to the current resident size
        before = _status_kib("VmRSS")
        result = call(path)
        growth = _status_kib("VmHWM") - before
    except OSError:
        before = _status_kib("VmRSS") if os.path.exists("/proc/self/status") else 0
        result = call(path)
        growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    del result
    print(json.dumps(growth * 1024))


def peak_memory(kind, label, path, warm_path):
    done = subprocess.run(
        [sys.executable, __file__, "--memory-child", kind, label, path, warm_path],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _small_copy(path, folder, lines=1000):
    """The first lines of a file, to warm up each reader without timing it."""
    small = os.path.join(folder, "warm_" + os.path.basename(path))
    with open(path) as f, open(small, "w") as out:
        for _, line in zip(range(lines), f):
            out.write(line)
    return small


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--lines", type=int, default=10**6)
    parser.add_argument("--folder", default=None, help="where to write the files (a temp dir)")
    parser.add_argument("--memory-child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(*args.memory_child)
        return
    load_before = os.getloadavg()
    folder = args.folder or tempfile.mkdtemp(prefix="sklearn_rank_readers_")
    os.makedirs(folder, exist_ok=True)
    start = time.perf_counter()
    paths = write_files(folder, args.lines)
    sizes = {kind: os.path.getsize(path) / 2**20 for kind, path in paths.items()}
    print(
        f"files: {args.lines:,} lines each ({args.lines // DOCS_PER_QUERY:,} queries x "
        f"{DOCS_PER_QUERY}); run {sizes['run']:.1f} MiB, qrels {sizes['qrels']:.1f} MiB, "
        f"CSV table {sizes['table']:.1f} MiB; written in {time.perf_counter() - start:.1f} s",
        file=sys.stderr,
    )
    readers = _readers()
    import sklearn_rank

    print(f"sklearn_rank from {os.path.dirname(sklearn_rank.__file__)}", file=sys.stderr)
    results = {}
    for kind, rows in readers.items():
        times = {label: [] for label in rows}
        cpu = {label: [] for label in rows}
        for setup, call in rows.values():  # first calls: imports, caches
            setup()
            call(paths[kind])
        for repetition in range(args.repeat):
            labels = list(rows)
            shift = repetition % len(labels)
            for label in labels[shift:] + labels[:shift]:
                setup, call = rows[label]
                setup()
                gc.collect()
                begin, begin_cpu = time.perf_counter(), time.process_time()
                result = call(paths[kind])
                times[label].append(time.perf_counter() - begin)
                cpu[label].append(time.process_time() - begin_cpu)
                del result
        warm = _small_copy(paths[kind], folder)
        for label in rows:
            memory = peak_memory(kind, label, paths[kind], warm)
            results[kind, label] = (
                statistics.median(times[label]),
                statistics.median(cpu[label]),
                memory,
            )
            print(f"  {kind}: {label} done", file=sys.stderr)
    _print_table(results, args)
    load_after = os.getloadavg()
    print(
        f"\nload average (1, 5, 15 min): {', '.join(f'{x:.2f}' for x in load_before)} before, "
        f"{', '.join(f'{x:.2f}' for x in load_after)} after; {os.cpu_count()} logical CPUs; "
        f"median of {args.repeat} calls; memory = peak resident set growth in a fresh process"
    )


def _ratio(ours, peer):
    return f"{ours / peer:.2f}" if peer else "-"


def _print_table(results, args):
    header = (
        f"{'file':<7}{'reader':<31}{'wall s':>8}{'x pandas':>9}{'CPU s':>8}{'x pandas':>9}"
        f"{'peak MiB':>9}{'x pandas':>9}"
    )
    print(header)
    print("-" * len(header))
    for (kind, label), (seconds, cpu, memory) in results.items():
        peer = results.get((kind, "pandas.read_csv"), (0, 0, 0))
        print(
            f"{kind:<7}{label:<31}{seconds:>8.3f}{_ratio(seconds, peer[0]):>9}{cpu:>8.3f}"
            f"{_ratio(cpu, peer[1]):>9}{memory / 2**20:>9.1f}{_ratio(memory, peer[2]):>9}"
        )
    targets = []
    for kind, name in (("run", "read_trec_run"), ("qrels", "read_trec_qrels")):
        ours, peer = results.get((kind, name)), results.get((kind, "pandas.read_csv"))
        if ours and peer:
            verdict = ours[0] <= 2 * peer[0] and ours[2] <= 2 * peer[2]
            targets.append(
                f"{name} within 2x of pandas' time and memory: {'PASS' if verdict else 'FAIL'} "
                f"({ours[0] / peer[0]:.2f}x wall time, {ours[1] / peer[1]:.2f}x CPU time, "
                f"{ours[2] / peer[2]:.2f}x memory)"
            )
    if targets:
        print()
        print("\n".join(targets))


if __name__ == "__main__":
    main()
