"""`python -m sklearn_rank`: every metric on Hivemall's worked example, at top-4 and top-2."""

from ._evaluate import evaluate
from ._example import (
    HIVEMALL_GRADED_SCORES,
    HIVEMALL_GRADED_TRUTH,
    HIVEMALL_RANKINGS,
    HIVEMALL_ROWS,
    HIVEMALL_TRUTH,
)


def main():
    cut_offs = (4, 2)
    names = [f"{name}@{k}" for _label, name in HIVEMALL_ROWS for k in cut_offs]
    values = evaluate(HIVEMALL_TRUTH, HIVEMALL_RANKINGS, names, ap_denominator="relevant")
    print("Hivemall's worked example: truth {1, 2, 4}, ranked list [1, 3, 2, 6]")
    print(f"{'measure':<22}{'top-4':>20}{'top-2':>20}")
    for label, name in HIVEMALL_ROWS:
        row = "".join(f"{values[f'{name}@{k}']!r:>20}" for k in cut_offs)
        print(f"{label:<22}{row}")
    graded = evaluate(
        HIVEMALL_GRADED_TRUTH, HIVEMALL_GRADED_SCORES, ["ndcg@2", "ndcg@3"], gain="exponential"
    )
    print("\nGraded, exponential gain 2^rel - 1:")
    for name, value in graded.items():
        print(f"{name.upper():<22}{value!r:>20}")


if __name__ == "__main__":
    main()
