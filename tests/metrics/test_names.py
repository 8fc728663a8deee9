"""Measure names: trec_eval's and ir_measures' spellings give the values of ours."""

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.metrics._names import TREC_GROUPS, TREC_MEASURES, _parse_requests


def _data(seed=0, n_queries=12, n_items=9):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, 4, (n_queries, n_items)) * (rng.random((n_queries, n_items)) < 0.5)
    y_score = rng.integers(0, 4, (n_queries, n_items)).astype(float)  # many ties
    return y_true, y_score


# (alias, our name, conventions our name needs)
SAME = [
    ("P_10", "precision@10", {}),
    ("P_3", "precision@3", {}),
    ("recall_5", "recall@5", {}),
    ("ndcg_cut_10", "ndcg@10", {}),
    ("ndcg_cut.3", "ndcg@3", {}),
    ("map_cut_4", "map@4", {}),
    ("recip_rank", "mrr", {}),
    ("success_1", "hit_rate@1", {}),
    ("set_P", "precision", {}),
    ("set_recall", "recall", {}),
    ("nDCG@10", "ndcg@10", {}),
    ("NDCG", "ndcg", {}),
    ("nDCG(dcg='exp-log2')@5", "ndcg@5", {"gain": "exponential"}),
    ("AP", "map", {}),
    ("AP@3", "map@3", {}),
    ("MAP(rel=2)", "map", {"relevance_threshold": 2}),
    ("RR", "mrr", {}),
    ("RR@2", "mrr@2", {}),
    ("P@10", "precision@10", {}),
    ("P(rel=2)@4", "precision@4", {"relevance_threshold": 2}),
    ("R@3", "recall@3", {}),
    ("Success@2", "hit_rate@2", {}),
    ("SetP", "precision", {}),
    ("SetR", "recall", {}),
    ("SetF", "f1", {}),
    ("precision(relevance_threshold=3)@2", "precision@2", {"relevance_threshold": 3}),
]


@pytest.mark.parametrize("alias, ours, conventions", SAME, ids=[row[0] for row in SAME])
@pytest.mark.parametrize("ties", ["average", "stable"])
def test_alias_gives_the_value_of_our_name(alias, ours, conventions, ties):
    y_true, y_score = _data()
    got = sr.evaluate(y_true, y_score, [alias, "ndcg@2"], ties=ties, per_query=True)
    expected = sr.evaluate(y_true, y_score, [ours], ties=ties, per_query=True, **conventions)
    label = alias.replace(".", "_")  # trec_eval's -m form is labelled as trec_eval prints it
    np.testing.assert_array_equal(got[label], expected[ours])
    # A per-request convention stays with its request: ndcg@2 keeps the call's gain.
    plain = sr.evaluate(y_true, y_score, ["ndcg@2"], ties=ties, per_query=True)
    np.testing.assert_array_equal(got["ndcg@2"], plain["ndcg@2"])


@pytest.mark.parametrize("ties", ["average", "stable"])
def test_set_f_is_trec_evals_formula(ties):
    """trec_eval's set_F.x is (x + 1) P R / (x P + R) over the retrieved set: F1 at x = 1 up to
    the rounding of the other formula; set_F.0.5 weighs precision more."""
    y_true, y_score = _data()
    got = sr.evaluate(
        y_true,
        y_score,
        ["set_F", "set_F.0.5", "f1", "precision", "recall"],
        ties=ties,
        per_query=True,
    )
    np.testing.assert_allclose(got["set_F"], got["f1"], rtol=1e-15, atol=0)
    p, r = got["precision"], got["recall"]
    with np.errstate(invalid="ignore"):
        expected = np.where(p + r > 0, 1.5 * p * r / (0.5 * p + r), 0.0)
    np.testing.assert_allclose(got["set_F_0.5"], expected, rtol=1e-15, atol=0)


def test_trec_eval_lists_expand_with_trec_eval_labels():
    y_true, y_score = _data(1)
    got = sr.evaluate(y_true, y_score, ["P.5,10", "ndcg_cut.2,3"])
    assert list(got) == ["P_5", "P_10", "ndcg_cut_2", "ndcg_cut_3"]
    ours = sr.evaluate(y_true, y_score, ["precision@5", "precision@10", "ndcg@2", "ndcg@3"])
    assert list(got.values()) == list(ours.values())
    bare = sr.evaluate(y_true, y_score, ["P", "success"])
    assert list(bare) == [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)] + [
        "success_1",
        "success_5",
        "success_10",
    ]


def test_groups_print_in_trec_eval_order():
    labels = [r.label for r in _parse_requests("official")]
    # trec_eval's official measures implemented so far, in its print order.
    order = ["map", "recip_rank", "P_5"]
    assert [label for label in labels if label in order] == order
    for group, bases in TREC_GROUPS.items():
        assert all(base in TREC_MEASURES for base in bases), group
        assert len(_parse_requests(group)) >= len(bases)


def test_trec_eval_dialect_reads_bare_names_as_trec_eval():
    assert [r.label for r in _parse_requests("recall")] == ["recall"]
    trec = [r.label for r in _parse_requests("recall", dialect="trec_eval")]
    assert trec[:2] == ["recall_5", "recall_10"] and len(trec) == 9


@pytest.mark.parametrize(
    "name, message",
    [
        ("ndgc@10", r"Unknown metric name 'ndgc@10'\..* Did you mean 'ndcg@10'"),
        ("recip_rnak", r"Did you mean 'recip_rank'"),
        ("nDGC@10", r"Did you mean 'nDCG@10'"),
        ("P.5,", r"Empty parameter in 'P.5,'"),
        ("P.5,5", r"got the cut-off 5 twice"),
        ("P_0", r"The cut-off in 'P_0' must be a positive integer"),
        ("RR(foo=1)", r"ir_measures' RR takes no parameter 'foo'"),
        ("RR(rel=)", r"Cannot read the parameter value '' in 'RR\(rel=\)'"),
        ("RR(rel=2, rel=3)", r"Parameter 'rel' is given twice"),
        ("AP(judged_only=True)", r"pass judged_only=True to evaluate"),
        ("SetF(beta=2)", r"SetF is supported with beta=1.0 only"),
        ("nDCG(dcg='log3')@5", r"dcg must be one of 'log2', 'exp-log2'"),
        ("SetP@5", r"ir_measures' SetP takes no cut-off"),
        ("map(rel=2)", r"Metric 'map' takes no parameter 'rel'"),
        ("map(x=__import__('os'))", r"Unknown metric name"),  # nested parentheses: not a name
        ("arp@3", r"Metric 'arp' takes no cut-off"),
    ],
)
def test_bad_names_are_refused_clearly(name, message):
    y_true, y_score = _data()
    with pytest.raises(ValueError, match=message):
        sr.evaluate(y_true, y_score, [name])


@pytest.mark.parametrize(
    "name, suggested",
    [
        ("precison@5", "'precision@5'"),
        ("ndgc@3", "'ndcg@3'"),
        ("recal_20", "'recall_20'"),
        ("P@7x", None),
    ],
)
def test_a_misspelt_name_is_answered_first_with_its_own_cut_off(name, suggested):
    # The suggestion led a 900-character list, at its end, and with @10 for any cut-off.
    y_true, y_score = _data()
    with pytest.raises(ValueError) as error:
        sr.evaluate(y_true, y_score, [name])
    message = str(error.value)
    head = f"Unknown metric name {name!r}."
    if suggested is None:
        assert message.startswith(f"{head} Known names: ")
    else:
        assert message.startswith(f"{head} Did you mean {suggested}")
        assert "@10" not in message.split("Known names")[0]


def test_scorers_read_every_spelling():
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 3))
    y = rng.integers(0, 3, 60)
    groups = np.repeat(np.arange(6), 10)
    model = LinearRegression().fit(X, y)
    expected = sr.get_scorer("ndcg@5")(model, X, y, groups=groups)
    for name in ("nDCG@5", "ndcg_cut_5", "ndcg_cut.5"):
        assert sr.get_scorer(name)(model, X, y, groups=groups) == expected, name
    strict = sr.make_ranking_scorer("precision@5", relevance_threshold=2)
    assert sr.get_scorer("P(rel=2)@5")(model, X, y, groups=groups) == strict(
        model, X, y, groups=groups
    )
    with pytest.raises(ValueError, match="stands for 2 measures"):
        sr.get_scorer("P.5,10")
    searched = sr.grouped_cross_validate(
        model, X, y, groups=groups, scoring=["nDCG@5", "ndcg@5"], cv=2
    )
    np.testing.assert_array_equal(searched["test_nDCG@5"], searched["test_ndcg@5"])


def test_comma_lists_keep_the_commas_of_one_name():
    from sklearn_rank.metrics._names import _split_list

    assert _split_list("ndcg@10, map,") == ["ndcg@10", "map"]
    assert _split_list("P.5,10,map") == ["P.5,10", "map"]
    assert _split_list("P(rel=2)@5,RR(rel=1, judged_only=False)") == [
        "P(rel=2)@5",
        "RR(rel=1, judged_only=False)",
    ]
    assert _split_list("ndcg_cut.5,10,recall_5") == ["ndcg_cut.5,10", "recall_5"]
