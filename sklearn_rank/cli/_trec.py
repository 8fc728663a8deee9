"""``sklearn-rank evaluate QRELS RUN``: the command line speaking trec_eval.

Positional qrels and run files (``-`` for the run: standard input), trec_eval's options
(``-m``, ``-q``, ``-c``, ``-l``, ``-M``, ``-J``, ``-n``, ``-Z``) with trec_eval's meanings, and its
three-column output (``measure  query value``, ``%6.4f``, counts as integers, topics in
trec_eval's order, ``all`` lines added up as trec_eval adds them). Negative grades are
trec_eval's "pooled, not judged". The numbers are those of ``convention="trec_eval"``
(trec_eval 10.0) unless ``--convention`` names another preset; a line on stderr says which
(not under ``--quiet``). The named form's handling of trec_eval names (`rules_for_names`)
lives here too. See docs/command_line.md, "trec_eval's way".
"""

import argparse
import math
import re
import sys
from itertools import chain

import numpy as np

from ._relstring import _missing_relstring, _order_key, _per_topic_lines
from ._trec_order import _infap_with_pooled, trec_first_rows
from ._zscores import _standardized

PROG = "sklearn-rank evaluate"

# trec_eval's exit status when a judged topic is missing from the run (trec_eval.c).
MISSING_TOPIC_STATUS = 4

_VERSION_NOTE = {
    "trec_eval": "trec_eval 10.0 rules",
    "trec_eval9": "trec_eval 9.x rules (pytrec_eval)",
}


def wants_trec_eval(argv):
    """Whether ``evaluate``'s arguments are trec_eval's: files given positionally."""
    named = {"--qrels", "--run", "--truth", "--predictions", "--example"}
    if any(a.split("=")[0] in named for a in argv):
        return False
    takes_value = {
        *("-m", "-l", "-M", "-R", "-Z", "--Zscore"),
        *("--convention", "--ties", "-j", "--jobs"),
    }
    positional, skip = 0, False
    for token in argv:
        if skip:
            skip = False
        elif token in takes_value:
            skip = True
        elif not token.startswith("-") or token == "-":
            positional += 1
    return positional >= 1


def _is_trec_eval_spelling(name):
    """Whether ``name`` is trec_eval's spelling and not this library's (``P_10``,
    ``recip_rank``, ``ndcg_cut.5,10``; not ``map`` or ``ndcg``, which both share): a
    number under that name is expected to be trec_eval's."""
    from ..metrics._names import _ours, _trec

    if not isinstance(name, str):
        return False
    text = name.strip()
    try:
        return _ours(text) is None and _trec(text, "trec_eval") is not None
    except ValueError:
        return False


def rules_for_names(names, conventions, quiet=False, stderr=None):
    """The conventions of the named form (``--qrels``, ``compare``): a trec_eval name
    (``P_10``, ``recip_rank``) is read with trec_eval's rules unless ``--convention``
    says otherwise, and a line on stderr says so (not under ``--quiet``). Names both
    spell (``map``, ``ndcg``) keep this library's defaults."""
    if "convention" in conventions:
        return conventions
    trec = [name for name in names if _is_trec_eval_spelling(name)]
    if not trec:
        return conventions
    if not quiet:
        (stderr or sys.stderr).write(
            f"sklearn-rank: {trec[0]} is trec_eval's name: {_VERSION_NOTE['trec_eval']} for "
            "every metric (--convention trec_eval; --convention sklearn for this library's "
            "defaults)\n"
        )
    return dict(conventions, convention="trec_eval")


def help_section():
    """trec_eval's form, as ``sklearn-rank evaluate --help`` shows it after the named form."""
    parser = _parser()
    usage = parser.format_usage()
    options = parser.format_help().split("\n\n", 2)[-1]
    return (
        "\ntrec_eval's form: QRELS and RUN given positionally read trec_eval's options and "
        'print its\noutput, with its numbers (docs/command_line.md, "trec_eval\'s way"):\n'
        f"{usage}\n{options}"
    )


def trec_eval_grades(truth, names, conventions):
    """The named form under trec_eval's rules reads negative grades as trec_eval does
    (see `_judged`); infAP, which tells them from absent documents, only in trec_eval's
    form, which computes it as trec_eval does."""
    from ..metrics._names import _parse_requests

    if conventions.get("convention") not in _VERSION_NOTE or not (truth.relevance < 0).any():
        return truth
    if any(r.metric.name == "infap" for name in names for r in _parse_requests(name)):
        raise ValueError(
            "infAP with negative grades (trec_eval's pooled, unjudged documents) is computed "
            "by trec_eval's form only: sklearn-rank evaluate [-q] -m infAP QRELS RUN"
        )
    return _judged(truth)


def _parser():
    from ._output import _jobs

    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Evaluate a TREC run against qrels the way trec_eval does: its options, "
        "its three-column output, its numbers (trec_eval 10.0 by default).",
    )
    parser.add_argument("qrels", help="TREC qrels file: 'qid iter docno rel' lines")
    parser.add_argument(
        "run", help="TREC run file: 'qid Q0 docno rank score tag' lines; - reads standard input"
    )
    parser.add_argument(
        "-m",
        dest="measures",
        action="append",
        metavar="MEASURE",
        help="a measure as trec_eval names it (P.5,10, ndcg_cut.10, recip_rank, official, "
        "all_trec...), or as evaluate or ir_measures do; repeatable (default: official)",
    )
    parser.add_argument("-q", action="store_true", help="also print each topic's values")
    parser.add_argument(
        "-c",
        action="store_true",
        help="average over every qrels topic: one missing from the run counts 0",
    )
    parser.add_argument("-l", type=int, metavar="LEVEL", help="relevant means rel >= LEVEL")
    parser.add_argument(
        "-M", type=int, metavar="N", help="keep only the first N documents of each topic"
    )
    parser.add_argument(
        "-J", action="store_true", help="judged documents only: drop unjudged ones first"
    )
    parser.add_argument("-n", action="store_true", help="no summary (the 'all' lines)")
    parser.add_argument(
        "-R",
        dest="rel_format",
        default="qrels",
        choices=("qrels", "prefs", "qrels_prefs", "qrels_jg"),
        help="the relevance file's format: qrels (default), prefs or qrels_prefs "
        "(preferences: -m all_prefs), qrels_jg (judgment groups: -m qrels_jg)",
    )
    parser.add_argument(
        "-Z",
        "--Zscore",
        dest="zscores",
        metavar="FILE",
        help="standardize every value by the topic's mean and stddev of FILE ('qid measure "
        "mean stddev' lines, trec_eval's zscores file) and print Z lines; -R qrels only",
    )
    parser.add_argument(
        "--convention",
        default="trec_eval",
        choices=("trec_eval", "trec_eval9"),
        help="trec_eval (10.0, default) or trec_eval9 (9.x: float32 scores, as pytrec_eval)",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        metavar="N",
        type=_jobs,
        help="threads, blocks of queries on each (-1: every core; default 1); same values",
    )
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no line on stderr saying which rules computed the numbers (errors stay)",
    )
    return parser


def _run_tag(path):
    """trec_eval's runid: the run tag (sixth field) of the run's last line that is not
    blank or a comment (get_trec_results.c), whatever follows it on that line."""
    from ..inputs._text_files import _is_gzip, _source, _text_lines

    last = None
    with _source(path) as source:
        if not _is_gzip(source):
            tail = _last_line(source)
            if tail is not None:
                fields = tail.split()
                return fields[5] if len(fields) > 5 else ""
    with _source(path) as source, _text_lines(source) as text:
        for line in text:
            stripped = line.lstrip()
            if stripped and not stripped.startswith("#"):
                last = stripped
    fields = last.split() if last is not None else []
    return fields[5] if len(fields) > 5 else ""


_TAIL = 1 << 16  # bytes read from a run's end to find its last line


def _last_line(source):
    """The last line of a plain file that is not blank or a comment, stripped on the left,
    read from the file's end (a run's whole text is millions of lines); None when there
    is none, or the bytes read are not UTF-8 (the caller then reads every line)."""
    source.seek(0, 2)
    end = source.tell()
    block = b""
    while end > 0:
        step = min(end, max(_TAIL, len(block)))
        end -= step
        source.seek(end)
        block = source.read(step) + block
        text = block
        if end > 0:
            # The first line may be cut: keep what follows its end (\n, \r or \r\n; none is
            # ever part of a longer UTF-8 character).
            breaks = [at for at in (text.find(b"\n"), text.find(b"\r")) if at >= 0]
            if not breaks:
                continue
            at = min(breaks)
            text = text[at + 1 + (text[at : at + 2] == b"\r\n") :]
        elif text.startswith(b"\xef\xbb\xbf"):
            text = text[3:]
        try:
            decoded = text.decode("utf-8")
        except UnicodeDecodeError:
            return None
        # Lines end as in Python's text files: at \n, \r or \r\n.
        for line in reversed(decoded.replace("\r\n", "\n").replace("\r", "\n").split("\n")):
            stripped = line.lstrip()
            if stripped and not stripped.startswith("#"):
                return stripped
    return None


def _top(run, n, score_dtype):
    """The first n documents of each topic in trec_eval's order (score, docno descending)."""
    from ..inputs._tables import ItemRanking, _stored_items

    keep = np.sort(trec_first_rows(run, score_dtype, n)[0])
    # (A reader's columns, checked: docnos it kept as bytes stay bytes.)
    return ItemRanking._from_file(run.queries[keep], _stored_items(run)[keep], run.scores[keep])


# Lines of trec_eval's all block that are not measures, and the groups that print them.
_LINES = ("runid", "num_q")


def _shows(measures, line):
    return measures is None or any(m in (line, "official", "all_trec") for m in measures)


def _requests(measures):
    """The requests of ``-m`` names, in trec_eval's order. As trec_eval, the first
    parameters given to a measure are its only ones: a later ``-m P.10`` after ``-m P.5``,
    and a group's defaults (``all_trec``), add nothing to it."""
    from ..metrics._names import TREC_GROUPS, TREC_MEASURES, _parse_requests
    from ._relstring import is_relstring

    names = measures or ["official"]
    explicit = {}  # measure -> the first name giving it parameters
    for name in names:
        base, dot, _params = name.partition(".")
        if dot and base in TREC_MEASURES:
            explicit.setdefault(base, name)
    expanded = []
    for name in names:
        if name in TREC_GROUPS:
            expanded += [base for base in TREC_GROUPS[name] if base not in explicit]
            continue
        base, dot, _params = name.partition(".")
        if base in explicit and (name == base or (dot and explicit[base] != name)):
            continue  # that measure has its (first) parameters already
        expanded.append(name)
    requests = {}
    for name in expanded:
        if name in _LINES or is_relstring(name):
            continue
        for request in _parse_requests(name, dialect="trec_eval"):
            requests.setdefault(request.label, request)
    order = sorted(range(len(requests)), key=lambda i: _order_key(list(requests.values())[i]))
    return [list(requests.values())[i] for i in order]


def _nan_iprec(labels, per_query, counts, conventions):
    """trec_eval -J: a topic left with no document divides 0 by 0 in interpolated
    precision wherever the recall level asks for no relevant document (NaN)."""
    from ..metrics._trec import _recall_cut

    empty = counts["num_ret"] == 0
    if not empty.any():
        return
    for label, request in labels.items():
        name = request.metric.name
        if name == "iprec":
            levels = [request.params.get("recall", 0.0)]
        elif name == "iprec_avg":  # a level that asks for none makes the mean NaN
            levels = list(request.params.get("levels", [0.0]))
        else:
            continue
        for level in levels:
            cut = _recall_cut(level, counts["num_rel"], conventions["iprec_rounding"])
            per_query[label][empty & (cut == 0)] = np.nan


def _format(value, integer):
    if integer:
        return str(int(round(value)))
    if math.isnan(value):
        return "  -nan"
    return f"{value:6.4f}"


def _per_topic_text(topics, columns):
    """The -q lines, topic after topic, each topic's a line per column ``(head, format,
    cells)``: a cell formatted by ``format`` ("%s" or "%6.4f", as `_format` formats a
    value). One formatting of a template repeated per topic, in C: the lines of a large
    run's all_trec table, one at a time, took a tenth of the command's time."""
    if not topics or not columns:
        return ""
    template = "".join(f"{head.replace('%', '%%')}%s\t{form}\n" for head, form, _ in columns)
    cells = [part for _head, _form, column in columns for part in (topics, column)]
    text = (template * len(topics)) % tuple(chain.from_iterable(zip(*cells)))
    # (%6.4f prints NaN as "   nan", where trec_eval's printf prints "  -nan".)
    return text.replace("\t   nan\n", "\t  -nan\n")


def _topic_values(labels, per_query, topics, evaluated, relevant, options, conventions):
    """{label: the values of ``topics`` as floats}: the evaluated topics' from
    ``per_query``, -c's missing topics' from `_missing_value`."""
    rows = np.array([evaluated.get(q, -1) for q in topics], dtype=np.int64)
    absent = np.flatnonzero(rows < 0)
    values = {}
    for label, request in labels.items():
        column = np.asarray(per_query[label], dtype=np.float64)[np.maximum(rows, 0)]
        for row in absent.tolist():  # -c: 0 on everything but num_rel
            column[row] = _missing_value(request, relevant[topics[row]], options, conventions)
        values[label] = column.tolist()
    return values


def _line(label, query, value, integer):
    return f"{label:<22}\t{query}\t{_format(value, integer)}\n"


def run(argv, stdout=None, stderr=None, stdin=None):
    """Run the trec_eval form of ``evaluate``; return the exit status."""
    from ..conventions._declarations import resolve
    from ..inputs._files import _parse_trec_qrels, _parse_trec_run
    from ..inputs._tables import ItemJudgments, ItemRanking
    from ..inputs._text_files import _read_once
    from ..metrics import evaluate
    from ..metrics._aggregate import _in_order
    from ..metrics._names import _label

    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    args = _parser().parse_args(argv)
    conventions = resolve(args.convention, {})
    if args.rel_format != "qrels":  # cli._trec_formats.run reads the other formats
        raise ValueError(f"-R {args.rel_format}: not read here (cli._trec_formats.run)")
    zscores = None
    if args.zscores is not None:  # read first, as trec_eval reads it
        from ..comparison._standardize import ScoreStandardizer

        zscores = ScoreStandardizer.from_zscores_file(args.zscores)
    qrels = ItemJudgments._from_file(*_parse_trec_qrels(args.qrels))
    truth = _judged(qrels)
    args.run = _read_once(args.run, stdin)  # "-" (standard input) or a pipe: read twice
    ranking = ItemRanking._from_file(*_parse_trec_run(args.run))
    if args.M is not None:
        if args.M < 1:
            raise ValueError(f"-M must be a positive number of documents; got {args.M}.")
        ranking = _top(ranking, args.M, conventions["score_dtype"])
    requests = _requests(args.measures)
    labels = {r.label: r for r in requests}
    options = {"relevance_threshold": args.l if args.l and args.l != 1 else None}
    if args.J:
        options["judged_only"] = True
    counts_needed = ["num_ret", "num_rel", "map"]
    # Our canonical names: a trec_eval label such as "rbp" means p=0.9 there, 0.8 here.
    canonical = {label: _label(r.metric, r.k, r.params, r.overrides) for label, r in labels.items()}
    try:
        values_by_name = evaluate(
            truth,
            ranking,
            list(canonical.values()) + counts_needed,
            convention=args.convention,
            per_query="table",
            n_jobs=args.jobs,
            **options,
        )
    except ValueError as exc:  # in the files' words: y_true is the qrels file
        message = re.sub(r"\by_true\b", f"the qrels ({args.qrels})", str(exc))
        raise ValueError(re.sub(r"\by_score\b", f"the run ({args.run})", message)) from None
    per_query = {label: values_by_name[name] for label, name in canonical.items()}
    # The table's ids: in the order of its values, without joining the inputs again.
    ids = [str(q) for q in values_by_name["query"]]
    if not args.J and any(r.metric.name == "infap" for r in labels.values()):
        level = 1 if args.l is None else args.l
        _infap_with_pooled(labels, per_query, ids, qrels, ranking, level, conventions)
    per_query.update({name: values_by_name[name] for name in counts_needed})
    counts = {name: per_query[name] for name in counts_needed}
    judged_topics = sorted(map(str, set(truth.queries.tolist())))  # (each topic's str once)
    evaluated = dict(zip(ids, range(len(ids))))
    missing = [q for q in judged_topics if q not in evaluated]
    _nan_iprec(labels, per_query, counts, conventions)

    # Topics in trec_eval's order: its qrels topics sorted as strings (strcmp).
    topics = [q for q in judged_topics if q in evaluated or args.c]
    relevant = _relevant_counts(truth, options) if args.c else {}
    values = _topic_values(labels, per_query, topics, evaluated, relevant, options, conventions)
    if zscores is not None:
        values = _standardized(zscores, labels, values, topics)
    note = _VERSION_NOTE.get(args.convention, args.convention)
    if not args.quiet:
        stderr.write(f"sklearn-rank: {note} (--convention {args.convention})\n")
    # Under -Z every value is a z, printed %6.4f, with a Z before the measure's name.
    integer = {
        label: r.metric.aggregate == "sum" and zscores is None for label, r in labels.items()
    }
    z = "Z" if zscores is not None else ""
    if args.q:
        strings, printed = _per_topic_lines(args, labels, qrels, ranking, conventions)
        shown = topics
        if missing and not args.c and args.convention == "trec_eval":
            shown = [q for q in topics if q <= missing[0]]  # trec_eval stops there
        columns = []
        for label in printed:
            if label in strings:  # trec_eval's relstring: a text, quoted
                texts = strings[label]
                absent = _missing_relstring(label, args.J)
                cells = [f"'{texts.get(q, absent)}'" for q in shown]
                columns.append((f"{label:<22}\t", "%s", cells))
            elif labels[label].metric.aggregate != "geometric":
                # (trec_eval prints gm_map, gm_bpref on the all line only)
                column = values[label][: len(shown)]
                if integer[label]:
                    cells = [_format(value, True) for value in column]
                    columns.append((f"{z}{label:<22}\t", "%s", cells))
                else:
                    columns.append((f"{z}{label:<22}\t", "%6.4f", column))
        stdout.write(_per_topic_text(shown, columns))
    if missing and not args.c and args.convention == "trec_eval":
        stderr.write(
            f"sklearn-rank: judged topic {missing[0]!r} is not in the run: trec_eval 10.0 "
            "stops here (its message: result qid not found in qrels); -c counts it as 0, "
            "--convention trec_eval9 leaves it out\n"
        )
        return MISSING_TOPIC_STATUS
    if not args.n:
        if _shows(args.measures, "runid"):
            stdout.write(f"{'runid':<22}\tall\t{_run_tag(args.run)}\n")
        if _shows(args.measures, "num_q"):
            stdout.write(z + _line("num_q", "all", len(topics), integer=zscores is None))
        for label, request in labels.items():
            column = np.asarray(values[label], dtype=np.float64)
            if zscores is not None and request.metric.name == "gm_map":
                total = math.exp(_in_order(column)) if column.size else 0.0  # z of logs
            else:
                total = _all_line(request, column, truth, args.c)
            stdout.write(z + _line(label, "all", total, integer[label]))
    return 0


# Stands for a qrels topic whose every line has a negative grade: trec_eval still
# evaluates it (with nothing relevant). Whitespace never occurs in a run's docno.
_NO_JUDGED_DOCUMENT = "no judged document"


def _judged(qrels):
    """The qrels without their negative grades, read as trec_eval reads them: "in the
    pool but not judged" (form_res_rels.c). Such a document counts neither as relevant
    nor as judged non-relevant (bpref, num_nonrel_judged_ret, -J drop it); for every
    measure here but infAP that is what a document absent from the qrels gets (see
    `_infap_with_pooled`). A topic left with no line keeps a line nobody retrieves."""
    from ..inputs._tables import ItemJudgments, _holds_ascii_bytes, _stored_items

    negative = qrels.relevance < 0
    if not negative.any():
        return qrels
    keep = ~negative
    topics = np.unique(qrels.queries.astype(str))
    kept_topics = np.unique(qrels.queries[keep].astype(str))
    lost = np.setdiff1d(topics, kept_topics).astype(object)
    queries = np.concatenate([qrels.queries[keep], lost])
    if _holds_ascii_bytes(qrels):  # (docnos a reader kept as bytes stay bytes)
        added = np.array([_NO_JUDGED_DOCUMENT.encode()] * lost.size, dtype=bytes)
        items = np.concatenate([_stored_items(qrels)[keep], added])
    else:
        items = np.concatenate(
            [qrels.items[keep].astype(object), [_NO_JUDGED_DOCUMENT] * lost.size]
        )
    relevance = np.concatenate([qrels.relevance[keep], np.zeros(lost.size)])
    return ItemJudgments._from_file(queries, items, relevance)


def _relevant_counts(truth, options):
    """R of each qrels topic."""
    level = options.get("relevance_threshold") or 1
    topics, inverse = np.unique(truth.queries.astype(str), return_inverse=True)
    counts = np.bincount(inverse.ravel(), weights=truth.relevance >= level, minlength=topics.size)
    return dict(zip(topics.tolist(), counts.tolist()))


def _missing_value(request, relevant, options, conventions):
    """trec_eval -c: a judged topic without a run (``relevant``: its R) scores 0, except
    its num_rel (R), yaap, utility and rbp_resid named with parameters, and, under -J,
    interpolated precision where it reaches no relevant
    document: trec_eval ranks one unjudged document there, which -J removes, and divides
    0 by 0 (NaN)."""
    name = request.metric.name
    if name == "num_rel":
        return float(relevant)
    # trec_eval resets utility and rbp_resid computed on its one-document ranking only
    # under these very names (trec_eval.c compares them): utility_2,-1,0,0 keeps its value.
    retrieved = 0 if options.get("judged_only") else 1  # -J removes that document
    if name == "utility" and request.label != "utility":
        p1, p2, p3, p4 = request.params.get("coefficients", (1.0, -1.0, 0.0, 0.0))
        return p1 * 0 + p2 * retrieved + p3 * relevant + p4 * (0 - retrieved - relevant)
    if name == "yaap":  # not reset either: log((1 + 0) / (1 + R - 0))
        return math.log((1.0 + 0.0) / (1.0 + relevant - 0.0))
    if name == "trec_rbp_residual" and request.label != "rbp_resid" and retrieved:
        p = request.params.get("p", 0.9)
        return p + (1 - p) * 1.0
    if options.get("judged_only") and name in ("iprec", "iprec_avg"):
        from ..metrics._trec import _recall_cut

        if name == "iprec":
            levels = [request.params.get("recall", 0.0)]
        else:
            levels = list(request.params.get("levels", [0.0]))
        if any(_recall_cut(p, relevant, conventions["iprec_rounding"]) == 0 for p in levels):
            return math.nan
    return 0.0


def _all_line(request, column, truth, complete):
    """trec_eval's all line: sums for counts, the geometric mean for gm_map, else the
    mean, each added in the topics' order; with -c num_rel counts the qrels lines of
    grade > 0, whatever -l (m_num_rel.c)."""
    from ..metrics._aggregate import _in_order

    if request.metric.name == "num_rel" and complete and column.size:
        return float(np.count_nonzero(truth.relevance > 0))
    # Added in trec_eval's topic order in plain doubles, as there: an exact sum would
    # round some means across a %6.4f boundary the other way.
    return _in_order(column, request.metric.aggregate)
