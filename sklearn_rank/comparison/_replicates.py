"""Several runs per system (random seeds, restarts), for ``compare(..., replicates="mean")``.

Every replicate is evaluated as a run of its own (the judgments prepared once where the
input form allows it) and ``missing`` applied to it; a system's per-query value is then the
mean over its replicates, and systems are paired by query on those means. With a balanced
design this is the test of the system effect in the mixed model y = system + topic +
topic x system + error with topics random: F = MS_system / MS_topic x system is the paired
t-test's t squared on the means (tests/comparison/test_replicates.py checks it against
statsmodels). Pairing every (query, replicate) as if it were a query would not be: it is
pseudo-replication (Hurlbert, 1984), whose type I error is far above the level.
"""

import numpy as np

from ..inputs._prepared import _has_item_ids
from ..utils._validation import _shown
from ._align import _aligned, _fill_missing, _run_tables


def _split_replicates(runs):
    """{system: list of y_score} -> {"system[i]": y_score} and each system's count."""
    flat, counts = {}, []
    for name, replicates in runs.items():
        if not isinstance(replicates, (list, tuple)) or not replicates:
            raise ValueError(
                f"replicates='mean': runs[{name!r}] must be a non-empty list of y_score (the "
                f"system's replicates); got {_shown(replicates)}."
            )
        counts.append(len(replicates))
        for index, y_score in enumerate(replicates):
            flat[f"{name}[{index}]"] = y_score
    return flat, np.array(counts, dtype=np.int64)


def _replicate_matrices(
    y_true, replicates, counts, plan, groups, missing, n_threads=1, side_inputs=None
):
    """Per-query means over each system's replicates, aligned by query id.

    Returns the query ids, label -> (n_queries, n_systems) array, and for each system the
    number of queries that some replicate of it lacked (before ``missing`` applied).
    """
    tables = _run_tables(y_true, replicates, plan, groups, n_threads, side_inputs)
    first = next(iter(replicates.values()))
    query_ids, values, lacking, absent = _aligned(tables, _has_item_ids(y_true, first))
    names = list(replicates)
    query_ids, values = _fill_missing(query_ids, values, lacking, absent, names, missing)
    bounds = np.concatenate([[0], np.cumsum(counts)])
    spans = list(zip(bounds[:-1], bounds[1:]))
    means = {
        label: np.stack([matrix[:, start:stop].mean(axis=1) for start, stop in spans], axis=1)
        for label, matrix in values.items()
    }
    n_missing = np.array([lacking[:, start:stop].any(axis=1).sum() for start, stop in spans])
    return query_ids, means, n_missing.astype(np.int64)
