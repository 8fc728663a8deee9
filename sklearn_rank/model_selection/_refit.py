"""Pick a search's best candidate on one metric among those within bounds on others.

scikit-learn's ``refit=`` takes a callable of ``cv_results_`` that returns the index of the
candidate to refit. `BestWithinBounds` is such a callable: the best mean test score of one
metric among the candidates whose mean test scores of other metrics lie within bounds (the
best ``ndcg@10`` among candidates with ``coverage@10 >= 0.3``), and it keeps what it saw, so
that a search says which candidates the bounds excluded and why.
"""

import math
from numbers import Real

import numpy as np


def _checked_bounds(bounds, name):
    if bounds is None:
        return {}
    if not isinstance(bounds, dict):
        raise TypeError(
            f"{name} must be a dict of metric name -> bound, or None; got "
            f"{type(bounds).__name__} {bounds!r}."
        )
    checked = {}
    for metric, bound in bounds.items():
        if not isinstance(metric, str) or not metric:
            raise TypeError(f"{name} keys must be metric names (str); got {metric!r}.")
        if isinstance(bound, (bool, np.bool_)) or not isinstance(bound, Real):
            raise TypeError(f"{name}[{metric!r}] must be a real number; got {bound!r}.")
        if not math.isfinite(float(bound)):
            raise ValueError(f"{name}[{metric!r}] must be finite; got {bound!r}.")
        checked[metric] = float(bound)
    return checked


def _scores_of(cv_results, metric):
    """The mean test scores of ``metric`` in its own scale: a ``neg_`` scorer's values
    (lower-is-better metrics) are negated back, so that bounds read as the metric does."""
    for key, sign in ((metric, 1.0), (f"neg_{metric}", -1.0)):
        column = f"mean_test_{key}"
        if column in cv_results:
            return sign * np.asarray(cv_results[column], dtype=float)
    if metric.startswith("neg_") and f"mean_test_{metric[4:]}" in cv_results:
        return -np.asarray(cv_results[f"mean_test_{metric[4:]}"], dtype=float)
    known = sorted(key[len("mean_test_") :] for key in cv_results if key.startswith("mean_test_"))
    raise ValueError(
        f"BestWithinBounds: no scorer named {metric!r} in the search (cv_results_ has "
        f"mean_test_ for {', '.join(map(repr, known)) or 'none'}); give the search's "
        "scoring every metric the bounds name."
    )


def _objective_of(cv_results, metric):
    """The values to maximise: the scorer's own, greater is better. A lower-is-better metric
    named as it reads (``"popularity@10"``, scored as ``neg_popularity@10``) is thus
    minimised; read in its own scale, as bounds are, it would be maximised."""
    for key in (metric, f"neg_{metric}"):
        if f"mean_test_{key}" in cv_results:
            return np.asarray(cv_results[f"mean_test_{key}"], dtype=float)
    return _scores_of(cv_results, metric)


def _closest(name, side, bound, values):
    """``name >= bound (the largest is ...)``: how near the candidates came to one bound."""
    reached = values[~np.isnan(values)]
    if not reached.size:
        return f"{name}: every value is NaN"
    if side == "lower":
        return f"{name} >= {bound:.6g} (the largest is {reached.max():.6g})"
    return f"{name} <= {bound:.6g} (the smallest is {reached.min():.6g})"


class BestWithinBounds:
    """The best candidate of a search on one metric, among those within bounds on others.

    A callable for the ``refit=`` of `GroupedGridSearchCV`, `GroupedRandomizedSearchCV`,
    scikit-learn's searches, or any code holding a ``cv_results_`` dict: it returns the index
    of the candidate with the greatest mean test score of ``metric`` among the candidates
    whose mean test scores lie within every bound. The search must score every named metric
    (``scoring=[...]``). Bounds read in each metric's own scale: a lower-is-better metric
    scored as ``neg_<name>`` is bounded as ``<name>`` (``upper={"arp": 0.4}``); naming the
    ``neg_`` key bounds the negated values. A candidate whose score is NaN (a failed fit) is
    never within bounds. Among equal best scores, the first candidate wins, as in
    scikit-learn's ``rank_test_*``.

    Parameters
    ----------
    metric : str
        The scorer key whose mean test score is maximised (``"ndcg@10"``). A lower-is-better
        metric scored as ``neg_<name>`` may be named ``<name>``: it is minimised.
    lower : dict of str to float, default=None
        Metric name -> the least mean test score a candidate may have (inclusive).
    upper : dict of str to float, default=None
        Metric name -> the greatest mean test score a candidate may have (inclusive).

    Attributes
    ----------
    within_bounds_ : ndarray of shape (n_candidates,), dtype bool
        After a call: which candidates lie within every bound.
    excluded_ : dict of int to list of str
        After a call: each excluded candidate's index -> why (one line per bound it misses,
        with its value).
    best_index_ : int
        After a call: the index returned.

    Raises
    ------
    ValueError
        When no candidate lies within the bounds (the message gives, per bound, the best
        value any candidate reached), or when a named metric is not in ``cv_results_``.

    See Also
    --------
    GroupedGridSearchCV, GroupedRandomizedSearchCV

    References
    ----------
    .. [1] scikit-learn, "Balance model complexity and cross-validated score" (a callable
       ``refit``), https://scikit-learn.org/stable/auto_examples/model_selection/
       plot_grid_search_refit_callable.html

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank import BestWithinBounds
    >>> cv_results = {
    ...     "mean_test_ndcg@10": np.array([0.52, 0.55, 0.54]),
    ...     "mean_test_map": np.array([0.40, 0.31, 0.38]),
    ... }
    >>> refit = BestWithinBounds("ndcg@10", lower={"map": 0.35})
    >>> refit(cv_results)
    2
    >>> refit.excluded_
    {1: ['map = 0.31 < 0.35']}

    As a search's ``refit``, after ``search.fit(X, y, groups=qid)``: ``search.best_index_`` is
    the candidate chosen and ``search.refit.excluded_`` says which the bounds left out.
    """

    def __init__(self, metric, *, lower=None, upper=None):
        if not isinstance(metric, str) or not metric:
            raise TypeError(f"metric must be a scorer name (str); got {metric!r}.")
        self.metric = metric
        self.lower = _checked_bounds(lower, "lower")
        self.upper = _checked_bounds(upper, "upper")
        for name in set(self.lower) & set(self.upper):
            if self.lower[name] > self.upper[name]:
                raise ValueError(
                    f"lower[{name!r}] = {self.lower[name]!r} is above upper[{name!r}] = "
                    f"{self.upper[name]!r}: no candidate could lie within both."
                )

    def __repr__(self):
        bounds = "".join(
            f", {side}={getattr(self, side)!r}"
            for side in ("lower", "upper")
            if getattr(self, side)
        )
        return f"BestWithinBounds({self.metric!r}{bounds})"

    def __call__(self, cv_results):
        objective = _objective_of(cv_results, self.metric)
        within = ~np.isnan(objective)
        reasons = {}
        missed = []
        for side, bounds in (("lower", self.lower), ("upper", self.upper)):
            for name, bound in bounds.items():
                values = _scores_of(cv_results, name)
                ok = values >= bound if side == "lower" else values <= bound
                sign = "<" if side == "lower" else ">"
                for index in np.flatnonzero(~ok):
                    reasons.setdefault(int(index), []).append(
                        f"{name} = {values[index]:.6g} {sign} {bound:.6g}"
                    )
                within &= ok
                missed.append(_closest(name, side, bound, values))
        for index in np.flatnonzero(np.isnan(objective)):
            reasons.setdefault(int(index), []).append(f"{self.metric} is NaN (the fit failed)")
        self.within_bounds_ = within
        self.excluded_ = {index: reasons[index] for index in sorted(reasons)}
        if not within.any():
            raise ValueError(
                f"BestWithinBounds: none of the {objective.size} candidates lies within the "
                f"bounds: {'; '.join(missed) or 'every ' + self.metric + ' is NaN'}. "
                "Loosen a bound or widen the search."
            )
        candidates = np.flatnonzero(within)
        self.best_index_ = int(candidates[np.argmax(objective[candidates])])
        return self.best_index_
