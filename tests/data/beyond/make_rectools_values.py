"""Record RecTools 0.19.0's values on the seeded data of
tests/metrics/test_beyond_accuracy.py (`_rectools_case`), into rectools_values.json.

RecTools pins numpy < 2, so it does not install beside the test extra: run this in a venv
of its own (python -m venv /tmp/rt && /tmp/rt/bin/pip install rectools==0.19.0 &&
/tmp/rt/bin/python tests/data/beyond/make_rectools_values.py).
"""

import json
from pathlib import Path

import numpy as np
import pandas as pd
from rectools import Columns
from rectools.metrics import (
    NDCG,
    AvgRecPopularity,
    CatalogCoverage,
    IntraListDiversity,
    MeanInvUserFreq,
    PairwiseHammingDistanceCalculator,
)


def rectools_case():
    """The same data as the test's `_rectools_case` (same seed, same steps)."""
    rng = np.random.default_rng(2024)
    n_users, n_items = 200, 120
    lengths = rng.integers(0, 16, n_users)  # short and empty lists
    top = [rng.permutation(n_items)[:length] for length in lengths]
    train_u = rng.integers(0, 260, 1500)  # users without a list among them
    train_i = np.minimum(rng.zipf(1.5, 1500), n_items - 1) - 1  # cold items: the tail
    test_u = rng.integers(0, n_users, 600)
    test_i = rng.integers(0, n_items, 600)
    features = rng.integers(0, 2, (n_items, 6))
    return top, train_u, train_i, test_u, test_i, features, n_items


def main():
    top, train_u, train_i, test_u, test_i, features, n_items = rectools_case()
    users = np.repeat(np.arange(len(top)), [len(t) for t in top])
    ranks = np.concatenate([np.arange(1, len(t) + 1) for t in top])
    reco = pd.DataFrame(
        {Columns.User: users, Columns.Item: np.concatenate(top), Columns.Rank: ranks}
    )
    prev = pd.DataFrame({Columns.User: train_u, Columns.Item: train_i})
    test = pd.DataFrame({Columns.User: test_u, Columns.Item: test_i}).drop_duplicates()
    features_df = pd.DataFrame(features, index=np.arange(n_items))
    distance = PairwiseHammingDistanceCalculator(features_df)
    out = {}
    for k in (1, 5, 10):
        per_user = {
            "novelty": MeanInvUserFreq(k=k).calc_per_user(reco, prev),
            "popularity": AvgRecPopularity(k=k).calc_per_user(reco, prev),
            "popularity_normalized": AvgRecPopularity(k=k, normalize=True).calc_per_user(
                reco, prev
            ),
            "diversity": IntraListDiversity(k=k, distance_calculator=distance).calc_per_user(reco),
            "ndcg": NDCG(k=k).calc_per_user(reco, test),
            "ndcg_achievable": NDCG(k=k, divide_by_achievable=True).calc_per_user(reco, test),
        }
        out[str(k)] = {
            name: {str(int(u)): float(v) for u, v in series.items()}
            for name, series in per_user.items()
        }
        out[str(k)]["coverage"] = float(
            CatalogCoverage(k=k, normalize=True).calc(reco, np.arange(n_items))
        )
    path = Path(__file__).with_name("rectools_values.json")
    path.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
