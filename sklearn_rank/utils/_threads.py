"""``n_jobs``: how many threads a call may use, and running independent blocks on them.

Threads, not processes: numpy releases the GIL in its sorts, partitions and reductions,
which are most of the work, and threads share the arrays without copying them. The blocks
a call is split into are independent (blocks of queries, or of rows), and their results
are combined in block order, so a result never depends on how many threads computed it.
"""

import contextlib
import itertools
import numbers
import os
import sys
import threading


def _check_n_jobs(n_jobs):
    """The number of threads ``n_jobs`` asks for, with scikit-learn's meaning.

    None: 1 (never the joblib default of an enclosing ``parallel_config``: a scorer inside
    a search with ``n_jobs`` must not multiply its processes by threads). A negative value
    counts from the cores this process may use (-1: all, -2: all but one), and is capped
    by a limit set with ``threadpoolctl.threadpool_limits`` or by joblib in its workers,
    both of which limit the native thread pools this call would otherwise compete with.
    """
    if n_jobs is None:
        return 1
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(
            "n_jobs must be None, a positive integer or a negative one (-1: every core); "
            f"got {n_jobs!r}."
        )
    n_jobs = int(n_jobs)
    if n_jobs > 0:
        return n_jobs
    return max(1, min(_usable_cores(), _native_thread_limit()) + 1 + n_jobs)


def _usable_cores():
    """The cores this process may run on, as joblib counts them: the affinity mask, capped
    by a container's CPU quota and by ``LOKY_MAX_CPU_COUNT`` (joblib's own count once
    joblib is imported: importing it takes ~0.1 s, most of a small command line's start)."""
    if "joblib" in sys.modules:
        from joblib import cpu_count

        return max(1, int(cpu_count()))
    cores = os.cpu_count() or 1
    limits = [cores, _cgroup_cpu_quota() or cores]
    if hasattr(os, "sched_getaffinity"):
        limits.append(len(os.sched_getaffinity(0)))
    if os.environ.get("LOKY_MAX_CPU_COUNT"):
        limits.append(int(os.environ["LOKY_MAX_CPU_COUNT"]))
    return max(1, min(limits))


def _cgroup_cpu_quota():
    """The CPU quota of this process's cgroup, rounded up (cgroup v2's cpu.max, or v1's
    cfs quota and period), or None."""
    for path, read in (
        ("/sys/fs/cgroup/cpu.max", lambda text: text.split()[:2]),
        ("/sys/fs/cgroup/cpu/cpu.cfs_quota_us", None),
    ):
        try:
            with open(path) as handle:
                text = handle.read()
            if read is None:
                with open("/sys/fs/cgroup/cpu/cpu.cfs_period_us") as handle:
                    quota, period = text.strip(), handle.read().strip()
            else:
                quota, period = read(text)
        except (OSError, ValueError):
            continue
        if quota in ("max", "-1") or not quota.isdigit() or not period.isdigit():
            return None
        return max(1, -(-int(quota) // max(int(period), 1)))
    return None


def _native_thread_limit():
    """The fewest threads any loaded native pool (BLAS, OpenMP) may use: 1 inside
    ``threadpool_limits(1)``, or what joblib gives each of its workers."""
    try:
        from threadpoolctl import threadpool_info  # scikit-learn's own dependency
    except ImportError:  # pragma: no cover
        return _usable_cores()
    limits = [int(pool["num_threads"]) for pool in threadpool_info() if pool.get("num_threads")]
    return min(limits) if limits else _usable_cores()


@contextlib.contextmanager
def _block_runner(n_blocks, n_threads):
    """A ``run(function, blocks)`` that gives ``[function(block) for block in blocks]``,
    computed on up to ``n_threads`` threads: the calling thread and helpers of one pool
    kept for the ``with`` block.

    The calling thread takes blocks too: its memory allocator holds the memory earlier
    steps freed, where a new thread's starts empty and pays a page fault for each page
    it touches first. With one block or one thread no pool is started: a small call
    costs what it costs without ``n_jobs``. The first error raised by a block (in block
    order) is raised, and no block after it is started; an interruption (Ctrl-C) stops
    every thread after its current block.
    """
    if n_threads <= 1 or n_blocks <= 1:
        yield _run_here
        return
    from concurrent.futures import ThreadPoolExecutor

    n_helpers = min(n_threads, n_blocks) - 1
    with ThreadPoolExecutor(max_workers=n_helpers) as pool:

        def run(function, blocks):
            blocks = list(blocks)
            results = [None] * len(blocks)
            errors = {}
            # Blocks are taken in order, each once (next() on a count is atomic). After a
            # block fails, no later block is started: the blocks before it were taken
            # already, and the first error in block order is among theirs or is its own.
            taken = itertools.count()
            stop_at = [len(blocks)]
            lock = threading.Lock()

            def work():
                for at in iter(taken.__next__, None):
                    if at >= stop_at[0]:
                        return
                    try:
                        results[at] = function(blocks[at])
                    except Exception as error:
                        with lock:
                            errors[at] = error
                            stop_at[0] = min(stop_at[0], at)
                        return
                    except BaseException:  # KeyboardInterrupt, SystemExit: stop every block
                        with lock:
                            stop_at[0] = -1
                        raise

            helpers = [pool.submit(work) for _ in range(min(n_helpers, len(blocks) - 1))]
            work()
            for helper in helpers:
                helper.result()
            if errors:
                raise errors[min(errors)]
            return results

        yield run


def _run_here(function, blocks):
    return [function(block) for block in blocks]


_CHUNK = 1 << 20  # values per part of a one-pass check (8 MB of float64)


def _over_chunks(function, array, n_threads):
    """``function(part)`` for consecutive parts of the 1-D ``array``, on ``n_threads``
    threads, in order; one part when one thread is asked for or ``array`` is small."""
    if n_threads <= 1 or array.size < 2 * _CHUNK:
        return [function(array)]
    starts = range(0, array.size, _CHUNK)
    with _block_runner(len(starts), n_threads) as run:
        return run(lambda at: function(array[at : at + _CHUNK]), starts)


def _value_range(values, n_threads=1):
    """The least and the greatest of ``values`` (numpy scalars), None when there are
    none: one pass, in parts on ``n_threads`` threads."""
    if not values.size:
        return None
    ranges = _over_chunks(lambda part: (part.min(), part.max()), values.ravel(), n_threads)
    return min(low for low, _ in ranges), max(high for _, high in ranges)
