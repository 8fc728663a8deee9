"""Inputs with item ids, joined into a `_Queries`: `ItemRanking` against `ItemJudgments`
(or sparse truth), top-N id matrices, and ranked lists of Python objects (sets, dicts,
sequences of ids), which are flattened into the same two tables first.
"""

from collections.abc import Mapping, Sequence

import numpy as np

from ..utils._ids import (
    _concat_ids,
    _factorize,
    _factorize_concatenated,
    _factorize_strings,
    _id_array,
)
from ..utils._sparse import _issparse, _sparse
from ..utils._threads import _block_runner, _value_range
from ..utils._validation import _is_bool, _python_value
from ._join import _hash_join, _match
from ._queries import _Queries, _scores_as
from ._tables import ItemJudgments, ItemRanking, _joinable_items

_BLOCK = 1 << 16  # ranked items joined per block of top-N rows


def _sparse_keys(exclude):
    """Entry numbers (row * n_columns + column) of the excluded (query, item) pairs."""
    coo = _sparse().coo_matrix(exclude)
    if int(coo.shape[0]) * int(coo.shape[1]) >= 2**63:
        # Keys row * n_columns + column would wrap around in int64 and collide.
        raise ValueError(
            f"exclude has shape {coo.shape}: rows x columns must be below 2**63; use "
            "query and item ids numbered from 0 (ItemRanking with row numbers)."
        )
    coo.sum_duplicates()
    keep = coo.data != 0
    return coo.row[keep].astype(np.int64) * np.int64(coo.shape[1]) + coo.col[keep], coo.shape


def _check_ids_in_matrix(run, shape, matrix="y_true", n_threads=1):
    """Refuse run ids that cannot index a (queries x items) matrix, naming the first one.

    Row and column numbers are the ids of a matrix's queries and items: an id past its
    edge (a catalogue id the truth matrix lacks, a -1 filler) would otherwise be read as
    an unjudged item, or a query of its own, silently.
    """
    for label, ids, limit in (("item", run.items, shape[1]), ("query", None, shape[0])):
        if label == "query":
            if run._topn is not None:  # row numbers: only their count can exceed
                if run._topn.shape[0] > limit:
                    raise ValueError(
                        f"{matrix} is a {shape[0]} x {shape[1]} matrix but y_score has "
                        f"{run._topn.shape[0]} rows of ids: query ids must be row numbers "
                        f"in [0, {limit}); got {limit}."
                    )
                continue
            ids = run.queries
        if not ids.size:
            continue
        if ids.dtype.kind in "iu":
            low, high = _value_range(ids, n_threads)
            if low >= 0 and high < limit:
                continue
            first = int(np.flatnonzero((ids < 0) | (ids >= limit))[0])
        else:
            first = 0
        where = f"row {first}"
        if run._topn is None:
            where = f"query {_python_value(run.queries[first])!r}, {where}"
        else:
            where = f"query {first // run._topn.shape[1]}, rank {first % run._topn.shape[1] + 1}"
        raise ValueError(
            f"{matrix} is a {shape[0]} x {shape[1]} matrix: y_score's {label} ids must be "
            f"integers in [0, {limit}) to index it; got {_python_value(ids[first])!r} "
            f"({where})."
        )


def _as_judgments(y_true):
    if isinstance(y_true, ItemJudgments):
        return y_true
    if _issparse(y_true):
        return ItemJudgments.from_sparse(y_true)
    raise ValueError(
        "With y_score an ItemRanking, y_true must be an ItemJudgments or a scipy.sparse "
        f"matrix (queries x items); got {type(y_true).__name__}."
    )


def _as_ranking(y_score):
    if isinstance(y_score, ItemRanking):
        return y_score
    raise ValueError(
        "With y_true an ItemJudgments, y_score must be an ItemRanking (ItemRanking(queries, "
        f"items, scores) or ItemRanking.from_topn(ids)); got {type(y_score).__name__}."
    )


def _from_items(
    truth,
    run,
    *,
    known_queries=None,
    exclude=None,
    tie_break="input",
    query_set="all",
    score_dtype="float64",
    judged_only=False,
    n_threads=1,
):
    """Join a run with its judgments by (query, item) keys, vectorised.

    Queries are numbered once, first (``known_queries`` first: rows of a sparse truth
    matrix, list positions), so that exclusion never renumbers them; ``query_set`` then
    keeps a subset of them in the same order.
    """
    if not judged_only:
        largest = _topn_applies(truth, run, known_queries, exclude, query_set, n_threads)
        if largest is not None:
            return _from_topn(truth, run._topn, largest, n_threads), known_queries
    run_q, score = run.queries, run.scores
    if score is None:
        score = -np.arange(run_q.size, dtype=np.float64)  # row order is rank order
    true_q, rel = truth.queries, truth.relevance
    if exclude is None:  # (exclusion compares the ids as given)
        true_i, run_i, as_bytes = _joinable_items(truth, run)
    else:
        true_i, run_i, as_bytes = truth.items, run.items, False
    if _are_row_numbers(known_queries, true_q, run_q):
        # Queries are the rows 0..n-1 of a matrix: each id is its own code already.
        ids, true_code, run_code = known_queries, true_q.astype(np.int64), run_q.astype(np.int64)
    else:
        parts = [true_q, run_q] if known_queries is None else [known_queries, true_q, run_q]
        codes, ids = _factorize_concatenated(parts, n_threads=n_threads)
        start = codes.size - true_q.size - run_q.size
        true_code, run_code = codes[start : start + true_q.size], codes[start + true_q.size :]
    if query_set != "all":
        # "judged": only queries with judgments (trec_eval -c); "both": only queries also
        # in the run (trec_eval's default).
        kept = np.zeros(len(ids), dtype=bool)
        kept[true_code] = True
        if query_set == "both":
            ranked = np.zeros(len(ids), dtype=bool)
            ranked[run_code] = True
            kept &= ranked
    if query_set != "all" and not kept.all():  # (every query kept: nothing to copy)
        renumber = np.cumsum(kept) - 1
        keep_run, keep_true = kept[run_code], kept[true_code]
        run_q, run_i, score, run_code = (a[keep_run] for a in (run_q, run_i, score, run_code))
        true_q, true_i, rel, true_code = (a[keep_true] for a in (true_q, true_i, rel, true_code))
        run_code, true_code, ids = renumber[run_code], renumber[true_code], ids[kept]
    unexcluded = None
    if exclude is not None:
        unexcluded = np.bincount(run_code, minlength=len(ids))
        (run_q, run_i, score, run_code), (true_q, true_i, rel, true_code) = _exclude_items(
            exclude, (run_q, run_i, score, run_code), (true_q, true_i, rel, true_code)
        )
    joined = _hash_join(true_code, true_i, run_code, run_i, n_threads)
    if joined is None:
        # The exact join numbers the ids as given, and its messages name them so.
        true_i, run_i = _as_given(true_i, as_bytes), _as_given(run_i, as_bytes)
        true_item, run_item, n_items, distinct_items = _item_codes(true_i, run_i, n_threads)
        true_key = true_code * n_items + true_item
        run_key = run_code * n_items + run_item

        def keys_in_order():
            # Item codes by first appearance: the pair a message names does not depend on
            # how the codes of the join were numbered.
            true_item, run_item, n_items, _ = _item_codes(true_i, run_i, n_threads, in_order=True)
            return true_code * n_items + true_item, run_code * n_items + run_item

        _refuse_duplicates(true_key, true_q, true_i, "y_true judges", lambda: keys_in_order()[0])
        _refuse_duplicates(run_key, run_q, run_i, "y_score ranks", lambda: keys_in_order()[1])
        joined = _match(true_key, run_key)[:2]  # (repeats refused above)
        del true_key, run_key

        def item_codes(run_item=run_item, distinct_items=distinct_items):
            return run_item, distinct_items

    else:  # the items are not numbered unless a run out of rank order needs them

        def item_codes(true_i=true_i, run_i=run_i):
            return _item_codes(_as_given(true_i, as_bytes), _as_given(run_i, as_bytes), n_threads)[
                1::2
            ]

    rows, found = joined
    cand_rel = np.zeros(run_code.size)
    matched = np.zeros(true_code.size, dtype=bool)
    cand_rel[found] = rel[rows[found]]
    matched[rows[found]] = True
    del rows
    if judged_only:  # condensed lists: the unjudged candidates leave the ranking
        kept = found
        run_code, score, cand_rel, run_i = (
            run_code[kept],
            score[kept],
            cand_rel[kept],
            run_i[kept],
        )
        found = found[kept]
        every_item_codes = item_codes

        def item_codes():
            run_item, distinct_items = every_item_codes()
            return run_item[kept], distinct_items

    if tie_break == "item_descending":
        moved = _docno_order(run_code, _scores_as(score, score_dtype), run_i, item_codes)
        if moved is not None and moved[0] is None:  # every row
            run_code, score, cand_rel, found = (
                a[moved[1]] for a in (run_code, score, cand_rel, found)
            )
        elif moved is not None:  # the tied rows only, in place (the scores are the caller's)
            score = score.copy()
            for column in (run_code, score, cand_rel, found):
                column[moved[0]] = column[moved[1]]
    n_queries = len(ids)
    if n_queries == 0:
        raise ValueError(
            "No query left to evaluate: "
            + (
                f"the judgments and the run share no query (query_set={query_set!r})."
                if query_set != "all"
                else "both inputs are empty."
            )
        )
    return (
        _Queries(
            n_queries=n_queries,
            score=_scores_as(score, score_dtype),
            rel=cand_rel,
            codes=run_code,
            n_cand=np.bincount(run_code, minlength=n_queries),
            extra_codes=true_code[~matched],
            extra_rel=rel[~matched],
            judged_mask=found,
            relevance_ties=tie_break == "relevance_ascending",
            n_cand_unexcluded=unexcluded,
        ),
        ids,
    )


def _as_given(items, as_bytes):
    """Ids the join read as ASCII bytes (`_tables._joinable_items`) as str again."""
    return items.astype(str) if as_bytes else items


def _docno_order(codes, kernel_score, items, item_codes):
    """The row order that breaks score ties as trec_eval does, by document id compared as
    strings, descending (the kernel's stable sort keeps it within ties), as
    ``(positions, rows)``: the rows to put at ``positions`` (None: at every position);
    None when the rows are in such an order already.

    A run written as runs are, grouped by query and ranked, has its ties side by side:
    only the ids of tied rows are put in order, in place (a run without ties keeps its
    order). Any other run is put in descending id order whole. Both give the kernel the
    same order within every tie, hence the same ranking.
    """
    same_query = codes[1:] == codes[:-1]
    if np.all(codes[1:] >= codes[:-1]) and np.all(
        kernel_score[1:][same_query] <= kernel_score[:-1][same_query]
    ):
        tied_to_previous = same_query & (kernel_score[1:] == kernel_score[:-1])
        if not tied_to_previous.any():
            return None
        in_tie = np.zeros(codes.size, dtype=bool)
        in_tie[1:] = tied_to_previous
        in_tie[:-1] |= tied_to_previous
        tied = np.flatnonzero(in_tie)
        tie_group = np.cumsum(np.concatenate([[True], ~tied_to_previous]))[tied]
        text_rank = _text_ranks(items[tied])
        return tied, tied[np.lexsort((-text_rank, tie_group))]
    # Only the distinct ids are turned into strings (and string ids, numbered already, are
    # not numbered again: ranking every distinct id of both sides orders the run's alike).
    item_codes, distinct_items = item_codes()
    distinct = None if distinct_items is None else distinct_items()
    if distinct is not None and distinct.dtype.kind == "U":
        text_rank = np.empty(distinct.size, dtype=np.int64)
        order = np.argsort(distinct.astype(str), kind="stable")
        text_rank[order] = np.arange(distinct.size)
        text_rank = text_rank[item_codes]
    else:
        text_rank = _text_ranks(items)
    return None, np.argsort(-text_rank, kind="stable")


def _text_ranks(items):
    """Each id's rank among the distinct ids compared as strings (bytes ids as bytes, as
    strcmp compares docnos: for ASCII, the order of their str)."""
    distinct, which = np.unique(items, return_inverse=True)
    text = distinct if distinct.dtype.kind == "S" else distinct.astype(str)
    text_rank = np.empty(distinct.size, dtype=np.int64)
    text_rank[np.argsort(text, kind="stable")] = np.arange(distinct.size)
    return text_rank[which.ravel()]


def _topn_applies(truth, run, known_queries, exclude, query_set, n_threads=1):
    """Whether a top-N matrix of integer ids meets truth on the same row-numbered queries:
    then the largest item id of both (a Python int: the largest id of a narrow or
    unsigned type must not wrap), else None.

    Then the ranking is the matrix itself (queries x ranks) and only the truth needs
    joining; exclusion and query subsets take the general path.
    """
    top = run._topn
    if top is None or exclude is not None or query_set != "all" or known_queries is None:
        return None
    if known_queries.size != top.shape[0] or truth.items.dtype.kind not in "iu":
        return None
    if top.size == 0:  # no ranked item at all: the general path says so
        return None
    if not _are_row_numbers(known_queries, truth.queries):
        return None
    # top holds ids (checked above); the truth may hold none.
    ranges = [r for r in (_value_range(top, n_threads), _value_range(truth.items, n_threads)) if r]
    if not all(low >= 0 and high < 2**31 for low, high in ranges):
        return None
    return max(int(high) for _, high in ranges)


def _from_topn(truth, top, largest, n_threads=1):
    """A `_Queries` of rank-ordered columns from a top-N id matrix and its judgments,
    whose item ids are at most ``largest`` (`_topn_applies`).

    Each block of rows joins its (row, item) keys with that block's judgments only, so
    no array of one value per ranked item is ever made; blocks run on ``n_threads``.
    """
    n_queries, width = top.shape
    true_q = truth.queries.astype(np.int64, copy=False)
    rel = truth.relevance
    n_items = np.int64(largest + 1)
    true_key = true_q * n_items + truth.items
    if true_key.size > 1 and not np.all(true_key[1:] > true_key[:-1]):
        _refuse_duplicates(true_key, truth.queries, truth.items, "y_true judges")
        order = np.argsort(true_key)
        true_key, true_q, rel = true_key[order], true_q[order], rel[order]
    bounds = np.searchsorted(true_key, np.arange(n_queries + 1) * n_items)

    def join_block(first):
        block = top[first : first + step]
        # Each row's ids in order: duplicates sit side by side, and (row, id) keys of the
        # whole block come out sorted, so the block's sorted judgments search them in
        # one pass.
        # Sorting values is about 3x faster than argsort, so each id carries its column
        # in its low bits (ids are below 2**31: _topn_applies checked it).
        packed = np.left_shift(block, column_bits, dtype=np.int64)
        packed |= columns
        packed.sort(axis=1)
        items = packed >> column_bits
        order = packed & column_mask
        del packed
        same = np.flatnonzero((items[:, 1:] == items[:, :-1]).ravel())
        if same.size:
            row, at = divmod(int(same[0]), width - 1)
            raise _repeated_item("y_score ranks", items[row, at].item(), first + row)
        low, high = bounds[first], bounds[first + block.shape[0]]
        if low == high:
            return None
        keys = (
            np.arange(first, first + block.shape[0], dtype=np.int64)[:, None] * n_items + items
        ).ravel()
        at = np.minimum(np.searchsorted(keys, true_key[low:high]), keys.size - 1)
        hit = keys[at] == true_key[low:high]
        found = np.flatnonzero(hit)
        judged, at = found + low, at[found]
        # The block's judgments never ranked: each block owns its own, so no pass over all.
        hit = ~hit
        extra = true_q[low:high][hit], rel[low:high][hit]
        entry = (first + at // width) * np.int64(width) + order.ravel()[at]
        keep = np.flatnonzero(rel[judged] != 0)
        by_entry = np.argsort(entry[keep])
        zeros = np.sort(entry[rel[judged] == 0])  # judged non-relevant: kept apart
        return entry[keep][by_entry], rel[judged][keep][by_entry], zeros, *extra

    column_bits = max(width - 1, 0).bit_length()
    column_mask = np.int64((1 << column_bits) - 1)
    columns = np.arange(width, dtype=np.int64)
    step = max(1, _BLOCK // width)
    firsts = range(0, n_queries, step)
    with _block_runner(len(firsts), n_threads) as run:
        parts = [part for part in run(join_block, firsts) if part is not None]
    entries, values, zeros, extra_codes, extra_rel = zip(*parts) if parts else ((),) * 5
    empty = np.zeros(0, dtype=np.int64)
    return _Queries(
        n_queries=n_queries,
        score=None,
        n_cand=np.broadcast_to(np.int64(width), (n_queries,)),  # read-only, no memory
        width=width,
        truth_keys=np.concatenate(entries) if entries else empty,
        truth_rel=np.concatenate(values) if values else np.zeros(0),
        extra_codes=np.concatenate(extra_codes) if parts else empty,
        extra_rel=np.concatenate(extra_rel) if parts else np.zeros(0),
        ranked=True,
        zero_keys=np.concatenate(zeros) if zeros else empty,
    )


def _are_row_numbers(known_queries, *others):
    """Whether the known queries are 0..n-1 and every other query id is one of them."""
    if known_queries is None or known_queries.dtype.kind not in "iu":
        return False
    n = known_queries.size
    if not np.array_equal(known_queries, np.arange(n)):
        return False
    return all(
        ids.dtype.kind in "iu" and (not ids.size or (ids.min() >= 0 and ids.max() < n))
        for ids in others
    )


def _item_codes(true_items, run_items, n_threads=1, in_order=False):
    """Integer codes for the item ids of both sides; only equality matters, not order.

    Small non-negative integer ids (column numbers, top-N ids) are their own codes, which
    spares a sort and its copies of every id. Returns the codes of each side, the number
    of codes and a function that returns the distinct ids in code order (None for ids
    that are their own codes). String ids are numbered by first appearance only
    ``in_order``.
    """
    if true_items.dtype.kind in "iu" and run_items.dtype.kind in "iu":
        low = min(true_items.min(initial=0), run_items.min(initial=0))
        high = max(true_items.max(initial=0), run_items.max(initial=0))
        if low >= 0 and high < 2**31:
            return (
                true_items.astype(np.int64, copy=False),
                run_items.astype(np.int64, copy=False),
                np.int64(int(high) + 1),
                None,
            )
    if true_items.dtype.kind == "U" and run_items.dtype.kind == "U":
        # Strings (docnos): hashed side by side, never copied into one array.
        codes, n_items, distinct = _factorize_strings([true_items, run_items], n_threads, in_order)
    else:
        codes, items = _factorize(
            _concat_ids([true_items, run_items]),
            true_items.size + run_items.size,
            "item ids",
            n_threads=n_threads,
        )
        n_items, distinct = len(items), lambda: items
    n_items = np.int64(max(n_items, 1))
    return codes[: true_items.size], codes[true_items.size :], n_items, distinct


def _refuse_duplicates(keys, queries, items, what, keys_for_message=None):
    """Refuse a (query, item) key given twice, naming the first in the order of
    ``keys_for_message()`` (the same keys, numbered otherwise), or of ``keys``."""
    # Sorting values is about 3x faster than argsort: rows are sought only for a message.
    in_order = np.sort(keys)
    if not np.any(in_order[1:] == in_order[:-1]):
        return
    del in_order
    if keys_for_message is not None:
        keys = keys_for_message()
    order = np.argsort(keys, kind="stable")
    same = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    if same.size:
        row = order[same[0] + 1]
        raise _repeated_item(what, _python_value(items[row]), _python_value(queries[row]))


def _repeated_item(what, item, query):
    return ValueError(
        f"{what} item {item!r} more than once for query {query!r}; each item may appear "
        "once per query."
    )


def _exclude_items(exclude, run, truth):
    """Drop excluded (query, item) pairs from the run and the truth.

    ``exclude`` is a matrix (queries x items): it needs integer query and item ids, the
    row and column numbers.
    """
    keys, shape = _sparse_keys(exclude)
    kept = []
    for name, (queries, items, values, codes) in (("y_score", run), ("y_true", truth)):
        for label, ids, limit in (("query", queries, shape[0]), ("item", items, shape[1])):
            if ids.size and (ids.dtype.kind not in "iu" or ids.min() < 0 or ids.max() >= limit):
                first = (
                    int(np.flatnonzero((ids < 0) | (ids >= limit))[0])
                    if ids.dtype.kind in "iu"
                    else 0
                )
                raise ValueError(
                    f"exclude is a {shape[0]} x {shape[1]} matrix: {name}'s {label} ids must "
                    f"be integers in [0, {limit}) to index it; got "
                    f"{_python_value(ids[first])!r} (query "
                    f"{_python_value(queries[first])!r}, row {first})."
                )
        key = queries.astype(np.int64) * np.int64(shape[1]) + items
        keep = ~np.isin(key, keys)
        kept.append((queries[keep], items[keep], values[keep], codes[keep]))
    return kept


def _from_lists(truth, rankings):
    """Ranked-list form: flatten the Python objects (one pass) into judgments and a run."""
    if isinstance(rankings, (str, bytes)) or not isinstance(rankings, (Sequence, np.ndarray)):
        raise ValueError(
            "y_score must be a list with one ranking per query (a sequence of item ids in rank "
            "order, or a dict item id -> score) when y_true is a list; got "
            f"{type(rankings).__name__}."
        )
    if len(rankings) != len(truth):
        raise ValueError(
            f"y_true and y_score must have one entry per query; got {len(truth)} and "
            f"{len(rankings)}."
        )
    true_q, true_i, true_rel, run_q, run_i, run_score = [], [], [], [], [], []
    for q, (judged, ranked) in enumerate(zip(truth, rankings)):
        gains = _truth_gains(judged, q)
        true_q.extend([q] * len(gains))
        true_i.extend(gains)
        true_rel.extend(gains.values())
        items, scores = _ranking_items(ranked, q)
        run_q.extend([q] * len(items))
        run_i.extend(items)
        run_score.extend(scores)
    return (
        ItemJudgments(np.asarray(true_q, dtype=np.int64), _id_array(true_i), true_rel),
        ItemRanking(np.asarray(run_q, dtype=np.int64), _id_array(run_i), run_score),
    )


def _finite_number(value, where, item, what):
    if _is_bool(value) or not isinstance(value, (int, float, np.number)) or not np.isfinite(value):
        raise ValueError(
            f"{where} maps item {item!r} to {value!r}; {what} must be a finite number."
        )
    return float(value)


def _truth_gains(judged, q):
    if isinstance(judged, Mapping):
        return {
            item: _finite_number(value, f"y_true[{q}]", item, "relevance")
            for item, value in judged.items()
        }
    return dict.fromkeys(judged, 1.0)


def _ranking_items(ranked, q):
    if isinstance(ranked, Mapping):
        items = list(ranked)
        return items, [
            _finite_number(ranked[item], f"y_score[{q}]", item, "a score") for item in items
        ]
    if isinstance(ranked, (str, bytes)) or not isinstance(ranked, (Sequence, np.ndarray)):
        raise ValueError(
            f"y_score[{q}] must be a sequence of item ids in rank order or a dict item id -> "
            f"score; got {type(ranked).__name__}."
        )
    items = list(ranked.tolist() if isinstance(ranked, np.ndarray) else ranked)
    # Rank order is the only information: position p gets score -p, no ties.
    return items, [-float(p) for p in range(len(items))]
