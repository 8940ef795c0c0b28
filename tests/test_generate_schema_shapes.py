"""`generate` on valid JSON Schema in the vocabulary ACP uses and its neighbours: integer
and mixed enums, recursion of any shape, boolean schemas, `$ref` to the root, escaped
pointers and pointers into properties, schema strings with backslashes; and what it refuses
(one line naming the pointer, nothing written): patterns only a backtracking engine runs,
enum values with no Python literal, an enum that allows nothing."""

from __future__ import annotations

import ast
import builtins
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from acp_schema.codegen.class_names import _PLAIN, RESERVED
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


# Spelt out as well as taken from RESERVED, so that the test does not lean on the list it tests.
_RUNTIME_LIKE_NAMES = sorted(RESERVED | {"JsonInteger", "MISSING", "WireEnum", "TypeAlias"})


def _named_like_the_generated_modules_own_names() -> dict[str, Any]:
    """`Value` holds a definition named after every name the generated modules import,
    define or use (class_names.RESERVED: the runtime's markers, `WireEnum`, typing and
    pydantic names), of three kinds in turn: an object, an array of integers, a string enum."""
    kinds: list[dict[str, Any]] = [
        {"type": "object", "properties": {"n": {"type": "integer"}}},
        {"type": "array", "items": {"type": "integer", "format": "uint8"}},
        {"enum": ["x", "y"]},
    ]
    names = _RUNTIME_LIKE_NAMES
    defs = {name: kinds[at % 3] for at, name in enumerate(names)}
    # the attack's cases: an object `JsonInteger` took the marker's place, silently
    defs |= {"JsonInteger": kinds[0], "MISSING": kinds[1], "WireEnum": kinds[2]}
    properties = {f"p{at}": ref(f"#/$defs/{name}") for at, name in enumerate(names)}
    value = {"type": "object", "properties": {**properties, "b": {"enum": [1, True]}}}
    return with_method({"Value": value, **defs})


def _runtime_names_value() -> dict[str, Any]:
    examples: list[Any] = [{"n": 1}, [0, 255], "y"]
    kind = {"JsonInteger": 0, "MISSING": 1, "WireEnum": 2}
    names = _RUNTIME_LIKE_NAMES
    return {
        **{f"p{at}": examples[kind.get(name, at % 3)] for at, name in enumerate(names)},
        "b": True,
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
    # #1/#13 of the schema attack: a definition named `JsonInteger` replaced the marker
    # (`1.0` decoded as `true`), `WireEnum` broke mypy.
    "runtime_names": (_named_like_the_generated_modules_own_names(), [_runtime_names_value()]),
    # attack #11: the field `with_a` hid the builder of `a` (and mypy saw a redefinition)
    "builder_clash": (
        with_method(
            {
                "Value": {
                    "type": "object",
                    "properties": {
                        "a": {"type": "integer"},
                        "with_a": {"type": "string"},
                        "with_a_": {"type": "boolean"},
                    },
                }
            }
        ),
        [{"a": 1, "with_a": "x", "with_a_": True}],
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


def test_definitions_named_like_runtime_names_leave_the_runtime_alone(
    packages: dict[str, Generated],
) -> None:
    message = packages["runtime_names"].models.Message
    at = {name: f"p{at}" for at, name in enumerate(_RUNTIME_LIKE_NAMES)}
    text = f'{{"b": 1.0, "{at["JsonInteger"]}": {{"n": 2.0}}, "{at["MISSING"]}": [3.0]}}'
    value = message.model_validate_json(f'{{"value": {text}}}').value
    assert value.b == 1 and type(value.b) is int  # JsonInteger() is the marker still
    assert type(getattr(value, at["JsonInteger"]).n) is int
    assert getattr(value, at["MISSING"]) == [3]
    refusals = ['{"b": 2}', f'{{"{at["MISSING"]}": [256]}}', f'{{"{at["WireEnum"]}": "z"}}']
    for refused in refusals:
        with pytest.raises(ValidationError):
            message.model_validate_json(f'{{"value": {refused}}}')


def _bound_or_used_names(source: str) -> set[str]:
    """The names a generated module imports (absolute imports: its own modules import
    the schema's classes) or uses from builtins."""
    tree = ast.parse(source)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            names.update(alias.asname or alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Name) and hasattr(builtins, node.id):
            names.add(node.id)
    return names


def test_every_name_the_generated_modules_import_is_reserved(packages: _Packages) -> None:
    """A class name a generated module imports or takes from builtins would be shadowed by
    a definition of that name: each one a definition could get is reserved."""
    generated = packages["runtime_names"]
    bundled = Path(__file__).parents[1] / "generated"
    folders = [generated.root / generated.name, *bundled.iterdir()]
    modules = [p for folder in folders if folder.is_dir() for p in folder.glob("*.py")]
    assert len(modules) >= 10
    names = set().union(*(_bound_or_used_names(p.read_text("utf-8")) for p in modules))
    assert {"JsonInteger", "WireEnum", "AcpModel", "Method"} <= names
    assert {name for name in names if _PLAIN.fullmatch(name)} - RESERVED == set()


def test_a_builder_named_like_a_field_steps_aside(packages: dict[str, Generated]) -> None:
    value_class = packages["builder_clash"].models.Value
    value = value_class.model_validate({"a": 1, "with_a": "x", "with_a_": False})
    assert value.with_a == "x" and value.with_a_ is False  # the fields, untouched
    assert value.with_a__(2).a == 2  # `a`'s builder: `_` until the name is free
    assert value.with_with_a("y").with_a == "y"
    assert value.with_with_a_(True).with_a_ is True


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
    # attack #12: past 64 bits the Literal failed mypy --strict
    "enum_past_64_bits": (
        with_method({"Value": {"enum": [1, 9223372036854775808]}}),
        "#/$defs/Value: enum value 9223372036854775808 cannot be generated",
    ),
    "const_minus_2_63": (
        with_method({"Value": {"const": -9223372036854775808}}),
        "#/$defs/Value: const value -9223372036854775808 cannot be generated",
    ),
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
