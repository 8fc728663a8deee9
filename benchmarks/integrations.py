"""Training time with sklearn_rank's eval metric against the library's built-in one.

Three trainings, each run with the library's built-in ``ndcg@10`` and with the adapter
(``lightgbm_metric`` / ``xgboost_metric("ndcg@10")`` under the library's preset, so both
compute the same number), on generated data: 100,000 training rows in 1,000 queries of 100
rows, 20 features, graded labels 0-4, and an eval set of the same size, for 200 rounds.

- LightGBM ``LGBMRanker.fit(eval_metric=adapter)``, ``metric="None"``: target <= 1.5x;
- XGBoost ``xgboost.train(custom_metric=adapter)``, ``disable_default_eval_metric``:
  target <= 1.5x;
- XGBoost ``XGBRanker(eval_metric=adapter)``, which calls the metric once per query from a
  thread pool: target <= 2x. For scale, the same with a metric that returns 0.0 at once
  shows what XGBoost's per-query calls cost by themselves.

The two runs of a pair alternate, repetition after repetition, and the ratios are of the
medians measured in the same process. The last logged values of a pair are printed too:
they must agree (XGBoost logs a custom metric with six decimals). Not part of the tests.

    python benchmarks/integrations.py              # full size, 3 repetitions
    python benchmarks/integrations.py --quick      # 10x fewer rows and rounds: a smoke run
"""

import argparse
import os
import platform
import statistics
import sys
import time

import numpy as np

import sklearn_rank as sr

TARGETS = {"LGBMRanker": 1.5, "xgboost.train": 1.5, "XGBRanker (per query)": 2.0}


def make_data(n_queries, rows_per_query, n_features=20, seed=0):
    """A training and an eval set of the same size, drawn from one model."""
    rng = np.random.default_rng(seed)
    n = n_queries * rows_per_query
    X = rng.normal(size=(2 * n, n_features))
    latent = X[:, :5] @ rng.normal(size=5) + rng.normal(size=2 * n)
    y = np.digitize(latent, np.quantile(latent, [0.5, 0.75, 0.9, 0.97]))
    sizes = np.full(n_queries, rows_per_query)
    return (X[:n], y[:n], sizes), (X[n:], y[n:], sizes)


def lightgbm_pair(train, valid, rounds, threads):
    import lightgbm

    (X, y, sizes), (Xv, yv, sizes_v) = train, valid
    base = dict(n_estimators=rounds, n_jobs=threads, verbose=-1, random_state=0)

    def fit(adapter):
        if adapter:
            model = lightgbm.LGBMRanker(metric="None", **base)
            extra = {"eval_metric": sr.lightgbm_metric("ndcg@10", convention="lightgbm")}
        else:
            model = lightgbm.LGBMRanker(metric="ndcg", **base)
            extra = {"eval_at": [10]}
        model.fit(X, y, group=sizes, eval_X=(Xv,), eval_y=(yv,), eval_group=[sizes_v], **extra)
        return model.evals_result_["valid_0"]["ndcg@10"][-1]

    return fit


def xgboost_train_pair(train, valid, rounds, threads):
    import xgboost

    (X, y, sizes), (Xv, yv, sizes_v) = train, valid
    dtrain = xgboost.DMatrix(X, label=y, group=sizes, nthread=threads)
    dvalid = xgboost.DMatrix(Xv, label=yv, group=sizes_v, nthread=threads)
    params = {"objective": "rank:ndcg", "tree_method": "hist", "nthread": threads, "seed": 0}

    def fit(adapter):
        log = {}
        if adapter:
            extra = {"custom_metric": sr.xgboost_metric("ndcg@10", convention="xgboost")}
            run = {**params, "disable_default_eval_metric": True}
        else:
            extra, run = {}, {**params, "eval_metric": "ndcg@10"}
        xgboost.train(
            run,
            dtrain,
            rounds,
            evals=[(dvalid, "valid")],
            evals_result=log,
            verbose_eval=False,
            **extra,
        )
        return log["valid"]["ndcg@10"][-1]

    return fit


def xgbranker_pair(train, valid, rounds, threads, metric=None):
    import xgboost

    (X, y, sizes), (Xv, yv, sizes_v) = train, valid
    qid, qid_v = (np.repeat(np.arange(s.size), s) for s in (sizes, sizes_v))
    base = dict(n_estimators=rounds, tree_method="hist", n_jobs=threads, random_state=0)

    def fit(adapter):
        if adapter:
            custom = metric or sr.xgboost_metric("ndcg@10", convention="xgboost")
            model = xgboost.XGBRanker(eval_metric=custom, disable_default_eval_metric=True, **base)
            name = custom.__name__
        else:
            model = xgboost.XGBRanker(eval_metric="ndcg@10", **base)
            name = "ndcg@10"
        model.fit(X, y, qid=qid, eval_set=[(Xv, yv)], eval_qid=[qid_v], verbose=False)
        return model.evals_result()["validation_0"][name][-1]

    return fit


def zero(y_true, y_score):
    """A metric that costs nothing: what XGBRanker's per-query calls cost by themselves."""
    return 0.0


def measure(fit, repeat):
    times = {False: [], True: []}
    values = {}
    for _ in range(repeat):
        for adapter in (False, True):
            start = time.perf_counter()
            values[adapter] = fit(adapter)
            times[adapter].append(time.perf_counter() - start)
    return {k: statistics.median(v) for k, v in times.items()}, values


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10x fewer rows and rounds")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions (medians)")
    parser.add_argument("--threads", type=int, default=1, help="threads of every library")
    args = parser.parse_args(argv)
    n_queries, rounds = (100, 20) if args.quick else (1000, 200)
    train, valid = make_data(n_queries, 100)
    print(
        f"{n_queries * 100} training rows, {n_queries} queries; eval set the same size; "
        f"{rounds} rounds; {args.threads} thread(s); {args.repeat} repetitions"
    )
    print(
        f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f} at start"
    )
    runs = {
        "LGBMRanker": lightgbm_pair,
        "xgboost.train": xgboost_train_pair,
        "XGBRanker (per query)": xgbranker_pair,
    }
    rows, failed = [], False
    for name, pair in runs.items():
        times, values = measure(pair(train, valid, rounds, args.threads), args.repeat)
        ratio = times[True] / times[False]
        verdict = "PASS" if ratio <= TARGETS[name] else "FAIL"
        failed |= verdict == "FAIL"
        rows.append((name, times[False], times[True], ratio, TARGETS[name], verdict, values))
        print(f"  done: {name}", file=sys.stderr)
    times, _ = measure(xgbranker_pair(train, valid, rounds, args.threads, zero), 1)
    print()
    print(
        f"{'training':<24}{'built-in s':>12}{'adapter s':>12}{'ratio':>8}{'target':>8}"
        f"{'':>6}  last values (built-in, adapter)"
    )
    for name, builtin, adapted, ratio, target, verdict, values in rows:
        print(
            f"{name:<24}{builtin:>12.2f}{adapted:>12.2f}{ratio:>8.2f}{target:>8.1f}"
            f"{verdict:>6}  {values[False]:.6f}, {values[True]:.6f}"
        )
    print(
        f"\nXGBRanker with a per-query metric returning 0.0 at once: {times[True]:.2f} s "
        f"({times[True] / times[False]:.2f}x the built-in run beside it): XGBoost's own cost "
        "of calling a Python metric once per query."
    )
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
