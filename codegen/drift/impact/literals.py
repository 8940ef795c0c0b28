"""The literal values the code shows: a constant, a list of them (its size known even
where an item is not), a dict literal or JSON text given to `model_validate*`."""

from __future__ import annotations

import ast
import json
from typing import Any

import libcst as cst

from acp_schema.migrations.framework.syntax import string_value

NOTHING = object()  # no literal value shown
MAX_JSON_TEXT = 1 << 20  # JSON text in a string literal larger than this is not read


def literal(module: cst.Module, node: cst.BaseExpression) -> Any:
    """The value of a literal the code shows (`0`, `-1`, `None`, `[]`, `{"a": 1}`), else
    NOTHING."""
    if isinstance(node, cst.List | cst.Tuple | cst.Set) and not any(
        isinstance(e, cst.StarredElement) for e in node.elements
    ):
        # The items are shown even where their values are not: a size is known.
        return [literal(module, e.value) for e in node.elements]
    if isinstance(node, cst.Name | cst.Attribute | cst.Call):
        return None if isinstance(node, cst.Name) and node.value == "None" else NOTHING
    try:
        return ast.literal_eval(module.code_for_node(node).strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return NOTHING


def shown_object(
    module: cst.Module, node: cst.BaseExpression
) -> tuple[dict[str, Any], bool] | None:
    """The keys (with their literal values) of a dict literal or of JSON text holding an
    object, and whether the dict spreads others (`**more`); None for anything else."""
    if isinstance(node, cst.Dict):
        keys: dict[str, Any] = {}
        spread = False
        for element in node.elements:
            key = string_value(element.key) if isinstance(element, cst.DictElement) else None
            if key is None or not isinstance(element, cst.DictElement):
                spread = True
            else:
                keys[key] = literal(module, element.value)
        return keys, spread
    text = string_value(node)
    if text is None or len(text) > MAX_JSON_TEXT:
        return None
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return (parsed, False) if isinstance(parsed, dict) else None
