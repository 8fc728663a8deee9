"""Regenerate the tables of docs/metrics.md: metrics and their names in other tools from
the registry, conventions and measure parameters from their declarations.

Run `python docs/update_tables.py`; tests/metrics/test_registry.py fails when a table is stale.
"""

import re
from pathlib import Path

from sklearn_rank.conventions._declarations import _markdown_table as conventions_table
from sklearn_rank.metrics._names import _markdown_names_table as names_table
from sklearn_rank.metrics._registry import _markdown_table as metrics_table
from sklearn_rank.metrics._registry import _parameters_table as parameters_table

PAGE = Path(__file__).with_name("metrics.md")
TABLES = {
    "registry": metrics_table,
    "parameters": parameters_table,
    "names": names_table,
    "conventions": conventions_table,
}


def render(text):
    for name, table in TABLES.items():
        block = re.compile(rf"(<!-- {name}:start[^>]*-->\n).*?(<!-- {name}:end -->)", re.S)
        text = block.sub(lambda m, table=table: m.group(1) + table() + m.group(2), text)
    return text


if __name__ == "__main__":
    PAGE.write_text(render(PAGE.read_text()))
