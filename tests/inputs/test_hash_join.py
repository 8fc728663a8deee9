"""The join of string item ids by hashed (query, item) keys gives the values of the join
of numbered ids, to the bit; a repeated pair is refused with the same message; two pairs
sharing a hash fall back to the exact join. The query codes a reader computes are those of
numbering the ids, and are not used once the ids change."""

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.inputs import _join
from sklearn_rank.inputs._join import _HASH_JOIN_ROWS, _hash_join
from sklearn_rank.utils._ids import _block_length

# Some random queries have no relevant document: left out of the mean, with a warning.
pytestmark = pytest.mark.filterwarnings("ignore:.*have no relevant item:UserWarning")

NAMES = ["map", "ndcg", "P_10", "bpref", "recip_rank", "num_rel_ret", "ndcg_cut_5"]


def _random_inputs(seed, n_queries=400, grouped=True, per_query=None):
    """String and integer forms of one run and its judgments: tied scores, documents of
    different lengths (strcmp's order is not the numbers'), unjudged documents, and
    queries only one side has; ``per_query``: as many documents ranked for every query."""
    rng = np.random.default_rng(seed)
    run_q, run_d, score, true_q, true_d, grade = [], [], [], [], [], []
    for q in range(n_queries):
        size = per_query or int(rng.integers(1, 160))
        docs = rng.choice(5_000, size=size, replace=False)
        run_q += [q] * docs.size
        run_d += docs.tolist()
        score += (rng.integers(0, 8, docs.size) / 4).tolist()
        judged = rng.choice(5_000, size=int(rng.integers(0, 40)), replace=False)
        judged = np.concatenate([judged, docs[: int(rng.integers(0, docs.size + 1))]])
        judged = np.unique(judged)
        true_q += [q + int(rng.random() < 0.02) * 10_000] * judged.size
        true_d += judged.tolist()
        grade += rng.choice([0, 0, 1, 2, 3], judged.size).tolist()
    run_q, run_d, score = np.array(run_q), np.array(run_d), np.array(score)
    if not grouped:
        rows = rng.permutation(run_q.size)
        run_q, run_d, score = run_q[rows], run_d[rows], score[rows]
    true_q, true_d = np.array(true_q), np.array(true_d)
    assert run_d.size + true_d.size >= _HASH_JOIN_ROWS  # the hash join applies
    names = np.array([f"doc{d}" for d in range(5_000)])  # "doc10" < "doc9"
    strings = (
        sr.ItemJudgments(true_q.astype(str), names[true_d], grade),
        sr.ItemRanking(run_q.astype(str), names[run_d], score),
    )
    # Numbered so that the numbers compared as strings (trec_eval's tie break compares
    # docnos so) are in the strings' order: numbers of one length.
    rank = np.argsort(np.argsort(names)) + 10_000
    numbers = (
        sr.ItemJudgments(true_q.astype(str), rank[true_d], grade),
        sr.ItemRanking(run_q.astype(str), rank[run_d], score),
    )
    return strings, numbers


@pytest.mark.parametrize("grouped", [True, False])
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"judged_only": True},
        {"convention": "trec_eval"},
        {"convention": "trec_eval", "n_jobs": 2},
    ],
)
def test_hashed_join_gives_the_values_of_numbered_ids(grouped, options):
    strings, numbers = _random_inputs(1 + grouped, grouped=grouped)
    assert (
        _hash_join(
            np.zeros(len(strings[0]), np.int64),
            strings[0].items,
            np.zeros(len(strings[1]), np.int64),
            strings[1].items,
        )
        is None
    )  # (every query 0: repeated pairs, so the exact join is taken)
    got = sr.evaluate(*strings, NAMES, per_query="table", **options)
    one_thread = {name: value for name, value in options.items() if name != "n_jobs"}
    expected = sr.evaluate(*numbers, NAMES, per_query="table", **one_thread)
    assert got["query"].tolist() == expected["query"].tolist()
    for name in NAMES:
        np.testing.assert_array_equal(got[name], expected[name], err_msg=name)


@pytest.mark.parametrize("per_query", [80, 121])
def test_topics_of_one_length_give_the_values_of_numbered_ids(per_query):
    """A run grouped by topic, as many documents for each: its keys are sorted as the rows
    of a matrix (`_join._run_key_order`), the same order as sorting them whole."""
    strings, numbers = _random_inputs(7, n_queries=500, per_query=per_query)
    queries = strings[1].queries
    run_code = np.cumsum(np.concatenate([[0], queries[1:] != queries[:-1]]))  # grouped
    assert _block_length(run_code) == per_query
    keys = np.random.default_rng(0).integers(0, 2**40, run_code.size).astype(np.uint64)
    keys |= run_code.astype(np.uint64) << np.uint64(54)
    order = _join._run_key_order(keys, run_code, query_bits=10)
    np.testing.assert_array_equal(keys[order], np.sort(keys))
    got = sr.evaluate(*strings, NAMES, per_query="table", convention="trec_eval")
    expected = sr.evaluate(*numbers, NAMES, per_query="table", convention="trec_eval")
    for name in NAMES:
        np.testing.assert_array_equal(got[name], expected[name], err_msg=name)


def test_repeated_pair_refused_with_the_exact_joins_message():
    (truth, run), _ = _random_inputs(3)
    items = run.items.copy()
    items[-1] = items[-2]  # the last query ranks one document twice
    repeated = sr.ItemRanking(run.queries, items, run.scores)
    small = sr.ItemRanking(run.queries[-2:], items[-2:], run.scores[-2:])
    with pytest.raises(ValueError) as large_error:
        sr.evaluate(truth, repeated, ["map"])
    with pytest.raises(ValueError) as small_error:
        sr.evaluate(truth, small, ["map"])
    assert str(large_error.value) == str(small_error.value)
    assert f"item {str(items[-1])!r} more than once for query {str(run.queries[-1])!r}" in str(
        large_error.value
    )


def test_pairs_sharing_a_hash_take_the_exact_join(monkeypatch):
    strings, numbers = _random_inputs(4)

    def few_hashes(ids, n_threads=1):  # the length of each id: most ids share one
        return (np.char.str_len(ids) % 3).astype(np.uint64)

    items = np.unique(strings[1].items)  # one query ranking every document once
    items = np.concatenate([items] * -(-_HASH_JOIN_ROWS // items.size))
    codes = np.repeat(
        np.arange(-(-_HASH_JOIN_ROWS // np.unique(items).size)), np.unique(items).size
    )
    assert _hash_join(codes[:10], items[:10], codes, items) is not None
    monkeypatch.setattr(_join, "_string_hashes", few_hashes)
    assert _hash_join(codes[:10], items[:10], codes, items) is None
    got = sr.evaluate(*strings, NAMES, per_query=True, convention="trec_eval")
    expected = sr.evaluate(*numbers, NAMES, per_query=True, convention="trec_eval")
    for name in NAMES:
        np.testing.assert_array_equal(got[name], expected[name], err_msg=name)


def test_query_codes_of_the_reader_are_those_of_numbering_the_ids(tmp_path, file_parser):
    # (The pyarrow path numbers the query ids while reading; line by line, they are
    # numbered when asked: the same codes either way.)
    from sklearn_rank.utils._ids import _factorize, _factorize_objects, _known_codes

    rng = np.random.default_rng(5)
    topics = rng.choice(["301", "7", "x", "10", "ä"], 3_000)
    path = tmp_path / "run.txt"
    path.write_text("".join(f"{t} Q0 d{i} 1 {i % 7} r\n" for i, t in enumerate(topics)))
    run = sr.read_trec_run(path)
    assert (_known_codes(run.queries) is not None) == (file_parser.name == "pyarrow")
    codes, distinct = _factorize(run.queries, None)
    expected_codes, expected_distinct = _factorize_objects(run.queries.astype(object).copy())
    assert codes.tolist() == expected_codes.tolist()
    assert distinct.tolist() == expected_distinct.tolist() == list(dict.fromkeys(topics.tolist()))
    # What _factorize returns is the caller's: changing it changes nothing kept.
    codes[:] = 0
    distinct[:] = "x"
    assert sr.query_ids(run.queries).tolist() == expected_distinct.tolist()
    assert _factorize(run.queries, None)[0].tolist() == expected_codes.tolist()
    # Changed in place: the reader's codes no longer hold and are not used.
    run.queries[0] = "new"
    assert _known_codes(run.queries) is None
    codes, distinct = _factorize(run.queries, None)
    assert distinct[codes[0]] == "new" and codes[0] == 0
