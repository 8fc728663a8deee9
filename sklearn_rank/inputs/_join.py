"""The join of a run with its judgments by (query, item) pairs: each pair a 64-bit key,
the judgments' keys sorted once, each ranked pair sought among them.

String item ids (docnos) are not numbered first: each pair's key is a hash of its query's
code and its item's characters, equal for equal pairs. Two different pairs could share a
hash, so what the hash join finds is checked (every matched pair compared whole, no key
repeated on either side); where that fails (a pair given twice, or two pairs sharing a
key) the caller numbers the items and joins exactly, which also names a repeated pair.
"""

import numpy as np

from ..utils._ids import _block_length, _string_hashes

# Below this many item ids, numbering the strings costs about what hashing them does.
_HASH_JOIN_ROWS = 1 << 15
_QUERY_MIX = np.uint64(0xC4CEB9FE1A85EC53)
_KEY_MIX = np.uint64(0xFF51AFD7ED558CCD)
_SHIFT = np.uint64(33)


def _hashed_pair_keys(true_code, true_items, run_code, run_items, n_threads=1):
    """The 64-bit keys of the (query code, item) pairs of the judgments and of the run,
    when both sides' items are fixed-width strings (both str, or both the ASCII bytes a
    reader kept), many enough to hash; else None."""
    kind = true_items.dtype.kind
    if kind not in "SU" or run_items.dtype.kind != kind:
        return None
    if true_items.size + run_items.size < _HASH_JOIN_ROWS:
        return None
    # Equal strings hash alike only at one width: the narrower side is widened.
    dtype = max(true_items.dtype, run_items.dtype, key=lambda dtype: dtype.itemsize)
    if dtype.itemsize == 0:
        return None
    query_bits = _query_bits(true_code, run_code)
    keys = []
    for codes, items in ((true_code, true_items), (run_code, run_items)):
        key = _string_hashes(np.ascontiguousarray(items, dtype=dtype), n_threads)
        if 0 < query_bits <= 32:
            # The query's code in the high bits: the keys of a run grouped by query are
            # sorted blocks, which the search among the judgments' keys reads in order.
            key >>= np.uint64(query_bits)
            key |= codes.astype(np.uint64) << np.uint64(64 - query_bits)
        elif query_bits:
            key ^= codes.astype(np.uint64) * _QUERY_MIX
            key *= _KEY_MIX
            key ^= key >> _SHIFT
        keys.append(key)
    return keys


def _query_bits(true_code, run_code):
    """The bits of the largest query code: keys carry the code in their high bits (the
    keys of one query sorted together) when there are 1 to 32 of them."""
    return int(max(true_code.max(initial=0), run_code.max(initial=0))).bit_length()


def _has_repeated_key(sorted_keys):
    return bool(np.any(sorted_keys[1:] == sorted_keys[:-1]))


def _match(true_key, run_key):
    """For each run key, the row of the equal judgments key: ``(rows, found)``, ``rows``
    meaningful where ``found``; and whether the judgments repeat a key."""
    order = np.argsort(true_key)
    found = np.zeros(run_key.size, dtype=bool)
    rows = np.zeros(run_key.size, dtype=np.intp)
    sorted_key = true_key[order]
    if true_key.size:
        rows = np.searchsorted(sorted_key, run_key)
        np.minimum(rows, sorted_key.size - 1, out=rows)
        found = sorted_key[rows] == run_key
        np.take(order, rows, out=rows)  # (in place: as many rows as the run)
    return rows, found, _has_repeated_key(sorted_key)


def _run_key_order(run_key, run_code, query_bits):
    """The order that sorts the run's keys. A run grouped by query is blocks of keys that
    sort alone (the query's code in their high bits): a merging sort finds them, and
    blocks of one length (a run's 1,000 documents per topic) are sorted as the rows of a
    matrix, faster still."""
    grouped = bool(np.all(run_code[1:] >= run_code[:-1]))
    if not grouped:
        return np.argsort(run_key)
    length = _block_length(run_code) if 0 < query_bits <= 32 else None
    if length is None:
        return np.argsort(run_key, kind="stable")
    order = np.argsort(run_key.reshape(-1, length), axis=1)
    order += np.arange(0, run_key.size, length)[:, None]
    return order.ravel()


def _hash_join(true_code, true_items, run_code, run_items, n_threads=1):
    """`_match` by hashed keys, checked: ``(rows, found)``, or None where the hash join
    does not apply or cannot be trusted (a key repeated, a matched pair not equal)."""
    keys = _hashed_pair_keys(true_code, true_items, run_code, run_items, n_threads)
    if keys is None:
        return None
    true_key, run_key = keys
    del keys
    # Both sides sorted (each checked for a repeated key), the judgments' keys are sought
    # among the run's, in order: fewer searches than the run's keys among the judgments'
    # (a run usually has several times more rows), each where the last one ended.
    true_order = np.argsort(true_key)
    true_key = true_key[true_order]
    if _has_repeated_key(true_key):
        return None
    run_order = _run_key_order(run_key, run_code, _query_bits(true_code, run_code))
    run_key = run_key[run_order]
    if _has_repeated_key(run_key):
        return None
    rows = np.zeros(run_code.size, dtype=np.intp)
    found = np.zeros(run_code.size, dtype=bool)
    if run_key.size:
        at = np.searchsorted(run_key, true_key)
        np.minimum(at, run_key.size - 1, out=at)
        hit = run_key[at] == true_key
        del run_key
        ranked = run_order[at[hit]]
        rows[ranked] = true_order[hit]
        found[ranked] = True
    matched = rows[found]
    if not (
        np.array_equal(run_code[found], true_code[matched])
        and np.array_equal(run_items[found], true_items[matched])
    ):
        return None
    return rows, found
