"""Displays of ranking metrics, in scikit-learn's Display style: metric@k curves,
interpolated precision-recall curves, per-query differences against a baseline, and
where a recommender's top-k slots go (the long-tail plot, the Lorenz curve).

Each Display is built with ``from_predictions`` (or ``from_estimator`` /
``from_comparison``), which computes its values with the library's own functions and
draws them; ``plot(ax=...)`` draws again, on a given axis to compare systems, and sets
``ax_`` and ``figure_``. matplotlib is an optional extra (``pip install
"sklearn-rank[plot]"``), imported only when a Display draws: importing this package
does not import it. Imports every folder below it, and matplotlib inside functions.
"""

from ._difference import PerQueryDifferenceDisplay
from ._exposure import LongTailDisplay, LorenzCurveDisplay
from ._metric_at_k import MetricAtKDisplay
from ._precision_recall import InterpolatedPrecisionRecallDisplay

__all__ = [
    "InterpolatedPrecisionRecallDisplay",
    "LongTailDisplay",
    "LorenzCurveDisplay",
    "MetricAtKDisplay",
    "PerQueryDifferenceDisplay",
]
