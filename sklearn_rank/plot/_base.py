"""What every Display shares: the matplotlib check, convention keywords and labels.

matplotlib is imported inside functions only: importing `sklearn_rank.plot` never
imports it.
"""

import textwrap
import warnings
from collections.abc import Mapping

from ..conventions._declarations import CONVENTION, CONVENTIONS, QUIET_DEFAULTS, resolve
from ..utils._validation import _shown

INSTALL = 'pip install "sklearn-rank[plot]"'
CONVENTION_NAMES = (CONVENTION.name, *CONVENTIONS)


def _check_matplotlib(caller):
    """Raise an ImportError that says how to install matplotlib when it is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise ImportError(f"{caller} requires matplotlib; install it with: {INSTALL}") from exc


def _axes(ax):
    """``ax``, or the axes of a new figure (laid out so that an outside legend fits)."""
    if ax is None:
        import matplotlib.pyplot as plt

        _figure, ax = plt.subplots(layout="constrained")
    return ax


def _check_ax(caller, ax):
    """Refuse an ``ax`` that is not a matplotlib Axes before any work (else matplotlib fails
    later with an AttributeError that names neither the parameter nor the value)."""
    if ax is None:
        return
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise TypeError(f"{caller}: ax must be a matplotlib Axes or None; got {_shown(ax)}.")


def _check_style(caller, parameter, style):
    """A ``*_kwargs`` styling dict (None: empty), checked to be a dict of keyword names."""
    if style is None:
        return {}
    if not isinstance(style, Mapping) or not all(isinstance(key, str) for key in style):
        raise TypeError(
            f"{caller}: {parameter} must be a dict of matplotlib properties (such as "
            f"{{'color': 'red'}}) or None; got {_shown(style)}."
        )
    return dict(style)


def _style(caller, parameter, style, deprecated):
    """The styling of a Display method: its ``*_kwargs`` dict, or the properties given as
    keyword arguments, the spelling deprecated in 0.2 (called from the public method: the
    warning names its caller's line)."""
    style = _check_style(caller, parameter, style)
    if not deprecated:
        return style
    if style:
        raise TypeError(
            f"{caller}: pass the properties in {parameter} only; got {parameter} and the "
            f"keyword arguments {', '.join(sorted(deprecated))}."
        )
    warnings.warn(
        f"{caller}: passing matplotlib properties as keyword arguments "
        f"({', '.join(sorted(deprecated))}) is deprecated in version 0.2 and will be removed "
        f"in 0.4; pass {parameter}={{...}} instead.",
        FutureWarning,
        stacklevel=3,
    )
    return dict(deprecated)


def _conventions(caller, conventions):
    """The convention keywords given to a ``from_*`` method, their names checked."""
    unknown = sorted(set(conventions) - set(CONVENTION_NAMES))
    if unknown:
        raise TypeError(
            f"{caller} got an unexpected keyword argument {unknown[0]!r}; the convention "
            f"parameters are {', '.join(CONVENTION_NAMES)}."
        )
    return conventions


def _format(value):
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _convention_label(conventions, applies=(), extra=()):
    """A short text of the conventions in force for a metric, for axis labels.

    ``conventions``: the keywords given (``convention`` and convention parameters);
    ``applies``: the parameters that matter to the metric beyond ``ties``, shown with
    their values in force when no preset is named; ``extra``: (name, value) pairs that
    are not conventions (the trec_eval rounding rule).
    """
    given = {name: value for name, value in conventions.items() if value is not None}
    preset = given.pop(CONVENTION.name, None)
    resolved = resolve(preset, {name: given[name] for name in given if name in CONVENTIONS})
    if preset is not None:
        shown = [f"convention={preset}"] + [f"{name}={_format(given[name])}" for name in given]
    else:
        names = ["ties", *applies]
        names += [name for name in given if name not in names]
        shown = []
        for name in names:
            value = resolved.get(name)
            if value is None or (QUIET_DEFAULTS.get(name) == value and name not in given):
                continue
            shown.append(f"{name}={_format(value)}")
    shown += [f"{name}={_format(value)}" for name, value in extra]
    return ", ".join(shown)


def _legend(ax):
    """A legend of every labelled artist on ``ax``: inside up to 4 entries, beside the
    axes beyond (it would hide the curves)."""
    _handles, labels = ax.get_legend_handles_labels()
    if not labels:
        return
    if len(labels) <= 4:
        ax.legend(loc="best")
    else:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")


def _integer_ticks(axis):
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def _label_axes(ax, xlabel, quantity, convention_label):
    """Axis labels: the quantity on y; the conventions in force under the x label, where a
    long list has the room of the axes' width."""
    ax.set_ylabel(quantity)
    if convention_label:
        xlabel += "\n(" + textwrap.fill(convention_label, width=80, break_on_hyphens=False) + ")"
    ax.set_xlabel(xlabel)
