"""Hypothesis strategies for whole SCHEMAS in ACP's vocabulary and its neighbours, and for
instances of them; the property in tests/test_generate_drawn_schemas.py feeds them to
`generate`.

A drawn document has definitions (names with `/`, `~` and backslashes among them, refs
spelt with `~1`/`~0`/percent escapes), a `Message` definition carrying `x-method`/`x-side`
whose `value` property holds the rest: objects (optional and required properties, odd
property names, `additionalProperties`, `x-deserialize-*`), arrays, tagged unions (open
ones with a `not`-guarded Other variant too), plain unions, nullable types, string /
integer / mixed enums and consts, patterns (some only a backtracking engine runs), boolean
schemas, refs to other definitions, to the root and into properties, and recursion through
any of them. Some drawn schemas are ones the bindings refuse (a look-ahead, an enum
fraction): the property expects a one-line refusal for those.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from hypothesis import strategies as st

from acp_schema.codegen.schema_check import escape

DRAFT = "https://json-schema.org/draft/2020-12/schema"
# Definition names with distinct class names (the class-name rule), some needing escapes.
# `JsonInteger` and `WireEnum` are runtime names the generated modules import (reserved).
DEF_NAMES = [
    "Alpha", "Beta/Two", "Gamma~Three", "Delta\\Four", "epsilon five", "JsonInteger", "WireEnum",
]  # fmt: skip
PROPERTY_NAMES = ["a", "camelCase", "snake_name", "_meta", "tag\\b", "end\\", 'q"uote', "x-y"]
TAG_VALUES = ["one", "two_words", "tag\\b", "end\\", "q'\"", "three"]
PATTERNS = ["^[a-z]+$", "^(a+)+$", "\\d", "^[A-Z]{3}$", "^(?!x)", "(a)\\1", "(?<=a)b"]
ENUMS = [
    ["x", "y"],
    [1, 2, 3],
    [0, 1, True, False],
    [1, "a", None],
    [-5, 2.0],
    [1, 2.5],
    [],
]
SCALARS: list[dict[str, Any]] = [
    {"type": "string"},
    {"type": "string", "minLength": 1, "maxLength": 4},
    {"type": "integer"},
    {"type": "integer", "format": "uint16", "minimum": 0},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "null"},
    {"type": ["string", "null"]},
    {},
]


def ref_to(name: str) -> st.SearchStrategy[dict[str, str]]:
    """A ref to definition `name`, spelt as RFC 6901 or with percent escapes as well."""
    token = escape(name)
    return st.sampled_from([f"#/$defs/{token}", f"#/$defs/{quote(token, safe='')}"]).map(
        lambda ref: {"$ref": ref}
    )


class SchemaDrawing:
    def __init__(self, names: list[str]) -> None:
        self.names = names  # the definitions a node may refer to

    def node(self, depth: int) -> st.SearchStrategy[Any]:
        leaves: list[st.SearchStrategy[Any]] = [
            st.sampled_from(SCALARS),
            st.sampled_from(ENUMS).map(lambda values: {"enum": values}),
            st.sampled_from([3, "fixed", True, None]).map(lambda value: {"const": value}),
            st.sampled_from(PATTERNS).map(lambda p: {"type": "string", "pattern": p}),
            st.booleans(),
            st.just({"$ref": "#"}),
        ]
        leaves += [ref_to(name) for name in self.names]
        if depth <= 0:
            return st.one_of(leaves)
        inner = self.node(depth - 1)
        return st.one_of(
            *leaves,
            self.object(inner),
            st.builds(lambda items: {"type": "array", "items": items}, inner),
            st.builds(
                lambda items: {
                    "type": "array",
                    "items": items,
                    "x-deserialize-skip-invalid-items": True,
                },
                inner,
            ),
            st.lists(inner, min_size=1, max_size=3).map(lambda members: {"anyOf": members}),
            # a oneOf is generated only when its members exclude each other; uniqueItems and
            # patternProperties beside properties are refused (not enforced by the bindings)
            st.lists(inner, min_size=2, max_size=2).map(lambda members: {"oneOf": members}),
            st.builds(lambda items: {"type": "array", "items": items, "uniqueItems": True}, inner),
            st.builds(
                lambda node: {**node, "patternProperties": {"^x-": {"type": "integer"}}},
                self.object(inner),
            ),
            st.builds(lambda member: {"anyOf": [member, {"type": "null"}]}, inner),
            self.tagged_union(inner),
        )

    def object(self, inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
        def build(props: dict[str, Any], required: list[str], extra: Any) -> dict[str, Any]:
            node: dict[str, Any] = {"type": "object", "properties": props}
            node["required"] = [name for name in required if name in props]
            if extra is not None:
                node["additionalProperties"] = extra
            return node

        return st.builds(
            build,
            st.dictionaries(st.sampled_from(PROPERTY_NAMES), self.property(inner), max_size=3),
            st.lists(st.sampled_from(PROPERTY_NAMES), max_size=2),
            st.sampled_from([None, True, False, {"type": "integer"}]),
        )

    @staticmethod
    def property(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        lenient = st.sampled_from(
            [
                {},
                {"x-deserialize-default-on-error": True},
                {"x-deserialize-default-on-null": True},  # refused where no empty value
                {"description": "ends with \\"},
            ]
        )
        return st.builds(
            lambda schema, extra: {**schema, **extra} if isinstance(schema, dict) else schema,
            inner,
            lenient,
        )

    def tagged_union(self, inner: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
        def build(key: str, tags: list[str], bodies: list[Any], open_: bool) -> dict[str, Any]:
            variants: list[Any] = []
            for tag, body in zip(tags, bodies, strict=False):
                props = {key: {"type": "string", "const": tag}, "body": body}
                variants.append({"type": "object", "properties": props, "required": [key]})
            if open_:
                known = {"properties": {key: {"enum": tags[: len(variants)]}}}
                other = {"type": "object", "properties": {key: {"type": "string"}}}
                variants.append({**other, "required": [key], "not": known})
            return {"oneOf": variants}

        return st.builds(
            build,
            st.sampled_from(["type", "kindOf", "k\\"]),
            st.lists(st.sampled_from(TAG_VALUES), min_size=2, max_size=3, unique=True),
            st.lists(inner, min_size=3, max_size=3),
            st.booleans(),
        )


@st.composite
def schemas(draw: st.DrawFn, depth: int = 2) -> dict[str, Any]:
    """A whole document: `Message` (the method's params, `value: Value`), `Value` and
    other definitions that may refer to each other, to the root and into properties."""
    names = draw(st.lists(st.sampled_from(DEF_NAMES), max_size=3, unique=True))
    drawing = SchemaDrawing(["Value", *names])
    defs = {name: draw(drawing.node(depth)) for name in names}
    value = draw(drawing.node(depth))
    message = {
        "type": "object",
        "properties": {"value": {"$ref": "#/$defs/Value"}},
        "required": ["value"],
        "x-method": "probe",
        "x-side": "agent",
    }
    document: dict[str, Any] = {"$schema": DRAFT}
    if draw(st.booleans()):  # a root that describes a value: `#` refers to it
        document.update({"type": "object", "properties": {"n": {"type": "integer"}}})
    document["$defs"] = {"Message": message, "Value": value, **defs}
    holder = {"type": "object", "properties": {"inner": {"type": "string"}}}
    if draw(st.booleans()):  # a pointer into a property of another definition
        document["$defs"]["Holder"] = holder
        value_ref = {"$ref": "#/$defs/Holder/properties/inner"}
        document["$defs"]["Value"] = {"anyOf": [value, value_ref]}
    return document
