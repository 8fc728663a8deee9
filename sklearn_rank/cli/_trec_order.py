"""trec_eval's order of a run's documents, for the lines the command line computes itself
(relstring, ``-M``, infAP where a topic retrieves a pooled document): per topic, score
descending, then docno descending compared as strings.

Only the first documents of each topic are wanted there, so the docnos are compared only
where scores tie (a run written as runs are, grouped by topic and ranked, is not sorted
again), and the grades of those documents only are looked up in the qrels.
"""

import numpy as np

from ..utils._ids import _concat_ids, _factorize


def _kernel_scores(run, score_dtype):
    """The run's scores as trec_eval compares them (float32 under trec_eval 9), as float64."""
    scores = np.asarray(run.scores)
    if score_dtype == "float32":
        scores = scores.astype(np.float32)
    return scores.astype(np.float64)


def _as_text(ids):
    """Ids as numpy's str, which drops a docno's trailing NUL characters as trec_eval's C
    strings end at the first ("d1\\x00" is "d1")."""
    return np.asarray(ids).astype(str)


def _docno_ranks(items):
    """Each id's rank among the distinct ids compared as strings (equal strings tie)."""
    return np.unique(_as_text(items), return_inverse=True)[1].ravel()


def trec_first_rows(run, score_dtype, n=None, keep=None):
    """The rows of ``run`` in trec_eval's order, topic after topic (topics numbered by
    first appearance), the first ``n`` of each topic only (every row: None); ``keep``, a
    mask of rows, leaves the others out first.

    Returns the rows, each row's topic code, and the topics (the run's query ids in code
    order).
    """
    from ..inputs._tables import _items_at

    codes, topics = _factorize(run.queries, None, "the run's topics")
    scores = _kernel_scores(run, score_dtype)
    rows = np.arange(codes.size) if keep is None else np.flatnonzero(keep)
    code, score = codes[rows], scores[rows]
    same_topic = code[1:] == code[:-1]
    ranked = np.all(code[1:] >= code[:-1]) and np.all(
        score[1:][same_topic] <= score[:-1][same_topic]
    )
    if not ranked:
        order = np.lexsort((-score, code))  # stable: equal scores keep their row order
        rows, code, score = rows[order], code[order], score[order]
    if n is not None:
        heads = _heads(code, score, n)
        rows, code, score = rows[heads], code[heads], score[heads]
    # Tie groups: runs of rows of one topic and one score (the heads hold whole groups:
    # the docno decides which rows of a group straddling position n are in).
    starts_group = np.ones(rows.size, dtype=bool)
    starts_group[1:] = (code[1:] != code[:-1]) | (score[1:] != score[:-1])
    group = np.cumsum(starts_group) - 1
    size = np.bincount(group, minlength=int(group.max(initial=-1)) + 1)
    tied = np.flatnonzero(size[group] > 1)
    if tied.size:
        docno_rank = _docno_ranks(_items_at(run, rows[tied]))
        rows[tied] = rows[tied][np.lexsort((-docno_rank, group[tied]))]
    if n is not None:
        first = np.arange(rows.size) - np.searchsorted(code, code) < n
        rows, code = rows[first], code[first]
    return rows, code, topics


def _heads(code, score, n):
    """Of rows ranked topic by topic (``code`` not decreasing, ``score`` not increasing
    within a topic), the positions of each topic's first ``n`` and of the rows after them
    tied with the n-th: the only rows trec_eval's first n can be (ties go by docno)."""
    new_topic = np.ones(code.size, dtype=bool)
    new_topic[1:] = code[1:] != code[:-1]
    starts = np.flatnonzero(new_topic)
    ends = np.append(starts[1:], code.size)
    lengths = np.minimum(ends - starts, n)
    if n > 0:
        # A head of n rows ends where the tie group of its n-th row ends: at the next change
        # of topic or score (a topic's end is one).
        changes = np.ones(code.size + 1, dtype=bool)
        changes[1:-1] = new_topic[1:] | (score[1:] != score[:-1])
        group_ends = np.flatnonzero(changes)
        full = lengths == n
        nth = starts[full] + n - 1
        lengths[full] = group_ends[np.searchsorted(group_ends, nth + 1)] - starts[full]
    first_of = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return first_of + np.arange(int(lengths.sum()))


def qrels_grades(qrels, queries, items):
    """The grade in ``qrels`` of each (query, item) pair, and whether the qrels have it."""
    from ..inputs._tables import _stored_items

    n_qrels = len(qrels.queries)
    query_codes, _ = _factorize(_concat_ids([np.asarray(qrels.queries), np.asarray(queries)]), None)
    item_codes, item_ids = _factorize(
        _concat_ids([_as_text(_stored_items(qrels)), _as_text(items)]), None
    )
    keys = query_codes * np.int64(max(item_ids.size, 1)) + item_codes
    judged_keys, wanted = keys[:n_qrels], keys[n_qrels:]
    order = np.argsort(judged_keys, kind="stable")
    grades = np.zeros(wanted.size, dtype=np.int64)
    found = np.zeros(wanted.size, dtype=bool)
    if n_qrels:
        at = np.minimum(np.searchsorted(judged_keys[order], wanted), n_qrels - 1)
        found = judged_keys[order][at] == wanted
        grades[found] = np.asarray(qrels.relevance)[order[at[found]]]
    return grades, found


def _infap_with_pooled(labels, per_query, ids, qrels, ranking, level, conventions):
    """trec_eval's infAP where a topic retrieves a document of negative grade (m_infap.c):
    such a document above a relevant one counts in the judged-so-far factor, where a
    document absent from the qrels only lengthens the ranking. Computed directly, in
    trec_eval's order (scores, then docno descending), for those topics only."""
    negative = qrels.relevance < 0
    if not negative.any():
        return
    from ..inputs._tables import _items_at

    topics = set(qrels.queries[negative].astype(str).tolist())
    grades, relevant = {}, dict.fromkeys(topics, 0)
    # Only those topics' lines and documents are made str (docnos may be kept as bytes).
    lines = np.flatnonzero(np.isin(qrels.queries.astype(str), list(topics)))
    for q, d, g in zip(
        qrels.queries[lines].astype(str),
        _items_at(qrels, lines).astype(str),
        qrels.relevance[lines],
    ):
        grades[q, d] = g
        relevant[q] += g >= level
    row = {q: i for i, q in enumerate(ids)}
    docs_by_topic = {}
    order = trec_first_rows(ranking, conventions["score_dtype"])[0]
    order = order[np.isin(ranking.queries[order].astype(str), list(topics))]
    for q, d in zip(ranking.queries[order].astype(str), _items_at(ranking, order).astype(str)):
        docs_by_topic.setdefault(q, []).append(d)
    for q in set(docs_by_topic) & set(row):
        if not any(grades.get((q, d), 0) < 0 for d in docs_by_topic[q]):
            continue
        value = _infap(docs_by_topic[q], q, grades, level, relevant[q])
        for label, request in labels.items():
            if request.metric.name == "infap":
                per_query[label][row[q]] = value


def _infap(docs, topic, grades, level, relevant):
    """m_infap.c on one topic's ranked docnos (``relevant``: its R)."""
    from ..metrics._trec import _INFAP_EPSILON

    rel, nonrel, pooled, total = 0, 0, 0, 0.0
    for j, doc in enumerate(docs):
        grade = grades.get((topic, doc))
        if grade is None:
            continue
        if grade < 0:
            pooled += 1
        elif grade < level:
            nonrel += 1
        else:
            rel += 1
            if j == 0:
                total += 1.0
            else:
                fj = float(j)
                total += 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (
                    (rel - 1 + nonrel + pooled) / fj
                ) * ((rel - 1 + _INFAP_EPSILON) / (rel - 1 + nonrel + 2 * _INFAP_EPSILON))
    return total / relevant if relevant else 0.0
