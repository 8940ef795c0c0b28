"""Compare our decode of one input with the TypeScript SDK's, and name the disagreement."""

from __future__ import annotations

import json
from enum import Enum
from typing import Any

from pydantic import BaseModel, ValidationError

from acp_schema._runtime import loads_wire


def _drop_unknown_keys(value: Any, notes: set[str]) -> None:
    """Clear the unknown keys every decoded object kept (the SDK strips them), except on the
    `...Other` variants of open unions, whose payload they are (the SDK keeps those)."""
    if isinstance(value, BaseModel):
        extra = value.__pydantic_extra__
        if extra and not type(value).__name__.endswith("Other"):
            notes.add("unknown keys kept")
            extra.clear()
        for name in type(value).model_fields:
            _drop_unknown_keys(getattr(value, name), notes)
    elif isinstance(value, list):
        for item in value:
            _drop_unknown_keys(item, notes)


def ours(model: type[BaseModel], text: str, notes: set[str]) -> tuple[bool, Any]:
    """(accepted, decoded JSON without the unknown keys we keep); a ValidationError is a
    rejection, anything else escapes."""
    try:
        decoded = model.model_validate_json(text)
    except ValidationError:
        return False, None
    _drop_unknown_keys(decoded, notes)
    try:
        return True, json.loads(decoded.model_dump_json())
    except ValueError:  # deeper than pydantic-core's serializer goes: encode via Python
        plain = decoded.model_dump()
        return True, json.loads(
            json.dumps(plain, default=lambda v: v.value if isinstance(v, Enum) else v)
        )


def _same_number(a: Any, b: Any) -> bool:
    numbers = (int, float)
    if isinstance(a, bool) or isinstance(b, bool):
        return False
    return isinstance(a, numbers) and isinstance(b, numbers) and float(a) == float(b)


def difference(mine: Any, theirs: Any, notes: set[str]) -> bool:
    """Whether the two decoded values differ beyond integers past 2**53, which JavaScript
    rounds (noted as "large integer rounded by JavaScript")."""
    if isinstance(mine, dict) and isinstance(theirs, dict):
        if set(mine) != set(theirs):
            return True
        return any(difference(mine[k], theirs[k], notes) for k in theirs)
    if isinstance(mine, list) and isinstance(theirs, list):
        return len(mine) != len(theirs) or any(
            difference(a, b, notes) for a, b in zip(mine, theirs, strict=True)
        )
    if mine == theirs and type(mine) is type(theirs):
        return False
    if _same_number(mine, theirs):
        if mine != theirs:
            notes.add("large integer rounded by JavaScript")
        return False
    return True


def schema_valid(validator: Any, text: str) -> bool:
    try:
        value = loads_wire(text)
    except ValueError:
        return False
    return bool(validator.is_valid(value))
