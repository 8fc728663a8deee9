"""`PerQueryDifferenceDisplay`: per-query differences of a run against a baseline."""

import numpy as np

from ..inputs import query_ids
from ..metrics import evaluate
from ..metrics._names import _parse_name
from ..utils._validation import _shown
from ._base import (
    _axes,
    _check_ax,
    _check_matplotlib,
    _check_style,
    _convention_label,
    _conventions,
    _label_axes,
    _style,
)

_TICK_LABELS = 30  # queries named on the axis up to this many
# What from_comparison reads of a Comparison: checked by attribute, so that any object
# with this contract works wherever the Comparison class lives.
_COMPARISON_ATTRIBUTES = ("per_query", "run_names", "query_ids", "baseline")


class PerQueryDifferenceDisplay:
    """Per-query differences of a run against a baseline, sorted: the IR paper's bars.

    One bar per query, its height the run's metric minus the baseline's on that query,
    sorted from the largest gain to the largest loss; the legend counts the queries the
    run wins, loses and ties. Build it with `from_predictions` (two score arrays) or
    `from_comparison` (a `Comparison` of the comparison functions); `plot` draws the
    stored arrays. Queries whose value is NaN in either run (``no_relevant="skip"``) are
    left out. Needs matplotlib (``pip install "sklearn-rank[plot]"``).

    Parameters
    ----------
    differences : ndarray of shape (n_queries,)
        Run minus baseline, per query, in query order.
    query_ids : ndarray of shape (n_queries,)
        The query of each difference.
    metric : str
        The metric's name, such as ``"ndcg@10"``; it labels the axis.
    name : str, default=None
        Name of the run.
    baseline_name : str, default=None
        Name of the baseline.
    convention_label : str, default=None
        The conventions in force, shown in the axis label.

    Attributes
    ----------
    bars_ : matplotlib BarContainer
        The bars, in sorted order.
    order_ : ndarray of shape (n_queries,)
        The positions of ``differences`` in drawing order (largest first).
    ax_ : matplotlib Axes
        The axes holding the bars.
    figure_ : matplotlib Figure
        The figure holding the axes.

    See Also
    --------
    MetricAtKDisplay, InterpolatedPrecisionRecallDisplay

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from sklearn_rank import PerQueryDifferenceDisplay
    >>> y_true = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    >>> new = [[0.9, 0.5, 0.1], [0.1, 0.9, 0.5], [0.9, 0.5, 0.1]]
    >>> old = [[0.5, 0.9, 0.1], [0.1, 0.9, 0.5], [0.1, 0.5, 0.9]]
    >>> display = PerQueryDifferenceDisplay.from_predictions(
    ...     y_true, new, old, metric="mrr", name="new", baseline_name="old")
    >>> display.differences
    array([ 0.5       ,  0.        , -0.66666667])
    >>> display.query_ids[display.order_]
    array([0, 1, 2])
    >>> plt.close("all")
    """

    def __init__(
        self,
        differences,
        query_ids,
        *,
        metric,
        name=None,
        baseline_name=None,
        convention_label=None,
    ):
        self.differences = np.asarray(differences, dtype=np.float64)
        self.query_ids = np.asarray(query_ids)
        self.metric = metric
        self.name = name
        self.baseline_name = baseline_name
        self.convention_label = convention_label

    def plot(self, ax=None, *, name=None, bar_kwargs=None, **kwargs):
        """Draw the sorted bars.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        name : str, default=None
            Name of the run in the legend; None uses the Display's ``name``.
        bar_kwargs : dict, default=None
            Properties of the bars, passed to ``ax.bar`` (``color`` replaces the colours
            of gains and losses).
        **kwargs : dict
            Bar properties as keyword arguments.

            .. deprecated:: 0.2
                Passing them as keyword arguments is deprecated in 0.2 and will be removed
                in 0.4 (a FutureWarning says so); pass ``bar_kwargs`` instead.

        Returns
        -------
        display : PerQueryDifferenceDisplay
            ``self``, with ``bars_``, ``order_``, ``ax_`` and ``figure_`` set.
        """
        caller = f"{type(self).__name__}.plot"
        _check_matplotlib(caller)
        _check_ax(caller, ax)
        bar_kwargs = _style(caller, "bar_kwargs", bar_kwargs, kwargs)
        ax = _axes(ax)
        name = (self.name if name is None else name) or "run"
        baseline = self.baseline_name or "baseline"
        self.order_ = np.argsort(-self.differences, kind="stable")
        drawn = self.differences[self.order_]
        wins, losses = int((drawn > 0).sum()), int((drawn < 0).sum())
        label = (
            f"{name} vs {baseline}: {wins} better, {losses} worse, "
            f"{drawn.size - wins - losses} equal"
        )
        colors = np.where(drawn > 0, "tab:blue", np.where(drawn < 0, "tab:red", "tab:gray"))
        style = {"width": 0.8 if drawn.size <= 50 else 1.0, "color": colors, "label": label}
        positions = np.arange(drawn.size)
        self.bars_ = ax.bar(positions, drawn, **{**style, **bar_kwargs})
        ax.axhline(0.0, color="black", linewidth=0.8)
        if 0 < drawn.size <= _TICK_LABELS:
            ax.set_xticks(positions)
            ax.set_xticklabels([str(q) for q in self.query_ids[self.order_]], rotation=90)
            xlabel = "query, sorted by difference"
        else:
            ax.set_xticks([])
            xlabel = f"{drawn.size} queries, sorted by difference"
        quantity = f"{self.metric}: {name} - {baseline}"
        _label_axes(ax, xlabel, quantity, self.convention_label)
        # Above the axes: inside, the legend would cover the largest bars (the first).
        ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), frameon=False, fontsize="small")
        self.ax_, self.figure_ = ax, ax.figure
        return self

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        y_score_baseline,
        *,
        metric,
        groups=None,
        exclude=None,
        name=None,
        baseline_name=None,
        ax=None,
        bar_kwargs=None,
        **conventions,
    ):
        """Per-query differences of two runs' scores on the same judgments, plotted.

        Parameters
        ----------
        y_true, groups, exclude
            As for `evaluate`; every input form is accepted.
        y_score : array-like, list or ItemRanking
            The run's scores.
        y_score_baseline : array-like, list or ItemRanking
            The baseline's scores, in the same form. Queries are matched by id; with
            item ids, queries found in one run only are left out.
        metric : str
            A metric name, such as ``"ndcg@10"``.
        name, baseline_name : str, default=None
            Names in the labels ("run" and "baseline" when None).
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        bar_kwargs : dict, default=None
            Passed to ``ax.bar``.
        **conventions
            ``convention`` and the convention parameters of `evaluate`.

        Returns
        -------
        display : PerQueryDifferenceDisplay
        """
        caller = f"{cls.__name__}.from_predictions"
        _check_matplotlib(caller)
        conventions = _conventions(caller, conventions)
        _check_ax(caller, ax)
        _check_style(caller, "bar_kwargs", bar_kwargs)
        entry = _parse_name(metric)[0]

        def per_query(scores):
            values = evaluate(
                y_true,
                scores,
                [metric],
                groups=groups,
                exclude=exclude,
                per_query=True,
                **conventions,
            )[metric]
            if groups is not None:
                ids = query_ids(groups)
            else:
                chosen = {
                    key: conventions[key]
                    for key in ("convention", "query_set")
                    if conventions.get(key) is not None
                }
                ids = query_ids(y_true, scores, **chosen)
            return values, ids

        run, ids = per_query(y_score)
        base, base_ids = per_query(y_score_baseline)
        if not (ids.shape == base_ids.shape and np.array_equal(ids, base_ids)):
            run, base, ids = _align(run, ids, base, base_ids)
        differences, ids = _paired_differences(run, base, ids)
        label = _convention_label(conventions, entry.conventions)
        display = cls(
            differences,
            ids,
            metric=metric,
            name=name,
            baseline_name=baseline_name,
            convention_label=label,
        )
        return display.plot(ax=ax, bar_kwargs=bar_kwargs)

    @classmethod
    def from_comparison(
        cls, result, *, run, metric, baseline=None, ax=None, bar_kwargs=None, **kwargs
    ):
        """Per-query differences of one run of a comparison against its baseline.

        Parameters
        ----------
        result : Comparison
            A comparison result: ``result.per_query[metric]`` is an array of shape
            (n_queries, n_runs), columns in ``result.run_names`` order and rows in
            ``result.query_ids`` order; ``result.baseline`` is a run name or None.
        run : str
            The run whose differences are drawn.
        metric : str
            A metric of the comparison.
        baseline : str, default=None
            The run to subtract; None uses ``result.baseline``.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        bar_kwargs : dict, default=None
            Passed to ``ax.bar``.
        **kwargs : dict
            Bar properties as keyword arguments.

            .. deprecated:: 0.2
                Passing them as keyword arguments is deprecated in 0.2 and will be removed
                in 0.4 (a FutureWarning says so); pass ``bar_kwargs`` instead.

        Returns
        -------
        display : PerQueryDifferenceDisplay
        """
        caller = f"{cls.__name__}.from_comparison"
        _check_matplotlib(caller)
        missing = [name for name in _COMPARISON_ATTRIBUTES if not hasattr(result, name)]
        if missing:
            raise TypeError(
                f"{caller}: result must be a Comparison (what compare and compare_search "
                f"return); got {_shown(result)}, which has no {', '.join(missing)}."
            )
        _check_ax(caller, ax)
        bar_kwargs = _style(caller, "bar_kwargs", bar_kwargs, kwargs)
        names = [str(n) for n in result.run_names]
        baseline = result.baseline if baseline is None else baseline
        if baseline is None:
            raise ValueError(
                "the comparison has no baseline: pass baseline= one of its runs "
                f"({', '.join(names)})."
            )
        for role, value in (("run", run), ("baseline", baseline)):
            if value not in names:
                raise ValueError(
                    f"{role} must be one of the comparison's runs ({', '.join(names)}); "
                    f"got {value!r}."
                )
        if run == baseline:
            raise ValueError(f"run and baseline are the same run, {run!r}.")
        if metric not in result.per_query:
            raise ValueError(
                f"metric must be one of the comparison's metrics "
                f"({', '.join(map(str, result.per_query))}); got {metric!r}."
            )
        values = np.asarray(result.per_query[metric], dtype=np.float64)
        differences, ids = _paired_differences(
            values[:, names.index(run)],
            values[:, names.index(baseline)],
            np.asarray(result.query_ids),
        )
        label = _comparison_label(result, metric)
        display = cls(
            differences,
            ids,
            metric=metric,
            name=run,
            baseline_name=baseline,
            convention_label=label,
        )
        return display.plot(ax=ax, bar_kwargs=bar_kwargs)


def _comparison_label(result, metric):
    """The conventions caption of a comparison's metric (None: not known, or a scorer's
    own name such as a search's dict key, which names no registry metric)."""
    conventions = (getattr(result, "conventions", None) or {}).get(metric)
    if conventions is None:
        return None
    try:
        entry, _k = _parse_name(metric)
    except ValueError:
        return None
    return _convention_label(conventions, entry.conventions)


def _paired_differences(run, baseline, ids):
    """run - baseline on the queries where both have a value."""
    both = ~(np.isnan(run) | np.isnan(baseline))
    return (run - baseline)[both], ids[both]


def _align(run, ids, baseline, baseline_ids):
    """The queries in both, in the run's order."""
    where = {query: position for position, query in enumerate(baseline_ids.tolist())}
    mine, theirs = [], []
    for position, query in enumerate(ids.tolist()):
        if query in where:
            mine.append(position)
            theirs.append(where[query])
    mine, theirs = np.array(mine, dtype=np.int64), np.array(theirs, dtype=np.int64)
    return run[mine], baseline[theirs], ids[mine]
