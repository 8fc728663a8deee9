"""The beyond-accuracy metrics on an engine: the side inputs made once on the driver (the
training popularity over the whole training data, the catalog, the item features) and
each partition's partial counts of the corpus-level metrics, which the driver adds."""

import dataclasses

import numpy as np

from ..conventions._beyond import _preset_arguments
from ..inputs import ItemJudgments, ItemRanking
from ._tables import ITEM, QUERY, RELEVANCE, _ids, _in_tables, _partition_side, _scores, _split


def _corpus_partials(frame, spec):
    """label -> partial counts of the corpus-level requests over one partition's lists
    (an empty dict for a partition without rows)."""
    frame, side_inputs = _partition_side(frame, spec)
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
            side_inputs,
        )
    except ValueError as error:
        raise ValueError(_in_tables(str(error), run_table, truth_table)) from None


# The beyond-accuracy measures that read each user's training items (beside the
# popularity of the whole training table).
_READS_HISTORY = ("serendipity", "pop_rsp", "pop_reo")


def _history_reads(spec, item_features):
    """What the requests read of the training data beyond the item popularity: "rows"
    (each user's own training rows: serendipity, PopRSP, PopREO), "whole" (the item
    co-occurrences over every training user: ``similarity="cooccurrence"``, also under
    a preset), or None."""
    convention = spec.conventions.get("convention")
    present = () if item_features is None else ("features",)
    reads = None
    for request in spec.requests:
        name = request.metric.name
        if name not in _READS_HISTORY and name != "diversity":
            continue
        try:
            arguments = _preset_arguments(convention, name, request.params, present)
        except ValueError:  # a preset without the measure: refused when it is computed
            continue
        if arguments.get("similarity") == "cooccurrence":
            return "whole"
        if name in _READS_HISTORY:
            reads = "rows"
    return reads


def _side_on_driver(spec, train, item_features, catalog, per_query, aggregate, collect):
    """``spec`` with the beyond-accuracy side inputs (`_Spec.with_side`), the catalog
    size, the training popularity (once, over the whole training data) and the labels in
    the order named. ``aggregate(train)``: per item id its rows and users, and the users,
    of an engine's training table (None: ``train`` is in memory, as `evaluate` takes it);
    ``collect(train)``: the table's (user ids, item ids) rows in memory (None: ``train``
    is in memory).

    Each user's training items (serendipity, PopRSP, PopREO) come from ``train`` handed
    to every partition when it is in memory; from a training table, its rows travel to
    their users' partitions with the queries' shuffle (``history_rows``: the engine
    adds them to the shuffled frame). The item co-occurrences of every training user
    (``similarity="cooccurrence"``) need the whole table in every partition: it is
    collected once and handed to each, as an in-memory ``train`` is."""
    order = list(spec.labels)
    if not spec.plan.reads_lists:
        if train is not None or item_features is not None or catalog is not None:
            raise ValueError(
                "train=, item_features= and catalog= are read by the beyond-accuracy "
                "metrics only (coverage, novelty...); none of them is requested."
            )
        return spec, None, None, order
    reads = _history_reads(spec, item_features)
    if catalog is None and train is None:
        raise ValueError(
            "these metrics need the catalog: pass catalog= (the number of items, or their ids)."
        )
    popularity, n_items = None, None
    collected = None if train is None or reads != "whole" else collect(train)
    aggregated = None if train is None or collected is not None else aggregate(train)
    if (aggregated is not None or collected is not None) and catalog is None:
        raise ValueError("With a training table, pass catalog= (its items' ids).")
    if collected is not None:
        train = collected  # every partition reads all of it
    if aggregated is not None:
        popularity, n_items = spec.plan.popularity_of_counts(*aggregated, catalog)
    elif train is not None:
        popularity, n_items = spec.plan.training_popularity(train, catalog)
    else:
        n_items = catalog if isinstance(catalog, (int, np.integer)) else len(catalog)
    side_inputs = {"catalog": catalog if catalog is not None else n_items}
    side_inputs.update(item_features=item_features, popularity=popularity)
    if reads is not None and train is not None and aggregated is None:
        side_inputs["train"] = train  # in memory: handed whole to every partition
    spec = spec.with_side(side_inputs)
    if reads is not None and aggregated is not None:
        spec = dataclasses.replace(spec, history_rows=True)
    if spec.corpus is not None and per_query:
        raise ValueError(
            f"{spec.corpus.labels[0]} is corpus-level: one value for all users together, "
            "no value per user. Compute it without per_query."
        )
    return spec, n_items, popularity, order
