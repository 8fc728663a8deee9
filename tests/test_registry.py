"""The registry is the single source: public functions, evaluate and docs agree with it."""

import inspect
import sys
from pathlib import Path

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.metrics._registry import METRICS

DOCS = Path(__file__).resolve().parent.parent / "docs"
sys.path.insert(0, str(DOCS))
import update_tables  # noqa: E402

CONVENTION_PARAMETERS = {
    "relevance_threshold",
    "short_lists",
    "ap_denominator",
    "gain",
    "log_base",
    "iprec_rounding",
}


@pytest.mark.parametrize("name", sorted(METRICS))
def test_function_signature_matches_registry(name):
    metric = METRICS[name]
    function = getattr(sr, metric.function)
    assert metric.function in sr.__all__
    parameters = inspect.signature(function).parameters
    assert list(parameters)[:2] == ["y_true", "y_score"]
    assert ("k" in parameters) == metric.takes_k
    assert CONVENTION_PARAMETERS & set(parameters) == set(metric.conventions)
    for common in ("groups", "sample_weight", "ties", "no_relevant", "per_query"):
        assert common in parameters
    assert parameters["no_relevant"].default == metric.no_relevant_default
    assert parameters["ties"].default == "average"
    for own in metric.parameters:  # the measure's own parameters, with their defaults
        assert parameters[own.name].default == own.default, own.name


@pytest.mark.parametrize("name", sorted(METRICS))
def test_function_equals_evaluate(name):
    rng = np.random.default_rng(5)
    y_true = rng.integers(0, 3, (6, 5))
    y_score = rng.integers(0, 3, (6, 5)).astype(float)
    metric = METRICS[name]
    function = getattr(sr, metric.function)
    for ties in ("average", "stable"):
        kwargs = {"k": 3} if metric.takes_k else {}
        label = f"{name}@3" if metric.takes_k else name
        direct = function(y_true, y_score, ties=ties, per_query=True, **kwargs)
        shared = sr.evaluate(y_true, y_score, [label, "ndcg@2", "map"], ties=ties, per_query=True)[
            label
        ]
        np.testing.assert_array_equal(direct, shared)


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
    names = sr.get_metric_names()
    for metric in METRICS.values():
        assert metric.name in names
        assert (metric.name + "@K" in names) == metric.takes_k


def test_docs_table_is_generated_from_registry():
    page = (DOCS / "metrics.md").read_text()
    assert update_tables.render(page) == page, "run python docs/update_tables.py"


def test_every_public_name_is_in_the_docs():
    pages = "".join(page.read_text() for page in DOCS.glob("*.md"))
    for name in sr.__all__:
        assert f"`{name}" in pages, name
