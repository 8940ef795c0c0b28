"""Every proof kind's own examples (migrations/chunk_identity/accounting/proofs/): on
`Valid` code the run changes and reports nothing and at least one occurrence is
unrelated by that kind's proof; on `Invalid` code (near misses) the occurrences the
proof must not cover are reported at the lines given, and none is proven by it."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from acp_schema.migrations.chunk_identity.accounting import proofs
from acp_schema.migrations.chunk_identity.accounting.proofs import generated
from acp_schema.migrations.chunk_identity.rule_ids import ALL_RULES
from acp_schema.migrations.chunk_identity.run import FileResult, Options, run
from acp_schema.migrations.framework.examples import Example, Invalid, Valid

from .migrate_support import write_files

PROOF_MODULES: tuple[ModuleType, ...] = (*proofs.MODULES, generated)
CASES = [(m.KIND, i, e) for m in PROOF_MODULES for i, e in enumerate(m.EXAMPLES)]


def _run(tmp_path: Path, source: str) -> FileResult:
    write_files(tmp_path, {"app/__init__.py": "", "app/agent.py": source})
    results = run(sorted(tmp_path.rglob("*.py")), Options(rules=ALL_RULES))
    return next(r for r in results if r.path.name == "agent.py")


def test_every_proof_kind_has_valid_and_invalid_examples() -> None:
    assert {m.KIND for m in PROOF_MODULES} == set(proofs.KINDS)
    for module in PROOF_MODULES:
        assert {type(e) for e in module.EXAMPLES} == {Valid, Invalid}, module.KIND


@pytest.mark.parametrize(("kind", "index", "example"), CASES, ids=[f"{k}-{i}" for k, i, _ in CASES])
def test_proof_example(kind: str, index: int, example: Example, tmp_path: Path) -> None:
    result = _run(tmp_path, example.source)
    assert result.status != "failed", result.error
    messages = [f.format("agent.py") for f in result.findings]
    if isinstance(example, Valid):
        assert result.new is None, example.why
        assert result.warnings == [], messages
        assert any(a.proof == kind for a in result.accounts), (example.why, result.accounts)
        assert all(a.verdict == "unrelated" for a in result.accounts), result.accounts
        return
    assert sorted({f.line for f in result.warnings}) == sorted(example.lines), messages
    for account in result.accounts:
        if account.occurrence.line in example.lines:
            assert account.proof != kind, account
