"""``sklearn-rank evaluate --plot``: the metric@k curves of the evaluated metrics, saved as
a figure (matplotlib is imported here only, when the option is given)."""

import os

from ._output import _warn


def save_curves(args, truth, run, names, conventions):
    """Each metric of ``names`` that has a cut-off, at k = 1..K, in one figure."""
    import numpy as np
    from matplotlib.figure import Figure

    from ..conventions._declarations import resolve
    from ..metrics._curves import _CURVES, _metric_curves
    from ..metrics._names import _parse_name
    from ..plot import MetricAtKDisplay
    from ..plot._base import _convention_label, _label_axes

    parsed = [_parse_name(name) for name in names]
    metrics = list(dict.fromkeys(m.name for m, _k in parsed if m.name in _CURVES))
    if not metrics:
        raise ValueError(
            f"--plot draws metrics at every cut-off k = 1..K; none of {', '.join(names)} "
            "has such a curve"
        )
    left_out = [name for name, (m, _k) in zip(names, parsed) if m.name not in _CURVES]
    if left_out:
        _warn(f"--plot leaves out {', '.join(left_out)}: no curve over the cut-off")
    k_max = max((k for _m, k in parsed if k is not None), default=20)
    curves = _metric_curves(
        metrics,
        truth,
        run,
        k_max=k_max,
        groups=None,
        exclude=None,
        sample_weight=None,
        per_query=False,
        conventions=resolve(
            conventions.get("convention"),
            {name: value for name, value in conventions.items() if name != "convention"},
        ),
        n_jobs=args.jobs,
    )
    figure = Figure(layout="constrained")
    ax = figure.subplots()
    run_name = "example" if args.example else os.path.basename(args.run or args.predictions)
    # Each legend entry gives the value the table prints beside it: the metric at the
    # cut-off it was asked at (the largest, if several; k_max if none), not at k_max.
    shown_k = {}
    for metric, k in parsed:
        if metric.name in _CURVES:
            shown_k[metric.name] = max(shown_k.get(metric.name) or 0, k or 0) or None
    decimals = 4 if args.precision is None else args.precision
    for metric in metrics:
        k = shown_k[metric] or k_max
        value = curves[metric][k - 1]
        label = f"{metric}@{k} = {value:.{decimals}f}"
        MetricAtKDisplay(np.arange(1, k_max + 1), curves[metric], metric=metric).plot(
            ax=ax, line_kwargs={"label": label}
        )
    applies = sorted({c for m, _k in parsed if m.name in _CURVES for c in m.conventions})
    _label_axes(ax, "cut-off k", "metric@k", _convention_label(conventions, applies))
    ax.set_title(run_name)
    figure.savefig(args.plot)
