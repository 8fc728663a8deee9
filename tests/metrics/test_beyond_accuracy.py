"""Beyond-accuracy measures (coverage, entropy, Gini, novelty, popularity, long tail):
the frameworks' published examples (BEYOND.md sections 10-11), a slow obvious reference
on random data with the spec's edge cases, every input form, n_jobs to the bit, and the
errors."""

import math

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st

import sklearn_rank as sr

# --- Microsoft Recommenders' diversity_data, item ids shifted by -1 (BEYOND.md 11) -------

TOY_TRAIN = (np.array([1, 1, 1, 2, 2, 3, 3, 3]), np.array([1, 2, 4, 3, 4, 3, 4, 5]) - 1)
TOY_RUN = sr.ItemRanking(np.repeat([1, 2, 3], 2), np.array([[3, 5], [2, 5], [1, 2]]).ravel() - 1)
TOY_TRUTH = sr.ItemJudgments([1, 2, 2, 3], [2, 1, 4, 0])
TOY_FEATURES = np.array(
    [[0, 1, 1, 0, 0], [0, 1, 0, 1, 0], [0, 0, 1, 1, 0], [0, 0, 1, 0, 1], [0, 0, 0, 1, 1]]
)
E = repr(math.e)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("coverage@2", 0.8),  # RecTools normalised, RecBole (n = 5)
        ("coverage(normalize=False)@2", 4.0),  # RecTools, Elliot, LensKit
        ("entropy@2", 1.9182958340544896),  # Microsoft distributional_coverage
        ("entropy(weighting='users')@2", 1.9182958340544893),  # Elliot SEntropy
        (f"entropy(base={E}, normalize='distinct')@2", 0.332415337214),  # RecBole
        ("gini@2", 0.3333333333333333),  # RecBole (n = 5)
        ("gini(counts='lists')@2", 0.3333333333333333),  # LensKit ListGini
        ("gini(items='train', corrected=True, complement=True)@2", 0.5833333333333334),  # Elliot
        ("novelty@2", 1.4182958340544898),  # RecTools MeanInvUserFreq
        ("popularity@2", 1.1666666666666667),  # RecTools, RecBole, Elliot ARP
        ("popularity(normalize=True)@2", 0.14583333333333334),  # RecTools normalize=True
        # Elliot's short head at the tie {1, 2, 5} follows its set order (ascending here).
        ("aplt(tail_count='distinct', tail_ties='order')@2", 0.3333333333333333),
        ("aclt(tail_ties='order')@2", 0.6666666666666666),
        ("efd@2", 2.0219119879424308),  # Elliot EFD
        ("epc@2", 0.42660461981070846),  # Elliot EPC
        ("mean_pop_rank@2", 0.4666666666666666),  # LensKit MeanPopRank
        ("pop_rsp(tail_ties='order')@2", 0.11111111111111108),  # Elliot PopRSP
        ("pop_reo(tail_ties='order')@2", 0.0),  # Elliot PopREO
        ("diversity(similarity='cooccurrence')@2", 0.43096440627115085),  # Microsoft
        ("diversity@2", 0.5000000000000001),  # Microsoft, feature vectors
        ("diversity(similarity='hamming')@2", 2.0),  # RecTools ILD, Hamming
        ("diversity(form='similarity')@2", 0.49999999999999983),  # LensKit ILS
        ("serendipity(similarity='cooccurrence')@2", 0.4340801205852194),  # Microsoft
        ("serendipity@2", 0.40277777777777785),  # Microsoft, feature vectors
        ("serendipity(similarity='cooccurrence', relevance='all')@2", 0.7032634240085942),
        ("serendipity(relevance='all')@2", 0.6250000000000001),
    ],
)
def test_one_example_through_all_peers(name, expected):
    got = sr.evaluate(
        TOY_TRUTH, TOY_RUN, [name], train=TOY_TRAIN, catalog=5, item_features=TOY_FEATURES
    )[name]
    assert got == pytest.approx(expected, rel=1e-11, abs=1e-15)


def test_microsoft_published_per_user_values():
    names = [
        "diversity(similarity='cooccurrence')@2",
        "diversity@2",
        "serendipity(similarity='cooccurrence')@2",
        "serendipity@2",
    ]
    got = sr.evaluate(
        TOY_TRUTH, TOY_RUN, names, train=TOY_TRAIN, catalog=5, item_features=TOY_FEATURES,
        per_query=True,
    )  # fmt: skip
    np.testing.assert_allclose(got[names[0]], [0.29289, 1.0, 0.0], atol=1e-4)
    np.testing.assert_allclose(got[names[1]], [0.5, 0.5, 0.5], atol=1e-4)
    np.testing.assert_allclose(got[names[2]], [0.363915, 0.53455, 0.403775], atol=1e-4)
    np.testing.assert_allclose(got[names[3]], [0.25, 0.625, 0.3333], atol=1e-4)


def test_elliot_efd_per_user():
    got = sr.evaluate(TOY_TRUTH, TOY_RUN, ["efd@2"], train=TOY_TRAIN, catalog=5, per_query=True)
    np.testing.assert_allclose(got["efd@2"], [1.2262944, 3.0, 1.8394416], rtol=1e-7)


def test_rectools_intra_list_diversity_hamming():
    run = sr.ItemRanking([1, 1, 1, 2, 2], [1, 2, 3, 1, 4])
    truth = sr.ItemJudgments([1, 2], [1, 1])
    features = np.array([[0, 0], [0, 0], [0, 1], [1, 1], [0, 0]])  # items 0..4; 0 unused
    name = "diversity(similarity='hamming', single_item=0)@{}"
    for k, expected in ((1, [0, 0]), (2, [1, 0]), (3, [4 / 3, 0])):
        got = sr.evaluate(
            truth, run, [name.format(k)], item_features=features, catalog=5, per_query=True
        )[name.format(k)]
        np.testing.assert_allclose(got, expected, rtol=1e-14)


@pytest.mark.parametrize(
    "features, expected",
    [
        ([[1, 0, 0]] * 3, 1.0),
        (np.eye(3), 0.0),
        ([[1, 0], [1, 0], [0, 1]], 1 / 3),
    ],
)
def test_lenskit_intra_list_similarity(features, expected):
    name = "diversity(form='similarity', single_item=1.0)"
    got = sr.evaluate([{0}], [[0, 1, 2]], [name], item_features=np.array(features), catalog=3)
    assert got[name] == pytest.approx(expected, abs=1e-15)
    one = sr.evaluate([{0}], [[0]], [name], item_features=np.array(features), catalog=3)
    assert one[name] == 1.0  # a list of one item, LensKit's 1.0


def test_toy_per_user_values():
    got = sr.evaluate(
        TOY_TRUTH,
        TOY_RUN,
        [
            "novelty@2",
            "popularity@2",
            "popularity(normalize=True)@2",
            "aplt(tail_count='distinct', tail_ties='order')@2",
        ],
        train=TOY_TRAIN,
        catalog=5,
        per_query=True,
    )
    log3 = math.log2(3)
    np.testing.assert_allclose(got["novelty@2"], [(log3 - 1 + log3) / 2, log3, log3])
    np.testing.assert_allclose(got["popularity@2"], [1.5, 1.0, 1.0])
    np.testing.assert_allclose(got["popularity(normalize=True)@2"], [0.1875, 0.125, 0.125])
    np.testing.assert_allclose(
        got["aplt(tail_count='distinct', tail_ties='order')@2"], [0.5, 0.5, 0.0]
    )


def test_default_long_tail_puts_a_tie_at_the_cut_in_the_head():
    # Items 1, 2, 5 (original ids) share m = 1 and the cut falls among them: by default
    # all three join the short head, whatever their order, so the tail is empty.
    got = sr.evaluate(TOY_TRUTH, TOY_RUN, ["aplt@2", "aclt@2"], train=TOY_TRAIN, catalog=5)
    assert got == {"aplt@2": 0.0, "aclt@2": 0.0}


# --- RecBole 1.2.1, tests/metrics/test_topk_metrics.py (BEYOND.md 10) ------------------

RECBOLE_LISTS = [[5, 7, 3], [4, 5, 2], [2, 3, 5], [1, 4, 6], [5, 3, 7]]
# item_count {2: 1, 3: 2, 4: 3, 5: 4, 6: 5}: one training row per count, each its own user.
RECBOLE_ITEMS = np.repeat([2, 3, 4, 5, 6], [1, 2, 3, 4, 5])
RECBOLE_TRAIN = (np.arange(RECBOLE_ITEMS.size) + 100, RECBOLE_ITEMS)


def _recbole(names, **kwargs):
    truth = [{lst[0]} for lst in RECBOLE_LISTS]
    return sr.evaluate(truth, RECBOLE_LISTS, names, train=RECBOLE_TRAIN, catalog=8, **kwargs)


def test_recbole_published_corpus_values():
    got = _recbole(["coverage@3", "gini@3", f"entropy(base={E}, normalize='distinct')@3"])
    assert got["coverage@3"] == 7 / 8
    expected_gini = ((-7) * 0 + (-5) * 1 + (-3) * 1 + (-1) * 2 + 1 * 2 + 3 * 2 + 5 * 3 + 7 * 4) / (
        8 * (3 * 5)
    )
    assert got["gini@3"] == pytest.approx(expected_gini, rel=1e-14)
    shares = np.array([1, 2, 3, 2, 4, 1, 2]) / 15
    expected_entropy = -np.mean(shares * np.log(shares))
    assert got[f"entropy(base={E}, normalize='distinct')@3"] == pytest.approx(
        expected_entropy, rel=1e-14
    )
    assert expected_entropy == pytest.approx(0.26305576783513895, rel=1e-14)


def test_recbole_published_average_popularity():
    expected = [[4 / 1, 4 / 2, 6 / 3], [3 / 1, 7 / 2, 8 / 3], [1 / 1, 3 / 2, 7 / 3],
                [0 / 1, 3 / 2, 8 / 3], [4 / 1, 6 / 2, 6 / 3]]  # fmt: skip
    for k in (1, 2, 3):
        got = _recbole([f"popularity@{k}"], per_query=True)[f"popularity@{k}"]
        np.testing.assert_allclose(got, [row[k - 1] for row in expected], rtol=1e-14)


# --- RecTools 0.19.0 docstrings and unit tests (BEYOND.md 10) --------------------------


def _rectools(reco, prev, names, catalog, **kwargs):
    users = np.array([u for u, _i, _r in reco])
    items = np.array([i for _u, i, _r in reco])
    ranks = np.array([r for _u, _i, r in reco], dtype=float)
    run = sr.ItemRanking(users, items, -ranks)
    truth = sr.ItemJudgments(users, items, np.zeros(users.size))
    train = (np.array([u for u, _i in prev]), np.array([i for _u, i in prev]))
    return sr.evaluate(truth, run, names, train=train, catalog=catalog, **kwargs)


def test_rectools_mean_inverse_user_frequency():
    reco = [(1, 3, 1), (2, 2, 1), (2, 3, 2), (3, 1, 1), (3, 2, 2)]
    prev = [(1, 1), (1, 2), (2, 1), (3, 1)]
    got = _rectools(reco, prev, ["novelty@1", "novelty@3"], [1, 2, 3], per_query=True)
    log3 = math.log2(3)
    np.testing.assert_allclose(got["novelty@1"], [log3, log3, 0.0], rtol=1e-14)
    np.testing.assert_allclose(got["novelty@3"], [log3, log3, 0.79248125], rtol=1e-8)


@pytest.mark.parametrize(
    "reco, catalog, expected_k3",
    [
        ([(1, 1, 1), (1, 2, 2), (2, 3, 1), (2, 1, 2), (2, 2, 3), (3, 3, 1), (3, 2, 2)],
         [1, 2, 3], [2.5, 2.0, 1.5]),
        # a cold item i4: popularity 0
        ([(1, 1, 1), (1, 2, 2), (2, 3, 1), (2, 1, 2), (2, 4, 3), (3, 3, 1), (3, 2, 2)],
         [1, 2, 3, 4], [2.5, 4 / 3, 1.5]),
    ],
)  # fmt: skip
def test_rectools_average_recommendation_popularity(reco, catalog, expected_k3):
    prev = [(1, 1), (1, 2), (2, 1), (2, 3), (3, 1), (3, 2)]
    names = ["popularity@1", "popularity@3", "popularity(normalize=True)@3"]
    got = _rectools(reco, prev, names, catalog, per_query=True)
    np.testing.assert_allclose(got["popularity@1"], [3, 1, 1], rtol=1e-14)
    np.testing.assert_allclose(got["popularity@3"], expected_k3, rtol=1e-14)
    np.testing.assert_allclose(
        got["popularity(normalize=True)@3"], np.array(expected_k3) / 6, rtol=1e-14
    )


def test_rectools_catalog_coverage():
    reco = [(1, 1, 1), (1, 2, 2), (1, 3, 3), (2, 1, 1), (2, 2, 1), (3, 1, 3), (4, 1, 2)]
    names = ["coverage(normalize=False)@2", "coverage@2"]
    got = _rectools(reco, [(1, 1)], names, [0, 1, 2, 3, 4])
    assert got == {"coverage(normalize=False)@2": 2.0, "coverage@2": 0.4}


# --- a slow, obvious reference ---------------------------------------------------------


def _reference(lists, train_pairs, n_items, k):
    """Every default definition of BEYOND.md, one user and one item at a time."""
    cut = [lst[:k] for lst in lists]
    c = [0] * n_items
    users_of = [set() for _ in range(n_items)]
    for user, item in train_pairs:
        c[item] += 1
        users_of[item].add(user)
    m = [len(s) for s in users_of]
    n_users = len({u for u, _ in train_pairs})
    n_pairs = sum(m)
    r = [0] * n_items
    for lst in cut:
        for item in lst:
            r[item] += 1
    total = sum(r)
    out = {}
    out["coverage"] = sum(1 for x in r if x) / n_items
    out["entropy"] = -sum(x / total * math.log2(x / total) for x in r if x) if total else None
    xs = sorted(r)
    out["gini"] = (
        sum((2 * (j + 1) - n_items - 1) * x for j, x in enumerate(xs)) / (n_items * total)
        if total
        else None
    )
    # long tail: trained items by m descending; the head reaches 0.8 of the pairs, with
    # every item as popular as the one crossing the line
    trained = sorted((i for i in range(n_items) if m[i]), key=lambda i: -m[i])
    head, running = set(), 0
    for i in trained:
        running += m[i]
        head.add(i)
        if running >= 0.8 * n_pairs:
            head |= {j for j in trained if m[j] == m[i]}
            break
    tail = {i for i in trained if i not in head}
    novelty, popularity, aplt, aclt = [], [], [], []
    for lst in cut:
        if not lst:
            for values in (novelty, popularity, aplt, aclt):
                values.append(math.nan)
            continue
        novelty.append(sum(-math.log2(max(m[i], 1) / n_users) for i in lst) / len(lst))
        popularity.append(sum(c[i] for i in lst) / len(lst))
        aplt.append(sum(i in tail for i in lst) / len(lst))
        aclt.append(float(len(set(lst) & tail)))
    out.update(novelty=novelty, popularity=popularity, aplt=aplt, aclt=aclt)
    return out


@st.composite
def _cases(draw):
    n_items = draw(st.integers(1, 8))
    n_users = draw(st.integers(1, 6))
    item = st.integers(0, n_items - 1)
    # short, empty and over-long lists, cold items (never trained); a repeated item in a
    # list is refused by the input forms (each item once per query)
    lists = draw(
        st.lists(st.lists(item, max_size=7, unique=True), min_size=n_users, max_size=n_users)
    )
    train = draw(
        st.lists(st.tuples(st.integers(0, 5), item), min_size=1, max_size=20)
    )  # repeated training rows, users without history
    k = draw(st.integers(1, 5))
    return lists, train, n_items, k


NAMES = ["coverage", "entropy", "gini", "novelty", "popularity", "aplt", "aclt"]


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(_cases())
def test_defaults_against_a_slow_reference(case):
    lists, train, n_items, k = case
    if not any(lists):
        return  # no recommendation at all: nothing to average (checked apart)
    expected = _reference(lists, train, n_items, k)
    train_pairs = (np.array([u for u, _ in train]), np.array([i for _, i in train]))
    run = sr.ItemRanking.from_topn(lists)
    truth = sr.ItemJudgments(np.arange(len(lists)), np.zeros(len(lists), dtype=int))
    per_user = [f"{n}@{k}" for n in NAMES[3:]]
    got = sr.evaluate(truth, run, per_user, train=train_pairs, catalog=n_items, per_query=True)
    for name in NAMES[3:]:
        np.testing.assert_allclose(got[f"{name}@{k}"], expected[name], rtol=1e-12, atol=0)
    corpus = sr.evaluate(
        truth, run, [f"{n}@{k}" for n in NAMES[:3]], train=train_pairs, catalog=n_items
    )
    for name in NAMES[:3]:
        want = expected[name]
        assert corpus[f"{name}@{k}"] == pytest.approx(want, rel=1e-12, abs=1e-15), name


def _reference_more(lists, truth, train_pairs, features, n_items, k):
    """EFD, EPC, MeanPopRank, diversity, serendipity (cosine), PopRSP and PopREO (with the
    default long tail), one user and one pair at a time."""
    cut = [lst[:k] for lst in lists]
    users_of = [set() for _ in range(n_items)]
    rows_of = {}
    for user, item in train_pairs:
        users_of[item].add(user)
        rows_of.setdefault(user, []).append(item)
    m = [len(u) for u in users_of]
    n_pairs, n_users = sum(m), len(rows_of)
    trained = [i for i in range(n_items) if m[i]]
    positive = sorted(m[i] for i in trained)

    def quantile(i):
        if not m[i]:
            return 0.0
        below = sum(1 for x in positive if x < m[i])
        equal = sum(1 for x in positive if x == m[i])
        return (below + (equal + 1) / 2) / len(positive)

    def cosine(a, b):
        na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(x * x for x in b))
        return 0.0 if na == 0 or nb == 0 else sum(x * y for x, y in zip(a, b)) / (na * nb)

    by_m = sorted(trained, key=lambda i: -m[i])
    head, running = set(), 0
    for i in by_m:
        running += m[i]
        head.add(i)
        if running >= 0.8 * n_pairs:
            head |= {j for j in by_m if m[j] == m[i]}
            break
    tail = set(trained) - head
    out = {name: [] for name in ("efd", "epc", "mean_pop_rank", "diversity", "serendipity")}
    sums = dict.fromkeys(["rsp_h", "rsp_t", "rsp_dh", "rsp_dt"], 0)
    sums.update(dict.fromkeys(["reo_h", "reo_t", "reo_dh", "reo_dt"], 0))
    for user, lst in enumerate(cut):
        relevant = truth[user]
        history = rows_of.get(user, [])
        if relevant:
            discounts = [1 / math.log2(r + 2) for r in range(len(lst))]
            efd = epc = 0.0
            for r, i in enumerate(lst):
                if i in relevant:
                    novelty = -math.log2((m[i] or min(positive)) / n_pairs)
                    efd += discounts[r] * novelty
                    epc += discounts[r] * (1 - m[i] / n_users)
            total = sum(discounts)
            out["efd"].append(efd / total if total else 0.0)
            out["epc"].append(epc / total if total else 0.0)
            for group, name in ((head, "h"), (tail, "t")):
                sums["reo_" + name] += sum(1 for i in lst if i in relevant and i in group)
                sums["reo_d" + name] += sum(1 for i in relevant & group if i not in history)
        else:
            out["efd"].append(math.nan)
            out["epc"].append(math.nan)
        if lst:
            for group, name in ((head, "h"), (tail, "t")):
                sums["rsp_" + name] += len(set(lst) & group)
                sums["rsp_d" + name] += len(group - set(history))
        out["mean_pop_rank"].append(sum(quantile(i) for i in lst) / len(lst) if lst else math.nan)
        pairs = [(a, b) for p, a in enumerate(lst) for b in lst[p + 1 :]]
        out["diversity"].append(
            1 - sum(cosine(features[a], features[b]) for a, b in pairs) / len(pairs)
            if pairs
            else math.nan
        )
        if lst and history:
            out["serendipity"].append(
                sum(
                    (1 - sum(cosine(features[i], features[j]) for j in history) / len(history))
                    * (i in relevant)
                    for i in lst
                )
                / len(lst)
            )
        else:
            out["serendipity"].append(math.nan)

    def disparity(prefix):
        rates = [sums[f"{prefix}_{g}"] / sums[f"{prefix}_d{g}"] if sums[f"{prefix}_d{g}"] else
                 (math.nan if not sums[f"{prefix}_{g}"] else math.inf) for g in "ht"]  # fmt: skip
        return float(np.std(rates) / np.mean(rates))

    out["pop_rsp"], out["pop_reo"] = disparity("rsp"), disparity("reo")
    return out


@st.composite
def _cases_with_truth(draw):
    lists, train, n_items, k = draw(_cases())
    item = st.integers(0, n_items - 1)
    truth = draw(st.lists(st.sets(item, max_size=4), min_size=len(lists), max_size=len(lists)))
    features = draw(
        st.lists(
            st.lists(st.integers(0, 2), min_size=3, max_size=3),
            min_size=n_items,
            max_size=n_items,
        )
    )  # zero vectors included
    return lists, truth, train, features, n_items, k


MORE = ["efd", "epc", "mean_pop_rank", "diversity", "serendipity"]


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(_cases_with_truth())
def test_more_defaults_against_a_slow_reference(case):
    lists, truth, train, features, n_items, k = case
    if not any(lists):
        return
    expected = _reference_more(lists, truth, train, features, n_items, k)
    train_pairs = (np.array([u for u, _ in train]), np.array([i for _, i in train]))
    kwargs = dict(train=train_pairs, catalog=n_items, item_features=np.array(features, float))
    if all(math.isnan(x) for x in expected["efd"]):
        names = [f"{n}@{k}" for n in MORE[2:4]]  # no user has a relevant item
    else:
        names = [f"{n}@{k}" for n in MORE]
    names = [n for n in names if not all(math.isnan(x) for x in expected[n.split("@")[0]])]
    if names:
        got = sr.evaluate(truth, lists, names, per_query=True, no_relevant="skip", **kwargs)
        for name in names:
            np.testing.assert_allclose(
                got[name], expected[name.split("@")[0]], rtol=1e-9, atol=1e-12, err_msg=name
            )
    for name in ("pop_rsp", "pop_reo"):
        want = expected[name]
        if np.isfinite(want):
            got = sr.evaluate(truth, lists, [f"{name}@{k}"], **kwargs)[f"{name}@{k}"]
            assert got == pytest.approx(want, rel=1e-12, abs=1e-15), name


# --- input forms, n_jobs, errors -------------------------------------------------------


def _random_case(seed, n_users=300, n_items=60, n=12):
    rng = np.random.default_rng(seed)
    score = rng.random((n_users, n_items))
    score[rng.random(score.shape) < 0.3] = 0.5  # ties: column order decides
    truth = scipy.sparse.random(n_users, n_items, density=0.05, random_state=seed, format="csr")
    truth.data[:] = 1.0
    train = scipy.sparse.random(n_users, n_items, density=0.1, random_state=seed + 1)
    train.data = np.ceil(train.data * 3)  # counts 1..3: repeated rows
    exclude = train.astype(bool)
    return score, truth, train, exclude, n


ALL_NAMES = [
    "coverage@10", "entropy@10", "entropy(weighting='users')@10", "gini@10",
    "gini(counts='lists')@10", "novelty@10", "popularity@10", "aplt@10", "aclt@10",
    "efd@10", "epc@10", "mean_pop_rank@10", "pop_rsp@10", "pop_reo@10", "diversity@10",
    "diversity(similarity='cooccurrence')@10", "diversity(similarity='hamming')@10",
    "serendipity@10", "serendipity(similarity='cooccurrence')@10",
]  # fmt: skip
CORPUS = ("coverage", "entropy", "gini", "pop_rsp", "pop_reo")
FEATURES = np.random.default_rng(7).integers(0, 2, (60, 8)).astype(float)


def test_dense_matrix_and_top_n_ids_give_the_same_values():
    score, truth, train, exclude, _n = _random_case(0)
    dense = sr.evaluate(
        truth, score, ALL_NAMES, train=train, exclude=exclude, item_features=FEATURES
    )
    masked = np.where(exclude.toarray(), -np.inf, score)
    order = np.argsort(-masked, axis=1, kind="stable")[:, :10]
    top = sr.ItemRanking.from_topn(order)
    from_ids = sr.evaluate(truth, top, ALL_NAMES, train=train, item_features=FEATURES)
    assert dense == from_ids
    lists = [list(row) for row in order]
    truth_lists = [set(truth[u].indices.tolist()) for u in range(truth.shape[0])]
    from_lists = sr.evaluate(
        truth_lists, lists, ALL_NAMES, train=train, catalog=score.shape[1], item_features=FEATURES
    )
    assert from_lists == dense


def test_n_jobs_gives_the_same_values_to_the_bit():
    score, truth, train, exclude, _n = _random_case(1, n_users=501)
    names = ALL_NAMES + ["ndcg@10"]
    side = dict(train=train, exclude=exclude, item_features=FEATURES)
    one = sr.evaluate(truth, score, names, n_jobs=1, **side)
    for n_jobs in (2, 4):
        assert sr.evaluate(truth, score, names, n_jobs=n_jobs, **side) == one
    per_user = [n for n in ALL_NAMES if n.split("@")[0].split("(")[0] not in CORPUS]
    table = sr.evaluate(truth, score, per_user, per_query=True, n_jobs=1, **side)
    table4 = sr.evaluate(truth, score, per_user, per_query=True, n_jobs=4, **side)
    for name in per_user:
        np.testing.assert_array_equal(table[name], table4[name])


def test_popularity_is_read_from_the_whole_training_data():
    # The popularity of an item is the same whichever users are evaluated: evaluating a
    # subset of users reads the same training counts.
    score, truth, train, _exclude, _n = _random_case(2)
    everyone = sr.evaluate(truth, score, ["popularity@5"], train=train, per_query=True)
    some = sr.evaluate(truth[:50], score[:50], ["popularity@5"], train=train, per_query=True)
    np.testing.assert_array_equal(everyone["popularity@5"][:50], some["popularity@5"])


def test_per_user_values_mix_with_accuracy_in_a_table():
    score, truth, train, _exclude, _n = _random_case(3, n_users=20)
    table = sr.evaluate(truth, score, ["novelty@5", "ndcg@5"], train=train, per_query="table")
    assert list(table) == ["query", "novelty@5", "ndcg@5"]
    alone = sr.evaluate(truth, score, ["ndcg@5"], per_query=True)["ndcg@5"]
    np.testing.assert_array_equal(table["ndcg@5"], alone)


def test_an_item_outside_the_catalog_is_an_error():
    with pytest.raises(ValueError, match="not in the catalog"):
        sr.evaluate([{1}], [[1, 9]], ["coverage@2"], catalog=[0, 1, 2])
    with pytest.raises(ValueError, match=r"item 5, which is not in the catalog \(3 items\)"):
        sr.evaluate([{1}], [[1, 5]], ["coverage@2"], catalog=3)
    with pytest.raises(ValueError, match="train holds item 7"):
        sr.evaluate([{1}], [[1, 2]], ["novelty@2"], catalog=3, train=([0], [7]))


def test_errors_name_what_is_missing():
    with pytest.raises(ValueError, match="pass train="):
        sr.evaluate([{1}], [[1, 2]], ["novelty@2"], catalog=3)
    with pytest.raises(ValueError, match="need the catalog"):
        sr.evaluate([{1}], [[1, 2]], ["coverage@2"])
    with pytest.raises(ValueError, match="corpus-level"):
        sr.evaluate([{1}], [[1, 2]], ["coverage@2"], catalog=3, per_query=True)
    with pytest.raises(ValueError, match="read by the beyond-accuracy metrics only"):
        sr.evaluate([{1}], [[1, 2]], ["ndcg@2"], train=([0], [1]))
    with pytest.raises(ValueError, match="cold_items must be one of"):
        sr.evaluate([{1}], [[1, 2]], ["novelty(cold_items='nope')@2"], catalog=3)
    with pytest.raises(ValueError, match="has no training interaction"):
        sr.evaluate([{1}], [[1, 2]], ["novelty(cold_items='raise')@2"], catalog=3, train=([0], [1]))


# --- framework presets (BEYOND.md 11-13) -------------------------------------------------

PRESET_VALUES = {
    "recommenders": {
        "coverage@2": 0.8,  # over the 5 training items
        "entropy@2": 1.9182958340544896,
        "novelty@2": 2.8333333333333335,  # over slots, interaction counts, cold items 0
        "diversity@2": 0.43096440627115085,  # co-occurrence without item features
        "serendipity@2": 0.4340801205852194,
    },
    "rectools": {
        "coverage@2": 4.0, "novelty@2": 1.4182958340544898, "popularity@2": 1.1666666666666667
    },
    "recbole": {
        "coverage@2": 0.8,
        "entropy@2": 0.332415337214,
        "gini@2": 0.3333333333333333,
        "popularity@2": 1.1666666666666667,
        "aplt@2": 0.1666667,  # tailpercentage, t = 0.1
    },
    "elliot": {
        "coverage@2": 4.0,
        "entropy@2": 1.9182958340544893,
        "gini@2": 0.5833333333333334,
        "popularity@2": 1.1666666666666667,
        "aplt@2": 0.3333333333333333,
        "aclt@2": 0.6666666666666666,
        "efd@2": 2.0219119879424308,
        "epc@2": 0.42660461981070846,
        "pop_rsp@2": 0.11111111111111108,
        "pop_reo@2": 0.0,
    },
    "lenskit": {
        "coverage@2": 4.0, "gini@2": 0.3333333333333333, "mean_pop_rank@2": 0.4666666666666666
    },
}  # fmt: skip


@pytest.mark.parametrize("convention", sorted(PRESET_VALUES))
def test_presets_reproduce_the_frameworks(convention):
    expected = PRESET_VALUES[convention]
    got = sr.evaluate(
        TOY_TRUTH, TOY_RUN, list(expected), train=TOY_TRAIN, catalog=5, convention=convention
    )
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, rel=1e-6, abs=1e-15), (convention, name)


def test_feature_presets():
    kwargs = dict(train=TOY_TRAIN, catalog=5, item_features=TOY_FEATURES)
    got = sr.evaluate(
        TOY_TRUTH, TOY_RUN, ["diversity@2", "serendipity@2"], convention="recommenders", **kwargs
    )  # Microsoft's feature-vector similarity once features are given
    assert got["diversity@2"] == pytest.approx(0.5000000000000001, rel=1e-12)
    assert got["serendipity@2"] == pytest.approx(0.40277777777777785, rel=1e-12)
    assert sr.evaluate(TOY_TRUTH, TOY_RUN, ["diversity@2"], convention="rectools", **kwargs) == {
        "diversity@2": 2.0
    }
    lenskit = sr.evaluate(TOY_TRUTH, TOY_RUN, ["diversity@2"], convention="lenskit", **kwargs)
    assert lenskit["diversity@2"] == pytest.approx(0.49999999999999983, rel=1e-12)


def test_a_name_parameter_wins_over_the_preset():
    got = sr.evaluate(
        TOY_TRUTH, TOY_RUN, ["coverage(normalize=True)@2"], train=TOY_TRAIN, catalog=5,
        convention="elliot",
    )  # fmt: skip
    assert got == {"coverage(normalize=True)@2": 0.8}


@pytest.mark.parametrize(
    "convention, name, message",
    [
        ("rectools", "serendipity@2", "another measure"),
        ("rectools", "gini@2", "RecTools has no gini"),
        ("lenskit", "entropy@2", "LensKit has no entropy"),
        ("recommenders", "aplt@2", "Microsoft Recommenders has no aplt"),
        ("recbole", "popularity@3", r"at least 3 items .* users x k matrix"),  # short lists
    ],
)
def test_presets_refuse_what_the_framework_cannot_compute(convention, name, message):
    with pytest.raises(ValueError, match=message):
        sr.evaluate(TOY_TRUTH, TOY_RUN, [name], train=TOY_TRAIN, catalog=5, convention=convention)


def test_lenskit_item_count_reads_the_lists_as_given():
    # LensKit's UniqueItemCount has no cut-off: it counts the distinct ids of the lists it is
    # given (BEYOND.md sections 3 and 12: "count of the lists as given, no truncation").
    # The toy lists with a third item each: 5 distinct ids in all, 4 in the first two slots
    # (the published count of the toy's top-2 lists).
    lists = np.array([[2, 4, 3], [1, 4, 0], [0, 1, 2]])
    run = sr.ItemRanking(np.repeat([1, 2, 3], 3), lists.ravel())
    kwargs = dict(train=TOY_TRAIN, catalog=5, convention="lenskit")
    assert sr.evaluate(TOY_TRUTH, run, ["coverage"], **kwargs) == {"coverage": 5.0}
    assert sr.evaluate(TOY_TRUTH, run, ["coverage@3"], **kwargs) == {"coverage@3": 5.0}
    # @k beside it cuts the other measures' lists, never the count (ListGini(n=2) published).
    got = sr.evaluate(TOY_TRUTH, run, ["coverage", "gini@2"], n_jobs=2, **kwargs)
    assert got == {"coverage": 5.0, "gini@2": pytest.approx(0.3333333333333333, rel=1e-12)}
    # A cut LensKit does not make is refused, not computed under its name.
    with pytest.raises(ValueError, match="counts the lists as given, never cut at a k, and 3"):
        sr.evaluate(TOY_TRUTH, run, ["coverage@2"], **kwargs)
    cut = sr.ItemRanking(np.repeat([1, 2, 3], 2), lists[:, :2].ravel())  # cut by the caller
    assert sr.evaluate(TOY_TRUTH, cut, ["coverage@2"], **kwargs) == {"coverage@2": 4.0}
    assert sr.evaluate(TOY_TRUTH, run, ["coverage(normalize=False)@2"], catalog=5) == {
        "coverage(normalize=False)@2": 4.0
    }  # without the preset, @2 cuts


def test_elliot_refuses_an_empty_list_and_a_cold_item():
    run = sr.ItemRanking([1, 1, 3], [0, 1, 2])
    truth = sr.ItemJudgments([1, 2, 3], [0, 1, 2])  # user 2 has no list
    with pytest.raises(ValueError, match="ZeroDivisionError"):
        sr.evaluate(truth, run, ["popularity@2"], train=TOY_TRAIN, catalog=5, convention="elliot")
    cold = sr.ItemRanking([1, 1], [0, 4])
    train = (np.array([1, 2]), np.array([0, 1]))  # item 4 never trained
    with pytest.raises(ValueError, match="no training interaction"):
        sr.evaluate(
            sr.ItemJudgments([1], [0]), cold, ["popularity@2"], train=train, catalog=5,
            convention="elliot",
        )  # fmt: skip


def test_elliot_refuses_pop_rsp_and_pop_reo_of_a_user_without_training_rows():
    # Elliot reads self._train[u] for every recommended user (pop_rsp.py, pop_reo.py):
    # a user absent from the training data raises KeyError there.
    run = sr.ItemRanking([1, 1, 4, 4], [0, 1, 2, 3])
    truth = sr.ItemJudgments([1, 4], [0, 2])  # user 4 has a list and a relevant item
    for name in ("pop_rsp@2", "pop_reo@2"):
        with pytest.raises(ValueError, match="KeyError.*1 users"):
            sr.evaluate(truth, run, [name], train=TOY_TRAIN, catalog=5, convention="elliot")
    # Without the preset the user counts with an empty history: short head {0, 1, 2, 3},
    # long tail {4}; head rate (2 + 2) / (1 + 4), tail rate 0 / (1 + 1): |0.8 - 0| / 0.8.
    name = "pop_rsp(tail_ties='order')@2"
    assert sr.evaluate(truth, run, [name], train=TOY_TRAIN, catalog=5)[name] == 1.0


def test_rectools_ndcg_divides_by_the_ideal_dcg_of_k_items():
    # One relevant item, ranked first: RecTools' NDCG@10 is 1 / (the DCG of 10 items of
    # gain 1) by default; divide_by_achievable=True gives 1, the library's ndcg@10.
    truth = sr.ItemJudgments([0, 1, 1], [3, 5, 6])
    run = sr.ItemRanking.from_topn([[3, 1, 2], [0, 5, 6]])
    full = sum(1 / math.log2(i + 2) for i in range(10))
    got = sr.evaluate(truth, run, ["ndcg@10"], convention="rectools", per_query=True)["ndcg@10"]
    np.testing.assert_allclose(got, [1 / full, (1 / math.log2(3) + 1 / math.log2(4)) / full])
    achievable = sr.evaluate(
        truth, run, ["ndcg@10"], convention="rectools", ideal_dcg="achievable", per_query=True
    )["ndcg@10"]
    np.testing.assert_array_equal(
        achievable, sr.evaluate(truth, run, ["ndcg@10"], per_query=True)["ndcg@10"]
    )
    assert sr.ndcg_score(truth, run, k=10, ideal_dcg="k", ties="stable") == pytest.approx(
        np.mean(got), rel=1e-14
    )


# --- RecTools itself: values recorded by tests/data/beyond/make_rectools_values.py -------
# (RecTools 0.19.0 pins numpy < 2, so it cannot run beside the test extra.)


def _rectools_case():
    """The data of make_rectools_values.py's `rectools_case` (same seed, same steps)."""
    rng = np.random.default_rng(2024)
    n_users, n_items = 200, 120
    lengths = rng.integers(0, 16, n_users)  # short and empty lists
    top = [rng.permutation(n_items)[:length] for length in lengths]
    train_u = rng.integers(0, 260, 1500)  # users without a list among them
    train_i = np.minimum(rng.zipf(1.5, 1500), n_items - 1) - 1  # cold items: the tail
    test_u = rng.integers(0, n_users, 600)
    test_i = rng.integers(0, n_items, 600)
    features = rng.integers(0, 2, (n_items, 6))
    return top, train_u, train_i, test_u, test_i, features, n_items


@pytest.mark.parametrize("k", [1, 5, 10])
def test_rectools_recorded_values(k):
    import json
    from pathlib import Path

    recorded = json.loads(
        (Path(__file__).parents[1] / "data" / "beyond" / "rectools_values.json").read_text()
    )[str(k)]
    top, train_u, train_i, test_u, test_i, features, n_items = _rectools_case()
    users = np.repeat(np.arange(len(top)), [len(t) for t in top])
    ranks = np.concatenate([np.arange(1, len(t) + 1) for t in top])
    run = sr.ItemRanking(users, np.concatenate(top), -ranks.astype(float))
    pairs = np.unique(np.stack([test_u, test_i]), axis=1)
    truth = sr.ItemJudgments(pairs[0], pairs[1])
    names = {
        "novelty": f"novelty@{k}",
        "popularity": f"popularity@{k}",
        "popularity_normalized": f"popularity(normalize=True)@{k}",
        "diversity": f"diversity@{k}",
        "ndcg": f"ndcg@{k}",
    }
    got = sr.evaluate(
        truth, run, list(names.values()), train=(train_u, train_i), item_features=features,
        catalog=n_items, convention="rectools", per_query="table",
    )  # fmt: skip
    position = {int(q): i for i, q in enumerate(got["query"])}
    for key, name in names.items():
        expected = recorded[key]
        ours = np.array([got[name][position[int(u)]] for u in expected])
        np.testing.assert_allclose(ours, list(expected.values()), rtol=1e-12, err_msg=key)
        # users RecTools leaves out (no list; for NDCG no test item) have no value here
        left_out = [i for q, i in position.items() if str(q) not in expected]
        assert np.isnan(got[name][left_out]).all(), key
    achievable = sr.evaluate(truth, run, [f"ndcg@{k}"], per_query="table", ties="stable")
    expected = recorded["ndcg_achievable"]
    ours = [achievable[f"ndcg@{k}"][position[int(u)]] for u in expected]
    np.testing.assert_allclose(ours, list(expected.values()), rtol=1e-12)
    coverage = sr.evaluate(truth, run, [f"coverage@{k}"], catalog=n_items)
    assert coverage[f"coverage@{k}"] == recorded["coverage"]


def test_per_user_metrics_in_a_paired_comparison():
    score, truth, train, exclude, _n = _random_case(4, n_users=80)
    other = np.random.default_rng(9).random(score.shape)
    runs = {"a": score, "b": other}
    names = ["novelty@5", "popularity@5", "diversity@5", "ndcg@5"]
    side = dict(train=train, item_features=FEATURES)
    result = sr.compare(truth, runs, names, baseline="a", random_state=0, n_resamples=200, **side)
    for column, run in enumerate(runs.values()):
        alone = sr.evaluate(truth, run, names, per_query=True, **side)
        for name in names[:3]:  # every user has a list: no value is missing
            np.testing.assert_array_equal(result.per_query[name][:, column], alone[name])
    assert set(result.pairs["metric"]) == set(names)


def test_exclude_removes_items_before_the_cut_in_every_form():
    score, truth, train, exclude, _n = _random_case(5, n_users=60)
    names = ["coverage@10", "novelty@10", "popularity@10", "gini@10"]
    dense = sr.evaluate(truth, score, names, train=train, exclude=exclude)
    full = sr.ItemRanking.from_topn(np.argsort(-score, axis=1, kind="stable"))
    from_ids = sr.evaluate(truth, full, names, train=train, exclude=exclude)
    assert from_ids == dense


def test_rectools_serendipity_published_example():
    reco = [(1, 1, 1), (1, 2, 2), (2, 2, 1), (2, 3, 2), (3, 3, 1), (4, 2, 1), (4, 3, 2)]
    test = [(1, 1), (1, 2), (2, 2), (2, 3), (3, 2), (4, 2)]
    prev = [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1)]
    run = sr.ItemRanking([u for u, _, _ in reco], [i for _, i, _ in reco])
    truth = sr.ItemJudgments([u for u, _ in test], [i for _, i in test])
    train = (np.array([u for u, _ in prev]), np.array([i for _, i in prev]))
    for k, expected in ((1, [0, 0.25, 0, 0.25]), (2, [0, 0.5, 0, 0.125])):
        name = f"rank_serendipity@{k}"
        got = sr.evaluate(
            truth, run, [name], train=train, catalog=[1, 2, 3, 4], convention="rectools",
            per_query=True,
        )  # fmt: skip
        np.testing.assert_allclose(got[name], expected, rtol=1e-14, atol=1e-15)


def test_the_ndcg_curve_takes_the_rectools_ideal_dcg():
    score, truth, _train, _exclude, _n = _random_case(6, n_users=40)
    curve = sr.metric_at_k_curve(truth, score, "ndcg", k_max=6, ideal_dcg="k", ties="stable")
    for k in range(1, 7):
        at_k = sr.evaluate(truth, score, [f"ndcg@{k}"], ideal_dcg="k", ties="stable")
        assert curve[1][k - 1] == pytest.approx(at_k[f"ndcg@{k}"], rel=1e-12)  # as test_curves
