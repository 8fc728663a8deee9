"""``sklearn-rank compare QRELS RUN [RUN ...]``: paired comparison of TREC runs.

The runs are named by their file names; `sklearn_rank.compare` does the work. Nothing is
imported at module level beyond the standard library, so that ``sklearn-rank --help``
stays fast.
"""

import argparse
import csv
import json
import math
import os
import warnings

FORMATS = ("table", "markdown", "latex", "csv", "json")
DEFAULT_METRICS = ("ndcg@10", "map")

_EPILOG = """\
examples:
  sklearn-rank compare qrels.txt bm25.run dense.run -m ndcg@10 map --baseline bm25.run
  sklearn-rank compare qrels.txt a.run b.run c.run --test tukey_hsd --format markdown
  sklearn-rank compare qrels.txt bm25.run dense.run --baseline bm25.run --alternative greater
  sklearn-rank compare qrels.txt bm25.run dense.run --baseline bm25.run --plot diff.png
  sklearn-rank compare --per-query values.tsv --baseline bm25 --test t

The runs are named by their file names (the paths as given when two share a name); with
--per-query, by the table's run column.
exit status: 0 on success, 2 on a usage error or on input that cannot be read or compared.
"""


def add_parser(commands, options=None):
    """Add the ``compare`` sub-command to ``commands`` (argparse sub-parsers).

    ``options``: (convention options, --precision type) from the ``evaluate`` command;
    None adds no option (enough for ``--help`` and ``--version``).
    """
    parser = commands.add_parser(
        "compare",
        help="compare runs query by query: paired tests, intervals, effect sizes",
        description="Compare TREC runs on the same judgments, query by query: each run's "
        "mean with its interval, and for each pair (each run against --baseline, or every "
        "pair) the mean difference, its interval, the effect size d_z, wins/ties/losses and "
        "a paired test corrected for the number of comparisons.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.set_defaults(print_command_usage=parser.print_usage)
    if options is not None:
        _add_options(parser, *options)
    return parser


def _add_options(parser, convention_options, precision):
    from ..metrics import get_metric_names

    parser.add_argument(
        "qrels", metavar="QRELS", nargs="?", help="TREC qrels: lines 'qid iter docno rel'"
    )
    parser.add_argument(
        "runs", metavar="RUN", nargs="*", help="TREC runs: lines 'qid Q0 docno rank score tag'"
    )
    parser.add_argument(
        "--per-query",
        metavar="TABLE",
        help="compare per-query values already computed instead of QRELS and RUNs: a CSV "
        "or TSV file with the columns query, run, metric, value (sklearn_rank."
        "compare_per_query); -m keeps the metrics named",
    )
    parser.add_argument(
        "-m",
        "--metrics",
        metavar="NAME",
        nargs="+",
        action="extend",
        help=f"metric names (default: {' '.join(DEFAULT_METRICS)}); known: "
        f"{', '.join(get_metric_names())}, K a positive integer",
    )
    tests = parser.add_argument_group("tests")
    tests.add_argument(
        "--baseline",
        metavar="NAME",
        help="the run each other run is compared with (default: every pair)",
    )
    # Defaults, choices and help are the declarations' (sklearn_rank.comparison's
    # _parameters); the command line adds "none" for correction=None, leaves out the
    # search-only corrected_t, and seeds with 0 so that a command repeats its numbers.
    declared = _declarations()
    _add_declared(
        tests,
        declared["test"],
        choices=tuple(t for t in declared["test"].choices if t != "corrected_t"),
    )
    _add_declared(tests, declared["alternative"])
    _add_declared(tests, declared["correction"], choices=(*declared["correction"].choices, "none"))
    _add_declared(tests, declared["confidence"], type=float, metavar="LEVEL")
    _add_declared(tests, declared["n_resamples"], type=int, metavar="N")
    _add_declared(tests, declared["missing"])
    _add_declared(tests, declared["random_state"], type=int, default=0, metavar="SEED")
    conventions = parser.add_argument_group("conventions (as for evaluate)")
    for flag, dest, kind, text in convention_options():
        conventions.add_argument(flag, dest=dest, metavar="VALUE", type=kind, help=text)
    output = parser.add_argument_group("output")
    output.add_argument(
        "--quiet", action="store_true", help="no informational line on stderr (errors stay)"
    )
    output.add_argument(
        "--format",
        choices=FORMATS,
        default="table",
        help="table (default): means and the pairs' columns; markdown / latex: the table "
        "of means for a report, significant differences marked; csv: the pairs' columns; "
        "json: every column of the result",
    )
    output.add_argument(
        "--alpha",
        type=float,
        metavar="LEVEL",
        help="significance level of the markers (default: 1 - --confidence)",
    )
    output.add_argument(
        "--precision",
        metavar="N",
        type=precision,
        help="decimals of the printed values (default: 4; csv and json keep full precision "
        "unless given)",
    )
    output.add_argument(
        "--plot",
        metavar="FILE",
        help="also draw each run's per-query differences from the baseline (the first run "
        "without --baseline) on the first metric, and save the figure to FILE; needs "
        'matplotlib (pip install "sklearn-rank[plot]")',
    )


def _declarations():
    from ..comparison._parameters import COMPARISON_PARAMETERS

    return COMPARISON_PARAMETERS


def _add_declared(group, parameter, **options):
    """Add ``parameter``'s option (``--name-with-dashes``) with its declared default,
    choices and help; ``options`` are argparse's, where the command line differs."""
    choices = parameter.choices
    if choices is not None:
        options.setdefault("choices", choices)
    options.setdefault("default", parameter.default)
    group.add_argument(parameter.flag, help=parameter.cli, **options)


def _run_names(paths, usage_error):
    names = [os.path.basename(path) for path in paths]
    if len(set(names)) < len(names):
        names = list(paths)
    if len(set(names)) < len(names):
        raise usage_error(f"each run must be given once; got {' '.join(paths)}")
    return names


def run(args, stdout, helpers):
    """Run ``sklearn-rank compare`` with parsed ``args``; print to ``stdout``.

    ``helpers``: the ``evaluate`` command's (usage error class, metric names parser,
    conventions of the parsed options, warning printer).
    """
    from ..comparison import compare
    from ..inputs._files import _parse_trec_qrels, _parse_trec_run
    from ..inputs._tables import ItemJudgments, ItemRanking
    from ._output import _as_options
    from ._trec import rules_for_names

    usage_error, _metric_names, _conventions, warn = helpers
    if args.per_query is not None:
        if args.qrels is not None:
            raise usage_error("give either QRELS and RUNs or --per-query TABLE, not both")
        _run_per_query(args, stdout, usage_error, warn)
        return
    if args.qrels is None:
        raise usage_error("give QRELS and at least two RUNs, or --per-query TABLE")
    if len(args.runs) < 2:
        raise usage_error("give at least two runs to compare")
    names = _run_names(args.runs, usage_error)
    baseline = args.baseline
    if baseline is not None and baseline not in names:
        by_path = dict(zip(args.runs, names))
        if baseline not in by_path:
            raise usage_error(
                f"--baseline must be one of the runs ({', '.join(names)}); got {baseline!r}"
            )
        baseline = by_path[baseline]
    if args.plot:
        from ..plot._base import _check_matplotlib

        try:
            _check_matplotlib("--plot")
        except ImportError as exc:
            raise ValueError(str(exc)) from None
    metrics = _metric_names(args.metrics) if args.metrics else list(DEFAULT_METRICS)
    truth = ItemJudgments._from_file(*_parse_trec_qrels(args.qrels))
    runs = {
        name: ItemRanking._from_file(*_parse_trec_run(path)) for name, path in zip(names, args.runs)
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _compared(
            compare,
            truth,
            runs,
            metrics,
            baseline=baseline,
            test=args.test,
            alternative=args.alternative,
            correction=None if args.correction == "none" else args.correction,
            confidence=args.confidence,
            n_resamples=args.n_resamples,
            missing=args.missing,
            random_state=args.random_state,
            **rules_for_names(metrics, _conventions(args), args.quiet),
        )
    for message in dict.fromkeys(str(w.message) for w in caught):
        warn(_as_options(message))
    if args.plot:
        _save_plot(result, args.plot)
    _print(result, args, stdout)


def _read_per_query(path):
    """The columns query, run, metric, value of a CSV or TSV file, as a dict of arrays
    (the delimiter is the header line's: a tab if it has one, else a comma)."""
    import numpy as np

    with open(path, newline="", encoding="utf-8") as handle:
        header = handle.readline()
        delimiter = "\t" if "\t" in header else ","
        handle.seek(0)
        rows = list(csv.reader(handle, delimiter=delimiter))
    names = [name.strip() for name in rows[0]] if rows else []
    wanted = ("query", "run", "metric", "value")
    absent = [name for name in wanted if name not in names]
    if absent:
        raise ValueError(
            f"{path}: the per-query table needs the columns {', '.join(wanted)}; its header "
            f"has {', '.join(names) or 'nothing'}."
        )
    columns = {name: [] for name in wanted}
    for number, row in enumerate(rows[1:], 2):
        if not row:
            continue
        if len(row) != len(names):
            raise ValueError(
                f"{path}, line {number}: {len(row)} fields, the header has {len(names)}."
            )
        for name in wanted:
            columns[name].append(row[names.index(name)].strip())
    try:
        values = np.array([float(v) if v else np.nan for v in columns["value"]])
    except ValueError as exc:
        raise ValueError(f"{path}: a value is not a number ({exc}).") from None
    table = {name: np.array(columns[name], dtype=object) for name in wanted[:3]}
    table["value"] = values
    return table


def _run_per_query(args, stdout, usage_error, warn):
    """``sklearn-rank compare --per-query TABLE``: `compare_per_query` on the file's table."""
    import numpy as np

    from ..comparison import compare_per_query
    from ._output import _as_options

    if args.runs:
        raise usage_error("give either QRELS and RUNs or --per-query TABLE, not both")
    if args.plot:
        from ..plot._base import _check_matplotlib

        try:
            _check_matplotlib("--plot")
        except ImportError as exc:
            raise ValueError(str(exc)) from None
    table = _read_per_query(args.per_query)
    if args.metrics:
        kept = np.isin(table["metric"], np.array(args.metrics, dtype=object))
        unknown = sorted(set(args.metrics) - set(table["metric"].tolist()))
        if unknown:
            raise usage_error(f"-m: {', '.join(unknown)} not in the table's metric column")
        table = {name: column[kept] for name, column in table.items()}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _compared(
            compare_per_query,
            table,
            baseline=args.baseline,
            test=args.test,
            alternative=args.alternative,
            correction=None if args.correction == "none" else args.correction,
            confidence=args.confidence,
            n_resamples=args.n_resamples,
            missing=args.missing,
            random_state=args.random_state,
        )
    for message in dict.fromkeys(str(w.message) for w in caught):
        warn(_as_options(message))
    if args.plot:
        _save_plot(result, args.plot)
    _print(result, args, stdout)


def _compared(compare, *args, **kwargs):
    """`compare`, its errors in the command's words (--missing raise, not missing='raise')."""
    from ._output import _as_options

    try:
        return compare(*args, **kwargs)
    except ValueError as exc:
        raise ValueError(_as_options(str(exc))) from None


def _save_plot(result, path):
    from matplotlib.figure import Figure

    from ..plot import PerQueryDifferenceDisplay

    baseline = result.baseline or result.run_names[0]
    others = [name for name in result.run_names if name != baseline]
    figure = Figure(figsize=(6.4, 2.4 + 2.4 * len(others)), layout="constrained")
    axes = figure.subplots(len(others), 1, squeeze=False)[:, 0]
    for ax, name in zip(axes, others):
        PerQueryDifferenceDisplay.from_comparison(
            result, run=name, metric=result.metrics[0], baseline=baseline, ax=ax
        )
    figure.savefig(path)


def _print(result, args, stdout):
    decimals = 4 if args.precision is None else args.precision
    if args.format == "markdown":
        stdout.write(result.to_markdown(alpha=args.alpha, decimals=decimals))
    elif args.format == "latex":
        stdout.write(result.to_latex(alpha=args.alpha, decimals=decimals))
    elif args.format == "csv":
        _print_csv(_with_old_names(result.pairs), stdout, args.precision)
    elif args.format == "json":
        _print_json(result, stdout, args.precision)
    else:
        _print_text(result, args.alpha, decimals, stdout)


def _plain(value, precision=None):
    """A value for csv and json: Python types, None for NaN, rounded when asked."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float):
        if math.isnan(value):
            return None
        return value if precision is None else round(value, precision)
    return value


def _with_old_names(pairs):
    """The pairs' columns, then those renamed to scipy's names in 0.2 under their old names
    again (``p_value``, ``p_adjusted``): files have no warning to give, so scripts that read
    the old columns keep working until they are removed in 0.4."""
    from ..comparison._result import _RENAMED_COLUMNS

    return {**pairs, **{old: pairs[new] for old, new in _RENAMED_COLUMNS.items()}}


def _print_csv(table, stdout, precision):
    writer = csv.writer(stdout, lineterminator="\n")
    writer.writerow(list(table))
    for row in zip(*table.values()):
        writer.writerow(["" if _plain(v) is None else _plain(v, precision) for v in row])


def _print_json(result, stdout, precision):
    def columns(table):
        return {name: [_plain(v, precision) for v in values] for name, values in table.items()}

    document = {
        "test": result.test,
        "alternative": result.alternative,
        "correction": result.correction,
        "confidence": result.confidence,
        "n_resamples": result.n_resamples,
        "baseline": result.baseline,
        "n_queries": int(len(result.query_ids)),
        "runs": columns(result.runs),
        "pairs": columns(_with_old_names(result.pairs)),
    }
    stdout.write(json.dumps(document, indent=2, allow_nan=False) + "\n")


def _print_text(result, alpha, decimals, stdout):
    stdout.write(result._text(alpha, decimals) + "\n\n")
    pairs = result.pairs
    header = [
        "run",
        "baseline",
        "metric",
        "diff",
        "ci_low",
        "ci_high",
        "d_z",
        "p",
        "p_adj",
        "W/T/L",
    ]
    rows = []
    for i in range(len(pairs["run"])):
        rows.append(
            [
                str(pairs["run"][i]),
                str(pairs["baseline"][i]),
                str(pairs["metric"][i]),
                *(
                    f"{pairs[key][i]:.{decimals}f}"
                    for key in ("diff", "diff_ci_low", "diff_ci_high", "effect_size")
                ),
                *(_p_text(pairs[key][i], decimals) for key in ("pvalue", "pvalue_adjusted")),
                f"{pairs['wins'][i]}/{pairs['ties'][i]}/{pairs['losses'][i]}",
            ]
        )
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [c.ljust(w) for c, w in zip(row[:3], widths)]
        cells += [c.rjust(w) for c, w in zip(row[3:], widths[3:])]
        stdout.write("  ".join(cells).rstrip() + "\n")


def _p_text(p, decimals):
    if math.isnan(p):
        return "nan"
    smallest = 10.0**-decimals
    return f"<{smallest:.{decimals}f}" if 0 < p < smallest else f"{p:.{decimals}f}"
