"""The ids of the readers' fast path: the bytes of arrow string arrays, a 64-bit hash of
each id, item ids as numpy's fixed-width str built from the bytes, query numbers, and the
check for a (query, item) pair listed twice.

The hashes and fixed-width ids are numpy work on the buffers of arrow arrays (offsets and
bytes), which releases the GIL: the fast path runs it on threads, one batch of a file
each. Query numbers and Python strings (`_query_codes`, `_ItemIds.ids`) are made on the
calling thread. Nothing here imports pyarrow.
"""

import numpy as np

from ..utils._ids import _block_length, _fits_fixed_width, _str_array
from ..utils._threads import _block_runner


def _offsets(texts):
    """The ``len(texts) + 1`` offsets of the strings of an arrow string or binary array
    into its data buffer."""
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int32)
    return offsets[texts.offset : texts.offset + len(texts) + 1]


def _offsets_and_data(texts):
    """`_offsets` and the data buffer (uint8) of an arrow string or binary array."""
    data = texts.buffers()[2]
    return _offsets(texts), (
        np.zeros(0, np.uint8) if data is None else np.frombuffer(data, dtype=np.uint8)
    )


def _numbers(array, dtype):
    """The values of an arrow array of numbers without nulls, as a read-only numpy view of
    its buffer (pyarrow's ``to_numpy`` imports pandas, ~0.3 s and ~40 MB, to ask whether
    the array is one of pandas' types)."""
    if hasattr(array, "chunks"):  # a chunked array: its chunks end to end
        return np.concatenate([_numbers(chunk, dtype) for chunk in array.chunks] or [[]]).astype(
            dtype, copy=False
        )
    data = array.buffers()[1]
    values = np.zeros(0, dtype) if data is None else np.frombuffer(data, dtype=dtype)
    return values[array.offset : array.offset + len(array)]


def _text_bytes(texts):
    """The bytes of the strings of an arrow string array, end to end."""
    offsets, data = _offsets_and_data(texts)
    return data[offsets[0] : offsets[-1]].tobytes()


def _lengths(texts):
    """The length in bytes of each string of an arrow string array."""
    return np.diff(_offsets(texts))


def _longest(texts):
    return int(_lengths(texts).max(initial=0))


def _shortest(texts):
    lengths = _lengths(texts)
    return int(lengths.min()) if lengths.size else 1


def _text_size(texts):
    """The number of bytes of the strings of an arrow string array, end to end."""
    offsets = _offsets(texts)
    return int(offsets[-1] - offsets[0])


# Hashes: each id's length, then its bytes 8 at a time, multiplied and shifted into one
# 64-bit word.
_LENGTH_MIX = np.uint64(0x9E3779B97F4A7C15)
_WORD_MIX = np.uint64(0xFF51AFD7ED558CCD)
_QUERY_MIX = np.uint64(0xC4CEB9FE1A85EC53)
_SHIFT = np.uint64(31)
# _LOW_BYTES[n]: a mask of the n low bytes of a 64-bit word.
_LOW_BYTES = np.array([(1 << (8 * n)) - 1 for n in range(9)], dtype=np.uint64)


def _unaligned_words(offsets, data):
    """The strings' bytes as little-endian 64-bit words that start at any byte: a view of
    a copy of the bytes padded with 8 zeros (``words[i]`` holds bytes i to i + 7), and
    where each string starts in it."""
    first, last = int(offsets[0]), int(offsets[-1])
    padded = np.zeros(last - first + 8, dtype=np.uint8)
    padded[: last - first] = data[first:last]
    words = np.ndarray((last - first + 1,), dtype="<u8", buffer=padded, strides=(1,))
    return words, (offsets[:-1] - first).astype(np.intp)


def _hashes(offsets, data):
    """A 64-bit hash of each string ``data[offsets[i]:offsets[i + 1]]``, equal for equal
    strings (of bytes), whatever the other strings.

    The bytes of each string are read 8 at a time (`_unaligned_words`), the bytes past
    its end masked out.
    """
    words, starts = _unaligned_words(offsets, data)
    lengths = np.diff(offsets).astype(np.intp)
    hashes = lengths.astype(np.uint64) * _LENGTH_MIX
    for at in range(0, int(lengths.max(initial=0)), 8):
        # Only strings longer than ``at`` take a step.
        rows = None if lengths.min() > at else np.flatnonzero(lengths > at)
        part = hashes if rows is None else hashes[rows]
        left = lengths - at if rows is None else lengths[rows] - at
        word = words[(starts if rows is None else starts[rows]) + at]
        word &= _LOW_BYTES[np.minimum(left, 8)]
        part ^= word
        part *= _WORD_MIX
        part ^= part >> _SHIFT
        if rows is not None:
            hashes[rows] = part
    return hashes


def _arrow_hashes(array):
    """`_hashes` of the strings of an arrow string array."""
    return _hashes(*_offsets_and_data(array))


def _padded_words(texts, n_words):
    """The bytes of each string of an arrow string array, as ``n_words`` little-endian
    64-bit words (at least the longest string's bytes), zeros past the string's end: an
    array of shape (n_strings, n_words), and the length of each string."""
    offsets, data = _offsets_and_data(texts)
    lengths = np.diff(offsets)
    if lengths.size and lengths.min() == lengths.max():
        # Ids of one length (as the docnos of most collections): their bytes are the rows
        # already, copied as they are.
        words = np.zeros((lengths.size, n_words), dtype="<u8")
        width = int(lengths[0])
        by_row = data[offsets[0] : offsets[-1]].reshape(lengths.size, width)
        words.view(np.uint8)[:, :width] = by_row
        return words, lengths
    unaligned, starts = _unaligned_words(offsets, data)
    words = np.empty((lengths.size, n_words), dtype="<u8")
    for column in range(n_words):
        # (Past the data, a string's word is masked out whole: any position will do.)
        word = unaligned[np.minimum(starts + 8 * column, unaligned.size - 1)]
        word &= _LOW_BYTES[np.clip(lengths - 8 * column, 0, 8)]
        words[:, column] = word
    return words, lengths


def _word_hashes(words, lengths):
    """A 64-bit hash of each string of `_padded_words`, equal for equal strings: its
    length, then every word, zeros past the string's end included (which `_hashes`
    skips, at the cost of a selection of rows per word)."""
    hashes = lengths.astype(np.uint64) * _LENGTH_MIX
    for column in range(words.shape[1]):
        hashes ^= words[:, column]
        hashes *= _WORD_MIX
        hashes ^= hashes >> _SHIFT
    return hashes


def _has_repeats(query_codes, item_hashes, n_threads=1):
    """Whether some (query, item) pair may appear twice: True for every repeated pair, and
    for the rare pairs whose hashes collide (the caller then reads the file line by line).
    ``item_hashes`` is overwritten.

    Each key is the query's number in its high bits and the item's hash below, so that
    only items of one query can collide. Queries usually come in blocks of lines: the keys
    are then sorted blocks of random keys, which a stable sort (timsort) sorts fast, and
    parts of whole queries are sorted on ``n_threads`` threads. Blocks of one length (a
    run's 1,000 documents per topic, top-N lists) are sorted as the rows of a matrix, in
    half that time.
    """
    query_bits = int(query_codes.max(initial=0)).bit_length()
    in_blocks = bool(np.all(query_codes[1:] >= query_codes[:-1]))

    def repeats(rows):
        keys = item_hashes[rows]  # (made into keys in place: the hashes serve this only)
        for start in range(0, keys.size, _PART_ROWS):  # (a part's temporary at a time)
            part = keys[start : start + _PART_ROWS]
            codes = query_codes[rows][start : start + _PART_ROWS].astype(np.uint64)
            if query_bits <= 32:
                part >>= np.uint64(query_bits)
                codes <<= np.uint64(64 - query_bits)
                part |= codes
            else:  # over 4 billion queries
                codes *= _QUERY_MIX
                part ^= codes
        length = _block_length(query_codes[rows]) if in_blocks else None
        if length:  # only pairs of one query may repeat: each query's keys a row
            by_query = keys.reshape(-1, length)
            by_query.sort(axis=1)
            return bool(np.any(by_query[:, 1:] == by_query[:, :-1]))
        keys.sort(kind="stable" if in_blocks else None)
        return bool(np.any(keys[1:] == keys[:-1]))

    n_parts = min(n_threads, query_codes.size // _PART_ROWS) if in_blocks else 1
    if n_parts <= 1:
        return repeats(slice(None))
    # Each part ends where a query ends (the codes do not decrease): pairs of one query
    # are all in one part.
    cuts = np.searchsorted(
        query_codes, query_codes[np.arange(1, n_parts) * query_codes.size // n_parts]
    )
    bounds = np.unique(np.concatenate([[0], cuts, [query_codes.size]]))
    with _block_runner(bounds.size - 1, n_threads) as run:
        found = run(repeats, [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:])])
    return any(found)


_PART_ROWS = 1 << 17  # rows per part of the repeated-pairs check, at least


def _query_codes(encoded):
    """The number of each row's query id, in order of first appearance, and the ids (an
    object array of str), from the batches' dictionary-encoded query ids. Each distinct
    query id becomes one str: a file has far fewer queries than lines."""
    numbers = {}
    codes = []
    for batch in encoded:
        names = batch.dictionary.to_pylist()
        local = np.fromiter(
            (numbers.setdefault(name, len(numbers)) for name in names), np.int64, len(names)
        )
        indices = _numbers(batch.indices, np.dtype(f"int{batch.indices.type.bit_width}"))
        codes.append(local[indices])
    ids = np.empty(len(numbers), dtype=object)
    ids[:] = list(numbers)
    return np.concatenate(codes), ids


class _ItemIds:
    """The item ids of a file's batches as one numpy array, with `_str_array`'s rule
    (fixed-width str where that takes no more memory than Python strings), and a 64-bit
    hash of each for the check of repeated pairs.

    ``add(index)`` does one batch's rows, on any thread. Fixed-width ids are built from the
    bytes, 4 bytes per ASCII character, in numpy's loops, which release the GIL; Python
    strings (ids not all ASCII, of very different lengths, or one ending with NUL) are
    made by ``ids()``. With ``as_bytes``, fixed-width ids stay the file's bytes, one per
    character (numpy's dtype S), for `ItemRanking` and `ItemJudgments` to make str when
    their ``items`` are read (`_tables._with_ascii_items`).
    """

    def __init__(self, columns, ascii, as_bytes=False):
        # (Columns of pyarrow's string type: a binary column of ASCII viewed as one.)
        self._columns, self._ascii = columns, ascii
        self._starts = np.cumsum([0] + [len(column) for column in columns])
        n_ids = int(self._starts[-1])
        self._longest = max(_longest(column) for column in columns)
        n_characters = sum(_text_size(column) for column in columns)
        self._fixed = ascii and _fits_fixed_width(max(self._longest, 1), n_characters, n_ids)
        self._with_nul = []  # (rows, lengths) of ids ending with NUL, batch by batch
        self.hashes = np.empty(n_ids, dtype=np.uint64)
        if self._fixed:
            kind, unit = ("S", np.uint8) if as_bytes else ("U", np.uint32)
            self._ids = np.empty(n_ids, dtype=f"{kind}{max(self._longest, 1)}")
            self._characters = self._ids.view(unit).reshape(n_ids, -1)

    def __len__(self):
        """The number of batches."""
        return len(self._columns)

    def add(self, index):
        """The hashes (and fixed-width ids) of batch ``index``'s rows."""
        column = self._columns[index]
        rows = slice(self._starts[index], self._starts[index + 1])
        if not self._fixed:
            self.hashes[rows] = _arrow_hashes(column)
            return
        words, lengths = _padded_words(column, -(-self._longest // 8))
        characters = words.view(np.uint8)
        self._characters[rows] = characters[:, : self._longest]
        # numpy's fixed-width strings drop trailing NUL characters ("a\x00" would be "a").
        offsets, data = _offsets_and_data(column)
        if data[offsets[0] : offsets[-1]].min(initial=1) == 0:  # (else no NUL at all)
            last = characters[np.arange(lengths.size), np.maximum(lengths - 1, 0)]
            with_nul = np.flatnonzero((last == 0) & (lengths > 0))
            if with_nul.size:  # their lengths, to give them back their NULs
                self._with_nul.append((with_nul + rows.start, lengths[with_nul]))
        self.hashes[rows] = _word_hashes(words, lengths)
        self._columns[index] = None  # built: the batch's bytes may go

    def ids(self):
        if self._fixed and not self._with_nul:
            return self._ids
        if self._fixed:  # Python strings, the NULs numpy dropped put back (ASCII: 1 byte each)
            strings = self._ids.astype(str).astype(object)  # (bytes made str first)
            self._ids = self._characters = None
            for rows, lengths in self._with_nul:
                for row, length in zip(rows.tolist(), lengths.tolist()):
                    strings[row] = strings[row].ljust(length, "\x00")
            return strings
        strings = np.concatenate(
            [column.to_numpy(zero_copy_only=False) for column in self._columns]
        )
        # All ASCII: `_fits_fixed_width` said Python strings.
        return strings if self._ascii else _str_array(strings)
