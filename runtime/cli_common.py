"""What every `acp-schema` subcommand shares: exit codes and the registrar signature.

Each tool package registers its own subcommands (`register(commands)`) and imports only
this module from the command line's plumbing, so the top-level parser (`acp_schema.cli`)
is imported by nothing.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

EXIT_OK = 0
EXIT_PROBLEMS = 1  # drift, schema problems, pending migrations, bad log lines
EXIT_UNUSABLE = 2  # unusable input; also argparse's code for a bad command line
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT

Handler = Callable[[argparse.Namespace], int]
if TYPE_CHECKING:
    # argparse does not export the type of add_subparsers()' result.
    Subparsers: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]


def usage_handler(parser: argparse.ArgumentParser) -> Handler:
    """Handler for a command group invoked without a command: usage, exit 2."""

    def handler(args: argparse.Namespace) -> int:
        parser.print_usage(sys.stderr)
        return EXIT_UNUSABLE

    return handler
