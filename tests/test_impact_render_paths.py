"""Odd file names keep each place on one line (text) and inside its code span (Markdown)
(attack on issue 28, finding 14)."""

from __future__ import annotations

from pathlib import Path

from acp_schema.codegen.drift.impact.judge import Impact
from acp_schema.codegen.drift.impact.render import render
from acp_schema.codegen.drift.impact.run import FileOutcome, Scan


def _scan(*paths: str) -> Scan:
    impacts = [
        Impact(p, 1, 26, "Gone", "definition-removed", "breaks", "api", "import", "gone")
        for p in paths
    ]
    files = [FileOutcome(Path(p), "scanned", [i]) for p, i in zip(paths, impacts, strict=True)]
    return Scan(files, [], ["mybind"], [], [])


def test_text_escapes_control_characters_in_paths() -> None:
    text = render(_scan("src/new\nline.py", "src/tab\there.py"), "text", "a", "b")
    places = [line for line in text.splitlines() if "definition-removed" in line]
    assert places == [
        "src/new\\nline.py:1:26: Gone definition-removed: breaks: gone",
        "src/tab\\there.py:1:26: Gone definition-removed: breaks: gone",
    ]


def test_markdown_code_span_holds_backticks_and_pipes() -> None:
    text = render(_scan("src/a|b`c.py", "`x``.py"), "markdown", "a", "b")
    rows = [line for line in text.splitlines() if "definition-removed" in line]
    assert rows[0].startswith("| ``src/a\\|b`c.py:1:26`` |")
    assert rows[1].startswith("| ``` `x``.py:1:26 ``` |")
