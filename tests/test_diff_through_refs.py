"""Facts the diff must judge on both sides of a reference as one: null written in an alias
on one side and inline on the other is no change; null that goes away behind a reference is
reported once, at the place; a type change that keeps shared values still has its bounds
compared (the attack on issue 28, findings 2 and 16)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_schema.cli import main
from acp_schema.codegen.drift.schema_diff import Change, diff_documents

DRAFT = "https://json-schema.org/draft/2020-12/schema"
ID_MEMBERS: list[dict[str, Any]] = [
    {"title": "Number", "type": "integer"},
    {"title": "Str", "type": "string"},
]


def doc(**defs: Any) -> dict[str, Any]:
    return {"$schema": DRAFT, "$defs": defs}


def holder(id_schema: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"id": id_schema}, "required": ["id"]}


def changes_at(old: dict[str, Any], new: dict[str, Any], where: str) -> list[Change]:
    return [c for c in diff_documents(old, new)[0] if c.where == where]


def test_null_in_an_alias_then_inline_is_not_a_nullability_change() -> None:
    old = doc(
        RequestId={"anyOf": [{"type": "null"}, *ID_MEMBERS]},
        Reply=holder({"allOf": [{"$ref": "#/$defs/RequestId"}]}),
    )
    new = doc(
        RequestId={"anyOf": ID_MEMBERS},
        Reply=holder({"anyOf": [*ID_MEMBERS, {"type": "null"}]}),
    )
    found = changes_at(old, new, "Reply.id")
    assert [c.kind for c in found] == ["ref-changed"]
    (switch,) = found
    assert switch.new == "inline integer | string | null"
    assert (switch.api, switch.old_reads_new, switch.new_reads_old) == ("compatible",) * 3


def test_null_removed_behind_a_reference_is_reported_at_the_place() -> None:
    old = doc(
        RequestId={"anyOf": [{"type": "null"}, *ID_MEMBERS]},
        Reply=holder({"allOf": [{"$ref": "#/$defs/RequestId"}]}),
    )
    new = doc(RequestId={"anyOf": ID_MEMBERS}, Reply=holder({"anyOf": ID_MEMBERS}))
    kinds = sorted(c.kind for c in changes_at(old, new, "Reply.id"))
    assert kinds == ["nullable-removed", "ref-changed"]
    (removed,) = [c for c in changes_at(old, new, "Reply.id") if c.kind == "nullable-removed"]
    assert (removed.api, removed.new_reads_old, removed.old_reads_new) == (
        "breaking",
        "breaking",
        "compatible",
    )


def test_null_added_behind_a_reference_is_reported_once() -> None:
    old = doc(Reply=holder({"anyOf": ID_MEMBERS}))
    new = doc(
        RequestId={"anyOf": [*ID_MEMBERS, {"type": "null"}]},
        Reply=holder({"$ref": "#/$defs/RequestId"}),
    )
    kinds = [c.kind for c in changes_at(old, new, "Reply.id") if c.kind.startswith("nullable")]
    assert kinds == ["nullable-added"]


def test_a_bound_added_with_a_widening_type_change_is_reported() -> None:
    old = doc(M=holder({"type": "integer"}))
    new = doc(M=holder({"type": "number", "minimum": 1}))
    found = {c.kind: c for c in changes_at(old, new, "M.id")}
    assert set(found) == {"type-changed", "constraint-changed"}
    assert found["constraint-changed"].new_reads_old == "breaking"


def test_disjoint_types_do_not_compare_bounds() -> None:
    old = doc(M=holder({"type": "string", "maxLength": 3}))
    new = doc(M=holder({"type": "integer", "minimum": 1}))
    assert [c.kind for c in changes_at(old, new, "M.id")] == ["type-changed"]


def test_a_loop_of_references_is_refused_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "a.json"
    plain.write_text(json.dumps(doc(A={"type": "object"})), encoding="utf-8")
    loop = tmp_path / "loop.json"
    looped = doc(A={"$ref": "#/$defs/B"}, B={"allOf": [{"$ref": "#/$defs/A"}]})
    loop.write_text(json.dumps(looped), encoding="utf-8")
    assert main(["diff", str(plain), str(loop)]) == 2
    err = capsys.readouterr().err
    assert "refers to itself before describing any part of a value" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "extra",
    [["--jobs", "0"], ["--format", "yaml"], ["--fail-on", "bogus"], ["--max-file-size", "0"]],
)
def test_diff_usage_errors_are_one_line(
    extra: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", "v1", "v2", "--impact", str(tmp_path), *extra]) == 2
    err = capsys.readouterr().err
    assert err.startswith("acp-schema diff: error: argument ")
    assert len(err.strip().splitlines()) == 1
