"""Running the chunk-identity codemod over many files: cheap pre-check, per-file failure
isolation, worker processes, and the second pass for helpers called across modules.

Nothing here writes files: results carry the new bytes, and the CLI decides whether to
write them, print a diff, or only count them. One file is migrated by
`file_migration.migrate_bytes`; what each file sees of the helpers other modules
define is worked out in `helper_views`.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

from acp_schema._input import FileStamp
from acp_schema.migrations.chunk_identity import consumers
from acp_schema.migrations.chunk_identity import rule_ids as rules
from acp_schema.migrations.chunk_identity.accounting import fast
from acp_schema.migrations.chunk_identity.accounting.accounting import Account
from acp_schema.migrations.chunk_identity.accounting.occurrences import scan
from acp_schema.migrations.chunk_identity.accounting.proofs import generated
from acp_schema.migrations.chunk_identity.file_migration import (
    FileResult,
    Options,
    may_be_affected,
    migrate_bytes,
    reaches,
)
from acp_schema.migrations.chunk_identity.helper_views import (
    HelperKey,
    Views,
    key_of,
    mark_units,
    may_call,
    templates_of,
)
from acp_schema.migrations.chunk_identity.planning.plan import HelperTemplate
from acp_schema.migrations.framework.acknowledge import acknowledgements
from acp_schema.migrations.framework.disk.sources import SourceFiles
from acp_schema.migrations.framework.findings import Finding
from acp_schema.migrations.framework.pool import WorkerPool
from acp_schema.migrations.framework.progress import Progress, counter
from acp_schema.migrations.resolution.bindings import DEFAULT_BINDINGS, Bindings
from acp_schema.migrations.resolution.generated_files import generated_unchanged
from acp_schema.migrations.resolution.module_symbols import RunModules
from acp_schema.migrations.resolution.modules import ModuleNames, module_names
from acp_schema.migrations.resolution.modules import forget as forget_modules
from acp_schema.migrations.resolution.old_bindings import (
    OldBindings,
    find_old_bindings,
    reach_names,
)

MAX_ROUNDS = 10  # generators yielding from generators, followed this deep


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

    `account_skipped`: also list the occurrences of removed names in generated
    bindings the run skips (unchanged since generated: proof `generated-bindings`);
    only a report shows them. Every other file that names a removed name is parsed and
    accounted: no chunk named in a file is no proof that none reaches it.

    First the old chunk classes the files declare are found (rule old-bindings) and
    treated as bindings everywhere. Pass 1 runs every file that may be affected; when
    it finds helpers that other modules may call, pass 2 runs again, with their
    templates, every file that names one of them."""
    forget_modules()  # names are worked out afresh for each run
    per_file = {path: options if isinstance(options, Options) else options[path] for path in files}
    results: dict[Path, FileResult] = {}
    # Read through the one reader, and not all held at once (`SourceFiles`): a result
    # keeps its file's bytes only where later steps need them.
    contents = SourceFiles(files)
    old = OldBindings()
    if any(rules.OLD_BINDINGS in o.rules for o in per_file.values()):
        modules = dict.fromkeys(
            [*DEFAULT_BINDINGS, *(m for o in per_file.values() for m in o.bindings)]
        )
        old = find_old_bindings(contents, tuple(modules))
    chunk_names = {n.rpartition(".")[2] for n, _ in old.chunk_classes}
    constants, subclasses, mixins = reach_names(contents, chunk_names)
    old = replace(old, tag_constants=constants, chunk_subclasses=subclasses)
    names = {path: module_names(path) for path in files}
    run_modules = replace(_run_modules(names), chunk_mixins=mixins)
    per_file = {
        path: replace(o, old_bindings=old, run_modules=run_modules) for path, o in per_file.items()
    }
    extra = tuple(name.encode() for name in (*chunk_names, *constants, *subclasses))
    declaring_paths = {d.path for d in old.declarations}
    pending: list[tuple[Path, bytes]] = []
    stamps: dict[Path, FileStamp] = {}
    for path in files:
        read = contents.read(path)
        if read is None:
            results[path] = FileResult(path, "failed", error=contents.failed[path])
            continue
        data = read.data
        stamps[path] = read.stamp
        kept = data if path in declaring_paths else b""  # its acknowledgements are read later
        if generated_unchanged(data):
            accounts = (
                _generated_accounts(path, data, old, per_file[path]) if account_skipped else []
            )
            results[path] = FileResult(path, "skipped", original=kept, accounts=accounts)
        elif may_be_affected(data, extra):
            if len(data) > per_file[path].max_file_bytes:
                results[path] = _over_budget(path, data, per_file[path].max_file_bytes)
            elif (proven := _proven(path, data, extra, per_file[path], names)) is not None:
                results[path] = FileResult(path, "unchanged", original=kept, accounts=proven)
            else:
                pending.append((path, data))
        else:
            results[path] = FileResult(path, "skipped", original=kept)
        del data, read
    tick = counter(progress, len(results), len(files))
    with _Pool(jobs) as pool:
        for result in pool.map_files(pending, per_file, None, None, tick):
            results[result.path] = result
        del pending
        _settle_helpers(files, results, per_file, pool, names, contents, stamps)
    _report_consumers(results, per_file, names, contents)
    for path, stamp in stamps.items():
        results[path].stamp = stamp
    for declaration in old.declarations:
        declaring = results.get(declaration.path)
        if declaring is not None and rules.OLD_BINDINGS in per_file[declaration.path].rules:
            handled = acknowledgements(_with_bytes(declaring, contents).original).covers(
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


def _proven(
    path: Path,
    data: bytes,
    extra: Sequence[bytes],
    options: Options,
    names: Mapping[Path, ModuleNames],
) -> list[Account] | None:
    """A file no rule can act on, accounted from `ast` alone when every occurrence has
    a proof there (`accounting.fast`); None sends it down the full path."""
    if reaches(data, extra):
        return None
    found = scan(data)
    if not found:
        return None
    old = options.old_bindings
    bindings = Bindings.with_extra(
        options.bindings,
        old.chunk_classes,
        old.without_message,
        old.app_classes,
        (*old.tag_constants, *old.chunk_subclasses),
    )
    module = names[path].name or path.stem
    return fast.account_file(
        data, found, module, names[path].package, bindings, options.run_modules
    )


def _run_modules(names: Mapping[Path, ModuleNames]) -> RunModules:
    """Every name each file of the run can be imported under."""
    return RunModules.of(
        (name, path, found.is_package) for path, found in names.items() for name, _ in found.names
    )


def _generated_accounts(
    path: Path, data: bytes, old: OldBindings, options: Options
) -> list[Account]:
    """The occurrences in unchanged generated bindings: unrelated (proof
    `generated-bindings`), but for the members of an old chunk class declared there,
    reported with its declaration (rule old-bindings)."""
    declared = [d.line for d in old.declarations if d.path == path]
    spans = generated.class_spans(data, declared)
    marks = acknowledgements(data)
    accounts = []
    for occurrence in scan(data):
        first = next((f for f, last in spans if f <= occurrence.line <= last), None)
        if first is not None and rules.OLD_BINDINGS in options.rules:
            handled = marks.covers(first, rules.OLD_BINDINGS)
            accounts.append(Account(occurrence, "reported", rules.OLD_BINDINGS, "", handled))
        else:
            accounts.append(
                Account(occurrence, "unrelated", evidence=generated.EVIDENCE, proof=generated.KIND)
            )
    return accounts


def _report_consumers(
    results: Mapping[Path, FileResult],
    options: Mapping[Path, Options],
    names: Mapping[Path, ModuleNames],
    contents: SourceFiles,
) -> None:
    """Rule consumer: every call in the run of a generator that yields an upsert (as the
    code is after this run), where its items are used as chunks; a `yield from` of one
    makes the enclosing generator one too, until nothing new appears. Likewise every
    item taken from an in-process queue, when the run puts upserts into queues."""
    selected = [p for p, r in results.items() if rules.CONSUMER in options[p].rules]

    def after(path: Path) -> bytes:  # read one file at a time: the run holds no tree
        return _after(_with_bytes(results[path], contents))

    found: set[str] = set()
    queues = False
    by_name = {n: p for p in selected for n, _ in names[p].names}
    received: dict[Path, list[consumers.Consumer]] = {}
    for path in selected:
        data = after(path)
        if b"SessionMessage(" in data or b"session_message" in data:
            module = _module(path, data, names[path])
            lookup = options[path].run_modules.symbols
            for use in consumers.receivers(module, lookup) if module else []:
                if use.module in by_name:
                    received.setdefault(by_name[use.module], []).append(use.consumer)
    for round_number in range(MAX_ROUNDS):
        new = set()
        for path in selected:
            data = after(path)
            reexports = any(q.rpartition(".")[2].encode() in data for q in found)
            if b"yield" not in data and (round_number or b"put" not in data) and not reexports:
                continue
            module = _module(path, data, names[path])
            if module is None:
                continue
            new |= consumers.yielders(module, found) - found
            queues = queues or (round_number == 0 and consumers.puts_upserts(module))
        if not new:
            break
        found |= new
    if not found and not queues and not received:
        return
    short = {q.rpartition(".")[2].encode() for q in found}
    if queues:
        short |= {b"get"}
    for path in selected:
        result = results[path]
        places = list(received.get(path, []))
        if result.status == "failed":
            continue
        original = _with_bytes(result, contents).original
        module = None
        if any(s in original for s in short):
            module = _module(path, original, names[path])
        if module is not None:
            places += consumers.consumers(module, found)
            if queues:
                places += consumers.queue_consumers(module)
        marks = acknowledgements(original)
        for place in places:
            handled = marks.covers(place.line, rules.CONSUMER)
            kind: Literal["warning", "acknowledged"] = "acknowledged" if handled else "warning"
            result.findings.append(
                Finding(place.line, place.column, rules.CONSUMER, place.message, kind)
            )
        result.findings.sort()


def _after(result: FileResult) -> bytes:
    return result.new if result.new is not None else result.original


def _module(path: Path, data: bytes, found: ModuleNames) -> consumers.Module | None:
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    name = found.name or path.stem
    return consumers.Module(name, tree, found.package)


def _over_budget(path: Path, data: bytes, budget: int) -> FileResult:
    error = (
        f"not migrated: {len(data)} bytes, over the per-file budget of {budget} "
        "(--max-file-size; parsing takes about a thousand times the file's size in "
        "memory), file left unchanged"
    )
    return FileResult(path, "failed", error=error)  # its bytes are not kept: read again


def _with_bytes(result: FileResult, contents: SourceFiles) -> FileResult:
    """`result` with its file's bytes, read again where the result does not keep them
    (files skipped, proven from `ast` alone, or over the size budget keep none)."""
    if result.original:
        return result
    return replace(result, original=contents.data(result.path))


def _settle_helpers(
    files: Sequence[Path],
    results: dict[Path, FileResult],
    options: Mapping[Path, Options],
    pool: _Pool,
    names: Mapping[Path, ModuleNames],
    contents: SourceFiles,
    stamps: dict[Path, FileStamp],
) -> None:
    """Give the calls of helpers in other modules their upserts, and withdraw every
    helper rewrite that not all of its uses in the run can follow: one that a use
    blocks (an impure argument, a re-export, a use without a call) or that no call in
    the run reaches. Each round re-runs only the files concerned; the set of helpers
    only shrinks, so it ends."""
    roots = {path: str(names[path].root) for path in files}
    refused: dict[HelperKey, str] = {}
    again: set[Path] | None = None  # None: every file that may call a helper
    while True:
        templates = templates_of(results, roots, refused)
        if not templates and again is None:
            break
        if again is None:
            helpers = [t for t, _ in templates.values()]
            targets = [p for p in files if may_call(_with_bytes(results[p], contents), helpers)]
        else:
            targets = [p for p in files if p in again]
        targets = [p for p in targets if results[p].status != "failed"]
        items = []
        for path in targets:  # a skipped file read again: its stamp is of this read
            read = contents.read(path) if not results[path].original else None
            if read is not None:
                stamps[path] = read.stamp
            items.append((path, read.data if read is not None else results[path].original))
        view = Views(templates, names)
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
            for key in [key_of(view(r.path), roots[r.path], q)]
        }
        blocked = {
            key_of(view(r.path), roots[r.path], q): f"{r.path.name}: {why}"
            for r in results.values()
            for q, why in r.blocked.items()
        }
        for path in files:
            failed = results[path]
            if failed.status != "failed":
                continue
            failed = _with_bytes(failed, contents)
            for key, template in view(path).values():
                if may_call(failed, [template]):
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
        again |= {
            p for p in files if may_call(_with_bytes(results[p], contents), withdrawn_templates)
        }
    mark_units(results, roots, refused)


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


class _Pool(WorkerPool[FileResult]):
    """The framework's pool, running `migrate_bytes` with each file's helpers."""

    def map_files(
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
        calls = [
            (path, data, options[path], known, withdrawn)
            for (path, data), known, withdrawn in zip(items, helpers, refused, strict=True)
        ]
        return self.map(migrate_bytes, calls, _crashed, tick)


def _crashed(call: tuple[Any, ...], err: BaseException) -> FileResult:
    path, data = call[0], call[1]
    return FileResult(path, "failed", error=f"worker crashed: {err}", original=data)
