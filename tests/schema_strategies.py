"""Hypothesis strategies for instances of an ACP schema definition.

hypothesis-jsonschema is the library for this, but on these schemas it does not cope: with
current Hypothesis it fails inside Hypothesis' internals, and with the Hypothesis it was
built against it needs minutes to build one strategy. ACP schemas use a small subset of
JSON Schema, so this module covers that subset directly; every instance is still checked
against the schema with jsonschema before it is used, so a gap here cannot fake a pass.
"""

from __future__ import annotations

import string
from functools import cache
from typing import Any

from hypothesis import strategies as st

from acp_schema.codegen.schema_refs import ref_target, resolve_ref

from .schema_validator import EcmaValidator

JSON = dict[str, Any]
# Unknown keys a decoder must keep; camelCase so they never alias a snake_case field name.
EXTRA_KEYS = st.sampled_from(["xVendorNote", "futureField", "_vendorData"])
SCALARS = st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=5)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=3), inner, max_size=2)
    ),
    max_leaves=4,
)
FORMAT_EXAMPLES = {
    "uri": ["file:///home/u/src/main.py", "https://example.com/a?b=1#c", "zed://session/7"],
    "date-time": ["2026-01-02T03:04:05Z", "2026-12-01T17:11:00.125+02:00"],
}
INT_BOUNDS = {
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**53),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**53), 2**53),
}


def value_spots(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) inside a JSON value, outermost first: the places a
    mutation can put something else."""
    spots: list[tuple[Any, Any]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            spots.extend((node, key) for key in node)
            for item in node.values():
                walk(item)
        elif isinstance(node, list):
            spots.extend((node, index) for index in range(len(node)))
            for item in node:
                walk(item)

    walk(value)
    return spots


def _constrains(part: Any) -> bool:
    """Whether a schema says anything about values (not only docs and x- keywords)."""
    if not isinstance(part, dict):
        return True
    return any(
        k not in ("description", "title", "default") and not k.startswith("x-") for k in part
    )


class SchemaStrategies:
    def __init__(self, schema: JSON, *, good_formats: bool = False) -> None:
        self.schema = schema
        self.good_formats = good_formats  # draw only strings that meet their `format`
        self.defs: JSON = schema["$defs"]
        self.validator = EcmaValidator(schema)

    def is_valid(self, name: str, instance: Any) -> bool:
        probe = {"$ref": f"#/$defs/{name}", "$defs": self.defs}
        return bool(self.validator.evolve(schema=probe).is_valid(instance))

    def for_def(self, name: str) -> st.SearchStrategy[Any]:
        return self._ref(name)

    @cache  # noqa: B019 - one instance per schema, kept for the test session
    def _ref(self, name: str) -> st.SearchStrategy[Any]:
        return st.deferred(lambda: self.node(self.defs[name]))

    @cache  # noqa: B019 - as _ref
    def _pointer(self, ref: str) -> st.SearchStrategy[Any]:
        """Any other local ref (the root, a pointer into a definition), resolved as the
        tools resolve it."""
        return st.deferred(lambda: self.node(resolve_ref(self.schema, ref)))

    def node(self, node: Any) -> st.SearchStrategy[Any]:
        if node is True or node == {}:
            return JSON_VALUES
        if node is False:
            return st.nothing()
        if "$ref" in node:
            target = ref_target(node["$ref"])
            if target is None or target[0] != "$defs":
                return self._pointer(node["$ref"])
            return self._ref(target[1])
        if "const" in node:
            return st.just(node["const"])
        if "enum" in node:
            return st.sampled_from(node["enum"])
        union = node.get("anyOf") or node.get("oneOf")
        if union is not None:
            base = {k: v for k, v in node.items() if k not in ("anyOf", "oneOf", "discriminator")}
            choices = [
                self.merged([base, v]) if base.get("properties") else self.node(v) for v in union
            ]
            return st.one_of(choices)
        if "allOf" in node:
            rest = {k: v for k, v in node.items() if k != "allOf"}
            return self.merged([rest, *node["allOf"]])
        if "not" in node:
            rest = {k: v for k, v in node.items() if k != "not"}
            return self.node(rest).filter(lambda value: not self._matches(node["not"], value))
        kinds = node.get("type", "object" if "properties" in node else None)
        if kinds is None:
            return JSON_VALUES
        if isinstance(kinds, list):
            return st.one_of([self.node({**node, "type": kind}) for kind in kinds])
        return self.typed(kinds, node)

    def _matches(self, schema: Any, value: Any) -> bool:
        return bool(self.validator.evolve(schema={**schema, "$defs": self.defs}).is_valid(value))

    def merged(self, parts: list[Any]) -> st.SearchStrategy[Any]:
        """allOf of objects: draw each part and merge the dicts (ACP uses it for tag + body)."""

        def merge(values: tuple[Any, ...]) -> Any:
            if not all(isinstance(value, dict) for value in values):
                return values[-1]  # a scalar allOf: the parts describe one value
            out: JSON = {}
            for value in values:
                out.update(value)
            return out

        constraining = [p for p in parts if _constrains(p)]
        return st.tuples(*(self.node(p) for p in constraining)).map(merge)

    def typed(self, kind: str, node: JSON) -> st.SearchStrategy[Any]:
        if kind == "null":
            return st.none()
        if kind == "boolean":
            return st.booleans()
        if kind == "integer":
            low, high = INT_BOUNDS.get(node.get("format", ""), (-(2**31), 2**31))
            return st.integers(
                max(low, node.get("minimum", low)), min(high, node.get("maximum", high))
            )
        if kind == "number":
            return st.floats(
                node.get("minimum"), node.get("maximum"), allow_nan=False, allow_infinity=False
            )
        if kind == "string":
            low, high = node.get("minLength", 0), node.get("maxLength", 12)
            text = st.text(
                string.ascii_letters + string.digits + " _-/.", min_size=low, max_size=high
            )
            if isinstance(node.get("pattern"), str):
                return st.from_regex(node["pattern"]).filter(lambda v: low <= len(v) <= high)
            # `format` is an annotation in JSON Schema: any string is valid; draw values
            # that meet it as well, so peers that assert formats see good ones too.
            good = FORMAT_EXAMPLES.get(node.get("format", ""))
            if good and self.good_formats:
                return st.sampled_from(good)
            return st.sampled_from(good) | text if good else text
        if kind == "array":
            low = node.get("minItems", 0)
            items = self.node(node.get("items", True))
            return st.lists(items, min_size=low, max_size=max(low, node.get("maxItems", 3)))
        return self.object(node)

    def object(self, node: JSON) -> st.SearchStrategy[Any]:
        props: JSON = node.get("properties", {})
        required = [p for p in node.get("required", []) if p in props]
        optional = [p for p in props if p not in required]
        fixed = st.fixed_dictionaries(
            {p: self.node(props[p]) for p in required},
            optional={p: self.node(props[p]) for p in optional},
        )
        if node.get("additionalProperties") is False or node.get("unevaluatedProperties") is False:
            return fixed
        extras = st.dictionaries(EXTRA_KEYS, JSON_VALUES, max_size=1)
        return st.tuples(fixed, extras).map(lambda pair: {**pair[1], **pair[0]})
