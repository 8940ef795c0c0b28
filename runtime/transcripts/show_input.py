"""What `acp-schema transcript show` reads, from its command line: the log (`-` for standard
input) and the protocol version (`--protocol`; the old spelling `--version VERSION` still
works, with a deprecation line, since `--version` means the program's version everywhere
else)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from acp_schema.cli_output import diagnostic

from .entries import Version

# `-` reads the standard input: opened again by name, so that it is read as any stream is
# (`_input.open_lines`: non-blocking, waking up for Ctrl-C) without changing the flags of
# the descriptor the process shares with its parent.
STDIN = "/dev/stdin"


@dataclass(frozen=True)
class ShowInput:
    protocol: Version
    source: str | Path  # what to open
    shown: Path  # how messages name it: the path, or <stdin>


def add_arguments(show: argparse.ArgumentParser) -> None:
    show.add_argument(
        "log", type=Path, metavar="LOG.jsonl", help="the recorded log; - reads standard input"
    )
    show.add_argument(
        "--protocol",
        dest="protocol_version",
        choices=("v1", "v2"),
        help="ACP protocol version of the log (default: v2)",
    )
    show.add_argument(
        "--version", dest="old_protocol_option", choices=("v1", "v2"), help=argparse.SUPPRESS
    )


def show_input(args: argparse.Namespace) -> ShowInput | str:
    """The input the arguments name, or why they do not fit together."""
    protocol: Version | None = args.protocol_version
    old = getattr(args, "old_protocol_option", None)  # absent where a caller built the args
    if old is not None:
        if protocol is not None and protocol != old:
            return "--protocol and --version disagree"
        protocol = old
        diagnostic(
            "acp-schema transcript show: --version VERSION is deprecated, "
            f"use --protocol {protocol}"
        )
    if str(args.log) == "-":
        if sys.stdin is None:  # started with no descriptor 0 (`<&-`): no log, not an empty one
            return "cannot read standard input: it is closed"
        return ShowInput(protocol or "v2", STDIN, Path("<stdin>"))
    return ShowInput(protocol or "v2", args.log, args.log)
