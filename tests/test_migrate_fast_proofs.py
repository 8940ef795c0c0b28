"""The ast-only proofs (migrations/chunk_identity/accounting/fast.py) answer only what
the full libcst path answers the same way: on every file of the catalogue, the fixture
trees and the oracle cases that no rule can act on, each verdict and proof kind the
fast path gives equals the full path's, and the fast path answers for most of the
application's own look-alike files."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_schema.migrations.chunk_identity.accounting import fast
from acp_schema.migrations.chunk_identity.accounting.occurrences import scan
from acp_schema.migrations.chunk_identity.file_migration import migrate_bytes, reaches
from acp_schema.migrations.chunk_identity.rule_ids import ALL_RULES
from acp_schema.migrations.chunk_identity.run import Options, _run_modules
from acp_schema.migrations.resolution.bindings import Bindings
from acp_schema.migrations.resolution.modules import forget, module_names
from tests.migration_oracle.catalogue import CATALOGUE
from tests.migration_oracle.harness import _write
from tests.migration_oracle.trees import TREES

from .migrate_support import write_files

TREES_AND_ENTRIES = [(t.name, t.files, True) for t in TREES] + [
    (e.name, e.files, False) for e in CATALOGUE
]
ANSWERED: list[str] = []


@pytest.mark.parametrize(
    ("name", "files", "verbatim"), TREES_AND_ENTRIES, ids=[n for n, _, _ in TREES_AND_ENTRIES]
)
def test_fast_verdicts_equal_the_full_paths(
    name: str, files: dict[str, str], verbatim: bool, tmp_path: Path
) -> None:
    forget()
    if verbatim:
        write_files(tmp_path, files)
    else:
        _write(tmp_path, files)
    paths = sorted(tmp_path.rglob("*.py"))
    names = {p: module_names(p) for p in paths}
    options = Options(rules=ALL_RULES, run_modules=_run_modules(names))
    for path in paths:
        data = path.read_bytes()
        found = scan(data)
        if not found or reaches(data):
            continue
        given = fast.account_file(
            data,
            found,
            names[path].name or path.stem,
            names[path].package,
            Bindings(),
            options.run_modules,
        )
        if given is None:
            continue
        ANSWERED.append(f"{name}:{path.name}")
        full = migrate_bytes(path, data, options)
        assert [(a.verdict, a.proof) for a in given] == [
            (a.verdict, a.proof) for a in full.accounts
        ], (name, path.name)


def test_the_fast_path_answers_for_look_alike_files() -> None:
    # Run after the comparisons above (pytest keeps the file's order).
    assert len(ANSWERED) >= 6, ANSWERED
