"""Write a schema diff for people (text), machines (JSON) or a changelog (Markdown), and
decide ``--fail-on``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from acp_schema.cli_output import Level, annotation, json_document, shown

from .diff_verdicts import BREAKING, COMPATIBLE, UNKNOWN
from .schema_diff import Change, DiffReport

MIGRATE_COMMAND = "acp-schema migrate"


def _breaks_api(change: Change) -> bool:
    return change.api != COMPATIBLE


def _breaks_wire(change: Change) -> bool:
    return change.old_reads_new != COMPATIBLE or change.new_reads_old != COMPATIBLE


def _verdicts(change: Change) -> tuple[str, str, str]:
    return change.old_reads_new, change.new_reads_old, change.api


def _breaks(change: Change) -> bool:
    return _breaks_api(change) or _breaks_wire(change)


# `unknown` counts as failing: CI should stop on what the tool could not judge.
FAIL_ON: Mapping[str, Callable[[DiffReport], bool]] = {
    "api": lambda report: any(_breaks_api(c) for c in report.changes),
    "wire": lambda report: any(_breaks_wire(c) for c in report.changes),
    "breaking": lambda report: any(_breaks(c) for c in report.changes),
    "any": lambda report: bool(report.changes),
}


def summary(changes: Iterable[Change]) -> dict[str, Any]:
    changes = list(changes)
    return {
        "changes": len(changes),
        "api_breaking": sum(c.api == BREAKING for c in changes),
        "wire_breaking_old_reads_new": sum(c.old_reads_new == BREAKING for c in changes),
        "wire_breaking_new_reads_old": sum(c.new_reads_old == BREAKING for c in changes),
        "unknown": sum(UNKNOWN in (c.api, c.old_reads_new, c.new_reads_old) for c in changes),
        "by_kind": dict(sorted(Counter(c.kind for c in changes).items())),
        "codemods": sorted({c.codemod for c in changes if c.codemod}),
    }


def to_json(report: DiffReport) -> dict[str, Any]:
    return {
        "old": report.old,
        "new": report.new,
        "summary": summary(report.changes),
        "changes": [c.to_json() for c in report.changes],
        "warnings": report.warnings,
    }


def render_report(report: DiffReport, fmt: str, new_file: str | None = None) -> str:
    """The report in `fmt`: text, json, markdown, or github (workflow annotations on
    `new_file`, the NEW schema's path, when it is a file of the repository). Each line of
    text and markdown is one line whatever the schema's names hold (`shown`: a line feed,
    tab or control character in a name is an escape); JSON is ASCII, every other character
    escaped the JSON way."""
    if fmt == "json":
        return json_document(to_json(report)) + "\n"
    if fmt == "github":
        return "\n".join(_github(report, new_file)) + "\n"
    lines = _markdown(report) if fmt == "markdown" else _text(report)
    return "".join(f"{shown(line)}\n" for line in lines)


def _github(report: DiffReport, new_file: str | None) -> list[str]:
    """One annotation per change: an error where a verdict is breaking, a warning where
    one is unknown (both fail `--fail-on breaking`), else a notice; then the totals."""
    lines = [annotation("warning", w, file=new_file, title="schema diff") for w in report.warnings]
    for change in report.changes:
        verdicts = _verdicts(change)
        level: Level = (
            "error" if BREAKING in verdicts else "warning" if UNKNOWN in verdicts else "notice"
        )
        sides = _sides(change)
        message = (
            f"{change.where or '(root)'}{f' [{sides}]' if sides else ''}: API "
            f"{_verdict(change.api)}; wire: old reads new {_verdict(change.old_reads_new)}, "
            f"new reads old {_verdict(change.new_reads_old)}"
        )
        if change.codemod:
            message += f"; codemod: {change.codemod} ({MIGRATE_COMMAND})"
        if change.note:
            message += f". {change.note}"
        lines.append(annotation(level, message, file=new_file, title=change.kind))
    lines.append(f"Schema diff: {shown(report.old)} -> {shown(report.new)}: {_totals(report)}")
    return lines


def _totals(report: DiffReport) -> str:
    counts = summary(report.changes)
    if not counts["changes"]:
        return "no structural changes"
    return (
        f"{counts['changes']} change(s): {counts['api_breaking']} break the Python API, "
        f"{counts['wire_breaking_old_reads_new']} break old decoders reading new messages, "
        f"{counts['wire_breaking_new_reads_old']} break new decoders reading old messages, "
        f"{counts['unknown']} not judged"
    )


_VERDICTS: Mapping[str, str] = {BREAKING: "BREAKING", UNKNOWN: "unknown", COMPATIBLE: "ok"}


def _verdict(value: str) -> str:
    return _VERDICTS[value]


def _text(report: DiffReport) -> list[str]:
    lines = [f"Schema diff: {shown(report.old)} -> {shown(report.new)}", _totals(report)]
    codemods = summary(report.changes)["codemods"]
    if codemods:
        lines.append(f"Codemods that cover changes: {', '.join(codemods)} ({MIGRATE_COMMAND})")
    lines += [f"warning: {w}" for w in report.warnings]
    current = None
    for change in report.changes:
        if change.definition != current:
            current = change.definition
            lines += ["", current]
        sides = _sides(change)
        label = change.location or "(definition)"
        lines.append(f"  {change.kind}: {label}" + (f"  [{sides}]" if sides else ""))
        verdicts = (
            f"API {_verdict(change.api)}; wire: old reads new {_verdict(change.old_reads_new)}, "
            f"new reads old {_verdict(change.new_reads_old)}"
        )
        if change.codemod:
            verdicts += f"; codemod: {change.codemod} ({MIGRATE_COMMAND})"
        lines.append(f"    {verdicts}")
        if change.note:
            lines.append(f"    {change.note}")
    return lines


def _sides(change: Change) -> str:
    """`old -> new`; a missing side shows as (none) where the kind says both exist."""
    if change.kind.endswith("-changed"):
        return f"{change.old or '(none)'} -> {change.new or '(none)'}"
    if change.old is not None and change.new is not None:
        return f"{change.old} -> {change.new}"
    return change.old or change.new or ""


def _cell(text: str | None) -> str:
    return (text or "").replace("|", "\\|")


def _markdown(report: DiffReport) -> list[str]:
    lines = [f"## Schema changes: {report.old} -> {report.new}", "", _totals(report) + "."]
    lines += [f"> warning: {w}" for w in report.warnings]
    # Each change in one table: a verdict that breaks wins over one the tool left open.
    breaking = [c for c in report.changes if BREAKING in _verdicts(c)]
    review = [c for c in report.changes if BREAKING not in _verdicts(c) and UNKNOWN in _verdicts(c)]
    groups = [
        ("Breaking changes", breaking),
        ("Changes to review (not judged)", review),
        ("Compatible changes", [c for c in report.changes if not _breaks(c)]),
    ]
    for title, changes in groups:
        if not changes:
            continue
        lines += [
            "",
            f"### {title}",
            "",
            "| where | change | old | new | old reads new | new reads old | API | codemod |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for c in changes:
            codemod = f"`{c.codemod}`" if c.codemod else ""
            lines.append(
                f"| `{_cell(c.where)}` | {c.kind} | {_cell(c.old)} | {_cell(c.new)} | "
                f"{c.old_reads_new} | {c.new_reads_old} | {c.api} | {codemod} |"
            )
    return lines
