"""Score standardization: per-query values put on each query's own scale, set by reference
runs (Webber, Moffat and Zobel's z then Phi, Sakai's linear form, the empirical CDF), and
trec_eval's zscores file (``trec_eval -Z``), which the command line's ``-Z`` reads with
the same code.
"""

import math

import numpy as np
from scipy import special
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..conventions._declarations import Parameter, _Choice, _Flag, _Integer, _Number
from ..conventions._docs import _with_declarations

METHODS = ("normal", "linear", "z", "ecdf")
ZERO_SD = ("nan", "raw")

STANDARDIZATION_METHOD = Parameter(
    "method",
    _Choice(METHODS),
    "normal",
    "How a value x of query t becomes a standardized value, from the reference runs'\n"
    "mean m_t and standard deviation s_t on t, z = (x - m_t) / s_t:\n"
    '``"normal"``: Phi(z), the standard normal CDF (Webber, Moffat and Zobel), in (0, 1);\n'
    '``"linear"``: ``slope * z + intercept`` (Sakai\'s std-AB, A = 0.15, B = 0.5),\n'
    'clipped to [0, 1] when ``clip``; ``"z"``: z itself; ``"ecdf"``: the share of the\n'
    "reference runs' values on t that are at most x (no mean or deviation needed).",
)
DDOF = Parameter(
    "ddof",
    _Integer(0, wording="a non-negative integer"),
    1,
    "Delta degrees of freedom of s_t: 1, the sample standard deviation (R's ``sd``, as\n"
    "Urbano et al. and trec_eval's ``make_zscore_file.py``), or 0.",
)
SLOPE = Parameter(
    "slope",
    _Number(0.0, wording="a finite number greater than 0"),
    0.15,
    'Sakai\'s A of ``method="linear"``.',
    type_text="float",
)
INTERCEPT = Parameter(
    "intercept",
    _Number(-math.inf, wording="a finite number"),
    0.5,
    'Sakai\'s B of ``method="linear"``.',
    type_text="float",
)
CLIP = Parameter(
    "clip",
    _Flag(),
    True,
    'Clip ``method="linear"`` to [0, 1], as Urbano et al.\'s implementation does (whether\n'
    "Sakai clips is not stated in what could be read); False leaves ``|z| > 3.33`` outside.",
)
ZERO_SD_RULE = Parameter(
    "zero_sd",
    _Choice(ZERO_SD),
    "nan",
    "A query on which every reference value is equal (s_t exactly 0, m_t that value):\n"
    '``"nan"``, z = 0 for a value equal to it and NaN for any other (trec_eval\'s rule,\n'
    'which prints -1000000 for NaN); ``"raw"``, m_t = 0 and s_t = 1, z = x (Urbano et\n'
    "al.'s ``std_z``).",
)
STANDARDIZER_PARAMETERS = {
    p.name: p for p in (STANDARDIZATION_METHOD, DDOF, SLOPE, INTERCEPT, CLIP, ZERO_SD_RULE)
}
_fill_standardizer = _with_declarations(STANDARDIZER_PARAMETERS.values())


def _as_ids(ids, n_rows, name):
    if ids is None:
        return np.arange(n_rows)
    ids = np.asarray(ids)
    if ids.ndim != 1 or ids.size != n_rows:
        raise ValueError(
            f"{name} must be a 1-D array of one id per row ({n_rows}); got shape {ids.shape}."
        )
    return ids


def _comparable(reference, ids):
    """Ids of two arrays made comparable: numbers and strings never equal each other, so
    when one side is text both are read as text ("7" is query 7)."""
    text = [a.dtype.kind in "USO" for a in (reference, ids)]
    if text[0] != text[1] or (text[0] and reference.dtype.kind != ids.dtype.kind):
        return reference.astype(str), ids.astype(str)
    return reference, ids


def _rows_of(reference_ids, ids):
    """Row of each id in ``reference_ids``, -1 where absent (vectorised: sorted search)."""
    reference, ids = _comparable(np.asarray(reference_ids), np.asarray(ids))
    if reference.size == 0:
        return np.full(ids.size, -1)
    order = np.argsort(reference, kind="stable")
    ordered = reference[order]
    position = np.minimum(np.searchsorted(ordered, ids), ordered.size - 1)
    return np.where(ordered[position] == ids, order[position], -1)


def _reference_statistics(reference, ddof):
    """m_t and s_t of each row of ``reference`` over its non-NaN values.

    A row whose values are all equal gets exactly that value and 0: a float mean of equal
    values need not equal them (mean(0.1, 0.1, 0.1) = 0.10000000000000002, s = 1.6e-17),
    and every value would then be some z but 0. A row of at most ``ddof`` values has no
    deviation: NaN for both.
    """
    count = np.count_nonzero(~np.isnan(reference), axis=1)
    usable = count > ddof
    rows = reference[usable]
    mean = np.full(reference.shape[0], np.nan)
    scale = np.full(reference.shape[0], np.nan)
    if rows.size:
        low, high = np.nanmin(rows, axis=1), np.nanmax(rows, axis=1)
        equal = low == high
        mean[usable] = np.where(equal, low, np.nanmean(rows, axis=1))
        scale[usable] = np.where(equal, 0.0, np.nanstd(rows, axis=1, ddof=ddof))
    return mean, scale


def _z_values(values, mean, scale, zero_sd):
    """(x - m) / s by row, with s = 0 read by ``zero_sd``; NaN where m is NaN."""
    mean, scale = mean[:, np.newaxis], scale[:, np.newaxis]
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (values - mean) / scale
    if zero_sd == "raw":
        return np.where(scale == 0, values, z)
    return np.where(scale == 0, np.where(values == mean, 0.0, np.nan), z)


def _ecdf(values, reference):
    """The share of each row's non-NaN reference values that are at most each value."""
    present = ~np.isnan(reference)
    count = np.count_nonzero(present, axis=1)[:, np.newaxis]
    at_most = np.count_nonzero(
        present[:, np.newaxis, :] & (reference[:, np.newaxis, :] <= values[:, :, np.newaxis]),
        axis=2,
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        share = at_most / count
    return np.where(np.isnan(values) | (count == 0), np.nan, share)


def _as_matrix(values, name):
    array = np.asarray(values, dtype=np.float64)
    if array.ndim not in (1, 2):
        raise ValueError(
            f"{name} must be a 1-D or 2-D array (queries x runs); got {array.ndim} dimensions."
        )
    return array


@_fill_standardizer
class ScoreStandardizer(TransformerMixin, BaseEstimator):
    """Standardize per-query values by each query's reference scores.

    A score of 0.3 on a hard query is not a score of 0.3 on an easy one. `fit` learns, for
    each query, the mean and standard deviation of reference runs' values (a track's
    runs, the systems of a pilot), `transform` puts new per-query values on that query's
    scale, matched by query id: z = (x - m_t) / s_t, then Phi(z), Sakai's linear form or
    z itself; or the empirical CDF of the reference values.

    Parameters
    ----------
    {method}
    {ddof}
    {slope}
    {intercept}
    {clip}
    {zero_sd}

    Attributes
    ----------
    query_ids_ : ndarray of shape (n_queries,)
        The reference queries, in the order given.
    metrics_ : list of str or None
        The metrics, when fitted on a dict metric -> values; None for one array.
    mean_ : ndarray of shape (n_queries,), or dict of str -> ndarray
        m_t of each query (per metric for a dict); NaN where it has too few values.
    scale_ : ndarray of shape (n_queries,), or dict of str -> ndarray
        s_t of each query; exactly 0 where every reference value is equal.
    reference_ : ndarray of shape (n_queries, n_runs), dict of str -> ndarray, or None
        The reference values (``method="ecdf"`` reads them); None when read from a
        zscores file.

    See Also
    --------
    compare : ``compare(..., standardize=fitted)`` tests standardized values.

    Notes
    -----
    A query of the values to transform that the reference lacks is NaN, as is any value
    whose query has no deviation (fewer than ``ddof + 1`` reference values). The same
    z is what ``trec_eval -Z`` prints (``sklearn-rank evaluate -Z``), with its -1000000
    for NaN; `to_zscores_file` and
    `from_zscores_file` write and read its file.

    References
    ----------
    .. [1] W. Webber, A. Moffat and J. Zobel, "Score standardization for
       inter-collection comparison of retrieval systems", SIGIR 2008.
    .. [2] T. Sakai, "A simple and effective approach to score standardisation", ICTIR
       2016.
    .. [3] J. Urbano, H. Lima and A. Hanjalic, "How do metric score distributions affect
       the type I error rate of statistical significance tests in information
       retrieval?", SIGIR 2019 (the standardizations side by side).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_rank import ScoreStandardizer
    >>> reference = np.array([[0.1, 0.2, 0.3, 0.4, 0.5], [0.6, 0.7, 0.8, 0.9, 1.0]])
    >>> standardizer = ScoreStandardizer(method="z").fit(reference, query_ids=["q1", "q2"])
    >>> standardizer.transform([0.6, 0.8], query_ids=["q1", "q2"]).round(6)
    array([1.897367, 0.      ])
    >>> ScoreStandardizer().fit(reference).transform([0.6, 0.8]).round(6)  # Phi(z)
    array([0.97111, 0.5    ])
    """

    def __init__(
        self, method="normal", *, ddof=1, slope=0.15, intercept=0.5, clip=True, zero_sd="nan"
    ):
        self.method = method
        self.ddof = ddof
        self.slope = slope
        self.intercept = intercept
        self.clip = clip
        self.zero_sd = zero_sd

    def _checked(self):
        return {
            name: p.validate(getattr(self, name)) for name, p in STANDARDIZER_PARAMETERS.items()
        }

    def fit(self, X, y=None, *, query_ids=None):
        """Learn each query's mean and standard deviation from reference values.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_runs), or dict of str -> such arrays
            Reference runs' per-query values, one column per run (``result.per_query``
            of a `compare`, or one of its metrics); NaN where a run has no value, never
            infinite.
        y : None
            Ignored.
        query_ids : array-like of shape (n_queries,), default=None
            The query of each row (``result.query_ids``); None: rows are queries 0, 1...

        Returns
        -------
        self : ScoreStandardizer
        """
        params = self._checked()
        by_metric = isinstance(X, dict)
        matrices = X if by_metric else {None: X}
        reference, means, scales = {}, {}, {}
        n_rows = None
        for metric, values in matrices.items():
            where = "X" if metric is None else f"X[{metric!r}]"
            matrix = _as_matrix(values, where)
            infinite = np.isinf(matrix)
            if infinite.any():  # its query's mean would be inf, every value there NaN
                raise ValueError(
                    f"{where} must hold finite values or NaN (a run without a value); got "
                    f"{float(matrix[infinite][0])!r}."
                )
            if matrix.ndim == 1 or matrix.shape[1] < params["ddof"] + 1:
                raise ValueError(
                    f"ScoreStandardizer needs at least {params['ddof'] + 1} reference runs "
                    f"(columns) with ddof={params['ddof']}; got "
                    f"{1 if matrix.ndim == 1 else matrix.shape[1]}."
                )
            if n_rows is not None and matrix.shape[0] != n_rows:
                raise ValueError("Every metric of X must have the same queries (rows).")
            n_rows = matrix.shape[0]
            reference[metric] = matrix
            means[metric], scales[metric] = _reference_statistics(matrix, params["ddof"])
        if n_rows is None:
            raise ValueError("X must hold at least one metric.")
        ids = _as_ids(query_ids, n_rows, "query_ids")
        if np.unique(ids).size != ids.size:
            raise ValueError("query_ids must not repeat a query.")
        self._set(ids, reference, means, scales, by_metric)
        self._positional = query_ids is None
        return self

    def fit_transform(self, X, y=None, *, query_ids=None):
        """`fit` on X, then `transform` X: each reference run standardized by them all.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_runs), or dict of str -> such arrays
            As in `fit`.
        y : None
            Ignored.
        query_ids : array-like of shape (n_queries,), default=None
            As in `fit`.

        Returns
        -------
        ndarray of shape (n_queries, n_runs), or dict of str -> ndarray
        """
        return self.fit(X, query_ids=query_ids).transform(X, query_ids=query_ids)

    def _set(self, ids, reference, means, scales, by_metric):
        self.query_ids_ = ids
        if by_metric:
            self.metrics_, self.mean_, self.scale_ = list(means), means, scales
            self.reference_ = reference
        else:
            self.metrics_ = None
            self.mean_, self.scale_ = means[None], scales[None]
            self.reference_ = None if reference is None else reference[None]

    def _standardized(self, values, rows, metric, params):
        """One metric's values (2-D) standardized, rows of the reference given."""
        found = rows >= 0
        take = np.where(found, rows, 0)
        mean = self.mean_ if metric is None else self.mean_[metric]
        scale = self.scale_ if metric is None else self.scale_[metric]
        mean = np.where(found, mean[take], np.nan)
        scale = np.where(found, scale[take], np.nan)
        method = params["method"]
        if method == "ecdf":
            reference = self.reference_ if metric is None else self.reference_.get(metric)
            if reference is None:
                raise ValueError(
                    "method='ecdf' needs the reference values, which a zscores file does "
                    "not hold: fit on the reference runs' per-query values."
                )
            reference = np.where(found[:, np.newaxis], reference[take], np.nan)
            return _ecdf(values, reference)
        z = _z_values(values, mean, scale, params["zero_sd"])
        if method == "z":
            return z
        if method == "normal":
            return special.ndtr(z)
        linear = params["slope"] * z + params["intercept"]
        return np.clip(linear, 0.0, 1.0) if params["clip"] else linear

    def transform(self, X, *, query_ids=None):
        """Standardize per-query values by the fitted queries' scales.

        Parameters
        ----------
        X : array-like of shape (n_queries,) or (n_queries, n_runs), or dict of str ->
            such arrays
            Per-query values of the runs to standardize, in the form `fit` was given (a
            dict when fitted on a dict, with metrics among ``metrics_``).
        query_ids : array-like of shape (n_queries,), default=None
            The query of each row, matched with ``query_ids_``; None: rows are queries
            0, 1... (only when `fit` was given no ids).

        Returns
        -------
        ndarray of the shape of X, or dict of str -> ndarray
            The standardized values; NaN for a query the reference lacks.
        """
        check_is_fitted(self, "query_ids_")
        params = self._checked()
        if query_ids is None and not getattr(self, "_positional", False):
            raise ValueError(
                "query_ids is needed: the standardizer was fitted with query ids, and rows "
                "are matched by id."
            )
        if isinstance(X, dict) != (self.metrics_ is not None):
            raise ValueError(
                "X must be a dict metric -> values exactly when fit was given one "
                f"(fitted on {'a dict' if self.metrics_ is not None else 'one array'})."
            )
        matrices = X if isinstance(X, dict) else {None: X}
        result = {}
        for metric, values in matrices.items():
            if metric is not None and metric not in self.mean_:
                raise ValueError(
                    f"X[{metric!r}]: the standardizer has no reference for {metric!r} "
                    f"(fitted on {', '.join(map(repr, self.metrics_))})."
                )
            array = _as_matrix(values, "X" if metric is None else f"X[{metric!r}]")
            ids = _as_ids(query_ids, array.shape[0], "query_ids")
            rows = _rows_of(self.query_ids_, ids)
            matrix = array if array.ndim == 2 else array[:, np.newaxis]
            out = self._standardized(matrix, rows, metric, params)
            result[metric] = out if array.ndim == 2 else out[:, 0]
        return result if isinstance(X, dict) else result[None]

    def to_zscores_file(self, path, measure_names=None):
        """Write the fitted means and deviations as trec_eval's zscores file (``-Z``).

        One line per query and measure, ``qid measure mean stddev``, at full precision
        (Python's shortest exact form); a query without a mean for a measure has no line,
        which trec_eval reads as missing.

        Parameters
        ----------
        path : str or path-like
            The file to write.
        measure_names : str, list of str or dict of str -> str, default=None
            trec_eval's printed name of each metric (``map``, ``P_5``, ``ndcg_cut_10``):
            one name when fitted on one array, a list in ``metrics_`` order or a dict
            metric -> name when fitted on a dict; None: the metrics' own names.

        Raises
        ------
        ValueError
            For names that are not one distinct name without whitespace per metric, or
            a query id holding whitespace: the file could not be read back.
        """
        check_is_fitted(self, "query_ids_")
        metrics = self.metrics_ if self.metrics_ is not None else [None]
        if isinstance(measure_names, str):
            measure_names = [measure_names]
        if measure_names is None:
            if self.metrics_ is None:
                raise ValueError(
                    "measure_names is needed: the standardizer was fitted on one array, "
                    "whose measure trec_eval must be told (e.g. measure_names='map')."
                )
            names = dict(zip(metrics, metrics))
        elif isinstance(measure_names, dict):
            names = {m: measure_names.get(m) for m in metrics}
        else:
            measure_names = list(measure_names)
            names = dict(zip(metrics, measure_names))
            if len(measure_names) != len(metrics):
                names = {}
        if len(names) != len(metrics) or any(
            not isinstance(n, str) or not n or n.split() != [n] for n in names.values()
        ):
            raise ValueError(
                f"measure_names must give one name without whitespace to each of "
                f"{len(metrics)} metric(s); got {measure_names!r}."
            )
        if len(set(names.values())) != len(names):
            raise ValueError(
                f"measure_names must be distinct (a file has one line per query and "
                f"measure); got {measure_names!r}."
            )
        # A line is split on whitespace: a query id holding some would give 5 fields.
        for qid in self.query_ids_.tolist():
            if str(qid).split() != [str(qid)]:
                raise ValueError(
                    f"The query id {qid!r} holds whitespace (or is empty): a zscores line "
                    "is 'qid measure mean stddev', split on whitespace."
                )
        lines = []
        for row, qid in enumerate(self.query_ids_.tolist()):
            for metric in metrics:
                mean = self.mean_ if metric is None else self.mean_[metric]
                scale = self.scale_ if metric is None else self.scale_[metric]
                if not (math.isnan(mean[row]) or math.isnan(scale[row])):
                    lines.append(
                        f"{qid} {names[metric]} {float(mean[row])!r} {float(scale[row])!r}\n"
                    )
        with open(path, "w", encoding="utf-8") as file:
            file.writelines(lines)

    @classmethod
    def from_zscores_file(cls, path, *, method="z", **params):
        """A standardizer fitted from trec_eval's zscores file (``trec_eval -Z``).

        Parameters
        ----------
        path : str or path-like
            Lines ``qid measure mean stddev``, whitespace separated, exactly four fields
            (trec_eval's ``get_zscores.c``); ``measure`` is trec_eval's printed name.
        method : str, default="z"
            As the constructor's (``"ecdf"`` needs reference values a file lacks).
        **params
            The constructor's other parameters.

        Returns
        -------
        ScoreStandardizer
            Fitted on a dict: ``metrics_`` are the file's measures in order of first
            appearance, ``query_ids_`` its qids (strings); NaN where a query lacks a
            measure.

        Raises
        ------
        ValueError
            For an empty file, a line without exactly four fields, a mean or stddev that
            is not a finite number (trec_eval reads it as 0), a negative stddev or a
            (qid, measure) given twice.
        """
        standardizer = cls(method=method, **params)
        standardizer._checked()
        entries = _read_zscores(path)
        ids = list(dict.fromkeys(qid for qid, _m, _mean, _sd in entries))
        measures = list(dict.fromkeys(m for _q, m, _mean, _sd in entries))
        row = {qid: i for i, qid in enumerate(ids)}
        means = {m: np.full(len(ids), np.nan) for m in measures}
        scales = {m: np.full(len(ids), np.nan) for m in measures}
        for qid, measure, mean, sd in entries:
            means[measure][row[qid]] = mean
            scales[measure][row[qid]] = sd
        standardizer._set(np.array(ids, dtype=str), {}, means, scales, True)
        standardizer._positional = False
        return standardizer


def _read_zscores(path):
    """(qid, measure, mean, stddev) of each line of a zscores file, checked."""
    with open(path, encoding="utf-8") as file:
        text = file.read()
    if not text:
        raise ValueError(f"The zscores file {path} is empty (trec_eval: Cannot read zscores file).")
    entries, seen = [], set()
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if len(fields) != 4:
            raise ValueError(
                f"{path}, line {number}: a zscores line is 'qid measure mean stddev' (4 "
                f"fields); got {len(fields)} (trec_eval: Malformed line {number})."
            )
        qid, measure = fields[0], fields[1]
        try:
            mean, sd = float(fields[2]), float(fields[3])
        except ValueError:
            raise ValueError(
                f"{path}, line {number}: mean and stddev must be numbers; got "
                f"{fields[2]!r} and {fields[3]!r}."
            ) from None
        if not (math.isfinite(mean) and math.isfinite(sd)) or sd < 0:
            raise ValueError(
                f"{path}, line {number}: mean must be finite and stddev finite and at least "
                f"0; got {fields[2]!r} and {fields[3]!r}."
            )
        if (qid, measure) in seen:
            raise ValueError(f"{path}, line {number}: {qid} {measure} is given twice.")
        seen.add((qid, measure))
        entries.append((qid, measure, mean, sd))
    return entries


# trec_eval's MISSING_ZSCORE_VALUE (trec_eval.h): printed where it has no z.
_TREC_EVAL_MISSING = -1000000.0


def _trec_eval_zscores(standardizer, measure, values, query_ids):
    """``trec_eval -Z``'s value of each query for one measure (convert_zscores.c), from
    `ScoreStandardizer.transform` (``method="z"``, ``zero_sd="nan"``): -1000000 for a
    query or a measure the file lacks, and for a value other than the mean where the
    stddev is 0. A NaN value (-J's 0/0) stays NaN where trec_eval divides it.

    trec_eval's lookup of a measure a query lacks reads one entry past the query's
    lines (the next query's first, or past the array: a crash); that is not reproduced.
    """
    values = np.asarray(values, dtype=np.float64)
    if measure not in standardizer.mean_:
        return np.full(values.shape, _TREC_EVAL_MISSING)
    z = standardizer.transform({measure: values}, query_ids=query_ids)[measure]
    rows = _rows_of(standardizer.query_ids_, query_ids)
    scale = np.where(rows >= 0, standardizer.scale_[measure][np.maximum(rows, 0)], np.nan)
    with np.errstate(invalid="ignore"):
        divided = np.isnan(values) & (scale > 0)
    return np.where(np.isnan(z) & ~divided, _TREC_EVAL_MISSING, z)
