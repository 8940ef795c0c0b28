"""The catalogue of downstream patterns (tests/migration_oracle/catalogue.py): no entry
is silent (behaviour changed while `migrate --check` passes on the migrated tree), and
no look-alike gets a report. `python -m tests.migration_oracle --catalogue` prints the
figures."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.migration_oracle.catalogue import CATALOGUE
from tests.migration_oracle.catalogue_harness import Entry, evaluate

OUTCOMES: Counter[str] = Counter()


@pytest.mark.parametrize("entry", CATALOGUE, ids=[e.name for e in CATALOGUE])
def test_entry_is_not_silent(entry: Entry, tmp_path: Path) -> None:
    result = evaluate(entry, tmp_path)
    OUTCOMES[result.outcome] += 1
    # The entry itself is sound: the old program runs and, unless it is a look-alike,
    # sends chunks with participant IDs.
    assert not any("old program fails" in p or "tests nothing" in p for p in result.problems), (
        result.explain()
    )
    assert result.outcome != "silent", result.explain()
    if entry.noise:
        assert result.outcome == "sound-untouched", result.explain()


def test_the_catalogue_is_wide() -> None:
    kinds = Counter(e.kind for e in CATALOGUE)
    assert set(kinds) == {"class-1", "class-2", "class-3", "class-4", "agent", "lookalike"}
    assert sum(kinds.values()) >= 60
    assert len({e.name for e in CATALOGUE}) == len(CATALOGUE)
