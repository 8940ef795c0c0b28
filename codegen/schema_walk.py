"""Walking a JSON Schema document: which keywords hold subschemas, and RFC 6901 pointers;
also the names of the `x-deserialize-*` keywords, which every stage reads.

Shared by the checks, the pre-pass and the method-table reader (kept apart from
`schema_check` so that those can be imported by it without a cycle).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

# Where subschemas live. Everything else in a schema is a keyword whose value is data
# (const, enum, default, examples, x-...), so keys found there are never keywords.
SUBSCHEMA_MAP_KEYWORDS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
SUBSCHEMA_KEYWORDS = frozenset(
    {
        "items",
        "not",
        "if",
        "then",
        "else",
        "additionalProperties",
        "unevaluatedProperties",
        "propertyNames",
        "contains",
        "unevaluatedItems",
        "contentSchema",
    }
)
SUBSCHEMA_LIST_KEYWORDS = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})

# Extension keywords that change how a malformed value decodes (the post-pass turns them
# into markers); a valid message reads the same with or without them.
DECODING_KEYWORDS = (
    "x-deserialize-default-on-error",
    "x-deserialize-skip-invalid-items",
    "x-deserialize-default-on-null",
)


def escape(token: str) -> str:
    """Escape one RFC 6901 reference token."""
    return token.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    """The text of one RFC 6901 reference token (`~1` before `~0`, as the RFC says)."""
    return token.replace("~1", "/").replace("~0", "~")


def iter_subschemas(schema: object, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (pointer, schema) for every object in a schema position, root first.

    Only keywords known to hold subschemas are followed, so property names and data
    (const, enum, default, x-...) are never mistaken for keywords. Boolean schemas and
    malformed values are skipped: the meta-schema check reports the latter.
    """
    stack: list[tuple[str, object]] = [(pointer, schema)]
    while stack:
        ptr, cur = stack.pop()
        if not isinstance(cur, dict):
            continue
        yield ptr, cur
        children: list[tuple[str, object]] = []
        for key, value in cur.items():
            here = f"{ptr}/{escape(key)}"
            if key in SUBSCHEMA_MAP_KEYWORDS and isinstance(value, dict):
                children.extend((f"{here}/{escape(k)}", v) for k, v in value.items())
            elif key in SUBSCHEMA_KEYWORDS:
                children.append((here, value))
            elif key in SUBSCHEMA_LIST_KEYWORDS and isinstance(value, list):
                children.extend((f"{here}/{i}", v) for i, v in enumerate(value))
        stack.extend(reversed(children))  # document order
