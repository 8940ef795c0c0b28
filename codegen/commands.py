"""The shared schema layer's subcommand: `schema check`.

The two tools built on it register their own: `generate` (`generate/commands.py`) and
`check`/`diff` (`drift/commands.py`). `register` adds `schema` to the `acp-schema` parser
(`acp_schema.cli`); the handler imports what it needs when it runs, so `acp-schema --help`
stays fast and works without extras.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_schema.cli_common import EXIT_OK, EXIT_PROBLEMS, EXIT_UNUSABLE, usage_handler
from acp_schema.cli_output import json_document, shown

from .bundled import VERSIONS, bundled_schema

if TYPE_CHECKING:
    from acp_schema.cli_common import Subparsers

    from .schema_problems import Problem


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
    check.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text for people (default); json: one document with each file's problems",
    )
    check.set_defaults(func=_schema_check)


def _schema_check(args: argparse.Namespace) -> int:
    from .schema_check import SchemaError, check_schema_file

    paths = [Path(p) for p in args.paths] or [bundled_schema(v) for v in VERSIONS]
    text = args.format == "text"
    files: list[dict[str, Any]] = []
    for path in paths:
        try:
            found = check_schema_file(path, warnings=True)
        except SchemaError as err:  # nothing else could be checked in this file
            if text:
                print("\n".join(err.lines()))
            files.append(_file_record(path, "unusable", err.problems))
            continue
        if text:
            for problem in found:
                print(f"{shown(path)}: {problem}")
        errors = any(not p.warning for p in found)
        files.append(_file_record(path, "problems" if errors else "clean", found))
    counts = {
        status: sum(f["status"] == status for f in files)
        for status in ("clean", "problems", "unusable")
    }
    problems = sum(
        not p["warning"] for f in files if f["status"] == "problems" for p in f["problems"]
    )
    # Warnings (what the bindings carry through without understanding) never fail the check.
    warnings = sum(p["warning"] for f in files if f["status"] != "unusable" for p in f["problems"])
    code = EXIT_UNUSABLE if counts["unusable"] else EXIT_PROBLEMS if problems else EXIT_OK
    if text:
        noted = f", {warnings} warning(s)" if warnings else ""
        print(
            f"{len(paths)} schema(s) checked: {counts['clean']} clean, {problems} problem(s) "
            f"in {counts['problems']}, {counts['unusable']} unusable{noted}"
        )
    else:
        summary = {
            "schemas": len(paths),
            "clean": counts["clean"],
            "with_problems": counts["problems"],
            "unusable": counts["unusable"],
            "problems": problems,
            "warnings": warnings,
        }
        document = {"exit": code, "summary": summary, "files": files}
        print(json_document(document))
    return code


def _file_record(path: Path, status: str, problems: Iterable[Problem]) -> dict[str, Any]:
    """One file of `schema check --format json`: its status (clean, problems, unusable) and
    each problem with its JSON pointer (empty for a file that could not be read at all)."""
    return {
        "path": str(path),
        "status": status,
        "problems": [
            {"pointer": p.pointer, "message": p.message, "warning": p.warning} for p in problems
        ],
    }
