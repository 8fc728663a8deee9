"""Query and item ids: one numpy type where they share one, numbered by first appearance.

Ids may be numbers or strings (any hashable in object arrays); 1 and "1" are different
ids, and None, NaN, NaT or pandas.NA is never one.
"""

import weakref
from collections.abc import Mapping, Set
from operator import methodcaller

import numpy as np

from ._threads import _block_runner
from ._validation import _shown


def _id_array(values):
    """Ids as one numpy type when they share one, else as objects (1 and "1" differ)."""
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        try:
            return np.asarray(values, dtype=np.int64)
        except OverflowError:  # ids beyond int64 (uint64 hashes, 2**70) stay Python ints
            return np.fromiter((int(v) for v in values), dtype=object, count=len(values))
    if all(isinstance(v, str) for v in values):
        return _str_array(values)
    if all(isinstance(v, (float, np.floating)) for v in values):
        return np.asarray(values, dtype=np.float64)
    # fromiter keeps tuple ids whole; slice assignment would broadcast them into columns.
    return np.fromiter(values, dtype=object, count=len(values))


# What one Python str of ASCII text costs in an object array besides its characters: the
# pointer and the object's header (sys.getsizeof("") is 49 up to Python 3.11, 41 after).
# A constant, not this Python's figure: every Python makes the same arrays of a file.
_STR_OVERHEAD = 57


def _fits_fixed_width(longest, n_characters, n_ids):
    """Whether numpy's fixed-width str (4 bytes per character of the longest id, for every
    id) takes no more memory than the ids as Python strings would."""
    return 4 * longest * n_ids <= _STR_OVERHEAD * n_ids + n_characters


def _str_array(values):
    """A sequence of str as numpy's fixed-width str where that takes no more memory than
    Python strings, else as objects; either way the same ids.

    Fixed-width strings are built, sorted and compared in numpy's loops; one long id among
    short ones would make every id as long, so such ids stay Python strings. So do ids
    ending with a NUL character, which numpy's fixed-width strings drop ("a" and "a\x00"
    would become one id).
    """
    lengths = np.fromiter(map(len, values), dtype=np.int64, count=len(values))
    if not lengths.size:
        return np.asarray(values, dtype=str)
    longest = int(lengths.max())
    if _fits_fixed_width(longest, int(lengths.sum()), lengths.size) and not any(
        map(methodcaller("endswith", "\x00"), values)
    ):
        return np.asarray(values, dtype=f"U{max(longest, 1)}")
    return np.fromiter(values, dtype=object, count=len(values))


def _is_missing(value):
    """None, NaN, NaT or pandas.NA (whose comparisons give NA, which has no truth value)."""
    if value is None:
        return True
    try:
        return bool(value != value)
    except (TypeError, ValueError):
        return type(value).__name__ == "NAType"


def _missing_text(value):
    """A missing id as messages show it, the same under every numpy version."""
    if isinstance(value, (float, np.floating)):
        return "NaN"
    if isinstance(value, (np.datetime64, np.timedelta64)):
        return "NaT"
    return repr(value)


def _first_missing(ids):
    """Row of the first None or NaN among ids, or None when there is none."""
    if ids.dtype.kind == "f":
        missing = np.isnan(ids)
    elif ids.dtype.kind in "Mm":  # dates from DataFrames: a missing one is NaT
        missing = np.isnat(ids)
    elif ids.dtype == object:
        try:  # None, and NaN (the one value unequal to itself), in numpy's own loop
            missing = np.equal(ids, None) | np.not_equal(ids, ids)
        except (TypeError, ValueError):  # pandas.NA compares to NA, which has no truth
            missing = np.frompyfunc(_is_missing, 1, 1)(ids).astype(bool)
    else:
        return None
    return int(np.flatnonzero(missing)[0]) if missing.any() else None


# Id arrays whose codes a file reader computed while reading: id(array) -> (a weak
# reference to the array, its codes, its distinct ids in code order). An entry goes with
# its array.
_KNOWN_CODES = {}


def _with_known_codes(ids, codes, distinct):
    """``ids``, remembered with ``codes`` (numbered by first appearance) and ``distinct``
    (the ids in code order), which `_factorize` then returns while they still hold."""
    for array in (codes, distinct):
        array.flags.writeable = False
    key = id(ids)
    _KNOWN_CODES[key] = (
        weakref.ref(ids, lambda _ref: _KNOWN_CODES.pop(key, None)),
        codes,
        distinct,
    )
    return ids


def _known_codes(ids):
    """``(codes, distinct ids)`` of an array `_with_known_codes` remembered, else None.

    The ids may have been changed in place since: the codes are returned only if they
    still give every id (a comparison of each id, several times faster than numbering
    them again).
    """
    entry = _KNOWN_CODES.get(id(ids))
    if entry is None or entry[0]() is not ids:
        return None
    codes, distinct = entry[1], entry[2]
    if ids.shape != codes.shape or not np.array_equal(distinct[codes], ids):
        return None
    return codes, distinct


def _factorize_concatenated(parts, name="groups", n_threads=1):
    """`_factorize` of the id arrays ``parts`` end to end; where every part's codes are
    known, from those codes and the parts' distinct ids only (the same numbering by first
    appearance: each part's distinct ids are in that order already)."""
    known = [_known_codes(part) for part in parts]
    if not parts or any(entry is None for entry in known):
        total = sum(part.size for part in parts)
        return _factorize(_concat_ids(parts), total, name, n_threads=n_threads)
    distinct_codes, distinct = _factorize(_concat_ids([ids for _codes, ids in known]), None, name)
    starts = np.cumsum([0] + [ids.size for _codes, ids in known])
    codes = np.concatenate(
        [distinct_codes[start:][part_codes] for start, (part_codes, _ids) in zip(starts, known)]
    )
    return codes, distinct


def _factorize(groups, n_rows, name="groups", n_threads=1):
    """Integer codes for ids, numbered in order of first appearance, and the distinct ids
    in that order.

    ``n_rows`` None accepts any length. With ``n_threads``, ranges of values are sorted on
    threads of their own; the codes are the same.
    """
    if (
        hasattr(groups, "to_numpy")
        and isinstance(getattr(groups, "dtype", None), np.dtype)
        and not isinstance(groups, np.ndarray)
    ):
        # A numpy-backed pandas column has one type already: no Python pass over the ids.
        # (Nullable and other extension columns take the list path, which keeps <NA>.)
        groups = groups.to_numpy()
    if not isinstance(groups, np.ndarray):
        if isinstance(groups, (str, bytes, Set, Mapping)) or not hasattr(
            groups, "__iter__"
        ):  # sets have no row order
            raise ValueError(
                f"{name} must be a 1-D array-like with one query id per row; got {_shown(groups)}."
            )
        # Mixed ids (1 and "1") must not become strings, nor tuple ids columns.
        groups = _id_array(list(groups))
        if (
            groups.dtype == object
            and groups.size
            and all(isinstance(v, (list, np.ndarray)) for v in groups)
        ):
            raise ValueError(
                f"{name} must be 1-D with one query id per row; got a nested sequence "
                f"(row 0 is {groups[0]!r})."
            )
    ids = groups
    known = _known_codes(ids)
    if known is not None and (n_rows is None or ids.shape[0] == n_rows):
        return known[0].copy(), known[1].copy()  # (the caller's to change)
    if ids.ndim != 1 or (n_rows is not None and ids.shape[0] != n_rows):
        rows = "" if n_rows is None else f" ({n_rows} rows)"
        raise ValueError(
            f"{name} must be 1-D with one query id per row{rows}; got shape {ids.shape}."
        )
    row = _first_missing(ids)
    if row is not None:
        shown = _missing_text(ids[row])
        what = "NaN" if ids.dtype.kind == "f" else "None or NaN"
        raise ValueError(f"{name} must not contain {what}; got {shown} at row {row}.")
    if ids.dtype.kind == "c" or ids.dtype.kind == "V":
        raise ValueError(f"{name} must hold numbers or strings; got dtype {ids.dtype}.")
    if ids.size >= _HASH_ROWS and ids.dtype.kind == "U":
        # Strings are numbered through a hash of each: sorting 64-bit numbers is several
        # times faster than sorting strings.
        found = _factorize_by_hash(ids, n_threads)
        if found is not None:
            return found
    if ids.dtype == object:
        return _factorize_objects(ids, name)
    if ids.size == 0:
        return np.zeros(0, dtype=np.int64), ids
    return _factorize_sorted(ids, n_threads)


def _factorize_sorted(ids, n_threads):
    """`_factorize` of a numpy array of one comparable type, by sorting the ids."""
    parts = _value_ranges(ids, n_threads)
    with _block_runner(len(parts), n_threads) as run:
        # Each thread finds the rows of its range itself: one pass each, no serial split.
        rows = run(lambda bounds: _rows_in_range(ids, *bounds), parts)
        runs = run(lambda part: _runs_of_equal_ids(ids, part), rows)
        # Ranges in value order: their distinct ids, one after the other, are sorted.
        first_row = np.concatenate([first for first, _group in runs])
        order = np.argsort(first_row)  # numbered by first appearance
        rank = np.empty(order.size, dtype=np.int64)
        rank[order] = np.arange(order.size)
        distinct = ids[first_row[order]]
        if len(parts) == 1:
            group = runs[0][1]
            np.take(rank, group, out=group)
            return group, distinct
        codes = np.empty(ids.size, dtype=np.int64)
        offsets = np.cumsum([0] + [first.size for first, _group in runs])

        def number(part):
            part_rows, (_first, group), offset = part
            codes[part_rows] = rank[group + offset]

        run(number, list(zip(rows, runs, offsets)))  # the same pool numbers the rows
    return codes, distinct


_SPLIT_ROWS = 1 << 18  # ids per value range at least, when several threads factorize


def _value_ranges(ids, n_threads):
    """Bounds splitting the values of ``ids`` into ranges of about as many rows each
    (equal ids in the same range), one per thread: ``[(None, None)]`` (every id) for one
    thread, else (low, high) pairs, None standing for no bound."""
    n_parts = min(n_threads, ids.size // _SPLIT_ROWS)
    if n_parts <= 1:
        return [(None, None)]
    sample = np.sort(ids[:: max(1, ids.size // (256 * n_parts))])
    pivots = list(np.unique(sample[(np.arange(1, n_parts) * sample.size) // n_parts]))
    return list(zip([None] + pivots, pivots + [None]))


def _rows_in_range(ids, low, high):
    """Row numbers of the ids in [low, high), in row order (None: every row)."""
    if low is None and high is None:
        return None
    if low is None:
        return np.flatnonzero(ids < high)
    if high is None:
        return np.flatnonzero(ids >= low)
    return np.flatnonzero((ids >= low) & (ids < high))


def _runs_of_equal_ids(ids, rows):
    """For ``ids[rows]`` (every id when ``rows`` is None): the first row of each distinct
    id, in id order, and per row the index of its id in that order."""
    values = ids if rows is None else ids[rows]
    # One unstable sort groups equal ids; each id's first row is the least row number of
    # its run. (np.unique's return_index would need a stable sort, about 3x slower.)
    by_id = np.argsort(values)
    ranked = values[by_id]
    new = np.ones(values.size, dtype=bool)
    np.not_equal(ranked[1:], ranked[:-1], out=new[1:])
    del ranked
    runs = np.flatnonzero(new)
    row = by_id if rows is None else rows[by_id]
    first_row = np.minimum.reduceat(row, runs)
    # Each array is freed once read for the last time: with one row per query (millions
    # of distinct ids) every one of them is as large as the ids themselves.
    del row, runs
    group = np.cumsum(new, dtype=np.int64)
    del new
    group -= 1
    in_order = np.empty(values.size, dtype=np.int64)
    in_order[by_id] = group
    return first_row, in_order


# Below this many ids, sorting the ids themselves is about as fast as hashing them.
_HASH_ROWS = 1 << 14
# Ids compared per step when the hash path checks that no two ids share a hash.
_CHECK_ROWS = 1 << 16
_LENGTH_MIX = np.uint64(0x9E3779B97F4A7C15)
_WORD_MIX = np.uint64(0xFF51AFD7ED558CCD)
_SHIFT = np.uint64(31)


def _factorize_by_hash(ids, n_threads=1):
    """`_factorize` of fixed-width strings through a 64-bit hash of each; None when two
    different ids share a hash (the caller then sorts the ids themselves).

    Equal ids have equal hashes, so the hashes numbered by first appearance give every id
    the code that numbering the ids gives it, provided that no two different ids share a
    hash: every id is compared with the first id of its code to make sure, and the
    result is then the sorting path's, to the bit.
    """
    found = _factorize_parts_by_hash([ids], n_threads)
    return None if found is None else (found[0], found[1]())


def _factorize_strings(parts, n_threads=1, in_order=True):
    """`_factorize` of the fixed-width strings of ``parts`` end to end, without copying
    them into one array (only a part narrower than the widest is widened): the codes,
    the number of distinct ids, and a function that returns them (only then gathered:
    they may be as large as the ids). ``in_order=False``: codes in any order, for callers
    that only compare them (a sort fewer)."""
    found = None
    if sum(part.size for part in parts) >= _HASH_ROWS:
        found = _factorize_parts_by_hash(parts, n_threads, in_order)
    if found is None:
        codes, distinct = _factorize(np.concatenate(parts), None, "item ids", n_threads=n_threads)
        return codes, distinct.size, lambda: distinct
    codes, distinct = found
    return codes, int(codes.max(initial=-1)) + 1, distinct


def _factorize_parts_by_hash(parts, n_threads=1, in_order=True):
    """`_factorize_by_hash` of the fixed-width strings of ``parts`` end to end, the
    distinct ids as a function that gathers them; with ``in_order=False`` the codes
    number the hashes in sorted order instead of the ids by first appearance."""
    dtype = max((part.dtype for part in parts), key=lambda dtype: dtype.itemsize)
    if dtype.itemsize == 0:
        return None
    parts = [np.ascontiguousarray(part, dtype=dtype) for part in parts]
    starts = np.cumsum([0] + [part.size for part in parts])
    hashes = np.concatenate([_string_hashes(part, n_threads) for part in parts])
    if in_order:
        codes, _distinct_hashes = _factorize_sorted(hashes, n_threads)
        del hashes
        # Codes are numbered by first appearance: a row is its code's first exactly where
        # the running maximum of the codes grows.
        highest = np.maximum.accumulate(codes)
        new = np.empty(codes.size, dtype=bool)
        new[:1] = True
        np.greater(highest[1:], highest[:-1], out=new[1:])
        del highest
        first_rows = np.flatnonzero(new)
    else:
        by_hash = np.argsort(hashes)
        in_hash_order = hashes[by_hash]
        del hashes
        new = np.empty(by_hash.size, dtype=bool)
        new[:1] = True
        np.not_equal(in_hash_order[1:], in_hash_order[:-1], out=new[1:])
        del in_hash_order
        codes = np.empty(by_hash.size, dtype=np.int64)
        codes[by_hash] = np.cumsum(new) - 1
        first_rows = by_hash[new]  # a row of each code (the check compares every other)
        del by_hash
    del new
    # Strings are gathered as raw bytes: numpy copies those several times faster than it
    # takes str items.
    raw = [part.view(np.dtype((np.void, dtype.itemsize))) for part in parts]

    def gather(rows):
        """The strings at ``rows`` of the parts end to end."""
        if len(parts) == 1:
            return raw[0][rows].view(dtype)
        which = np.searchsorted(starts, rows, side="right") - 1
        out = np.empty(rows.size, dtype=raw[0].dtype)
        for index, part in enumerate(raw):
            mine = which == index
            out[mine] = part[rows[mine] - starts[index]]
        return out.view(dtype)

    def same_as_first(block):
        index, start = block
        rows = slice(start, start + _CHECK_ROWS)
        part_codes = codes[starts[index] : starts[index + 1]][rows]
        return bool(np.all(parts[index][rows] == gather(first_rows[part_codes])))

    blocks = [
        (index, start)
        for index, part in enumerate(parts)
        for start in range(0, part.size, _CHECK_ROWS)
    ]
    with _block_runner(len(blocks), n_threads) as run:
        if not all(run(same_as_first, blocks)):
            return None
    return codes, lambda: gather(first_rows)


def _block_length(codes):
    """The number of rows of every block of equal codes (``codes`` do not decrease), when
    all blocks have as many; else None."""
    if not codes.size:
        return None
    starts = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    lengths = np.diff(starts, prepend=0, append=codes.size)
    return int(lengths[0]) if np.all(lengths == lengths[0]) else None


def _string_hashes(ids, n_threads=1):
    """A 64-bit hash of each of the contiguous fixed-width strings ``ids`` (str or bytes),
    equal for equal strings of one dtype (of their characters, zeros past the end
    included), on threads."""
    if not ids.size:
        return np.zeros(0, dtype=np.uint64)
    # Each string read in the widest words that divide its size: str's characters are 4
    # bytes, two to a 64-bit word when their number is even.
    size = ids.dtype.itemsize
    word = next(
        dtype
        for dtype in (np.uint64, np.uint32, np.uint16, np.uint8)
        if size % dtype().itemsize == 0
    )
    words = ids.view(word).reshape(ids.size, -1)
    hashes = np.empty(ids.size, dtype=np.uint64)
    step = 4 * _CHECK_ROWS

    def hash_rows(start):
        rows = slice(start, start + step)
        part = np.full(words[rows].shape[0], _LENGTH_MIX, dtype=np.uint64)
        for column in range(words.shape[1]):
            part ^= words[rows, column]
            part *= _WORD_MIX
            part ^= part >> _SHIFT
        hashes[rows] = part

    with _block_runner(-(-ids.size // step), n_threads) as run:
        run(hash_rows, range(0, ids.size, step))
    return hashes


def _factorize_objects(ids, name="groups"):
    # Object ids may mix types that numpy cannot sort, so number them with a dict. Two
    # passes in C (a dict of the ids in order of first appearance, then each id's number)
    # take about two thirds of a Python loop's time; an unhashable id is named by the loop.
    values = ids.tolist()
    try:
        table = dict.fromkeys(values)
    except TypeError:
        return _factorize_objects_loop(ids, name)
    numbers = dict(zip(table, range(len(table))))
    codes = np.fromiter(map(numbers.__getitem__, values), dtype=np.int64, count=len(values))
    unique = np.empty(len(table), dtype=object)
    unique[:] = list(table)
    return codes, unique


def _factorize_objects_loop(ids, name):
    table = {}
    codes = np.empty(ids.size, dtype=np.int64)
    for row, value in enumerate(ids):  # None and NaN were refused by _factorize
        try:
            codes[row] = table.setdefault(value, len(table))
        except TypeError:
            raise ValueError(
                f"{name} must hold hashable ids; got {type(value).__name__} at row {row}."
            ) from None
    unique = np.empty(len(table), dtype=object)
    unique[:] = list(table)
    return codes, unique


def _concat_ids(parts):
    """Concatenate id arrays without turning 1 into "1" or 2**53 + 1 into a float."""
    kinds = {p.dtype.kind for p in parts if p.size}
    if len(kinds) > 1:
        fits_int64 = kinds <= set("iu") and all(
            p.dtype.kind == "i" or not p.size or p.max() < 2**63 for p in parts
        )
        parts = [p.astype(np.int64 if fits_int64 else object) for p in parts]
    return np.concatenate(parts)
