"""Judgments in groups: trec_eval's preference files (``-R prefs``, ``-R qrels_prefs``) and
qrels of several judgment groups (``-R qrels_jg``), their readers, and the one step that
joins a preference file with a run (`_prepare_preferences`), as `_normalise` does for
graded judgments. Imports `sklearn_rank.utils` and this folder only.
"""

from typing import NamedTuple

import numpy as np

from ..utils._ids import _str_array
from ._files import _parse_trec
from ._tables import ItemJudgments, ItemRanking
from ._text_files import _check_unique, _object_array, _source, _to_floats, _to_ints

PREFS_FORMAT = "qid jg jsg docno rel_level"
QRELS_PREFS_FORMAT = "qid jg docno rel_level"


class GroupedJudgments(NamedTuple):
    """Judgments of documents by several judgment groups per query.

    A judgment group (trec_eval's JG: one assessor, one information need) judges some
    documents of a query; a preference file splits a group further into subgroups (JSG),
    each ranking its documents by level (a higher level is preferred; two documents of
    one subgroup at different levels make a preference, and level 0 means non-relevant).
    Qrels of several judgment groups (``-R qrels_jg``) grade documents as qrels do, one
    grade per group. One row per line of the file.

    Attributes
    ----------
    queries : ndarray of object (str), shape (n_rows,)
        Query id of each row.
    groups : ndarray of object (str), shape (n_rows,)
        Judgment group of each row.
    subgroups : ndarray of object (str), shape (n_rows,)
        Judgment subgroup of each row (``"0"`` where the format has none).
    items : ndarray of str, shape (n_rows,)
        Document id of each row.
    levels : ndarray of float64, shape (n_rows,)
        Relevance level (preference files) or grade (``qrels_jg``) of each row.

    See Also
    --------
    read_trec_prefs, read_trec_qrels_prefs, read_trec_qrels_jg : the readers.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank import GroupedJudgments
    >>> judgments = GroupedJudgments(
    ...     np.array(["q1", "q1"], dtype=object), np.array(["user1", "user1"], dtype=object),
    ...     np.array(["0", "0"], dtype=object), np.array(["d1", "d2"]), np.array([2.0, 1.0]))
    >>> judgments.levels
    array([2., 1.])
    """

    queries: np.ndarray
    groups: np.ndarray
    subgroups: np.ndarray
    items: np.ndarray
    levels: np.ndarray


def _read_grouped(path, n_fields, layout, columns, integer):
    with _source(path) as source:
        picked, lines = _parse_trec(path, source, n_fields, layout, columns)
    if len(picked) == 5:
        queries, groups, subgroups, items, texts = picked
    else:
        queries, groups, items, texts = picked
        subgroups = ("0",) * len(queries)
    if integer:
        levels = _to_ints(path, texts, lines, "relevance (field 4)").astype(np.float64)
        # One grade per document in each judgment group, as get_qrels_jg.c checks.
        _check_unique(path, list(zip(queries, groups)), items, lines, "document")
    else:
        levels = _to_floats(path, texts, lines, f"relevance level (field {n_fields})")
    return GroupedJudgments(
        _object_array(queries),
        _object_array(groups),
        _object_array(subgroups),
        _str_array(items),
        levels,
    )


def read_trec_prefs(path):
    """Read a trec_eval preference file (``-R prefs``) into a `GroupedJudgments`.

    Each line is ``qid jg jsg docno rel_level``: a query, a judgment group (an assessor),
    a judgment subgroup, a document and its level, a number. Within a subgroup, a
    document of a higher level is preferred to one of a lower level; the subgroups of a
    group join into one partial order (preferences are transitive within a group); level
    0 means non-relevant. Lines starting with ``#`` and blank lines are skipped.

    Parameters
    ----------
    path : str or path-like
        The preference file, plain or gzip-compressed.

    Returns
    -------
    judgments : GroupedJudgments
        One row per line, levels as float64 (trec_eval reads them with ``atof``).

    Raises
    ------
    ValueError
        With a message ``<path>:<line>: ...`` for an empty file, a line without five
        fields or a level that is not a finite number.

    See Also
    --------
    read_trec_qrels_prefs : qrels read as preferences.
    evaluate_preferences : trec_eval's ``prefs_*`` measures of a run.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rank import read_trec_prefs
    >>> path = os.path.join(tempfile.mkdtemp(), "prefs.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 user1 s1 d1 2\\nq1 user1 s1 d2 1\\nq1 user1 s2 d3 0\\n")
    >>> read_trec_prefs(path).subgroups
    array(['s1', 's1', 's2'], dtype=object)
    """
    return _read_grouped(path, 5, PREFS_FORMAT, (0, 1, 2, 3, 4), integer=False)


def read_trec_qrels_prefs(path):
    """Read a qrels file as trec_eval's ``-R qrels_prefs`` does, into a `GroupedJudgments`.

    Each line is ``qid jg docno rel_level``: the second field of a qrels line (its
    ``iter``, usually ``0``) names the judgment group, and all documents of a group form
    one subgroup: every document is preferred to those of a lower level.

    Parameters
    ----------
    path : str or path-like
        The qrels file, plain or gzip-compressed.

    Returns
    -------
    judgments : GroupedJudgments
        One row per line, subgroup ``"0"``, levels as float64.

    Raises
    ------
    ValueError
        With a message ``<path>:<line>: ...`` for an empty file, a line without four
        fields or a level that is not a finite number.

    See Also
    --------
    read_trec_prefs, evaluate_preferences

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rank import read_trec_qrels_prefs
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 0 d1 1\\nq1 0 d2 0\\n")
    >>> read_trec_qrels_prefs(path).levels
    array([1., 0.])
    """
    return _read_grouped(path, 4, QRELS_PREFS_FORMAT, (0, 1, 2, 3), integer=False)


def read_trec_qrels_jg(path):
    """Read qrels of several judgment groups (trec_eval's ``-R qrels_jg``).

    Each line is ``qid jg docno rel``, as in a qrels file, except that the second field
    names a judgment group: each group judges the query on its own (one grade per
    document), and trec_eval's ``*_avgjg`` measures average a measure over the groups.

    Parameters
    ----------
    path : str or path-like
        The qrels file, plain or gzip-compressed.

    Returns
    -------
    judgments : GroupedJudgments
        One row per line, subgroup ``"0"``, grades (integers) as float64.

    Raises
    ------
    ValueError
        With a message ``<path>:<line>: ...`` for an empty file, a line without four
        fields, a grade that is not an integer, or a document graded twice by one group.

    See Also
    --------
    evaluate_judgment_groups : measures averaged over judgment groups.

    Examples
    --------
    >>> import os, tempfile
    >>> from sklearn_rank import read_trec_qrels_jg
    >>> path = os.path.join(tempfile.mkdtemp(), "qrels.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("q1 1 d1 1\\nq1 2 d1 0\\n")
    >>> read_trec_qrels_jg(path).groups
    array(['1', '2'], dtype=object)
    """
    return _read_grouped(path, 4, "qid jg docno rel", (0, 1, 2, 3), integer=True)


def _check_grouped(judgments, ranking):
    """Refuse, naming the parameter, what is not a `GroupedJudgments` of equal-length
    columns with finite levels, or not an `ItemRanking`."""
    if not isinstance(judgments, GroupedJudgments):
        raise TypeError(
            "judgments must be a GroupedJudgments (read_trec_prefs, read_trec_qrels_prefs, "
            f"read_trec_qrels_jg); got {type(judgments).__name__}."
        )
    sizes = {name: np.shape(value) for name, value in judgments._asdict().items()}
    if len({shape for shape in sizes.values()}) != 1 or len(sizes["levels"]) != 1:
        shown = ", ".join(f"{name} {shape}" for name, shape in sizes.items())
        raise ValueError(f"judgments: every column must be 1-D of one length; got {shown}.")
    levels = np.asarray(judgments.levels)
    if levels.dtype.kind not in "iuf" or not np.isfinite(levels).all():
        raise ValueError("judgments: levels must be finite numbers.")
    if not isinstance(ranking, ItemRanking):
        raise TypeError(f"ranking must be an ItemRanking; got {type(ranking).__name__}.")


def _grouped_as_queries(judgments, ranking, separator):
    """Each (query, judgment group) of ``judgments`` as a query of its own, named
    ``query + separator + group``: its judgments, the run's documents of its query
    (repeated for each group) and the sorted names of every pair. Negative grades are
    trec_eval's "pooled, not judged" (form_res_rels_jg.c): left out of the judgments,
    which is what they are for every measure but infAP and bpref; their group still
    counts."""
    _check_grouped(judgments, ranking)
    queries = judgments.queries.astype(str)
    names = np.char.add(np.char.add(queries, separator), judgments.groups.astype(str))
    pairs = np.unique(names)
    pair_query = np.array([p.split(separator, 1)[0] for p in pairs.tolist()])
    graded = judgments.levels >= 0
    truth = ItemJudgments._from_file(
        _object_array(names[graded].tolist()), judgments.items[graded], judgments.levels[graded]
    )
    run_queries = ranking.queries.astype(str)
    first = np.searchsorted(pair_query, run_queries, side="left")
    last = np.searchsorted(pair_query, run_queries, side="right")
    index, row = _ragged(first, last - first)
    runs = ItemRanking._from_file(
        _object_array(pairs[index].tolist()),
        ranking.items[row],
        None if ranking.scores is None else ranking.scores[row],
    )
    return truth, runs, pairs.astype(object)


def _ragged(starts, counts):
    """The values of the ranges ``starts[i] .. starts[i] + counts[i]`` and each one's i."""
    owner = np.repeat(np.arange(counts.size), counts)
    offsets = np.cumsum(counts) - counts
    return starts[owner] + np.arange(int(counts.sum())) - offsets[owner], owner


class _PreparedPreferences(NamedTuple):
    """A preference file joined with a run, one row per judgment line, sorted as
    form_prefs_counts.c sorts them (query, group, subgroup, level descending, rank)."""

    query_ids: np.ndarray  # the judged queries, sorted as strings (trec_eval's order)
    query: np.ndarray  # each row's query (index into query_ids)
    group: np.ndarray  # each row's judgment group, numbered over all queries in order
    subgroup: np.ndarray  # each row's subgroup, numbered over all groups in order
    level: np.ndarray
    rank: np.ndarray  # trec_eval's docid rank: see _prepare_preferences
    judged_retrieved: np.ndarray  # per query: judged documents retrieved (NJR)
    group_query: np.ndarray  # each group's query


def _codes(strings):
    """Codes of strings in byte order (strcmp on UTF-8 is code point order)."""
    return np.unique(np.asarray(strings).astype(str), return_inverse=True)[1].ravel()


def _prepare_preferences(judgments, ranking, max_documents=None):
    """Join ``judgments`` (`GroupedJudgments`) with ``ranking`` (`ItemRanking` with
    scores) as form_prefs_counts.c does. Each query's documents are ordered by score
    descending, then document id ascending (not descending as for qrels), and cut at
    ``max_documents``; the judged ones among them get ranks 0, 1, ... in that order (the
    query's NJR of them), the judged documents not retrieved the following ranks in
    document id order. Run queries without judgments are ignored; a judged query absent
    from the run retrieves nothing."""
    _check_grouped(judgments, ranking)
    query_ids, j_query = np.unique(judgments.queries.astype(str), return_inverse=True)
    j_query = j_query.ravel()
    n_queries = query_ids.size
    all_docs = np.concatenate([judgments.items.astype(str), ranking.items.astype(str)])
    doc_ids, doc_codes = np.unique(all_docs, return_inverse=True)
    doc_codes = doc_codes.ravel()
    j_doc, r_doc = doc_codes[: judgments.items.size], doc_codes[judgments.items.size :]
    width = np.int64(doc_ids.size)
    j_key = j_query.astype(np.int64) * width + j_doc

    # The run, restricted to judged queries, in trec_eval's order within each query.
    r_query = np.searchsorted(query_ids, ranking.queries.astype(str))
    r_query = np.minimum(r_query, max(n_queries - 1, 0))
    known = query_ids[r_query] == ranking.queries.astype(str)
    r_query, r_doc = r_query[known], r_doc[known]
    if ranking.scores is None:  # rows in rank order, first best
        scores = -np.arange(known.size, dtype=np.float64)[known]
    else:
        scores = np.asarray(ranking.scores, dtype=np.float64)[known]
    order = np.lexsort((r_doc, -scores, r_query))
    r_query, r_doc = r_query[order], r_doc[order]
    starts = np.searchsorted(r_query, np.arange(n_queries))
    position = np.arange(r_query.size) - starts[r_query]
    if max_documents is not None:
        kept = position < max_documents
        r_query, r_doc = r_query[kept], r_doc[kept]
    r_key = r_query.astype(np.int64) * width + r_doc
    if np.unique(r_key).size != r_key.size:
        raise ValueError("the run lists a document twice for one query")

    unique_keys = np.unique(j_key)
    judged = np.isin(r_key, unique_keys)
    judged_query = r_query[judged]
    judged_retrieved = np.bincount(judged_query, minlength=n_queries).astype(np.int64)
    retrieved_rank = np.arange(judged_query.size) - np.searchsorted(judged_query, judged_query)
    # Every distinct judged document: its rank if retrieved, else after the retrieved
    # ones in document id order (unique_keys are sorted by query, then document).
    key_query = unique_keys // width
    rank_of_key = np.empty(unique_keys.size, dtype=np.int64)
    where = np.searchsorted(unique_keys, r_key[judged])
    rank_of_key[where] = retrieved_rank
    missing = np.ones(unique_keys.size, dtype=bool)
    missing[where] = False
    missing_query = key_query[missing]
    rank_of_key[missing] = (
        judged_retrieved[missing_query]
        + np.arange(missing_query.size)
        - np.searchsorted(missing_query, missing_query)
    )
    rank = rank_of_key[np.searchsorted(unique_keys, j_key)]

    group_codes = _codes(judgments.groups)
    subgroup_codes = _codes(judgments.subgroups)
    level = np.asarray(judgments.levels, dtype=np.float64)
    order = np.lexsort((rank, -level, subgroup_codes, group_codes, j_query))
    j_query, group_codes, subgroup_codes = j_query[order], group_codes[order], subgroup_codes[order]
    level, rank = level[order], rank[order]
    new_group = np.r_[True, (j_query[1:] != j_query[:-1]) | (group_codes[1:] != group_codes[:-1])]
    group = np.cumsum(new_group) - 1
    new_subgroup = new_group | np.r_[False, subgroup_codes[1:] != subgroup_codes[:-1]]
    subgroup = np.cumsum(new_subgroup) - 1
    return _PreparedPreferences(
        query_ids.astype(object),
        j_query,
        group,
        subgroup,
        level,
        rank,
        judged_retrieved,
        j_query[new_group],
    )
