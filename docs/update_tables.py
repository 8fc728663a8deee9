"""Regenerate the metric table and the name table of docs/metrics.md from the registry.

Run `python docs/update_tables.py`; tests/test_registry.py fails when the table is stale.
"""

import re
from pathlib import Path

from sklearn_rank.metrics._names import _markdown_names_table
from sklearn_rank.metrics._registry import _markdown_table

PAGE = Path(__file__).with_name("metrics.md")
BLOCK = re.compile(r"(<!-- registry:start[^>]*-->\n).*?(<!-- registry:end -->)", re.S)
NAMES = re.compile(r"(<!-- names:start[^>]*-->\n).*?(<!-- names:end -->)", re.S)


def render(text):
    text = BLOCK.sub(lambda m: m.group(1) + _markdown_table() + m.group(2), text)
    return NAMES.sub(lambda m: m.group(1) + _markdown_names_table() + m.group(2), text)


if __name__ == "__main__":
    PAGE.write_text(render(PAGE.read_text()))
