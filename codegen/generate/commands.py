"""The generator's subcommand: `acp-schema generate`.

`register` adds it to the `acp-schema` parser (`acp_schema.cli`); the handler imports the
generator when it runs, so `acp-schema --help` stays fast and works without extras.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from acp_schema.cli_common import EXIT_OK, EXIT_UNUSABLE, command_error, os_reason
from acp_schema.cli_output import diagnostic, shown

from ..bundled import VERSIONS, bundled_schema, checkout_root, default_output, generated_dir
from .package_files import UpstreamSource, reproducing_command

if TYPE_CHECKING:
    from acp_schema.cli_common import Subparsers


def register(commands: Subparsers) -> None:
    """Add `generate` to the `acp-schema` parser."""
    generate = commands.add_parser(
        "generate",
        help="regenerate the typed bindings from a schema",
        description=f"Regenerate the bindings this installation holds ({_bundled_place()}) "
        "from the bundled schemas (only in a checkout installed with `pip install -e`: an "
        "installed copy is refused), or write the bindings of any ACP-style schema with "
        "--schema PATH --out DIR. On a terminal, each stage is reported on stderr as it starts.",
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


def _bundled_place() -> str:
    """Where `generate` without --out writes: generated/v1 and generated/v2 in a checkout,
    the installed package's own folders otherwise."""
    try:
        root = generated_dir()
    except ModuleNotFoundError:
        return "acp_schema.v1 and acp_schema.v2"
    if root.name == "generated":  # an editable install of a checkout
        return "generated/v1 and generated/v2 of the checkout"
    return f"acp_schema.v1 and acp_schema.v2 in {root}"


def _progress_wanted() -> bool:
    """Stage lines on a terminal, where ten silent seconds look like a hang; in a log or a
    pipe stderr keeps to the one-line error contract (README, "Errors and exit codes")."""
    return sys.stderr.isatty()


def _reproducing_command(args: argparse.Namespace) -> str:
    """The command line that writes the same files again, for their headers (called once
    the arguments are known to be consistent)."""
    if args.out is None:
        return reproducing_command()
    if args.upstream is not None:
        source = UpstreamSource(args.upstream, args.versions[0], args.stable)
        return reproducing_command(args.out, upstream=source)
    return reproducing_command(args.out, schema=args.schema)


def _upstream_arguments(args: argparse.Namespace) -> int | None:
    """An exit code when --upstream, --stable and the versions do not fit together."""
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
    return None


def _upstream_source(args: argparse.Namespace) -> int | None:
    """With --upstream: fetch (or find cached) the published schema and put it in
    `args.schema`, so the rest of `generate` treats it as a --schema file. Returns an exit
    code when the fetch fails, else None."""
    from ..upstream import UpstreamError, upstream_schema

    if args.upstream is None:
        return None
    try:
        args.schema = upstream_schema(
            args.upstream, args.versions[0], cache_dir=args.cache_dir, stable=args.stable
        )
    except UpstreamError as exc:
        return _generate_error(str(exc))
    args.versions = []
    return None


_INSTALLED_COPY = (
    "the bundled bindings here are an installed copy ({where}/v1, v2), not a checkout's: "
    "generate rewrites them only in a checkout installed with `pip install -e '.[codegen]'`; "
    "nothing was written. For bindings of your own give --schema PATH --out DIR "
    "(or --upstream NPM_VERSION v1|v2 --out DIR)"
)


def _generate_error(message: str) -> int:
    return command_error("generate", message)


def _generate(args: argparse.Namespace) -> int:
    # Imported here: the generator's dependencies are an extra, not needed for `schema`.
    from ..schema_check import SchemaError
    from .out_dir import OutDirError
    from .pipeline import failure_summary, generate_many

    failed = _upstream_arguments(args)
    if failed is not None:
        return failed
    if args.upstream is None and (args.schema is None) != (args.out is None):
        return _generate_error("--schema and --out go together")
    command = _reproducing_command(args)  # before --upstream turns into --schema
    failed = _upstream_source(args)
    if failed is not None:
        return failed
    if args.schema is not None and args.versions:
        return _generate_error("give versions or --schema, not both")
    unknown = sorted(set(args.versions) - set(VERSIONS))
    if unknown:
        return _generate_error(f"unknown version(s) {', '.join(unknown)}")
    if args.schema is None and checkout_root() is None:
        return _generate_error(_INSTALLED_COPY.format(where=generated_dir()))
    jobs = (
        [(args.schema, args.out)]
        if args.schema is not None
        else [(bundled_schema(v), default_output(v)) for v in args.versions or VERSIONS]
    )
    try:
        written = generate_many(jobs, command, progress=_progress_wanted())
    except SchemaError as err:  # nothing can be generated from a schema with problems
        for line in err.lines():
            diagnostic(line)
        return EXIT_UNUSABLE
    except RuntimeError as err:  # datamodel-codegen or ruff failed on what the checks passed
        return _generate_error(failure_summary(err))
    except OutDirError as err:
        return _generate_error(str(err))
    except OSError as err:
        where = shown(err.filename) if err.filename is not None else "the output directory"
        return _generate_error(f"cannot write {where}: {os_reason(err)}")
    for (schema, out), done in zip(jobs, written, strict=True):
        print(f"{shown(schema)} -> {shown(out)} ({len(done.files)} files)")
    # What the bindings carried through without understanding (never a failure).
    for (schema, _), done in zip(jobs, written, strict=True):
        for problem in done.warnings:
            diagnostic(f"{shown(schema)}: {problem}")
    return EXIT_OK
