"""Running the chunk-identity codemod over many files: cheap pre-check, per-file failure
isolation, worker processes, and the second pass for helpers called across modules.

Nothing here writes files: results carry the new bytes, and the CLI decides whether to
write them, print a diff, or only count them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from acp_schema.cli_common import ignore_interrupts

from .bindings import TRIGGERS
from .files import module_name
from .plan import HelperTemplate
from .rules import Finding

Status = Literal["changed", "unchanged", "skipped", "failed"]
TRIGGER_BYTES = tuple(t.encode() for t in TRIGGERS)


@dataclass(frozen=True)
class Options:
    rules: frozenset[str]
    bindings: tuple[str, ...] = ()
    todo_comments: bool = False


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

    try:
        module = cst.parse_module(data)
    except cst.ParserSyntaxError as err:
        return FileResult(
            path, "failed", error=f"cannot parse: {_parser_message(err)}", original=data
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
    )
    try:
        new_module = command.transform_module(module)
        new = new_module.bytes
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


def _parser_message(err: Exception) -> str:
    import libcst as cst

    assert isinstance(err, cst.ParserSyntaxError)
    return f"{err.message} (line {err.editor_line}, column {err.editor_column})"


def _migrate_file(
    path: Path, data: bytes, options: Options, helpers: Mapping[str, HelperTemplate] | None
) -> FileResult:
    return migrate_bytes(path, data, options, helpers)


Progress = Callable[[int, int], None]


def run(
    files: Sequence[Path],
    options: Options,
    *,
    jobs: int = 1,
    progress: Progress | None = None,
) -> list[FileResult]:
    """Migrate `files` (in memory). Pass 1 runs every file that may be affected; when
    it finds helpers that other modules may call, pass 2 runs again, with their
    templates, every file that names one of them."""
    results: dict[Path, FileResult] = {}
    pending: list[tuple[Path, bytes]] = []
    for path in files:
        try:
            data = path.read_bytes()
        except OSError as err:
            results[path] = FileResult(path, "failed", error=f"cannot read: {err.strerror}")
            continue
        if may_be_affected(data):
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
        for result in pool.map(pending, options, None, tick):
            results[result.path] = result
        helpers = {t.qualified_name: t for r in results.values() for t in r.helpers}
        if helpers:
            again = [
                (path, results[path].original)
                for path in files
                if results[path].status != "failed" and _may_call(results[path], helpers.values())
            ]
            for result in pool.map(again, options, helpers, None):
                results[result.path] = result
    return [results[path] for path in files]


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
            # Ctrl-C reaches the workers too; only the parent reports it.
            self.executor = ProcessPoolExecutor(
                max_workers=self.jobs, initializer=ignore_interrupts
            )
        return self

    def __exit__(self, *exc: object) -> None:
        if self.executor is not None:
            self.executor.shutdown(cancel_futures=True)

    def map(
        self,
        items: Sequence[tuple[Path, bytes]],
        options: Options,
        helpers: Mapping[str, HelperTemplate] | None,
        tick: Callable[[], None] | None,
    ) -> list[FileResult]:
        if self.executor is None or len(items) < 2:
            out = []
            for path, data in items:
                out.append(_migrate_file(path, data, options, helpers))
                if tick:
                    tick()
            return out
        futures: list[tuple[Path, bytes, Future[FileResult]]] = [
            (path, data, self.executor.submit(_migrate_file, path, data, options, helpers))
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
