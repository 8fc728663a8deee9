"""Beyond-accuracy measures: what was recommended, over the catalog and the training data.

Two kinds (docs/architecture.md, "Corpus-level metrics"):

- per-user measures (novelty, popularity, the long-tail share and count) reduce each
  query's top-k list to one value, as the accuracy measures do; a query with an empty list
  has none (NaN, left out of the mean);
- corpus-level measures (coverage, entropy, Gini) are not means of per-query values: each
  block of queries (a thread's block, a Dask or Spark partition) gives *partial counts*
  (integer counts of each item over its lists), the parts' counts are added, and the value
  is computed once from the sum. Integer counts add exactly, so the value does not depend
  on how the queries were cut.

The popularity of each item is a statistic over the whole training data (`_Popularity`),
computed once per call, before any cut. Definitions, with every framework's variant, are
in BEYOND.md (the project's specification); each variant is a declared parameter
(`conventions._beyond`).
"""

from typing import NamedTuple

import numpy as np


class _Popularity(NamedTuple):
    """Item popularity over the whole training data.

    interactions : (n_items,) c(i), training rows of item i (repeats counted).
    users : (n_items,) m(i), distinct training users of item i.
    n_rows : N, training rows. n_users : N_U, distinct training users.
    n_pairs : N_P, distinct (user, item) pairs.
    """

    interactions: np.ndarray
    users: np.ndarray
    n_rows: float
    n_users: int
    n_pairs: int


def _popularity(training, n_items):
    """`_Popularity` of a `inputs._side._Training` (None: no training data)."""
    if training is None:
        return None
    interactions = np.bincount(training.items, weights=training.counts, minlength=n_items)
    users = np.bincount(training.items, minlength=n_items).astype(np.float64)
    return _Popularity(
        interactions,
        users,
        float(training.counts.sum()),
        int(training.user_query.size),
        int(training.items.size),
    )


class _Block(NamedTuple):
    """What a block of queries hands a beyond-accuracy reduction.

    lists : the block's `inputs._side._Lists` (None: the whole input, for a corpus value).
    n_items : the catalog size.
    popularity : `_Popularity` of the whole training data, or None.
    features : item features (n_items rows) or None.
    relevant : the block's relevant test items (`_Lists`, relevance as values).
    history : the block's users' training items (`_Lists`, counts as values), or None.
    similarity : `_beyond_similarity._ItemVectors` of the whole input, or None.
    """

    lists: object
    n_items: int
    popularity: _Popularity | None
    features: object
    relevant: object = None
    history: object = None
    similarity: object = None


def _needs_training(block, name):
    if block.popularity is None:
        raise ValueError(
            f"{name} reads item popularity: pass train= (the training interactions: a "
            "users x items matrix of counts, as exclude, or (user ids, item ids) rows)."
        )
    return block.popularity


def _per_list_mean(query, values, lengths):
    """Each list's mean of its slots' values; NaN for an empty list."""
    sums = np.bincount(query, weights=values, minlength=lengths.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / lengths
    means[lengths == 0] = np.nan
    return means


def _has_list(lengths):
    return lengths > 0


# --- per-user measures ----------------------------------------------------------------


def _popularity_counts(popularity, kind):
    """(per-item count, total) of the popularity ``kind``: "users" m(i) / N_U, or
    "interactions" c(i) / N."""
    if kind == "users":
        return popularity.users, float(popularity.n_users)
    return popularity.interactions, float(popularity.n_rows)


def _cold_error(name, item_code):
    return ValueError(
        f"{name}: item number {int(item_code)} of the catalog is recommended but has no "
        "training interaction, and cold_items='raise'."
    )


def novelty(block, k, popularity="users", average="users", cold_items="one_user", base=2.0):
    """Per user, the mean self-information -log(p(i)) of the recommended items, p(i) the
    share of training users (or rows) with item i (RecTools' mean inverse user frequency).
    ``average="slots"``: a corpus-level mean over every slot, from the slot counts."""
    stats = _needs_training(block, "novelty")
    if average == "slots":
        return {"slots": _slot_counts(block, k)}
    query, items, lengths = block.lists.cut(k)
    information = _information(stats, items, popularity, cold_items, base)
    values = _per_list_mean(query, information, lengths)
    return values, _has_list(lengths)


def novelty_slots_value(
    merged, whole, popularity="users", average="slots", cold_items="one_user", base=2.0
):
    """Microsoft Recommenders' novelty: sum over slots of -log(p(i)) / the slots, from the
    slot counts r(i) (every slot of item i has its information)."""
    slots = merged["slots"]
    total = slots.sum()
    if total == 0:
        return np.nan
    items = np.flatnonzero(slots)
    stats = _needs_training(whole, "novelty")
    information = _information(stats, items, popularity, cold_items, base)
    return float(np.dot(slots[items], information) / total)


def _information(stats, items, popularity, cold_items, base):
    """-log_base p(i) of each item, cold items as ``cold_items`` says."""
    counts, total = _popularity_counts(stats, popularity)
    if items.size <= counts.size:
        return _information_of(counts, total, items, cold_items, base)
    # More slots than catalog items: each item's value once, then read at every slot (the
    # same operations on the same numbers, so the same bits; a tenth of the logarithms).
    if cold_items == "raise":
        cold = counts[items] == 0
        if cold.any():
            raise _cold_error("novelty", items[cold][0])
        cold_items = "zero"  # (no cold item is read)
    every = np.arange(counts.size)
    return _information_of(counts, total, every, cold_items, base)[items]


def _information_of(counts, total, items, cold_items, base):
    """`_information` of ``items`` read one by one."""
    count = counts[items]
    cold = count == 0
    if cold.any():
        if cold_items == "raise":
            raise _cold_error("novelty", items[cold][0])
        if cold_items == "one_user":
            count = np.where(cold, 1.0, count)
    with np.errstate(divide="ignore"):
        information = -np.log(count / total) / np.log(base)
    if cold.any():
        if cold_items == "zero":
            information[cold] = 0.0
        elif cold_items == "max":
            trained = counts[counts > 0]
            information[cold] = -np.log(trained.min() / total) / np.log(base)
    return information


def average_popularity(block, k, popularity="interactions", normalize=False, cold_items="zero"):
    """Per user, the mean training popularity of the recommended items (ARP): c(i) (rows),
    or m(i) (users); divided by N (or N_U) with ``normalize``; 0 for a cold item."""
    stats = _needs_training(block, "popularity")
    query, items, lengths = block.lists.cut(k)
    counts, total = _popularity_counts(stats, popularity)
    count = counts[items]
    if cold_items == "raise" and (count == 0).any():
        raise _cold_error("popularity", items[count == 0][0])
    if normalize:
        count = count / total
    return _per_list_mean(query, count, lengths), _has_list(lengths)


def _long_tail(stats, long_tail, head_share, tail_ties, cold_items_in_tail):
    """(n_items,) bool: the long tail of the training popularity.

    "cumulative": trained items by m(i) descending; the short head is the shortest prefix
    whose m(i) reach ``head_share`` of N_P (the item crossing the line included), and with
    ``tail_ties="head"`` every item as popular as the one crossing it; the tail is every
    other trained item. ("fraction", t) / ("max_count", t): RecBole's rules over c(i).
    """
    users, interactions = stats.users, stats.interactions
    trained = users > 0
    tail = np.zeros(users.size, dtype=bool)
    kind, value = (long_tail, head_share) if isinstance(long_tail, str) else long_tail
    if kind == "cumulative":
        codes = np.flatnonzero(trained)
        order = codes[np.argsort(-users[codes], kind="stable")]  # ties: catalog order
        reached = np.cumsum(users[order]) >= value * stats.n_pairs
        if order.size:
            crossing = int(np.argmax(reached)) if reached.any() else order.size - 1
            head = np.zeros(users.size, dtype=bool)
            head[order[: crossing + 1]] = True
            if tail_ties == "head":
                head |= trained & (users == users[order[crossing]])
            tail = trained & ~head
    elif kind == "fraction":
        codes = np.flatnonzero(trained)
        order = codes[np.lexsort((codes, interactions[codes]))]  # (c(i), item) ascending
        tail[order[: max(int(order.size * value), 1)] if order.size else order] = True
    else:  # "max_count"
        tail = trained & (interactions <= value)
    if cold_items_in_tail:
        tail |= ~trained
    return tail


def long_tail_share(
    block,
    k,
    long_tail="cumulative",
    head_share=0.8,
    tail_ties="head",
    cold_items_in_tail=False,
    tail_count="positions",
):
    """Per user, the share of the list's positions holding a long-tail item (APLT);
    ``tail_count="distinct"``: distinct long-tail items over the positions (Elliot)."""
    stats = _needs_training(block, "aplt")
    tail = _long_tail(stats, long_tail, head_share, tail_ties, cold_items_in_tail)
    query, items, lengths = block.lists.cut(k)
    if tail_count == "distinct":
        return _distinct_tail(query, items, tail, lengths) / np.where(
            lengths == 0, np.nan, lengths
        ), _has_list(lengths)
    return _per_list_mean(query, tail[items].astype(np.float64), lengths), _has_list(lengths)


def long_tail_count(
    block, k, long_tail="cumulative", head_share=0.8, tail_ties="head", cold_items_in_tail=False
):
    """Per user, the number of distinct long-tail items in the list (ACLT)."""
    stats = _needs_training(block, "aclt")
    tail = _long_tail(stats, long_tail, head_share, tail_ties, cold_items_in_tail)
    query, items, lengths = block.lists.cut(k)
    values = _distinct_tail(query, items, tail, lengths)
    values[lengths == 0] = np.nan
    return values, _has_list(lengths)


def _distinct_tail(query, items, tail, lengths):
    in_tail = tail[items]
    pairs = np.unique(query[in_tail] * np.int64(tail.size) + items[in_tail])
    return np.bincount(pairs // tail.size, minlength=lengths.size).astype(np.float64)


# --- corpus-level measures: partial counts, merged, then one value ----------------------


def _slot_counts(block, k):
    """r(i): positions holding item i over the block's top-k lists (int64)."""
    return np.bincount(block.lists.cut_items(k), minlength=block.n_items)


def _list_counts(block, k):
    """a(i): lists whose top k holds item i (int64)."""
    query, items, _lengths = block.lists.cut(k)
    pairs = np.unique(query * np.int64(block.n_items) + items)
    return np.bincount(pairs % block.n_items, minlength=block.n_items)


def _merged(parts):
    """The whole input's partial counts: the parts' (dicts of int64 arrays and ints)
    added in part order (integers: exact, whatever the cut)."""
    parts = list(parts)
    return {key: sum((part[key] for part in parts[1:]), parts[0][key]) for key in parts[0]}


def coverage_counts(block, k, normalize=True, denominator="catalog"):
    return {"slots": _slot_counts(block, k)}


def coverage_value(merged, whole, normalize=True, denominator="catalog"):
    """The distinct recommended items, over the catalog size (or the number of trained
    items) with ``normalize``."""
    found = int(np.count_nonzero(merged["slots"]))
    if not normalize:
        return float(found)
    if denominator == "train":
        trained = int(np.count_nonzero(_needs_training(whole, "coverage").users))
        return found / trained if trained else np.nan
    return found / whole.n_items


def entropy_counts(block, k, base=2.0, normalize=None, weighting="slots"):
    counts = {"slots": _slot_counts(block, k)}
    if weighting == "users":
        # w(i) = sum over lists of (slots of i) / (list length): kept as integer counts
        # per list length, so that parts add exactly; divided once, in length order.
        query, items, lengths = block.lists.cut(k)
        longest = k if k is not None else None
        if longest is None:
            raise ValueError("entropy with weighting='users' needs a cut-off: entropy@k.")
        by_length = np.zeros((longest + 1, block.n_items), dtype=np.int64)
        np.add.at(by_length, (lengths[query], items), 1)
        counts["by_length"] = by_length
        counts["lists"] = np.int64(lengths.size)
    return counts


def entropy_value(merged, whole, base=2.0, normalize=None, weighting="slots"):
    """Shannon entropy of the recommendation distribution p(i) = r(i) / R."""
    slots = merged["slots"]
    total = slots.sum()
    if total == 0:
        return np.nan
    recommended = slots > 0
    share = slots[recommended] / total
    information = -np.log(share) / np.log(base)
    if weighting == "users":
        by_length = merged["by_length"]
        lengths = np.arange(1, by_length.shape[0], dtype=np.float64)
        weight = (by_length[1:] / lengths[:, None]).sum(axis=0)
        value = float(np.dot(weight[recommended], information) / merged["lists"])
    else:
        value = float(np.dot(share, information))
    if normalize == "log_n":
        value = value / (np.log(whole.n_items) / np.log(base)) if whole.n_items > 1 else np.nan
    elif normalize == "distinct":
        value /= int(recommended.sum())
    return value


def gini_counts(block, k, counts="slots", items="catalog", corrected=False, complement=False):
    return {"exposure": _list_counts(block, k) if counts == "lists" else _slot_counts(block, k)}


def gini_value(merged, whole, counts="slots", items="catalog", corrected=False, complement=False):
    """Gini index of the exposure of n items, the never-recommended ones as zeros:
    sum_r (2r - n - 1) x_(r) / (n sum x), x ascending. n: the catalog, or the trained
    items (Elliot, whose recommended cold items count among the non-zero ones)."""
    exposure = merged["exposure"]
    exposed = np.sort(exposure[exposure > 0]).astype(np.float64)
    if items == "train":
        stats = _needs_training(whole, "gini with items='train'")
        n = int(np.count_nonzero(stats.users))
        if exposed.size > n:
            raise ValueError(
                f"gini with items='train': {exposed.size} distinct items were recommended "
                f"but only {n} have training interactions (Elliot's Gini is then "
                "ill-defined: its ranks fall below 1)."
            )
    else:
        n = whole.n_items
    total = exposed.sum()
    if total == 0:
        return np.nan
    m = exposed.size
    rank = np.arange(n - m + 1, n + 1, dtype=np.float64)
    value = float(np.dot(2.0 * rank - n - 1.0, exposed) / (n * total))
    if corrected:
        value = value * n / (n - 1) if n > 1 else np.nan
    return 1.0 - value if complement else value


# --- relevance-aware novelty (Elliot), popularity quantiles (LensKit) --------------------


def _lookup(lists, query, items, n_items):
    """Whether each (query, item) is among ``lists``' items of its query, and its value."""
    keys = lists.queries() * np.int64(n_items) + lists.items  # sorted: lists are grouped
    probe = query * np.int64(n_items) + items
    if keys.size == 0:
        return np.zeros(probe.size, dtype=bool), np.zeros(probe.size)
    position = np.minimum(np.searchsorted(keys, probe), keys.size - 1)
    found = keys[position] == probe
    values = lists.values[position] if lists.values is not None else np.ones(probe.size)
    return found, np.where(found, values, 0.0)


def _positions(lengths):
    """0-based position of each slot within its list (slots grouped by list)."""
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return np.arange(int(lengths.sum())) - starts


def _expected_discovery(block, k, name, novelty_of):
    """Elliot's EFD/EPC: sum_r rel disc(r) nov(i_r) / sum_r disc(r), disc(r) = 1/log2(r+2),
    for users with a relevant test item (an empty list: 0); others NaN."""
    stats = _needs_training(block, name)
    query, items, lengths = block.lists.cut(k)
    relevant, _values = _lookup(block.relevant, query, items, block.n_items)
    discount = 1.0 / np.log2(_positions(lengths) + 2.0)
    gained = np.bincount(
        query, weights=relevant * discount * novelty_of(stats, items), minlength=lengths.size
    )
    total = np.bincount(query, weights=discount, minlength=lengths.size)
    has_relevant = np.diff(block.relevant.offsets) > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(total > 0, gained / total, 0.0)
    values[~has_relevant] = np.nan
    return values, has_relevant


def _free_discovery(stats, items):
    users = stats.users
    with np.errstate(divide="ignore"):
        novelty = -np.log2(users[items] / stats.n_pairs)
    trained = users[users > 0]
    cold = users[items] == 0
    if cold.any():
        novelty[cold] = -np.log2(trained.min() / stats.n_pairs)
    return novelty


def _popularity_complement(stats, items):
    return 1.0 - stats.users[items] / stats.n_users


def expected_free_discovery(block, k):
    """Elliot's EFD: discounted -log2(m(i) / N_P) of the relevant recommended items; a cold
    item gets the largest novelty of a trained item."""
    return _expected_discovery(block, k, "efd", _free_discovery)


def expected_popularity_complement(block, k):
    """Elliot's EPC: discounted 1 - m(i) / N_U of the relevant recommended items (cold: 1)."""
    return _expected_discovery(block, k, "epc", _popularity_complement)


def mean_popularity_rank(block, k, popularity="users"):
    """LensKit's MeanPopRank: per list the mean popularity quantile q(i), the tie-averaged
    rank of the item's count among the trained items (ascending) over their number; 0 for
    an item without training interaction."""
    import scipy.stats

    stats = _needs_training(block, "mean_pop_rank")
    counts, _total = _popularity_counts(stats, popularity)
    trained = counts > 0
    quantile = np.zeros(counts.size)
    quantile[trained] = scipy.stats.rankdata(counts[trained]) / int(trained.sum())
    query, items, lengths = block.lists.cut(k)
    return _per_list_mean(query, quantile[items], lengths), _has_list(lengths)


# --- popularity bias of the lists against the groups (Elliot's PopRSP, PopREO) ----------

_TAIL_DEFAULTS = {
    "long_tail": "cumulative",
    "head_share": 0.8,
    "tail_ties": "head",
    "cold_items_in_tail": False,
}


def _groups(block, name, params):
    stats = _needs_training(block, name)
    tail = _long_tail(stats, *(params.get(key, value) for key, value in _TAIL_DEFAULTS.items()))
    head = (stats.users > 0) & ~tail
    return head, tail


def _in_history(block, query, items):
    if block.history is None:
        return np.zeros(query.size, dtype=bool)
    return _lookup(block.history, query, items, block.n_items)[0]


def pop_rsp_counts(block, k, **params):
    """Per group (head, tail): distinct recommended items of the group, summed over users,
    and the group's items each user has not trained on, summed over users."""
    head, tail = _groups(block, "pop_rsp", params)
    query, items, lengths = block.lists.cut(k)
    pairs = np.unique(query * np.int64(block.n_items) + items)
    listed = pairs % block.n_items
    users = int(np.count_nonzero(lengths))
    history = block.history
    if history is not None:  # the training items of the users with a list
        trained_items = history.items[(lengths > 0)[history.queries()]]
    else:
        trained_items = np.zeros(0, dtype=np.int64)
    counts = {}
    for group, members in (("head", head), ("tail", tail)):
        counts[f"listed_{group}"] = np.int64(members[listed].sum())
        counts[f"open_{group}"] = np.int64(
            users * int(members.sum()) - members[trained_items].sum()
        )
    return counts


def pop_reo_counts(block, k, **params):
    """Per group: relevant recommended items of the group, and relevant test items of the
    group not trained on, summed over users with a relevant test item."""
    head, tail = _groups(block, "pop_reo", params)
    query, items, _lengths = block.lists.cut(k)
    hit, _values = _lookup(block.relevant, query, items, block.n_items)
    hit_items = items[hit]
    relevant = block.relevant
    test_query = relevant.queries()
    open_test = ~_in_history(block, test_query, relevant.items)
    counts = {}
    for group, members in (("head", head), ("tail", tail)):
        counts[f"listed_{group}"] = np.int64(members[hit_items].sum())
        counts[f"open_{group}"] = np.int64((members[relevant.items] & open_test).sum())
    return counts


def group_disparity_value(merged, whole, **params):
    """std / mean of the two groups' rates listed / open (NumPy's population std): for
    two groups |P_head - P_tail| / (P_head + P_tail)."""
    rates = [merged[f"listed_{g}"] / merged[f"open_{g}"] for g in ("head", "tail")]
    return float(np.std(rates) / np.mean(rates))
