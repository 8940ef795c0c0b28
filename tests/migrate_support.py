"""Shared test helpers for the migration tests (tests/test_migrate_*.py)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import libcst as cst
from libcst.codemod import CodemodContext, CodemodTest

from acp_schema.cli import main
from acp_schema.migrations.chunk_identity.commands import ChunkIdentityCommand, MigrationCommand
from acp_schema.migrations.chunk_identity.planning.plan import HelperTemplate
from acp_schema.migrations.chunk_identity.rule_ids import Finding


def migrate(*args: str | Path) -> int:
    """`acp-schema migrate ARGS`; the exit code."""
    return main(["migrate", *map(str, args)])


def write_files(root: Path, files: Mapping[str, str | bytes]) -> Path:
    """Write `files` (path under `root` -> text or bytes), making directories; `root`."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
    return root


def run_codemod(
    source: str,
    *,
    module: str = "app.agent",
    command: type[MigrationCommand] = ChunkIdentityCommand,
    helpers: Mapping[str, HelperTemplate] | None = None,
    **options: Any,
) -> tuple[str, list[Finding], MigrationCommand]:
    """Run a migration command on `source`; return the new code, findings and command."""
    package = module.rpartition(".")[0] or None
    context = CodemodContext(full_module_name=module, full_package_name=package)
    instance = command(context, helpers=helpers, **options)
    tree = instance.transform_module(cst.parse_module(source))
    return tree.code, instance.findings, instance


class MigrationTest(CodemodTest):
    """Before/after tests: each migration is also run a second time, which must change
    nothing and find nothing more to change (idempotence)."""

    TRANSFORM: type[MigrationCommand] = ChunkIdentityCommand

    def migrate(
        self,
        before: str,
        after: str,
        *,
        warnings: Iterable[tuple[str, int]] = (),
        changes: Sequence[str] | None = None,
        module: str = "app.agent",
        **options: Any,
    ) -> list[Finding]:
        """Assert `before` becomes `after`, with these (rule, line) warnings and, if given,
        these change rules; return all findings of the first run."""
        source = self.make_fixture_data(before)
        expected = self.make_fixture_data(after)
        command = self.TRANSFORM
        code, findings, _ = run_codemod(source, module=module, command=command, **options)
        self.assertCodeEqual(expected, code)
        got = [(f.rule, f.line) for f in findings if f.kind == "warning"]
        self.assertEqual(sorted(warnings), sorted(got), [f.message for f in findings])
        if changes is not None:
            made = sorted(f.rule for f in findings if f.kind == "change")
            self.assertEqual(sorted(changes), made)
        again, second, _ = run_codemod(code, module=module, command=command, **options)
        self.assertCodeEqual(expected, again)
        self.assertEqual([], [f for f in second if f.kind == "change"])
        return findings

    def unchanged(self, source: str, **options: Any) -> list[Finding]:
        """Assert `source` is left exactly as it is; return the findings."""
        return self.migrate(source, source, **options)
