"""trec_eval's other relevance formats in ``sklearn-rank evaluate``'s trec_eval form:
``-R prefs`` and ``-R qrels_prefs`` (preference judgments, ``-m all_prefs``, ``-m prefs``,
``-m prefs_simp``...) and ``-R qrels_jg`` (several judgment groups, ``-m qrels_jg``,
``-m map_avgjg``, ``-m P_avgjg.5,10``, ``-m Rprec_mult_avgjg``), printed as trec_eval
prints them. `run` is the trec_eval form's entry point: it hands ``-R qrels`` (the
default) to `_trec.run`, the other formats to `run_grouped`."""

import numpy as np

from ._trec import (
    _VERSION_NOTE,
    MISSING_TOPIC_STATUS,
    _line,
    _parser,
    _run_tag,
    _top,
)
from ._trec import run as _run_qrels

# trec_eval's nicknames for these formats (measures.c) and the measures they name.
_LINES = ("runid", "num_q")
_JUDGMENT_GROUP_MEASURES = ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")


def _preference_names(measures):
    """The ``prefs_*`` measures asked for, in trec_eval's order, and the lines (runid,
    num_q) asked for."""
    from ..metrics._preferences import PREFERENCE_MEASURES, PREFERENCE_OFFICIAL

    wanted, lines = set(), set()
    for name in measures:
        if name == "all_prefs":
            wanted.update(PREFERENCE_MEASURES)
            lines.update(_LINES)
        elif name == "prefs":
            wanted.update(PREFERENCE_OFFICIAL)
            lines.update(_LINES)
        elif name in _LINES:
            lines.add(name)
        elif name in PREFERENCE_MEASURES:
            wanted.add(name)
        else:
            raise ValueError(
                f"-m {name}: not a preference measure; with -R prefs or -R qrels_prefs, "
                "-m takes all_prefs, prefs, runid, num_q or one of "
                + ", ".join(PREFERENCE_MEASURES)
            )
    # Printed in trec_eval's table order, whatever the order on the command line.
    return [name for name in PREFERENCE_MEASURES if name in wanted], lines


def _group_requests(measures):
    """(trec_eval's label, this library's name) of each ``*_avgjg`` measure asked for, in
    trec_eval's order (its table's, then parameters sorted), and the lines (runid,
    num_q) asked for."""
    from ..metrics._names import _label, _parse_requests

    chosen, lines = {}, set()
    for name in measures:
        if name == "qrels_jg":
            names = list(_JUDGMENT_GROUP_MEASURES)
            lines.update(_LINES)
        elif name in _LINES:
            lines.add(name)
            continue
        else:
            names = [name]
        for spelled in names:
            base, _, params = spelled.partition(".")
            if base not in _JUDGMENT_GROUP_MEASURES:
                raise ValueError(
                    f"-m {name}: not a judgment-group measure; with -R qrels_jg, -m takes "
                    f"qrels_jg, runid, num_q, {', '.join(_JUDGMENT_GROUP_MEASURES)}"
                )
            plain = base[: -len("_avgjg")]
            for request in _parse_requests(
                plain + ("." + params if params else ""), dialect="trec_eval"
            ):
                label = plain + "_avgjg" + request.label[len(plain) :]
                ours = _label(request.metric, request.k, request.params, request.overrides)
                key = (_JUDGMENT_GROUP_MEASURES.index(base), _parameter(request))
                chosen.setdefault(label, (key, label, ours))
    ordered = sorted(chosen.values(), key=lambda entry: entry[0])
    return [(label, ours) for _, label, ours in ordered], lines


def _parameter(request):
    if request.k is not None:
        return float(request.k)
    numbers = [v for v in request.params.values() if isinstance(v, (int, float))]
    return float(numbers[0]) if numbers else 0.0


def run(argv, stdout=None, stderr=None, stdin=None):
    """Run the trec_eval form of ``evaluate``, any ``-R`` format; return the exit status."""
    import sys

    from ..inputs._text_files import _read_once

    args = _parser().parse_args(argv)
    if args.rel_format == "qrels":
        _check_format_of_measures(args.measures or [])
        return _run_qrels(argv, stdout=stdout, stderr=stderr, stdin=stdin)
    if args.zscores is not None:
        # trec_eval standardizes these formats' values too: printing them raw would give
        # other numbers than trec_eval's for the same command line.
        raise ValueError(
            f"-Z with -R {args.rel_format}: not implemented (trec_eval standardizes these "
            "measures too); -Z is read with -R qrels only"
        )
    args.run = _read_once(args.run, stdin)  # "-" (standard input) or a pipe
    return run_grouped(args, stdout or sys.stdout, stderr or sys.stderr)


def _check_format_of_measures(measures):
    """A measure of another relevance format, asked without its -R, says which -R it needs
    (trec_eval fails there too, in its words: the format is not its measure's)."""
    from ..metrics._preferences import PREFERENCE_MEASURES

    for name in measures:
        base = name.partition(".")[0]
        if name in ("all_prefs", "prefs") or base in PREFERENCE_MEASURES:
            raise ValueError(
                f"-m {name}: trec_eval's preference measures read preference judgments: "
                "-R prefs (lines 'qid jg jsg docno level') or -R qrels_prefs (qrels)"
            )
        if name == "qrels_jg" or base in _JUDGMENT_GROUP_MEASURES:
            raise ValueError(
                f"-m {name}: trec_eval's judgment-group measures read -R qrels_jg (qrels "
                "whose second field names a judgment group)"
            )


def run_grouped(args, stdout, stderr):
    """trec_eval's form for ``-R prefs``, ``-R qrels_prefs`` and ``-R qrels_jg``."""
    from ..inputs._files import _parse_trec_run
    from ..inputs._preferences import (
        read_trec_prefs,
        read_trec_qrels_jg,
        read_trec_qrels_prefs,
    )
    from ..inputs._tables import ItemRanking
    from ..metrics._aggregate import _in_order

    if args.M is not None and args.M < 1:
        raise ValueError(f"-M must be a positive number of documents; got {args.M}.")
    ranking = ItemRanking._from_file(*_parse_trec_run(args.run))
    if args.convention == "trec_eval9":  # trec_eval 9 reads scores as float
        ranking = ItemRanking._from_file(
            ranking.queries, ranking.items, ranking.scores.astype(np.float32).astype(np.float64)
        )
    if args.rel_format == "qrels_jg":
        judgments = read_trec_qrels_jg(args.qrels)
        requests, lines = _group_requests(args.measures or ["qrels_jg"])
        values, topics = _group_values(args, judgments, ranking, requests)
        counts = set()
        labels = [label for label, _ in requests]
    else:
        reader = read_trec_prefs if args.rel_format == "prefs" else read_trec_qrels_prefs
        judgments = reader(args.qrels)
        labels, lines = _preference_names(args.measures or ["prefs"])
        values, topics = _preference_values(args, judgments, ranking, labels)
        from ..metrics._preferences import PREFERENCE_MEASURES

        counts = {label for label in labels if PREFERENCE_MEASURES[label]}
    in_run = set(ranking.queries.astype(str).tolist())
    # trec_eval 10.0 stops at a judged topic missing from the run (without -c); 9.x
    # leaves it out.
    missing = [q for q in topics if q not in in_run and args.convention == "trec_eval"]
    shown = [i for i, q in enumerate(topics) if q in in_run or args.c]
    note = _VERSION_NOTE.get(args.convention, args.convention)
    if not args.quiet:
        stderr.write(f"sklearn-rank: {note} (--convention {args.convention})\n")
    if args.q:
        for row in shown:
            if missing and not args.c and topics[row] > missing[0]:
                break
            for label in labels:
                stdout.write(_line(label, topics[row], values[label][row], label in counts))
    if missing and not args.c:
        stderr.write(
            f"sklearn-rank: judged topic {missing[0]!r} is not in the run: trec_eval 10.0 "
            "stops here (its message: result qid not found in qrels); -c counts it, "
            "--convention trec_eval9 leaves it out\n"
        )
        return MISSING_TOPIC_STATUS
    if not args.n:
        if "runid" in lines:
            stdout.write(f"{'runid':<22}\tall\t{_run_tag(args.run)}\n")
        if "num_q" in lines:
            stdout.write(f"{'num_q':<22}\tall\t{len(shown)}\n")
        for label in labels:
            column = np.asarray(values[label], dtype=np.float64)[shown]
            total = _in_order(column, "sum" if label in counts else "mean")
            stdout.write(_line(label, "all", total, label in counts))
    return 0


def _preference_values(args, judgments, ranking, labels):
    from ..inputs._preferences import _prepare_preferences
    from ..metrics._preferences import _preference_values as values_of

    prepared = _prepare_preferences(judgments, ranking, args.M)
    values = values_of(prepared, labels)
    return values, [str(q) for q in prepared.query_ids.tolist()]


def _group_values(args, judgments, ranking, requests):
    """Each judged topic's value of each ``*_avgjg`` measure (0 for a topic absent from
    the run, as trec_eval's -c gives it)."""
    from ..metrics._judgment_groups import evaluate_judgment_groups

    if args.M is not None:
        from ..conventions._declarations import resolve

        ranking = _top(ranking, args.M, resolve(args.convention, {})["score_dtype"])
    options = {}
    if args.l is not None and args.l != 1:
        options["relevance_threshold"] = args.l
    if args.J:
        options["judged_only"] = True
    topics = sorted(set(judgments.queries.astype(str).tolist()))
    names = [ours for _, ours in requests]
    in_run = sorted(set(topics) & set(ranking.queries.astype(str).tolist()))
    per_query = {}
    if in_run and names:
        per_query = evaluate_judgment_groups(
            judgments,
            ranking,
            list(dict.fromkeys(names)),
            convention=args.convention,
            per_query=True,
            n_jobs=args.jobs,
            **options,
        )
    row = {q: i for i, q in enumerate(in_run)}
    values = {}
    for label, ours in requests:
        column = per_query.get(ours)
        values[label] = [
            float(column[row[q]]) if q in row and column is not None else 0.0 for q in topics
        ]
    return values, topics
