"""The shared schema layer's subcommand: `schema check`.

The two tools built on it register their own: `generate` (`generate/commands.py`) and
`check`/`diff` (`drift/commands.py`). `register` adds `schema` to the `acp-schema` parser
(`acp_schema.cli`); the handler imports what it needs when it runs, so `acp-schema --help`
stays fast and works without extras.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from acp_schema.cli_common import EXIT_OK, EXIT_PROBLEMS, EXIT_UNUSABLE, usage_handler
from acp_schema.cli_output import shown

from .bundled import VERSIONS, bundled_schema

if TYPE_CHECKING:
    from acp_schema.cli_common import Subparsers


def register(commands: Subparsers) -> None:
    """Add `schema` to the `acp-schema` parser."""
    _register_schema(commands)


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
            print(f"{shown(path)}: {problem}")
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
