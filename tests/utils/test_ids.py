"""Query and item ids numbered by first appearance: strings through a hash of each give
the codes and the distinct ids that sorting the strings themselves gives, to the bit, on
any number of threads, and fall back to sorting when two strings share a hash."""

import numpy as np
import pytest

from sklearn_rank.utils import _ids


def _slow_factorize(values):
    """Numbering by first appearance with a dict: the obvious reference."""
    table = {}
    codes = [table.setdefault(value, len(table)) for value in values.tolist()]
    return np.array(codes, dtype=np.int64), list(table)


def _random_strings(rng, n_rows, width, alphabet):
    pool = np.array(
        ["".join(rng.choice(alphabet, rng.integers(0, width + 1))) for _ in range(n_rows // 3)]
    )
    return pool[rng.integers(0, pool.size, n_rows)]


@pytest.fixture
def small_steps(monkeypatch):
    monkeypatch.setattr(_ids, "_HASH_ROWS", 1)
    monkeypatch.setattr(_ids, "_CHECK_ROWS", 7)
    monkeypatch.setattr(_ids, "_SPLIT_ROWS", 16)


@pytest.mark.parametrize("width", [1, 2, 3, 8, 9, 17])
@pytest.mark.parametrize("n_threads", [1, 3])
@pytest.mark.parametrize("alphabet", [list("ab"), list("xyz0123456789-"), list("aé€\U0001f600")])
def test_hashed_strings_numbered_as_sorted_ones(small_steps, width, n_threads, alphabet):
    rng = np.random.default_rng(width)
    ids = _random_strings(rng, 500, width, alphabet)
    assert _ids._factorize_by_hash(ids, n_threads) is not None  # the hash path ran
    codes, distinct = _ids._factorize(ids, None, n_threads=n_threads)
    sorted_codes, sorted_distinct = _ids._factorize_sorted(ids, 1)
    expected_codes, expected_distinct = _slow_factorize(ids)
    np.testing.assert_array_equal(codes, expected_codes)
    assert distinct.tolist() == expected_distinct
    assert distinct.dtype == ids.dtype == sorted_distinct.dtype
    np.testing.assert_array_equal(codes, sorted_codes)


def test_strided_strings_are_hashed_as_their_values(small_steps):
    ids = np.array(["q1", "x", "q2", "x", "q1", "x", "q3"])[::2]
    codes, distinct = _ids._factorize(ids, None)
    assert codes.tolist() == [0, 1, 0, 2]
    assert distinct.tolist() == ["q1", "q2", "q3"]


def test_a_shared_hash_falls_back_to_sorting(small_steps, monkeypatch):
    ids = np.array(["b", "a", "b", "c", "a", "d"])
    # Every string the same hash: the check against each code's first id must see it.
    monkeypatch.setattr(
        _ids, "_string_hashes", lambda ids, n_threads=1: np.zeros(ids.size, dtype=np.uint64)
    )
    assert _ids._factorize_by_hash(ids) is None
    codes, distinct = _ids._factorize(ids, None)
    assert codes.tolist() == [0, 1, 0, 2, 1, 3]
    assert distinct.tolist() == ["b", "a", "c", "d"]


def test_object_ids_numbered_as_a_loop_numbers_them():
    rng = np.random.default_rng(0)
    pool = ["q1", "q2", 7, 7.5, ("a", 1), b"q1", "é"]
    ids = np.empty(300, dtype=object)
    ids[:] = [pool[i] for i in rng.integers(0, len(pool), ids.size)]
    codes, distinct = _ids._factorize(ids, None)
    expected_codes, expected_distinct = _slow_factorize(ids)
    np.testing.assert_array_equal(codes, expected_codes)
    assert distinct.tolist() == expected_distinct
    # The first object of each id is kept, as a dict keeps its first key (1 and True).
    codes, distinct = _ids._factorize(np.array([True, 1, 2, 1.0], dtype=object), None)
    assert codes.tolist() == [0, 0, 1, 0]
    assert distinct[0] is True


def test_unhashable_object_id_named_with_its_row():
    ids = np.array(["a", "b", {"c": 1}], dtype=object)
    with pytest.raises(ValueError, match="hashable ids; got dict at row 2"):
        _ids._factorize(ids, None, "queries")


@pytest.mark.parametrize("widths", [(3, 3), (2, 9), (9, 2), (0, 5), (4, 0)])
@pytest.mark.parametrize("n_threads", [1, 2])
def test_parts_numbered_as_one_array(small_steps, widths, n_threads):
    # The judgments' and the run's docnos, of other widths, hashed side by side.
    rng = np.random.default_rng(sum(widths))
    parts = [
        _random_strings(rng, 90, width, list("ab0")) if width else np.array([], dtype="U1")
        for width in widths
    ]
    whole = np.concatenate(parts)
    codes, n_distinct, distinct = _ids._factorize_strings(parts, n_threads)
    distinct = distinct()
    assert n_distinct == distinct.size
    expected_codes, expected_distinct = _slow_factorize(whole)
    np.testing.assert_array_equal(codes, expected_codes)
    assert distinct.tolist() == expected_distinct
    assert distinct.dtype == whole.dtype


@pytest.mark.parametrize("in_order", [True, False])
def test_codes_in_any_order_still_tell_equal_strings(small_steps, in_order):
    rng = np.random.default_rng(5)
    parts = [_random_strings(rng, 200, 6, list("abc")), _random_strings(rng, 300, 4, list("abc"))]
    codes, n_distinct, distinct = _ids._factorize_strings(parts, 2, in_order=in_order)
    whole = np.concatenate(parts)
    expected_codes, expected_distinct = _slow_factorize(whole)
    # Same partition of the rows; the distinct ids in code order.
    assert n_distinct == len(expected_distinct)
    np.testing.assert_array_equal(distinct()[codes], whole)
    if in_order:
        np.testing.assert_array_equal(codes, expected_codes)


@pytest.mark.parametrize("seed", range(5))
def test_repeated_pair_named_as_without_hashes(monkeypatch, seed):
    # Several items given twice in one query: the message names the one it always named,
    # whatever order the hashed codes of the join are in.
    import sklearn_rank as sr

    rng = np.random.default_rng(seed)
    items = np.array([f"doc{i}" for i in rng.permutation(40)] * 2)[rng.permutation(80)[:60]]
    queries = np.array(["q"] * items.size)
    truth = sr.ItemJudgments(["q"], ["doc1"], [1])
    messages = []
    for hash_rows in (1 << 40, 1):
        monkeypatch.setattr(_ids, "_HASH_ROWS", hash_rows)
        with pytest.raises(ValueError, match="more than once") as error:
            sr.evaluate(truth, sr.ItemRanking(queries, items, rng.random(items.size)), ["map"])
        messages.append(str(error.value))
    assert messages[0] == messages[1]
