"""Displays of popularity bias: where a recommender's top-k slots go over the catalog.

`LongTailDisplay` draws the cumulative share of recommendations against the items' rank by
training popularity, beside the training interactions' own curve; `LorenzCurveDisplay`
draws the Lorenz curve of the items' exposure, whose area gives the Gini index
(``gini@k``). Both read the lists, the catalog and the training counts exactly as the
beyond-accuracy metrics do (`metrics._exposure`).
"""

import numpy as np

from ..conventions._declarations import check_k
from ..metrics._exposure import _exposure
from ._base import _axes, _check_ax, _check_matplotlib, _check_style, _label_axes, _legend

_TRAINING_LABEL = "training interactions"
_EQUALITY_LABEL = "equal exposure"


def _check_k(caller, k):
    """The cut-off as `evaluate` checks it; None is refused (a plot of whole lists would
    weigh a long list more than a short one without saying so)."""
    if k is None:
        raise ValueError(f"{caller}: k must be a positive integer; got None.")
    try:
        return check_k(k)
    except ValueError as error:
        raise ValueError(f"{caller}: {error}") from None


def _cumulative_share(counts):
    """0, then the running share of the total after each item (n + 1 points)."""
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum()
    running = np.concatenate(([0.0], np.cumsum(counts)))
    return running / total if total > 0 else np.full(running.size, np.nan)


def _has_label(ax, label):
    return any(line.get_label() == label for line in ax.get_lines())


class LongTailDisplay:
    """The long-tail plot: recommendations against item popularity rank.

    Items are ordered by their training interactions, most popular first (equal counts in
    catalog order); the curve gives, for the x most popular items, the share of every
    top-k slot they hold. The training interactions' own curve is drawn for reference: a
    recommender above it concentrates on popular items more than the training data does;
    one close to the diagonal spreads its slots evenly. Build it with
    `LongTailDisplay.from_predictions`; several systems share one axis through
    ``ax=display.ax_`` (the reference is drawn once). Needs matplotlib
    (``pip install "sklearn-rank[plot]"``).

    Parameters
    ----------
    recommended : array-like of shape (n_items,)
        Top-k slots each catalog item holds over every list, in catalog order.
    trained : array-like of shape (n_items,)
        Training interactions of each item, in catalog order.
    k : int
        The cut-off of the lists.
    name : str, default=None
        Name of the system in the legend.

    Attributes
    ----------
    popularity_rank : ndarray of shape (n_items + 1,)
        0, 1, ..., n_items: the number of most popular items counted (x).
    recommended_share : ndarray of shape (n_items + 1,)
        Share of the top-k slots held by that many most popular items (y).
    training_share : ndarray of shape (n_items + 1,)
        Share of the training interactions held by them (the reference curve).
    line_ : matplotlib Line2D
        The system's curve (after `plot`).
    ax_, figure_ : matplotlib Axes, Figure
        Where it is drawn.

    See Also
    --------
    LorenzCurveDisplay : the Lorenz curve behind ``gini@k``.
    evaluate : ``popularity@k``, ``aplt@k``, ``coverage@k`` and the other measures.

    References
    ----------
    .. [1] H. Abdollahpouri, R. Burke and B. Mobasher, "Managing Popularity Bias in
       Recommender Systems with Personalized Re-ranking", FLAIRS 2019.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> import scipy.sparse
    >>> from sklearn_rank import ItemRanking, LongTailDisplay
    >>> truth = scipy.sparse.csr_matrix((3, 5))  # 3 users, a catalog of 5 items
    >>> top = ItemRanking.from_topn([[0, 1], [0, 2], [1, 0]])  # each user's top 2
    >>> train = np.array([[3, 1, 0, 0, 0], [2, 1, 1, 0, 0], [1, 0, 0, 0, 1]])
    >>> display = LongTailDisplay.from_predictions(truth, top, k=2, train=train, name="model")
    >>> display.recommended_share  # items by popularity: 0, 1, 2, 4, 3
    array([0.        , 0.5       , 0.83333333, 1.        , 1.        , 1.        ])
    >>> display.training_share
    array([0. , 0.6, 0.8, 0.9, 1. , 1. ])
    >>> plt.close("all")
    """

    def __init__(self, recommended, trained, *, k, name=None):
        self.recommended = np.asarray(recommended, dtype=np.float64)
        self.trained = np.asarray(trained, dtype=np.float64)
        if self.recommended.shape != self.trained.shape or self.recommended.ndim != 1:
            raise ValueError(
                "recommended and trained must be 1-D arrays of the same length (one count "
                f"per catalog item); got shapes {self.recommended.shape} and "
                f"{self.trained.shape}."
            )
        self.k = k
        self.name = name
        order = np.argsort(-self.trained, kind="stable")
        self.popularity_rank = np.arange(order.size + 1)
        self.recommended_share = _cumulative_share(self.recommended[order])
        self.training_share = _cumulative_share(self.trained[order])

    def plot(self, ax=None, *, name=None, line_kwargs=None, reference_kwargs=None):
        """Draw the curve, and the training reference unless ``ax`` already holds it.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on (another Display's ``ax_`` to compare systems); None makes a
            new figure.
        name : str, default=None
            Name in the legend; None uses the Display's ``name``.
        line_kwargs : dict, default=None
            Properties of the system's line, passed to ``ax.plot``.
        reference_kwargs : dict, default=None
            Properties of the training interactions' line.

        Returns
        -------
        display : LongTailDisplay
            ``self``, with ``line_``, ``ax_`` and ``figure_`` set.
        """
        caller = f"{type(self).__name__}.plot"
        _check_matplotlib(caller)
        _check_ax(caller, ax)
        line_kwargs = _check_style(caller, "line_kwargs", line_kwargs)
        reference_kwargs = _check_style(caller, "reference_kwargs", reference_kwargs)
        ax = _axes(ax)
        if not _has_label(ax, _TRAINING_LABEL):
            style = {"label": _TRAINING_LABEL, "color": "0.5", "linestyle": "--"}
            ax.plot(self.popularity_rank, self.training_share, **{**style, **reference_kwargs})
        name = self.name if name is None else name
        label = f"top-{self.k} slots" if name is None else f"{name} (top-{self.k} slots)"
        (self.line_,) = ax.plot(
            self.popularity_rank, self.recommended_share, **{"label": label, **line_kwargs}
        )
        ax.set_ylim(0.0, 1.02)
        _label_axes(ax, "items, most popular in training first", "cumulative share", None)
        _legend(ax)
        self.ax_, self.figure_ = ax, ax.figure
        return self

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        k=10,
        train,
        catalog=None,
        groups=None,
        exclude=None,
        name=None,
        ax=None,
        line_kwargs=None,
        reference_kwargs=None,
    ):
        """Read one system's top-k lists and the training data, and plot them.

        Parameters
        ----------
        y_true, y_score, groups, exclude
            As for `evaluate`: a truth matrix and scores or top-N ids, `ItemJudgments`
            and `ItemRanking`, ranked lists. ``y_true`` gives the catalog (its item axis)
            unless ``catalog`` is given.
        k : int, default=10
            The cut-off of the lists.
        train : array-like, sparse matrix or (user ids, item ids)
            The training interactions, as `evaluate`'s ``train``: the items' popularity.
        catalog : array-like, default=None
            The catalog's item ids, as `evaluate`'s ``catalog``.
        name : str, default=None
            Name of the system in the legend.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        line_kwargs, reference_kwargs : dict, default=None
            As for `plot`.

        Returns
        -------
        display : LongTailDisplay
        """
        caller = f"{cls.__name__}.from_predictions"
        _check_matplotlib(caller)
        k = _check_k(caller, k)
        _check_ax(caller, ax)
        _check_style(caller, "line_kwargs", line_kwargs)
        _check_style(caller, "reference_kwargs", reference_kwargs)
        if train is None:
            raise ValueError(
                f"{caller}: train is required (the training interactions order the items "
                "by popularity)."
            )
        exposure = _exposure(
            y_true, y_score, k, groups=groups, exclude=exclude, train=train, catalog=catalog
        )
        display = cls(exposure.recommended, exposure.trained, k=k, name=name)
        return display.plot(ax=ax, line_kwargs=line_kwargs, reference_kwargs=reference_kwargs)


class LorenzCurveDisplay:
    """The Lorenz curve of the items' exposure in the top-k lists, and its Gini index.

    Items are ordered from the least to the most recommended (the never-recommended ones
    first, as zeros); the curve gives, for the share x of the catalog's items, the share of
    the top-k slots they hold. The diagonal is equal exposure; the Gini index is one minus
    twice the area under the curve, the value of `evaluate`'s ``gini@k`` (its default
    definition) on the same lists. Build it with `LorenzCurveDisplay.from_predictions`;
    several systems share one axis through ``ax=display.ax_``. Needs matplotlib
    (``pip install "sklearn-rank[plot]"``).

    Parameters
    ----------
    recommended : array-like of shape (n_items,)
        Top-k slots each catalog item holds over every list.
    gini : float
        The Gini index of these counts (``gini@k``), shown in the legend.
    k : int
        The cut-off of the lists.
    name : str, default=None
        Name of the system in the legend.

    Attributes
    ----------
    item_share : ndarray of shape (n_items + 1,)
        0, 1/n, ..., 1: the share of the catalog counted (x).
    exposure_share : ndarray of shape (n_items + 1,)
        Share of the top-k slots held by that share of the least recommended items (y).
    line_ : matplotlib Line2D
        The curve (after `plot`).
    ax_, figure_ : matplotlib Axes, Figure
        Where it is drawn.

    See Also
    --------
    LongTailDisplay : recommendations against the items' training popularity.

    References
    ----------
    .. [1] A. Gunawardana, G. Shani and S. Yogev, "Evaluating Recommender Systems", in
       Recommender Systems Handbook, 3rd ed., Springer, 2022 (Gini index of item exposure).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import scipy.sparse
    >>> from sklearn_rank import ItemRanking, LorenzCurveDisplay, evaluate
    >>> truth = scipy.sparse.csr_matrix((3, 5))
    >>> top = ItemRanking.from_topn([[0, 1], [0, 2], [1, 0]])
    >>> display = LorenzCurveDisplay.from_predictions(truth, top, k=2, name="model")
    >>> display.exposure_share  # items 3 and 4 never recommended, item 2 once...
    array([0.        , 0.        , 0.        , 0.16666667, 0.5       , 1.        ])
    >>> round(display.gini, 4), round(evaluate(truth, top, ["gini@2"])["gini@2"], 4)
    (0.5333, 0.5333)
    >>> plt.close("all")
    """

    def __init__(self, recommended, gini, *, k, name=None):
        self.recommended = np.asarray(recommended, dtype=np.float64)
        if self.recommended.ndim != 1:
            raise ValueError(
                "recommended must be a 1-D array (one count per catalog item); got shape "
                f"{self.recommended.shape}."
            )
        self.gini = float(gini)
        self.k = k
        self.name = name
        n_items = self.recommended.size
        self.item_share = np.arange(n_items + 1) / max(n_items, 1)
        self.exposure_share = _cumulative_share(np.sort(self.recommended))

    def plot(self, ax=None, *, name=None, line_kwargs=None, equality_kwargs=None):
        """Draw the curve, and the diagonal of equal exposure unless ``ax`` holds it.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on (another Display's ``ax_`` to compare systems); None makes a
            new figure.
        name : str, default=None
            Name in the legend; None uses the Display's ``name``.
        line_kwargs : dict, default=None
            Properties of the curve, passed to ``ax.plot``.
        equality_kwargs : dict, default=None
            Properties of the diagonal.

        Returns
        -------
        display : LorenzCurveDisplay
            ``self``, with ``line_``, ``ax_`` and ``figure_`` set.
        """
        caller = f"{type(self).__name__}.plot"
        _check_matplotlib(caller)
        _check_ax(caller, ax)
        line_kwargs = _check_style(caller, "line_kwargs", line_kwargs)
        equality_kwargs = _check_style(caller, "equality_kwargs", equality_kwargs)
        ax = _axes(ax)
        if not _has_label(ax, _EQUALITY_LABEL):
            style = {"label": _EQUALITY_LABEL, "color": "0.5", "linestyle": "--"}
            ax.plot([0.0, 1.0], [0.0, 1.0], **{**style, **equality_kwargs})
        name = self.name if name is None else name
        gini = f"gini@{self.k} = {self.gini:.3f}"
        label = gini if name is None else f"{name} ({gini})"
        (self.line_,) = ax.plot(
            self.item_share, self.exposure_share, **{"label": label, **line_kwargs}
        )
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, 1.0)
        _label_axes(
            ax,
            "share of the catalog, least recommended first",
            f"share of top-{self.k} slots",
            None,
        )
        _legend(ax)
        self.ax_, self.figure_ = ax, ax.figure
        return self

    @classmethod
    def from_predictions(
        cls,
        y_true,
        y_score,
        *,
        k=10,
        catalog=None,
        groups=None,
        exclude=None,
        name=None,
        ax=None,
        line_kwargs=None,
        equality_kwargs=None,
    ):
        """Read one system's top-k lists and plot the Lorenz curve of their exposure.

        Parameters
        ----------
        y_true, y_score, groups, exclude
            As for `evaluate`; ``y_true`` gives the catalog (its item axis) unless
            ``catalog`` is given.
        k : int, default=10
            The cut-off of the lists.
        catalog : array-like, default=None
            The catalog's item ids, as `evaluate`'s ``catalog``.
        name : str, default=None
            Name of the system in the legend.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        line_kwargs, equality_kwargs : dict, default=None
            As for `plot`.

        Returns
        -------
        display : LorenzCurveDisplay
        """
        caller = f"{cls.__name__}.from_predictions"
        _check_matplotlib(caller)
        k = _check_k(caller, k)
        _check_ax(caller, ax)
        _check_style(caller, "line_kwargs", line_kwargs)
        _check_style(caller, "equality_kwargs", equality_kwargs)
        exposure = _exposure(y_true, y_score, k, groups=groups, exclude=exclude, catalog=catalog)
        display = cls(exposure.recommended, exposure.gini, k=k, name=name)
        return display.plot(ax=ax, line_kwargs=line_kwargs, equality_kwargs=equality_kwargs)
