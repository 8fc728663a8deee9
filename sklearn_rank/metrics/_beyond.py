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

    lists : the block's `inputs._side._Lists`.
    n_items : the catalog size.
    popularity : `_Popularity` of the whole training data, or None.
    features : item features (n_items rows) or None.
    """

    lists: object
    n_items: int
    popularity: _Popularity | None
    features: object


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


def novelty(block, k, popularity="users", cold_items="one_user", base=2.0):
    """Per user, the mean self-information -log(p(i)) of the recommended items, p(i) the
    share of training users (or rows) with item i (RecTools' mean inverse user frequency)."""
    stats = _needs_training(block, "novelty")
    query, items, lengths = block.lists.cut(k)
    counts, total = _popularity_counts(stats, popularity)
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
    values = _per_list_mean(query, information, lengths)
    return values, _has_list(lengths)


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
    _query, items, _lengths = block.lists.cut(k)
    return np.bincount(items, minlength=block.n_items)


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


def coverage_counts(block, k, normalize=True):
    return {"slots": _slot_counts(block, k)}


def coverage_value(merged, whole, normalize=True):
    """The distinct recommended items, over the catalog size with ``normalize``."""
    found = int(np.count_nonzero(merged["slots"]))
    return found / whole.n_items if normalize else float(found)


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
