"""Up-front checks of array arguments, and how bad values are shown in messages.

Every public entry point calls these before touching data, so a bad value is reported
with the parameter's name and the value, never as an error from deep inside numpy.
(Convention parameters are checked by their declarations in `sklearn_rank.conventions`.)
"""

import numpy as np

from ._threads import _over_chunks


def _is_bool(value):
    """Whether ``value`` is True or False, numpy's booleans included.

    Python's bool is an Integral and numpy's is not, so every check of a number (a count,
    a seed, a level) refuses both by this one test rather than by ``isinstance(value, int)``.
    """
    return isinstance(value, (bool, np.bool_))


def _check_per_query(value):
    if not _is_bool(value):
        raise ValueError(f"per_query must be True or False; got {value!r}.")
    return bool(value)


def _num_rows(X):
    """Rows of an array-like, sparse matrix or DataFrame (first dimension)."""
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) >= 1:
        return int(shape[0])
    try:
        return len(X)
    except TypeError:
        raise TypeError(f"X must be an array-like with rows; got {type(X).__name__}.") from None


def _shown(value, width=60):
    """The type and a short repr of a bad argument, for error messages."""
    text = repr(value)
    if len(text) > width:
        text = text[: width - 3] + "..."
    return f"{type(value).__name__} {text}"


def _python_value(value):
    """A numpy scalar as its Python value, so messages show 7, not np.int64(7)."""
    return value.item() if isinstance(value, np.generic) else value


def _check_finite(name, array, n_threads=1):
    """Reject NaN and infinities, naming the parameter and the first bad position."""
    if array.dtype.kind in "biu":  # integers are always finite
        return
    if array.size and not _all_finite(array, n_threads):
        bad = np.flatnonzero(~np.isfinite(array.ravel()))[0]
        index = np.unravel_index(bad, array.shape)
        where = index[0] if len(index) == 1 else tuple(int(i) for i in index)
        raise ValueError(
            f"{name} must contain only finite numbers; got {float(array.ravel()[bad])!r} at "
            f"index {where}."
        )


def _all_finite(array, n_threads):
    # A sum is finite only if every term is (inf and NaN propagate through it), and it
    # reads the array once with no temporary; one that overflows (huge finite values)
    # proves nothing, and the values are then checked one by one.
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.add.reduce(array, axis=None)):
            return True
    if n_threads <= 1 or not array.flags.c_contiguous:
        return bool(np.isfinite(array).all())
    return all(_over_chunks(lambda part: bool(np.isfinite(part).all()), array.ravel(), n_threads))


def _as_score_array(name, values):
    """Scores as float64, except integers, which `_inputs._scores_as` converts later:
    beyond 2**53 they are ranked first, so neighbours do not round into ties."""
    array = _as_float_array(name, values, keep_numeric=True)
    return array if array.dtype.kind in "iu" else np.asarray(array, dtype=np.float64)


_NOT_REAL = (str, bytes, complex, np.complexfloating)


def _first_text(array):
    """Flat index of the first string, bytes or complex number of an object array, or None.

    Every element is looked at (``map`` over the types runs in C); only the few distinct
    types are checked in Python, and the elements again only when one is not real.
    """
    elements = array.ravel().tolist()
    if not any(issubclass(kind, _NOT_REAL) for kind in set(map(type, elements))):
        return None
    return next(i for i, value in enumerate(elements) if isinstance(value, _NOT_REAL))


def _as_float_array(name, values, keep_numeric=False):
    """Convert to a float64 array, with an error naming the parameter for non-numeric input.

    ``keep_numeric`` returns boolean, integer and float arrays as they are.
    """
    if values is None:
        raise ValueError(f"{name} must be an array of numbers; got None.")
    if isinstance(values, np.ma.MaskedArray) and np.ma.is_masked(values):
        # np.asarray would silently use the values under the mask.
        raise ValueError(
            f"{name} is a masked array with masked entries; fill them (values.filled(...)) "
            "or remove those rows: every entry is used."
        )
    try:
        array = np.asarray(values)
    except ValueError as exc:  # ragged nested lists
        raise ValueError(f"{name} must be a rectangular array of numbers: {exc}") from None
    # Dates and durations would become counts of their unit, strings and complex numbers
    # are not relevance or scores (float("1") is 1.0: a string anywhere must be refused).
    if array.dtype.kind in "cUSVMm":
        raise ValueError(f"{name} must contain real numbers; got an array of dtype {array.dtype}.")
    if array.dtype == object:
        bad = _first_text(array)
        if bad is not None:
            index = np.unravel_index(bad, array.shape)
            where = index[0] if len(index) == 1 else tuple(int(i) for i in index)
            raise ValueError(
                f"{name} must contain real numbers; got an array of dtype object holding "
                f"{_shown(array.ravel()[bad])} at index {where}."
            )
    if array.dtype == object:
        missing = np.flatnonzero(np.equal(array.ravel(), None))
        if missing.size:  # float(None) would be NaN, reported as a NaN the caller never passed
            index = np.unravel_index(missing[0], array.shape)
            where = index[0] if len(index) == 1 else tuple(int(i) for i in index)
            raise ValueError(f"{name} must contain real numbers; got None at index {where}.")
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} must contain real numbers; got an array of dtype object "
                "whose elements are not all numbers."
            ) from None
    if keep_numeric and array.dtype.kind in "biuf":
        return array
    return np.asarray(array, dtype=np.float64)
