"""trec_eval's ``relstring`` line (m_relstring.c) for the command line's trec_eval form.

relstring is a text per topic, not a number: the grades of the first N documents (default
10) in trec_eval's order, one character each ("0".."9", ">" above 9, "-" for a document
absent from the qrels, "." for a negative grade: pooled, not judged). trec_eval prints it
with ``-q`` only, never on the ``all`` line. A text does not average, so it is no metric of
`evaluate`; only this form prints it (docs/metrics.md, "trec_eval's measures").
"""

import math
import re

import numpy as np

from ._trec_order import qrels_grades, trec_first_rows

_RELSTRING = re.compile(r"^relstring(?:[._](?P<n>[+-]?[0-9]+))?$")
_DEFAULT_LENGTH = 10


def is_relstring(name):
    return _RELSTRING.match(name) is not None


def relstring_lines(measures):
    """{label: length} of the relstring line asked for: one at most, the first named
    with its length, else ``all_trec``'s default (as trec_eval keeps a measure's first
    parameters, which a group's defaults do not override)."""
    for name in measures or []:
        match = _RELSTRING.match(name)
        if match:
            n = match.group("n")
            if n is None:
                return {"relstring": _DEFAULT_LENGTH}
            return {f"relstring_{n}": max(int(n), 0)}
    return {"relstring": _DEFAULT_LENGTH} if "all_trec" in (measures or []) else {}


def relstrings(qrels, ranking, length, judged_only, score_dtype):
    """{topic: the first ``length`` documents' characters} in trec_eval's order (score,
    then docno descending); ``judged_only`` (-J) drops the documents without a grade of
    0 or more first."""
    from ..inputs._tables import _items_at, _stored_items

    if judged_only:
        every_grade, every_found = qrels_grades(qrels, ranking.queries, _stored_items(ranking))
        keep = every_found & (every_grade >= 0)
        rows, codes, topics = trec_first_rows(ranking, score_dtype, length, keep)
        grades, found = every_grade[rows], every_found[rows]
    else:
        rows, codes, topics = trec_first_rows(ranking, score_dtype, length)
        grades, found = qrels_grades(
            qrels, np.asarray(ranking.queries)[rows], _items_at(ranking, rows)
        )
    chars = _GRADE_CHARACTERS[np.clip(grades, -1, 10) + 1]
    chars[~found] = "-"
    # Each topic's characters side by side in a row of ``length`` one-character cells:
    # a row read as one string of ``length`` characters is the topic's text (numpy drops
    # the empty cells at its end).
    present, first, counts = np.unique(codes, return_index=True, return_counts=True)
    width = max(int(counts.max(initial=0)), 1)  # (the longest text, not the length asked)
    cells = np.zeros((present.size, width), dtype="U1")
    topic_row = np.searchsorted(present, codes)
    cells[topic_row, np.arange(codes.size) - first[topic_row]] = chars
    texts = cells.view(f"U{width}").ravel()
    return dict(zip(np.asarray(topics)[present].astype(str).tolist(), texts.tolist()))


# The character of each grade from -1 ("." pooled, not judged) to 10 (">" above 9).
_GRADE_CHARACTERS = np.array(list(".0123456789>"))


def _missing_relstring(label, judged_only):
    """relstring of a topic missing from the run under -c: trec_eval ranks one document
    absent from the qrels there ("-") and clears the text afterwards only for the line
    named exactly "relstring" (trec_eval.c compares the names); -J removes that document."""
    return "" if label in ("relstring", "relstring_0") or judged_only else "-"


def _per_topic_lines(args, labels, qrels, ranking, conventions):
    """The relstring texts asked for ({label: {topic: text}}) and every per-topic label
    in trec_eval's order: relstring comes after the P lines."""
    from ..metrics._names import TREC_MEASURES

    lengths = relstring_lines(args.measures)
    strings = {}
    for label, length in lengths.items():
        strings[label] = relstrings(qrels, ranking, length, args.J, conventions["score_dtype"])
    keys = [(_order_key(request), label) for label, request in labels.items()]
    keys += [((list(TREC_MEASURES).index("P"), math.inf), label) for label in lengths]
    return strings, [label for _key, label in sorted(keys, key=lambda entry: entry[0])]


def _order_key(request):
    """trec_eval prints its measures in its table's order, each measure's cut-offs or
    parameters in increasing order (it sorts them: meas_init.c); others follow as given."""
    from ..metrics._names import TREC_MEASURES

    bases = list(TREC_MEASURES)
    label = request.label
    # The longest base the label starts with: map_cut_5 is map_cut's, not map's.
    matches = [b for b in bases if label == b or label.startswith(b + "_")]
    if not matches:
        return len(bases), 0.0
    numbers = [v for v in request.params.values() if isinstance(v, (int, float))]
    value = request.k if request.k is not None else numbers[0] if len(numbers) == 1 else 0.0
    return bases.index(max(matches, key=len)), float(value)
