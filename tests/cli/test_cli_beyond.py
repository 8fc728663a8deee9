"""``--train`` and ``--item-features``: the beyond-accuracy metrics on the command line give
`evaluate`'s values on the same tables."""

import gzip
import json

import numpy as np
import pytest

import sklearn_rank as sr
from sklearn_rank.cli._main import main


def _tables(tmp_path, seed=0, n_users=25, n_items=15):
    """Tables of string ids: test judgments, a scored run, training rows, item features."""
    rng = np.random.default_rng(seed)
    items = [f"i{j}" for j in range(n_items)]
    truth, run, train = [], [], []
    for user in range(n_users):
        for item in rng.choice(items, 2, replace=False):
            truth.append((f"u{user}", item))
        for rank, item in enumerate(rng.choice(items, int(rng.integers(1, 8)), replace=False)):
            run.append((f"u{user}", item, float(10 - rank) if rank % 3 else 10.0 - rank / 2))
        for item in rng.choice(items, int(rng.integers(0, 6)), replace=False):
            train.append((f"u{user}", item))
    features = np.round(rng.random((n_items, 3)), 2)
    paths = {name: tmp_path / f"{name}.csv" for name in ("truth", "run", "train", "features")}
    paths["truth"].write_text("user,item\n" + "".join(f"{u},{i}\n" for u, i in truth))
    paths["run"].write_text("user,item,score\n" + "".join(f"{u},{i},{s}\n" for u, i, s in run))
    paths["train"].write_text("user,item\n" + "".join(f"{u},{i}\n" for u, i in train))
    paths["features"].write_text(
        "item,f1,f2,f3\n" + "".join(f"{i},{a},{b},{c}\n" for i, (a, b, c) in zip(items, features))
    )
    arrays = {
        "truth": sr.ItemJudgments([u for u, _ in truth], [i for _, i in truth]),
        "run": sr.ItemRanking(
            [u for u, _, _ in run], [i for _, i, _ in run], [s for _, _, s in run]
        ),
        "train": (np.array([u for u, _ in train]), np.array([i for _, i in train])),
        "items": np.array(items),
        "features": features,
    }
    return paths, arrays


ARGS = ["--query-column", "user", "--item-column", "item", "--score-column", "score"]


def _json(capsys, arguments):
    assert main(arguments + ["--format", "json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("seed", range(3))
def test_train_gives_evaluates_values_over_every_item_seen(tmp_path, capsys, seed):
    paths, arrays = _tables(tmp_path, seed)
    names = ["ndcg@5", "coverage@5", "gini@5", "novelty@5", "popularity@5", "aplt@5"]
    printed = _json(
        capsys,
        ["evaluate", "--truth", str(paths["truth"]), "--predictions", str(paths["run"])]
        + ARGS
        + ["--train", str(paths["train"]), "-m", *names],
    )
    seen = np.unique(
        np.concatenate([arrays["truth"].items, arrays["run"].items, arrays["train"][1]])
    )
    expected = sr.evaluate(
        arrays["truth"], arrays["run"], names, train=arrays["train"], catalog=seen
    )
    assert printed == pytest.approx(expected, rel=0, abs=0)


def test_item_features_give_the_catalog_and_diversity(tmp_path, capsys):
    paths, arrays = _tables(tmp_path, 1)
    names = ["coverage@5", "diversity@5", "novelty@5"]
    printed = _json(
        capsys,
        ["evaluate", "--truth", str(paths["truth"]), "--predictions", str(paths["run"])]
        + ARGS
        + ["--train", str(paths["train"]), "--item-features", str(paths["features"])]
        + ["-m", *names],
    )
    expected = sr.evaluate(
        arrays["truth"],
        arrays["run"],
        names,
        train=arrays["train"],
        item_features=arrays["features"],
        catalog=arrays["items"],
    )
    assert printed == pytest.approx(expected, rel=0, abs=0)


def test_gzip_features_read_as_plain(tmp_path, capsys):
    paths, _arrays = _tables(tmp_path, 2)
    packed = tmp_path / "features.csv.gz"
    packed.write_bytes(gzip.compress(paths["features"].read_bytes()))
    common = ["evaluate", "--truth", str(paths["truth"]), "--predictions", str(paths["run"])]
    common += ARGS + ["-m", "diversity@3"]
    plain = _json(capsys, common + ["--item-features", str(paths["features"])])
    assert _json(capsys, common + ["--item-features", str(packed)]) == plain


@pytest.mark.parametrize(
    "content, message",
    [
        ("name,f1\na,1\n", "no column 'item'"),
        ("item\na\n", "no feature column"),
        ("item,f1\ni0,1\ni0,2\n", "item 'i0' is listed twice"),
        ("item,f1\ni0,x\n", ":2: a feature is not a number"),
        ("item,f1\ni0,inf\n", ":2: a feature is not finite"),
        ("item,f1,f2\ni0,1\n", ":2: 2 fields where the header has 3"),
        ("", "empty"),
    ],
)
def test_bad_item_features_name_the_file_and_line(tmp_path, capsys, content, message):
    paths, _arrays = _tables(tmp_path, 0)
    bad = tmp_path / "bad.csv"
    bad.write_text(content)
    arguments = ["evaluate", "--truth", str(paths["truth"]), "--predictions", str(paths["run"])]
    arguments += ARGS + ["--item-features", str(bad), "-m", "coverage@5"]
    assert main(arguments) == 2
    error = capsys.readouterr().err
    assert message in error and "bad.csv" in error


def test_an_item_outside_the_features_is_an_error(tmp_path, capsys):
    paths, _arrays = _tables(tmp_path, 0)
    few = tmp_path / "few.csv"
    few.write_text("item,f1\ni0,1\ni1,0\n")
    arguments = ["evaluate", "--truth", str(paths["truth"]), "--predictions", str(paths["run"])]
    arguments += ARGS + ["--item-features", str(few), "-m", "coverage@5"]
    assert main(arguments) == 2
    assert "not in the catalog" in capsys.readouterr().err


def test_example_takes_no_side_files(tmp_path, capsys):
    paths, _arrays = _tables(tmp_path, 0)
    assert main(["evaluate", "--example", "--train", str(paths["train"])]) == 2
    assert "--example takes no input files; got --train" in capsys.readouterr().err
