"""The registry is the single source: public functions, evaluate and docs agree with it."""

import inspect
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.conventions._declarations import CONVENTION, CONVENTIONS, PRESETS
from sklearn_rank.conventions._measures import MEASURE_PARAMETERS
from sklearn_rank.conventions._sampling import EVALUATE_SAMPLING
from sklearn_rank.conventions._side_inputs import SIDE_INPUTS
from sklearn_rank.metrics._all_metrics import ALL_METRICS
from sklearn_rank.metrics._beyond_registry import BEYOND_METRICS
from sklearn_rank.metrics._registry import METRICS

DOCS = Path(__file__).resolve().parents[2] / "docs"
sys.path.insert(0, str(DOCS))
import update_tables  # noqa: E402

# Conventions about the input and the ordering, which every metric takes; the others
# (gain, log_base, ap_denominator, relevance_threshold, short_lists) only the metrics
# whose registry entry lists them.
EVERY_METRIC = ("ties", "no_relevant", "tie_break", "query_set", "score_dtype", "judged_only")
KEYWORD_ONLY = inspect.Parameter.KEYWORD_ONLY


def _applicable(metric):
    return [name for name in CONVENTIONS if name in EVERY_METRIC or name in metric.conventions]


def _side_inputs(metric, y_true):
    """The side inputs a metric needs (the click-log estimators' propensities), shaped like
    ``y_true``; none for the others."""
    if metric.side_inputs is None:
        return {}
    shape = np.shape(y_true)
    return {"propensity": np.linspace(0.2, 1.0, int(np.prod(shape))).reshape(shape)}


@pytest.mark.parametrize("name", sorted(METRICS))
def test_function_signature_matches_declarations(name):
    metric = METRICS[name]
    function = getattr(sr, metric.function)
    assert metric.function in sr.__all__
    parameters = inspect.signature(function).parameters
    assert list(parameters)[:2] == ["y_true", "y_score"]
    assert ("k" in parameters) == metric.takes_k
    for common in ("groups", "exclude", "sample_weight", "per_query"):
        assert common in parameters
    # Names: convention, then the declared conventions that apply, in declaration order.
    declared = [p for p in parameters if p in CONVENTIONS or p == "convention"]
    assert declared == ["convention", *_applicable(metric)]
    # Defaults: None (the preset's or the declared value), documented as declared.
    doc = inspect.cleandoc(function.__doc__)
    for parameter in declared:
        assert parameters[parameter].default is None
        assert parameters[parameter].kind == KEYWORD_ONLY
        if parameter == "convention":
            assert CONVENTION.numpydoc() in doc
        elif parameter != "no_relevant":
            assert CONVENTIONS[parameter].numpydoc() in doc
    assert 'no_relevant : float, "skip", "error" or None, default=None' in doc
    for own in metric.parameters:  # the measure's own parameters, with their defaults
        assert parameters[own.name].default == own.default, own.name
    shown = repr(metric.no_relevant_default).replace("'", '"')
    assert f"None (default): {shown}" in doc


def test_measure_parameters_are_declared_once():
    # Every metric's own parameter is the one declaration of its name: the same object
    # (so one check, one default and one text for ``p`` of rbp and of rbp_residual).
    used = {}
    for metric in METRICS.values():
        for parameter in metric.parameters:
            assert parameter is MEASURE_PARAMETERS[parameter.name], (metric.name, parameter)
            used.setdefault(parameter.name, set()).add(id(parameter))
    assert set(used) == set(MEASURE_PARAMETERS)
    assert all(len(ids) == 1 for ids in used.values())
    assert not set(MEASURE_PARAMETERS) & set(CONVENTIONS)


@pytest.mark.parametrize(
    "name", sorted(name for name, metric in METRICS.items() if metric.parameters)
)
def test_measure_parameters_are_documented_from_their_declaration(name):
    metric = METRICS[name]
    doc = inspect.cleandoc(getattr(sr, metric.function).__doc__)
    for parameter in metric.parameters:
        text = parameter.numpydoc()
        assert text.splitlines()[1].strip(), parameter.name  # a description, not a blank
        assert text in doc, (metric.function, parameter.name)
        # documented once: no second, hand-written entry of the same name
        assert doc.count(f"\n{parameter.name} : ") == 1, (metric.function, parameter.name)


def test_evaluate_takes_every_declared_convention():
    parameters = inspect.signature(sr.evaluate).parameters
    assert list(parameters) == [
        "y_true",
        "y_score",
        "metrics",
        "groups",
        "exclude",
        "sample_weight",
        "convention",
        *CONVENTIONS,
        "n_jobs",
        "per_query",
        # The side inputs of the beyond-accuracy metrics (coverage, novelty...).
        "train",
        "item_features",
        "catalog",
        *SIDE_INPUTS,
        *EVALUATE_SAMPLING,
    ]
    assert all(
        parameters[name].default is None
        for name in ["convention", *CONVENTIONS, "n_jobs", *SIDE_INPUTS]
    )
    # sampled-negative evaluation: one declaration each (conventions/_sampling.py)
    assert all(parameters[name].default == p.default for name, p in EVALUATE_SAMPLING.items())
    assert "n_jobs : int, default=None" in sr.evaluate.__doc__


@pytest.mark.parametrize("name", sorted(METRICS))
def test_defaults_are_the_declared_defaults(name):
    # Passing every declared default explicitly changes nothing (rows without a relevant
    # item included, so that no_relevant matters).
    metric = METRICS[name]
    function = getattr(sr, metric.function)
    rng = np.random.default_rng(11)
    y_true = rng.integers(0, 3, (8, 6)) * (rng.random((8, 6)) < 0.4)
    y_true[:2] = 0
    y_score = rng.integers(0, 4, (8, 6)).astype(float)
    explicit = {p: CONVENTIONS[p].default for p in _applicable(metric)}
    explicit["no_relevant"] = metric.no_relevant_default
    kwargs = {"k": 3} if metric.takes_k else {}
    kwargs.update(_side_inputs(metric, y_true))
    np.testing.assert_array_equal(
        function(y_true, y_score, per_query=True, **kwargs),
        function(y_true, y_score, per_query=True, **kwargs, **explicit),
    )


@pytest.mark.parametrize("name", sorted(METRICS))
def test_a_convention_that_does_not_apply_says_where_it_goes(name):
    metric = METRICS[name]
    function = getattr(sr, metric.function)
    for convention in set(CONVENTIONS) - set(_applicable(metric)):
        takers = [m.function for m in METRICS.values() if convention in m.conventions]
        with pytest.raises(TypeError, match=f"takes no '{convention}'") as raised:
            function([[1, 0]], [[0.5, 0.2]], **{convention: CONVENTIONS[convention].default})
        assert f"{convention} applies to {', '.join(takers)} and evaluate" in str(raised.value)
    with pytest.raises(TypeError, match=f"{metric.function}\\(\\) got an unexpected"):
        function([[1, 0]], [[0.5, 0.2]], tie="stable")


@pytest.mark.parametrize("name", sorted(METRICS))
def test_function_equals_evaluate(name):
    rng = np.random.default_rng(5)
    y_true = rng.integers(0, 3, (6, 5))
    y_score = rng.integers(0, 3, (6, 5)).astype(float)
    metric = METRICS[name]
    function = getattr(sr, metric.function)
    side = _side_inputs(metric, y_true)
    for ties in ("average", "stable"):
        kwargs = {"k": 3} if metric.takes_k else {}
        label = f"{name}@3" if metric.takes_k else name
        direct = function(y_true, y_score, ties=ties, per_query=True, **kwargs, **side)
        shared = sr.evaluate(
            y_true, y_score, [label, "ndcg@2", "map"], ties=ties, per_query=True, **side
        )[label]
        np.testing.assert_array_equal(direct, shared)
    # A tool's preset, as evaluate applies it (XGBoost's default cut-off included).
    # PSP and PSnDCG refuse to go without a cut-off: they get one.
    needs_k = metric.family == "propensity"
    kwargs, label = ({"k": 3}, f"{name}@3") if needs_k else ({}, name)
    for convention in PRESETS:
        direct = function(y_true, y_score, convention=convention, per_query=True, **kwargs, **side)
        shared = sr.evaluate(
            y_true, y_score, [label], convention=convention, per_query=True, **side
        )
        np.testing.assert_array_equal(direct, shared[label])


@pytest.mark.parametrize("function_name", sr.__all__)
def test_public_docstrings_are_complete(function_name):
    doc = getattr(sr, function_name).__doc__
    assert "Examples\n    --------\n    >>>" in doc
    if function_name in {m.function for m in METRICS.values()} | {"evaluate"}:
        for section in ("Parameters", "Returns", "References"):
            assert f"    {section}\n    ---" in doc, section
        assert "{" + "y_true}" not in doc  # every placeholder was filled
        assert "(n_queries" in doc  # shapes are documented


def test_metric_names_cover_registry():
    # Both registries: the ranking metrics and the beyond-accuracy measures.
    names = sr.get_metric_names()
    assert len(names) == len(set(names))
    for metric in [*METRICS.values(), *BEYOND_METRICS.values()]:
        assert (metric.name in names) == (not metric.needs_k), metric.name
        assert (metric.name + "@K" in names) == metric.takes_k, metric.name
    assert {"coverage@K", "novelty@K", "diversity@K", "pop_reo@K"} <= set(names)
    assert "psp@K" in names and "psp" not in names  # refused without a cut-off
    listed = {name.removesuffix("@K") for name in names}
    assert listed == set(METRICS) | set(BEYOND_METRICS)


def test_every_listed_name_is_accepted_by_evaluate():
    rng = np.random.default_rng(0)
    y_true = rng.integers(0, 3, (6, 8)).astype(float)
    y_score = rng.random((6, 8))
    train = (rng.integers(0, 6, 30), rng.integers(0, 8, 30))
    features = rng.random((8, 3))
    for name in sr.get_metric_names():
        request = name.replace("@K", "@3")
        entry = ALL_METRICS[name.removesuffix("@K")]
        if entry.family == "beyond":  # the training data, the item features
            needs = {"train": train, "item_features": features}
        else:
            needs = _side_inputs(entry, y_true)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # sampled, skipped queries...
            value = sr.evaluate(y_true, y_score, [request], **needs)[request]
        assert isinstance(value, float), name
        assert np.isfinite(value) or entry.name == "arp", name


@pytest.mark.parametrize("name", ["metrics.md", "beyond_accuracy.md"])
def test_docs_table_is_generated_from_registry(name):
    page = (DOCS / name).read_text()
    assert update_tables.render(page) == page, "run python docs/update_tables.py"


def test_every_public_name_is_in_the_docs():
    pages = "".join(page.read_text() for page in DOCS.glob("*.md"))
    for name in sr.__all__:
        assert f"`{name}" in pages, name


def test_the_presets_table_of_the_inputs_page_shows_each_presets_conventions():
    # docs/inputs.md's table once said trec_eval read float32 scores (trec_eval9 does).
    lines = (DOCS / "inputs.md").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| `convention` |"))
    header = [cell.strip(" `") for cell in lines[start].strip("|").split("|")]
    rows = {}
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0].strip('`"')] = dict(zip(header, cells))
    assert set(PRESETS) <= set(rows), set(PRESETS) - set(rows)
    for name, preset in PRESETS.items():
        for column in header[1:]:
            if column not in CONVENTIONS or column == "no_relevant":
                continue
            shown = rows[name][column]
            expected = preset.get(column)
            assert shown == ("–" if expected is None else str(expected)), (name, column)


def test_the_command_line_page_names_every_preset():
    row = next(
        line
        for line in (DOCS / "command_line.md").read_text().splitlines()
        if line.startswith("| `--convention VALUE` |")
    )
    missing = [name for name in PRESETS if f"`{name}`" not in row]
    assert not missing, missing
