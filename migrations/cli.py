"""`acp-schema migrate`: run the migrations over files and directories.

    acp-schema migrate src/ tests/            # rewrite in place
    acp-schema migrate --diff src/            # show what would change, write nothing
    acp-schema migrate --check src/           # CI: exit 1 if anything would change

Exit codes: 0 done (or, with --check, nothing to do); 1 with --check, changes pending;
2 a file could not be parsed, read or written, or the command line is wrong. A file
that fails is reported and left untouched; the run goes on with the others.

Settings may also come from `[tool.acp-schema.migrate]` in the pyproject.toml of the
repository (keys `bindings`, `exclude`, `select`, `disable`, `todo-comments`); the
command line adds to the lists and wins for the flag.
"""

from __future__ import annotations

import argparse
import difflib
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from acp_schema.cli_common import EXIT_OK, EXIT_PROBLEMS, EXIT_UNUSABLE

from .rules import FAMILIES, RULES, UnknownRuleError, select_rules

if TYPE_CHECKING:
    from acp_schema.cli_common import Subparsers

    from .runner import FileResult

EXIT_PENDING = EXIT_PROBLEMS  # --check: changes are pending
EXIT_ERROR = EXIT_UNUSABLE


def register(commands: Subparsers) -> None:
    """Add `migrate` to the `acp-schema` command line."""
    rule_list = ", ".join([*FAMILIES, *RULES])
    migrate = commands.add_parser(
        "migrate",
        help="move downstream code onto the revised session-message API",
        description="Rewrite Python code written against the old ACP bindings: participant "
        "IDs leave SessionMessageChunk and travel on a SessionMessage upsert sent before the "
        "chunk. Exit 0 when done (--check: nothing to do), 1 with --check when changes are "
        "pending, 2 when a file could not be parsed, read or written.",
        epilog=f"rules: {rule_list}",
    )
    migrate.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    mode = migrate.add_argument_group("mode")
    mode.add_argument("--diff", action="store_true", help="print unified diffs, write nothing")
    mode.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if anything would change"
    )
    selection = migrate.add_argument_group("rules")
    selection.add_argument(
        "--select", action="append", default=[], metavar="RULE", help="run only these rules"
    )
    selection.add_argument(
        "--disable", action="append", default=[], metavar="RULE", help="do not run these rules"
    )
    selection.add_argument(
        "--bindings",
        action="append",
        default=[],
        metavar="MODULE",
        help="another module whose SessionMessageChunk is the ACP chunk, e.g. `acp` "
        "(default: acp_schema.v1 and acp_schema.v2)",
    )
    selection.add_argument(
        "--todo-comments",
        action="store_true",
        help="add a `# TODO(acp-schema migrate)` comment above each place left for a person",
    )
    scope = migrate.add_argument_group("files")
    scope.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="skip matching paths: a glob without `/` matches any file or directory name, "
        "one with `/` the path relative to PATH",
    )
    scope.add_argument(
        "--no-gitignore", action="store_true", help="also migrate files .gitignore ignores"
    )
    output = migrate.add_argument_group("output")
    output.add_argument(
        "--jobs", type=_positive, default=1, metavar="N", help="worker processes (default 1)"
    )
    output.add_argument(
        "--json", type=Path, metavar="REPORT", help="write a machine-readable report here"
    )
    output.add_argument(
        "-q", "--quiet", action="store_true", help="print only problems and the summary"
    )
    migrate.set_defaults(func=migrate_command)


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def migrate_command(args: argparse.Namespace) -> int:
    try:
        import libcst  # noqa: F401 - the migrations need it; say so before starting
    except ModuleNotFoundError:
        print(
            "acp-schema migrate needs libcst: pip install 'acp-schema[migrate]'",
            file=sys.stderr,
        )
        return EXIT_ERROR
    from .files import FileChangedError, discover, write_atomically
    from .runner import Options, run, write_groups

    paths = [Path(p) for p in args.paths]
    config = _load_config(paths)
    try:
        selected = select_rules(
            [*config.get("select", []), *args.select],
            [*config.get("disable", []), *args.disable],
        )
    except UnknownRuleError as err:
        print(f"acp-schema migrate: {err}", file=sys.stderr)
        return EXIT_ERROR
    options = Options(
        rules=selected,
        bindings=tuple([*config.get("bindings", []), *args.bindings]),
        todo_comments=args.todo_comments or bool(config.get("todo-comments", False)),
    )
    found = discover(
        paths, excludes=[*config.get("exclude", []), *args.exclude], gitignore=not args.no_gitignore
    )
    for missing in found.missing:
        why = "not a regular file or directory" if missing.exists() else "no such file or directory"
        print(f"{missing}: {why}", file=sys.stderr)

    started = time.perf_counter()
    bar = _ProgressBar(sys.stderr) if sys.stderr.isatty() and not args.quiet else None
    results = run(found.files, options, jobs=args.jobs, progress=bar)
    if bar is not None:
        bar.clear()

    writing = not (args.diff or args.check)
    for result in results:
        if args.diff and result.status == "changed" and result.new is not None:
            sys.stdout.write(_diff(result))
    # A helper's module and its callers' modules form one change: callers first, the
    # helper last, and nothing more of the group once a write fails (see write_groups).
    for group in write_groups(results) if writing else []:
        failed: Path | None = None
        for result in group:
            assert result.new is not None
            if failed is not None:
                result.status = "failed"
                result.error = f"not written: {failed} of the same helper change was not written"
                continue
            try:
                write_atomically(result.path, result.new, result.original)
                result.written = True
            except (FileChangedError, OSError) as err:
                result.status = "failed"
                result.error = f"not written: {err}"
                failed = result.path

    show_changes = not (args.quiet or args.diff)
    for result in results:
        if result.error:
            print(f"{result.path}: error: {result.error}")
        for finding in result.findings:
            if finding.kind == "warning" or show_changes:
                print(finding.format(str(result.path)))

    summary = _summary(results, len(found.missing))
    elapsed = time.perf_counter() - started
    print(_summary_line(summary, writing, elapsed))
    if args.json is not None:
        report = _report(results, summary, options, mode=_mode(args))
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")

    if summary["failed"]:
        return EXIT_ERROR
    if args.check and summary["changed"]:
        return EXIT_PENDING
    return EXIT_OK


def _mode(args: argparse.Namespace) -> str:
    if args.check:
        return "check"
    return "diff" if args.diff else "write"


def _diff(result: FileResult) -> str:
    assert result.new is not None
    before = result.original.decode(result.encoding, "replace").splitlines(keepends=True)
    after = result.new.decode(result.encoding, "replace").splitlines(keepends=True)
    name = result.path.as_posix()
    lines = difflib.unified_diff(before, after, fromfile=f"a/{name}", tofile=f"b/{name}")
    return "".join(line if line.endswith("\n") else f"{line}\n" for line in lines)


def _summary(results: Sequence[FileResult], missing: int) -> dict[str, Any]:
    counts = Counter(r.status for r in results)
    warnings = Counter(f.rule for r in results for f in r.warnings)
    return {
        "scanned": len(results),
        "changed": counts["changed"],
        "unchanged": counts["unchanged"],
        "skipped": counts["skipped"],
        "failed": counts["failed"] + missing,
        "warnings": dict(sorted(warnings.items())),
    }


def _summary_line(summary: dict[str, Any], writing: bool, elapsed: float) -> str:
    changed = "changed" if writing else "would change"
    warnings = summary["warnings"]
    per_rule = ", ".join(f"{rule} {count}" for rule, count in warnings.items())
    total = sum(warnings.values())
    return (
        f"{summary['scanned']} files scanned in {elapsed:.1f}s: {summary['changed']} {changed}, "
        f"{summary['unchanged']} unchanged, {summary['skipped']} skipped, "
        f"{summary['failed']} failed; {total} warning(s)" + (f" ({per_rule})" if per_rule else "")
    )


def _report(
    results: Sequence[FileResult], summary: dict[str, Any], options: Any, *, mode: str
) -> dict[str, Any]:
    return {
        "version": 1,
        "mode": mode,
        "rules": sorted(options.rules),
        "bindings": list(options.bindings),
        "summary": summary,
        "files": [
            {
                "path": result.path.as_posix(),
                "status": result.status,
                "written": result.written,
                "changes": [_finding(f) for f in result.changes],
                "warnings": [_finding(f) for f in result.warnings],
                "error": result.error,
            }
            for result in results
        ],
    }


def _finding(finding: Any) -> dict[str, Any]:
    data: dict[str, Any] = finding.as_dict()
    data.pop("kind", None)
    return data


class _ProgressBar:
    """A one-line text bar on a terminal, redrawn at most ten times a second."""

    WIDTH = 30

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self.last < 0.1:
            return
        self.last = now
        filled = self.WIDTH * done // total if total else self.WIDTH
        bar = "#" * filled + "-" * (self.WIDTH - filled)
        self.stream.write(f"\r[{bar}] {done}/{total} files")
        self.stream.flush()

    def clear(self) -> None:
        self.stream.write("\r" + " " * (self.WIDTH + 30) + "\r")
        self.stream.flush()


def _load_config(paths: Sequence[Path]) -> dict[str, Any]:
    """`[tool.acp-schema.migrate]` of the nearest pyproject.toml above the first PATH."""
    if not paths:
        return {}
    start = paths[0].resolve()
    for directory in [start, *start.parents] if start.is_dir() else start.parents:
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return _read_config(candidate)
        if (directory / ".git").exists():
            break
    return {}


def _read_config(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10 reads the settings only with tomli installed
        try:
            import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]
        except ModuleNotFoundError:
            return {}
    with path.open("rb") as stream:
        data = tomllib.load(stream)
    section = data.get("tool", {}).get("acp-schema", {}).get("migrate", {})
    return section if isinstance(section, dict) else {}
