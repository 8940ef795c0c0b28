"""`generate` on valid JSON Schema in the vocabulary ACP uses and its neighbours: integer
and mixed enums, recursion of any shape, boolean schemas, `$ref` to the root, escaped
pointers and pointers into properties, schema strings with backslashes; and what it refuses
(one line naming the pointer, nothing written): patterns only a backtracking engine runs,
enum values with no Python literal, an enum that allows nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from acp_schema.codegen.schema_check import check_schema_document

from .generated_packages import Generated, generate_package, refusal, round_trip, with_method
from .release_matrix import mypy_strict


def ref(pointer: str) -> dict[str, str]:
    return {"$ref": pointer}


def tagged(key: str, tag: str, **props: Any) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {key: {"type": "string", "const": tag}, **props},
        "required": [key],
    }


# name -> (schema, valid values of `Message.value`)
SHAPES: dict[str, tuple[dict[str, Any], list[Any]]] = {
    "integer_enum": (with_method({"Value": {"type": "integer", "enum": [1, 2, 3]}}), [1, 3]),
    "mixed_enum": (
        with_method({"Value": {"enum": [1, "a", None, True, 0, False, -5]}}),
        [1, "a", None, True, 0, False, -5],
    ),
    "typed_mixed_enum": (
        with_method({"Value": {"type": ["integer", "null"], "enum": [1, "a", None, 2.0]}}),
        [1, None, 2],
    ),
    # the generator makes an enum of a union of consts: as an `enum`, it is a Literal
    "const_union": (
        with_method(
            {
                "Value": {
                    "oneOf": [
                        {"const": 3, "title": "Three"},
                        {"const": "x"},
                        {"const": True},
                        {"type": "string", "const": 5},  # its own type rules 5 out
                    ]
                }
            }
        ),
        [3, "x", True],
    ),
    "consts": (
        with_method(
            {
                "Value": {
                    "type": "object",
                    "properties": {"b": {"const": True}, "n": {"const": 3}, "z": {"const": None}},
                }
            }
        ),
        [{"b": True, "n": 3, "z": None}, {}],
    ),
    "mutual_aliases": (
        with_method(
            {
                "Value": {"type": "array", "items": ref("#/$defs/Other")},
                "Other": {"type": "array", "items": ref("#/$defs/Value")},
            }
        ),
        [[], [[[]], []]],
    ),
    "mutual_union_and_map": (
        with_method(
            {
                "Value": {"type": "object", "additionalProperties": ref("#/$defs/Other")},
                "Other": {"anyOf": [ref("#/$defs/Value"), {"type": "null"}, {"type": "number"}]},
            }
        ),
        [{"a": {"b": None, "c": 1.5}}],
    ),
    "mutual_objects": (
        with_method(
            {
                "Value": {"type": "object", "properties": {"b": ref("#/$defs/Other")}},
                "Other": {"type": "object", "properties": {"a": ref("#/$defs/Value")}},
            }
        ),
        [{"b": {"a": {"b": {}}}}],
    ),
    "recursive_tagged_union": (
        with_method(
            {
                "Value": {
                    "oneOf": [
                        tagged("kindOf", "leaf"),
                        tagged("kindOf", "node", kids={"type": "array", "items": ref("#")}),
                        {
                            "type": "object",
                            "properties": {"kindOf": {"type": "string"}, "x": ref("#/$defs/Value")},
                            "required": ["kindOf"],
                            "not": {"properties": {"kindOf": {"enum": ["leaf", "node"]}}},
                        },
                    ]
                }
            },
            # the root is a Value too: `kids` refers to the root
            **{"$ref": "#/$defs/Value"},
        ),
        [
            {
                "kindOf": "node",
                "kids": [{"kindOf": "leaf"}, {"kindOf": "zz", "x": {"kindOf": "leaf"}}],
            },
        ],
    ),
    "root_ref": (
        with_method(
            {"Value": {"anyOf": [ref("#"), {"type": "null"}]}},
            type="object",
            properties={"inner": ref("#/$defs/Value")},
        ),
        [None, {"inner": {"inner": None}}],
    ),
    "boolean_definitions": (
        with_method(
            {
                "Value": {
                    "type": "object",
                    "properties": {
                        "any": ref("#/$defs/Anything"),
                        "t": True,
                        "n": {"oneOf": [False, {"type": "integer"}, ref("#/$defs/Nothing")]},
                    },
                },
                "Anything": True,
                "Nothing": False,
            }
        ),
        [{"any": [1, {"a": None}], "t": "x", "n": 2}],
    ),
    "escaped_and_inner_pointers": (
        with_method(
            {
                "Value": {
                    "type": "object",
                    "properties": {
                        "slash": ref("#/$defs/A~1B"),
                        "tilde": ref("#/$defs/T~0ilde"),
                        "inner": ref("#/$defs/Holder/properties/count"),
                    },
                },
                "A/B": {"type": "string"},
                "T~ilde": {"type": "integer"},
                "Holder": {"type": "object", "properties": {"count": {"type": "integer"}}},
            }
        ),
        [{"slash": "s", "tilde": 1, "inner": 2}],
    ),
    # Schema text with backslashes reaches the generated code only through a proper
    # literal: `tag\b` is not a backspace, a trailing `\` no syntax error.
    "backslash_tags": (
        with_method(
            {
                "Value": {
                    "oneOf": [
                        tagged("kind", "tag\\b", body={"type": "string"}),
                        tagged("kind", "end\\"),
                        tagged("kind", 'q"uote'),
                    ]
                }
            }
        ),
        [{"kind": "tag\\b", "body": "x"}, {"kind": "end\\"}, {"kind": 'q"uote'}],
    ),
    "backslash_tag_key": (
        with_method({"Value": {"oneOf": [tagged("k\\", "a"), tagged("k\\", "b\\n")]}}),
        [{"k\\": "a"}, {"k\\": "b\\n"}],
    ),
    "closed_object": (
        with_method(
            {
                "Value": {
                    "type": "object",
                    "properties": {"a": {"type": "string"}},
                    "additionalProperties": False,
                }
            }
        ),
        [{"a": "x"}, {}],
    ),
    "typed_extras": (
        with_method(
            {
                "Value": {
                    "type": "object",
                    "properties": {"a": {"type": "string"}},
                    "additionalProperties": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                }
            }
        ),
        [{"a": "x", "n": 1, "z": None}, {}],
    ),
    "no_optional_field": (
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$defs": {
                "Message": {
                    "type": "object",
                    "properties": {"value": {"type": "integer"}},
                    "required": ["value"],
                    "x-method": "probe",
                    "x-side": "agent",
                }
            },
        },
        [0, 7],
    ),
}


class _Packages(dict[str, Generated]):
    """The package of each shape, generated when a test first asks for it (so that a
    selection of tests generates only what it uses)."""

    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def __missing__(self, name: str) -> Generated:
        self[name] = generate_package(SHAPES[name][0], self.root, f"shape_{name}")
        return self[name]


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> _Packages:
    return _Packages(tmp_path_factory.mktemp("shapes"))


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_valid_schema_is_checked_clean_and_its_values_round_trip(
    name: str, packages: dict[str, Generated]
) -> None:
    schema, values = SHAPES[name]
    assert check_schema_document(schema) == []
    message = packages[name].models.Message
    for value in values:
        assert round_trip(message, value) == {"value": value}


def test_the_generated_packages_are_mypy_strict_clean(packages: _Packages) -> None:
    names = sorted(packages[name].name for name in SHAPES)
    assert mypy_strict(packages.root, names) == {}


@pytest.mark.parametrize(
    ("name", "refused"),
    [
        ("integer_enum", [True, 4, 1.5, "1"]),
        ("mixed_enum", ["1", 1.5, 2, [1]]),
        ("typed_mixed_enum", ["a", True]),
        ("const_union", [5, 1, "3"]),
        ("closed_object", [{"b": 1}, {"a": 1}]),
        ("typed_extras", [{"n": "1"}, {"n": True}, {"n": 1.5}]),
        ("backslash_tags", [{"kind": "tag\b"}, {"kind": "end"}]),
    ],
)
def test_values_outside_an_enum_or_tag_are_refused(
    name: str, refused: list[Any], packages: dict[str, Generated]
) -> None:
    message = packages[name].models.Message
    for value in refused:
        with pytest.raises(ValidationError):
            message.model_validate_json(json.dumps({"value": value}))
        with pytest.raises(ValidationError):
            message.model_validate({"value": value})


def test_enum_values_compare_as_json_schema_does(packages: dict[str, Generated]) -> None:
    message = packages["mixed_enum"].models.Message
    # 1.0 is the integer 1; true is not 1 and 1 is not true (Python says both are equal)
    assert round_trip(message, 1.0) == {"value": 1}
    assert message.model_validate_json('{"value": true}').value is True
    assert type(message.model_validate_json('{"value": 1}').value) is int
    assert message.model_validate_json('{"value": false}').value is False
    assert type(message.model_validate_json('{"value": 0}').value) is int


def test_a_string_enum_keeps_its_class(tmp_path: Path) -> None:
    schema = with_method({"Value": {"enum": ["x", "y"]}})
    models = generate_package(schema, tmp_path, "string_enum").models
    assert models.Message.model_validate({"value": "x"}).value is models.Value.x


# name -> (schema, the pointer and words of the one-line refusal)
REFUSED: dict[str, tuple[dict[str, Any], str]] = {
    "look_ahead_pattern": (
        with_method({"Value": {"type": "string", "pattern": "^(?!a)(a|b)+$"}}),
        "#/$defs/Value: pattern",
    ),
    "look_behind_in_a_property": (
        with_method(
            {
                "Value": {
                    "type": "object",
                    "properties": {"p": {"type": "string", "pattern": "(?<=a)b"}},
                }
            }
        ),
        "#/$defs/Value/properties/p: pattern",
    ),
    "backreference_key": (
        with_method({"Value": {"type": "object", "patternProperties": {"(a)\\1": {}}}}),
        "#/$defs/Value: patternProperties key",
    ),
    "fraction_in_enum": (with_method({"Value": {"enum": [1, 2.5]}}), "#/$defs/Value: enum value"),
    "object_const": (with_method({"Value": {"const": {"a": 1}}}), "#/$defs/Value: const value"),
    "array_in_enum": (with_method({"Value": {"enum": ["a", [1]]}}), "#/$defs/Value: enum value"),
    "empty_enum": (with_method({"Value": {"enum": []}}), "#/$defs/Value: an empty enum"),
    "union_of_false": (
        with_method({"Value": {"anyOf": [False]}}),
        "#/$defs/Value: every anyOf member is false",
    ),
    "enum_outside_its_type": (
        with_method({"Value": {"type": "integer", "enum": ["a"]}}),
        "#/$defs/Value: no enum value has the type",
    ),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_the_bindings_cannot_hold_is_refused_in_one_line(name: str, tmp_path: Path) -> None:
    schema, expected = REFUSED[name]
    lines = refusal(schema, tmp_path, name)
    assert len(lines) == 1 and expected in lines[0], lines
    assert "cannot be generated" in lines[0]
    problems = check_schema_document(schema)  # `schema check` says it first
    assert [f"#{p.pointer}: {p.message}" for p in problems] == [lines[0].split(": ", 1)[1]]
