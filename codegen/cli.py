"""The ``acp-schema`` command line.

Each command group registers itself through a function in ``COMMAND_GROUPS``; each
command is a small function taking the parsed arguments and returning the exit code.
To add a command, add a registrar (or extend one) and point ``func`` at a handler.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from acp_schema.migrations.cli import register_migrate

from .bundled import VERSIONS, bundled_schema, default_output
from .drift_cli import register_check, register_diff
from .schema_check import SchemaError, check_schema_file
from .transcript_cli import register_transcript

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_UNUSABLE = 2  # also argparse's code for a bad command line


Handler = Callable[[argparse.Namespace], int]
if TYPE_CHECKING:
    # argparse does not export the type of add_subparsers()' result.
    Subparsers: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]


def _version() -> str:
    try:
        return metadata.version("acp-schema")
    except metadata.PackageNotFoundError:  # running from a source tree
        return "unknown"


# --- schema ------------------------------------------------------------------------------


def _register_schema(commands: Subparsers) -> None:
    schema = commands.add_parser("schema", help="work with ACP JSON Schema files")
    schema_commands = schema.add_subparsers(dest="schema_command", metavar="COMMAND")
    schema.set_defaults(func=_help_of(schema))

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
    paths = [Path(p) for p in args.paths] or [bundled_schema(v) for v in VERSIONS]
    clean = with_problems = unusable = problems = 0
    for path in paths:
        try:
            found = check_schema_file(path)
        except SchemaError as err:
            print("\n".join(err.lines()))
            unusable += 1
            continue
        for problem in found:
            print(f"{path}: {problem}")
        problems += len(found)
        with_problems += bool(found)
        clean += not found
    print(
        f"{len(paths)} schema(s) checked: {clean} clean, {problems} problem(s) "
        f"in {with_problems}, {unusable} unusable"
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
    generate.add_argument("--out", type=Path, help="with --schema: the package directory to write")
    generate.set_defaults(func=_generate)


def _generate(args: argparse.Namespace) -> int:
    # Imported here: the generator's dependencies are an extra, not needed for `schema`.
    from .generate import generate_many

    if (args.schema is None) != (args.out is None):
        print("acp-schema generate: --schema and --out go together", file=sys.stderr)
        return EXIT_UNUSABLE
    if args.schema is not None and args.versions:
        print("acp-schema generate: give versions or --schema, not both", file=sys.stderr)
        return EXIT_UNUSABLE
    unknown = sorted(set(args.versions) - set(VERSIONS))
    if unknown:
        print(f"acp-schema generate: unknown version(s) {', '.join(unknown)}", file=sys.stderr)
        return EXIT_UNUSABLE
    jobs = (
        [(args.schema, args.out)]
        if args.schema is not None
        else [(bundled_schema(v), default_output(v)) for v in args.versions or VERSIONS]
    )
    try:
        written = generate_many(jobs)
    except SchemaError as err:
        print("\n".join(err.lines()), file=sys.stderr)
        return EXIT_UNUSABLE if err.unusable else EXIT_PROBLEMS
    for (schema, out), files in zip(jobs, written, strict=True):
        print(f"{schema} -> {out} ({len(files)} files)")
    return EXIT_OK


# --- plumbing ----------------------------------------------------------------------------


def _help_of(parser: argparse.ArgumentParser) -> Handler:
    """Handler for a command group invoked without a command: usage, exit 2."""

    def handler(args: argparse.Namespace) -> int:
        parser.print_usage(sys.stderr)
        return EXIT_UNUSABLE

    return handler


COMMAND_GROUPS: list[Callable[[Subparsers], None]] = [
    _register_schema,
    _register_generate,
    register_check,
    register_diff,
    register_transcript,
    register_migrate,
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acp-schema",
        description="Tools for the Agent Client Protocol unstable JSON Schema.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in COMMAND_GROUPS:
        register(commands)
    parser.set_defaults(func=_help_of(parser))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code instead of exiting."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors
        if exc.code is None:
            return EXIT_OK
        return exc.code if isinstance(exc.code, int) else EXIT_UNUSABLE
    handler: Handler = args.func
    return handler(args)
