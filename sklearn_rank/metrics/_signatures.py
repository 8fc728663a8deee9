"""The convention parameters of `evaluate` and of every metric function, generated.

Which conventions a metric function takes is read from the declarations
(`conventions._declarations.CONVENTIONS`) and the registry: a convention that no registry
entry claims (``ties``, ``no_relevant``, ``tie_break``, ``query_set``, ``score_dtype``)
applies to every metric; the others (``gain``, ``log_base``, ``ap_denominator``...) only to
the metrics that list them. `_with_conventions` adds them, with ``convention``, to a
function's signature and docstring, and refuses one that does not apply with a message
that names the functions it applies to.
"""

import functools
import inspect
import textwrap

from ..conventions._declarations import CONVENTION, CONVENTIONS
from ..conventions._docs import _PARAMETERS
from ._registry import METRICS

_PLACEHOLDER = "{conventions}"


def _claimed():
    return {name for metric in METRICS.values() for name in metric.conventions}


def _applicable(metric):
    """Names of the conventions that apply to ``metric`` (a registry entry), in the
    declarations' order; every convention when ``metric`` is None (`evaluate`)."""
    claimed = _claimed()
    return tuple(
        name
        for name in CONVENTIONS
        if metric is None or name not in claimed or name in metric.conventions
    )


def _where_it_goes(name):
    """'gain applies to cg_score, dcg_score, ndcg_score and evaluate'."""
    functions = [m.function for m in METRICS.values() if name in _applicable(m)]
    return f"{name} applies to {', '.join(functions)} and evaluate"


def _no_relevant_doc(metric):
    if metric is not None and metric.no_relevant_default == "skip":
        default = (
            'None (default): "skip", for every input: 0 would be the best possible score of '
            "this lower-is-better metric."
        )
    else:
        own = 'each metric\'s own (0.0; "skip" for ``arp``)' if metric is None else "0.0"
        default = (
            f"None (default): {own} for arrays, dense or sparse (scikit-learn's value); "
            '"skip", with a warning, for inputs with item ids (`ItemRanking`, `ItemJudgments`, '
            "ranked lists), as recommender libraries leave out users without test items; with "
            "a ``convention``, that tool's value."
        )
    return (
        'no_relevant : float, "skip", "error" or None, default=None\n'
        + textwrap.indent(CONVENTIONS["no_relevant"].doc, "    ")
        + "\n"
        + textwrap.fill(default, 88, initial_indent="    ", subsequent_indent="    ")
    )


def _convention_docs(metric, n_jobs=True):
    """The Parameters entries of ``convention``, of every applicable convention and of
    ``n_jobs``."""
    entries = [CONVENTION.numpydoc()]
    for name in _applicable(metric):
        if name == "no_relevant":
            entries.append(_no_relevant_doc(metric))
        else:
            entries.append(CONVENTIONS[name].numpydoc())
    if n_jobs:
        entries.append(_PARAMETERS["n_jobs"])
    return "\n".join(entries)


def _fill_conventions(doc, metric, n_jobs=True):
    lines = []
    for line in doc.splitlines():
        if line.strip() == _PLACEHOLDER:
            indent = line[: len(line) - len(line.lstrip())]
            lines.append(textwrap.indent(_convention_docs(metric, n_jobs), indent))
        else:
            lines.append(line)
    return "\n".join(lines)


def _signature(function, metric, n_jobs=True):
    """``function``'s signature with ``**conventions`` replaced by ``convention``, the
    applicable conventions and ``n_jobs`` (keyword-only, default None), placed before
    ``per_query``."""
    parameters = [
        p
        for p in inspect.signature(function).parameters.values()
        if p.kind != p.VAR_KEYWORD and p.name != "convention"
    ]
    names = ("convention", *_applicable(metric)) + (("n_jobs",) if n_jobs else ())
    added = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None) for name in names
    ]
    at = next((i for i, p in enumerate(parameters) if p.name == "per_query"), len(parameters))
    return inspect.Signature(parameters[:at] + added + parameters[at:])


def _with_conventions(metric_name=None, *, n_jobs=True):
    """Give a function written with ``**conventions`` the convention parameters of its
    metric (every one for `evaluate`, ``metric_name`` None), and ``n_jobs`` unless told
    not to, and document them (at a ``{conventions}`` line of its docstring).

    A convention that does not apply is refused with a TypeError that says where it
    goes; any other unexpected argument gets Python's own TypeError.
    """
    metric = None if metric_name is None else METRICS[metric_name]

    def decorate(function):
        signature = _signature(function, metric, n_jobs)
        known = set(signature.parameters)

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            for name in kwargs:
                if name not in known and name in CONVENTIONS:
                    raise TypeError(
                        f"{function.__name__}() takes no {name!r}: {_where_it_goes(name)}."
                    )
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError as exc:  # as Python says it, with the function's name
                raise TypeError(f"{function.__name__}() {exc}") from None
            return function(*bound.args, **bound.kwargs)

        wrapper.__signature__ = signature
        wrapper.__doc__ = _fill_conventions(function.__doc__, metric, n_jobs)
        return wrapper

    return decorate
