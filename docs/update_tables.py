"""Regenerate the tables of docs/metrics.md and docs/beyond_accuracy.md: metrics and their
names in other tools from the registry, conventions and measure parameters from their
declarations.

Run `python docs/update_tables.py`; tests/metrics/test_registry.py fails when a table is stale.
"""

import re
from pathlib import Path

from sklearn_rank.conventions._declarations import _markdown_table as conventions_table
from sklearn_rank.metrics._names import _markdown_names_table as names_table
from sklearn_rank.metrics._registry import _markdown_table as metrics_table
from sklearn_rank.metrics._registry import _parameters_table as parameters_table

PAGES = [Path(__file__).with_name(name) for name in ("metrics.md", "beyond_accuracy.md")]
PAGE = PAGES[0]


def beyond_table():
    """The beyond-accuracy measures, from their registry entries."""
    from sklearn_rank.metrics._beyond_registry import BEYOND_METRICS

    rows = ["| name | value | better | range | what it says |", "|---|---|---|---|---|"]
    for metric in BEYOND_METRICS.values():
        level = "one for all users" if metric.level == "corpus" else "per user, averaged"
        better = "greater" if metric.greater_is_better else "lower"
        rows.append(
            f"| `{metric.name}@K` | {level} | {better} | {metric.value_range} | {metric.summary} |"
        )
    return "\n".join(rows) + "\n"


def beyond_parameters_table():
    """Each beyond-accuracy measure's parameters, from their declarations."""
    from sklearn_rank.conventions._beyond import BEYOND_PARAMETERS

    rows = ["| measure | parameter | values | default | meaning |", "|---|---|---|---|---|"]
    for name, parameters in BEYOND_PARAMETERS.items():
        for parameter in parameters:
            kind = parameter.type_text or parameter.check.describe()
            meaning = " ".join(parameter.doc.split())
            rows.append(
                f"| `{name}` | `{parameter.name}` | {kind} | `{parameter.default!r}` | {meaning} |"
            )
    return "\n".join(rows) + "\n"


TABLES = {
    "registry": metrics_table,
    "parameters": parameters_table,
    "names": names_table,
    "conventions": conventions_table,
    "beyond": beyond_table,
    "beyond_parameters": beyond_parameters_table,
}


def render(text):
    for name, table in TABLES.items():
        block = re.compile(rf"(<!-- {name}:start[^>]*-->\n).*?(<!-- {name}:end -->)", re.S)
        text = block.sub(lambda m, table=table: m.group(1) + table() + m.group(2), text)
    return text


if __name__ == "__main__":
    for page in PAGES:
        page.write_text(render(page.read_text()))
