"""Free-form values given from Python (`_meta`, unknown keys, `Any` fields) must be JSON
values, as those parsed from JSON text are: the check, the rewrite of a model's core schema
that applies it (`AcpModel` calls it), and `_python_input`, which refuses the whole input
when a value was not JSON."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, NoReturn, TypeVar

from pydantic import ValidationError
from pydantic_core import core_schema

from ._errors import readable
from ._json_text import _NAN_DONE, _json_error, _refuse_nan
from ._markers import _OPAQUE


class NotJsonError(TypeError):
    """A free-form value given from Python (`model_validate(dict)`, the constructor) that
    JSON text cannot hold. Not a ValueError, so that no union tries another variant with
    it. A default-on-error around it (an optional field holding a model) still reads any
    failure as omitted, so the refusal is also noted in `_NOT_JSON`, and `AcpModel`'s
    entry points refuse the whole input (a `json_invalid` ValidationError), as JSON text
    spelling `NaN` is refused. A TypeAdapter of a union raises it as it is."""


# The first free-form value of the running Python-mode validation that is not JSON.
_NOT_JSON: ContextVar[str | None] = ContextVar("acp_schema_not_json", default=None)


def _not_json(message: str) -> NoReturn:
    if _NOT_JSON.get() is None:
        _NOT_JSON.set(message)
    raise NotJsonError(message)


_Validated = TypeVar("_Validated")


def _python_input(title: str, data: Any, validate: Callable[[], _Validated]) -> _Validated:
    """Run a Python-mode validation; refuse the whole input if a free-form value in it
    was not JSON, even where a default-on-error swallowed that value's refusal."""
    token = _NOT_JSON.set(None)
    try:
        try:
            result = validate()
        except (NotJsonError, ValidationError) as error:
            problem = _NOT_JSON.get()
            if problem is not None:
                raise _json_error(title, data, problem) from None
            if isinstance(error, ValidationError):
                raise readable(error) from None  # one error per real problem (`_errors`)
            raise
        problem = _NOT_JSON.get()
        if problem is not None:
            raise _json_error(title, data, problem)
        return result
    finally:
        _NOT_JSON.reset(token)


# Python types a free-form value parsed from JSON text can have. Infinity is allowed: the
# text path reads an overflowing number (`1e400`) in a free-form value as infinity.
_JSON_LEAVES = (str, int, float, type(None))
_EXACT = frozenset({str, dict, list, int, bool, float, type(None)})
_BASES = (str, dict, list, float, int)
# JSON text cannot carry one (pydantic-core refuses the escape), nor can UTF-8 output.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _json_value(value: Any) -> Any:
    """`value` itself if it is made of JSON values only (objects with string keys, arrays,
    strings without lone surrogates, numbers but NaN, booleans, null); else NotJsonError
    naming where. Walked with a stack (depth costs no recursion); where is worked out only
    for a value that is refused."""
    stack = [value]
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        kind = item.__class__
        if kind not in _EXACT:  # a subclass (an OrderedDict, a str enum) counts as its base
            kind = next((base for base in _BASES if isinstance(item, base)), kind)
        if kind is str:
            if not item.isascii() and _SURROGATE.search(item):
                break
        elif kind is dict:
            for key, child in item.items():
                if key.__class__ is not str or (not key.isascii() and _SURROGATE.search(key)):
                    _not_json(_problem(value))
                push(child)
        elif kind is list:
            stack.extend(item)
        elif kind is int or kind is bool or item is None:
            continue
        elif kind is not float or item != item:  # NaN is not equal to itself
            break
    else:
        return value
    _not_json(_problem(value))


def _problem(value: Any) -> str:
    """What in `value` is not JSON, and where: the slow walk, for a refused value only."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        where, item = stack.pop()
        at = where or "/"
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return f"a lone surrogate is not JSON (at {at})"
        elif isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    return f"a key of type {type(key).__name__} is not JSON (at {at})"
                if _SURROGATE.search(key):
                    return f"a lone surrogate is not JSON (in a key at {at})"
                stack.append((f"{where}/{key}", child))
        elif isinstance(item, list):
            stack.extend((f"{where}/{i}", child) for i, child in enumerate(item))
        elif isinstance(item, float) and item != item:
            return f"NaN is not JSON (at {at})"
        elif not isinstance(item, _JSON_LEAVES):
            return f"a value of type {type(item).__name__} is not JSON (at {at})"
    return "a value that is not JSON"


# A free-form value: from Python, JSON values only; from JSON text, which is JSON already,
# only the `NaN` token to refuse. Marked done for both rewrites (`_with_json_values`,
# `_with_nan_refused`), so the NaN rewrite does not wrap it a second time.
_FREE_FORM = core_schema.json_or_python_schema(
    json_schema=core_schema.no_info_after_validator_function(_refuse_nan, core_schema.any_schema()),
    python_schema=core_schema.no_info_plain_validator_function(_json_value),
    metadata={"acp_json_value": True, _NAN_DONE: True},
)


def _with_json_values(node: Any) -> Any:
    """A core schema whose free-form (`any`) values, unknown keys included, take JSON values
    only from Python. Nested models are left as built (their own hook did them)."""
    if isinstance(node, list):
        return [_with_json_values(item) for item in node]
    if not isinstance(node, dict) or (node.get("metadata") or {}).get("acp_json_value"):
        return node
    kind = _kind(node)
    if kind == "any":
        return _FREE_FORM
    if kind in _OPAQUE:
        return node
    if kind == "default" and node.get("on_error") == "default" and _free_form_inside(node):
        # Default-on-error would read a value JSON cannot hold as "omitted"; JSON text
        # cannot spell one at all, so it is checked before, outside the fallback.
        return core_schema.json_or_python_schema(
            json_schema=node,
            python_schema=core_schema.chain_schema(
                [core_schema.no_info_plain_validator_function(_json_value), node]
            ),
            metadata={"acp_json_value": True},
        )
    out = {
        key: value if key in _NOT_VALIDATION else _with_json_values(value)
        for key, value in node.items()
    }
    if kind == "model-fields" and "extras_schema" not in out:
        out["extras_schema"] = _FREE_FORM
    return out


# Keys of a core schema node that hold no validation schema.
_NOT_VALIDATION = frozenset({"metadata", "serialization"})


def _kind(node: dict[str, Any]) -> str | None:
    """A core schema node's type; None for a mapping of names (a field named `type`)."""
    kind = node.get("type")
    return kind if isinstance(kind, str) else None


def _free_form_inside(node: Any) -> bool:
    """Whether a schema holds an `any` node (and no model, whose input may be an instance)."""
    stack = [node]
    found = False
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            if _kind(item) in _OPAQUE:
                return False
            found = found or _kind(item) == "any"
            stack.extend(v for k, v in item.items() if k not in _NOT_VALIDATION)
    return found
