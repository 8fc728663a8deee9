"""Beyond-accuracy measures over item similarity: intra-list diversity and serendipity.

An item similarity is a dot product of item vectors, made once per call over the whole
input (`_item_vectors`): "cosine", the unit-normalised ``item_features`` rows (a zero row
stays zero: similarity 0, as LensKit); "cooccurrence", Microsoft Recommenders' item
similarity from the training data, cooc(i, j) / sqrt(c(i) c(j)) with cooc(i, j) = sum over
users of n_u(i) n_u(j), the dot product of the items' training columns each divided by
sqrt(c(i)). Sums over the pairs of a list then need no pair: sum_{p<q} g_p . g_q =
(|sum_p g_p|^2 - sum_p |g_p|^2) / 2. "hamming" (RecTools) counts the features in which two
items differ: a distance, computed pair by pair.
"""

import numpy as np

from ..utils._sparse import _issparse, _sparse

_NEEDS = {
    "cosine": "item_features= (one row of features per catalog item)",
    "hamming": "item_features= (one row of features per catalog item)",
    "cooccurrence": "train= (the training interactions)",
}


def _vectors_needed(requests, arguments):
    """The similarity kinds the requests read (``arguments``: label -> parameters)."""
    return {
        arguments[r.label]["similarity"]
        for r in requests
        if r.metric.name in ("diversity", "serendipity")
    }


def _item_vectors(kind, side):
    """(n_items, d) vectors whose dot products are the item similarity ``kind``."""
    if kind in ("cosine", "hamming"):
        if side.features is None:
            raise ValueError(f"similarity={kind!r} reads {_NEEDS[kind]}: pass it.")
        if kind == "hamming":
            features = side.features
            return features.toarray() if _issparse(features) else features
        features = side.features
        if _issparse(features):
            norms = np.sqrt(np.asarray(features.multiply(features).sum(axis=1)).ravel())
            scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
            return _sparse().csr_matrix(_sparse().diags(scale) @ features)
        norms = np.linalg.norm(features, axis=1)
        scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
        return features * scale[:, None]
    training = side.training
    if training is None:
        raise ValueError(f"similarity='cooccurrence' reads {_NEEDS[kind]}: pass it.")
    n_users = int(training.user_query.size)
    counts = _sparse().csr_matrix(
        (training.counts, (training.items, training.users)), shape=(side.n_items, n_users)
    )
    per_item = np.asarray(counts.sum(axis=1)).ravel()
    scale = np.divide(1.0, np.sqrt(per_item), out=np.zeros_like(per_item), where=per_item > 0)
    return _sparse().csr_matrix(_sparse().diags(scale) @ counts)


def _summed(vectors, query, items, n_lists):
    """Per list the sum of its items' vectors (n_lists x d) and of their squared norms."""
    indicator = _sparse().csr_matrix(
        (np.ones(items.size), (query, items)), shape=(n_lists, vectors.shape[0])
    )
    sums = indicator @ vectors
    if _issparse(vectors):
        squares = np.asarray(vectors.multiply(vectors).sum(axis=1)).ravel()
        sum_squares = np.asarray(sums.multiply(sums).sum(axis=1)).ravel()
    else:
        squares = np.einsum("ij,ij->i", vectors, vectors)
        sum_squares = np.einsum("ij,ij->i", sums, sums)
    return sum_squares, np.bincount(query, weights=squares[items], minlength=n_lists)


def _hamming_pair_sums(features, query, items, lengths):
    """Per list the sum over its pairs of positions of the number of differing features."""
    totals = np.zeros(lengths.size)
    starts = np.cumsum(lengths) - lengths
    for length in np.unique(lengths[lengths > 1]):
        lists = np.flatnonzero(lengths == length)
        first, second = np.triu_indices(int(length), 1)
        a = items[starts[lists][:, None] + first]
        b = items[starts[lists][:, None] + second]
        differ = (features[a] != features[b]).sum(axis=-1)
        totals[lists] = differ.sum(axis=1)
    return totals


def intra_list_diversity(block, k, similarity="cosine", form="diversity", single_item=None):
    """Per user, 1 - the mean similarity over unordered pairs of the list's positions
    (``form="similarity"``: the mean similarity, LensKit's ILS); "hamming": the mean
    number of differing features (RecTools). A list of one item: ``single_item`` (None:
    NaN, left out); an empty list: NaN."""
    vectors = block.similarity[similarity]
    query, items, lengths = block.lists.cut(k)
    pairs = lengths * (lengths - 1) / 2.0
    if similarity == "hamming":
        mean = _hamming_pair_sums(vectors, query, items, lengths)
    else:
        sum_squares, squares = _summed(vectors, query, items, lengths.size)
        mean = (sum_squares - squares) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = mean / pairs
    values = mean if similarity == "hamming" or form == "similarity" else 1.0 - mean
    values[lengths == 1] = np.nan if single_item is None else single_item
    values[lengths == 0] = np.nan
    return values, ~np.isnan(values)


def serendipity(block, k, similarity="cosine", relevance="truth"):
    """Microsoft Recommenders' serendipity: per recommended item, (1 - its mean similarity
    to the user's training rows) x its relevance; per user the mean over the list. Users
    without training rows or without a list: NaN, left out."""
    from ._beyond import _lookup

    vectors = block.similarity[similarity]
    query, items, lengths = block.lists.cut(k)
    history = block.history
    if history is None:
        raise ValueError("serendipity reads each user's training items: pass train=.")
    n_lists = lengths.size
    profile_matrix = _sparse().csr_matrix(
        (history.values, (history.queries(), history.items)), shape=(n_lists, vectors.shape[0])
    )
    profiles = profile_matrix @ vectors  # per user: sum of n_u(j) g_j
    rows = np.asarray(profile_matrix.sum(axis=1)).ravel()  # |H_u|, repeated rows counted
    if _issparse(vectors):
        dots = np.asarray(vectors[items].multiply(profiles[query]).sum(axis=1)).ravel()
    else:
        dots = np.einsum("ij,ij->i", vectors[items], profiles[query])
    with np.errstate(invalid="ignore", divide="ignore"):
        unexpected = 1.0 - dots / rows[query]
    if relevance == "all":
        weight = np.ones(items.size)
    else:
        _found, weight = _lookup(block.relevant, query, items, block.n_items)
    sums = np.bincount(query, weights=unexpected * weight, minlength=n_lists)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = sums / lengths
    values[(lengths == 0) | (rows == 0)] = np.nan
    return values, ~np.isnan(values)


def rank_serendipity(block, k):
    """RecTools' Serendipity: at list position r (1-based), max(rho(i) - r, 0) / n x the
    item's relevance, rho(i) the dense rank of its training rows (1: the most), n the
    catalog size; a cold item (n + 1 - r) / n x relevance. Per user the mean over its
    list; an empty list: NaN."""
    from ._beyond import _lookup, _needs_training, _positions

    stats = _needs_training(block, "rank_serendipity")
    counts = stats.interactions
    trained = counts > 0
    distinct = np.unique(counts[trained])[::-1]  # descending
    rho = np.zeros(counts.size)
    rho[trained] = np.searchsorted(-distinct, -counts[trained]) + 1.0
    query, items, lengths = block.lists.cut(k)
    position = _positions(lengths) + 1.0
    n = float(block.n_items)
    unexpected = np.where(
        trained[items], np.maximum(rho[items] - position, 0.0) / n, (n + 1.0 - position) / n
    )
    _found, relevance = _lookup(block.relevant, query, items, block.n_items)
    sums = np.bincount(query, weights=unexpected * (relevance > 0), minlength=lengths.size)
    with np.errstate(invalid="ignore", divide="ignore"):
        values = sums / lengths
    values[lengths == 0] = np.nan
    return values, lengths > 0
