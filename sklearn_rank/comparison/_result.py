"""`Comparison`: the result of `compare` and `compare_search`, and its tables.

It stores numbers (means, intervals, p-values), not decisions: the tables mark a
difference as significant at the level given when they are made, from the stored adjusted
p-values, so one result renders at 0.05 and at 0.01 alike. Tables are pure functions of
the stored arrays.
"""

import functools
import warnings

import numpy as np

from ._power import _comparison_mde, _comparison_power

# Columns of `Comparison.pairs` renamed to scipy's names in 0.2 (old name -> new name). The
# old names still read their column, with a FutureWarning, until 0.4.
_RENAMED_COLUMNS = {"p_value": "pvalue", "p_adjusted": "pvalue_adjusted"}
_SUPERSCRIPTS = dict(
    zip("abcdefghijklmnopqrstuvwxyz0123456789", "ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖqʳˢᵗᵘᵛʷˣʸᶻ⁰¹²³⁴⁵⁶⁷⁸⁹")
)
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_TEST_NAMES = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "paired randomization test",
    "bootstrap": "paired bootstrap test",
    "tukey_hsd": "randomised Tukey HSD",
    "corrected_t": "corrected resampled t-test (Nadeau and Bengio)",
}
_CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "fdr_bh": "Benjamini-Hochberg"}


def _letter(index):
    """a, b, ..., z, a1, b1, ...: the label of the index-th run in every-pair tables."""
    letter = "abcdefghijklmnopqrstuvwxyz"[index % 26]
    return letter if index < 26 else f"{letter}{index // 26}"


def _latex_escape(text):
    return "".join(_LATEX_SPECIAL.get(char, char) for char in str(text))


def _warn_renamed(old, where, stacklevel):
    warnings.warn(
        f"{where}[{old!r}] is deprecated in version 0.2 and will be removed in 0.4; use "
        f"{where}[{_RENAMED_COLUMNS[old]!r}] (scipy's name) instead.",
        FutureWarning,
        stacklevel=stacklevel + 1,
    )


class _Columns(dict):
    """Column name -> array, as ``cv_results_``, in which the names deprecated in 0.2
    (``p_value``, ``p_adjusted``) still read their renamed column, with a FutureWarning.
    Iterating, ``in`` and ``pandas.DataFrame(...)`` see the new names only."""

    def __missing__(self, key):
        new = _RENAMED_COLUMNS.get(key)
        if new is None or new not in self:
            raise KeyError(key)
        _warn_renamed(key, "Comparison.pairs", 2)
        return self[new]

    def get(self, key, default=None):
        new = _RENAMED_COLUMNS.get(key)
        if key in self or new is None or new not in self:
            return super().get(key, default)
        _warn_renamed(key, "Comparison.pairs", 2)
        return self[new]


def _pair_columns(pairs):
    """``pairs`` as `_Columns`; a table given with the old names is renamed, with a
    FutureWarning (a `Comparison` built by hand before 0.2)."""
    columns = _Columns()
    for name, values in pairs.items():
        if name in _RENAMED_COLUMNS and _RENAMED_COLUMNS[name] not in pairs:
            _warn_renamed(name, "Comparison(pairs=...)", 3)
            name = _RENAMED_COLUMNS[name]
        columns[name] = values
    return columns


@functools.cache
def _pairs_frame_type():
    """The DataFrame type of ``to_frame("pairs")``, made on first use (pandas is optional)."""
    import pandas as pd

    class PairsFrame(pd.DataFrame):
        """`Comparison.pairs` as a DataFrame: the column names deprecated in 0.2 still read
        their renamed column (``frame["p_value"]``, ``frame.p_value``), with a
        FutureWarning. Frames derived from it are plain DataFrames."""

        @property
        def _constructor(self):
            return pd.DataFrame

        def __reduce__(self):  # a local class cannot be pickled: pickle a plain DataFrame
            return pd.DataFrame(self).__reduce__()

        def _renamed(self, key):
            if (
                isinstance(key, str)
                and key in _RENAMED_COLUMNS
                and key not in self.columns
                and _RENAMED_COLUMNS[key] in self.columns
            ):
                _warn_renamed(key, "Comparison.to_frame()", 3)
                return _RENAMED_COLUMNS[key]
            return key

        def __getitem__(self, key):
            return super().__getitem__(self._renamed(key))

        def __getattr__(self, name):
            if name in _RENAMED_COLUMNS:
                return super().__getattr__(self._renamed(name))
            return super().__getattr__(name)

    return PairsFrame


class Comparison:
    """Paired per-query comparison of runs: means, differences, tests, intervals.

    Made by `compare` and `compare_search`. Columns follow scikit-learn's
    ``cv_results_``: ``pandas.DataFrame(result.pairs)`` is a table.

    Parameters
    ----------
    runs : dict of str -> ndarray of shape (n_runs * n_metrics,)
        One row per run and metric (metric by metric): ``run``, ``metric``, ``mean``,
        ``ci_low``, ``ci_high`` (interval of the mean at ``confidence``), ``n_queries``
        (queries with a value) and ``n_missing`` (queries the run lacked).
    pairs : dict of str -> ndarray of shape (n_pairs * n_metrics,)
        One row per compared pair and metric: ``run``, ``baseline``, ``metric``,
        ``diff`` (mean of run - baseline), ``diff_ci_low``, ``diff_ci_high``,
        ``effect_size`` (d_z: mean difference over its standard deviation), ``pvalue``
        (the test's p-value), ``pvalue_adjusted`` (after ``correction``), ``wins``,
        ``ties``, ``losses`` (queries where run > baseline, =, <) and ``significant``
        (``pvalue_adjusted <= 1 - confidence``).

        .. deprecated:: 0.2
            ``p_value`` and ``p_adjusted`` are now ``pvalue`` and ``pvalue_adjusted``
            (scipy's name); the old names read the same column, here and in
            `to_frame`, with a FutureWarning, and will be removed in 0.4.
    per_query : dict of str -> ndarray of shape (n_queries, n_runs)
        Metric -> per-query values, rows in ``query_ids`` order, columns in
        ``run_names`` order; NaN where a query has no value.
    run_names : list of str
        The runs, in the order given.
    query_ids : ndarray of shape (n_queries,)
        The queries compared.
    baseline : str or None
        The run every other run is compared with; None: every pair.
    test : str
        The test that gave ``pvalue``.
    correction : str or None
        The multiple-testing correction applied over all comparisons (every pair and
        metric); None for ``test="tukey_hsd"``, which controls the family-wise error of
        each metric's pairs itself.
    confidence : float
        Confidence level of the intervals; ``1 - confidence`` is the default level of
        significance of the tables.
    n_resamples : int
        Resamples of the resampling tests and bootstrap intervals.
    notes : tuple of str, default=()
        How the numbers were computed, printed under the tables.
    lower_is_better : tuple of str, default=()
        Metrics for which a lower mean is better (``"arp"``).
    conventions : dict of str -> dict, default=None
        Metric -> the convention keywords it was computed with (``convention`` and the
        parameters given), for the Displays' captions; None: not known.
    alternative : {"two-sided", "greater", "less"}, default="two-sided"
        The alternative hypothesis of ``pvalue``: ``"greater"``, the ``run``'s values are
        greater than the ``baseline``'s (``"less"``: lower).

    See Also
    --------
    compare, compare_search, PerQueryDifferenceDisplay.from_comparison

    Examples
    --------
    >>> from sklearn_rank import compare
    >>> y_true = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]]
    >>> old = [[0.1, 0.9, 0.5], [0.9, 0.1, 0.5], [0.5, 0.9, 0.1], [0.1, 0.9, 0.5], [0.9, 0.1, 0.5]]
    >>> new = [[0.9, 0.1, 0.5], [0.1, 0.9, 0.5], [0.5, 0.1, 0.9], [0.9, 0.1, 0.5], [0.1, 0.5, 0.9]]
    >>> result = compare(y_true, {"old": old, "new": new}, "mrr", baseline="old", test="t")
    >>> result.per_query["mrr"].shape
    (5, 2)
    >>> print(result.to_markdown(decimals=3))
    | run | mrr |
    |---|---:|
    | old (baseline) | 0.333 |
    | new | 0.900* |
    <BLANKLINE>
    Paired t-test, two-sided; Holm correction over 1 comparison; 95% t intervals.
    * differs from old at adjusted p <= 0.05.
    """

    def __init__(
        self,
        *,
        runs,
        pairs,
        per_query,
        run_names,
        query_ids,
        baseline,
        test,
        correction,
        confidence,
        n_resamples,
        notes=(),
        lower_is_better=(),
        alternative="two-sided",
        conventions=None,
    ):
        self.runs = runs
        self.pairs = _pair_columns(pairs)
        self.per_query = per_query
        self.run_names = list(run_names)
        self.query_ids = query_ids
        self.baseline = baseline
        self.test = test
        self.correction = correction
        self.confidence = confidence
        self.n_resamples = n_resamples
        self.notes = tuple(notes)
        self.lower_is_better = tuple(lower_is_better)
        self.alternative = alternative
        self.conventions = conventions

    @property
    def metrics(self):
        """list of str: the metrics compared, in the order given."""
        return list(self.per_query)

    def _alpha(self, alpha):
        if alpha is None:
            return 1 - self.confidence
        if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, (int, float)):
            raise ValueError(f"alpha must be a number in (0, 1); got {alpha!r}.")
        if not 0 < alpha < 1:
            raise ValueError(f"alpha must be a number in (0, 1); got {alpha!r}.")
        return float(alpha)

    def significant_at(self, alpha=None):
        """Which pairs differ significantly at level ``alpha``, from ``pvalue_adjusted``.

        Parameters
        ----------
        alpha : float, default=None
            Level of significance; None means ``1 - confidence``.

        Returns
        -------
        ndarray of bool, shape (n_pairs * n_metrics,)
            Aligned with the rows of ``pairs``; False where ``pvalue_adjusted`` is NaN.
        """
        alpha = self._alpha(alpha)
        with np.errstate(invalid="ignore"):
            return np.asarray(self.pairs["pvalue_adjusted"] <= alpha)

    def power(self, delta, *, alpha=None):
        """Power of each pair's paired t-test to find a true mean difference ``delta``.

        A design statement: with this pair's number of queries and the standard deviation
        of its per-query differences, a true difference ``delta`` would be found with this
        probability (`paired_t_power`, with the comparison's ``alternative``). It is not
        the power at the observed difference, which adds nothing to the p-value. It is
        the paired t-test's over ``per_query`` whatever ``test`` gave the p-values (the
        randomization and bootstrap tests approximately; with ``"corrected_t"``, a t-test
        over queries, not the corrected test over splits).

        Parameters
        ----------
        delta : float
            The true mean difference, in metric units (run - baseline).
        alpha : float, default=None
            Level of the test; None means ``1 - confidence``.

        Returns
        -------
        ndarray of float, shape (n_pairs * n_metrics,)
            Aligned with the rows of ``pairs``; NaN for a pair of fewer than 2 queries.
        """
        return _comparison_power(self, delta, self._alpha(alpha))

    def minimum_detectable_difference(self, power=0.8, *, alpha=None):
        """The smallest true mean difference each pair's t-test finds with ``power``.

        `minimum_detectable_difference` with each pair's number of queries and standard
        deviation of its per-query differences, and the comparison's ``alternative``.

        Parameters
        ----------
        power : float, default=0.8
            The target power, in (0, 1).
        alpha : float, default=None
            Level of the test; None means ``1 - confidence``.

        Returns
        -------
        ndarray of float, shape (n_pairs * n_metrics,)
            Aligned with the rows of ``pairs``, in metric units.
        """
        return _comparison_mde(self, power, self._alpha(alpha))

    def _markers(self, alpha):
        """run -> metric -> marker text: "*", or the letters of the runs it beats."""
        significant = self.significant_at(alpha)
        position = {run: i for i, run in enumerate(self.run_names)}
        beaten = {(run, metric): set() for run in self.run_names for metric in self.metrics}
        markers = {run: dict.fromkeys(self.metrics, "") for run in self.run_names}
        pairs = self.pairs
        for row in np.flatnonzero(significant):
            run, base, metric = pairs["run"][row], pairs["baseline"][row], pairs["metric"][row]
            if self.baseline is not None:
                markers[run][metric] = "*"
                continue
            better = (pairs["diff"][row] > 0) != (metric in self.lower_is_better)
            winner, loser = (run, base) if better else (base, run)
            beaten[(winner, metric)].add(position[loser])
        if self.baseline is None:
            for (run, metric), losers in beaten.items():
                markers[run][metric] = "".join(_letter(i) for i in sorted(losers))
        return markers

    def _summary(self, alpha, decimals, marker_format):
        """Header and rows of the table of means, markers formatted by ``marker_format``."""
        markers = self._markers(alpha)
        means = dict(zip(zip(self.runs["run"], self.runs["metric"]), self.runs["mean"].tolist()))
        letters = self.baseline is None
        header = (["", "run"] if letters else ["run"]) + self.metrics
        rows = []
        for index, run in enumerate(self.run_names):
            name = f"{run} (baseline)" if run == self.baseline else run
            cells = []
            for metric in self.metrics:
                value = means[(run, metric)]
                text = "nan" if np.isnan(value) else f"{value:.{decimals}f}"
                cells.append(text + marker_format(markers[run][metric]))
            rows.append(([_letter(index)] if letters else []) + [name, *cells])
        return header, rows

    def _caption(self, alpha):
        """What was tested and how, in one paragraph."""
        corpus_only = set(self.metrics) <= set(getattr(self, "_corpus_labels", ()))
        test = "a permutation test of the runs' lists, user by user" if corpus_only else None
        parts = [f"{test or _TEST_NAMES[self.test]}, {self._sides()}"]
        n_comparisons = len(self.pairs["pvalue"])
        if self.test == "tukey_hsd":
            parts.append(
                "it controls the family-wise error over all pairs of each metric itself: no "
                "further correction"
            )
        elif self.correction is None:
            parts.append(f"no correction for {_count(n_comparisons, 'comparison')}")
        else:
            parts.append(
                f"{_CORRECTION_NAMES[self.correction]} correction over "
                f"{_count(n_comparisons, 'comparison')}"
            )
        level = f"{100 * self.confidence:g}%"
        if corpus_only:
            parts.append(f"{level} percentile intervals of the differences")
        elif self.test in ("t", "corrected_t"):
            parts.append(f"{level} t intervals")
        else:
            parts.append(f"{level} BCa bootstrap intervals ({self.n_resamples:,} resamples)")
        text = "; ".join(parts) + "."
        text = text[0].upper() + text[1:]
        for note in self.notes:
            text += f" {note}"
        alpha = self._alpha(alpha)
        if self.baseline is not None:
            relation = {"greater": "is greater than", "less": "is less than"}
            text += (
                f" * {relation.get(self.alternative, 'differs from')} {self.baseline} at "
                f"adjusted p <= {alpha:g}."
            )
        else:
            text += f" Letters: better than the run with that letter at adjusted p <= {alpha:g}."
        return text

    def _sides(self):
        """The alternative of the caption, in words."""
        if self.alternative == "two-sided":
            return "two-sided"
        than = "the baseline" if self.baseline is not None else "each earlier run"
        return f"one-sided (alternative: each run {self.alternative} than {than})"

    def to_markdown(self, *, alpha=None, decimals=4):
        """The table of means as Markdown, significant differences marked.

        With a baseline, ``*`` marks the means that differ from the baseline's at
        ``pvalue_adjusted <= alpha``; without one, each run has a letter and a mean carries
        the letters of the runs it is better than. A paragraph under the table names
        the test, the correction and the intervals.

        Parameters
        ----------
        alpha : float, default=None
            Level of significance; None means ``1 - confidence``.
        decimals : int, default=4
            Decimals of the means.

        Returns
        -------
        str
        """
        header, rows = self._summary(alpha, decimals, self._unicode_marker)
        labels = len(header) - len(self.metrics)
        lines = [
            "| " + " | ".join(header) + " |",
            "|" + "---|" * labels + "---:|" * len(self.metrics),
        ]
        for row in rows:
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
        return "\n".join(lines) + "\n\n" + self._caption(alpha) + "\n"

    def _unicode_marker(self, marker):
        if marker in ("", "*"):
            return marker
        return "".join(_SUPERSCRIPTS.get(char, char) for char in marker)

    def to_latex(self, *, alpha=None, decimals=4):
        """The table of means as a LaTeX ``table`` (booktabs rules), significance marked.

        As `to_markdown`, with the markers as superscripts and the test, correction and
        intervals in the caption. Needs ``\\usepackage{booktabs}``.

        Parameters
        ----------
        alpha : float, default=None
            Level of significance; None means ``1 - confidence``.
        decimals : int, default=4
            Decimals of the means.

        Returns
        -------
        str
        """

        def marker(text):
            return f"$^{{{text}}}$" if text else ""

        header, rows = self._summary(alpha, decimals, marker)
        labels = len(header) - len(self.metrics)
        columns = "l" * labels + "r" * len(self.metrics)
        lines = [
            r"\begin{table}",
            r"\centering",
            r"\caption{" + _latex_caption(self._caption(alpha)) + "}",
            r"\begin{tabular}{" + columns + "}",
            r"\toprule",
            " & ".join(_latex_escape(cell) for cell in header) + r" \\",
            r"\midrule",
        ]
        for row in rows:
            cells = [_latex_escape(cell) for cell in row[:labels]] + row[labels:]
            lines.append(" & ".join(cells) + r" \\")
        lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
        return "\n".join(lines) + "\n"

    def to_frame(self, table="pairs"):
        """One of the tables as a pandas DataFrame.

        Parameters
        ----------
        table : {"pairs", "runs"}, default="pairs"
            ``pairs``: one row per compared pair and metric; ``runs``: one row per run
            and metric.

        Returns
        -------
        pandas.DataFrame
            For ``"pairs"``, the deprecated column names ``p_value`` and ``p_adjusted``
            read ``pvalue`` and ``pvalue_adjusted`` with a FutureWarning until 0.4.
        """
        if table not in ("pairs", "runs"):
            raise ValueError(f"table must be 'pairs' or 'runs'; got {table!r}.")
        try:
            import pandas as pd
        except ImportError:
            raise ImportError(
                "Comparison.to_frame needs pandas (pip install pandas); the same table is "
                f"Comparison.{table}, a dict of numpy arrays."
            ) from None
        if table == "runs":
            return pd.DataFrame(self.runs)
        return _pairs_frame_type()(dict(self.pairs))

    def _text(self, alpha=None, decimals=4):
        """The table of means as aligned plain text, then the caption."""
        header, rows = self._summary(alpha, decimals, self._unicode_marker)
        labels = len(header) - len(self.metrics)
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
        lines = []
        for row in [header, *rows]:
            cells = [cell.ljust(width) for cell, width in zip(row[:labels], widths)] + [
                cell.rjust(width) for cell, width in zip(row[labels:], widths[labels:])
            ]
            lines.append("  ".join(cells).rstrip())
        lines.append(self._caption(alpha))
        return "\n".join(lines)

    def __repr__(self):
        return (
            f"<Comparison of {_count(len(self.run_names), 'run')} on "
            f"{_count(len(self.query_ids), 'query', 'queries')}: test={self.test!r}, "
            f"correction={self.correction!r}, baseline={self.baseline!r}"
            + ("" if self.alternative == "two-sided" else f", alternative={self.alternative!r}")
            + ">\n"
            + self._text()
        )


def _latex_caption(text):
    """The caption in LaTeX: special characters escaped, markers and <= typeset."""
    text = _latex_escape(text).replace("<=", r"$\leq$")
    for relation in ("differs", "is greater", "is less"):
        text = text.replace(f" * {relation}", f" $^{{*}}$ {relation}")
    return text.replace(" Letters: better", " Superscript letters: better")


def _count(n, one, many=None):
    return f"{n:,} {one if n == 1 else (many or one + 's')}"
