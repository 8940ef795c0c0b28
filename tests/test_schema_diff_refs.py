"""`diff` reads refs as `schema check` does (one resolution, codegen/schema_refs.py): escaped
pointers, pointers into properties, the root; boolean definitions; and two verdict rules a
plausible slip would break (a union with no member reads nothing; `--fail-on api` stops on
an `unknown` API verdict)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_schema.cli import main
from acp_schema.codegen.drift.diff_report import FAIL_ON
from acp_schema.codegen.drift.schema_diff import (
    Change,
    DiffReport,
    SchemaInput,
    diff_documents,
    diff_files,
    read_document,
)
from acp_schema.codegen.schema_check import SchemaError, check_schema_document

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def doc(**defs: Any) -> dict[str, Any]:
    return {"$schema": DRAFT, "$defs": defs}


def write(path: Path, value: dict[str, Any]) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def verdicts(changes: list[Change], kind: str) -> list[tuple[str, str, str, str]]:
    return [(c.where, c.old_reads_new, c.new_reads_old, c.api) for c in changes if c.kind == kind]


def holder(pointer: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"field": {"$ref": pointer}}}


POINTERS = {
    "escaped": "#/$defs/A~1B",
    "percent_escaped": "#/$defs/A%7E1B",
    "into_properties": "#/$defs/Box/properties/inner",
    "into_items": "#/$defs/Box/properties/list/items",
}


@pytest.mark.parametrize("name", sorted(POINTERS))
def test_valid_pointers_resolve_and_are_compared_through(name: str, tmp_path: Path) -> None:
    """OLD's field refers to a string by `#/$defs/Plain`, NEW's to an integer by the
    pointer: the diff must see the integer through the pointer."""
    defs = {
        "Plain": {"type": "string"},
        "A/B": {"type": "integer"},
        "Box": {
            "type": "object",
            "properties": {
                "inner": {"type": "integer"},
                "list": {"type": "array", "items": {"type": "integer"}},
            },
        },
    }
    old = doc(Holder=holder("#/$defs/Plain"), **defs)
    new = doc(Holder=holder(POINTERS[name]), **defs)
    assert check_schema_document(old) == [] and check_schema_document(new) == []
    read_document(write(tmp_path / "new.json", new))  # no "does not resolve"
    changes, _ = diff_documents(old, new)
    assert verdicts(changes, "type-changed") == [
        ("Holder.field", "breaking", "breaking", "breaking")
    ]
    (switch,) = [c for c in changes if c.kind == "ref-changed"]
    assert (switch.where, switch.old_reads_new, switch.new_reads_old) == (
        "Holder.field",
        "breaking",
        "breaking",
    )
    assert switch.old == "Plain"  # a definition by its name, whatever the spelling
    assert switch.new == ("A/B" if "escaped" in name else POINTERS[name])


def test_a_field_whose_class_changes_through_a_pointer_breaks_the_api() -> None:
    shape = {"type": "object", "properties": {"x": {"type": "string"}}}
    defs = {"Shape": shape, "Box": {"type": "object", "properties": {"inner": shape}}}
    old = doc(Holder=holder("#/$defs/Shape"), **defs)
    new = doc(Holder=holder("#/$defs/Box/properties/inner"), **defs)
    changes, _ = diff_documents(old, new)
    (switch,) = changes  # the same shape: nothing else changed
    assert (switch.kind, switch.old_reads_new, switch.new_reads_old, switch.api) == (
        "ref-changed",
        "compatible",
        "compatible",
        "breaking",
    )
    assert "the field's class changes" in switch.note


@pytest.mark.parametrize("object_side", ["old", "new"])
def test_a_class_on_either_side_of_a_pointer_switch_is_seen(object_side: str) -> None:
    shape = {"type": "object", "properties": {"x": {"type": "string"}}}
    defs = {"Plain": {"type": "string"}, "Box": {"type": "object", "properties": {"inner": shape}}}
    to_object, to_string = holder("#/$defs/Box/properties/inner"), holder("#/$defs/Plain")
    old_holder, new_holder = (
        (to_object, to_string) if object_side == "old" else (to_string, to_object)
    )
    changes, _ = diff_documents(doc(Holder=old_holder, **defs), doc(Holder=new_holder, **defs))
    (switch,) = [c for c in changes if c.kind == "ref-changed"]
    assert switch.note.startswith("the field's class changes")


def test_every_unresolvable_ref_is_reported(tmp_path: Path) -> None:
    bad = doc(One=holder("#/$defs/Nope"), Two=holder("#/$defs/One/properties/none"), Three=7)
    with pytest.raises(SchemaError) as caught:
        read_document(write(tmp_path / "bad.json", bad))
    lines = caught.value.lines()
    assert len(lines) == 3
    assert [line.split(": ", 2)[1] for line in lines] == [
        "#/$defs/One/properties/field",
        "#/$defs/Three",
        "#/$defs/Two/properties/field",
    ]


def test_a_ref_that_does_not_resolve_is_still_refused(tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.json", doc(Holder=holder("#/$defs/Box/properties/none")))
    with pytest.raises(SchemaError) as caught:
        read_document(bad)
    (line,) = caught.value.lines()
    assert "#/$defs/Holder/properties/field: $ref" in line and "does not resolve" in line


def test_a_definition_that_is_no_schema_is_named_by_its_pointer(tmp_path: Path) -> None:
    bad = write(tmp_path / "bad.json", doc(**{"A/B": 5}))
    with pytest.raises(SchemaError) as caught:
        read_document(bad)
    assert caught.value.lines() == [f"{bad}: #/$defs/A~1B: a definition must be a schema"]


def test_a_ref_to_the_root_is_compared_through() -> None:
    old = doc(Holder=holder("#/$defs/Plain"), Plain={"type": "string"})
    new = {**doc(Holder=holder("#"), Plain={"type": "string"}), "type": "integer"}
    changes, _ = diff_documents(old, new)
    assert all("outside this document" not in c.note for c in changes)
    assert ("Holder.field", "breaking", "breaking", "breaking") in verdicts(changes, "type-changed")


def test_boolean_definitions_are_schemas(tmp_path: Path) -> None:
    anything = doc(Anything=True, Holder=holder("#/$defs/Anything"))
    typed = doc(Anything={"type": "string"}, Holder=holder("#/$defs/Anything"))
    nothing = doc(Anything=False, Holder=holder("#/$defs/Anything"))
    assert check_schema_document(anything) == []
    old, new = write(tmp_path / "old.json", anything), write(tmp_path / "new.json", typed)
    changes = diff_files(SchemaInput("old", old), SchemaInput("new", new)).changes
    # `true` accepts what `{"type": "string"}` does and more: narrowed
    assert verdicts(changes, "type-changed") == [("Anything", "compatible", "breaking", "breaking")]
    changes, _ = diff_documents(anything, nothing)
    # `false` is `{"not": {}}`: a keyword the diff has no rule for, so it is not judged
    assert [(c.kind, c.where, c.old, c.new, c.api) for c in changes] == [
        ("keyword-changed", "Anything", None, "not={}", "unknown")
    ]
    # added and removed boolean definitions
    added, _ = diff_documents(doc(), doc(Anything=True))
    removed, _ = diff_documents(doc(Anything=False), doc())
    assert [c.kind for c in added] == ["definition-added"]
    assert [c.kind for c in removed] == ["definition-removed"]
    assert main(["diff", str(old), str(new)]) == 0


def test_a_union_with_no_member_reads_nothing() -> None:
    old = doc(A={"anyOf": []})  # no value is valid: no OLD decoder reads a NEW string
    new = doc(A={"type": "string"})
    changes, _ = diff_documents(old, new)
    assert verdicts(changes, "shape-changed") == [("A", "breaking", "compatible", "breaking")]
    changes, _ = diff_documents(new, old)
    assert verdicts(changes, "shape-changed") == [("A", "compatible", "breaking", "breaking")]


def test_fail_on_api_stops_on_an_unknown_api_verdict(tmp_path: Path) -> None:
    def version(default: int) -> dict[str, Any]:
        props = {"n": {"type": "integer", "default": default}}
        return doc(A={"type": "object", "properties": props})

    old, new = version(1), version(2)
    changes, _ = diff_documents(old, new)
    assert [(c.kind, c.api) for c in changes] == [("default-changed", "unknown")]
    assert all(c.old_reads_new == c.new_reads_old == "compatible" for c in changes)
    report = DiffReport("old", "new", changes)
    assert FAIL_ON["api"](report) and FAIL_ON["breaking"](report)
    assert not FAIL_ON["wire"](report)
    old_path, new_path = write(tmp_path / "old.json", old), write(tmp_path / "new.json", new)
    assert main(["diff", str(old_path), str(new_path), "--fail-on", "api"]) == 1
    assert main(["diff", str(old_path), str(new_path), "--fail-on", "wire"]) == 0
