"""Command line of the drift tools: ``acp-schema check`` and ``acp-schema diff``.

Only argparse wiring lives here; the handlers import their modules when they run, so
``acp-schema --help`` stays fast.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from acp_schema.cli_common import EXIT_OK, EXIT_PROBLEMS, EXIT_UNUSABLE, command_error
from acp_schema.cli_output import diagnostic, json_document

from ..bundled import VERSIONS

if TYPE_CHECKING:
    from acp_schema.cli_common import Subparsers

    from .check import Target


def register(commands: Subparsers) -> None:
    """Add `check` and `diff` to the `acp-schema` parser."""
    register_check(commands)
    register_diff(commands)


# --- check -------------------------------------------------------------------------------


def register_check(commands: Subparsers) -> None:
    check = commands.add_parser(
        "check",
        help="fail when the committed bindings do not match their schemas",
        description="Check that generated/v1 and generated/v2 match the bundled schemas and "
        "the installed datamodel-code-generator. The default fast path reads the schema "
        "digest and generator version from each file's header; --full renders the bindings "
        "in memory and compares every byte. Exit 0 in sync, 1 drift, 2 unusable input.",
    )
    check.add_argument(
        "versions",
        nargs="*",
        metavar="VERSION",
        help="protocol versions to check: v1, v2 (default: both)",
    )
    check.add_argument(
        "--full", action="store_true", help="render and compare every byte (a few s per version)"
    )
    check.add_argument(
        "--generated",
        type=Path,
        metavar="DIR",
        help="root holding the v1/ and v2/ binding packages (default: the installed ones)",
    )
    check.add_argument(
        "--schema-dir",
        type=Path,
        metavar="DIR",
        help="root holding v1/schema.unstable.json and v2/... (default: the bundled ones)",
    )
    check.add_argument(
        "--schema", type=Path, metavar="PATH", help="with --out: check one schema file..."
    )
    check.add_argument(
        "--out", type=Path, metavar="DIR", help="...against this binding package directory"
    )
    check.add_argument(
        "--upstream",
        metavar="NPM_VERSION",
        help="with one protocol version and --out: check a package made by "
        "`generate --upstream NPM_VERSION VERSION --out DIR` (the schema is fetched with npm "
        "once, then cached, as for `diff --upstream`)",
    )
    check.add_argument(
        "--stable", action="store_true", help="with --upstream: schema.json, as for generate"
    )
    check.add_argument(
        "--cache-dir", type=Path, metavar="DIR", help="cache for --upstream (as for `diff`)"
    )
    check.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text for people (default); json: one document with each target's findings",
    )
    check.set_defaults(func=_check)


def _check(args: argparse.Namespace) -> int:
    from . import check as drift

    if args.upstream is not None:
        return _check_upstream(args)
    if args.stable:
        return command_error("check", "--stable goes with --upstream")
    if (args.schema is None) != (args.out is None):
        return command_error("check", "--schema and --out go together")
    if args.schema is not None and (args.versions or args.generated or args.schema_dir):
        message = "give --schema/--out, or versions with --generated/--schema-dir"
        return command_error("check", message)
    unknown = [v for v in args.versions if v not in VERSIONS]
    if unknown:
        return command_error("check", f"unknown protocol version {unknown[0]!r} (known: v1, v2)")
    for flag, root in (("--generated", args.generated), ("--schema-dir", args.schema_dir)):
        # A missing root is drift (generate creates it); a file there can never be fixed so.
        if root is not None and root.exists() and not root.is_dir():
            return command_error("check", f"{flag} {root}: not a directory")
    if args.schema is not None:
        targets = [drift.file_target(args.schema, args.out)]
    else:
        targets = drift.version_targets(
            args.versions or VERSIONS, schema_dir=args.schema_dir, generated_dir=args.generated
        )
    bundled = args.schema is None and args.generated is None and args.schema_dir is None
    return _report_check(targets, args, bundled=bundled)


def _check_upstream(args: argparse.Namespace) -> int:
    """`check --upstream RELEASE VERSION --out DIR`: the arguments `generate` took."""
    from ..generate.package_files import UpstreamSource
    from ..upstream import UpstreamError, upstream_schema
    from . import check as drift

    if args.schema is not None or args.generated or args.schema_dir:
        return command_error("check", "give --upstream or --schema, --generated, --schema-dir")
    if len(args.versions) != 1 or args.versions[0] not in VERSIONS:
        return command_error("check", "with --upstream give one protocol version: v1 or v2")
    if args.out is None:
        return command_error("check", "--upstream needs --out DIR (the package to check)")
    source = UpstreamSource(args.upstream, args.versions[0], args.stable)
    try:
        schema = upstream_schema(
            source.release, source.version, cache_dir=args.cache_dir, stable=source.stable
        )
    except UpstreamError as exc:
        return command_error("check", str(exc))
    return _report_check([drift.upstream_target(source, schema, args.out)], args, bundled=False)


def _report_check(targets: list[Target], args: argparse.Namespace, *, bundled: bool) -> int:
    from . import check as drift

    reports = drift.check(targets, full=args.full)
    if args.format == "json":
        print(json_document(drift.report_json(reports, full=args.full)))
    else:
        print("\n".join(drift.report_lines(reports, bundled=bundled)))
    return drift.exit_code(reports)


# --- diff --------------------------------------------------------------------------------


def register_diff(commands: Subparsers) -> None:
    diff = commands.add_parser(
        "diff",
        help="what changed between two ACP schemas, and what it breaks",
        description="Structural diff of two ACP schemas (files, or the bundled v1/v2). Each "
        "change is classified for the wire (can an OLD decoder read NEW messages, and the "
        "reverse) and for the Python API of the bindings, and names the codemod that "
        "covers it. With --upstream VERSION, compares the bundled schema of one protocol "
        "version with the one published in @agentclientprotocol/sdk VERSION (fetched with "
        "npm once, then cached). With --impact PATH..., lists every place in that code "
        "that a change breaking the API or the wire touches (breaks, may break, or a note "
        "for a chain over a union or enum that gains a member). Exit 0, or 1 with "
        "--fail-on when a change of that class exists (with --impact: when a listed place "
        "is hit by one); 2 for unusable input.",
    )
    diff.add_argument(
        "schemas",
        nargs="+",
        metavar="SCHEMA",
        help="OLD NEW: schema files or bundled versions (v1, v2); with --upstream: one version",
    )
    diff.add_argument(
        "--format",
        choices=("text", "json", "markdown", "github"),
        default="text",
        help="text for people (default), json for machines, markdown for a changelog, "
        "github for GitHub Actions annotations (on the NEW schema file; on the code with "
        "--impact)",
    )
    diff.add_argument(
        "--fail-on",
        choices=("breaking", "api", "wire", "any"),
        help="exit 1 if a change of this class exists (breaking = api or wire); with "
        "--impact, if a listed place is hit by one (any: any place but notes)",
    )
    diff.add_argument(
        "--descriptions",
        action="store_true",
        help="also report description and title changes (never breaking)",
    )
    diff.add_argument(
        "--upstream",
        metavar="NPM_VERSION",
        help="compare the bundled schema with @agentclientprotocol/sdk at this version",
    )
    diff.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help="cache for --upstream (default: $ACP_SCHEMA_CACHE, else "
        "$XDG_CACHE_HOME/acp-schema, else ~/.cache/acp-schema)",
    )
    register_impact(diff)
    diff.set_defaults(func=_diff)
    setattr(diff, "error", _one_line_error)  # noqa: B010 - argparse's hook for usage errors


def _one_line_error(message: str) -> NoReturn:
    """A usage error of `diff` in one line (argparse prints the whole usage block)."""
    raise SystemExit(command_error("diff", f"error: {message} (see acp-schema diff --help)"))


def register_impact(diff: argparse.ArgumentParser) -> None:
    from acp_schema.migrations.cli import _positive, _size

    impact = diff.add_argument_group("impact on code (--impact)")
    impact.add_argument(
        "--impact",
        nargs="+",
        metavar="PATH",
        help="Python files or directories to scan for places the changes touch",
    )
    impact.add_argument(
        "--bindings",
        action="append",
        default=[],
        metavar="MODULE",
        help="another module that holds the OLD bindings (default: acp_schema.v1/v2 for "
        "the diff's protocol, and copies of generated bindings of OLD or NEW in PATH)",
    )
    impact.add_argument(
        "--exclude", action="append", default=[], metavar="GLOB", help="skip matching paths"
    )
    impact.add_argument(
        "--no-gitignore", action="store_true", help="also scan files .gitignore ignores"
    )
    impact.add_argument(
        "--max-file-size",
        type=_size,
        default=None,
        metavar="SIZE",
        help="report larger files instead of scanning them (default 1M)",
    )
    impact.add_argument(
        "--jobs", type=_positive, default=1, metavar="N", help="worker processes (default 1)"
    )


def _diff(args: argparse.Namespace) -> int:
    from ..generate.package_files import shown_path
    from ..schema_check import SchemaError
    from ..upstream import UpstreamError, upstream_schema
    from .diff_report import FAIL_ON, render_report
    from .schema_diff import SchemaInput, diff_files, resolve_input

    try:
        if args.upstream is not None:
            if len(args.schemas) != 1 or args.schemas[0] not in VERSIONS:
                return command_error("diff", "with --upstream give one protocol version: v1 or v2")
            version = args.schemas[0]
            old = resolve_input(version)
            fetched = upstream_schema(args.upstream, version, cache_dir=args.cache_dir)
            new = SchemaInput(f"@agentclientprotocol/sdk {args.upstream} {version}", fetched)
        else:
            if len(args.schemas) != 2:
                return command_error("diff", "give two schemas: OLD NEW")
            old, new = (resolve_input(s) for s in args.schemas)
        if args.impact is not None:
            from .impact.cli import impact_command

            return impact_command(args, old, new)
        report = diff_files(old, new, descriptions=args.descriptions)
    except SchemaError as err:
        for line in err.lines():
            diagnostic(line)
        return EXIT_UNUSABLE
    except (UpstreamError, ValueError) as exc:
        return command_error("diff", str(exc))
    new_file = None if args.upstream is not None else shown_path(new.path)
    sys.stdout.write(render_report(report, args.format, new_file))
    if args.fail_on is not None and FAIL_ON[args.fail_on](report):
        return EXIT_PROBLEMS
    return EXIT_OK
