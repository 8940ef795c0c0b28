"""The pre-pass's rewrites of values: what the generator would turn into a Python enum
that cannot hold the values, or refuse, becomes what it makes a faithful type of.

* `false` members of a union go (they match nothing);
* a union of consts with a value other than a string becomes that `enum`;
* switched-off decoding keywords and property defaults go (`drop_switched_off`,
  `drop_property_defaults`);
* an `enum` with a value other than a string becomes a `Literal` (the generator's
  `x-enum-field-as-literal`): a Python enum holds `1` and `true` as one member, and an
  integer enum became an `IntEnum`; a string-only enum keeps its class.

The checks refused what none of this can hold (`codegen/schema_generation.py`).
"""

from __future__ import annotations

from typing import Any

from ..schema_walk import DECODING_KEYWORDS, iter_subschemas

JSON = dict[str, Any]


def json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    return {float: "number", str: "string", list: "array"}.get(type(value), "object")


def allowed(kind: str, types: Any) -> bool:
    """Whether a value of JSON kind `kind` has one of the schema's `type`s (any without)."""
    listed = types if isinstance(types, list) else [types] if isinstance(types, str) else None
    return listed is None or kind in listed or (kind == "integer" and "number" in listed)


def plain_value(value: Any) -> Any:
    """An integral float (`2.0`) as the integer JSON Schema counts it as."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _drop_false_members(schema: JSON) -> None:
    """A `false` member of `anyOf`/`oneOf` matches nothing: the union is its other members
    (the checks refused a union of nothing but `false`, which allows nothing)."""
    for _, node in list(iter_subschemas(schema)):
        for key in ("anyOf", "oneOf"):
            members = node.get(key)
            if isinstance(members, list) and False in members:
                kept = [m for m in members if m is not False]
                if kept:
                    node[key] = kept


_CONST_MEMBER_KEYS = frozenset({"const", "type", "title", "description", "$comment"})


def _const_unions_as_enums(schema: JSON) -> None:
    """`anyOf`/`oneOf` of nothing but consts, one of them no string, is that enum: the
    generator would make a Python enum of it (an `IntEnum` it leaves undefined, or `1` and
    `true` as one member); as an `enum` it becomes a `Literal` (`_literal_enums`). A const
    its member's own `type` rules out is no value of the union."""
    for _, node in list(iter_subschemas(schema)):
        key = next((k for k in ("oneOf", "anyOf") if isinstance(node.get(k), list)), None)
        members = node.get(key) if key is not None else None
        if (
            not members
            or "enum" in node
            or "const" in node
            or not all(
                isinstance(m, dict) and "const" in m and set(m) <= _CONST_MEMBER_KEYS
                for m in members
            )
        ):
            continue
        values = [
            m["const"]
            for m in members
            if allowed(json_kind(plain_value(m["const"])), m.get("type"))
        ]
        if all(isinstance(v, str) for v in values):
            continue  # a string enum class, as the generator makes it
        assert key is not None
        del node[key]
        node["enum"] = values


def _literal_enums(schema: JSON) -> None:
    """An `enum` with a value other than a string becomes a `Literal` (the generator's
    `x-enum-field-as-literal`): a Python enum cannot hold both `1` and `true` (they are
    equal in Python), and a string-only enum keeps its class. Values the schema's `type`
    rules out go (no value of them is valid); integral floats are their integers. The
    checks refused enum values the bindings cannot hold (`schema_generation`)."""
    for _, node in list(iter_subschemas(schema)):
        if "const" in node:
            node["const"] = plain_value(node["const"])
        values = node.get("enum")
        if not isinstance(values, list) or all(isinstance(v, str) for v in values):
            continue
        kept: list[Any] = []
        for value in map(plain_value, values):
            if allowed(json_kind(value), node.get("type")) and not any(
                json_kind(value) == json_kind(k) and value == k for k in kept
            ):
                kept.append(value)
        node["enum"] = kept
        if not all(isinstance(v, str) for v in kept):
            node["x-enum-field-as-literal"] = True


def rewrite_values(schema: JSON) -> None:
    _drop_false_members(schema)
    _const_unions_as_enums(schema)
    _literal_enums(schema)


def drop_switched_off(schema: JSON) -> None:
    for _, node in list(iter_subschemas(schema)):
        for key in DECODING_KEYWORDS:  # `false` means off, as if absent
            if node.get(key) is False:
                del node[key]


def drop_property_defaults(schema: JSON) -> None:
    """Omitted stays omitted: a property's schema `default` says how a receiver reads an
    omitted key, but filling it in would write the key back on encode. The bindings keep
    such a field MISSING (the default stays in the description and the schema)."""
    for _, node in list(iter_subschemas(schema)):
        for sub in (node.get("properties") or {}).values():
            if isinstance(sub, dict) and "default" in sub and "const" not in sub:
                del sub["default"]
