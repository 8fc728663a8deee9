"""The seam between the metrics and everything above them: one plan per call site.

A plan holds what one call computes: the parsed requests, the resolved conventions, and
(once an input is known) the statistics over the whole input that the requested metrics
need (`_statistics`). `evaluate`, the scorers, a comparison, the training-time adapters
and the engines' specs each make one plan, prepare their input once through it
(`inputs._prepared`), and compute through it; none of them reaches into the pipeline's
stages (`_evaluate`). docs/architecture.md draws it.
"""

import dataclasses

from ..inputs._side import _training_of
from ._beyond import _popularity
from ._evaluate import (
    _compute,
    _compute_queries,
    _no_relevant_rule,
    _prepare,
    _table_means,
    _warn_skipped,
)
from ._lists import _corpus_requests, _partials, _popularity_of_counts, _values_of_partials
from ._names import _Request, _requests
from ._statistics import _filled, _needed, _with_statistics_of


@dataclasses.dataclass(frozen=True)
class _Plan:
    """What one call computes.

    requests : tuple of `_Request` (label, registry entry, cut-off, parameters).
    conventions : the resolved conventions (`sklearn_rank.conventions.resolve`).
    """

    requests: tuple
    conventions: dict

    def __post_init__(self):
        requests = tuple(r if isinstance(r, _Request) else _Request(*r) for r in self.requests)
        object.__setattr__(self, "requests", requests)

    @classmethod
    def from_names(cls, metrics, conventions, canonical_labels=False):
        """Parse metric names and resolve conventions as `evaluate` takes them (a name
        given twice is computed once; a preset's default cut-off fills names without one).
        ``canonical_labels``: label requests ``"ndcg@10"`` whatever the spelling given."""
        requests, resolved = _requests(metrics, conventions, canonical_labels)
        return cls(tuple(requests), resolved)

    @property
    def labels(self):
        return [r.label for r in self.requests]

    # --- statistics over the whole input ----------------------------------------------

    @property
    def statistics(self):
        """The statistics over the whole input that some request still needs (its
        parameter left at None), each once."""
        return _needed(self.requests)

    def with_statistics(self, values):
        """This plan with the statistics' values filled in (``values``: name -> the
        whole input's value, as a statistic's ``merge`` gives it; None: nothing found)."""
        return dataclasses.replace(self, requests=tuple(_filled(self.requests, values)))

    def for_queries(self, queries, n_threads=1):
        """This plan with the statistics of ``queries`` (a `_Queries`: the whole input)."""
        return dataclasses.replace(
            self, requests=tuple(_with_statistics_of(self.requests, queries, n_threads))
        )

    # --- preparing and computing ------------------------------------------------------

    def prepare(
        self,
        y_true,
        y_score,
        *,
        groups=None,
        exclude=None,
        sample_weight=None,
        n_threads=1,
        side_inputs=None,
    ):
        """The input normalised once and checked for these requests: a `_Prepared`
        (``side_inputs``: ``train``, ``item_features``, ``catalog`` of the
        beyond-accuracy measures)."""
        return _prepare(
            self.requests,
            y_true,
            y_score,
            groups,
            exclude,
            sample_weight,
            self.conventions,
            n_threads,
            side_inputs,
        )

    def run(self, prepared, *, per_query=False, table=False, n_threads=1, checked=True):
        """Every request on a prepared input (`prepare`, or queries whose scores
        `inputs._prepared._with_scores` replaced): label -> mean, or per-query values, or
        a `_Table` with ``table=True``. ``checked=False``: the relevance is checked for
        these requests first (queries from `inputs._prepared._queries_of_sizes`)."""
        return _compute_queries(
            list(self.requests),
            prepared.queries,
            prepared.weights,
            per_query,
            self.conventions,
            prepared.recommender_form,
            checked,
            ids=prepared.ids,
            table=table,
            n_threads=n_threads,
            side=prepared.side,
        )

    def evaluate(
        self,
        y_true,
        y_score,
        *,
        groups=None,
        exclude=None,
        sample_weight=None,
        per_query=False,
        table=False,
        n_jobs=None,
        side_inputs=None,
    ):
        """`prepare` then `run`, as `evaluate` does (``n_jobs`` checked here)."""
        return _compute(
            list(self.requests),
            y_true,
            y_score,
            groups=groups,
            exclude=exclude,
            sample_weight=sample_weight,
            per_query=per_query,
            conventions=self.conventions,
            table=table,
            n_jobs=n_jobs,
            side_inputs=side_inputs,
        )

    def no_relevant_rule(self, metric, recommender_form=False):
        """The ``no_relevant`` value of ``metric`` (a registry entry) under this plan's
        conventions, for a recommender's input form or another
        (`inputs._prepared._is_recommender_form`)."""
        return _no_relevant_rule(self.conventions, metric, recommender_form)

    # --- corpus-level metrics on engines ----------------------------------------------

    def corpus_split(self):
        """(this plan without the corpus-level requests, a plan of those alone or None):
        an engine gathers per-query values of the first and partial counts of the second."""
        convention = self.conventions.get("convention")
        corpus = _corpus_requests(self.requests, convention)
        labels = {r.label for r in corpus}
        rest = tuple(r for r in self.requests if r.label not in labels)
        return (
            dataclasses.replace(self, requests=rest),
            dataclasses.replace(self, requests=tuple(corpus)) if corpus else None,
        )

    def partials(self, y_true, y_score, side_inputs):
        """label -> partial counts of one partition's lists (corpus-level requests)."""
        prepared = self.prepare(y_true, y_score, side_inputs=side_inputs)
        return _partials(self.requests, prepared.side, self.conventions.get("convention"))

    def corpus_values(self, parts, n_items, popularity):
        """label -> value from the partitions' partial counts (`partials`), added."""
        return _values_of_partials(
            self.requests, parts, n_items, popularity, self.conventions.get("convention")
        )

    @staticmethod
    def training_popularity(train, catalog):
        """(the item popularity of the whole of ``train``, the catalog size): an
        engine's driver hands both to every partition."""
        training, n_items = _training_of(train, catalog)
        return _popularity(training, n_items), n_items

    @staticmethod
    def popularity_of_counts(item_ids, rows, users, n_users, catalog):
        """(the item popularity, the catalog size) from a training table aggregated by an
        engine: per item id its rows and its distinct users, and the distinct users."""
        return _popularity_of_counts(item_ids, rows, users, n_users, catalog)

    @property
    def reads_lists(self):
        """Whether a request reads the recommended items (a beyond-accuracy measure)."""
        return any(r.metric.level != "query" for r in self.requests)

    @staticmethod
    def means(table):
        """The mean of each metric of a `_Table` (a sum or a geometric mean for the
        metrics aggregated so), as `run` gives it without per_query."""
        return _table_means(table)

    @staticmethod
    def warn_skipped(skipped, n_queries):
        """Say what the default did with the queries without a relevant item (`_warn_skipped`)."""
        _warn_skipped(skipped, n_queries)
