"""The code-generation tools' subcommands: `schema check`, `generate`, `check`, `diff`.

`register` adds them to the `acp-schema` parser (`acp_schema.cli`); each handler imports
what it needs when it runs, so `acp-schema --help` stays fast and works without extras.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from acp_schema.cli_common import (
    EXIT_OK,
    EXIT_PROBLEMS,
    EXIT_UNUSABLE,
    command_error,
    os_reason,
    usage_handler,
)

from .bundled import VERSIONS, bundled_schema, default_output
from .drift_cli import register_check, register_diff

if TYPE_CHECKING:
    from acp_schema.cli_common import Subparsers

    from .schema_check import Problem


def register(commands: Subparsers) -> None:
    """Add `schema`, `generate`, `check` and `diff` to the `acp-schema` parser."""
    _register_schema(commands)
    _register_generate(commands)
    register_check(commands)
    register_diff(commands)


# --- schema ------------------------------------------------------------------------------


def _register_schema(commands: Subparsers) -> None:
    schema = commands.add_parser("schema", help="work with ACP JSON Schema files")
    schema_commands = schema.add_subparsers(dest="schema_command", metavar="COMMAND")
    schema.set_defaults(func=usage_handler(schema))

    check = schema_commands.add_parser(
        "check",
        help="report every problem of schema files",
        description="Check ACP schema files: JSON, Draft 2020-12, $refs, x- keywords, "
        "tagged unions. Exit 0 if clean, 1 with problems, 2 if a file is unusable.",
    )
    check.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="schema files (default: the bundled v1 and v2 schemas)",
    )
    check.set_defaults(func=_schema_check)


def _schema_check(args: argparse.Namespace) -> int:
    from .schema_check import SchemaError, check_schema_file

    paths = [Path(p) for p in args.paths] or [bundled_schema(v) for v in VERSIONS]
    clean = with_problems = unusable = problems = warnings = 0
    for path in paths:
        try:
            found = check_schema_file(path, warnings=True)
        except SchemaError as err:
            print("\n".join(err.lines()))
            unusable += 1
            continue
        for problem in found:
            print(f"{path}: {problem}")
        errors = [p for p in found if not p.warning]
        problems += len(errors)
        warnings += len(found) - len(errors)
        with_problems += bool(errors)
        clean += not errors
    # Warnings (what the bindings carry through without understanding) never fail the check.
    noted = f", {warnings} warning(s)" if warnings else ""
    print(
        f"{len(paths)} schema(s) checked: {clean} clean, {problems} problem(s) "
        f"in {with_problems}, {unusable} unusable{noted}"
    )
    if unusable:
        return EXIT_UNUSABLE
    return EXIT_PROBLEMS if problems else EXIT_OK


# --- generate ----------------------------------------------------------------------------


def _register_generate(commands: Subparsers) -> None:
    generate = commands.add_parser(
        "generate",
        help="regenerate the typed bindings from a schema",
        description="Regenerate generated/v1 and generated/v2 from the bundled schemas, or "
        "the bindings of any ACP-style schema with --schema PATH --out DIR.",
    )
    generate.add_argument(
        "versions",
        nargs="*",
        metavar="VERSION",
        help="bundled versions to regenerate (default: all)",
    )
    generate.add_argument("--schema", type=Path, help="generate from this schema file")
    generate.add_argument(
        "--upstream",
        metavar="NPM_VERSION",
        help="generate from the schema published in @agentclientprotocol/sdk at this version "
        "(give one protocol version, v1 or v2; fetched with npm once, then cached)",
    )
    generate.add_argument(
        "--stable",
        action="store_true",
        help="with --upstream: schema.json, not schema.unstable.json",
    )
    generate.add_argument(
        "--cache-dir", type=Path, metavar="DIR", help="cache for --upstream (as for `diff`)"
    )
    generate.add_argument(
        "--out", type=Path, help="with --schema or --upstream: the package directory to write"
    )
    generate.set_defaults(func=_generate)


def _upstream_source(args: argparse.Namespace) -> int | None:
    """With --upstream: fetch (or find cached) the published schema and put it in
    `args.schema`, so the rest of `generate` treats it as a --schema file. Returns an exit
    code when the arguments or the fetch fail, else None."""
    from .upstream import UpstreamError, upstream_schema

    if args.upstream is None:
        if args.stable:
            return _generate_error("--stable goes with --upstream")
        return None
    if args.schema is not None:
        return _generate_error("give --schema or --upstream, not both")
    if len(args.versions) != 1 or args.versions[0] not in VERSIONS:
        return _generate_error("with --upstream give one protocol version: v1 or v2")
    if args.out is None:
        return _generate_error("--upstream needs --out DIR (the package directory to write)")
    try:
        args.schema = upstream_schema(
            args.upstream, args.versions[0], cache_dir=args.cache_dir, stable=args.stable
        )
    except UpstreamError as exc:
        return _generate_error(str(exc))
    args.versions = []
    return None


def _generate_error(message: str) -> int:
    return command_error("generate", message)


def _generate(args: argparse.Namespace) -> int:
    # Imported here: the generator's dependencies are an extra, not needed for `schema`.
    from .generate import failure_summary, generate_many
    from .out_dir import OutDirError
    from .schema_check import SchemaError

    failed = _upstream_source(args)
    if failed is not None:
        return failed
    if (args.schema is None) != (args.out is None):
        return _generate_error("--schema and --out go together")
    if args.schema is not None and args.versions:
        return _generate_error("give versions or --schema, not both")
    unknown = sorted(set(args.versions) - set(VERSIONS))
    if unknown:
        return _generate_error(f"unknown version(s) {', '.join(unknown)}")
    jobs = (
        [(args.schema, args.out)]
        if args.schema is not None
        else [(bundled_schema(v), default_output(v)) for v in args.versions or VERSIONS]
    )
    try:
        written = generate_many(jobs, _print_warning)
    except SchemaError as err:  # nothing can be generated from a schema with problems
        print("\n".join(err.lines()), file=sys.stderr)
        return EXIT_UNUSABLE
    except RuntimeError as err:  # datamodel-codegen or ruff failed on what the checks passed
        return _generate_error(failure_summary(err))
    except OutDirError as err:
        return _generate_error(str(err))
    except OSError as err:
        where = err.filename if err.filename is not None else "the output directory"
        return _generate_error(f"cannot write {where}: {os_reason(err)}")
    for (schema, out), files in zip(jobs, written, strict=True):
        print(f"{schema} -> {out} ({len(files)} files)")
    return EXIT_OK


def _print_warning(path: Path, problem: Problem) -> None:
    """What the bindings carried through without understanding (never a failure)."""
    print(f"{path}: {problem}", file=sys.stderr)
