"""A read or write of a changed field on a receiver whose class the code does not show
is listed as `unknown`, unless the code proves the receiver is no bindings class (the
evidence `migrate` uses for "never a chunk"); `--fail-on` counts it only for `any`
(attack on issue 28, finding 12)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_schema.cli import main

OLD: dict[str, Any] = {
    "$defs": {
        "Note": {
            "type": "object",
            "properties": {"text": {"type": "string"}, "author": {"type": "string"}},
        },
        "Other": {"type": "object", "properties": {"title": {"type": "string"}}},
    }
}
NEW: dict[str, Any] = {
    "$defs": {
        "Note": {"type": "object", "properties": {"text": {"type": "string"}}},
        "Other": OLD["$defs"]["Other"],
    }
}
SOURCE = """\
from dataclasses import dataclass

from mybind import Note, Other


@dataclass
class Mine:
    author: str


def route(update, other: Other, mine: Mine, text: str, table: dict[str, str]) -> None:
    update.author
    update.author = "x"
    update.text
    mine.author
    text.author
    table.author
    Mine("a").author
    other.author
    Other().author
    Note().author
"""


def _run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str, source: str = SOURCE
) -> tuple[int, str]:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(OLD), encoding="utf-8")
    new.write_text(json.dumps(NEW), encoding="utf-8")
    (tmp_path / "tree").mkdir(exist_ok=True)
    (tmp_path / "tree" / "use.py").write_text(source, encoding="utf-8")
    args = ["diff", str(old), str(new), "--impact", str(tmp_path / "tree")]
    code = main([*args, "--bindings", "mybind", *extra])
    return code, capsys.readouterr().out


def test_unshown_receivers_are_listed_as_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _run(tmp_path, capsys, "--format", "json")
    report = json.loads(out)
    found = [(i["line"], i["degree"], i["use"]) for i in report["impacts"]]
    assert found == [
        (12, "unknown", "read"),
        (13, "unknown", "write"),
        (21, "may break", "read"),  # the class is shown: judged as usual
    ]
    assert "the receiver's class is not shown; if it is a Note" in report["impacts"][0]["message"]
    assert report["summary"]["unknown"] == 2
    assert code == 0


def test_fail_on_counts_unknown_only_for_any(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    untyped = "from mybind import Note\n\ndef route(update) -> None:\n    update.author\n"
    code, out = _run(tmp_path, capsys, "--fail-on", "api", source=untyped)
    assert code == 0
    assert "0 break, 0 may break, 1 unknown, 0 note(s)" in out
    assert _run(tmp_path, capsys, "--fail-on", "any", source=untyped)[0] == 1
