"""The `acp-schema` command line: the one module that owns the top-level parser.

Every tool contributes its subcommands from its own package through a `register`
function; registering imports only argparse wiring, and each handler imports its tool when
it runs. The tools' dependencies come with extras, so a missing one is named instead of
shown as an import traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from importlib import metadata

from .cli_common import EXIT_OK, EXIT_UNUSABLE, Handler, usage_handler

# (module, registrar) of every command group, in the order `--help` lists them.
COMMAND_GROUPS = (
    ("acp_schema.codegen.commands", "register"),
    ("acp_schema.transcripts.cli", "register"),
    ("acp_schema.migrations.cli", "register"),
)

# Which extra brings a third-party module the tools import.
_EXTRA_OF = {
    "datamodel_code_generator": "codegen",
    "jsonschema": "codegen",
    "ruff": "codegen",
    "libcst": "migrate",
}


def _version() -> str:
    try:
        return metadata.version("acp-schema")
    except metadata.PackageNotFoundError:  # running from a source tree
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acp-schema",
        description="Tools for the Agent Client Protocol unstable JSON Schema.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module, registrar in COMMAND_GROUPS:
        getattr(importlib.import_module(module), registrar)(commands)
    parser.set_defaults(func=usage_handler(parser))
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
    try:
        return handler(args)
    except ModuleNotFoundError as exc:
        top = (exc.name or "").partition(".")[0]
        if top not in _EXTRA_OF:
            raise
        print(
            f"acp-schema {args.command}: {top} is not installed; this command comes with an "
            f"extra: pip install 'acp-schema[{_EXTRA_OF[top]}]'",
            file=sys.stderr,
        )
        return EXIT_UNUSABLE


def console_main() -> None:
    """Entry point of the `acp-schema` console script and `python -m acp_schema`."""
    raise SystemExit(main())
