"""`acp-schema diff OLD NEW --impact PATH...`: the diff, then every place in the code under
PATH that a change breaking the API or the wire touches.

Exit codes: 0 when no listed place is hit by a change of the `--fail-on` class (or no
`--fail-on`), even if the schemas differ; 1 when one is; 2 for unusable input (a schema,
the command line, a settings file) or a file that could not be read or parsed (the others
are still scanned and reported).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from acp_schema._input import InputError, read_bytes
from acp_schema.cli_common import EXIT_OK, EXIT_PROBLEMS, EXIT_UNUSABLE, install_hint
from acp_schema.cli_output import diagnostic

from ...bundled import VERSIONS
from ..schema_diff import SchemaInput, diff_documents, read_document
from .render import fails, render
from .run import MAX_FILE_BYTES, Settings, scan
from .targets import build_targets

COMMAND = "acp-schema diff --impact"


def protocols(args: argparse.Namespace, old: SchemaInput, new: SchemaInput) -> list[str]:
    """The protocol versions the diff is about: a bundled name or `--upstream`'s version,
    else the folder a schema file sits in (`.../v2/schema.unstable.json`); both when no
    side says."""
    if args.upstream is not None:
        return [args.schemas[0]]
    named = [s for s in args.schemas if s in VERSIONS]
    named += [p.path.parent.name for p in (old, new) if p.path.parent.name in VERSIONS]
    return sorted(set(named)) or list(VERSIONS)


def impact_command(args: argparse.Namespace, old: SchemaInput, new: SchemaInput) -> int:
    """Diff `old` and `new`, then scan `args.impact`; print the report in `args.format`."""
    try:
        import libcst  # noqa: F401 - the scan parses with it; say so before starting
    except ModuleNotFoundError:
        diagnostic(
            f"{COMMAND}: libcst is not installed; --impact needs the [migrate] extra "
            f"({install_hint('migrate')})"
        )
        return EXIT_UNUSABLE
    from acp_schema.migrations.framework.config import ConfigError
    from acp_schema.migrations.framework.progress import ProgressBar

    old_doc, _ = read_document(old.path)
    new_doc, _ = read_document(new.path)
    changes, _ = diff_documents(old_doc, new_doc)
    digests = frozenset(_digest(side.path) for side in (old, new))
    modules = [f"acp_schema.{v}" for v in protocols(args, old, new)]
    settings = Settings(
        paths=tuple(Path(p) for p in args.impact),
        bindings=tuple(dict.fromkeys([*modules, *args.bindings])),
        digests=frozenset(d for d in digests if d),
        excludes=tuple(args.exclude),
        gitignore=not args.no_gitignore,
        max_file_bytes=args.max_file_size or MAX_FILE_BYTES,
        jobs=args.jobs,
    )
    bar = ProgressBar(sys.stderr) if sys.stderr.isatty() else None
    try:
        result = scan(settings, build_targets(changes, old_doc, new_doc), bar)
    except ConfigError as err:
        diagnostic(f"{COMMAND}: {err}")
        return EXIT_UNUSABLE
    finally:
        if bar is not None:
            bar.clear()
    for path, why in result.missing:
        diagnostic(f"{path}: {why}")
    for outcome in result.failed:
        diagnostic(f"{outcome.path}: error: {outcome.error}")
    sys.stdout.write(render(result, args.format, old.label, new.label))
    if result.failed or result.missing:
        return EXIT_UNUSABLE
    if args.fail_on is not None and fails(result, args.fail_on):
        return EXIT_PROBLEMS
    return EXIT_OK


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(read_bytes(path)).hexdigest()
    except (OSError, InputError):
        return ""  # read_document already read it; a vanished file matches no copy
