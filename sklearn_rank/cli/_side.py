"""The side inputs of the beyond-accuracy metrics on the command line: ``--train`` (the
training interactions: the items' popularity and each user's history) and
``--item-features`` (numeric features per item: intra-list diversity). `evaluate` takes
them as ``train=``, ``item_features=`` and ``catalog=``.
"""

import csv
import gzip
import io

import numpy as np


def add_options(evaluate):
    side = evaluate.add_argument_group(
        "beyond-accuracy inputs (coverage, novelty, popularity, diversity...)",
        "the catalog is the items of --item-features when given, else every item of the "
        "judgments, the run and --train",
    )
    side.add_argument(
        "--train",
        metavar="FILE",
        help="training interactions table (CSV/TSV with a header row): the query (user) and "
        "item columns, one row per (user, item) pair; the items' popularity and each "
        "user's history",
    )
    side.add_argument(
        "--item-features",
        metavar="FILE",
        help="item features table (CSV/TSV with a header row): the item column, then one "
        "numeric column per feature; one row per catalog item",
    )


def _open_text(path):
    """The table as text, gzip-compressed or not (told by its first two bytes)."""
    with open(path, "rb") as probe:
        compressed = probe.read(2) == b"\x1f\x8b"
    raw = gzip.open(path) if compressed else open(path, "rb")  # noqa: SIM115
    return io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")


def _delimiter(header_line, path):
    name = str(path).removesuffix(".gz")
    for suffix, delimiter in ((".csv", ","), (".tsv", "\t")):
        if name.endswith(suffix) and delimiter in header_line:
            return delimiter
    for delimiter in ("\t", ",", ";"):
        if delimiter in header_line:
            return delimiter
    return ","


def read_item_features(path, item_column):
    """(item ids as str, (n_items, n_features) float64) of an item features table."""
    with _open_text(path) as stream:
        header_line = stream.readline()
        if not header_line.strip():
            raise ValueError(f"{path}:1: the item features table is empty (no header row)")
        delimiter = _delimiter(header_line, path)
        header = [name.strip() for name in next(csv.reader([header_line], delimiter=delimiter))]
        if item_column not in header:
            raise ValueError(
                f"{path}:1: no column {item_column!r} (the item column); the columns are "
                f"{', '.join(map(repr, header))}"
            )
        if len(header) < 2:
            raise ValueError(f"{path}:1: no feature column beside {item_column!r}")
        at = header.index(item_column)
        items, rows = [], []
        for line, fields in enumerate(csv.reader(stream, delimiter=delimiter), start=2):
            if not fields or all(not field.strip() for field in fields):
                continue
            if len(fields) != len(header):
                raise ValueError(
                    f"{path}:{line}: {len(fields)} fields where the header has {len(header)}"
                )
            item = fields[at].strip()
            if not item:
                raise ValueError(f"{path}:{line}: an empty item id")
            try:
                values = [float(field) for i, field in enumerate(fields) if i != at]
            except ValueError:
                raise ValueError(
                    f"{path}:{line}: a feature is not a number: "
                    f"{[f for i, f in enumerate(fields) if i != at]}"
                ) from None
            if not all(np.isfinite(values)):
                raise ValueError(f"{path}:{line}: a feature is not finite")
            items.append(item)
            rows.append(values)
    if not items:
        raise ValueError(f"{path}: the item features table has a header but no rows")
    ids = np.asarray(items)
    unique, counts = np.unique(ids, return_counts=True)
    if (counts > 1).any():
        raise ValueError(f"{path}: item {str(unique[counts > 1][0])!r} is listed twice")
    return ids, np.asarray(rows, dtype=np.float64)


def read_side_inputs(args, truth, run):
    """``train``, ``item_features`` and ``catalog`` for `evaluate` (an empty dict when
    neither --train nor --item-features is given)."""
    if not (args.train or args.item_features):
        return {}
    from ..inputs._files import _parse_table

    item_column = args.item_column or "item"
    side = {}
    train_items = np.asarray([], dtype=str)
    if args.train:
        table = _parse_table(args.train, query=args.query_column or "query", item=item_column)
        side["train"] = (table.queries, table.items)
        train_items = table.items
    if args.item_features:
        ids, features = read_item_features(args.item_features, item_column)
        side["item_features"], side["catalog"] = features, ids
    else:
        found = [np.asarray(truth.items, str), np.asarray(run.items, str), train_items]
        side["catalog"] = np.unique(np.concatenate(found))
    return side
