"""`python -m tests.migration_oracle`: run every case and print the figures."""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

from . import figures_line
from .cases import CASES
from .harness import evaluate


def main() -> int:
    counts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for number, case in enumerate(CASES):
            verdict = evaluate(case, Path(tmp) / str(number))
            counts[verdict.outcome] += 1
            if verdict.outcome != case.expect:
                print(verdict.explain(), end="\n\n")
    print(figures_line(counts))
    return 1 if counts["unsound"] else 0


if __name__ == "__main__":
    sys.exit(main())
