"""`MetricAtKDisplay`: a ranking metric against the cut-off k."""

import numpy as np

from ..metrics import metric_at_k_curve
from ..metrics._names import _parse_name
from ..model_selection._scorer import _ranking_scores
from ._base import (
    _axes,
    _check_ax,
    _check_matplotlib,
    _check_style,
    _convention_label,
    _conventions,
    _integer_ticks,
    _label_axes,
    _legend,
    _style,
)


class MetricAtKDisplay:
    """Metric@k curve: a ranking metric at every cut-off k = 1..k_max.

    Build it with `MetricAtKDisplay.from_predictions` or
    `MetricAtKDisplay.from_estimator`, which compute the curve with
    `metric_at_k_curve` and plot it. The constructor only stores the arrays; `plot`
    draws them. Several systems share one axis: pass ``ax=display.ax_`` to the next
    call. Needs matplotlib (``pip install "sklearn-rank[plot]"``).

    Parameters
    ----------
    ks : ndarray of shape (n_points,)
        The cut-offs.
    values : ndarray of shape (n_points,)
        The metric at each cut-off (the mean over queries).
    metric : str
        The metric's name without a cut-off, such as ``"ndcg"``; it labels the axis.
    name : str, default=None
        Name of the system in the legend.
    convention_label : str, default=None
        The conventions in force, shown in the axis label (``from_*`` set it).

    Attributes
    ----------
    line_ : matplotlib Line2D
        The curve.
    ax_ : matplotlib Axes
        The axes holding the curve.
    figure_ : matplotlib Figure
        The figure holding the axes.

    See Also
    --------
    metric_at_k_curve : the values behind this Display.
    InterpolatedPrecisionRecallDisplay, PerQueryDifferenceDisplay

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from sklearn_rank import MetricAtKDisplay
    >>> y_true = [[3, 2, 0, 1], [0, 0, 1, 1]]
    >>> y_score = [[0.9, 0.8, 0.1, 0.4], [0.2, 0.1, 0.7, 0.3]]
    >>> display = MetricAtKDisplay.from_predictions(
    ...     y_true, y_score, metric="precision", k_max=4, name="model")
    >>> display.ks
    array([1, 2, 3, 4])
    >>> display.values
    array([1.        , 1.        , 0.83333333, 0.625     ])
    >>> display.ax_.get_xlabel()
    'cut-off k\\n(ties=average, short_lists=k)'
    >>> plt.close("all")
    """

    def __init__(self, ks, values, *, metric, name=None, convention_label=None):
        self.ks = np.asarray(ks)
        self.values = np.asarray(values, dtype=np.float64)
        self.metric = metric
        self.name = name
        self.convention_label = convention_label

    def plot(self, ax=None, *, name=None, line_kwargs=None, **kwargs):
        """Draw the curve.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on (another Display's ``ax_`` to compare systems); None makes
            a new figure.
        name : str, default=None
            Name in the legend; None uses the Display's ``name``.
        line_kwargs : dict, default=None
            Properties of the line, passed to ``ax.plot`` (``color``, ``linestyle``...);
            they override the Display's own (label, markers).
        **kwargs : dict
            Line properties as keyword arguments.

            .. deprecated:: 0.2
                Passing them as keyword arguments is deprecated in 0.2 and will be removed
                in 0.4 (a FutureWarning says so); pass ``line_kwargs`` instead.

        Returns
        -------
        display : MetricAtKDisplay
            ``self``, with ``line_``, ``ax_`` and ``figure_`` set.
        """
        caller = f"{type(self).__name__}.plot"
        _check_matplotlib(caller)
        _check_ax(caller, ax)
        line_kwargs = _style(caller, "line_kwargs", line_kwargs, kwargs)
        ax = _axes(ax)
        name = self.name if name is None else name
        last = f"{self.metric}@{int(self.ks[-1])} = {self.values[-1]:.3f}"
        style = {"label": last if name is None else f"{name} ({last})"}
        if self.ks.size <= 30:
            style.update(marker="o", markersize=3)
        (self.line_,) = ax.plot(self.ks, self.values, **{**style, **line_kwargs})
        _label_axes(ax, "cut-off k", f"{self.metric}@k", self.convention_label)
        _integer_ticks(ax.xaxis)
        _legend(ax)
        self.ax_, self.figure_ = ax, ax.figure
        return self

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        metric="ndcg",
        k_max=20,
        groups=None,
        exclude=None,
        sample_weight=None,
        name=None,
        ax=None,
        line_kwargs=None,
        n_jobs=None,
        **conventions,
    ):
        """Compute the metric at k = 1..k_max of scores and plot it.

        Parameters
        ----------
        y_true, y_score, groups, exclude, sample_weight
            As for `evaluate`: every input form is accepted.
        metric : str, default="ndcg"
            A metric name without a cut-off (see `metric_at_k_curve`).
        k_max : int, default=20
            The largest cut-off.
        name : str, default=None
            Name of the system in the legend.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        line_kwargs : dict, default=None
            Passed to ``ax.plot``.
        n_jobs : int, default=None
            Threads for the computation, as in `metric_at_k_curve` (the values do not
            depend on it).
        **conventions
            ``convention`` and the convention parameters of `evaluate` (``ties``,
            ``gain``, ``ap_denominator``, ``no_relevant``, ``judged_only``...), as
            `metric_at_k_curve` takes them.

        Returns
        -------
        display : MetricAtKDisplay
        """
        caller = f"{cls.__name__}.from_predictions"
        _check_matplotlib(caller)
        conventions = _conventions(caller, conventions)
        _check_ax(caller, ax)
        _check_style(caller, "line_kwargs", line_kwargs)
        ks, values = metric_at_k_curve(
            y_true,
            y_score,
            metric,
            k_max=k_max,
            groups=groups,
            exclude=exclude,
            sample_weight=sample_weight,
            n_jobs=n_jobs,
            **conventions,
        )
        entry = _parse_name(metric)[0]
        label = _convention_label(conventions, entry.conventions)
        display = cls(ks, values, metric=metric, name=name, convention_label=label)
        return display.plot(ax=ax, line_kwargs=line_kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        groups,
        metric="ndcg",
        k_max=20,
        sample_weight=None,
        name=None,
        ax=None,
        line_kwargs=None,
        n_jobs=None,
        **conventions,
    ):
        """Score the rows of ``X`` with a fitted estimator, then plot the metric at k.

        Parameters
        ----------
        estimator : fitted estimator
            Its ``predict`` (a classifier's ``decision_function`` or probability of its
            last class) gives the scores that rank the rows of each query.
        X : array-like of shape (n_rows, n_features)
        y : array-like of shape (n_rows,)
            Relevance of every row.
        groups : array-like of shape (n_rows,)
            Query id of every row.
        metric, k_max, sample_weight, ax, line_kwargs, n_jobs, **conventions
            As in `from_predictions`.
        name : str, default=None
            Name in the legend; None uses the estimator's class name.

        Returns
        -------
        display : MetricAtKDisplay
        """
        caller = f"{cls.__name__}.from_estimator"
        _check_matplotlib(caller)
        _check_ax(caller, ax)  # before the estimator scores every row
        _check_style(caller, "line_kwargs", line_kwargs)
        return cls.from_predictions(
            y,
            _ranking_scores(estimator, X),
            metric=metric,
            k_max=k_max,
            groups=groups,
            sample_weight=sample_weight,
            name=type(estimator).__name__ if name is None else name,
            ax=ax,
            line_kwargs=line_kwargs,
            n_jobs=n_jobs,
            **conventions,
        )
