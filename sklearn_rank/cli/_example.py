"""Built-in example data: the worked example of Apache Hivemall's "Ranking Measures" page."""

from ._output import _format_value

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


def print_example_table(precision=4):
    """Print Hivemall's eight top-k metrics on its worked example, at top-4 and top-2, and
    graded NDCG, with ``precision`` decimals (None: full precision)."""
    from ..metrics import evaluate

    def shown(value):
        return _format_value(value, precision)

    width = 20 if precision is None else max(10, precision + 6)
    cut_offs = (4, 2)
    names = [f"{name}@{k}" for _label, name in HIVEMALL_ROWS for k in cut_offs]
    values = evaluate(HIVEMALL_TRUTH, HIVEMALL_RANKINGS, names, ap_denominator="relevant")
    print("Hivemall's worked example: truth {1, 2, 4}, ranked list [1, 3, 2, 6]")
    print(f"{'measure':<22}{'top-4':>{width}}{'top-2':>{width}}")
    for label, name in HIVEMALL_ROWS:
        row = "".join(f"{shown(values[f'{name}@{k}']):>{width}}" for k in cut_offs)
        print(f"{label:<22}{row}")
    graded = evaluate(
        HIVEMALL_GRADED_TRUTH, HIVEMALL_GRADED_SCORES, ["ndcg@2", "ndcg@3"], gain="exponential"
    )
    print("\nGraded, exponential gain 2^rel - 1:")
    for name, value in graded.items():
        print(f"{name.upper():<22}{shown(value):>{width}}")
