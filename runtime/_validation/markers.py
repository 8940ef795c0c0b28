"""The decoding markers that generated fields carry in `Annotated`: one per
`x-deserialize-*` keyword of the schema (`DefaultOnError`, `SkipInvalidItems`,
`DefaultOnNull`) and `JsonInteger` (integers as JSON Schema has them). Each rewrites the
field's pydantic-core schema once, while the class is built."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import MISSING, GetCoreSchemaHandler
from pydantic_core import PydanticCustomError, PydanticOmit, core_schema

from .clean_pass import CLEAN_SAFE, give_up_if_clean
from .json_text import _refuse_nan


def _unwrap_defaults(schema: core_schema.CoreSchema) -> dict[str, Any]:
    """The schema under default/nullable/MISSING wrappers (a plain dict: we edit it)."""
    node: dict[str, Any] = schema  # type: ignore[assignment]
    while node["type"] in ("default", "nullable", "missing-sentinel"):
        node = node["schema"]
    return node


def _empty_value(schema: core_schema.CoreSchema) -> Any:
    """The empty value of the type a core schema validates (for default-on-null)."""
    inner = _unwrap_defaults(schema)
    kind = inner["type"]
    if kind == "list":
        return []
    if kind == "dict":
        return {}
    if kind == "str":
        return ""
    raise TypeError(f"no empty value is defined for a {kind!r} field")


def _fresh(empty: Any) -> Any:
    """A new empty value each time: decoded models must not share one list."""
    return empty.copy() if isinstance(empty, (list, dict)) else empty


def _not_nan(value: Any, info: core_schema.ValidationInfo) -> None:
    """A malformed value read from JSON text is replaced or skipped, unless it holds `NaN`:
    then the whole text is refused (pydantic-core read the token; JSON has none). In the
    clean pass (`_clean_pass`) nothing is replaced: the pass gives up."""
    if info.mode == "json":
        _refuse_nan(value)
        give_up_if_clean(info)


def _missing(value: Any, info: core_schema.ValidationInfo) -> Any:
    _not_nan(value, info)
    return MISSING


def _omit(value: Any, info: core_schema.ValidationInfo) -> Any:
    _not_nan(value, info)
    raise PydanticOmit


class DefaultOnError:
    """`x-deserialize-default-on-error`: a value that fails to decode becomes the default.

    For an optional field the default is MISSING, so a malformed value reads as omitted and
    is not encoded again. A required field still needs its key; a malformed value becomes
    the empty value of its type, and where the type has none (a tag, a number) the error
    stands, because there is nothing to fall back to.
    """

    def __init__(self, *, required: bool = False) -> None:
        self.required = required

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        inner = handler(source)
        if not self.required:
            # Not `on_error="default"`: that swallows every exception, the `NaN` refusal
            # (`_NanToken`) too; the fallback runs (in Python) only for a malformed value.
            # Python input keeps pydantic-core's own fallback (which also turns a dict nested
            # deeper than Python can walk into "omitted").
            missing = core_schema.with_info_plain_validator_function(_missing)
            either = core_schema.json_or_python_schema(
                json_schema=core_schema.union_schema(
                    [inner, missing], mode="left_to_right", metadata={CLEAN_SAFE: True}
                ),
                python_schema=core_schema.with_default_schema(
                    inner, default=MISSING, on_error="default"
                ),
            )
            return core_schema.with_default_schema(either, default=MISSING)
        try:
            empty = _empty_value(inner)
        except TypeError:
            return inner

        def fallback(value: Any, info: core_schema.ValidationInfo) -> Any:
            _not_nan(value, info)
            return _fresh(empty)

        # Not a `default` schema: that would make the key optional. The fallback branch
        # runs (in Python) only when the real type failed.
        return core_schema.union_schema(
            [inner, core_schema.with_info_plain_validator_function(fallback)],
            mode="left_to_right",
            metadata={CLEAN_SAFE: True},
        )


class SkipInvalidItems:
    """`x-deserialize-skip-invalid-items`: drop the array items that fail, keep the rest."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        schema = handler(source)
        array = _unwrap_defaults(schema)
        if array["type"] != "list":
            raise TypeError("SkipInvalidItems applies to list fields only")
        items = array.get("items_schema", core_schema.any_schema())
        # pydantic-core's list validator drops an item whose validator says "omit" (not
        # `on_error="omit"`, which would drop an item holding `NaN` too; see DefaultOnError).
        omit = core_schema.with_info_plain_validator_function(_omit)
        array["items_schema"] = core_schema.json_or_python_schema(
            json_schema=core_schema.union_schema(
                [items, omit], mode="left_to_right", metadata={CLEAN_SAFE: True}
            ),
            python_schema=core_schema.with_default_schema(items, on_error="omit"),
        )
        return schema


class DefaultOnNull:
    """`x-deserialize-default-on-null`: `null` decodes as the empty value of the type."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        inner = handler(source)
        empty = _empty_value(inner)

        def null_to_empty(value: Any) -> Any:
            return _fresh(empty) if value is None else value

        return core_schema.no_info_before_validator_function(null_to_empty, inner)


# Schemas that stand for other classes or named types: JsonInteger never edits inside them
# (each applies its own markers), nor a node it made already; nor does the JSON-value
# rewrite (`_json_values`).
_OPAQUE = frozenset({"model", "dataclass", "typed-dict", "definitions", "definition-ref"})
_INTEGER_DONE = "acp_json_integer"


_BOUND_WORDS = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<", "multiple_of": "a multiple of"}


def _integer_message(bounds: Mapping[str, Any]) -> str:
    """`Input should be a JSON integer >= 0 and <= 255`: the field's own bounds (a format's
    range or the schema's minimum/maximum), or none."""
    said = " and ".join(f"{_BOUND_WORDS[k]} {bounds[k]}" for k in _BOUND_WORDS if k in bounds)
    return "Input should be a JSON integer" + (f" {said}" if said else "")


def _integer_rule(node: dict[str, Any]) -> core_schema.CoreSchema:
    """A JSON integer: an integer token, or a number token with no fraction (`1.0`, `1e2`:
    JSON Schema counts both as integers), within the node's bounds; never a string or a
    boolean. The second branch, and its Python-free float-to-int step, only runs for
    number tokens."""
    bounds: dict[str, Any] = {
        k: node[k] for k in ("ge", "gt", "le", "lt", "multiple_of") if k in node
    }
    exact = core_schema.int_schema(strict=True, **bounds)
    from_number = core_schema.chain_schema(
        [
            core_schema.float_schema(strict=True, allow_inf_nan=False),
            core_schema.int_schema(strict=False, **bounds),
        ]
    )
    return core_schema.union_schema(
        [exact, from_number],
        mode="left_to_right",
        custom_error_type="json_integer",
        custom_error_message=_integer_message(bounds),
        metadata={_INTEGER_DONE: True},
        ref=node.get("ref"),
    )


def _with_json_integers(node: Any) -> Any:
    """A copy of a core schema with every `int` node replaced by `_integer_rule`."""
    if isinstance(node, list):
        return [_with_json_integers(item) for item in node]
    if not isinstance(node, dict):
        return node
    kind = node.get("type")
    if kind in _OPAQUE or (node.get("metadata") or {}).get(_INTEGER_DONE):
        return node
    if kind == "int":
        return _integer_rule(node)
    if kind == "literal" and any(_like_boolean(v) for v in node["expected"]):
        return _literal_rule(node)
    return {key: _with_json_integers(value) for key, value in node.items()}


def _like_boolean(value: Any) -> bool:
    """A literal value pydantic's lax literal check confuses with a boolean (`true` for 1,
    `0.0` for `False`): only these need `_literal_rule`; other numbers match as JSON Schema
    has it already (`-32700.0` is -32700, `"5"` is not 5)."""
    return isinstance(value, bool) or (type(value) is int and value in (0, 1))


def _json_equal(value: Any, wanted: Any) -> bool:
    """JSON Schema's equality of a decoded value and a literal: a boolean is no number,
    `1.0` is the integer 1, and `null`, strings and numbers equal only their own kind."""
    if isinstance(wanted, bool) or isinstance(value, bool):
        return type(value) is type(wanted) and value == wanted
    if wanted is None or isinstance(wanted, str):
        return type(value) is type(wanted) and value == wanted
    return isinstance(value, (int, float)) and value == wanted


def _literal_rule(node: dict[str, Any]) -> core_schema.CoreSchema:
    """A literal of numbers or booleans (an integer enum, a mixed one, an integer `const`)
    as JSON Schema compares values: pydantic's lax literal takes `true` for 1 and `1.0`
    for `True`. The matching literal value itself goes on to the literal check."""
    expected = list(node["expected"])
    shown = ", ".join(json.dumps(v) for v in expected)

    def exact(value: Any) -> Any:
        for wanted in expected:
            if _json_equal(value, wanted):
                return wanted
        raise PydanticCustomError(
            "literal_error", "Input should be one of: {expected}", {"expected": shown}
        )

    inner = {**node, "metadata": {**(node.get("metadata") or {}), _INTEGER_DONE: True}}
    inner.pop("ref", None)
    return core_schema.no_info_before_validator_function(
        exact,
        inner,
        ref=node.get("ref"),
        metadata={_INTEGER_DONE: True},
    )


class JsonInteger:
    """Integers exactly as JSON Schema has them (and literals of numbers or booleans).

    pydantic's strict `int` refuses `1.0`, which JSON Schema (and every JavaScript peer)
    reads as the integer 1; its lax `int` also takes `"1"` and `true`. This marker makes
    each `int` in the annotated type take integer tokens and integral number tokens only,
    with the bounds (`ge`/`le`, from the schema's `minimum`/`maximum` and its integer
    `format`) applied to both. It sits after the `Field(...)`, so the bounds are already
    in the schema it rewrites. A `Literal` holding a number or a boolean (an integer or
    mixed `enum`, a `const`) matches as JSON Schema compares: `true` is not 1, `1.0` is.
    """

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        result: core_schema.CoreSchema = _with_json_integers(handler(source))
        return result
