"""Running the chunk-identity codemod over many files: cheap pre-check, per-file failure
isolation, worker processes, and the second pass for helpers called across modules.

Nothing here writes files: results carry the new bytes, and the CLI decides whether to
write them, print a diff, or only count them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from . import rules
from .bindings import TRIGGERS
from .files import module_name
from .old_bindings import OldBindings, find_old_bindings
from .plan import HelperTemplate
from .rules import Finding

Status = Literal["changed", "unchanged", "skipped", "failed"]
TRIGGER_BYTES = tuple(t.encode() for t in TRIGGERS)


@dataclass(frozen=True)
class Options:
    rules: frozenset[str]
    bindings: tuple[str, ...] = ()
    todo_comments: bool = False
    old_bindings: OldBindings = field(default_factory=OldBindings)


@dataclass
class FileResult:
    path: Path
    status: Status
    findings: list[Finding] = field(default_factory=list)
    error: str | None = None
    original: bytes = b""
    new: bytes | None = None
    encoding: str = "utf-8"
    helpers: list[HelperTemplate] = field(default_factory=list)
    written: bool = False

    @property
    def changes(self) -> list[Finding]:
        return [f for f in self.findings if f.kind == "change"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.kind == "warning"]


def may_be_affected(data: bytes, extra: Iterable[bytes] = ()) -> bool:
    """The cheap check before any parse: a file without any trigger string cannot hold
    anything the rules act on."""
    return any(t in data for t in TRIGGER_BYTES) or any(t in data for t in extra)


def migrate_bytes(
    path: Path,
    data: bytes,
    options: Options,
    helpers: Mapping[str, HelperTemplate] | None = None,
) -> FileResult:
    """Migrate one file's bytes; never raises for a problem of this file."""
    import libcst as cst
    from libcst.codemod import CodemodContext

    from .commands import ChunkIdentityCommand

    problem = _too_deep(path, data)
    if problem is not None:
        return FileResult(path, "failed", error=problem, original=data)
    try:
        module = cst.parse_module(data)
    except cst.ParserSyntaxError as err:
        return FileResult(
            path, "failed", error=f"cannot parse: {_syntax_error(path, data, err)}", original=data
        )
    except (SyntaxError, UnicodeDecodeError, LookupError) as err:  # bad encoding cookie
        return FileResult(path, "failed", error=f"cannot read: {err}", original=data)
    name, package = module_name(path)
    context = CodemodContext(filename=str(path), full_module_name=name, full_package_name=package)
    command = ChunkIdentityCommand(
        context,
        bindings=options.bindings,
        todo_comments=options.todo_comments,
        rules=options.rules,
        helpers=helpers,
        repository_wide=True,
        old_bindings=options.old_bindings,
    )
    command.fresh_tree = True
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
    result = FileResult(
        path,
        "changed" if new != data else "unchanged",
        findings=list(command.findings),
        original=data,
        new=new if new != data else None,
        encoding=module.encoding,
        helpers=list(command.exported_helpers),
    )
    return result


# What CPython's own parser says when it gives up on nesting (its limits are well below
# the depth at which libcst's native parser overflows its stack and kills the process).
_NESTING_MESSAGES = ("too many nested parentheses", "too many statically nested blocks")


def _python_syntax_error(
    path: Path, data: bytes
) -> SyntaxError | RecursionError | MemoryError | None:
    """What CPython's parser says about `data` (None: it parses)."""
    try:
        compile(data, str(path), "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, RecursionError, MemoryError) as err:
        return err
    except ValueError:  # NUL bytes: libcst reports those itself
        return None
    return None


def _too_deep(path: Path, data: bytes) -> str | None:
    """A report for code nested too deeply to parse safely, before libcst tries."""
    err = _python_syntax_error(path, data)
    if isinstance(err, RecursionError | MemoryError):
        return "cannot parse: nested too deeply for Python's parser, file left unchanged"
    if isinstance(err, SyntaxError) and any(m in (err.msg or "") for m in _NESTING_MESSAGES):
        return f"cannot parse: {err.msg} ({_where(err)}), file left unchanged"
    return None


def _where(err: SyntaxError) -> str:
    # SyntaxError.offset counts characters from 1; reports count columns from 0.
    column = max((err.offset or 1) - 1, 0)
    return f"line {err.lineno}, column {column}"


def _syntax_error(path: Path, data: bytes, err: Exception) -> str:
    """The parse error as CPython places it (libcst's native parser often reports the
    token after the error, a line too late); libcst's own message when CPython accepts
    the code (syntax newer than this Python)."""
    import libcst as cst

    assert isinstance(err, cst.ParserSyntaxError)
    python = _python_syntax_error(path, data)
    if isinstance(python, SyntaxError) and python.lineno is not None:
        return f"{python.msg} ({_where(python)})"
    return f"{err.message} (line {err.editor_line}, column {err.editor_column})"


def _migrate_file(
    path: Path, data: bytes, options: Options, helpers: Mapping[str, HelperTemplate] | None
) -> FileResult:
    return migrate_bytes(path, data, options, helpers)


Progress = Callable[[int, int], None]


@dataclass
class Run:
    results: list[FileResult]
    old_bindings: OldBindings


def run(
    files: Sequence[Path],
    options: Options | Mapping[Path, Options],
    *,
    jobs: int = 1,
    progress: Progress | None = None,
) -> list[FileResult]:
    """Migrate `files` in memory (see `run_all`)."""
    return run_all(files, options, jobs=jobs, progress=progress).results


def run_all(
    files: Sequence[Path],
    options: Options | Mapping[Path, Options],
    *,
    jobs: int = 1,
    progress: Progress | None = None,
) -> Run:
    """Migrate `files` (in memory), each with its own options (or the same for all).

    First the old chunk classes the files declare are found (rule old-bindings) and
    treated as bindings everywhere. Pass 1 runs every file that may be affected; when
    it finds helpers that other modules may call, pass 2 runs again, with their
    templates, every file that names one of them."""
    per_file = {path: options if isinstance(options, Options) else options[path] for path in files}
    results: dict[Path, FileResult] = {}
    contents: list[tuple[Path, bytes]] = []
    for path in files:
        try:
            contents.append((path, path.read_bytes()))
        except OSError as err:
            results[path] = FileResult(path, "failed", error=f"cannot read: {err.strerror}")
    old = OldBindings()
    if any(rules.OLD_BINDINGS in o.rules for o in per_file.values()):
        old = find_old_bindings(contents)
        if old.declarations or old.app_classes:
            per_file = {path: replace(o, old_bindings=old) for path, o in per_file.items()}
    extra = tuple({n.rpartition(".")[2].encode() for n, _ in old.chunk_classes})
    pending: list[tuple[Path, bytes]] = []
    for path, data in contents:
        if may_be_affected(data, extra):
            pending.append((path, data))
        else:
            results[path] = FileResult(path, "skipped", original=data)
    done = len(results)
    total = len(files)
    if progress:
        progress(done, total)

    def tick() -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total)

    with _Pool(jobs) as pool:
        for result in pool.map(pending, per_file, None, tick):
            results[result.path] = result
        helpers = {t.qualified_name: t for r in results.values() for t in r.helpers}
        if helpers:
            again = [
                (path, results[path].original)
                for path in files
                if results[path].status != "failed" and _may_call(results[path], helpers.values())
            ]
            for result in pool.map(again, per_file, helpers, None):
                results[result.path] = result
    for declaration in old.declarations:
        declaring = results.get(declaration.path)
        if declaring is not None and rules.OLD_BINDINGS in per_file[declaration.path].rules:
            declaring.findings.append(
                Finding(
                    declaration.line, declaration.column, rules.OLD_BINDINGS, declaration.message()
                )
            )
            declaring.findings.sort()
    return Run([results[path] for path in files], old)


def _may_call(result: FileResult, helpers: Iterable[HelperTemplate]) -> bool:
    """Whether a file may call a helper of another module: it names the helper and the
    last part of the helper's module (as `from .chunks import make` does)."""
    own = {t.qualified_name for t in result.helpers}
    for template in helpers:
        if template.qualified_name in own:
            continue
        module, _, name = template.qualified_name.rpartition(".")
        if name.encode() in result.original and module.rpartition(".")[2].encode() in (
            result.original
        ):
            return True
    return False


class _Pool:
    """In-process for one job; a ProcessPoolExecutor otherwise. A crashed worker fails
    the files it had, not the run."""

    def __init__(self, jobs: int) -> None:
        self.jobs = max(1, jobs)
        self.executor: ProcessPoolExecutor | None = None

    def __enter__(self) -> _Pool:
        if self.jobs > 1:
            self.executor = ProcessPoolExecutor(max_workers=self.jobs)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.executor is not None:
            self.executor.shutdown(cancel_futures=True)

    def map(
        self,
        items: Sequence[tuple[Path, bytes]],
        options: Mapping[Path, Options],
        helpers: Mapping[str, HelperTemplate] | None,
        tick: Callable[[], None] | None,
    ) -> list[FileResult]:
        if self.executor is None or len(items) < 2:
            out = []
            for path, data in items:
                out.append(_migrate_file(path, data, options[path], helpers))
                if tick:
                    tick()
            return out
        futures: list[tuple[Path, bytes, Future[FileResult]]] = [
            (path, data, self.executor.submit(_migrate_file, path, data, options[path], helpers))
            for path, data in items
        ]
        out = []
        for path, data, future in futures:
            try:
                out.append(future.result())
            except BrokenProcessPool as err:
                out.append(
                    FileResult(path, "failed", error=f"worker crashed: {err}", original=data)
                )
            if tick:
                tick()
        return out
