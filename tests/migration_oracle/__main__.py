"""`python -m tests.migration_oracle`: run every case and print the figures;
`--catalogue`: the catalogue of downstream patterns instead (one line per entry, then
the figures: sound-migrated / reported / silent, look-alike noise, unrelated verdicts
by proof kind)."""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

from . import figures_line
from .cases import CASES
from .harness import evaluate


def main() -> int:
    if "--catalogue" in sys.argv[1:]:
        return catalogue()
    counts: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for number, case in enumerate(CASES):
            verdict = evaluate(case, Path(tmp) / str(number))
            counts[verdict.outcome] += 1
            if verdict.outcome != case.expect:
                print(verdict.explain(), end="\n\n")
    print(figures_line(counts))
    return 1 if counts["unsound"] else 0


def catalogue() -> int:
    from .catalogue import CATALOGUE
    from .catalogue_harness import evaluate as run_entry

    outcomes: Counter[str] = Counter()
    noise = 0
    proofs: Counter[str] = Counter()
    with tempfile.TemporaryDirectory() as tmp:
        for number, entry in enumerate(CATALOGUE):
            result = run_entry(entry, Path(tmp) / str(number))
            proofs += result.proofs
            if entry.noise:
                noise += result.outcome == "reported"
            else:
                outcomes[result.outcome] += 1
            print(f"{entry.kind:10} {entry.name:55} {result.outcome}")
            if result.outcome == "silent":
                print(result.explain(), end="\n\n")
    looks = sum(e.noise for e in CATALOGUE)
    print(
        f"catalogue: {sum(outcomes.values())} patterns: {outcomes['sound-migrated']} "
        f"sound-migrated, {outcomes['reported']} reported, {outcomes['silent']} silent "
        f"({outcomes['sound-untouched']} needed nothing); look-alikes: {looks}, "
        f"{noise} with a report"
    )
    print(
        "unrelated verdicts by proof kind: "
        + ", ".join(f"{k} {n}" for k, n in proofs.most_common())
    )
    return 1 if outcomes["silent"] or noise else 0


if __name__ == "__main__":
    sys.exit(main())
