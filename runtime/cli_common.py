"""What every `acp-schema` subcommand shares: exit codes, the registrar signature and the
handling of Ctrl-C around work that must not be cut in half.

Each tool package registers its own subcommands (`register(commands)`) and imports only
this module from the command line's plumbing, so the top-level parser (`acp_schema.cli`)
is imported by nothing. The error style and exit codes are documented in the README
("Errors and exit codes").
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, TypeAlias

from acp_schema.cli_output import diagnostic

EXIT_OK = 0
EXIT_PROBLEMS = 1  # drift, schema problems, pending migrations, bad log lines
EXIT_UNUSABLE = 2  # unusable input; also argparse's code for a bad command line
EXIT_INTERRUPTED = 130  # Ctrl-C, as shells report SIGINT (128 + 2)
EXIT_BROKEN_PIPE = 141  # the reader of our output went away, as shells report SIGPIPE (128 + 13)
EXIT_TERMINATED = 143  # SIGTERM, as shells report it (128 + 15)

Handler = Callable[[argparse.Namespace], int]
if TYPE_CHECKING:
    # argparse does not export the type of add_subparsers()' result.
    Subparsers: TypeAlias = argparse._SubParsersAction[argparse.ArgumentParser]


def os_reason(exc: BaseException) -> str:
    """Why an operation failed, as the OS words it ("No such file or directory") when the
    error came from the OS, else the exception's own text."""
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc)


def install_hint(extra: str) -> str:
    """How to get an extra of this project, which is installed from a checkout or a built
    wheel (it is not on an index)."""
    from importlib import metadata  # a large import, for this message only

    try:
        version = metadata.version("acp-schema")
    except metadata.PackageNotFoundError:  # running from a source tree
        version = "VERSION"
    return (
        f"from a checkout: `pip install '.[{extra}]'`; from a wheel: "
        f"`pip install 'acp_schema-{version}-py3-none-any.whl[{extra}]'`"
    )


def command_error(command: str, message: str) -> int:
    """Say on stderr why `acp-schema COMMAND` cannot run; return the exit code for it."""
    diagnostic(f"acp-schema {command}: {message}")
    return EXIT_UNUSABLE


def usage_handler(parser: argparse.ArgumentParser) -> Handler:
    """Handler for a command group invoked without a command: usage, exit 2."""

    def handler(args: argparse.Namespace) -> int:
        parser.print_usage(sys.stderr)
        return EXIT_UNUSABLE

    return handler


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that the same `finally` blocks and context managers
    (temporary directories, a datamodel-codegen child, half-written temp files) clean up."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def terminate_like_interrupt() -> None:
    """Make SIGTERM raise `Terminated` in this process (the console script's, not a
    library caller's: it is set from `console_main` only)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _raise_terminated)


def ignore_interrupts() -> None:
    """Initializer of worker processes: Ctrl-C reaches the whole process group, and only
    the parent reports it (once); a worker that raised KeyboardInterrupt would print its
    own traceback."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Hold Ctrl-C (and SIGTERM) until the block is done, then let the handler that was
    in place act on it (KeyboardInterrupt, `Terminated`, or the default: the end).

    For the few renames that swap finished output into place: cut in the middle, they
    would leave neither the old output nor the new one. Signal handlers can only be set
    in the main thread; elsewhere the block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def remember(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    previous = {signum: signal.signal(signum, remember) for signum in _DEFERRED}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    for held in dict.fromkeys(received):
        signal.raise_signal(held)


_DEFERRED = (signal.SIGINT, signal.SIGTERM)
