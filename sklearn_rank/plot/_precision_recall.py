"""`InterpolatedPrecisionRecallDisplay`: trec_eval's interpolated precision-recall curve."""

import warnings

import numpy as np

from ..conventions._declarations import resolve
from ..metrics._interpolated import DEFAULT_RECALL_LEVELS, _interpolated_precision
from ..model_selection._scorer import _ranking_scores
from ._base import (
    _axes,
    _check_ax,
    _check_matplotlib,
    _check_style,
    _convention_label,
    _conventions,
    _label_axes,
    _legend,
    _style,
)


class InterpolatedPrecisionRecallDisplay:
    """Interpolated precision at recall levels, averaged over queries (trec_eval).

    Per query, the interpolated precision at recall level p is trec_eval's
    ``iprec_at_recall_p``: with R relevant items, c = round(p R) of them must be
    ranked, and the value is the best precision at or after the c-th relevant item
    (the max of m / r_m over m >= max(c, 1), r_m the rank of the m-th relevant item),
    0 if fewer than c are ranked. trec_eval 10.0 rounds p R to the nearest integer,
    halves away from zero (``lround``); trec_eval 9.x and pytrec_eval compute
    ``(long)(p R + 0.9)``: the convention ``iprec_rounding`` picks the rule, as for
    `evaluate`. The curve is the mean over queries at each level (trec_eval's ``all``
    line), the values of ``evaluate(..., ["iprec(recall=p)", ...])``; over the 11 levels
    0, 0.1, ..., 1 its mean is trec_eval's ``11pt_avg`` (``iprec_avg``).

    With ``ties="average"`` (the default) each value is the exact expected value over
    the orderings of tied scores; with ``convention="trec_eval9"`` (stable ties broken
    by item id descending, float32 scores, ``iprec_rounding="plus_0.9"``) it reproduces
    pytrec_eval's ``iprec_at_recall``. A query with relevant items and an empty ranking
    scores 0 (trec_eval's NaN only arises with ``-J``). Queries without a relevant item
    follow ``no_relevant`` (default 0, as trec_eval).

    Build it with `from_predictions` or `from_estimator`; `plot` draws the stored
    arrays. Several systems share one axis: pass ``ax=display.ax_``. Needs matplotlib
    (``pip install "sklearn-rank[plot]"``).

    Parameters
    ----------
    recall : ndarray of shape (n_levels,)
        The recall levels.
    precision : ndarray of shape (n_levels,)
        The mean interpolated precision at each level.
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
    MetricAtKDisplay, PerQueryDifferenceDisplay

    References
    ----------
    .. [1] trec_eval, ``m_iprec_at_recall.c`` (https://github.com/usnistgov/trec_eval).
    .. [2] F. McSherry and M. Najork, "Computing Information Retrieval Performance
       Measures Efficiently in the Presence of Tied Scores", ECIR 2008.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from sklearn_rank import InterpolatedPrecisionRecallDisplay
    >>> y_true = [[1, 0, 1, 0, 1], [0, 1, 0, 0, 1]]
    >>> y_score = [[0.9, 0.8, 0.7, 0.6, 0.5], [0.9, 0.8, 0.7, 0.6, 0.5]]
    >>> display = InterpolatedPrecisionRecallDisplay.from_predictions(
    ...     y_true, y_score, recall_levels=[0.0, 0.5, 1.0], name="model")
    >>> display.precision
    array([0.75      , 0.58333333, 0.5       ])
    >>> plt.close("all")
    """

    def __init__(self, recall, precision, *, name=None, convention_label=None):
        self.recall = np.asarray(recall, dtype=np.float64)
        self.precision = np.asarray(precision, dtype=np.float64)
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
        display : InterpolatedPrecisionRecallDisplay
            ``self``, with ``line_``, ``ax_`` and ``figure_`` set.
        """
        caller = f"{type(self).__name__}.plot"
        _check_matplotlib(caller)
        _check_ax(caller, ax)
        line_kwargs = _style(caller, "line_kwargs", line_kwargs, kwargs)
        ax = _axes(ax)
        name = self.name if name is None else name
        eleven = np.array_equal(self.recall, DEFAULT_RECALL_LEVELS)
        mean = f"{'11-pt avg' if eleven else 'mean'} = {self.precision.mean():.3f}"
        style = {"label": mean if name is None else f"{name} ({mean})"}
        if self.recall.size <= 30:
            style.update(marker="o", markersize=3)
        (self.line_,) = ax.plot(self.recall, self.precision, **{**style, **line_kwargs})
        _label_axes(ax, "recall", "interpolated precision", self.convention_label)
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        _legend(ax)
        self.ax_, self.figure_ = ax, ax.figure
        return self

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        recall_levels=None,
        trec_eval_version=None,
        groups=None,
        exclude=None,
        sample_weight=None,
        name=None,
        ax=None,
        line_kwargs=None,
        **conventions,
    ):
        """Compute the interpolated precision at recall levels of scores and plot it.

        Parameters
        ----------
        y_true, y_score, groups, exclude, sample_weight
            As for `evaluate`: every input form is accepted. An item is relevant when
            ``y_true > 0`` (or ``>= relevance_threshold``).
        recall_levels : array-like of shape (n_levels,), default=None
            Recall levels in [0, 1]; None uses trec_eval's 11: 0.0, 0.1, ..., 1.0.
        trec_eval_version : {"10", "9"} or None, default=None
            Use the convention ``iprec_rounding``. "10" stands for
            ``iprec_rounding="nearest"``, "9" for ``iprec_rounding="plus_0.9"``.

            .. deprecated:: 0.2
                ``trec_eval_version`` is deprecated in 0.2 and will be removed in 0.4
                (a FutureWarning says so).
        name : str, default=None
            Name of the system in the legend.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        line_kwargs : dict, default=None
            Passed to ``ax.plot``.
        **conventions
            ``convention`` and the convention parameters of `evaluate` that apply
            (``ties``, ``no_relevant``, ``relevance_threshold``, ``iprec_rounding``,
            ``tie_break``, ``query_set``, ``score_dtype``, ``judged_only``).
            ``iprec_rounding`` says how p R is rounded to a count of relevant items:
            "nearest" (trec_eval 10.0, halves away from zero; the default) or
            "plus_0.9" (trec_eval 9.x and pytrec_eval, ``(long)(p R + 0.9)``; the
            default of ``convention="trec_eval9"``).

        Returns
        -------
        display : InterpolatedPrecisionRecallDisplay
        """
        caller = f"{cls.__name__}.from_predictions"
        _check_matplotlib(caller)
        conventions = _with_rounding(trec_eval_version, _conventions(caller, conventions))
        _check_ax(caller, ax)
        _check_style(caller, "line_kwargs", line_kwargs)
        preset = conventions.get("convention")
        explicit = {key: value for key, value in conventions.items() if key != "convention"}
        recall, precision = _interpolated_precision(
            y_true,
            y_score,
            recall_levels=recall_levels,
            groups=groups,
            exclude=exclude,
            sample_weight=sample_weight,
            conventions=resolve(preset, explicit),
        )
        label = _convention_label(conventions, ("relevance_threshold", "iprec_rounding"))
        display = cls(recall, precision, name=name, convention_label=label)
        return display.plot(ax=ax, line_kwargs=line_kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator,
        X,
        y,
        *,
        groups,
        recall_levels=None,
        trec_eval_version=None,
        sample_weight=None,
        name=None,
        ax=None,
        line_kwargs=None,
        **conventions,
    ):
        """Score the rows of ``X`` with a fitted estimator, then plot the curve.

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
        recall_levels, trec_eval_version, sample_weight, ax, line_kwargs, **conventions
            As in `from_predictions`.
        name : str, default=None
            Name in the legend; None uses the estimator's class name.

        Returns
        -------
        display : InterpolatedPrecisionRecallDisplay
        """
        caller = f"{cls.__name__}.from_estimator"
        _check_matplotlib(caller)
        conventions = _with_rounding(trec_eval_version, _conventions(caller, conventions))
        _check_ax(caller, ax)  # before the estimator scores every row
        _check_style(caller, "line_kwargs", line_kwargs)
        return cls.from_predictions(
            y,
            _ranking_scores(estimator, X),
            recall_levels=recall_levels,
            groups=groups,
            sample_weight=sample_weight,
            name=type(estimator).__name__ if name is None else name,
            ax=ax,
            line_kwargs=line_kwargs,
            **conventions,
        )


_ROUNDING_OF_VERSION = {"10": "nearest", "9": "plus_0.9"}


def _with_rounding(trec_eval_version, conventions):
    """The convention keywords with the deprecated ``trec_eval_version`` turned into the
    ``iprec_rounding`` it stands for (called from the public method: the warning names
    its caller's line)."""
    if trec_eval_version is None:
        return conventions
    if not isinstance(trec_eval_version, str) or trec_eval_version not in _ROUNDING_OF_VERSION:
        raise ValueError(f"trec_eval_version must be '10', '9' or None; got {trec_eval_version!r}.")
    rounding = _ROUNDING_OF_VERSION[trec_eval_version]
    given = conventions.get("iprec_rounding")
    if given is not None and given != rounding:
        raise ValueError(
            f"trec_eval_version={trec_eval_version!r} means iprec_rounding={rounding!r}, "
            f"but iprec_rounding={given!r} was given; pass iprec_rounding only."
        )
    warnings.warn(
        f"trec_eval_version is deprecated in version 0.2 and will be removed in 0.4; pass "
        f"iprec_rounding={rounding!r} (trec_eval_version={trec_eval_version!r}) instead.",
        FutureWarning,
        stacklevel=3,
    )
    return {**conventions, "iprec_rounding": rounding}
