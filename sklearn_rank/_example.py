"""Built-in example data: the worked example of Apache Hivemall's "Ranking Measures" page."""

# Three users with the same data: relevant items {1, 2, 4}; the recommender scored
# items 1, 3, 2, 6 (item 4, relevant, was never recommended).
HIVEMALL_TRUTH = [{1, 2, 4}] * 3
HIVEMALL_RANKINGS = [[1, 3, 2, 6]] * 3

# The graded variant: item -> relevance, and the scores that rank them.
HIVEMALL_GRADED_TRUTH = [{1: 5, 3: 2, 2: 4, 6: 1, 4: 3}]
HIVEMALL_GRADED_SCORES = [{1: 10.0, 3: 8.0, 2: 6.0, 6: 2.0, 4: 1.0}]

# Rows of the table: label, metric name (without the cut-off).
HIVEMALL_ROWS = (
    ("Recall", "recall"),
    ("Precision", "precision"),
    ("MAP (denominator R)", "map"),
    ("AUC (top-k form)", "auc"),
    ("MRR", "mrr"),
    ("NDCG (binary)", "ndcg"),
    ("Hit rate (1-call)", "hit_rate"),
    ("F1", "f1"),
)
