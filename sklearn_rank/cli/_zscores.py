"""trec_eval's ``-Z zscores_file`` for the command line's trec_eval form: every value
standardized by its topic's mean and standard deviation (convert_zscores.c), from the code
of `ScoreStandardizer`."""

import math

import numpy as np


def _standardized(zscores, labels, values, topics):
    """trec_eval -Z: each topic's values replaced by their z from the zscores file, by
    the measure's printed name (convert_zscores.c), before printing and adding up.
    gm_map's per-topic values are trec_eval's logs (m_gm_map.c), its all line exp of
    their mean."""
    from ..comparison._standardize import _trec_eval_zscores
    from ..metrics._aggregate import _GEOMETRIC_FLOOR

    standardized = {}
    for label, request in labels.items():
        column = np.asarray(values[label], dtype=np.float64)
        if request.metric.aggregate == "geometric":  # gm_map, gm_bpref
            column = np.array([math.log(max(v, _GEOMETRIC_FLOOR)) for v in column.tolist()])
        standardized[label] = _trec_eval_zscores(zscores, label, column, topics).tolist()
    return standardized
