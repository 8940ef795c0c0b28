"""Migrating one file in memory: the options of a run, the cheap check before any parse,
the parse (its errors reported as CPython places them), the codemod, and the file's
result. Never raises for a problem of the file; `runner` runs it over many files."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from acp_schema._input import FileStamp
from acp_schema.migrations.chunk_identity.accounting.accounting import Account
from acp_schema.migrations.chunk_identity.accounting.occurrences import REMOVED_BYTES, nfkc_bytes
from acp_schema.migrations.chunk_identity.planning.plan import HelperTemplate
from acp_schema.migrations.framework.findings import Finding
from acp_schema.migrations.framework.parsing import (
    ParseFailure,
    first_difference,
    for_parser,
    parse,
    restore,
)
from acp_schema.migrations.resolution.bindings import TRIGGERS
from acp_schema.migrations.resolution.module_symbols import RunModules
from acp_schema.migrations.resolution.modules import module_names
from acp_schema.migrations.resolution.old_bindings import OldBindings

Status = Literal["changed", "unchanged", "skipped", "failed"]
TRIGGER_BYTES = tuple(t.encode() for t in TRIGGERS)


# libcst holds about a thousand bytes of memory per byte of the module it parses (a 4.8 MB
# module took 5.4 GB): a file the rules may touch that is larger than this is reported and
# left unchanged (`--max-file-size`). Few hand-written modules come near it.
MAX_FILE_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Options:
    rules: frozenset[str]
    bindings: tuple[str, ...] = ()
    todo_comments: bool = False
    old_bindings: OldBindings = field(default_factory=OldBindings)
    max_file_bytes: int = MAX_FILE_BYTES
    run_modules: RunModules = field(default_factory=RunModules)


@dataclass
class FileResult:
    path: Path
    status: Status
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    # The bytes migrated; empty for a file skipped or over the size budget, whose bytes
    # the run does not keep (it reads them again where it needs them).
    original: bytes = b""
    new: bytes | None = None
    helpers: list[HelperTemplate] = field(default_factory=list)
    written: bool = False
    # Helpers of the run (qualified names) this file called with an upsert, and uses of
    # helpers here that cannot get one (name -> why).
    called: set[str] = field(default_factory=set)
    blocked: dict[str, str] = field(default_factory=dict)
    # The helper rewrites this file's changes belong to ("root:module.name"): files
    # sharing one must be written together (see `write_groups`).
    units: frozenset[str] = frozenset()
    # Every occurrence of a removed name in the file, with its verdict (`accounting`).
    accounts: list[Account] = field(default_factory=list)
    # The file as it was read when `original` was (the run sets it): what the writer
    # checks right before putting the new bytes in place.
    stamp: FileStamp | None = None

    @property
    def changes(self) -> list[Finding]:
        return [f for f in self.findings if f.kind == "change"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.kind == "warning"]

    @property
    def acknowledged(self) -> list[Finding]:
        return [f for f in self.findings if f.kind == "acknowledged"]


def reaches(data: bytes, extra: Iterable[bytes] = ()) -> bool:
    """Whether a rule may act on the file: it names a chunk class (the bindings' or one
    found in the run, `extra`), a chunk tag, or has a star import (NFKC, as
    `may_be_affected`). Other files only need their occurrences accounted."""
    if not data.isascii():
        data = nfkc_bytes(data)
    return any(t in data for t in TRIGGER_BYTES) or any(t in data for t in extra)


def may_be_affected(data: bytes, extra: Iterable[bytes] = ()) -> bool:
    """The cheap check before any parse: a file that names no removed name, no chunk
    class (the bindings' or one found in the run, `extra`), no chunk tag and has no star
    import has nothing to account and nothing a rule acts on. Names are compared as
    Python reads identifiers (NFKC: a fullwidth `S` still spells `SessionMessageChunk`)."""
    if not data.isascii():
        data = nfkc_bytes(data)
    return (
        any(t in data for t in TRIGGER_BYTES)
        or any(t in data for t in extra)
        or any(t in data for t in REMOVED_BYTES)
    )


def migrate_bytes(
    path: Path,
    data: bytes,
    options: Options,
    helpers: Mapping[str, HelperTemplate] | None = None,
    refused: Mapping[str, str] | None = None,
) -> FileResult:
    """Migrate one file's bytes; never raises for a problem of this file."""
    from libcst.codemod import CodemodContext

    from acp_schema.migrations.chunk_identity.commands import ChunkIdentityCommand

    text, layout = for_parser(data)  # what libcst takes (CR line ends, form feeds)
    try:
        module = parse(path, text)
    except ParseFailure as err:
        return FileResult(path, "failed", error=str(err), original=data)
    names = module_names(path)
    name, package = names.name, names.package
    context = CodemodContext(filename=str(path), full_module_name=name, full_package_name=package)
    command = ChunkIdentityCommand(
        context,
        bindings=options.bindings,
        todo_comments=options.todo_comments,
        rules=options.rules,
        helpers=helpers,
        repository_wide=True,
        old_bindings=options.old_bindings,
        refused=refused,
        run_modules=options.run_modules,
    )
    command.fresh_tree = True
    command.source = text
    try:
        lost = first_difference(text, module.bytes)
        if lost is not None:  # a libcst defect: every edit would carry the loss to disk
            return FileResult(
                path,
                "failed",
                error=f"cannot migrate: libcst does not give this file back as it was (line "
                f"{lost} differs); file left unchanged",
                original=data,
            )
        new_module = command.transform_module(module)
        restored = restore(new_module.bytes, text, layout)
        if restored is None:
            return FileResult(
                path,
                "failed",
                error="cannot migrate: a line whose indentation libcst cannot keep (a form "
                "feed, a comment at the end of the file) would be rewritten; file left unchanged",
                original=data,
            )
        new = restored
    except (RecursionError, MemoryError) as err:
        return FileResult(
            path,
            "failed",
            error=f"too deeply nested for libcst ({type(err).__name__}), file left unchanged",
            original=data,
        )
    except Exception as err:  # isolate the failure to this file, keep its message
        return FileResult(
            path,
            "failed",
            error=f"internal error, file left unchanged: {type(err).__name__}: {err}",
            original=data,
        )
    return FileResult(
        path,
        "changed" if new != data else "unchanged",
        findings=list(command.findings),
        original=data,
        new=new if new != data else None,
        helpers=list(command.exported_helpers),
        called=set(command.called_helpers),
        blocked=dict(command.blocked_helpers),
        accounts=list(command.accounts),
    )
