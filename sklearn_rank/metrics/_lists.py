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

from ..utils._threads import _block_runner
from ._aggregate import _aggregate
from ._beyond import _Block, _merged, _popularity
from ._beyond_similarity import _item_vectors, _vectors_needed
from ._registry import _bounds, _within_bounds


def _arguments(request):
    return {p.name: request.params.get(p.name, p.default) for p in request.metric.parameters}


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


def corpus_value(request, parts, side, popularity):
    """A corpus-level request's value from its parts' partial counts (threads' blocks,
    engines' partitions), within the range the registry documents."""
    metric = request.metric
    with np.errstate(invalid="ignore", divide="ignore"):
        value = metric.corpus_value(_merged(parts), _whole(side, popularity), **_arguments(request))
    return float(_within_bounds(np.float64(value), _bounds(metric.value_range)))


def _compute_lists(requests, side, weights, per_query, n_threads=1):
    """label -> value (or per-query values) of the beyond-accuracy ``requests``."""
    popularity = _popularity(side.training, side.n_items)  # over the whole training data
    # Item vectors of the similarities read (diversity, serendipity): once, whole input.
    vectors = {kind: _item_vectors(kind, side) for kind in _vectors_needed(requests)}
    blocks = _blocks(side, popularity, n_threads, vectors)
    results = {}
    with _block_runner(len(blocks), n_threads) as run:
        for request in requests:
            metric, label, arguments = request.metric, request.label, _arguments(request)

            def reduce(block, metric=metric, k=request.k, arguments=arguments):
                with np.errstate(invalid="ignore", divide="ignore"):
                    return metric.reduce(block, k, **arguments)

            parts = run(reduce, blocks)
            if metric.level == "corpus":
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
                results[label] = corpus_value(request, parts, side, popularity)
                continue
            values, has_value = zip(*parts)
            values, has_value = np.concatenate(values), np.concatenate(has_value)
            results[label] = _aggregate(values, has_value, "skip", weights, per_query, label)
    return results
