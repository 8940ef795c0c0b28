"""Do the committed bindings match their schema and the installed generator?

Two depths:

* **fast** (the default): every expected file exists, and the header of each generated
  Python file records the sha256 of the schema file's current bytes, the version of
  datamodel-code-generator installed now, and the sha256 of the file's own text below the
  header. Nothing is rendered. This catches a changed schema, a generator upgrade, a
  deleted or stray file and a hand edit; it cannot see a change in this project's own
  generator code.
* **full**: render the bindings in memory and compare every byte of every file, with a
  short unified diff of what differs.

Decisions worth knowing (docs/drift.md explains them for users):

* A missing ``vN`` directory, or a missing root, is drift, not unusable input: running the
  generator creates it.
* The schema is only checked (``load_schema``) when its digest differs from the one the
  bindings record: a matching digest means the bindings were generated, and so checked,
  from exactly these bytes. A changed schema that is broken is unusable input (exit 2),
  because regenerating cannot fix the drift until the schema is fixed.
* The fast path reads headers instead of importing the generator (which costs about a
  tenth of a generation), so a CI job that only checks stays cheap.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_schema._input import InputError, read_bytes
from acp_schema.cli_common import EXIT_OK, EXIT_PROBLEMS, EXIT_UNUSABLE, install_hint, os_reason
from acp_schema.cli_output import shown as one_line

from .. import bundled
from ..bundled import SCHEMA_FILE, VERSIONS
from ..generate.package_files import (
    GENERATED_FILES,
    GENERATOR,
    HEADERED_FILES,
    UpstreamSource,
    body_sha256,
    left_by_python,
    parse_header,
    reproducing_command,
)
from ..generate.package_files import shown_path as _shown

if TYPE_CHECKING:
    from ..schema_check import SchemaError

MAX_DIFF_LINES = 40  # per file, for --full
_SHORT_DIGEST = 12


def installed_generator() -> str | None:
    """The installed datamodel-code-generator version, None when it is not installed."""
    try:
        return metadata.version(GENERATOR)
    except metadata.PackageNotFoundError:
        return None


# --- targets -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """One package directory of bindings and the schema file it must match."""

    label: str  # "v1", or the directory for --schema/--out
    schema: Path
    out: Path
    fix: str  # the command that regenerates exactly this target
    command: str  # what the headers of its files name (`reproducing_command`)


def version_targets(
    versions: Sequence[str] = VERSIONS,
    *,
    schema_dir: Path | None = None,
    generated_dir: Path | None = None,
) -> list[Target]:
    """Targets for protocol versions, against the bundled roots or the ones given."""
    for version in versions:
        bundled.known_version(version)
    custom = schema_dir is not None or generated_dir is not None
    schema_root = schema_dir if schema_dir is not None else bundled.schema_dir()
    out_root = generated_dir if generated_dir is not None else bundled.generated_dir()
    targets = []
    for version in versions or VERSIONS:
        schema = schema_root / version / SCHEMA_FILE
        out = out_root / version
        if custom:
            command = reproducing_command(out, schema=schema)
            targets.append(Target(version, schema, out, command, command))
        else:
            command = reproducing_command()
            targets.append(Target(version, schema, out, f"acp-schema generate {version}", command))
    return targets


def file_target(schema: Path, out: Path) -> Target:
    """The target of ``--schema PATH --out DIR`` (any ACP-style schema)."""
    command = reproducing_command(out, schema=schema)
    return Target(_shown(out), schema, out, command, command)


def upstream_target(source: UpstreamSource, schema: Path, out: Path) -> Target:
    """The target of ``--upstream RELEASE VERSION --out DIR``; `schema` is the published
    schema file (fetched or cached by `acp_schema.codegen.upstream`)."""
    command = reproducing_command(out, upstream=source)
    return Target(_shown(out), schema, out, command, command)


# --- findings ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One way a generated file differs from what the generator would write."""

    path: Path
    reason: str
    diff: tuple[str, ...] = ()


@dataclass
class TargetReport:
    target: Target
    schema_sha256: str | None = None
    findings: list[Finding] = field(default_factory=list)
    unusable: list[str] = field(default_factory=list)  # why nothing reliable could be said


def check_target(target: Target, *, full: bool = False, generator: str | None) -> TargetReport:
    """Compare one target; `generator` is the installed datamodel-code-generator version."""
    report = TargetReport(target)
    try:
        raw = read_bytes(target.schema)
    except (OSError, InputError) as exc:
        report.unusable.append(f"{_shown(target.schema)}: cannot read the schema: {os_reason(exc)}")
        return report
    blocking = next((p for p in (target.out, *target.out.parents) if p.exists()), None)
    if blocking is not None and not blocking.is_dir():
        report.unusable.append(f"{_shown(blocking)}: exists but is not a directory")
        return report
    report.schema_sha256 = hashlib.sha256(raw).hexdigest()
    if generator is None:
        report.unusable.append(
            f"{GENERATOR} is not installed, so the bindings cannot be compared with it: "
            f"install the [codegen] extra ({install_hint('codegen')})"
        )
        return report
    report.findings = _fast_findings(target, report.schema_sha256, generator)
    if full:
        _full_findings(target, raw, report)  # rendering checks the schema on its way
        return report
    if any(f.reason.startswith(_OTHER_SCHEMA) or f.reason == _MISSING for f in report.findings):
        # Drift that only regenerating fixes (another schema's files, missing files) is a
        # schema problem first when nothing can be generated from the schema.
        from ..loaded_schema import load_schema_bytes
        from ..schema_check import SchemaError

        try:
            load_schema_bytes(raw, target.schema)
        except SchemaError as err:
            report.unusable.extend(_schema_problems(err))
    return report


def _schema_problems(err: SchemaError) -> list[str]:
    lines = ["the schema has problems, so the bindings cannot be regenerated from it:"]
    return lines + [f"  {line}" for line in err.lines()]


_OTHER_SCHEMA = "generated from another schema"
_MISSING = "missing"


def _fast_findings(target: Target, digest: str, generator: str) -> list[Finding]:
    out: list[Finding] = []
    for name in GENERATED_FILES:
        path = target.out / name
        if not path.is_file():
            out.append(Finding(path, _MISSING))
            continue
        if name not in HEADERED_FILES:
            continue
        try:
            text = read_bytes(path).decode("utf-8", errors="replace")
        except (OSError, InputError) as exc:
            out.append(Finding(path, f"cannot read: {os_reason(exc)}"))
            continue
        header = parse_header(text)
        if header is None:
            out.append(Finding(path, "has no generator header (edited by hand?)"))
            continue
        if body_sha256(text) != header.content_sha256:
            out.append(Finding(path, "edited by hand: the text no longer matches its header"))
        if header.schema_sha256 != digest:
            out.append(
                Finding(
                    path,
                    f"{_OTHER_SCHEMA}: its header records sha256 "
                    f"{header.schema_sha256[:_SHORT_DIGEST]}, {_shown(target.schema)} is now "
                    f"{digest[:_SHORT_DIGEST]}",
                )
            )
        if header.generator_version != generator:
            out.append(
                Finding(
                    path,
                    f"generated with {GENERATOR} {header.generator_version}, "
                    f"{generator} is installed",
                )
            )
    stray = "not written by the generator: move it out (generate refuses to write beside it)"
    out.extend(Finding(path, stray) for path in _strays(target.out))
    return out


def _strays(out_dir: Path) -> list[Path]:
    """Files in the package directory that generate did not write (it refuses to write
    into a directory that holds any)."""
    if not out_dir.is_dir():
        return []
    return sorted(
        entry
        for entry in out_dir.iterdir()
        if entry.name not in GENERATED_FILES and not left_by_python(entry.name)
    )


def _full_findings(target: Target, raw: bytes, report: TargetReport) -> None:
    from ..generate.pipeline import failure_summary, render
    from ..loaded_schema import load_schema_bytes
    from ..schema_check import SchemaError

    try:
        # The bytes read for the digest, loaded once; the meta-schema check runs in render.
        loaded = load_schema_bytes(raw, target.schema, meta_schema=False)
        rendered = render(loaded, target.command)  # the header generate writes for it
    except SchemaError as err:
        report.unusable.extend(_schema_problems(err))
        return
    except RuntimeError as exc:  # datamodel-codegen or ruff failed
        report.unusable.append(f"{_shown(target.schema)}: rendering failed: {failure_summary(exc)}")
        return
    known = {f.path for f in report.findings}
    for item in rendered:
        path = target.out / item.name
        if path in known and not path.is_file():
            continue  # already reported missing
        try:
            current = read_bytes(path)
        except (OSError, InputError) as exc:
            if path not in known:
                report.findings.append(Finding(path, f"cannot read: {os_reason(exc)}"))
            continue
        fresh = item.text.encode("utf-8")
        if current == fresh:
            continue
        diff = _capped_diff(current.decode("utf-8", errors="replace"), item.text, path)
        reasons = [f for f in report.findings if f.path == path]
        if reasons:  # the header already says why; attach the diff to the first reason
            index = report.findings.index(reasons[0])
            report.findings[index] = Finding(path, reasons[0].reason, diff)
        else:
            report.findings.append(Finding(path, _why_it_differs(current, fresh), diff))


def _why_it_differs(committed: bytes, fresh: bytes) -> str:
    old, new = committed.split(b"\n"), fresh.split(b"\n")
    if len(old) == len(new) > 1 and old[0] == new[0] and old[2:] == new[2:]:
        # Only the header's command: the paths (or the directory) differ from generate's.
        return (
            "generated with other paths (the header's command differs): run check from the "
            "directory generate ran in, with the same --schema and --out, or regenerate"
        )
    return "differs from a fresh render (the generator itself changed?)"


def _capped_diff(committed: str, fresh: str, path: Path) -> tuple[str, ...]:
    lines = list(
        difflib.unified_diff(
            committed.splitlines(),
            fresh.splitlines(),
            fromfile=f"{_shown(path)} (committed)",
            tofile=f"{_shown(path)} (fresh render)",
            n=2,
            lineterm="",
        )
    )
    if len(lines) > MAX_DIFF_LINES:
        hidden = len(lines) - MAX_DIFF_LINES
        lines = [*lines[:MAX_DIFF_LINES], f"... {hidden} more diff line(s)"]
    return tuple(lines)


# --- running and reporting ---------------------------------------------------------------


def check(targets: Iterable[Target], *, full: bool = False) -> list[TargetReport]:
    generator = installed_generator()
    return [check_target(t, full=full, generator=generator) for t in targets]


def exit_code(reports: Iterable[TargetReport]) -> int:
    reports = list(reports)
    if any(r.unusable for r in reports):
        return EXIT_UNUSABLE
    return EXIT_PROBLEMS if any(r.findings for r in reports) else EXIT_OK


def report_json(reports: Sequence[TargetReport], *, full: bool) -> dict[str, Any]:
    """What ``acp-schema check --format json`` prints: the verdict, then per target its
    status (in sync, drift, unusable), what differs and the command that regenerates it."""
    targets = []
    for report in reports:
        target = report.target
        status = "unusable" if report.unusable else "drift" if report.findings else "in sync"
        targets.append(
            {
                "label": target.label,
                "schema": _shown(target.schema),
                "out": _shown(target.out),
                "schema_sha256": report.schema_sha256,
                "status": status,
                "findings": [
                    {"path": _shown(f.path), "reason": f.reason, "diff": list(f.diff)}
                    for f in report.findings
                ],
                "unusable": report.unusable,
                "fix": target.fix if status == "drift" else None,
            }
        )
    code = exit_code(reports)
    verdict = {EXIT_OK: "in sync", EXIT_PROBLEMS: "drift"}.get(code, "unusable")
    return {"exit": code, "verdict": verdict, "full": full, "targets": targets}


def report_lines(reports: Sequence[TargetReport], *, bundled: bool) -> list[str]:
    """What ``acp-schema check`` prints: one block per target, then the verdict."""
    lines: list[str] = []
    for report in reports:
        target = report.target
        if report.unusable:
            lines.append(f"{one_line(target.label)}: cannot check")
            lines.extend(f"  {one_line(line)}" for line in report.unusable)
        elif report.findings:
            schema = one_line(_shown(target.schema))
            lines.append(f"{one_line(target.label)}: DRIFT against {schema}")
            for finding in report.findings:
                lines.append(f"  {one_line(_shown(finding.path))}: {one_line(finding.reason)}")
                lines.extend(f"    {line}" for line in finding.diff)
        else:
            digest = (report.schema_sha256 or "")[:_SHORT_DIGEST]
            lines.append(
                f"{one_line(target.label)}: in sync with {one_line(_shown(target.schema))} "
                f"(sha256 {digest})"
            )
    drifted = [r.target for r in reports if r.findings and not r.unusable]
    if any(r.unusable for r in reports):
        lines.append("acp-schema check: unusable input (see above)")
    if drifted:
        lines.append("acp-schema check: the bindings are out of date. Regenerate with:")
        if bundled:
            names = " ".join(one_line(t.label) for t in drifted)
            lines.append(f"  acp-schema generate {names}    (or: nox -s generate -- {names})")
        else:
            lines.extend(f"  {one_line(t.fix)}" for t in drifted)
    elif not any(r.unusable for r in reports):
        lines.append(f"acp-schema check: {len(reports)} target(s) in sync")
    return lines
