"""The ``sklearn-rank`` command: evaluate a run file against judgments.

``sklearn-rank evaluate --qrels QRELS --run RUN`` (TREC files), or ``--truth TABLE
--predictions TABLE`` (CSV/TSV tables), or ``--example`` (Hivemall's worked example).
See docs/command_line.md. `main` returns the exit status: 0 on success, 2 on a usage
error or on input that cannot be read or evaluated (one line on stderr, no traceback).
"""

import argparse
import os
import re
import sys
import warnings

from . import _compare
from ._output import (
    DEFAULT_PRECISION,
    _as_options,
    _jobs,
    _print_json,
    _print_table,
    _Progress,
    _warn,
    _write_per_query,
)
from ._program import _ClosedStream, _is_the_program

# Nothing else is imported at module level: `sklearn-rank --version` and `--help` must not
# pay for numpy, scipy or scikit-learn (docs/command_line.md, "Start-up").
PROG = "sklearn-rank"
COMMANDS = ("evaluate", "compare")
DEFAULT_METRICS = ("ndcg@10", "map", "mrr", "precision@10", "recall@10")


def _parameter_type(parameter):
    """argparse type of a declared convention: text, read as a number where one is
    allowed. The value itself is checked by `evaluate`, whose one-line message names the
    parameter and the value."""
    if parameter.choices is not None:
        return str
    if getattr(parameter.check, "boolean", False):
        return _boolean

    words = parameter.check.words
    if not words:
        return float  # argparse says "invalid float value: ..."

    def convert(text):
        if text in words:
            return text
        try:
            return float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected a number, {', '.join(repr(w) for w in words[:-1])} or "
                f"{words[-1]!r}; got {text!r}"
            ) from None

    return convert


def _boolean(text):
    words = {"true": True, "false": False}
    if text.lower() not in words:
        raise argparse.ArgumentTypeError(f"expected true or false; got {text!r}")
    return words[text.lower()]


def _convention_options():
    """(flag, evaluate's parameter, type, help) of every convention, from its declaration."""
    from ..conventions._declarations import CONVENTION, CONVENTIONS

    return tuple(
        (p.flag, p.name, _parameter_type(p), p.cli)
        for p in (CONVENTION, *CONVENTIONS.values())
        if p.cli is not None
    )


_EPILOG = f"""\
examples:
  {PROG} evaluate --qrels qrels.txt --run run.txt -m ndcg@10 map precision@10
  {PROG} evaluate --qrels qrels.txt --run run.txt --convention trec_eval --format json
  {PROG} evaluate --truth truth.csv --predictions rec.csv --query-column userid \\
      --item-column itemid --score-column score -m recall@4 precision@4 map@4
  {PROG} evaluate --qrels qrels.txt --run run.txt -m ndcg@10 recall@100 --plot curves.png
  {PROG} evaluate --example

exit status: 0 on success, 2 on a usage error or on input that cannot be read or evaluated.
"""


class _UsageError(Exception):
    """A combination of options that cannot work; reported like argparse's own errors."""


def _precision(text):
    """argparse type of --precision: a number of decimals."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(
            f"expected a number of decimals (0, 1, 2...); got {text!r}"
        )
    return value


def _build_parser(full=True):
    """The parser and its ``evaluate`` sub-parser (``compare`` is added too). Without ``full``
    they have no options, which come from the library: enough for --version and --help."""
    from .._version import __version__

    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Ranking and recommendation metrics per query, from files.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True
    evaluate = commands.add_parser(
        "evaluate",
        help="evaluate a run (TREC file or table) against judgments",
        description="Evaluate a run against judgments and print one value per metric: the "
        "mean over queries.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    if full:
        _add_evaluate_options(evaluate)
    _compare.add_parser(commands, (_convention_options, _precision) if full else None)
    return parser, evaluate


def _add_evaluate_options(evaluate):
    from ..metrics import get_metric_names
    from ._trec import help_section

    evaluate.epilog += help_section()

    truth = evaluate.add_argument_group(
        "inputs",
        "judgments from --qrels or --truth, the run from --run or --predictions "
        "(TREC files and tables may be mixed), or --example; files may be "
        "gzip-compressed",
    )
    truth.add_argument(
        "--qrels", metavar="FILE", help="TREC qrels: lines 'qid iter docno rel' (integer rel)"
    )
    truth.add_argument(
        "--run",
        metavar="FILE",
        help="TREC run: lines 'qid Q0 docno rank score tag' (the score ranks, "
        "the rank field is ignored)",
    )
    truth.add_argument(
        "--truth",
        metavar="FILE",
        help="judgments table (CSV/TSV with a header row): query and item "
        "columns, optional relevance column",
    )
    truth.add_argument(
        "--predictions",
        metavar="FILE",
        help="run table (CSV/TSV with a header row): query and item columns, optional score column",
    )
    truth.add_argument(
        "--example",
        action="store_true",
        help="Hivemall's worked example (built in): without -m, --format "
        "json, --per-query or a convention option, prints its table of Hivemall's eight "
        "top-k metrics at top-4 and top-2",
    )
    columns = evaluate.add_argument_group("table columns (for --truth and --predictions)")
    columns.add_argument(
        "--query-column",
        metavar="NAME",
        help="query (user) id column in both tables (default: query)",
    )
    columns.add_argument(
        "--item-column", metavar="NAME", help="item id column in both tables (default: item)"
    )
    columns.add_argument(
        "--score-column",
        metavar="NAME",
        help="score column of --predictions, higher ranks first (default: "
        "none, the rows of each query are in rank order)",
    )
    columns.add_argument(
        "--relevance-column",
        metavar="NAME",
        help="relevance column of --truth (default: none, every row is relevant with relevance 1)",
    )
    metrics = evaluate.add_argument_group("metrics and conventions")
    metrics.add_argument(
        "-m",
        "--metrics",
        metavar="NAME",
        nargs="+",
        action="extend",
        help=f"metric names, space- or comma-separated (default: "
        f"{' '.join(DEFAULT_METRICS)}); known: {', '.join(get_metric_names())}, "
        "K a positive integer",
    )
    for flag, dest, kind, text in _convention_options():
        metrics.add_argument(flag, dest=dest, metavar="VALUE", type=kind, help=text)
    jobs_help = "threads, blocks of queries on each (-1: every core; default 1); same values"
    metrics.add_argument("-j", "--jobs", metavar="N", type=_jobs, help=jobs_help)
    from ._side import add_options

    add_options(evaluate)
    output = evaluate.add_argument_group("output")
    output.add_argument(
        "--format",
        choices=("table", "json"),
        default="table",
        help="table (default): aligned metric and value columns; json: an "
        "object metric name -> value (null for NaN)",
    )
    output.add_argument(
        "--plot",
        metavar="FILE",
        help="also draw the metrics at every cut-off k = 1..K (K the largest cut-off given, "
        "else 20) and save the figure to FILE (.png, .pdf, .svg); needs matplotlib "
        '(pip install "sklearn-rank[plot]")',
    )
    output.add_argument(
        "--per-query",
        metavar="FILE",
        help="also write per-query values as CSV: the query id (column "
        "named by --query-column, else query), then one column per metric",
    )
    output.add_argument(
        "--quiet", action="store_true", help="no informational line on stderr (errors stay)"
    )
    output.add_argument(
        "--precision",
        metavar="N",
        type=_precision,
        help=f"decimals of the printed values (default: {DEFAULT_PRECISION} in the table, as "
        "trec_eval prints them; json and --per-query keep full precision unless --precision "
        "is given)",
    )


def _metric_names(values):
    if not values:
        return list(DEFAULT_METRICS)
    from ..metrics._names import _split_list  # keeps P.5,10 and RBP(rel=1, p=0.8) whole

    names = [name for value in values for name in _split_list(value)]
    if not names:
        raise _UsageError("-m/--metrics needs at least one metric name")
    return names


def _check_inputs(args):
    if args.example:
        others = [
            flag
            for flag, value in (
                ("--qrels", args.qrels),
                ("--run", args.run),
                ("--truth", args.truth),
                ("--predictions", args.predictions),
                ("--train", args.train),
                ("--item-features", args.item_features),
            )
            if value
        ]
        if others:
            raise _UsageError(f"--example takes no input files; got {' '.join(others)}")
    else:
        if args.qrels and args.truth:
            raise _UsageError("give the judgments once: --qrels or --truth, not both")
        if args.run and args.predictions:
            raise _UsageError("give the run once: --run or --predictions, not both")
        if not (args.qrels or args.truth):
            raise _UsageError(
                "the judgments are missing: give --qrels FILE or --truth FILE (or --example)"
            )
        if not (args.run or args.predictions):
            raise _UsageError(
                "the run is missing: give --run FILE or --predictions FILE (or --example)"
            )
    unused = []
    if not args.truth and not args.predictions:
        unused += [
            flag
            for flag, value in (
                ("--query-column", args.query_column),
                ("--item-column", args.item_column),
            )
            if value is not None
        ]
    if not args.predictions and args.score_column is not None:
        unused.append("--score-column")
    if not args.truth and args.relevance_column is not None:
        unused.append("--relevance-column")
    if unused:
        raise _UsageError(
            f"{' '.join(unused)} only apply to tables: --truth / --predictions "
            "(--score-column to --predictions, --relevance-column to --truth)"
        )


def _table_columns(args):
    return (args.query_column or "query"), (args.item_column or "item")


def _read_truth(args, progress):
    from ..inputs._files import _parse_table, _parse_trec_qrels
    from ..inputs._tables import ItemJudgments

    if args.qrels:
        return ItemJudgments._from_file(
            *_parse_trec_qrels(args.qrels, progress.reading(args.qrels))
        )
    query, item = _table_columns(args)
    table = _parse_table(
        args.truth,
        query=query,
        item=item,
        relevance=args.relevance_column,
        progress=progress.reading(args.truth),
    )
    return ItemJudgments._from_file(table.queries, table.items, table.relevance)


def _read_run(args, progress):
    from ..inputs._files import _parse_table, _parse_trec_run
    from ..inputs._tables import ItemRanking

    if args.run:
        return ItemRanking._from_file(*_parse_trec_run(args.run, progress.reading(args.run)))
    query, item = _table_columns(args)
    header = []
    table = _parse_table(
        args.predictions,
        query=query,
        item=item,
        score=args.score_column,
        progress=progress.reading(args.predictions),
        columns_found=header,
    )
    if args.score_column is None:
        _warn_unused_scores(args.predictions, header)
    return ItemRanking._from_file(table.queries, table.items, table.scores)


def _warn_unused_scores(path, header):
    """Without --score-column rows are in rank order: say so if the table has scores."""
    named = [name for name in header if name.lower() in ("score", "scores")]
    if named:
        _warn(
            f"{path} has a column {named[0]!r} but no --score-column was given: the rows of "
            "each query are taken in rank order, first row best"
        )


def _check_overlap(args, truth, run):
    """Warn when no query of the run is judged: every metric would silently be 0."""
    judged = set(truth.queries.tolist())
    if judged.isdisjoint(run.queries.tolist()):
        truth_file = args.qrels or args.truth
        run_file = args.run or args.predictions
        _warn(
            f"no query id of {run_file} appears in {truth_file}; check the query ids "
            "(and the columns)"
        )


def _conventions(args):
    return {
        dest: getattr(args, dest)
        for _flag, dest, _kind, _text in _convention_options()
        if getattr(args, dest) is not None
    }


def _evaluate(args, stdout, progress):
    from ..metrics import evaluate
    from ..metrics._plan import _Plan
    from ._example import HIVEMALL_RANKINGS, HIVEMALL_TRUTH
    from ._side import read_side_inputs
    from ._trec import rules_for_names, trec_eval_grades

    names = _metric_names(args.metrics)
    conventions = rules_for_names(names, _conventions(args), args.quiet)
    if args.plot:
        from ..plot._base import _check_matplotlib

        try:
            _check_matplotlib("--plot")
        except ImportError as exc:
            raise ValueError(str(exc)) from None
    if args.example:
        truth, run = HIVEMALL_TRUTH, HIVEMALL_RANKINGS
        query_header, side = "query", {}
    else:
        truth = trec_eval_grades(_read_truth(args, progress), names, conventions)
        run = _read_run(args, progress)
        _check_overlap(args, truth, run)
        query_header = args.query_column or "query"
        side = read_side_inputs(args, truth, run)
        if len(run.queries) > 100_000:
            metrics = f"{len(names)} metric{'s' if len(names) > 1 else ''}"
            progress.note(f"evaluating {metrics} on {len(run.queries):,} rows...")
    try:
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                if args.per_query:  # the means and the per-query values of one computation
                    plan = _Plan.from_names(names, conventions)
                    table = plan.evaluate(
                        truth, run, table=True, n_jobs=args.jobs, side_inputs=side or None
                    )
                    results, per_query = _Plan.means(table), table.values
                else:
                    results = evaluate(truth, run, names, n_jobs=args.jobs, **side, **conventions)
                    per_query = None
        except (ValueError, TypeError) as exc:
            raise ValueError(_name_inputs(str(exc), args)) from None
        if per_query is not None:
            _write_per_query(
                args.per_query, truth, run, per_query, query_header, conventions, args.precision
            )
        if args.plot:
            from ._plot import save_curves

            save_curves(args, truth, run, names, conventions)
    finally:
        progress.clear()
    for message in dict.fromkeys(str(w.message) for w in caught):
        _warn(_as_options(message))
    if args.format == "json":
        _print_json(results, stdout, args.precision)
    else:
        precision = DEFAULT_PRECISION if args.precision is None else args.precision
        _print_table(results, stdout, precision)


def _name_inputs(message, args):
    """Speak of the files, not of evaluate's parameters: y_true is the judgments file."""
    if args.example:
        return message
    truth = f"the judgments ({args.qrels or args.truth})"
    run = f"the run ({args.run or args.predictions})"
    return re.sub(r"\by_score\b", run, re.sub(r"\by_true\b", truth, message))


def _wants_example_table(args):
    return (
        args.example
        and args.metrics is None
        and args.format == "table"
        and args.per_query is None
        and args.plot is None
        and not _conventions(args)
    )


def _error_message(exc):
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        return f"{os.fspath(exc.filename)}: {exc.strerror}"
    return str(exc)


def main(argv=None):
    """Run ``sklearn-rank`` with ``argv`` (default: the command line); return the status.

    Parameters
    ----------
    argv : list of str, default=None
        The arguments after the program name; None means ``sys.argv[1:]``.

    Returns
    -------
    status : int
        0 on success; 2 on a usage error or when the input cannot be read or evaluated
        (the reason is printed as one line on stderr).

    Examples
    --------
    >>> from sklearn_rank.cli import main
    >>> main(["evaluate", "--example", "-m", "recall@4", "map@4", "--format", "json"])
    {
      "recall@4": 0.6666666666666666,
      "map@4": 0.5555555555555555
    }
    0
    """
    if _is_the_program() and "pyarrow" not in sys.modules:  # (then the process is ours)
        os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")  # gives fields back
    # Started with a stream closed (`>&-`, `2>&-`), Python's is None: write into nothing
    # rather than fail with a traceback, and say why the output is missing.
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout = stdout if stdout is not None else _ClosedStream()
    sys.stderr = stderr if stderr is not None else _ClosedStream()
    try:
        status = _main(argv)
        if status == 0 and getattr(sys.stdout, "lost", False):
            sys.stderr.write(f"{PROG}: error: standard output is closed: nothing was printed\n")
            status = 1
        return status
    finally:
        if stdout is None:
            sys.stdout = None
        if stderr is None:
            sys.stderr = None


def _main(argv):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["evaluate"]:
        from ._trec import wants_trec_eval

        if wants_trec_eval(argv[1:]):  # QRELS RUN given positionally: trec_eval's way
            return _trec_eval_form(argv[1:])
    # Only a command needs its options (and the library behind them): --version, --help
    # and usage errors before the command stay fast.
    parser, evaluate_parser = _build_parser(full=any(arg in COMMANDS for arg in argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    stdout = sys.stdout
    progress = _Progress(sys.stderr)
    try:
        if args.command == "compare":
            _compare.run(args, stdout, (_UsageError, _metric_names, _conventions, _warn))
        elif _check_inputs(args) is None and _wants_example_table(args):
            from ._example import print_example_table

            print_example_table(DEFAULT_PRECISION if args.precision is None else args.precision)
        else:
            _evaluate(args, stdout, progress)
        stdout.flush()
    except _UsageError as exc:
        getattr(args, "print_command_usage", evaluate_parser.print_usage)(sys.stderr)
        sys.stderr.write(f"{PROG} {args.command}: error: {exc}\n")
        return 2
    except (ValueError, TypeError, OSError) as exc:
        if isinstance(exc, BrokenPipeError):
            return _broken_pipe()
        progress.clear()
        sys.stderr.write(f"{PROG}: error: {_error_message(exc)}\n")
        return 2
    except KeyboardInterrupt:
        progress.clear()
        sys.stderr.write(f"{PROG}: interrupted\n")
        return 130
    return 0


def _trec_eval_form(argv):
    from ._trec_formats import run

    try:
        status = run(argv)
        sys.stdout.flush()
        return status
    except SystemExit as exc:  # --help or a usage error, already printed
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except (ValueError, TypeError, OSError) as exc:
        if isinstance(exc, BrokenPipeError):
            return _broken_pipe()
        sys.stderr.write(f"{PROG}: error: {_error_message(exc)}\n")
        return 2


def _broken_pipe():
    # The reader of stdout went away (e.g. `| head`): stop quietly, as Unix tools do.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    return 1


if __name__ == "__main__":
    sys.exit(main())
