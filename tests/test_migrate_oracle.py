"""The migration behaviour oracle (tests/migration_oracle/): every downstream case either
migrates to code that delivers the same participants and content as the old code did on
the old bindings, or is reported and left byte-identical. `python -m tests.migration_oracle`
prints the figures."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.migration_oracle import FIGURES
from tests.migration_oracle.cases import CASES
from tests.migration_oracle.harness import Case, evaluate

MINIMUM_CASES = 40


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_case_is_sound(case: Case, tmp_path: Path) -> None:
    verdict = evaluate(case, tmp_path)
    FIGURES[verdict.outcome] += 1
    assert verdict.outcome != "unsound", verdict.explain()
    # Each case says what the tool should do with it, so a lost rewrite shows too.
    assert verdict.outcome == case.expect, verdict.explain()


def test_the_oracle_covers_enough_patterns() -> None:
    assert len(CASES) >= MINIMUM_CASES
    assert len({c.name for c in CASES}) == len(CASES)
    expected = Counter(c.expect for c in CASES)
    # Both outcomes are exercised, so neither "rewrite" nor "report" is vacuous.
    assert expected["equivalent"] >= 20
    assert expected["reported"] >= 10
