"""The beyond-accuracy metrics on an engine: the side inputs made once on the driver (the
training popularity over the whole training data, the catalog, the item features) and
each partition's partial counts of the corpus-level metrics, which the driver adds."""

import numpy as np

from ..inputs import ItemJudgments, ItemRanking
from ._tables import ITEM, QUERY, RELEVANCE, _ids, _in_tables, _scores, _split


def _corpus_partials(frame, spec):
    """label -> partial counts of the corpus-level requests over one partition's lists
    (an empty dict for a partition without rows)."""
    run, truth, run_table, truth_table = _split(frame, spec)
    if not len(run):
        return {}
    score = _scores(run, spec, run_table)
    relevance = None
    if not (spec.two_tables and spec.columns["relevance"] is None):
        relevance = truth[RELEVANCE].to_numpy(dtype=np.float64)
    try:
        return spec.corpus.partials(
            ItemJudgments(_ids(truth[QUERY].to_numpy()), _ids(truth[ITEM].to_numpy()), relevance),
            ItemRanking(_ids(run[QUERY].to_numpy()), _ids(run[ITEM].to_numpy()), score),
            spec.side_inputs,
        )
    except ValueError as error:
        raise ValueError(_in_tables(str(error), run_table, truth_table)) from None


# The beyond-accuracy measures that read each user's training items: engines would need
# the training table shuffled with the queries, which they do not do.
_NEEDS_HISTORY = ("serendipity", "pop_rsp", "pop_reo")


def _side_on_driver(spec, train, item_features, catalog, per_query, engine, aggregate):
    """``spec`` with the beyond-accuracy side inputs (`_Spec.with_side`), the catalog
    size, the training popularity (once, over the whole training data) and the labels in
    the order named. ``aggregate(train)``: per item id its rows and users, and the users,
    of an engine's training table (None: ``train`` is in memory, as `evaluate` takes it)."""
    order = list(spec.labels)
    if not spec.plan.reads_lists:
        if train is not None or item_features is not None or catalog is not None:
            raise ValueError(
                "train=, item_features= and catalog= are read by the beyond-accuracy "
                "metrics only (coverage, novelty...); none of them is requested."
            )
        return spec, None, None, order
    for request in spec.requests:
        name, similarity = request.metric.name, request.params.get("similarity")
        if name in _NEEDS_HISTORY or (name == "diversity" and similarity == "cooccurrence"):
            raise ValueError(
                f"{request.label} reads each user's training items, which {engine} does not "
                "bring to the partitions: compute it with sklearn_rank.evaluate."
            )
    if catalog is None and train is None:
        raise ValueError(
            "these metrics need the catalog: pass catalog= (the number of items, or their ids)."
        )
    popularity, n_items = None, None
    aggregated = None if train is None else aggregate(train)
    if aggregated is not None:
        if catalog is None:
            raise ValueError("With a training table, pass catalog= (its items' ids).")
        popularity, n_items = spec.plan.popularity_of_counts(*aggregated, catalog)
    elif train is not None:
        popularity, n_items = spec.plan.training_popularity(train, catalog)
    else:
        n_items = catalog if isinstance(catalog, (int, np.integer)) else len(catalog)
    side_inputs = {"catalog": catalog if catalog is not None else n_items}
    side_inputs.update(item_features=item_features, popularity=popularity)
    spec = spec.with_side(side_inputs)
    if spec.corpus is not None and per_query:
        raise ValueError(
            f"{spec.corpus.labels[0]} is corpus-level: one value for all users together, "
            "no value per user. Compute it without per_query."
        )
    return spec, n_items, popularity, order
