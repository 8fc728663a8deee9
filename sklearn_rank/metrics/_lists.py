"""The beyond-accuracy requests of one call: per-user values and corpus-level values.

The training popularity is computed once over the whole training data; then the queries'
lists are cut into blocks of consecutive queries (``n_jobs``), each block is reduced on a
thread, and

- a per-user measure's values are joined in query order, then aggregated as every
  per-query value is (`_aggregate`; an empty list has none and is left out);
- a corpus-level measure's blocks give partial counts, added in block order (integers:
  exact), and its value is computed once from their sum. A Dask or Spark partition's
  partial counts merge the same way (`merge_partials`).
"""

import numpy as np

from ..conventions._beyond import _preset_arguments
from ..utils._threads import _block_runner
from ._aggregate import _aggregate
from ._beyond import _Block, _merged, _popularity
from ._beyond_similarity import _item_vectors, _vectors_needed
from ._registry import _bounds, _within_bounds


def _arguments(request, convention=None, side=None):
    """The request's parameters: defaults, then the framework preset's, then its own."""
    present = () if side is None or side.features is None else ("features",)
    return _preset_arguments(convention, request.metric.name, request.params, present)


def _greater_is_better(request, convention=None):
    """A request's direction: its registry entry's, except where a parameter turns the
    measure around (in the name or from a framework's preset): Gini with
    ``complement=True`` is 1 - G, a diversity (1 for equal exposure); diversity with
    ``form="similarity"`` (LensKit's ILS) is a similarity, lower for a more diverse list
    (a Hamming distance stays a distance). Scorers, comparisons and their tables read it."""
    entry = request.metric
    if getattr(entry, "level", "query") == "query" or entry.name not in ("gini", "diversity"):
        return entry.greater_is_better
    try:
        arguments = _preset_arguments(convention, entry.name, request.params)
    except ValueError:  # a preset without the measure: refused when it is computed
        return entry.greater_is_better
    if entry.name == "gini":
        return bool(arguments["complement"])
    return arguments["form"] != "similarity" or arguments["similarity"] == "hamming"


def _is_corpus(request, arguments):
    """Whether the request's value is merged from counts (novelty averaged over slots too)."""
    return request.metric.level == "corpus" or arguments.get("average") == "slots"


def _refuse_as_the_framework(request, convention, side):
    """Where the framework of ``convention`` raises, its preset refuses with a message."""
    if convention is None:
        return
    lengths = np.diff(side.lists.offsets)
    if convention == "lenskit" and request.metric.name == "coverage" and request.k is not None:
        # LensKit's UniqueItemCount has no cut-off: it counts the lists as given
        # (BEYOND.md, section 3). @k promises a cut it does not make, unless none cuts.
        longer = int((lengths > request.k).sum())
        if longer:
            raise ValueError(
                f"convention='lenskit': LensKit's UniqueItemCount counts the lists as given, "
                f"never cut at a k, and {longer} lists are longer than {request.k}. Ask for "
                f"'coverage' (no @k) for LensKit's count of the whole lists, cut the lists "
                f"to {request.k} items first, or drop the preset for coverage@{request.k}."
            )
    if convention == "recbole" and request.k is not None and (lengths < request.k).any():
        raise ValueError(
            f"convention='recbole': {request.label} needs every list to hold at least "
            f"{request.k} items (RecBole's recommendations are a users x k matrix); "
            f"{int((lengths < request.k).sum())} lists are shorter."
        )
    if convention == "elliot" and request.metric.name in ("popularity", "aplt"):
        if (lengths == 0).any():
            raise ValueError(
                f"convention='elliot': {request.label} of an empty list divides by zero in "
                f"Elliot (ZeroDivisionError); {int((lengths == 0).sum())} lists are empty."
            )
    if convention == "elliot" and request.metric.name in ("pop_rsp", "pop_reo"):
        # Elliot reads its training dict at every recommended user (PopREO: those with a
        # relevant test item): a user without training rows is a KeyError there.
        read = lengths > 0
        if request.metric.name == "pop_reo" and side.relevant is not None:
            read &= np.diff(side.relevant.offsets) > 0
        if side.history is not None:
            untrained = read & (np.diff(side.history.offsets) == 0)
            if untrained.any():
                raise ValueError(
                    f"convention='elliot': {request.label} of a user without training "
                    f"interactions fails in Elliot (KeyError on its training data); "
                    f"{int(untrained.sum())} users have none."
                )


def _list_cut(requests, convention=None):
    """The cut-off the recommended lists are cut at when the side inputs are made: the
    largest of the requests', or None (whole lists) when one reads whole lists: a request
    without a cut-off, or LensKit's item count, whose refusal reads the lists' lengths."""
    cut_offs = [r.k for r in requests]
    lenskit_count = convention == "lenskit" and any(r.metric.name == "coverage" for r in requests)
    return None if None in cut_offs or lenskit_count else max(cut_offs)


def _blocks(side, popularity, n_threads, vectors=None):
    """Blocks of consecutive queries' lists, one per thread."""
    n_queries = side.lists.n_queries
    n_blocks = max(1, min(n_threads, n_queries))
    cuts = np.linspace(0, n_queries, n_blocks + 1).astype(np.int64)
    return [
        _Block(
            side.lists.block(int(a), int(b)),
            side.n_items,
            popularity,
            side.features,
            None if side.relevant is None else side.relevant.block(int(a), int(b)),
            None if side.history is None else side.history.block(int(a), int(b)),
            vectors,
        )
        for a, b in zip(cuts[:-1], cuts[1:])
    ]


def _whole(side, popularity):
    return _Block(None, side.n_items, popularity, side.features)


def corpus_value(request, parts, side, popularity, arguments):
    """A corpus-level request's value from its parts' partial counts (threads' blocks,
    engines' partitions), within the range the registry documents."""
    metric = request.metric
    with np.errstate(invalid="ignore", divide="ignore"):
        value = metric.corpus_value(_merged(parts), _whole(side, popularity), **arguments)
    return float(_within_bounds(np.float64(value), _bounds(metric.value_range)))


def _compute_lists(requests, side, weights, per_query, n_threads=1, convention=None):
    """label -> value (or per-query values) of the beyond-accuracy ``requests``."""
    popularity = side.popularity  # an engine's, over its whole training table
    if popularity is None:
        popularity = _popularity(side.training, side.n_items)  # over the whole training data
    # Item vectors of the similarities read (diversity, serendipity): once, whole input.
    chosen = {r.label: _arguments(r, convention, side) for r in requests}
    vectors = {kind: _item_vectors(kind, side) for kind in _vectors_needed(requests, chosen)}
    blocks = _blocks(side, popularity, n_threads, vectors)
    results = {}
    with _block_runner(len(blocks), n_threads) as run:
        for request in requests:
            metric, label = request.metric, request.label
            arguments = chosen[label]
            _refuse_as_the_framework(request, convention, side)

            def reduce(block, metric=metric, k=request.k, arguments=arguments):
                with np.errstate(invalid="ignore", divide="ignore"):
                    return metric.reduce(block, k, **arguments)

            parts = run(reduce, blocks)
            if _is_corpus(request, arguments):
                if per_query:
                    raise ValueError(
                        f"{label} is corpus-level: one value for all users together, no "
                        "value per user. Compute it without per_query, or ask for a "
                        "per-user measure (novelty, popularity, aplt, aclt)."
                    )
                if weights is not None:
                    raise ValueError(
                        f"{label} is corpus-level (counts over every user's list): "
                        "sample_weight does not apply to it."
                    )
                results[label] = corpus_value(request, parts, side, popularity, arguments)
                continue
            values, has_value = zip(*parts)
            values, has_value = np.concatenate(values), np.concatenate(has_value)
            results[label] = _aggregate(values, has_value, "skip", weights, per_query, label)
    return results


# --- the engines' side: partial counts per partition, merged on the driver --------------


def _corpus_requests(requests, convention):
    """The requests whose value is merged from partial counts (corpus-level)."""
    return [
        r
        for r in requests
        if r.metric.level != "query" and _is_corpus(r, _arguments(r, convention))
    ]


def _partials(requests, side, convention):
    """label -> the partial counts of ``side``'s lists (one partition) of each corpus-level
    request, to be added over partitions (`_values_of_partials`)."""
    popularity = side.popularity
    if popularity is None:
        popularity = _popularity(side.training, side.n_items)
    (block,) = _blocks(side, popularity, 1)
    out = {}
    for request in requests:
        _refuse_as_the_framework(request, convention, side)
        arguments = _arguments(request, convention, side)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[request.label] = request.metric.reduce(block, request.k, **arguments)
    return out


def _values_of_partials(requests, parts, n_items, popularity, convention):
    """label -> value of each corpus-level request from its partitions' partial counts
    (``parts``: a list of label -> partial dicts, partitions without lists left out)."""
    from ..inputs._side import _Lists, _Side

    empty = _Lists(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64))
    side = _Side(empty, n_items, None, None, popularity=popularity)
    out = {}
    for request in requests:
        found = [part[request.label] for part in parts if request.label in part]
        if not found:
            raise ValueError(f"{request.label}: no recommended list in any partition.")
        arguments = _arguments(request, convention, side)
        out[request.label] = corpus_value(request, found, side, popularity, arguments)
    return out


def _popularity_of_counts(item_ids, rows, users, n_users, catalog):
    """`_Popularity` from per-item training rows and users (an engine's aggregation)."""
    from ..inputs._side import _catalog
    from ._beyond import _Popularity

    found = _catalog(catalog, None, None)
    codes = found.codes(item_ids, "train")
    interactions = np.zeros(found.n_items)
    distinct = np.zeros(found.n_items)
    interactions[codes] = rows
    distinct[codes] = users
    popularity = _Popularity(
        interactions, distinct, float(interactions.sum()), int(n_users), int(distinct.sum())
    )
    return popularity, found.n_items
