"""Keywords the bindings do not enforce are a refusal of `schema check` and `generate`,
naming the pointer and the keyword (attack #10: they were dropped silently, and invalid
input decoded); the shapes the bindings do enforce stay clean, the bundled schemas too."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_schema.codegen.bundled import bundled_schema
from acp_schema.codegen.schema_check import check_schema_document, check_schema_file

from .generated_packages import generate_package, refusal, with_method


def _value(schema: dict[str, Any]) -> dict[str, Any]:
    defs = {"Str": {"type": "string"}, "Num": {"type": "number"}, "Nothing": False}
    return with_method({"Value": schema, **defs})


def _tagged(tag: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"kind": {"type": "string", "const": tag}},
        "required": ["kind"],
    }


# name -> (Value's schema, the pointer under #/$defs/Value and the start of the problem)
UNENFORCED: dict[str, tuple[dict[str, Any], str, str]] = {
    "unique_items": ({"type": "array", "uniqueItems": True}, "", "uniqueItems:"),
    "dependent_required": (
        {"type": "object", "dependentRequired": {"a": ["b"]}},
        "",
        "dependentRequired:",
    ),
    "dependent_schemas": (
        {"dependentSchemas": {"a": {"required": ["b"]}}},
        "",
        "dependentSchemas:",
    ),
    "min_properties": ({"type": "object", "minProperties": 1}, "", "minProperties:"),
    "max_properties": ({"type": "object", "maxProperties": 3}, "", "maxProperties:"),
    "contains": ({"type": "array", "contains": {"type": "integer"}}, "", "contains:"),
    "prefix_items": ({"type": "array", "prefixItems": [{"type": "integer"}]}, "", "prefixItems:"),
    "if_then": (
        {"type": "object", "if": {"required": ["a"]}, "then": {"required": ["b"]}},
        "",
        "if/then/else:",
    ),
    "unevaluated": (
        {"type": "object", "unevaluatedProperties": False},
        "",
        "unevaluatedProperties:",
    ),
    "not": ({"type": "string", "not": {"const": "bad"}}, "", "not:"),
    "not_in_a_property": (
        {"type": "object", "properties": {"p": {"not": {"type": "null"}}}},
        "/properties/p",
        "not:",
    ),
    "one_of_overlapping_types": (
        {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 0}]},
        "",
        "oneOf members 0 and 1",
    ),
    "one_of_untyped": (
        {"oneOf": [{"type": "string"}, {"minLength": 2}]},
        "",
        "oneOf members 0 and 1",
    ),
    "one_of_shared_enum_value": (
        {"oneOf": [{"enum": ["a", "b"]}, {"enum": ["b", "c"]}]},
        "",
        "oneOf members 0 and 1",
    ),
    "all_of_beside_a_ref_to_a_string": (
        {"type": "string", "allOf": [{"$ref": "#/$defs/Str"}, {"pattern": "^a"}]},
        "",
        "allOf:",
    ),
    "all_of_object_from_a_number": (
        {
            "type": "object",
            "properties": {"k": {"type": "string"}},
            "allOf": [{"$ref": "#/$defs/Num"}],
        },
        "",
        "allOf:",
    ),
    # attack #2: `false` as a property was documented as "the key never valid", not enforced
    "false_property": (
        {"type": "object", "properties": {"a": {"type": "string"}, "never": False}},
        "/properties/never",
        "false:",
    ),
    "ref_to_false_property": (
        {"type": "object", "properties": {"never": {"$ref": "#/$defs/Nothing"}}},
        "/properties/never",
        "false:",
    ),
    # attack #3: the pattern's keys were checked against additionalProperties instead
    "pattern_properties_beside_properties": (
        {
            "type": "object",
            "properties": {"a": {"type": "string"}},
            "patternProperties": {"^x-": {"type": "integer"}},
        },
        "",
        "patternProperties beside properties:",
    ),
    "required_in_a_map": (
        {"type": "object", "patternProperties": {"^x-": {"type": "integer"}}, "required": ["x-a"]},
        "",
        'required: ["x-a"] not declared',
    ),
    "required_undeclared": ({"type": "object", "required": ["zz"]}, "", 'required: ["zz"]'),
    # an open union's fallback whose `not` leaves out one of the union's tags
    "not_other_than_the_tags": (
        {
            "anyOf": [
                _tagged("a"),
                _tagged("b"),
                {
                    "type": "object",
                    "properties": {"kind": {"type": "string"}},
                    "required": ["kind"],
                    "not": {"properties": {"kind": {"enum": ["a"]}}},
                },
            ]
        },
        "/anyOf/2",
        "not:",
    ),
}


@pytest.mark.parametrize("name", sorted(UNENFORCED))
def test_a_keyword_the_bindings_drop_is_a_problem_naming_pointer_and_keyword(name: str) -> None:
    schema, under, start = UNENFORCED[name]
    problems = check_schema_document(_value(schema))
    found = [(p.pointer, p.message) for p in problems]
    assert any(
        pointer == f"/$defs/Value{under}" and message.startswith(start)
        for pointer, message in found
    ), found
    assert all("cannot be generated" in message for _, message in found)


def test_generate_refuses_it_and_writes_nothing(tmp_path: Path) -> None:
    lines = refusal(_value({"type": "array", "uniqueItems": True}), tmp_path, "unique")
    assert lines == [
        f"{tmp_path / 'unique.json'}: #/$defs/Value: uniqueItems: the bindings do not enforce "
        "it; cannot be generated"
    ] or (len(lines) == 1 and "#/$defs/Value: uniqueItems:" in lines[0]), lines


# Shapes the bindings enforce (or that constrain nothing): no problem.
ENFORCED: dict[str, dict[str, Any]] = {
    "unique_items_false": {"type": "array", "uniqueItems": False},
    "min_properties_zero": {"type": "object", "minProperties": 0},
    "if_alone": {"if": {"type": "string"}},
    "unevaluated_true": {"type": "object", "unevaluatedProperties": True},
    "one_of_types": {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
    "one_of_through_refs": {"oneOf": [{"$ref": "#/$defs/Str"}, {"$ref": "#/$defs/Num"}]},
    "one_of_consts": {"oneOf": [{"const": "a"}, {"const": "b"}, {"const": 1}, {"const": True}]},
    "one_of_integral_float_is_the_integer": {"oneOf": [{"const": 1}, {"const": "1"}]},
    "one_of_tags": {"oneOf": [_tagged("a"), _tagged("b")]},
    "one_of_tags_beside_a_string": {"oneOf": [_tagged("a"), {"type": "string"}, _tagged("b")]},
    "one_of_with_false": {"oneOf": [False, {"type": "string"}]},
    "open_union": {
        "oneOf": [
            _tagged("a"),
            _tagged("b"),
            {
                "type": "object",
                "properties": {"kind": {"type": "string"}},
                "required": ["kind"],
                "not": {"anyOf": [_tagged("a"), _tagged("b")]},
            },
        ]
    },
    "required_from_a_base": {
        "type": "object",
        "properties": {"k": {"type": "string"}},
        "allOf": [{"$ref": "#/$defs/Obj"}],
        "required": ["k", "o"],
    },
    "a_map": {"type": "object", "patternProperties": {"^x-": {"type": "integer"}}},
    "all_of_wrapper": {"description": "d", "default": "x", "allOf": [{"$ref": "#/$defs/Str"}]},
    "all_of_objects": {
        "type": "object",
        "properties": {"k": {"type": "string"}},
        "allOf": [{"$ref": "#/$defs/Obj"}, {"type": "object", "properties": {"j": {}}}],
    },
}


@pytest.mark.parametrize("name", sorted(ENFORCED))
def test_a_shape_the_bindings_hold_is_clean(name: str) -> None:
    doc = _value(ENFORCED[name])
    doc["$defs"]["Obj"] = {"type": "object", "properties": {"o": {"type": "integer"}}}
    assert check_schema_document(doc) == []


def test_a_folded_union_is_a_warning_not_a_refusal() -> None:
    folded = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "anyOf": [{"required": ["a"]}, {"properties": {"b": {"type": "integer"}}}],
    }
    problems = check_schema_document(_value(folded), warnings=True)
    mine = [p for p in problems if "beside properties" in p.message]
    assert [(p.pointer, p.warning) for p in mine] == [("/$defs/Value", True)]
    assert mine[0].message.startswith("anyOf beside properties: folded")
    assert check_schema_document(_value(folded)) == []


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_bundled_schemas_warn_only_of_folded_unions(version: str) -> None:
    problems = check_schema_file(bundled_schema(version), warnings=True)
    assert problems and all(p.warning for p in problems)
    assert all(" beside properties: folded" in p.message for p in problems), problems


# --- x-deserialize-default-on-null (attack #7: every decode raised TypeError) ----------------

_ON_NULL = {"x-deserialize-default-on-null": True}


@pytest.mark.parametrize(
    "schema",
    [
        {"$ref": "#/$defs/Obj"},
        {"type": "object", "properties": {"a": {"type": "string"}}},
        {"type": "integer"},
        {"type": ["integer", "null"]},
        {"type": "string", "enum": ["a", "b"]},
        {"anyOf": [{"type": "array"}, {"type": "null"}]},
    ],
)
def test_default_on_null_without_an_empty_value_is_refused(schema: dict[str, Any]) -> None:
    doc = _value({"type": "object", "properties": {"p": {**schema, **_ON_NULL}}})
    doc["$defs"]["Obj"] = {"type": "object", "properties": {"o": {"type": "integer"}}}
    [problem] = check_schema_document(doc)
    assert problem.pointer == "/$defs/Value/properties/p"
    assert problem.message.startswith("x-deserialize-default-on-null only applies to")


def test_default_on_null_with_an_empty_value_decodes_null_to_it(tmp_path: Path) -> None:
    props = {
        "l": {"type": ["array", "null"], "items": {"type": "integer"}},
        "s": {"type": "string"},
        "m": {"type": "object", "additionalProperties": {"type": "integer"}},
    }
    value = {"type": "object", "properties": {k: {**v, **_ON_NULL} for k, v in props.items()}}
    doc = _value(value)
    assert check_schema_document(doc) == []
    message = generate_package(doc, tmp_path, "on_null").models.Message
    decoded = message.model_validate_json('{"value": {"l": null, "s": null, "m": null}}')
    assert (decoded.value.l, decoded.value.s, decoded.value.m) == ([], "", {})
    assert "l" not in message.model_validate_json('{"value": {}}').value.model_fields_set
