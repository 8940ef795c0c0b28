"""The `acp-schema` command line: the one module that owns the top-level parser.

Every tool contributes its subcommands from its own package through a `register`
function; registering imports only argparse wiring, and each handler imports its tool when
it runs. The tools' dependencies come with extras, so a missing one is named instead of
shown as an import traceback.

`main` also gives every subcommand the same ending for what is not a bad input of its own
(README, "Errors and exit codes"): Ctrl-C exits 130 with one line, a closed pipe (output
piped to `head`) ends quietly with 141, an output that cannot be written (a full disk, a
stdout closed from the start) is one line and exit 74 (`cli_output`, the layer every
command's output goes through), an OS error that no command reported itself is one
line naming the file, exit 2, and so is input nested too deeply to process.
"""

from __future__ import annotations

import argparse
import importlib
import io
import os
import sys
from collections.abc import Sequence
from contextlib import suppress
from typing import Any

from .cli_common import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    EXIT_UNUSABLE,
    Handler,
    Terminated,
    install_hint,
    os_reason,
    terminate_like_interrupt,
    usage_handler,
)
from .cli_output import (
    EXIT_OUTPUT,
    OutputError,
    diagnostic,
    output_layer,
    reserve_standard_descriptors,
    shown,
    stdout_closed,
)

# (module, registrar) of every command group, in the order `--help` lists them.
COMMAND_GROUPS = (
    ("acp_schema.codegen.commands", "register"),
    ("acp_schema.codegen.generate.commands", "register"),
    ("acp_schema.codegen.drift.commands", "register"),
    ("acp_schema.transcripts.cli", "register"),
    ("acp_schema.migrations.cli", "register"),
)
# The commands each group adds (tests check them against what `register` adds): a command
# line that names one builds the parser with that group alone, so that a command does not
# import every other tool's wiring (memory and time at each start).
GROUP_COMMANDS = {
    "acp_schema.codegen.commands": ("schema",),
    "acp_schema.codegen.generate.commands": ("generate",),
    "acp_schema.codegen.drift.commands": ("check", "diff"),
    "acp_schema.transcripts.cli": ("transcript",),
    "acp_schema.migrations.cli": ("migrate",),
}

# Which extras bring a third-party module the tools import (libcst comes with both), and
# the extra each command comes with (every other one: codegen).
_EXTRAS_OF = {
    "datamodel_code_generator": ("codegen",),
    "jsonschema": ("codegen",),
    "ruff": ("codegen",),
    "libcst": ("codegen", "migrate"),
    "pathspec": ("migrate",),
    "re2": ("migrate",),  # pathspec[re2]
}
_EXTRA_OF_COMMAND = {"migrate": "migrate"}


def _version() -> str:
    from importlib import metadata  # a large import: only for --version

    try:
        return metadata.version("acp-schema")
    except metadata.PackageNotFoundError:  # running from a source tree
        return "unknown"


class _VersionAction(argparse._VersionAction):
    """argparse's `version` action, whose text is looked up only when `--version` is given."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        self.version = f"%(prog)s {_version()}"
        super().__call__(parser, namespace, values, option_string)


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with `argv` whose first item is a command, of that one
    command (`--help`, `--version` and usage errors of the top level list every group)."""
    first = next(iter(argv), None) if argv is not None else None
    groups = [
        (module, registrar)
        for module, registrar in COMMAND_GROUPS
        if first in GROUP_COMMANDS[module]
    ] or list(COMMAND_GROUPS)
    parser = argparse.ArgumentParser(
        prog="acp-schema",
        description="Tools for the Agent Client Protocol unstable JSON Schema.",
    )
    parser.add_argument("--version", action=_VersionAction)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module, registrar in groups:
        getattr(importlib.import_module(module), registrar)(commands)
    parser.set_defaults(func=usage_handler(parser))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code instead of exiting."""
    where = ["acp-schema"]  # grows to `acp-schema generate` once the command is known
    if stdout_closed():
        _error(where, "standard output is closed; nothing done")
        return EXIT_OUTPUT
    with output_layer():
        return _main(argv, where)


def _main(argv: Sequence[str] | None, where: list[str]) -> int:
    try:
        code = _run(argv, where)
        sys.stdout.flush()  # a closed pipe or a full disk shows here, not at exit
        return code
    except OutputError as exc:
        if exc.reader_left:
            return EXIT_BROKEN_PIPE
        _error(where, str(exc))
        return EXIT_OUTPUT
    except Terminated:
        _error(where, "terminated")
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        _error(where, "interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        _drop_stdout()
        return EXIT_BROKEN_PIPE
    except OSError as exc:  # one no command turned into its own message
        name = f"{shown(exc.filename)}: " if exc.filename is not None else ""
        _error(where, f"{name}{os_reason(exc)}")
        return EXIT_UNUSABLE
    except RecursionError:
        _error(where, "the input is nested too deeply to process")
        return EXIT_UNUSABLE


def _run(argv: Sequence[str] | None, where: list[str]) -> int:
    parser = build_parser(sys.argv[1:] if argv is None else argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, usage errors
        if exc.code is None:
            return EXIT_OK
        return exc.code if isinstance(exc.code, int) else EXIT_UNUSABLE
    for name in ("command", f"{args.command}_command"):  # `transcript show`, `schema check`
        if getattr(args, name, None):
            where.append(getattr(args, name))
    handler: Handler = args.func
    try:
        return handler(args)
    except ModuleNotFoundError as exc:
        top = (exc.name or "").partition(".")[0]
        if top not in _EXTRAS_OF:
            raise
        _error(where, _missing_extra_hint(top, args.command))
        return EXIT_UNUSABLE


def _missing_extra_hint(module: str, command: str) -> str:
    """What to install when `command` needs `module`: the command's own extra, which
    brings everything the command needs (not only the module that happened to be first)."""
    extra = _EXTRA_OF_COMMAND.get(command, "codegen")
    if extra not in _EXTRAS_OF[module]:
        extra = _EXTRAS_OF[module][0]
    return (
        f"{module} is not installed; this command needs the [{extra}] extra ({install_hint(extra)})"
    )


def _error(where: list[str], message: str) -> None:
    if sys.stderr is None:  # started without one: the exit code still tells
        return
    with suppress(OSError, ValueError):  # stderr itself is gone; the exit code still tells
        diagnostic(f"{' '.join(where)}: {message}")


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so the flush at exit does not fail on the closed pipe
    again (the recipe of the `signal` module's documentation)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real descriptor (captured output)
        pass


def _buffered_stdout() -> None:
    """Give stdout a buffered writer if it has none (`PYTHONUNBUFFERED`, `python -u`).

    Unbuffered, `print` hands its text to the file descriptor in one `write`; when the
    reader leaves in the middle, the kernel takes part of it and the rest is dropped with
    no error, so `acp-schema diff v1 v2 | head` ended 0 with its output cut. A buffered
    writer writes the rest and meets the closed pipe: `BrokenPipeError`, exit 141."""
    stream = sys.stdout
    raw = getattr(stream, "buffer", None)
    if not isinstance(stream, io.TextIOWrapper) or not isinstance(raw, io.RawIOBase):
        return
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(raw),
        encoding=stream.encoding,
        errors=stream.errors,
        line_buffering=stream.isatty(),
    )


def console_main() -> None:
    """Entry point of the `acp-schema` console script and `python -m acp_schema`."""
    reserve_standard_descriptors()
    _buffered_stdout()
    terminate_like_interrupt()
    raise SystemExit(main())
