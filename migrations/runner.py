"""Running the chunk-identity codemod over many files: cheap pre-check, per-file failure
isolation, worker processes, and the second pass for helpers called across modules.

Nothing here writes files: results carry the new bytes, and the CLI decides whether to
write them, print a diff, or only count them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from acp_schema._input import InputError, read_bytes
from acp_schema.cli_common import ignore_interrupts, os_reason

from . import rules
from .accounting import Account, unrelated_by_reach
from .acknowledge import acknowledgements
from .bindings import DEFAULT_BINDINGS, TRIGGERS, is_generated_bindings
from .modules import ModuleNames, module_names
from .modules import forget as forget_modules
from .occurrences import scan
from .old_bindings import OldBindings, find_old_bindings, reach_names
from .plan import HelperTemplate
from .rules import Finding

if TYPE_CHECKING:
    from libcst import ParserSyntaxError

Status = Literal["changed", "unchanged", "skipped", "failed"]
NO_REACH = "the file names no chunk class, re-export of one, or chunk tag"
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
    account_skipped: bool = True,
) -> Run:
    """Migrate `files` (in memory), each with its own options (or the same for all).

    `account_skipped`: also list the occurrences of removed names in the files the
    prefilter skips (all unrelated: no chunk in reach); only a report shows them.

    First the old chunk classes the files declare are found (rule old-bindings) and
    treated as bindings everywhere. Pass 1 runs every file that may be affected; when
    it finds helpers that other modules may call, pass 2 runs again, with their
    templates, every file that names one of them."""
    forget_modules()  # names are worked out afresh for each run
    per_file = {path: options if isinstance(options, Options) else options[path] for path in files}
    results: dict[Path, FileResult] = {}
    contents: list[tuple[Path, bytes]] = []
    for path in files:
        try:  # the tools' one reader: a regular file, of a size memory can hold
            contents.append((path, read_bytes(path)))
        except (OSError, InputError) as err:
            results[path] = FileResult(path, "failed", error=f"cannot read: {os_reason(err)}")
    old = OldBindings()
    if any(rules.OLD_BINDINGS in o.rules for o in per_file.values()):
        modules = dict.fromkeys(
            [*DEFAULT_BINDINGS, *(m for o in per_file.values() for m in o.bindings)]
        )
        old = find_old_bindings(contents, tuple(modules))
    chunk_names = {n.rpartition(".")[2] for n, _ in old.chunk_classes}
    constants, subclasses = reach_names(contents, chunk_names)
    old = replace(old, tag_constants=constants, chunk_subclasses=subclasses)
    if old != OldBindings():
        per_file = {path: replace(o, old_bindings=old) for path, o in per_file.items()}
    extra = tuple(name.encode() for name in (*chunk_names, *constants, *subclasses))
    pending: list[tuple[Path, bytes]] = []
    for path, data in contents:
        if may_be_affected(data, extra):
            if len(data) > per_file[path].max_file_bytes:
                results[path] = _over_budget(path, data, per_file[path].max_file_bytes)
            else:
                pending.append((path, data))
        elif is_generated_bindings(data):
            results[path] = FileResult(path, "skipped", original=data)
        else:
            found = scan(data) if account_skipped else []
            results[path] = FileResult(
                path, "skipped", original=data, accounts=unrelated_by_reach(found, NO_REACH)
            )
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
        for result in pool.map(pending, per_file, None, None, tick):
            results[result.path] = result
        _settle_helpers(files, results, per_file, pool)
    for declaration in old.declarations:
        declaring = results.get(declaration.path)
        if declaring is not None and rules.OLD_BINDINGS in per_file[declaration.path].rules:
            handled = acknowledgements(declaring.original).covers(
                declaration.line, rules.OLD_BINDINGS
            )
            declaring.findings.append(
                Finding(
                    declaration.line,
                    declaration.column,
                    rules.OLD_BINDINGS,
                    declaration.message(),
                    "acknowledged" if handled else "warning",
                )
            )
            declaring.findings.sort()
    return Run([results[path] for path in files], old)


def _over_budget(path: Path, data: bytes, budget: int) -> FileResult:
    error = (
        f"not migrated: {len(data)} bytes, over the per-file budget of {budget} "
        "(--max-file-size; parsing takes about a thousand times the file's size in "
        "memory), file left unchanged"
    )
    return FileResult(path, "failed", error=error, original=data)


HelperKey = tuple[str, str]  # (import root of the defining module, qualified name)


def _settle_helpers(
    files: Sequence[Path],
    results: dict[Path, FileResult],
    options: Mapping[Path, Options],
    pool: _Pool,
) -> None:
    """Give the calls of helpers in other modules their upserts, and withdraw every
    helper rewrite that not all of its uses in the run can follow: one that a use
    blocks (an impure argument, a re-export, a use without a call) or that no call in
    the run reaches. Each round re-runs only the files concerned; the set of helpers
    only shrinks, so it ends."""
    names = {path: module_names(path) for path in files}
    roots = {path: str(names[path].root) for path in files}
    refused: dict[HelperKey, str] = {}
    again: set[Path] | None = None  # None: every file that may call a helper
    while True:
        templates = _templates(results, roots, refused)
        if not templates and again is None:
            break
        if again is None:
            targets = [
                p for p in files if _may_call(results[p], [t for t, _ in templates.values()])
            ]
        else:
            targets = [p for p in files if p in again]
        targets = [p for p in targets if results[p].status != "failed"]
        items = [(p, results[p].original) for p in targets]
        view = _Views(templates, names)
        for result in pool.map_each(
            items,
            options,
            [{q: t for q, (_, t) in view(p).items()} for p in targets],
            [{q: why for (root, q), why in refused.items() if root == roots[p]} for p in targets],
        ):
            results[result.path] = result
        called = {
            key
            for r in results.values()
            for q in r.called
            for key in [_key_of(view(r.path), roots[r.path], q)]
        }
        blocked = {
            _key_of(view(r.path), roots[r.path], q): f"{r.path.name}: {why}"
            for r in results.values()
            for q, why in r.blocked.items()
        }
        for path in files:
            failed = results[path]
            if failed.status != "failed":
                continue
            for key, template in view(path).values():
                if _may_call(failed, [template]):
                    # A file that may call it but could not be read: its calls are unknown.
                    blocked.setdefault(key, f"{path.name} names it but could not be migrated")
        withdrawn: dict[HelperKey, str] = {}
        for key in templates:
            if key in blocked:
                withdrawn[key] = f"a use of it in this run cannot follow ({blocked[key]})"
            elif key not in called:
                withdrawn[key] = (
                    "no call of it is in this run, so its callers cannot get the upsert"
                )
        if not withdrawn:
            break
        refused.update(withdrawn)
        withdrawn_templates = [t for key, (t, _) in templates.items() if key in withdrawn]
        again = {path for key, (_, path) in templates.items() if key in withdrawn}
        again |= {p for p in files if _may_call(results[p], withdrawn_templates)}
    _mark_units(results, roots, refused)


def _templates(
    results: Mapping[Path, FileResult], roots: Mapping[Path, str], refused: Mapping[HelperKey, str]
) -> dict[HelperKey, tuple[HelperTemplate, Path]]:
    found: dict[HelperKey, tuple[HelperTemplate, Path]] = {}
    for result in results.values():
        for template in result.helpers:
            key = (roots[result.path], template.qualified_name)
            if key not in refused:
                found[key] = (template, result.path)
    return found


def _visible(
    templates: Mapping[HelperKey, tuple[HelperTemplate, Path]],
    names: Mapping[Path, ModuleNames],
    caller: Path,
) -> dict[str, tuple[HelperKey, HelperTemplate]]:
    """The helpers `caller` can import, under each name it can import them by: the
    defining module's names whose root directory holds the caller (two packages of one
    name in a monorepo do not see each other's). Deeper roots win a name."""
    where = caller.resolve()
    found: dict[str, tuple[HelperKey, HelperTemplate, int]] = {}
    for key, (template, path) in templates.items():
        module = names[path]
        local = template.qualified_name[len(module.name or "") + 1 :]
        for name, root in module.names:
            if root not in where.parents:
                continue
            depth = len(root.parts)
            qualified = f"{name}.{local}"
            if qualified not in found or found[qualified][2] < depth:
                found[qualified] = (key, template, depth)
    return {q: (key, template) for q, (key, template, _) in found.items()}


class _Views:
    """What each file sees of the helpers (`_visible`), worked out for the files that
    need it only (a run has thousands of files and a few helpers' callers)."""

    def __init__(
        self,
        templates: Mapping[HelperKey, tuple[HelperTemplate, Path]],
        names: Mapping[Path, ModuleNames],
    ) -> None:
        self.templates = templates
        self.names = names
        self.seen: dict[Path, dict[str, tuple[HelperKey, HelperTemplate]]] = {}

    def __call__(self, path: Path) -> dict[str, tuple[HelperKey, HelperTemplate]]:
        if path not in self.seen:
            self.seen[path] = _visible(self.templates, self.names, path)
        return self.seen[path]


def _key_of(
    view: Mapping[str, tuple[HelperKey, HelperTemplate]], root: str, qualified: str
) -> HelperKey:
    """The helper a caller's name for it means (its own module's helpers by their name)."""
    if qualified in view:
        return view[qualified][0]
    for key, template in view.values():
        if template.qualified_name == qualified:
            return key
    return (root, qualified)


def _mark_units(
    results: Mapping[Path, FileResult], roots: Mapping[Path, str], refused: Mapping[HelperKey, str]
) -> None:
    for result in results.values():
        root = roots[result.path]
        keys = {(root, t.qualified_name) for t in result.helpers}
        keys |= {(root, q) for q in result.called}
        result.units = frozenset(f"{r}:{q}" for r, q in keys if (r, q) not in refused)


def write_order(results: Sequence[FileResult]) -> list[FileResult]:
    """The changed files in an order safe to write one after the other: every helper's
    module after the modules whose calls of it got upserts (see `write_groups`)."""
    return [result for group in write_groups(results) for result in group]


def write_groups(results: Sequence[FileResult]) -> list[list[FileResult]]:
    """Changed files in the groups that must be written together: a helper's module and
    the modules whose calls of it got upserts. Within a group the callers come first
    and the helpers' modules last, so that a run stopped half-way leaves the helpers
    still carrying their IDs (and a re-run finishes the job, `--check` still failing)."""
    changed = [r for r in results if r.new is not None]
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.setdefault(key, key) != key:
            key = parent[key]
        return key

    for result in changed:
        keys = sorted(result.units)
        for other in keys[1:]:
            parent[find(other)] = find(keys[0])
    groups: dict[str, list[FileResult]] = {}
    singles: list[list[FileResult]] = []
    for result in changed:
        if result.units:
            groups.setdefault(find(min(result.units)), []).append(result)
        else:
            singles.append([result])
    ordered = [sorted(g, key=lambda r: bool(r.helpers)) for g in groups.values()]
    return singles + ordered


def _may_call(result: FileResult, helpers: Iterable[HelperTemplate]) -> bool:
    """Whether a file may call a helper of another module: it names the helper and the
    last part of the helper's module (as `from .chunks import make` does), each as a
    whole word (`test_text_chunk_sends` does not name `_text_chunk`)."""
    own = {t.qualified_name for t in result.helpers}
    data = result.original
    for template in helpers:
        if template.qualified_name in own:
            continue
        module, _, name = template.qualified_name.rpartition(".")
        if _word(name, data) and _word(module.rpartition(".")[2], data):
            return True
    return False


def _word(name: str, data: bytes) -> bool:
    if name.encode() not in data:  # the cheap test first
        return False
    return re.search(rb"\b" + re.escape(name.encode()) + rb"\b", data) is not None


MIN_FILES_PER_WORKER = 16


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
        options: Mapping[Path, Options],
        helpers: Mapping[str, HelperTemplate] | None,
        refused: Mapping[str, str] | None,
        tick: Callable[[], None] | None,
    ) -> list[FileResult]:
        return self.map_each(items, options, [helpers] * len(items), [refused] * len(items), tick)

    def map_each(
        self,
        items: Sequence[tuple[Path, bytes]],
        options: Mapping[Path, Options],
        helpers: Sequence[Mapping[str, HelperTemplate] | None],
        refused: Sequence[Mapping[str, str] | None],
        tick: Callable[[], None] | None = None,
    ) -> list[FileResult]:
        """Migrate `items`, the i-th with `helpers[i]` and `refused[i]`."""
        # Workers cost more than they save on a handful of files (the bench measured
        # --jobs 2 at 1.2-1.5x --jobs 1 with 20 files to parse): below that, in-process.
        if self.executor is None or len(items) < MIN_FILES_PER_WORKER * self.jobs:
            out = []
            for (path, data), known, withdrawn in zip(items, helpers, refused, strict=True):
                out.append(migrate_bytes(path, data, options[path], known, withdrawn))
                if tick:
                    tick()
            return out
        futures: list[tuple[Path, bytes, Future[FileResult]]] = [
            (
                path,
                data,
                self.executor.submit(migrate_bytes, path, data, options[path], known, withdrawn),
            )
            for (path, data), known, withdrawn in zip(items, helpers, refused, strict=True)
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
