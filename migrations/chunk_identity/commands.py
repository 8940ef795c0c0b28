"""The migration codemods, usable from `python -m libcst.tool codemod` and from
`acp-schema migrate` (which also hands over the helpers found in the other modules of the run).

    python -m libcst.tool codemod --no-format \\
        -x acp_schema.migrations.commands.ChunkIdentityCommand src/

`ChunkIdentityCommand` runs every rule of the chunk-identity family; each other command
runs one rule (docs/migration.md lists them). They differ only in `RULES`: the planning
lives in `chunk_identity.plan_module` and the rule modules it calls."""

from __future__ import annotations

import argparse
import ast
from collections.abc import Generator, Iterable, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

import libcst as cst
from libcst.codemod import CodemodCommand, CodemodContext
from libcst.metadata import MetadataWrapper

from acp_schema.migrations.chunk_identity import consumers
from acp_schema.migrations.chunk_identity import family as chunk_identity
from acp_schema.migrations.chunk_identity import rule_ids as rules
from acp_schema.migrations.chunk_identity.accounting.accounting import Account, Accountant
from acp_schema.migrations.chunk_identity.accounting.occurrences import scan
from acp_schema.migrations.chunk_identity.planning.plan import Applier, HelperTemplate
from acp_schema.migrations.chunk_identity.planning.planner import Planner
from acp_schema.migrations.chunk_identity.rule_ids import ALL_RULES
from acp_schema.migrations.framework.acknowledge import acknowledgements
from acp_schema.migrations.framework.findings import Finding
from acp_schema.migrations.resolution.bindings import Bindings
from acp_schema.migrations.resolution.facts import METADATA, Facts
from acp_schema.migrations.resolution.module_symbols import ModuleSymbols, RunModules
from acp_schema.migrations.resolution.old_bindings import HINT, OldBindings, find_old_bindings
from acp_schema.migrations.resolution.type_evidence import TypeOracle
from acp_schema.migrations.resolution.value_evidence import ValueEvidence

__all__ = [
    "ChunkBuilderCommand",
    "ChunkConstructorCommand",
    "ChunkDictCommand",
    "ChunkIdentityCommand",
    "ChunkImportCommand",
    "ChunkReadCommand",
    "MigrationCommand",
]


class MigrationCommand(CodemodCommand):
    """Base of the chunk-identity codemods; subclasses narrow `RULES`."""

    DESCRIPTION: str = "Move participant IDs from session message chunks to upserts."
    RULES: ClassVar[frozenset[str]] = ALL_RULES
    METADATA_DEPENDENCIES = METADATA

    def __init__(
        self,
        context: CodemodContext,
        bindings: Sequence[str] = (),
        todo_comments: bool = False,
        rules: Iterable[str] | None = None,
        helpers: Mapping[str, HelperTemplate] | None = None,
        repository_wide: bool = False,
        old_bindings: OldBindings | None = None,
        refused: Mapping[str, str] | None = None,
        run_modules: RunModules | None = None,
    ) -> None:
        super().__init__(context)
        self.refused = dict(refused or {})
        # The run's modules, for type facts across modules (classes, aliases, constants).
        self.run_modules = run_modules or RunModules()
        self.repository_wide = repository_wide
        old = old_bindings or OldBindings()
        self.bindings = Bindings.with_extra(
            bindings or (),
            old.chunk_classes,
            old.without_message,
            old.app_classes,
            (*old.tag_constants, *old.chunk_subclasses),
        )
        self.selected = self.RULES if rules is None else frozenset(rules) & self.RULES
        self.todo_comments = todo_comments
        self.helpers = dict(helpers or {})
        self.findings: list[Finding] = []
        self.exported_helpers: list[HelperTemplate] = []
        # Set by `acp-schema migrate`, which hands over a tree fresh from the parser:
        # then the metadata wrapper need not copy it (the copy doubled time and memory
        # on big modules).
        self.fresh_tree = False
        # The file's bytes when the caller has them (else the tree's code is used), to
        # find acknowledgements in its comments.
        self.source: bytes | None = None
        self.accounts: list[Account] = []
        self.called_helpers: set[str] = set()
        self.blocked_helpers: dict[str, str] = {}

    @staticmethod
    def add_args(arg_parser: argparse.ArgumentParser) -> None:
        arg_parser.add_argument(
            "--bindings",
            action="append",
            default=[],
            metavar="MODULE",
            help="another module whose SessionMessageChunk is the ACP chunk (repeatable)",
        )
        arg_parser.add_argument(
            "--todo-comments",
            action="store_true",
            help="add a TODO comment above every place left for a person",
        )

    @contextmanager
    def _handle_metadata_reference(self, module: cst.Module) -> Generator[cst.Module, None, None]:
        if not self.fresh_tree:
            with super()._handle_metadata_reference(module) as tree:
                yield tree
            return
        previous = self.context.wrapper
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
        with self.resolve(wrapper):
            self.context = replace(self.context, wrapper=wrapper)
            try:
                yield wrapper.module
            finally:
                self.context = replace(self.context, wrapper=previous)

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        facts = Facts(
            tree,
            self,
            self.bindings,
            self.context.full_module_name,
            self.context.full_package_name,
        )
        planner = Planner(
            facts, self.selected, helpers=self.helpers, todo_comments=self.todo_comments
        )
        planner.repository_wide = self.repository_wide
        values = ValueEvidence(facts, TypeOracle(self.bindings, self.run_modules))
        planner.values = values
        source = self.source if self.source is not None else tree.code.encode("utf-8")
        planner.acknowledged = acknowledgements(source)
        planner.refused = self.refused
        plan = chunk_identity.plan_module(planner)
        # Every occurrence of a removed name gets its verdict; those no rule accounts
        # for are reported here (rule chunk-identity/occurrence).
        accountant = Accountant(
            facts,
            plan,
            planner.acknowledged,
            values=values,
            report=rules.OCCURRENCE in self.selected,
            todo_comments=self.todo_comments,
        )
        self.accounts = accountant.account(scan(source))
        self.findings = sorted([*plan.findings, *accountant.findings, *self._vendored(source)])
        self.exported_helpers = plan.exported
        self.called_helpers = plan.called
        self.blocked_helpers = plan.blocked
        result = tree.visit(Applier(plan)) if plan.changes_tree else tree
        assert isinstance(result, cst.Module)
        self.findings = sorted([*self.findings, *self._consumers(tree, result, planner)])
        for finding in self.findings:
            if finding.kind == "warning":
                self.warn(f"{finding.line}:{finding.column}: {finding.rule}: {finding.message}")
        return result

    def _consumers(self, before: cst.Module, after: cst.Module, planner: Planner) -> list[Finding]:
        """Under libcst's runner, rule consumer within this module (`acp-schema migrate`
        looks at the whole run itself)."""
        if self.repository_wide or rules.CONSUMER not in self.selected:
            return []
        name = self.context.full_module_name or "module"
        package = self.context.full_package_name
        try:
            changed = consumers.Module(name, ast.parse(after.code), package)
            original = consumers.Module(name, ast.parse(before.code), package)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return []
        found: set[str] = set()
        for _ in range(10):
            new = consumers.yielders(changed, found) - found
            if not new:
                break
            found |= new
        places = consumers.consumers(original, found)
        if consumers.puts_upserts(changed):
            places += consumers.queue_consumers(original)
        own = ModuleSymbols.of(name, original.tree, package)
        places += [
            r.consumer
            for r in consumers.receivers(changed, lambda m: own if m == name else None)
            if r.module == name
        ]
        return [
            Finding(
                c.line,
                c.column,
                rules.CONSUMER,
                c.message,
                "acknowledged"
                if planner.acknowledged.covers(c.line, rules.CONSUMER)
                else "warning",
            )
            for c in places
        ]

    def _vendored(self, source: bytes) -> list[Finding]:
        """Under libcst's runner (one file at a time), an old chunk class declared here
        cannot be treated as the chunk in the other files: say so where it is declared,
        and how to run the migration so that it is. (`acp-schema migrate` finds such
        classes in the whole run first and reports them itself.)"""
        if self.repository_wide or rules.OLD_BINDINGS not in self.selected:
            return []
        path = Path(self.context.filename or "module.py")
        found = find_old_bindings([(path, source)])
        return [
            Finding(
                d.line,
                d.column,
                rules.OLD_BINDINGS,
                f"{d.kind} `{d.name}` declares {' and '.join(d.fields)}, which chunks no "
                f"longer have: {HINT}; libcst's runner looks at one file at a time, so this "
                "run does not treat it as the chunk: run `acp-schema migrate` on the whole "
                f"tree (it finds such classes), or pass `--bindings {d.module}`",
            )
            for d in found.declarations
        ]


class ChunkIdentityCommand(MigrationCommand):
    DESCRIPTION = (
        "chunk-identity: move participant IDs off SessionMessageChunk onto a SessionMessage "
        "upsert sent before the chunk; take reads from the message; report the rest."
    )
    RULES = rules.ALL_RULES


class ChunkConstructorCommand(MigrationCommand):
    DESCRIPTION = (
        "Move sender_session_id / recipient_session_id passed to SessionMessageChunk(...) "
        "to a SessionMessage upsert sent before the chunk."
    )
    RULES = frozenset({rules.CONSTRUCTOR})


class ChunkBuilderCommand(MigrationCommand):
    DESCRIPTION = (
        "Replace with_sender_session_id / with_recipient_session_id on session message "
        "chunks by a SessionMessage upsert sent before the chunk."
    )
    RULES = frozenset({rules.BUILDER})


class ChunkDictCommand(MigrationCommand):
    DESCRIPTION = (
        "Move senderSessionId / recipientSessionId of raw session_message_chunk payloads "
        "to a raw session_message upsert sent before the chunk."
    )
    RULES = frozenset({rules.DICT})


class ChunkReadCommand(MigrationCommand):
    DESCRIPTION = (
        "Take participant IDs read from session message chunks from the message instead; "
        "report the reads that need a person."
    )
    RULES = frozenset({rules.READ})


class ChunkImportCommand(MigrationCommand):
    DESCRIPTION = "Report names imported from the bindings that the installed bindings lack."
    RULES = frozenset({rules.IMPORT})
