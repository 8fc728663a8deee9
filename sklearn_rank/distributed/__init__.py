"""The same numbers on a cluster: `evaluate` for Dask and Spark DataFrames.

Each engine brings the rows of every query together (a shuffle on the query column),
each partition ranks all its queries at once with the in-memory kernel, and only a small
per-query table travels back, where the library's own aggregator takes the mean. Dask
and pyspark are optional extras, imported when a function is called:
``pip install "sklearn-rank[dask]"`` or ``"sklearn-rank[spark]"``.
"""

from ._dask import evaluate_dask
from ._spark import evaluate_spark

__all__ = ["evaluate_dask", "evaluate_spark"]
