"""`acp-schema migrate`: run the migrations over files and directories.

    acp-schema migrate src/ tests/            # rewrite in place
    acp-schema migrate --diff src/            # show what would change, write nothing
    acp-schema migrate --check src/           # CI: exit 1 while anything is left to do

Exit codes: 0 done (or, with --check, nothing to do); 1 with --check, changes pending or
warnings left that no `# acp-migrate: ok[RULE]` comment acknowledges (acknowledge.py);
2 a file could not be parsed, read or written, or the command line or a pyproject.toml
is wrong. A file that cannot be parsed is reported and left untouched; the run goes on
with the others. Writing is all or nothing (files.write_all).

Settings may also come from `[tool.acp-schema.migrate]` in the nearest pyproject.toml
above each file (config.py; keys `bindings`, `exclude`, `select`, `disable`,
`todo-comments`); the command line adds to the lists, and `--todo-comments` turns the
comments on where a file's table does not.
"""

from __future__ import annotations

import argparse
import difflib
import os
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_schema.cli_common import EXIT_OK, EXIT_PROBLEMS, EXIT_UNUSABLE, install_hint, os_reason
from acp_schema.cli_output import Level, annotation, diagnostic, json_document, shown
from acp_schema.migrations.chunk_identity.rule_ids import (
    FAMILIES,
    RULES,
    UnknownRuleError,
    expand,
    select_rules,
)
from acp_schema.migrations.framework.findings import Finding
from acp_schema.migrations.framework.progress import ProgressBar

if TYPE_CHECKING:
    from acp_schema.cli_common import Subparsers
    from acp_schema.migrations.chunk_identity.file_migration import FileResult, Options
    from acp_schema.migrations.framework.config import Config
    from acp_schema.migrations.framework.disk.files import Discovery
    from acp_schema.migrations.framework.disk.report_file import StagedReport
    from acp_schema.migrations.resolution.old_bindings import OldBindings

EXIT_PENDING = EXIT_PROBLEMS  # --check: changes or unacknowledged warnings are pending
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
        "pending or a warning is not acknowledged (`# acp-migrate: ok[RULE]` on its line), "
        "2 when a file could not be parsed, read or written.",
        epilog=f"rules: {rule_list}",
    )
    migrate.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    mode = migrate.add_argument_group("mode")
    mode.add_argument("--diff", action="store_true", help="print unified diffs, write nothing")
    mode.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if anything would change or a warning is not acknowledged",
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
    scope.add_argument(
        "--max-file-size",
        type=_size,
        default=None,
        metavar="SIZE",
        help="leave larger files the rules may touch unchanged, with an error (bytes, or "
        "with a K or M suffix; default 1M: parsing takes ~1000x the size in memory)",
    )
    output = migrate.add_argument_group("output")
    output.add_argument(
        "--jobs",
        type=_positive,
        default=1,
        metavar="N",
        help=f"worker processes, 1 to {MAX_JOBS} (default 1); they help only when many "
        "files can reach a chunk",
    )
    output.add_argument(
        "--json", type=Path, metavar="REPORT", help="write a machine-readable report here"
    )
    output.add_argument(
        "-q", "--quiet", action="store_true", help="print only problems and the summary"
    )
    output.add_argument(
        "--format",
        choices=("text", "github"),
        default="text",
        help="how findings are printed: text (default), or github: GitHub Actions workflow "
        "annotations (errors for what fails --check, else warnings and notices)",
    )
    migrate.set_defaults(func=migrate_command)


def _size(text: str) -> int:
    """A size in bytes: `300000`, `512K`, `4M`."""
    scale = {"K": 1024, "M": 1024 * 1024}.get(text[-1:].upper(), 1)
    try:
        value = int(text[:-1] if scale > 1 else text) * scale
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (e.g. 500000, 512K, 4M)") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


MAX_JOBS = 256  # each worker holds its own parser and files: far past any useful count


def _positive(text: str) -> int:
    """A worker count: 1 to MAX_JOBS (larger ones overflowed the pool's semaphores)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text[:20]!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    if value > MAX_JOBS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_JOBS}")
    return value


def migrate_command(args: argparse.Namespace) -> int:
    try:
        import libcst  # noqa: F401 - the migrations need it; say so before starting
    except ModuleNotFoundError:
        diagnostic(
            f"acp-schema migrate: libcst is not installed; this command needs the [migrate] "
            f"extra ({install_hint('migrate')})"
        )
        return EXIT_ERROR
    from acp_schema.migrations.chunk_identity.file_migration import MAX_FILE_BYTES, Options
    from acp_schema.migrations.framework.config import ConfigError, ConfigFinder
    from acp_schema.migrations.framework.disk.files import discover, excluded
    from acp_schema.migrations.framework.disk.report_file import ReportError, StagedReport

    # Everything that can make the run unusable is checked before any file is written.
    paths = [Path(p) for p in args.paths]
    finder = ConfigFinder()
    try:
        found = discover(paths, excludes=args.exclude, gitignore=not args.no_gitignore)
        configs = {path: finder.for_path(path) for path in found.files}
        files = [
            path
            for path in found.files
            if not (
                configs[path].exclude
                and excluded(path, configs[path].directory or path.parent, configs[path].exclude)
            )
        ]
        options: dict[Path, Options] = {}
        by_config: dict[Config, Options] = {}
        for path in files:
            config = configs[path]
            if config not in by_config:
                try:
                    expand([*config.select, *config.disable])
                except UnknownRuleError as err:
                    raise ConfigError(f"{config.path}: [tool.acp-schema.migrate]: {err}") from None
                by_config[config] = Options(
                    rules=select_rules(
                        [*config.select, *args.select], [*config.disable, *args.disable]
                    ),
                    bindings=tuple(dict.fromkeys([*config.bindings, *args.bindings])),
                    todo_comments=args.todo_comments or config.todo_comments,
                    max_file_bytes=args.max_file_size or MAX_FILE_BYTES,
                )
            options[path] = by_config[config]
        if not files:  # still check the command line's rules
            select_rules(args.select, args.disable)
    except (ConfigError, UnknownRuleError) as err:
        diagnostic(f"acp-schema migrate: {err}")
        return EXIT_ERROR
    report_file: StagedReport | None = None
    if args.json is not None:
        configs_read = {c.path for c in configs.values() if c.path is not None}
        try:
            report_file = StagedReport.stage(args.json, [*found.files, *configs_read])
        except ReportError as err:
            diagnostic(f"acp-schema migrate: --json {shown(args.json)}: {err}")
            return EXIT_ERROR
    try:
        return _migrate(args, found, files, options, report_file)
    finally:
        if report_file is not None:
            report_file.discard()


def _migrate(
    args: argparse.Namespace,
    found: Discovery,
    files: list[Path],
    options: dict[Path, Options],
    report_file: StagedReport | None,
) -> int:
    from acp_schema.migrations.chunk_identity.run import run_all, write_order
    from acp_schema.migrations.framework.disk.files import Write, write_all

    # With --diff the diffs own stdout; everything else goes to stderr.
    out = sys.stderr if args.diff else sys.stdout
    for missing in found.missing:
        why = found.why.get(missing) or (
            "not a regular file or directory" if missing.exists() else "no such file or directory"
        )
        diagnostic(f"{shown(missing)}: {why}")

    started = time.perf_counter()
    bar = ProgressBar(sys.stderr) if sys.stderr.isatty() and not args.quiet else None
    outcome = run_all(
        files, options, jobs=args.jobs, progress=bar, account_skipped=args.json is not None
    )
    results = outcome.results
    if bar is not None:
        bar.clear()

    writing = not (args.diff or args.check)
    changed = [r for r in results if r.status == "changed" and r.new is not None]
    if args.diff:
        stream = getattr(sys.stdout, "buffer", None)
        for result in changed:
            patch = _diff(result)
            if stream is not None:
                stream.write(patch)
            else:
                sys.stdout.write(patch.decode("utf-8", "surrogateescape"))
        if stream is not None:
            stream.flush()
    if writing and changed:
        # All or nothing (files.write_all), renamed in a safe order: callers of a
        # helper first, its module last (runner.write_order).
        errors = write_all(
            [Write(r.path, r.new or b"", r.original, r.stamp) for r in write_order(changed)]
        )
        for result in changed:
            if result.path in errors:
                result.status = "failed"
                result.error = errors[result.path]
            else:
                result.written = True

    show_changes = not (args.quiet or args.diff)
    github = args.format == "github"
    for result in results:
        if result.error:
            text = f"{shown(result.path)}: error: {shown(result.error)}"
            print(_github_error(result.path, result.error) if github else text, file=out)
        for finding in result.findings:
            if finding.kind == "warning" or (finding.kind == "change" and show_changes):
                text = finding.format(shown(result.path))
                print(
                    _github_finding(result.path, finding, args.check) if github else text, file=out
                )

    summary = _summary(results, len(found.missing))
    used = _bindings_used(options.values(), outcome.old_bindings)
    summary["bindings"] = used
    elapsed = time.perf_counter() - started
    print(_summary_line(summary, writing, elapsed), file=out)
    print(_bindings_line(used), file=out)
    if report_file is not None:
        report = _report(results, summary, options.values(), mode=_mode(args))
        try:
            report_file.commit(json_document(report) + "\n")
        except OSError as err:
            why = os_reason(err)
            diagnostic(f"acp-schema migrate: --json {shown(args.json)}: {why}")
            return EXIT_ERROR

    if summary["failed"]:
        return EXIT_ERROR
    # --check gates on what is left for a person too: every warning not acknowledged.
    if args.check and (summary["changed"] or summary["warnings"]):
        return EXIT_PENDING
    return EXIT_OK


def _github_finding(path: Path, finding: Finding, check: bool) -> str:
    """A finding as a GitHub annotation: an error where it fails `--check` (every warning,
    and a change not yet made), else a warning, or a notice for a change made."""
    level: Level = "error" if check else ("warning" if finding.kind == "warning" else "notice")
    return annotation(
        level,
        finding.message,
        file=path.as_posix(),
        line=finding.line,
        col=finding.column + 1,  # GitHub counts columns from 1, the findings from 0
        title=finding.rule,
    )


def _github_error(path: Path, error: str) -> str:
    return annotation("error", error, file=path.as_posix(), title="acp-schema migrate")


def _bindings_used(options: Iterable[Options], old: OldBindings) -> dict[str, Any]:
    """Which bindings the run used: always the defaults, those configured (command line
    or pyproject.toml), and the old chunk classes found in the run's files."""
    from acp_schema.migrations.resolution.bindings import DEFAULT_BINDINGS

    configured = sorted({m for o in options for m in o.bindings if m not in DEFAULT_BINDINGS})
    return {
        "default": list(DEFAULT_BINDINGS),
        "configured": configured,
        "detected": [
            {
                "module": d.module,
                "class": d.name,
                "kind": d.kind,
                "path": d.path.as_posix(),
                "line": d.line,
                "column": d.column,
            }
            for d in old.declarations
        ],
        "re-exported": sorted(
            name
            for name, _ in old.chunk_classes
            if name not in {d.qualified_name for d in old.declarations} and name not in old.facades
        ),
        "facades": list(old.facades),
    }


def _bindings_line(used: dict[str, Any]) -> str:
    parts = [f"default {', '.join(used['default'])}"]
    if used["configured"]:
        parts.append(f"configured {', '.join(used['configured'])}")
    if used["detected"]:
        found = ", ".join(f"{d['module']}.{d['class']}" for d in used["detected"])
        parts.append(f"detected {found}")
    return "bindings: " + "; ".join(parts)


def _mode(args: argparse.Namespace) -> str:
    if args.check:
        return "check"
    return "diff" if args.diff else "write"


def _diff(result: FileResult) -> bytes:
    """A unified diff of the file's bytes that `git apply` takes: lines split at `\\n`
    only, so a CRLF, a BOM or a latin-1 byte stays exactly as it is in the file. A
    symlink's diff names its target, the file that changes."""
    assert result.new is not None
    path = result.path
    if path.is_symlink():
        target = Path(os.path.realpath(path))
        path = Path(os.path.relpath(target)) if not path.is_absolute() else target
    name = path.as_posix().encode("utf-8", "surrogateescape")
    lines = difflib.diff_bytes(
        difflib.unified_diff,
        _lines(result.original),
        _lines(result.new),
        fromfile=diff_name(b"a/" + name),
        tofile=diff_name(b"b/" + name),
    )
    out = []
    for line in lines:
        out.append(line if line.endswith(b"\n") else line + b"\n\\ No newline at end of file\n")
    return b"".join(out)


# What git writes for these bytes inside a quoted name (quote.c); any other byte that
# needs quoting is written as three octal digits.
_C_ESCAPES = {7: b"\\a", 8: b"\\b", 9: b"\\t", 10: b"\\n", 11: b"\\v", 12: b"\\f", 13: b"\\r"}
_C_ESCAPES.update({ord('"'): b'\\"', ord("\\"): b"\\\\"})


def diff_name(name: bytes) -> bytes:
    """A file name for a `---`/`+++` line, quoted as git quotes it when it must be: when
    it holds a tab (which would end the name for `patch`), a line break, a quote, a
    backslash, a control character or a byte that is not UTF-8 text. `git apply` and
    GNU patch read the quoted form back to the same bytes."""
    try:
        plain = shown(name.decode("utf-8")) == name.decode("utf-8")
    except UnicodeDecodeError:
        plain = False
    if plain and b'"' not in name and b"\\" not in name:
        return name
    quoted = b"".join(
        _C_ESCAPES.get(byte) or (b"\\%03o" % byte if byte < 0x20 or byte >= 0x7F else bytes([byte]))
        for byte in name
    )
    return b'"' + quoted + b'"'


def _lines(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    last = lines.pop()
    return [line + b"\n" for line in lines] + ([last] if last else [])


def _summary(results: Sequence[FileResult], missing: int) -> dict[str, Any]:
    counts = Counter(r.status for r in results)
    warnings = Counter(f.rule for r in results for f in r.warnings)
    acknowledged = Counter(f.rule for r in results for f in r.acknowledged)
    verdicts = Counter(a.verdict for r in results for a in r.accounts)
    return {
        "scanned": len(results),
        "changed": counts["changed"],
        "unchanged": counts["unchanged"],
        "skipped": counts["skipped"],
        "failed": counts["failed"] + missing,
        "warnings": dict(sorted(warnings.items())),
        "acknowledged": dict(sorted(acknowledged.items())),
        "occurrences": {v: verdicts[v] for v in ("changed", "unrelated", "reported", "unchecked")},
    }


def _summary_line(summary: dict[str, Any], writing: bool, elapsed: float) -> str:
    changed = "changed" if writing else "would change"
    warnings = summary["warnings"]
    per_rule = ", ".join(f"{rule} {count}" for rule, count in warnings.items())
    total = sum(warnings.values())
    acknowledged = sum(summary["acknowledged"].values())
    return (
        f"{summary['scanned']} files scanned in {elapsed:.1f}s: {summary['changed']} {changed}, "
        f"{summary['unchanged']} unchanged, {summary['skipped']} skipped, "
        f"{summary['failed']} failed; {total} warning(s)"
        + (f" ({per_rule})" if per_rule else "")
        + (f", {acknowledged} acknowledged" if acknowledged else "")
    )


def _report(
    results: Sequence[FileResult],
    summary: dict[str, Any],
    options: Iterable[Options],
    *,
    mode: str,
) -> dict[str, Any]:
    return {
        "version": 1,
        "mode": mode,
        "rules": sorted({rule for o in options for rule in o.rules}),
        "bindings": summary["bindings"],
        "summary": {k: v for k, v in summary.items() if k != "bindings"},
        "files": [
            {
                "path": result.path.as_posix(),
                "status": result.status,
                "written": result.written,
                "changes": [_finding(f) for f in result.changes],
                "warnings": [_finding(f) for f in result.warnings],
                "acknowledged": [_finding(f) for f in result.acknowledged],
                "occurrences": [a.as_dict() for a in result.accounts],
                "error": result.error,
            }
            for result in results
        ],
    }


def _finding(finding: Finding) -> dict[str, Any]:
    data = finding.as_dict()
    data.pop("kind", None)
    return data
