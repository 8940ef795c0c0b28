"""Writing an impact report: text (one line per place), JSON, Markdown, or GitHub workflow
commands (annotations on the changed lines of a pull request); and `--fail-on`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from acp_schema.cli_output import Level, annotation, json_document

from .judge import MIGRATE_COMMAND, Impact
from .run import Scan

FORMATS = ("text", "json", "markdown", "github")

# `--fail-on` with `--impact`: a listed place hit by a change of this class. Notes never
# fail; `any` is any place that breaks or may break.
# An `unknown` place (the receiver's class is not shown) fails only `any`.
_JUDGED = ("breaks", "may break")
FAIL_ON: Mapping[str, Callable[[Impact], bool]] = {
    "api": lambda i: i.change_class == "api" and i.degree in _JUDGED,
    "wire": lambda i: i.change_class == "wire" and i.degree in _JUDGED,
    "breaking": lambda i: i.change_class in ("api", "wire") and i.degree in _JUDGED,
    "any": lambda i: i.degree != "note",
}


def fails(scan: Scan, fail_on: str) -> bool:
    return any(FAIL_ON[fail_on](i) for i in scan.impacts)


def summary(scan: Scan) -> dict[str, Any]:
    impacts = scan.impacts
    degrees = Counter(i.degree for i in impacts)
    status = Counter(f.status for f in scan.files)
    return {
        "places": len(impacts),
        "breaks": degrees["breaks"],
        "may_break": degrees["may break"],
        "unknown": degrees["unknown"],
        "notes": degrees["note"],
        "files_with_places": len({i.path for i in impacts}),
        "scanned": status["scanned"],
        "skipped": status["skipped"],
        "failed": status["failed"] + len(scan.missing),
        "codemods": sorted({i.codemod for i in impacts if i.codemod}),
    }


def _shown_path(path: str) -> str:
    """A path on one line: control characters (a newline in a file name) escaped as
    Python escapes them, so each place stays one line."""
    if path.isprintable():
        return path
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in path)


def line(impact: Impact) -> str:
    """`path:line:col: Definition.field kind: degree: what breaks here [codemod]`."""
    text = (
        f"{_shown_path(impact.path)}:{impact.line}:{impact.column}: {impact.where} {impact.kind}: "
        f"{impact.degree}: {impact.message}"
    )
    if impact.codemod:
        text += f" [covered by codemod {impact.codemod}: {MIGRATE_COMMAND}]"
    return text


def totals(scan: Scan) -> str:
    counts = summary(scan)
    return (
        f"{counts['places']} place(s) in {counts['files_with_places']} file(s): "
        f"{counts['breaks']} break, {counts['may_break']} may break, "
        f"{counts['unknown']} unknown, {counts['notes']} note(s); "
        f"{counts['scanned']} file(s) scanned, {counts['skipped']} with nothing in reach, "
        f"{counts['failed']} failed"
    )


def bindings_line(scan: Scan) -> str:
    text = f"bindings: {', '.join(scan.bindings)}"
    if scan.other_generated:
        text += f"; {len(scan.other_generated)} generated file(s) of other schemas not used"
    return text


def render(scan: Scan, fmt: str, old: str, new: str) -> str:
    if fmt == "json":
        return json_document(to_json(scan, old, new)) + "\n"
    if fmt == "markdown":
        return "\n".join(_markdown(scan, old, new)) + "\n"
    if fmt == "github":
        return "".join(_github(i) + "\n" for i in scan.impacts)
    lines = [f"Impact of {old} -> {new}", *(line(i) for i in scan.impacts)]
    return "\n".join([*lines, totals(scan), bindings_line(scan)]) + "\n"


def to_json(scan: Scan, old: str, new: str) -> dict[str, Any]:
    return {
        "old": old,
        "new": new,
        "summary": summary(scan),
        "impacts": [i.to_json() for i in scan.impacts],
        "failed": [{"path": f.path.as_posix(), "error": f.error} for f in scan.failed]
        + [{"path": p.as_posix(), "error": why} for p, why in scan.missing],
        "bindings": {
            "modules": scan.bindings,
            "vendored": scan.vendored,
            "other_generated": [
                {"path": p.as_posix(), "schema_sha256": d} for p, d in scan.other_generated
            ],
        },
    }


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _code(text: str) -> str:
    """A Markdown code span that holds `text` whatever backticks it has (CommonMark: a
    fence longer than any run inside, padded with spaces when it starts or ends with one)."""
    longest = max((len(run) for run in _runs(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{_cell(text)}{pad}{fence}"


def _runs(text: str) -> list[str]:
    """The runs of backticks in `text`."""
    out: list[str] = []
    current = ""
    for char in text:
        if char == "`":
            current += char
        elif current:
            out.append(current)
            current = ""
    return [*out, current] if current else out


def _markdown(scan: Scan, old: str, new: str) -> list[str]:
    lines = [f"## Impact of {old} -> {new}", "", totals(scan) + "."]
    if not scan.impacts:
        return lines
    lines += [
        "",
        "| place | change | degree | what breaks here | codemod |",
        "|---|---|---|---|---|",
    ]
    for i in scan.impacts:
        codemod = f"`{i.codemod}`" if i.codemod else ""
        place = _code(f"{_shown_path(i.path)}:{i.line}:{i.column}")
        lines.append(
            f"| {place} | `{_cell(i.where)}` {i.kind} | "
            f"{i.degree} | {_cell(i.message)} | {codemod} |"
        )
    return lines


_LEVELS: dict[str, Level] = {
    "breaks": "error",
    "may break": "warning",
    "unknown": "notice",
    "note": "notice",
}


def _github(impact: Impact) -> str:
    """A workflow command on the place (GitHub counts columns from 1)."""
    message = f"{impact.where} {impact.kind}: {impact.message}"
    if impact.codemod:
        message += f" [covered by codemod {impact.codemod}: {MIGRATE_COMMAND}]"
    return annotation(
        _LEVELS[impact.degree],
        message,
        file=impact.path,
        line=impact.line,
        col=impact.column + 1,
        title=f"acp-schema impact: {impact.degree}",
    )
