"""JSON text as the bindings read it: `loads_wire` (no `NaN`, any depth the interpreter can
hold) and its `json_invalid` errors, and the rewrite of a model's core schema that refuses
a `NaN` token while pydantic-core validates parsed text (`AcpModel` applies it)."""

from __future__ import annotations

import json
from typing import Any

from pydantic import GetCoreSchemaHandler, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError, core_schema


def _json_error(title: str, data: Any, reason: str) -> ValidationError:
    """A `json_invalid` ValidationError, as pydantic-core reports bad JSON itself."""
    detail = InitErrorDetails(
        type=PydanticCustomError("json_invalid", "Invalid JSON: {error}", {"error": reason}),
        loc=(),
        input=data,
    )
    return ValidationError.from_exception_data(title, [detail])


def _constant(name: str) -> float:
    """`NaN` is refused; `Infinity` reads as an overflowing number (`1e400`) would."""
    if name == "NaN":
        raise ValueError("NaN is not JSON")
    return float(name)


def loads_wire(data: str | bytes | bytearray, title: str = "JSON") -> Any:
    """Parse JSON text as the bindings read it: no `NaN`, any depth the interpreter can
    hold; anything else is a `json_invalid` ValidationError."""
    try:
        return json.loads(data, parse_constant=_constant)
    except RecursionError:
        raise _json_error(title, data, "nested too deeply") from None
    except ValueError as error:  # JSONDecodeError, UnicodeDecodeError, NaN
        raise _json_error(title, data, str(error)) from None


def _nan_problem(data: str | bytes | bytearray) -> str | None:
    """Why `data` is not JSON if it spells `NaN` outside a string, else None (for callers
    that hold text the models did not parse; the models refuse it while parsing)."""
    try:
        json.loads(data, parse_constant=_constant)
    except RecursionError:
        return None  # too deep for `json` too: the depth check reports it
    except ValueError as error:
        return str(error)
    return None


class _NanToken(Exception):
    """Raised inside validation where JSON text spelt `NaN`. Not a `ValueError`, so that no
    default-on-error and no union catches it: the whole text is refused, as bad JSON is."""


def _refuse_nan(value: Any) -> Any:
    """A free-form value parsed from JSON text, unless it holds a NaN (only the `NaN`
    token parses to one: `1e400` and `Infinity` are infinities, kept as documented)."""
    kind = value.__class__
    if kind is str or kind is int or kind is bool or value is None:
        return value
    stack = [value]
    while stack:
        item = stack.pop()
        kind = item.__class__
        if kind is float:
            if item != item:
                raise _NanToken("NaN is not JSON")
        elif kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
    return value


def _refuse_nan_number(value: Any) -> Any:
    if value.__class__ is float and value != value:
        raise _NanToken("NaN is not JSON")
    return value


_NAN_DONE = "acp_nan_refused"


def _json_checked(node: dict[str, Any]) -> Any:
    """`node` with a NaN check for JSON text: after an `any` node (the value may hold one
    anywhere), before a `float` node (which would refuse it as an error that a
    default-on-error field turns into "omitted"). Python input is validated as before."""
    plain: Any = dict(node)
    checked: Any
    if node["type"] == "any":
        checked = core_schema.no_info_after_validator_function(_refuse_nan, plain)
    else:
        checked = core_schema.no_info_before_validator_function(_refuse_nan_number, plain)
    result: Any = core_schema.json_or_python_schema(
        json_schema=checked, python_schema=dict(node), metadata={_NAN_DONE: True}
    )
    return result


def _with_nan_refused(node: Any, handler: GetCoreSchemaHandler, top: bool = False) -> Any:
    """A copy of a model's core schema whose numbers (`float` nodes, the integer rule's
    included), free-form (`any`) values and extras refuse NaN read from JSON text. Other
    models are left alone (each rewrites its own schema); a named type (an alias) is
    rewritten where it is defined, once, since models share it."""
    if isinstance(node, list):
        return [_with_nan_refused(item, handler) for item in node]
    if not isinstance(node, dict):
        return node
    kind = node.get("type")
    if (node.get("metadata") or {}).get(_NAN_DONE) or (kind == "model" and not top):
        return node
    if kind in ("any", "float") and "ref" not in node:
        return _json_checked(node)
    if kind == "definition-ref":
        try:
            target: Any = handler.resolve_ref_schema(node)
        except LookupError:  # still being defined (a recursive alias): nothing to do now
            return node
        if target is not node and target.get("type") not in ("model", "definition-ref"):
            # Marked before the rewrite: an alias that refers to itself (through other
            # aliases: `A = list[B]`, `B = list[A]`) then meets itself as done.
            metadata = target.setdefault("metadata", {})
            if metadata.get(_NAN_DONE):
                return node
            metadata[_NAN_DONE] = True
            rewritten = _with_nan_refused(target, handler)
            if rewritten is not target:
                ref = target.get("ref")
                target.clear()
                target.update(rewritten)
                if ref is not None:
                    target["ref"] = ref
                target.setdefault("metadata", {})[_NAN_DONE] = True
        return node
    copy = {key: _with_nan_refused(value, handler) for key, value in node.items()}
    if kind == "model-fields" and copy.get("extras_schema") is None:
        copy["extras_schema"] = _json_checked(core_schema.any_schema())  # type: ignore[arg-type]
    return copy


def _too_deep(error: ValidationError) -> bool:
    """Whether pydantic-core refused the JSON only for its nesting depth (it stops at 200)."""
    problems = error.errors(include_url=False)
    return (
        len(problems) == 1
        and problems[0]["type"] == "json_invalid"
        and "recursion limit" in problems[0]["msg"]
    )
