"""Migrating one file in memory: the options of a run, the cheap check before any parse,
the parse (its errors reported as CPython places them), the codemod, and the file's
result. Never raises for a problem of the file; `runner` runs it over many files."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from .accounting import Account
from .bindings import TRIGGERS, is_generated_bindings
from .modules import module_names
from .old_bindings import OldBindings
from .plan import HelperTemplate
from .rules import Finding

if TYPE_CHECKING:
    from libcst import ParserSyntaxError

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


@dataclass
class FileResult:
    path: Path
    status: Status
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
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

    @property
    def changes(self) -> list[Finding]:
        return [f for f in self.findings if f.kind == "change"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.kind == "warning"]

    @property
    def acknowledged(self) -> list[Finding]:
        return [f for f in self.findings if f.kind == "acknowledged"]


def may_be_affected(data: bytes, extra: Iterable[bytes] = ()) -> bool:
    """The cheap check before any parse: a file that names no chunk class (the bindings'
    or one found in the run, `extra`), no chunk tag and has no star import cannot reach
    a chunk, and no rule acts on it; nor on generated bindings (their header says so)."""
    if not (any(t in data for t in TRIGGER_BYTES) or any(t in data for t in extra)):
        return False
    return not is_generated_bindings(data)


def migrate_bytes(
    path: Path,
    data: bytes,
    options: Options,
    helpers: Mapping[str, HelperTemplate] | None = None,
    refused: Mapping[str, str] | None = None,
) -> FileResult:
    """Migrate one file's bytes; never raises for a problem of this file."""
    import libcst as cst
    from libcst.codemod import CodemodContext

    from .commands import ChunkIdentityCommand

    python_error = _python_syntax_error(path, data)
    problem = _too_deep(python_error)
    if problem is not None:
        return FileResult(path, "failed", error=problem, original=data)
    try:
        module = cst.parse_module(data)
    except cst.ParserSyntaxError as err:
        return FileResult(
            path, "failed", error=f"cannot parse: {_syntax_error(python_error, err)}", original=data
        )
    except (SyntaxError, UnicodeDecodeError, LookupError) as err:  # bad encoding cookie
        return FileResult(path, "failed", error=f"cannot read: {err}", original=data)
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
    )
    command.fresh_tree = True
    command.source = data
    try:
        new_module = command.transform_module(module)
        new = new_module.bytes
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


# What CPython's own parser says when it gives up on nesting (its limits are well below
# the depth at which libcst's native parser overflows its stack and kills the process).
_NESTING_MESSAGES = ("too many nested parentheses", "too many statically nested blocks")


PythonError = SyntaxError | RecursionError | MemoryError


def _python_syntax_error(path: Path, data: bytes) -> PythonError | None:
    """What CPython's parser says about `data` (None: it parses). Asked once per file:
    before libcst (nesting it cannot survive) and for the position of a parse error."""
    try:
        compile(data, str(path), "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, RecursionError, MemoryError) as err:
        return err
    except ValueError:  # NUL bytes: libcst reports those itself
        return None
    return None


def _too_deep(err: PythonError | None) -> str | None:
    """A report for code nested too deeply to parse safely, before libcst tries."""
    if isinstance(err, RecursionError | MemoryError):
        return "cannot parse: nested too deeply for Python's parser, file left unchanged"
    if isinstance(err, SyntaxError) and any(m in (err.msg or "") for m in _NESTING_MESSAGES):
        return f"cannot parse: {err.msg} ({_where(err)}), file left unchanged"
    return None


def _where(err: SyntaxError) -> str:
    # SyntaxError.offset counts characters from 1; reports count columns from 0.
    column = max((err.offset or 1) - 1, 0)
    return f"line {err.lineno}, column {column}"


def _syntax_error(python: PythonError | None, err: ParserSyntaxError) -> str:
    """The parse error as CPython places it (libcst's native parser often reports the
    token after the error, a line too late); libcst's own message when CPython accepts
    the code (syntax newer than this Python)."""
    if isinstance(python, SyntaxError) and python.lineno is not None:
        return f"{python.msg} ({_where(python)})"
    return f"{err.message} (line {err.editor_line}, column {err.editor_column})"
