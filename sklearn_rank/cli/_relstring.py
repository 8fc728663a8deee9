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
    queries = ranking.queries.astype(str)
    docnos = ranking.items.astype(str)
    scores = ranking.scores.astype(np.float32) if score_dtype == "float32" else ranking.scores
    doc_codes = np.unique(docnos, return_inverse=True)[1].ravel()
    order = np.lexsort((-doc_codes, -scores.astype(np.float64), queries))
    queries, docnos = queries[order], docnos[order]
    # each document's grade, looked up by (topic, docno) among the qrels' sorted keys
    keys = np.char.add(np.char.add(qrels.queries.astype(str), "\t"), qrels.items.astype(str))
    sorted_keys = np.argsort(keys)
    wanted = np.char.add(np.char.add(queries, "\t"), docnos)
    where = np.searchsorted(keys[sorted_keys], wanted)
    where = np.minimum(where, max(keys.size - 1, 0))
    found = keys.size > 0 and keys[sorted_keys][where] == wanted
    found = np.asarray(found, dtype=bool) & np.ones(wanted.size, dtype=bool)
    grades = np.where(found, np.asarray(qrels.relevance)[sorted_keys][where], 0).astype(np.int64)
    chars = np.where(grades > 9, ">", np.clip(grades, 0, 9).astype(str))
    chars = np.where(grades < 0, ".", chars)
    chars = np.where(found, chars, "-")
    if judged_only:
        keep = found & (grades >= 0)
        queries, chars = queries[keep], chars[keep]
    heads = np.searchsorted(queries, queries, side="left")
    keep = np.arange(queries.size) - heads < length
    queries, chars = queries[keep], chars[keep]
    topics, starts = np.unique(queries, return_index=True)
    pieces = np.split(chars, starts[1:]) if topics.size else []
    return {topic: "".join(piece) for topic, piece in zip(topics.tolist(), pieces)}


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
