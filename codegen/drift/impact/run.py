"""Running the impact scan over a tree with `migrate`'s safety: the same file discovery
(`.gitignore`, `--exclude`, settings from `[tool.acp-schema.migrate]`), the one reader,
the per-file size budget, per-file failure isolation, worker processes and progress.

Which modules are the bindings: `acp_schema.v1`/`v2` (the protocol of the diff when it is
known), `--bindings` and the settings' `bindings`, and every copy of generated bindings in
the tree whose header records the digest of OLD or NEW (a copy of another schema is
listed as skipped, never scanned as the bindings of this diff).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_schema._input import InputError, read_bytes
from acp_schema.cli_common import os_reason

from .judge import Impact, judge
from .targets import Targets
from .uses import Interest

if TYPE_CHECKING:
    from acp_schema.migrations.framework.progress import Progress

# Parsing takes about a thousand times a file's size in memory (as for `migrate`).
MAX_FILE_BYTES = 1024 * 1024


@dataclass
class FileOutcome:
    path: Path
    status: str  # "scanned", "skipped" (nothing in reach), "failed"
    impacts: list[Impact] = field(default_factory=list)
    error: str | None = None


@dataclass
class Scan:
    files: list[FileOutcome]
    missing: list[tuple[Path, str]]
    bindings: list[str]
    vendored: list[str]
    other_generated: list[tuple[Path, str]]

    @property
    def impacts(self) -> list[Impact]:
        return [i for f in self.files for i in f.impacts]

    @property
    def failed(self) -> list[FileOutcome]:
        return [f for f in self.files if f.status == "failed"]


@dataclass(frozen=True)
class Settings:
    paths: tuple[Path, ...]
    bindings: tuple[str, ...] = ()
    digests: frozenset[str] = frozenset()  # schema digests of OLD and NEW
    excludes: tuple[str, ...] = ()
    gitignore: bool = True
    max_file_bytes: int = MAX_FILE_BYTES
    jobs: int = 1


def scan(settings: Settings, targets: Targets, progress: Progress | None = None) -> Scan:
    """Every impact of `targets` on the Python files under `settings.paths`."""
    from acp_schema.migrations.framework.config import ConfigFinder
    from acp_schema.migrations.framework.disk.files import discover, excluded
    from acp_schema.migrations.framework.pool import WorkerPool
    from acp_schema.migrations.framework.progress import counter
    from acp_schema.migrations.resolution.exports import find_exports, vendored_modules
    from acp_schema.migrations.resolution.modules import forget

    forget()
    found = discover(list(settings.paths), excludes=settings.excludes, gitignore=settings.gitignore)
    finder = ConfigFinder()
    configs = {path: finder.for_path(path) for path in found.files}
    files = [
        p
        for p in found.files
        if not (
            configs[p].exclude and excluded(p, configs[p].directory or p.parent, configs[p].exclude)
        )
    ]
    outcomes: dict[Path, FileOutcome] = {}
    contents: list[tuple[Path, bytes]] = []
    for path in files:
        try:
            contents.append((path, read_bytes(path)))
        except (OSError, InputError) as err:
            outcomes[path] = FileOutcome(path, "failed", error=f"cannot read: {os_reason(err)}")
    vendored, refused = vendored_modules(contents, settings.digests.__contains__)
    configured = [m for p in files for m in configs[p].bindings]
    bindings = list(dict.fromkeys([*settings.bindings, *configured, *vendored]))
    exports = find_exports(contents, bindings)
    interest = _interest(targets)
    triggers = _triggers(interest, exports)
    pending: list[tuple[Path, bytes]] = []
    for path, data in contents:
        from acp_schema.migrations.resolution.bindings import is_generated_bindings

        if is_generated_bindings(data) or not any(t in data for t in triggers):
            outcomes[path] = FileOutcome(path, "skipped")
        elif len(data) > settings.max_file_bytes:
            outcomes[path] = FileOutcome(
                path,
                "failed",
                error=f"not scanned: {len(data)} bytes, over the per-file budget of "
                f"{settings.max_file_bytes} (--max-file-size)",
            )
        else:
            pending.append((path, data))
    tick = counter(progress, len(outcomes), len(files))
    calls = [(path, data, interest, exports, targets) for path, data in pending]
    with WorkerPool[FileOutcome](settings.jobs) as pool:
        for outcome in pool.map(scan_file, calls, _crashed, tick):
            outcomes[outcome.path] = outcome
    missing = [
        (
            p,
            found.why.get(p)
            or ("not a regular file or directory" if p.exists() else "no such file or directory"),
        )
        for p in found.missing
    ]
    return Scan([outcomes[p] for p in files], missing, bindings, vendored, refused)


def _crashed(call: tuple[Any, ...], error: BaseException) -> FileOutcome:
    return FileOutcome(call[0], "failed", error=f"the worker scanning it died: {error}")


def _interest(targets: Targets) -> Interest:
    values = {v for c in targets.chains for v in c.values}
    return Interest(targets.classes(), targets.fields(), targets.tags, set(targets.methods), values)


def _triggers(interest: Interest, exports: Any) -> tuple[bytes, ...]:
    """Byte strings without which a file cannot use anything of interest: a class name
    or a name a facade gives it, a tag value, a method name, an enum value, a star import."""
    names = set(interest.classes)
    for module, explicit in exports.explicit.items():
        for name in explicit:
            resolved = exports.resolve(f"{module}.{name}")
            if resolved is not None and resolved.rpartition(".")[2] in interest.classes:
                names.add(name)
    names |= {value for (_, value) in interest.tags}
    names |= interest.methods | interest.values
    return (b"import *", *sorted(n.encode() for n in names if n))


def scan_file(
    path: Path, data: bytes, interest: Interest, exports: Any, targets: Targets
) -> FileOutcome:
    """One file's impacts; never raises for a problem of the file."""
    import libcst as cst

    from acp_schema.migrations.framework.parsing import ParseFailure, parse
    from acp_schema.migrations.resolution.modules import module_names

    from .uses import UseFinder

    try:
        module = parse(path, data)
    except ParseFailure as err:
        return FileOutcome(path, "failed", error=str(err))
    names = module_names(path)
    finder = UseFinder(interest, exports.resolve, names.name, names.package, exports.bindings)
    try:
        cst.MetadataWrapper(module, unsafe_skip_copy=True).visit(finder)
    except (RecursionError, MemoryError) as err:
        return FileOutcome(path, "failed", error=f"too deeply nested ({type(err).__name__})")
    except Exception as err:  # isolate the failure to this file, keep its message
        return FileOutcome(path, "failed", error=f"internal error: {type(err).__name__}: {err}")
    return FileOutcome(path, "scanned", judge(str(path), finder.uses, targets))
