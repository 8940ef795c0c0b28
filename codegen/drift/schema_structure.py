"""Compare schemas by structure: what they validate and what they tell the generator.

``structure(doc)`` drops the documentation-only keywords from every schema position:

* ``description`` and ``$comment``: prose, reworded freely between releases;
* ``title``: a display label (ACP uses it for union variant captions);
* ``examples``: sample instances, never used for validation.

Everything else is kept, in particular every ``x-`` keyword (they drive
deserialisation and method routing), ``default`` and ``deprecated`` (they change the
generated bindings), and the order of lists such as ``required`` and ``enum`` (a
bundled schema should match its source exactly, not just as a set).

Keys are only dropped where they are keywords: a property *named* ``description`` in
``properties``, or a ``title`` inside a ``default`` value, is data and stays.
"""

from __future__ import annotations

import json
from typing import Any

from ..schema_walk import (
    SUBSCHEMA_KEYWORDS,
    SUBSCHEMA_LIST_KEYWORDS,
    SUBSCHEMA_MAP_KEYWORDS,
    escape,
)

DOC_ONLY_KEYWORDS = frozenset({"description", "title", "$comment", "examples"})

_MAX_VALUE = 80


def structure(doc: Any) -> Any:
    """A copy of the schema *doc* without documentation-only keywords."""
    if not isinstance(doc, dict):
        return _copy(doc)
    out: dict[str, Any] = {}
    for key, value in doc.items():
        if key in DOC_ONLY_KEYWORDS:
            continue
        if key in SUBSCHEMA_MAP_KEYWORDS and isinstance(value, dict):
            out[key] = {name: structure(sub) for name, sub in value.items()}
        elif key in SUBSCHEMA_KEYWORDS:
            out[key] = structure(value)
        elif key in SUBSCHEMA_LIST_KEYWORDS and isinstance(value, list):
            out[key] = [structure(sub) for sub in value]
        else:
            out[key] = _copy(value)  # data: const, enum, default, x-...
    return out


def structural_diff(a: Any, b: Any, limit: int | None = 20) -> list[str]:
    """Differences between the structures of *a* and *b*, one line each.

    Lines read ``#/pointer: <left> vs <right>`` with values as compact JSON and
    ``(absent)`` for a missing key or item. At most *limit* differences are listed
    (``None`` for all); when some are left out a last line says how many.
    """
    lines = list(_diff(structure(a), structure(b), ""))
    if limit is not None and len(lines) > limit:
        hidden = len(lines) - limit
        lines = [*lines[:limit], f"... and {hidden} more difference(s)"]
    return lines


_ABSENT = object()


def _diff(a: Any, b: Any, pointer: str) -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in [*a, *(k for k in b if k not in a)]:
            out += _diff(a.get(key, _ABSENT), b.get(key, _ABSENT), f"{pointer}/{escape(key)}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        out = []
        for i in range(max(len(a), len(b))):
            left = a[i] if i < len(a) else _ABSENT
            right = b[i] if i < len(b) else _ABSENT
            out += _diff(left, right, f"{pointer}/{i}")
        return out
    if _same(a, b):
        return []
    return [f"#{pointer}: {_show(a)} vs {_show(b)}"]


def _same(a: Any, b: Any) -> bool:
    # JSON has no 1 == true; numbers compare by value (1 == 1.0, as in JSON Schema).
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and bool(a == b)


def _show(value: Any) -> str:
    if value is _ABSENT:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= _MAX_VALUE else text[: _MAX_VALUE - 3] + "..."


def _copy(value: Any) -> Any:
    # JSON values only: cheaper and clearer than copy.deepcopy.
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value
