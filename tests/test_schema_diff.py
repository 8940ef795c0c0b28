"""Behaviour of ``acp-schema diff`` (acp_schema.codegen.drift: schema_diff, diff_report, commands).

Each synthetic pair below changes one thing and states the expected verdicts:
(kind, where, old reads new, new reads old, api). C = compatible, B = breaking,
U = unknown.
"""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_schema.cli import main
from acp_schema.codegen.drift.diff_report import FAIL_ON, render_report, to_json
from acp_schema.codegen.drift.schema_diff import (
    ROOT,
    Change,
    DiffReport,
    SchemaInput,
    diff_documents,
    diff_files,
)
from acp_schema.codegen.drift.schema_structure import structural_diff, structure
from acp_schema.codegen.schema_check import iter_subschemas
from tests.budget import examples
from tests.reference_schemas import require_reference

REPO = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).resolve().parent / "golden"
BUNDLED = REPO / "codegen" / "schema"

C, B, U = "compatible", "breaking", "unknown"
NULLABLE_STRING: dict[str, Any] = {"type": ["string", "null"]}
OPTIONAL_META = {
    "type": ["object", "null"],
    "additionalProperties": True,
    "x-deserialize-default-on-error": True,
}


def doc(**defs: Any) -> dict[str, Any]:
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}


def obj(props: dict[str, Any], required: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required), **extra}


def tagged(tag: str, ref: str, prop: str = "type") -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {prop: {"type": "string", "const": tag}},
        "required": [prop],
        "allOf": [{"$ref": f"#/$defs/{ref}"}],
    }


def other(tags: list[str], prop: str = "type") -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {prop: {"type": "string"}},
        "required": [prop],
        "not": {
            "anyOf": [
                {"type": "object", "properties": {prop: {"const": t}}, "required": [prop]}
                for t in tags
            ]
        },
        "additionalProperties": True,
    }


def changes(old: dict[str, Any], new: dict[str, Any], **kw: Any) -> list[Change]:
    found, warnings = diff_documents(old, new, **kw)
    assert warnings == []
    return found


def verdict(change: Change) -> tuple[str, str, str, str, str]:
    return (change.kind, change.where, change.old_reads_new, change.new_reads_old, change.api)


def verdicts(old: dict[str, Any], new: dict[str, Any], **kw: Any) -> list[tuple[str, ...]]:
    return [verdict(c) for c in changes(old, new, **kw)]


# --- one change each ---------------------------------------------------------------------

SKIP_ITEMS = {"x-deserialize-skip-invalid-items": True}
BASE = obj({"id": {"type": "string"}, "note": NULLABLE_STRING}, ("id",))


INTS = obj({"n": {"type": "integer"}}, ("n",))  # reads nothing BASE accepts, nor the reverse


def with_props(**props: Any) -> dict[str, Any]:
    return obj({**BASE["properties"], **props}, ("id",))


CASES: list[tuple[str, dict[str, Any], dict[str, Any], list[tuple[str, ...]]]] = [
    (
        "optional property added",
        doc(A=BASE),
        doc(A=with_props(extra=NULLABLE_STRING)),
        [("property-added", "A.extra", C, C, C)],
    ),
    (
        "required property added",
        doc(A=BASE),
        doc(A=obj({**BASE["properties"], "extra": {"type": "string"}}, ("id", "extra"))),
        [("property-added", "A.extra", C, B, B)],
    ),
    (
        "property added to a closed object",
        doc(A={**BASE, "additionalProperties": False}),
        doc(A={**with_props(extra=NULLABLE_STRING), "additionalProperties": False}),
        [("property-added", "A.extra", B, C, C)],
    ),
    (
        "optional property removed",
        doc(A=BASE),
        doc(A=obj({"id": {"type": "string"}}, ("id",))),
        [("property-removed", "A.note", C, C, B)],
    ),
    (
        "required property removed",
        doc(A=BASE),
        doc(A=obj({"note": NULLABLE_STRING})),
        [("property-removed", "A.id", B, C, B)],
    ),
    (
        "optional property removed from a now closed object",
        doc(A=BASE),
        doc(A=obj({"id": {"type": "string"}}, ("id",), additionalProperties=False)),
        [
            ("additional-properties-changed", "A", C, B, B),
            ("property-removed", "A.note", C, B, B),
        ],
    ),
    (
        "property becomes required",
        doc(A=BASE),
        doc(A=obj(BASE["properties"], ("id", "note"))),
        [("property-required", "A.note", C, B, B)],
    ),
    (
        "property becomes optional",
        doc(A=BASE),
        doc(A=obj(BASE["properties"])),
        [("property-optional", "A.id", B, C, B)],
    ),
    (
        "type changed to an unrelated one",
        doc(A=BASE),
        doc(A=with_props(id={"type": "integer"})),
        [("type-changed", "A.id", B, B, B)],
    ),
    (
        "integer widened to number",
        doc(A=with_props(n={"type": "integer"})),
        doc(A=with_props(n={"type": "number"})),
        [("type-changed", "A.n", B, C, B)],
    ),
    (
        "nullable added (type list)",
        doc(A=BASE),
        doc(A=with_props(id={"type": ["string", "null"]})),
        [("nullable-added", "A.id", B, C, B)],
    ),
    (
        "nullable removed (anyOf with null)",
        doc(A=with_props(ref={"anyOf": [{"$ref": "#/$defs/Id"}, {"type": "null"}]}), Id={}),
        doc(A=with_props(ref={"$ref": "#/$defs/Id"}), Id={}),
        [("nullable-removed", "A.ref", C, B, B)],
    ),
    (
        "nullable removed where decoders drop bad values",
        doc(A=with_props(x={"type": ["string", "null"], "x-deserialize-default-on-error": True})),
        doc(A=with_props(x={"type": "string", "x-deserialize-default-on-error": True})),
        [("nullable-removed", "A.x", C, C, B)],
    ),
    (
        "enum value added",
        doc(A=with_props(level={"type": "string", "enum": ["low", "high"]})),
        doc(A=with_props(level={"type": "string", "enum": ["low", "high", "max"]})),
        [("enum-value-added", "A.level", B, C, C)],
    ),
    (
        "enum value removed",
        doc(A=with_props(level={"type": "string", "enum": ["low", "high"]})),
        doc(A=with_props(level={"type": "string", "enum": ["low"]})),
        [("enum-value-removed", "A.level", C, B, B)],
    ),
    (
        "enum value added where old decoders drop bad values",
        doc(A=with_props(level={"enum": ["a"], "x-deserialize-default-on-error": True})),
        doc(A=with_props(level={"enum": ["a", "b"], "x-deserialize-default-on-error": True})),
        [("enum-value-added", "A.level", C, C, C)],
    ),
    (
        "const member added to a closed enum-like union",
        doc(K={"anyOf": [{"type": "string", "const": "a"}]}),
        doc(K={"anyOf": [{"type": "string", "const": "a"}, {"type": "string", "const": "b"}]}),
        [("enum-value-added", 'K<const:"b">', B, C, C)],
    ),
    (
        "const member added to an open enum-like union",
        doc(K={"anyOf": [{"type": "string", "const": "a"}, {"type": "string"}]}),
        doc(
            K={
                "anyOf": [
                    {"type": "string", "const": "a"},
                    {"type": "string", "const": "b"},
                    {"type": "string"},
                ]
            }
        ),
        [("enum-value-added", 'K<const:"b">', C, C, C)],
    ),
    (
        "const member removed from an open enum-like union",
        doc(K={"anyOf": [{"type": "string", "const": "a"}, {"type": "string"}]}),
        doc(K={"anyOf": [{"type": "string"}]}),
        [("enum-value-removed", 'K<const:"a">', C, C, B)],
    ),
    (
        "const changed",
        doc(A=with_props(v={"const": 1})),
        doc(A=with_props(v={"const": 2})),
        [("const-changed", "A.v", B, B, B)],
    ),
    (
        "array items: enum value added, invalid items skipped by old decoders",
        doc(A=with_props(xs={"type": "array", "items": {"enum": ["a"]}, **SKIP_ITEMS})),
        doc(A=with_props(xs={"type": "array", "items": {"enum": ["a", "b"]}, **SKIP_ITEMS})),
        [("enum-value-added", "A.xs[]", C, C, C)],
    ),
    (
        "integer format widened",
        doc(A=with_props(n={"type": "integer", "format": "uint32"})),
        doc(A=with_props(n={"type": "integer", "format": "int64"})),
        [("format-changed", "A.n", B, C, C)],
    ),
    (
        "integer format neither wider nor narrower",
        doc(A=with_props(n={"type": "integer", "format": "int64"})),
        doc(A=with_props(n={"type": "integer", "format": "uint64"})),
        [("format-changed", "A.n", B, B, C)],
    ),
    (
        "text format dropped",
        doc(A=with_props(u={"type": "string", "format": "uri"})),
        doc(A=with_props(u={"type": "string"})),
        [("format-changed", "A.u", U, C, C)],
    ),
    (
        "text format added",
        doc(A=with_props(u={"type": "string"})),
        doc(A=with_props(u={"type": "string", "format": "date-time"})),
        [("format-changed", "A.u", C, U, C)],
    ),
    (
        "text format replaced",
        doc(A=with_props(u={"type": "string", "format": "uri"})),
        doc(A=with_props(u={"type": "string", "format": "date-time"})),
        [("format-changed", "A.u", U, U, C)],
    ),
    (
        "lower bound raised",
        doc(A=with_props(n={"type": "integer", "minimum": 0})),
        doc(A=with_props(n={"type": "integer", "minimum": 1})),
        [("constraint-changed", "A.n", C, B, B)],
    ),
    (
        "upper bound removed",
        doc(A=with_props(s={"type": "string", "maxLength": 4})),
        doc(A=with_props(s={"type": "string"})),
        [("constraint-changed", "A.s", B, C, C)],
    ),
    (
        "object closed",
        doc(A=BASE),
        doc(A={**BASE, "additionalProperties": False}),
        [("additional-properties-changed", "A", C, B, B)],
    ),
    (
        "decoding keyword added",
        doc(A=BASE),
        doc(A=with_props(note={**NULLABLE_STRING, "x-deserialize-default-on-error": True})),
        [("x-keyword-added", "A.note", C, C, C)],
    ),
    (
        "decoding keyword removed",
        doc(A=with_props(xs={"type": "array", "x-deserialize-default-on-null": True})),
        doc(A=with_props(xs={"type": "array"})),
        [("x-keyword-removed", "A.xs", C, C, C)],
    ),
    (
        "unknown extension keyword",
        doc(A=BASE),
        doc(A={**BASE, "x-vendor-thing": 1}),
        [("x-keyword-added", "A", U, U, U)],
    ),
    (
        "method added to a definition",
        doc(P=BASE),
        doc(P={**BASE, "x-method": "ping", "x-side": "agent"}),
        [("method-added", "P", C, C, C)],
    ),
    (
        "method removed from a definition",
        doc(P={**BASE, "x-method": "ping", "x-side": "agent"}),
        doc(P=BASE),
        [("method-removed", "P", C, B, B)],
    ),
    (
        "method renamed",
        doc(P={**BASE, "x-method": "ping", "x-side": "agent"}),
        doc(P={**BASE, "x-method": "pong", "x-side": "agent"}),
        [("method-changed", "P", B, B, B)],
    ),
    (
        "method handled by the other side",
        doc(P={**BASE, "x-method": "ping", "x-side": "agent"}),
        doc(P={**BASE, "x-method": "ping", "x-side": "client"}),
        [("side-changed", "P", B, B, B)],
    ),
    (
        "definition with a method removed",
        doc(P={**BASE, "x-method": "ping", "x-side": "agent"}, Q=BASE),
        doc(Q=BASE),
        [("definition-removed", "P", C, C, B), ("method-removed", "P", C, B, B)],
    ),
    (
        "property default removed: the bindings never apply it",
        doc(A=with_props(caps={"type": "object", "default": {}})),
        doc(A=with_props(caps={"type": "object"})),
        [("default-changed", "A.caps", C, C, C)],
    ),
    (
        "property default added",
        doc(A=with_props(n={"type": "integer"})),
        doc(A=with_props(n={"type": "integer", "default": 3})),
        [("default-changed", "A.n", C, C, C)],
    ),
    (
        "property default changed: code reading MISSING as the default must follow",
        doc(A=with_props(n={"type": "integer", "default": 3})),
        doc(A=with_props(n={"type": "integer", "default": 4})),
        [("default-changed", "A.n", C, C, U)],
    ),
    (
        "default removed where the generator may apply it (not on a property)",
        doc(Mode={"type": "string", "default": "fast"}),
        doc(Mode={"type": "string"}),
        [("default-changed", "Mode", C, C, B)],
    ),
    (
        "deprecated",
        doc(A=BASE),
        doc(A={**BASE, "deprecated": True}),
        [("deprecated-changed", "A", C, C, C)],
    ),
    (
        "pattern changed: not judged",
        doc(A=with_props(s={"type": "string", "pattern": "^a"})),
        doc(A=with_props(s={"type": "string", "pattern": "^b"})),
        [("constraint-changed", "A.s", U, U, U)],
    ),
    (
        "pattern removed",
        doc(A=with_props(s={"type": "string", "pattern": "^[A-Z]{3}$"})),
        doc(A=with_props(s={"type": "string"})),
        [("constraint-changed", "A.s", B, C, C)],
    ),
    (
        "pattern added",
        doc(A=with_props(s={"type": "string"})),
        doc(A=with_props(s={"type": "string", "pattern": "^[A-Z]{3}$"})),
        [("constraint-changed", "A.s", C, B, B)],
    ),
    (
        "discriminator dropped: a hint, the tags still decide",
        doc(U={"oneOf": [tagged("a", "A")], "discriminator": {"propertyName": "type"}}, A=BASE),
        doc(U={"oneOf": [tagged("a", "A")]}, A=BASE),
        [("keyword-changed", "U", C, C, C)],
    ),
    (
        "content encoding added: the Python type stays str",
        doc(A=with_props(s={"type": "string"})),
        doc(A=with_props(s={"type": "string", "contentEncoding": "base64"})),
        [("keyword-changed", "A.s", U, U, C)],
    ),
    (
        "nullable added to a field that already took any value",
        doc(A=with_props(data={})),
        doc(A=with_props(data={"anyOf": [{}, {"type": "null"}]})),
        [],
    ),
    (
        "nullable removed, the field now takes any value",
        doc(A=with_props(data={"type": ["string", "null"]})),
        doc(A=with_props(data={})),
        [("type-changed", "A.data", B, C, B)],
    ),
    (
        "nullable added to a field with a type",
        doc(A=with_props(data={"type": "object"})),
        doc(A=with_props(data={"type": ["object", "null"]})),
        [("nullable-added", "A.data", B, C, B)],
    ),
    (
        "anyOf became oneOf",
        doc(U={"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]}, A=BASE, B=BASE),
        doc(U={"oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]}, A=BASE, B=BASE),
        [("union-kind-changed", "U", C, C, C)],
    ),
    (
        "plain union member added",
        doc(U={"anyOf": [{"$ref": "#/$defs/A"}]}, A=BASE, B=INTS),
        doc(U={"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]}, A=BASE, B=INTS),
        [("variant-added", "U<ref:B>", B, C, C)],
    ),
    (
        "plain union member added that an old member reads",
        doc(U={"anyOf": [{"$ref": "#/$defs/A"}]}, A=BASE, B=BASE),
        doc(U={"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]}, A=BASE, B=BASE),
        [("variant-added", "U<ref:B>", C, C, C)],
    ),
    (
        "plain union member removed that a remaining member reads",
        doc(U={"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}, {}]}, A=BASE, B=INTS),
        doc(U={"anyOf": [{"$ref": "#/$defs/A"}, {}]}, A=BASE, B=INTS),
        [("variant-removed", "U<ref:B>", C, C, B)],
    ),
    (
        "union member added beside members of another shape",
        doc(U={"anyOf": [{"type": "string"}]}),
        doc(U={"anyOf": [{"type": "string"}, {"type": "integer"}]}),
        [("variant-added", "U<type:integer>", B, C, C)],
    ),
    (
        "definition added and removed",
        doc(A=BASE),
        doc(B=BASE),
        [("definition-removed", "A", C, C, B), ("definition-added", "B", C, C, C)],
    ),
    (
        "$ref to an identical class under another name",
        doc(A=with_props(caps={"$ref": "#/$defs/Old"}), Old=BASE),
        doc(A=with_props(caps={"$ref": "#/$defs/New"}), New=BASE),
        [
            ("ref-changed", "A.caps", C, C, B),
            ("definition-added", "New", C, C, C),
            ("definition-removed", "Old", C, C, B),
        ],
    ),
    (
        "root schema changed",
        {"anyOf": [{"$ref": "#/$defs/A"}], "$defs": {"A": BASE}},
        {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "string"}], "$defs": {"A": BASE}},
        [("variant-added", f"{ROOT}<type:string>", B, C, C)],
    ),
]


@pytest.mark.parametrize(
    ("old", "new", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_single_change_classification(
    old: dict[str, Any], new: dict[str, Any], expected: list[tuple[str, ...]]
) -> None:
    assert verdicts(old, new) == expected


def test_identical_documents_have_no_changes() -> None:
    assert verdicts(doc(A=BASE), doc(A=copy.deepcopy(BASE))) == []


# --- tagged unions -----------------------------------------------------------------------


def union_doc(tags: list[str], *, open_: bool) -> dict[str, Any]:
    members = [tagged(t, t.title()) for t in tags] + ([other(tags)] if open_ else [])
    return doc(U={"anyOf": members}, **{t.title(): BASE for t in ["a", "b", "c"]})


@pytest.mark.parametrize(
    ("open_", "added", "removed"),
    [(False, (B, C, C), (C, B, B)), (True, (C, C, C), (C, C, B))],
    ids=["closed", "open"],
)
def test_tagged_variant_added_and_removed(
    open_: bool, added: tuple[str, ...], removed: tuple[str, ...]
) -> None:
    two, three = union_doc(["a", "b"], open_=open_), union_doc(["a", "b", "c"], open_=open_)
    assert verdicts(two, three) == [("variant-added", "U<type=c>", *added)]
    assert verdicts(three, two) == [("variant-removed", "U<type=c>", *removed)]


def test_variant_change_inside_the_open_variant_ignores_its_not_list() -> None:
    old = union_doc(["a", "b"], open_=True)
    new = copy.deepcopy(old)
    new["$defs"]["U"]["anyOf"][2]["properties"]["name"] = {"type": "string"}
    assert verdicts(old, new) == [("property-added", "U<other>.name", C, C, C)]


def test_members_pair_by_tag_not_by_position() -> None:
    old = union_doc(["a", "b"], open_=False)
    new = copy.deepcopy(old)
    new["$defs"]["U"]["anyOf"].reverse()
    assert verdicts(old, new) == []


def test_member_that_only_changed_title_is_still_the_same_member() -> None:
    old = doc(I={"anyOf": [{"title": "Number", "type": "integer"}, {"type": "string"}]})
    new = doc(I={"anyOf": [{"title": "Int", "type": "integer"}, {"type": "string"}]})
    assert verdicts(old, new) == []
    assert [c.kind for c in changes(old, new, descriptions=True)] == ["title-changed"]


def test_inline_variant_becoming_a_definition_renames_its_class() -> None:
    """The pre-pass names an inline variant `<Union><Tag>`, a referenced one by its
    definition; the diff reports the class that disappears."""
    inline = {
        "type": "object",
        "properties": {"outcome": {"type": "string", "const": "cancelled"}},
        "required": ["outcome"],
    }
    old = doc(Outcome={"oneOf": [inline, tagged("selected", "Selected", "outcome")]}, Selected=BASE)
    new = doc(
        Outcome={
            "oneOf": [
                tagged("cancelled", "Cancelled", "outcome"),
                tagged("selected", "Selected", "outcome"),
            ]
        },
        Selected=BASE,
        Cancelled=obj({"_meta": OPTIONAL_META}),
    )
    assert verdicts(old, new) == [
        ("definition-added", "Cancelled", C, C, C),
        ("binding-removed", "Outcome<outcome=cancelled>", C, C, B),
        ("ref-changed", "Outcome<outcome=cancelled>", C, C, B),
        ("property-added", "Outcome<outcome=cancelled>._meta", C, C, C),
    ]


def test_object_becoming_a_tagged_union_is_judged_variant_by_variant() -> None:
    command = obj({"name": {"type": "string"}, "input": NULLABLE_STRING}, ("name",))
    fallback = other(["command"])  # unknown kinds of command still have a name
    fallback["properties"]["name"] = {"type": "string"}
    fallback["required"].append("name")
    old = doc(Cmd=command)
    new = doc(Cmd={"anyOf": [tagged("command", "Command"), fallback]}, Command=command)
    found = changes(old, new)
    shape = [c for c in found if c.kind == "shape-changed"]
    assert [verdict(c) for c in shape] == [("shape-changed", "Cmd", C, B, B)]
    assert {c.kind for c in found} == {"shape-changed", "definition-added", "binding-added"}
    # Without a name, old decoders could not read the open variant's messages.
    new["$defs"]["Cmd"]["anyOf"][1] = other(["command"])
    shape = [c for c in changes(old, new) if c.kind == "shape-changed"]
    assert [verdict(c) for c in shape] == [("shape-changed", "Cmd", B, B, B)]


def test_recursive_definitions_through_a_changed_ref_terminate() -> None:
    def tree(name: str, child: str) -> dict[str, Any]:
        return obj({"children": {"type": "array", "items": {"$ref": f"#/$defs/{child}"}}})

    old = doc(Root=obj({"t": {"$ref": "#/$defs/A"}}), A=tree("A", "A"))
    new = doc(Root=obj({"t": {"$ref": "#/$defs/B"}}), B=tree("B", "B"))
    kinds = [(c.kind, c.where) for c in changes(old, new)]
    assert ("ref-changed", "Root.t") in kinds
    assert ("ref-changed", "Root.t.children[]") in kinds


# --- codemods, descriptions, determinism -------------------------------------------------


def test_removed_chunk_identity_names_the_codemod() -> None:
    ids = {"anyOf": [{"$ref": "#/$defs/SessionId"}, {"type": "null"}]}
    old = doc(
        SessionId={"type": "string"},
        SessionMessageChunk=obj(
            {"messageId": {"type": "string"}, "senderSessionId": ids, "recipientSessionId": ids},
            ("messageId",),
        ),
        Other=obj({"senderSessionId": ids}),
    )
    new = copy.deepcopy(old)
    for name in ("SessionMessageChunk", "Other"):
        new["$defs"][name]["properties"].pop("senderSessionId")
    new["$defs"]["SessionMessageChunk"]["properties"].pop("recipientSessionId")
    found = {(c.where, c.codemod) for c in changes(old, new)}
    assert found == {
        ("Other.senderSessionId", None),
        ("SessionMessageChunk.recipientSessionId", "chunk-identity"),
        ("SessionMessageChunk.senderSessionId", "chunk-identity"),
    }


def test_description_changes_only_on_request() -> None:
    old = doc(A={**BASE, "description": "Before."})
    new = doc(A={**BASE, "description": "After."})
    assert changes(old, new) == []
    (change,) = changes(old, new, descriptions=True)
    assert (change.kind, change.old, change.new) == ("description-changed", "Before.", "After.")
    assert (change.old_reads_new, change.new_reads_old, change.api) == (C, C, C)


def test_output_is_sorted_and_independent_of_key_order() -> None:
    old = doc(B=BASE, A=BASE, C=BASE)
    new = doc(
        C=with_props(z=NULLABLE_STRING, y=NULLABLE_STRING), A={**BASE, "deprecated": True}, D=BASE
    )
    first = changes(old, new)
    assert first == sorted(first, key=Change.sort_key)
    reordered_old = {"$defs": dict(reversed(list(old["$defs"].items())))}
    reordered_new = {"$defs": dict(reversed(list(new["$defs"].items())))}
    assert changes(reordered_old, reordered_new) == first


# --- files and the command line ----------------------------------------------------------


def write(path: Path, value: Any) -> Path:
    path.write_text(value if isinstance(value, str) else json.dumps(value), encoding="utf-8")
    return path


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    """OLD/NEW files whose only change breaks the API and not the wire."""
    old = doc(A=BASE)
    new = doc(A=obj({"id": {"type": "string"}}, ("id",)))
    return write(tmp_path / "old.json", old), write(tmp_path / "new.json", new)


def test_cli_fail_on_classes(pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    old, new = (str(p) for p in pair)
    assert main(["diff", old, new]) == 0
    assert main(["diff", old, new, "--fail-on", "api"]) == 1
    assert main(["diff", old, new, "--fail-on", "breaking"]) == 1
    assert main(["diff", old, new, "--fail-on", "any"]) == 1
    assert main(["diff", old, new, "--fail-on", "wire"]) == 0
    assert main(["diff", old, old, "--fail-on", "any"]) == 0
    out = capsys.readouterr().out
    assert "property-removed: A.note" not in out  # text groups by definition
    assert "  property-removed: note  [optional string | null]" in out


def test_cli_json_and_markdown(pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    old, new = (str(p) for p in pair)
    assert main(["diff", old, new, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["api_breaking"] == 1
    assert report["changes"] == [
        {
            "definition": "A",
            "location": "note",
            "kind": "property-removed",
            "old": "optional string | null",
            "new": None,
            "wire": {"old_reads_new": C, "new_reads_old": C},
            "api": B,
            "codemod": None,
            "note": "new decoders ignore the key; field note and builder with_note are gone",
        }
    ]
    assert main(["diff", old, new, "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert "### Breaking changes" in markdown
    assert "| `A.note` | property-removed | optional string \\| null |" in markdown


def test_cli_bundled_versions_diff_cleanly(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", "v1", "v1", "--fail-on", "any"]) == 0
    assert "no structural changes" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "invalid JSON"),
        ("[1, 2]", "top level must be a JSON object"),
        (json.dumps(doc(A={"$ref": "#/$defs/Missing"})), "does not resolve"),
        (json.dumps({"$defs": {"A": 3}}), "a definition must be a schema"),
    ],
    ids=["not-json", "not-an-object", "dangling-ref", "bad-definition"],
)
def test_cli_unusable_input_exits_2(
    tmp_path: Path, content: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path / "bad.json", content)
    assert main(["diff", "v1", str(bad)]) == 2
    assert message in capsys.readouterr().err


def test_cli_unknown_version_and_missing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", "v3", "v1"]) == 2
    assert "unknown protocol version 'v3'" in capsys.readouterr().err
    assert main(["diff", str(tmp_path / "nope.json"), "v1"]) == 2
    assert "cannot read" in capsys.readouterr().err
    assert main(["diff", "v1"]) == 2
    assert "give two schemas" in capsys.readouterr().err


def test_bundled_schema_against_a_modified_copy(tmp_path: Path) -> None:
    bundled = json.loads((BUNDLED / "v2" / "schema.unstable.json").read_text(encoding="utf-8"))
    modified = copy.deepcopy(bundled)
    chunk = modified["$defs"]["SessionMessageChunk"]["properties"]
    chunk["senderSessionId"] = modified["$defs"]["SessionMessage"]["properties"]["senderSessionId"]
    path = write(tmp_path / "modified.json", modified)
    report = diff_files(
        SchemaInput("bundled", BUNDLED / "v2" / "schema.unstable.json"), SchemaInput("m", path)
    )
    assert [verdict(c) for c in report.changes] == [
        ("property-added", "SessionMessageChunk.senderSessionId", C, C, C)
    ]


# --- golden cases: one rule each, on small synthetic pairs -------------------------------

CASES_DIR = GOLDEN / "cases"
GOLDEN_CASES = sorted(p.name for p in CASES_DIR.iterdir() if p.is_dir())
UPDATE_GOLDEN = os.environ.get("ACP_SCHEMA_UPDATE_GOLDEN") == "1"  # then review by hand


def golden_view(report: DiffReport) -> dict[str, Any]:
    """The golden file's content: the report without the input labels."""
    data = to_json(report)
    return {"summary": data["summary"], "changes": data["changes"], "warnings": data["warnings"]}


def check_golden(path: Path, actual: str) -> None:
    if UPDATE_GOLDEN:
        path.write_text(actual, encoding="utf-8")
    assert actual == path.read_text(encoding="utf-8")


def case_paths(name: str) -> tuple[str, str]:
    return str(CASES_DIR / name / "old.json"), str(CASES_DIR / name / "new.json")


def case_report(name: str) -> DiffReport:
    old, new = case_paths(name)
    return diff_files(SchemaInput("old", Path(old)), SchemaInput("new", Path(new)))


def markdown_tables(markdown: str) -> dict[str, list[list[str]]]:
    """Each `###` table of a Markdown report: its rows, as cells."""
    tables: dict[str, list[list[str]]] = {}
    title = None
    for line in markdown.splitlines():
        if line.startswith("### "):
            title = line[4:]
            tables[title] = []
        elif title and line.startswith("| `"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            tables[title].append(cells)
    return tables


def assert_tables_hold_their_verdicts(markdown: str) -> None:
    """Breaking: a breaking verdict; review: unknown and nothing breaking; compatible: all
    compatible. Cells 4-6 are old reads new, new reads old and API."""
    allowed = {
        "Breaking changes": lambda v: B in v,
        "Changes to review (not judged)": lambda v: B not in v and U in v,
        "Compatible changes": lambda v: set(v) == {C},
    }
    for title, rows in markdown_tables(markdown).items():
        for row in rows:
            assert allowed[title](row[4:7]), (title, row)


@pytest.mark.parametrize("name", GOLDEN_CASES)
def test_golden_case_reports(name: str) -> None:
    report = case_report(name)
    check_golden(CASES_DIR / name / "report.json", json.dumps(golden_view(report), indent=2) + "\n")
    markdown = render_report(report, "markdown")
    check_golden(CASES_DIR / name / "report.md", markdown)
    assert_tables_hold_their_verdicts(markdown)


def test_method_added_to_envelopes_passes_fail_on_wire() -> None:
    """Old bindings decode a request, response or notification of a method they do not know
    as the extension member (`<Envelope>Other` for requests and notifications)."""
    old, new = case_paths("method-added-to-envelopes")
    assert main(["diff", old, new, "--fail-on", "wire"]) == 0
    assert main(["diff", old, new, "--fail-on", "breaking"]) == 0
    assert main(["diff", old, new, "--fail-on", "any"]) == 1
    added = [
        c for c in case_report("method-added-to-envelopes").changes if c.kind.endswith("-added")
    ]
    readers = {c.where: c.note.split(";")[0] for c in added if c.kind == "variant-added"}
    assert readers == {
        "ClientRequest.params<ref:ArchiveSessionRequest>": (
            "old decoders take it as <ref:ExtRequest>"
        ),
        "AgentResponse<title:Result>.result<ref:ArchiveSessionResponse>": (
            "old decoders take it as <ref:ExtResponse>"
        ),
        "AgentNotification.params<ref:StatusNotification>": (
            "old decoders take it as <ref:ExtNotification>"
        ),
    }
    assert all(verdict(c)[2:] == (C, C, C) for c in added)


def test_envelope_without_an_extension_member_still_breaks_old_decoders() -> None:
    """Without an extension member, old bindings read an unknown method's params as one of
    the params they know; a new method whose params fit none of them breaks them."""
    old_doc, new_doc = (
        json.loads(Path(p).read_text(encoding="utf-8"))
        for p in case_paths("method-added-to-envelopes")
    )
    for document in (old_doc, new_doc):
        members = document["$defs"]["ClientRequest"]["properties"]["params"]["anyOf"][0]["anyOf"]
        members.pop()  # the ExtRequest member
    (change,) = [c for c in changes(old_doc, new_doc) if c.where.startswith("ClientRequest.params")]
    assert change.where == "ClientRequest.params<ref:ArchiveSessionRequest>"
    assert verdict(change) == ("variant-added", change.where, B, C, C)


def test_property_default_removed_passes_fail_on_api() -> None:
    old, new = case_paths("property-default-removed")
    assert main(["diff", old, new, "--fail-on", "api"]) == 0
    assert main(["diff", old, new, "--fail-on", "breaking"]) == 0


def test_nullable_on_untyped_fields_is_no_change() -> None:
    found = case_report("nullable-on-untyped-field").changes
    assert not [c for c in found if c.kind.startswith("nullable-")]
    assert "Error.details" not in {c.where for c in found}  # `{}` or null is still `{}`
    (hint,) = [c for c in found if c.where == "Error.hint"]
    assert (hint.kind, hint.old, hint.new) == ("type-changed", "any", "string")


def test_nested_classes_are_filed_under_their_definition() -> None:
    report = case_report("nested-classes")
    new_doc = json.loads(Path(case_paths("nested-classes")[1]).read_text(encoding="utf-8"))
    bindings = {
        (c.new, c.definition, c.location) for c in report.changes if c.kind == "binding-added"
    }
    assert bindings == {
        ("ProxyResponseResult", "ProxyResponse", "<title:Result>"),
        ("ProxyResponseError", "ProxyResponse", "<title:Error>"),
        ("ShapeOutline", "Shape", "outline"),
        ("ShapeOutlineCircle", "Shape", "outline<kind=circle>"),
        ("ShapeOutlineSquare", "Shape", "outline<kind=square>"),
    }
    assert {c.definition for c in report.changes} <= set(new_doc["$defs"])


def test_markdown_breaking_table_lists_only_breaking_changes() -> None:
    tables = markdown_tables(render_report(case_report("markdown-tables"), "markdown"))
    assert [row[0] for row in tables["Breaking changes"]] == ["`Cost.amount`"]
    assert [row[0] for row in tables["Changes to review (not judged)"]] == ["`Cost.currency`"]
    assert [row[0] for row in tables["Compatible changes"]] == ["`Cost.label`"]


# --- published revisions (reference schemas, when present) -------------------------------

RELEASES = [("2.0.0", "2.1.0"), ("2.1.0", "2.4.0")]
REVISIONS = [(old, new, version) for old, new in RELEASES for version in ("v1", "v2")]
REVISION_IDS = [f"{old}-{new}-{version}" for old, new, version in REVISIONS]


def reference(release: str, version: str) -> Path:
    return require_reference(release, version)


def reference_report(version: str, old: str = "2.0.0", new: str = "2.1.0") -> DiffReport:
    return diff_files(
        SchemaInput(old, reference(old, version)), SchemaInput(new, reference(new, version))
    )


@pytest.mark.parametrize(("old", "new", "version"), REVISIONS, ids=REVISION_IDS)
def test_reference_revision_matches_reviewed_golden(old: str, new: str, version: str) -> None:
    report = reference_report(version, old, new)
    golden = GOLDEN / f"diff-{old}-{new}-{version}.json"
    check_golden(golden, json.dumps(golden_view(report), indent=2) + "\n")


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_reference_revision_is_reported_as_the_change_request_says(version: str) -> None:
    found = {(c.where, c.kind): c for c in reference_report(version).changes}
    for name in ("senderMessageId", "recipientMessageId"):
        added = found[(f"SessionMessage.{name}", "property-added")]
        assert (added.old_reads_new, added.new_reads_old, added.api) == (C, C, C)
    for name in ("senderSessionId", "recipientSessionId"):
        removed = found[(f"SessionMessageChunk.{name}", "property-removed")]
        assert (removed.old_reads_new, removed.new_reads_old, removed.api) == (C, C, B)
        assert removed.codemod == "chunk-identity"


@pytest.mark.parametrize(("old", "new", "version"), REVISIONS, ids=REVISION_IDS)
def test_reference_report_covers_exactly_what_structural_diff_sees(
    old: str, new: str, version: str
) -> None:
    """An independent check: the definitions structural_diff finds changed are the ones
    the report names, no more and no less."""
    old_doc, new_doc = (
        json.loads(reference(r, version).read_text(encoding="utf-8")) for r in (old, new)
    )
    touched = set()
    for line in structural_diff(old_doc, new_doc, limit=None):
        pointer = line.split(": ", 1)[0]
        parts = pointer.split("/")
        touched.add(parts[2] if parts[1] == "$defs" else ROOT)
    reported = {c.definition for c in reference_report(version, old, new).changes}
    assert reported == touched


@pytest.mark.parametrize(("old", "new", "version"), REVISIONS, ids=REVISION_IDS)
def test_golden_files_hold_no_reference_prose(old: str, new: str, version: str) -> None:
    golden = (GOLDEN / f"diff-{old}-{new}-{version}.json").read_text(encoding="utf-8")
    for release in (old, new):
        schema = json.loads(reference(release, version).read_text(encoding="utf-8"))
        for _, node in iter_subschemas(schema):
            text = node.get("description")
            if isinstance(text, str) and len(text) > 24:
                assert text[:24] not in golden


# A method's params or result inside a JSON-RPC envelope (each of these has an extension
# member that takes any value).
ENVELOPE_MEMBER = re.compile(
    r"(Agent|Client|Proxy)(Request|Notification)\.params<ref:\w+>"
    r"|(Agent|Client|Proxy)Response<title:Result>\.result<ref:\w+>"
)


@pytest.mark.parametrize(
    ("old", "new", "version"),
    [*REVISIONS, ("2.4.0", "2.4.0", "v1-v2")],
    ids=[*REVISION_IDS, "2.4.0-v1-to-v2"],
)
def test_reference_verdicts_a_ci_user_relies_on(old: str, new: str, version: str) -> None:
    """Over every published revision (and v1 -> v2): a method added to an envelope with
    an extension member never fails `--fail-on wire`, hoisted classes sit under a
    definition of their side, and each Markdown table holds only its own verdicts."""
    if version == "v1-v2":
        report = diff_files(
            SchemaInput("v1", reference(old, "v1")), SchemaInput("v2", reference(new, "v2"))
        )
        new_path = reference(new, "v2")
    else:
        report = reference_report(version, old, new)
        new_path = reference(new, version)
    new_defs = json.loads(new_path.read_text(encoding="utf-8"))["$defs"]
    for change in report.changes:
        if change.kind == "variant-added" and ENVELOPE_MEMBER.fullmatch(change.where):
            assert verdict(change)[2:] == (C, C, C), change
        if change.kind == "binding-added":
            assert change.definition in new_defs, change
        assert change.kind not in ("nullable-added", "nullable-removed") or change.old != "any"
    assert_tables_hold_their_verdicts(render_report(report, "markdown"))


def test_fail_on_table_covers_every_choice() -> None:
    assert set(FAIL_ON) == {"api", "wire", "breaking", "any"}
    empty = DiffReport("a", "b", [])
    assert not any(check(empty) for check in FAIL_ON.values())
    assert render_report(empty, "text").splitlines()[1] == "no structural changes"


# --- robustness --------------------------------------------------------------------------

NAMES = ("A", "B", "C")
_leaf = st.one_of(
    st.builds(
        lambda t: {"type": t},
        st.sampled_from(["string", "integer", "number", "boolean", "null", ["string", "null"]]),
    ),
    st.builds(lambda n: {"$ref": f"#/$defs/{n}"}, st.sampled_from(NAMES)),
    st.builds(lambda v: {"type": "string", "const": v}, st.text("ab", max_size=2)),
    st.builds(lambda vs: {"enum": vs}, st.lists(st.text("ab", max_size=2), max_size=3)),
    st.builds(lambda f: {"type": "integer", "format": f}, st.sampled_from(["int32", "uint64"])),
    st.builds(lambda m: {"type": "integer", "minimum": m}, st.integers(0, 2)),
    st.just(True),
)


def _extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    keys = st.sampled_from(["a", "b", "sessionUpdate"])
    return st.one_of(
        st.builds(
            lambda props, req, closed: {
                "type": "object",
                "properties": props,
                "required": req,
                **({"additionalProperties": False} if closed else {}),
            },
            st.dictionaries(keys, children, max_size=3),
            st.lists(keys, max_size=2, unique=True),
            st.booleans(),
        ),
        st.builds(lambda ms: {"anyOf": ms}, st.lists(children, max_size=3)),
        st.builds(lambda ms: {"oneOf": ms}, st.lists(children, max_size=3)),
        st.builds(lambda it: {"type": "array", "items": it}, children),
        st.builds(lambda c: {"allOf": [c]}, children),
        st.builds(lambda c: {"not": c, "type": "object"}, children),
        st.builds(
            lambda c, kw: {**c, kw: True} if isinstance(c, dict) else c,
            children,
            st.sampled_from(["x-deserialize-default-on-error", "x-deserialize-skip-invalid-items"]),
        ),
        st.builds(
            lambda c, m: {**c, "x-method": m, "x-side": "agent"} if isinstance(c, dict) else c,
            children,
            st.sampled_from(["ping", "pong"]),
        ),
    )


_schemas = st.recursive(_leaf, _extend, max_leaves=10)
_docs = st.builds(lambda a, b, c: {"$defs": {"A": a, "B": b, "C": c}}, _schemas, _schemas, _schemas)


@settings(
    max_examples=examples(100, 300), deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(_docs, _docs)
def test_any_pair_of_walkable_schemas_diffs_without_error(
    old: dict[str, Any], new: dict[str, Any]
) -> None:
    found, _ = diff_documents(old, new)
    assert found == sorted(found, key=Change.sort_key)
    for change in found:
        assert {change.old_reads_new, change.new_reads_old, change.api} <= {C, B, U}
        json.dumps(change.to_json())
    assert diff_documents(old, copy.deepcopy(old))[0] == []
    if structure(old) == structure(new):
        assert found == []


def test_renaming_every_definition_stays_linear() -> None:
    """A switch between two references is compared, and listed, once; every place that
    makes it carries the verdicts. Here 2**12 paths lead to the one real change."""
    depth = 12

    def chain(prefix: str) -> dict[str, Any]:
        defs = {
            f"{prefix}{i}": obj(
                {
                    "left": {"$ref": f"#/$defs/{prefix}{i + 1}"},
                    "right": {"$ref": f"#/$defs/{prefix}{i + 1}"},
                }
            )
            for i in range(depth)
        }
        defs[f"{prefix}{depth}"] = obj({"leaf": {"type": "string"}})
        defs["Root"] = obj({"tree": {"$ref": f"#/$defs/{prefix}0"}})
        return doc(**defs)

    old, new = chain("Old"), chain("New")
    new["$defs"][f"New{depth}"]["properties"]["leaf"] = {"type": "integer"}
    found = changes(old, new)
    inside = [c for c in found if c.definition == "Root"]
    assert [c.where for c in inside if c.kind == "type-changed"] == [
        "Root.tree" + ".left" * depth + ".leaf"
    ]
    assert len(inside) == 2 * depth + 2  # a ref-changed per switch and place, and the leaf
    (top,) = [c for c in inside if c.where == "Root.tree"]
    assert (top.kind, top.old_reads_new, top.new_reads_old, top.api) == ("ref-changed", B, B, B)
    again = [c for c in inside if c.where == "Root.tree.right"]
    assert again[0].note.endswith("through the reference: as at Root.tree.left")
