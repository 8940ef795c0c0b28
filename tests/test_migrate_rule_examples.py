"""Every rule's own examples (migrations/examples.py, Fixit style): `Valid` code is left
exactly as it is without a word from the rule; `Invalid` code is rewritten to its fixed
form, or reported at the lines it names and left unchanged."""

from __future__ import annotations

from types import ModuleType

import pytest

from acp_schema.migrations.chunk_identity import rule_ids as rules
from acp_schema.migrations.chunk_identity.accounting import accounting
from acp_schema.migrations.chunk_identity.commands import ChunkIdentityCommand
from acp_schema.migrations.chunk_identity.rules import (
    chunk_builder,
    chunk_constructor,
    chunk_dict,
    chunk_import,
    chunk_read,
)
from acp_schema.migrations.framework.examples import Example, Invalid, Valid

from .migrate_support import run_codemod

RULE_MODULES: dict[str, ModuleType] = {
    rules.CONSTRUCTOR: chunk_constructor,
    rules.BUILDER: chunk_builder,
    rules.DICT: chunk_dict,
    rules.READ: chunk_read,
    rules.IMPORT: chunk_import,
    rules.OCCURRENCE: accounting,
}
CASES = [
    (rule, index, example)
    for rule, module in RULE_MODULES.items()
    for index, example in enumerate(module.EXAMPLES)
]


def test_every_rule_has_valid_and_invalid_examples() -> None:
    for rule, module in RULE_MODULES.items():
        kinds = {type(e) for e in module.EXAMPLES}
        assert kinds == {Valid, Invalid}, rule


@pytest.mark.parametrize(("rule", "index", "example"), CASES, ids=[f"{r}-{i}" for r, i, _ in CASES])
def test_rule_example(rule: str, index: int, example: Example) -> None:
    code, findings, _ = run_codemod(example.source, command=ChunkIdentityCommand, rules=[rule])
    warned = sorted(f.line for f in findings if f.rule == rule and f.kind == "warning")
    if isinstance(example, Valid):
        assert code == example.source
        assert [f for f in findings if f.rule == rule] == [], example.why
        return
    assert code == example.expected, example.why
    assert warned == sorted(example.lines), [f.message for f in findings]
    if example.fixed is not None:
        assert any(f.rule == rule and f.kind == "change" for f in findings)
