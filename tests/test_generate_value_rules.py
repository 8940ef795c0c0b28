"""The rules behind `generate` on integer and mixed enums, recursive unions and refused
schemas, one function at a time (the end-to-end cases are in test_generate_schema_shapes):
the pre-pass's value rewrites, the refusals of `schema_generation`, the literal rule of
`JsonInteger`, `TagDispatch` with classes defined later, the post-pass's literals and
imports."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import libcst as cst
import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from acp_schema._runtime import JsonInteger, TagDispatch
from acp_schema.codegen.generate.module_level import (
    RUNTIME_MODULE,
    defines,
    literal_of_values,
    with_own_imports,
)
from acp_schema.codegen.generate.postpass import _quoted
from acp_schema.codegen.generate.value_rewrites import rewrite_values
from acp_schema.codegen.schema_generation import (
    check_generation,
    pattern_refusal,
    pattern_search,
)
from acp_schema.codegen.schema_refs import Unresolvable, ref_target, resolve_ref


def rewritten(node: dict[str, Any]) -> dict[str, Any]:
    schema = {"$defs": {"V": node}}
    rewrite_values(schema)
    return schema["$defs"]["V"]


@pytest.mark.parametrize(
    ("node", "expected"),
    [
        ({"enum": ["a", "b"]}, {"enum": ["a", "b"]}),  # a string enum keeps its class
        (
            {"type": "integer", "enum": [1, 2]},
            {"type": "integer", "enum": [1, 2], "x-enum-field-as-literal": True},
        ),
        # the type rules out "a"; 2.0 is 2 and equal to the 2 before it; true is no number
        (
            {"type": ["integer", "boolean"], "enum": [1, "a", 2, 2.0, True]},
            {
                "type": ["integer", "boolean"],
                "enum": [1, 2, True],
                "x-enum-field-as-literal": True,
            },
        ),
        (
            {"type": "number", "enum": [1, 1.0]},
            {"type": "number", "enum": [1], "x-enum-field-as-literal": True},
        ),
        ({"enum": [None, 0, False]}, {"enum": [None, 0, False], "x-enum-field-as-literal": True}),
        ({"const": 3.0}, {"const": 3}),
        ({"const": 3.5}, {"const": 3.5}),
        (
            {
                "anyOf": [
                    {"const": 1, "title": "One"},
                    {"const": "x"},
                    {"type": "string", "const": 5},
                ]
            },
            {"enum": [1, "x"], "x-enum-field-as-literal": True},
        ),
        ({"oneOf": [{"const": "a"}, {"const": "b"}]}, {"oneOf": [{"const": "a"}, {"const": "b"}]}),
        (
            {"anyOf": [{"const": 1}, {"type": "string"}]},
            {"anyOf": [{"const": 1}, {"type": "string"}]},
        ),
        (
            {"enum": [1], "anyOf": [{"const": 1}]},
            {"enum": [1], "anyOf": [{"const": 1}], "x-enum-field-as-literal": True},
        ),
        ({"anyOf": [False, {"type": "integer"}, False]}, {"anyOf": [{"type": "integer"}]}),
        ({"oneOf": [{"type": "string"}, False]}, {"oneOf": [{"type": "string"}]}),
        (
            {"oneOf": [{"const": 1, "description": "one", "$comment": "c"}, {"const": None}]},
            {"enum": [1, None], "x-enum-field-as-literal": True},
        ),
        # each JSON kind is kept where the type allows it (fractions, arrays and objects
        # are refused by the checks before the pre-pass, but the rule is the type's)
        (
            {"type": ["integer", "null", "string"], "enum": [1, None, "a", True]},
            {
                "type": ["integer", "null", "string"],
                "enum": [1, None, "a"],
                "x-enum-field-as-literal": True,
            },
        ),
        (
            {"type": "number", "enum": [2.5, "a"]},
            {"type": "number", "enum": [2.5], "x-enum-field-as-literal": True},
        ),
        (
            {"type": "array", "enum": [[1], {"a": 1}]},
            {"type": "array", "enum": [[1]], "x-enum-field-as-literal": True},
        ),
        (
            {"type": "object", "enum": [[1], {"a": 1}]},
            {"type": "object", "enum": [{"a": 1}], "x-enum-field-as-literal": True},
        ),
        ({"oneOf": [False]}, {"oneOf": [False]}),  # refused by the checks, left alone
    ],
)
def test_value_rewrites(node: dict[str, Any], expected: dict[str, Any]) -> None:
    assert rewritten(node) == expected


def test_value_rewrites_reach_every_node_and_keep_integers_integers() -> None:
    schema: dict[str, Any] = {
        "$defs": {
            "Strings": {"anyOf": [{"const": "a"}, {"const": "b"}]},
            "Numbers": {"anyOf": [{"const": 1}, {"const": 2}]},
            "Whole": {"const": 3.0},
            "Full": {
                "oneOf": [
                    {
                        "const": 4.0,
                        "type": "integer",
                        "title": "t",
                        "description": "d",
                        "$comment": "c",
                    }
                ]
            },
            "Both": {"const": 1, "anyOf": [{"const": 1}]},
        }
    }
    rewrite_values(schema)
    defs = schema["$defs"]
    assert defs["Strings"] == {"anyOf": [{"const": "a"}, {"const": "b"}]}
    assert defs["Numbers"] == {"enum": [1, 2], "x-enum-field-as-literal": True}
    assert type(defs["Whole"]["const"]) is int
    assert defs["Full"] == {"enum": [4], "x-enum-field-as-literal": True}
    assert type(defs["Full"]["enum"][0]) is int
    assert defs["Both"] == {"const": 1, "anyOf": [{"const": 1}]}


def test_an_enum_the_type_empties_stays_for_the_checks_to_refuse() -> None:
    assert rewritten({"type": "integer", "enum": ["a"]}) == {"type": "integer", "enum": ["a"]}
    assert rewritten({"type": "string", "enum": [1]}) == {"type": "string", "enum": []}


@pytest.mark.parametrize(
    ("pattern", "refused"),
    [
        ("^[a-z]+$", None),
        ("^(a+)+$", None),  # fine for a linear-time engine
        ("^(?!a)b", "look-around"),
        ("(?<=a)b", "look-around"),
        ("(a)\\1", "backreferences"),
        ("a{1000}{1000}", "size limit"),
        ("(", "unclosed"),
    ],
)
def test_patterns_are_judged_by_the_linear_time_engine(pattern: str, refused: str | None) -> None:
    reason = pattern_refusal(pattern)
    if refused is None:
        assert reason is None
    else:
        assert reason is not None and refused in reason and "\n" not in reason
        assert not reason.startswith(("error:", "SchemaError:"))  # the engine's words only


def test_a_refused_pattern_says_why_in_one_line() -> None:
    (problem,) = check_generation("/p", {"pattern": "a(?=b)"})
    assert problem.message == (
        'pattern "a(?=b)" cannot be generated: pydantic\'s linear-time regex engine refuses '
        "it (look-around, including look-ahead and look-behind, is not supported), and its "
        "fallback, Python's backtracking re, can take exponential time"
    )
    (problem,) = check_generation("/p", {"enum": [0.5]})
    assert problem.message == (
        "enum value 0.5 cannot be generated: the bindings hold enum and const values that "
        "are strings, integers, booleans or null"
    )


def test_pattern_search_is_a_search_and_linear() -> None:
    assert pattern_search("b", "abc") is True
    assert pattern_search("^b", "abc") is False
    assert pattern_search("^(a+)+$", "a" * 10_000 + "b") is False  # no backtracking
    assert pattern_search("(?!a)", "abc") is None


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"pattern": "(?!x)"}, 'pattern "(?!x)" cannot be generated'),
        ({"patternProperties": {"ok": {}, "(a)\\1": {}}}, "patternProperties key"),
        ({"enum": ["a", 2.5]}, "enum value 2.5 cannot be generated"),
        ({"enum": [{"a": 1}, [1]]}, 'enum value {"a": 1} cannot be generated'),
        ({"const": [1]}, "const value [1] cannot be generated"),
        ({"enum": []}, "an empty enum"),
        (
            {"type": ["integer", "null"], "enum": ["a", True]},
            'no enum value has the type ["integer", "null"]',
        ),
        ({"oneOf": [False, False]}, "every oneOf member is false"),
        ({"pattern": "(?!x)", "patternProperties": {"ok": {}}}, 'pattern "(?!x)"'),
        ({"const": [1], "enum": ["a"]}, "const value [1]"),
        ({"type": "boolean", "enum": ["true"]}, 'no enum value has the type "boolean"'),
        ({"type": "number", "enum": ["1"]}, 'no enum value has the type "number"'),
        ({"anyOf": [False]}, "every anyOf member is false"),
    ],
)
def test_what_cannot_be_generated_is_one_problem_at_the_pointer(
    schema: dict[str, Any], message: str
) -> None:
    (problem,) = check_generation("/$defs/V", schema)
    assert problem.pointer == "/$defs/V" and message in problem.message
    assert not problem.warning


@pytest.mark.parametrize(
    "schema",
    [
        {"pattern": "^[A-Z]{3}$"},
        {"type": "boolean", "enum": [True]},
        {"type": "integer", "enum": [1]},
        {"type": "null", "enum": [None]},
        {"type": "string", "enum": ["a"]},
        {"type": ["string", "integer"], "enum": [3]},
        {"enum": [1, "a", None, True, 2.0]},
        {"type": "number", "enum": [1]},
        {"type": "integer", "enum": [2.0]},
        {"const": -0.0},
        {"anyOf": [False, {}]},
        {"oneOf": []},  # the meta-schema's to report
        {"enum": "x"},
        {"pattern": 5},
    ],
)
def test_what_can_be_generated_is_no_problem(schema: dict[str, Any]) -> None:
    assert check_generation("", schema) == []


@pytest.mark.parametrize(
    ("ref", "target"),
    [
        ("#/$defs/A~1B", ("$defs", "A/B")),
        ("#/$defs/A%7E0B", ("$defs", "A~B")),
        ("#/definitions/X", ("definitions", "X")),
        ("#/$defs/X/properties/y", None),
        ("#", None),
        ("#anchor", None),
        ("other.json#/$defs/X", None),
        (5, None),
    ],
)
def test_ref_target(ref: object, target: tuple[str, str] | None) -> None:
    assert ref_target(ref) == target


def test_resolve_ref() -> None:
    doc: dict[str, Any] = {"$defs": {"A/B": {"type": "string"}, "L": {"items": [True, False]}}}
    assert resolve_ref(doc, "#") is doc
    assert resolve_ref(doc, "#/$defs/A~1B") == {"type": "string"}
    assert resolve_ref(doc, "#/$defs/A%7E1B/type") == "string"
    assert resolve_ref(doc, "#/$defs/L/items/1") is False
    for bad in ("#anchor", "x.json#/$defs/A~1B"):
        with pytest.raises(Unresolvable, match=r"^not a JSON pointer into this document$"):
            resolve_ref(doc, bad)
    for bad in ("#/$defs/nope", "#/$defs/L/items/2", "#/$defs/A~2"):
        with pytest.raises(Unresolvable):
            resolve_ref(doc, bad)


# --- the runtime: literals compared as JSON Schema, TagDispatch with later classes -------


LITERAL = TypeAdapter(Annotated[Literal[1, True, 0, "a", -5] | None, JsonInteger()])


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1", 1),
        ("1.0", 1),
        ("true", True),
        ("0", 0),
        ("0.0", 0),
        ('"a"', "a"),
        ("null", None),
        ("-5", -5),
    ],
)
def test_a_literal_of_values_takes_json_equal_values(text: str, value: Any) -> None:
    decoded = LITERAL.validate_json(text)
    assert decoded == value and type(decoded) is type(value)
    python = LITERAL.validate_python(value)
    assert python == value and type(python) is type(value)


@pytest.mark.parametrize("text", ["false", "2", "1.5", '"1"', '"true"', "[1]", '{"a": 1}', "-5.5"])
def test_a_literal_of_values_refuses_the_rest(text: str) -> None:
    with pytest.raises(ValidationError) as caught:
        LITERAL.validate_json(text)
    (error,) = caught.value.errors()
    assert (error["type"], error["msg"]) == (
        "literal_error",
        'Input should be one of: 1, true, 0, "a", -5',
    )


@pytest.mark.parametrize(
    ("text", "ok"),
    [("-32700", True), ("-32700.0", True), ("5", True), ("true", False), ('"5"', False)],
)
def test_a_literal_without_boolean_look_alikes_keeps_pydantic_s_check(text: str, ok: bool) -> None:
    adapter = TypeAdapter(Annotated[Literal[-32700, 5], JsonInteger()])
    assert adapter.core_schema["type"] == "literal"  # no Python call per value
    if ok:
        assert adapter.validate_json(text) in (-32700, 5)
    else:
        with pytest.raises(ValidationError):
            adapter.validate_json(text)


@pytest.mark.parametrize("literal", [Literal[True], Literal[0, 7], Literal[1]])
def test_a_literal_with_boolean_look_alikes_gets_the_json_rule(literal: Any) -> None:
    adapter = TypeAdapter(Annotated[literal, JsonInteger()])
    assert adapter.core_schema["type"] == "function-before"


def test_string_literals_keep_pydantic_s_own_rule() -> None:
    adapter = TypeAdapter(Annotated[Literal["a", "b"], JsonInteger()])
    assert adapter.validate_json('"a"') == "a"
    with pytest.raises(ValidationError) as caught:
        adapter.validate_json("1")
    assert "literal_error" in repr(caught.value.errors())


def test_tag_dispatch_takes_classes_defined_later() -> None:
    namespace: dict[str, Any] = {}
    exec(  # a recursive tagged union, as the post-pass writes it
        "from typing import Annotated, Literal, Union\n"
        "from typing_extensions import TypeAliasType\n"
        "from pydantic import BaseModel\n"
        "from acp_schema._runtime import TagDispatch\n"
        "class Leaf(BaseModel):\n"
        "    kindOf: Literal['leaf'] = 'leaf'\n"
        "Tree = TypeAliasType('Tree', Annotated[Union[Leaf, 'Node', 'Other'], TagDispatch("
        "'kindOf', 'kindOf', lambda: {'leaf': Leaf, 'node': Node}, other=lambda: Other)])\n"
        "class Node(BaseModel):\n"
        "    kindOf: Literal['node'] = 'node'\n"
        "    kids: list[Tree] = []\n"
        "class Other(BaseModel, extra='allow'):\n"
        "    kindOf: str\n"
        "Node.model_rebuild()\n",
        namespace,
    )
    node = namespace["Node"]
    decoded = node.model_validate_json(
        '{"kids": [{"kindOf": "leaf"}, {"kindOf": "node", "kids": []}, {"kindOf": "x", "a": 1}]}'
    )
    kinds = [type(kid).__name__ for kid in decoded.kids]
    assert kinds == ["Leaf", "Node", "Other"]
    with pytest.raises(ValidationError):  # a known tag does not fall back to Other
        node.model_validate_json(
            '{"kids": [{"kindOf": "leaf", "extra": 1, "kids": 5}, {"kindOf": "node", "kids": 5}]}'
        )
    marker = TagDispatch("k", "k", lambda: {"a": int}, other=lambda: BaseModel)
    assert marker.variants == {"a": int} and marker.other is BaseModel
    eager = TagDispatch("k", "k", {"a": int})
    assert eager.variants == {"a": int} and eager.other is None


# --- the post-pass: literals, imports, names ---------------------------------------------


@pytest.mark.parametrize(
    "text", ["plain", "tag\\b", "end\\", 'q"uote', "it's", "both'\"", "nul\x00", "new\nline", "é"]
)
def test_quoted_is_a_literal_of_the_text(text: str) -> None:
    literal = _quoted(text)
    node = cst.parse_expression(literal)
    assert isinstance(node, cst.SimpleString) and node.evaluated_value == text
    if '"' not in text:
        assert literal.startswith('"')


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ('Literal["a", "b"]', False),
        ("Literal[1]", True),
        ('Literal["a", True]', True),
        ("Literal[-5]", True),
        ('Literal["a" "b"]', False),
    ],
)
def test_literal_of_values(code: str, expected: bool) -> None:
    assert literal_of_values(cst.parse_expression(code)) is expected


def test_own_imports_go_after_the_leading_imports() -> None:
    module = cst.parse_module(
        "from __future__ import annotations\nimport x\n\nclass A:\n    pass\n"
    )
    done = with_own_imports(module, {"Annotated"}, union=True).code
    lines = done.splitlines()
    assert lines[:2] == ["from __future__ import annotations", "import x"]
    assert RUNTIME_MODULE == "acp_schema._runtime"
    assert lines[2:5] == [
        "from acp_schema._runtime import MISSING, DefaultOnError, DefaultOnNull, JsonInteger, "
        "SkipInvalidItems, TagDispatch, WireEnum",
        "from typing_extensions import Self",
        "from typing import Union",
    ]
    assert "from typing import Annotated" not in done
    everything = {RUNTIME_MODULE, "Self", "Annotated", "Union"}
    assert with_own_imports(module, everything, union=True) is module
    assert "Union" not in with_own_imports(module, {RUNTIME_MODULE, "Self"}, union=False).code


def test_defines() -> None:
    module = cst.parse_module("class A: pass\nB = C = 1\nx: int = 2\nimport y\na.b = 3\n")
    assert [list(defines(statement)) for statement in module.body] == [
        ["A"],
        ["B", "C"],
        [],
        [],
        [],
    ]
