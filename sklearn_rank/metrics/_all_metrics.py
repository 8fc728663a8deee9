"""Every metric `evaluate` accepts by name, from one mapping: the ranking metrics
(`_registry.METRICS`: a reduction over each query's tie groups, a public function each)
and the beyond-accuracy measures (`_beyond_registry.BEYOND_METRICS`: what was recommended,
over the lists and the catalog). The name reader (`_names`), `get_metric_names` and the
tests read this mapping, so a name listed is a name `evaluate` takes, and every entry of
either registry is listed.
"""

from ._beyond_registry import BEYOND_METRICS
from ._registry import METRICS

#: Registry entries by name: the ranking metrics, then the beyond-accuracy measures.
ALL_METRICS = {**METRICS, **BEYOND_METRICS}
if len(ALL_METRICS) != len(METRICS) + len(BEYOND_METRICS):  # pragma: no cover
    raise ImportError("a beyond-accuracy measure has the name of a ranking metric")


def get_metric_names():
    """Names accepted by `evaluate`, with ``@K`` where a cut-off applies.

    Every metric of the registry: the ranking metrics (``ndcg``, ``map``, trec_eval's
    measures, the click-log estimators...) and the beyond-accuracy measures
    (``coverage``, ``novelty``, ``diversity``..., which read ``train=``,
    ``item_features=`` or the catalog: docs/beyond_accuracy.md). trec_eval's and
    ir_measures' spellings of the same metrics are accepted too (docs/metrics.md, "Names").

    Returns
    -------
    names : list of str
        Sorted metric names; ``K`` stands for any positive integer.

    Examples
    --------
    >>> from sklearn_rank import get_metric_names
    >>> "ndcg@K" in get_metric_names()
    True
    >>> "coverage@K" in get_metric_names()
    True
    """
    names = []
    for metric in ALL_METRICS.values():
        if not metric.needs_k:
            names.append(metric.name)
        if metric.takes_k:
            names.append(metric.name + "@K")
    return sorted(names)
