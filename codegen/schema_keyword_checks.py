"""The checks of one subschema's keywords, run on every subschema of a document:

* ``x-`` keywords: the ones the generator reads must be well typed (an error otherwise),
  the ones it only carries through get a warning when they surprise;
* unions: tagged variants have distinct tags, no two variants stand for one ``x-method``,
  a ``discriminator.propertyName`` is defined and required by every variant;
* ``required`` does not name a property that ``additionalProperties: false`` forbids.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from typing import Any

from .schema_generation import pattern_search
from .schema_problems import Problem, short_json, warn
from .schema_refs import MAX_DEPTH, Index, follow, object_view
from .schema_walk import DECODING_KEYWORDS

# --- x- keywords -------------------------------------------------------------------------


# The sides ACP schemas have used so far. Any other non-empty string is accepted too (the
# generated `Side` type lists the sides a schema uses); a new one is only worth a warning.
KNOWN_SIDES = ("agent", "client", "protocol", "proxy")


def _is_name(value: object) -> bool:
    return isinstance(value, str) and value != ""


def _is_bool(value: object) -> bool:
    return isinstance(value, bool)


# Extension keywords the generator reads: a predicate on the value and how to describe what
# it wants. A bad value here would give wrong bindings, so it is an error.
X_KEYWORDS: dict[str, tuple[Callable[[object], bool], str]] = {
    **dict.fromkeys(DECODING_KEYWORDS, (_is_bool, "a boolean (true: on, false: off)")),
    "x-method": (_is_name, "a non-empty string"),
    "x-side": (_is_name, "a non-empty string"),
}
# Extension keywords known but not read by the generator: a surprising value is a warning.
X_INFORMATIONAL: dict[str, tuple[Callable[[object], bool], str]] = {
    "x-docs-ignore": (_is_bool, "a boolean"),
}


def check_extensions(pointer: str, schema: dict[str, Any]) -> list[Problem]:
    out = []
    for key, value in schema.items():
        if not key.startswith("x-"):
            continue
        if key in X_INFORMATIONAL:
            valid, expected = X_INFORMATIONAL[key]
            if not valid(value):
                out.append(warn(pointer, f"{key} is usually {expected}, got {short_json(value)}"))
            continue
        if key not in X_KEYWORDS:
            known = [*X_KEYWORDS, *X_INFORMATIONAL]
            near = difflib.get_close_matches(key, known, n=1)
            hint = f"did you mean {near[0]!r}?" if near else "known: " + ", ".join(known)
            out.append(
                warn(pointer, f"unknown extension keyword {key!r}, carried through ({hint})")
            )
            continue
        valid, expected = X_KEYWORDS[key]
        if not valid(value):
            out.append(Problem(pointer, f"{key} must be {expected}, got {short_json(value)}"))
        elif key == "x-side" and value not in KNOWN_SIDES:
            out.append(
                warn(
                    pointer,
                    f"new x-side {value!r} (known: {', '.join(KNOWN_SIDES)}); "
                    "the generated Side type includes it",
                )
            )
    if schema.get("x-deserialize-skip-invalid-items") is True and not _allows_arrays(schema):
        out.append(
            Problem(
                pointer,
                "x-deserialize-skip-invalid-items only applies to array schemas "
                "(type 'array' or items), but this schema does not allow arrays",
            )
        )
    if schema.get("x-deserialize-default-on-null") is True and not _has_empty_value(schema):
        out.append(
            Problem(
                pointer,
                "x-deserialize-default-on-null only applies to an inline array, string or map "
                '(null becomes [], "" or {}), but this schema is none of them (a $ref, an '
                "object with properties, a number, an enum...), and it has no empty value",
            )
        )
    if "x-method" in schema and "x-side" not in schema:
        out.append(Problem(pointer, "x-method without x-side: say which side handles the method"))
    if "x-side" in schema and "x-method" not in schema:
        out.append(
            warn(pointer, "x-side without x-method: ignored (x-side only belongs on a method)")
        )
    return out


def _has_empty_value(schema: dict[str, Any]) -> bool:
    """Whether the runtime's DefaultOnNull has an empty value for the type this schema
    gives (`_validation/markers.py`: a list, a str or a dict, written in place: a `$ref`
    is a class or alias of its own)."""
    kind = schema.get("type")
    kinds = set(kind) if isinstance(kind, list) else {kind} if isinstance(kind, str) else set()
    kinds.discard("null")
    if any(key in schema for key in ("$ref", "anyOf", "oneOf", "allOf", "enum", "const")):
        return False
    if kinds == {"array"} or (not kinds and "items" in schema):
        return True
    if kinds == {"string"}:
        return True
    return kinds == {"object"} and not schema.get("properties")


def _allows_arrays(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return (
        kind == "array"
        or (isinstance(kind, list) and "array" in kind)
        or "items" in schema
        or "prefixItems" in schema
    )


# --- unions ------------------------------------------------------------------------------


def _method_of(index: Index, variant: object) -> tuple[str, str] | None:
    """(x-side, x-method) of the definition a variant stands for, if any."""
    for _ in range(MAX_DEPTH):
        variant = follow(index, variant)
        if not isinstance(variant, dict):
            return None
        method, side = variant.get("x-method"), variant.get("x-side")
        if isinstance(method, str):
            return (side if isinstance(side, str) else "?", method)
        wrapped = variant.get("allOf")
        if not (isinstance(wrapped, list) and len(wrapped) == 1):
            return None
        variant = wrapped[0]  # {"title": ..., "allOf": [{"$ref": ...}]}
    return None


def check_unions(index: Index, pointer: str, schema: dict[str, Any]) -> list[Problem]:
    out: list[Problem] = []
    for keyword in ("anyOf", "oneOf"):
        variants = schema.get(keyword)
        if isinstance(variants, list):
            out += _check_union(index, pointer, keyword, variants)
    if "discriminator" in schema:
        out += _check_discriminator(index, pointer, schema)
    return out


def _check_union(index: Index, pointer: str, keyword: str, variants: list[Any]) -> list[Problem]:
    out = []
    tags = _TagIndex()
    methods: dict[tuple[str, str], int] = {}
    for j, variant in enumerate(variants):
        props, _ = object_view(index, variant)
        mine = {
            name: sub["const"]
            for name, sub in props.items()
            if isinstance(sub, dict) and isinstance(sub.get("const"), str)
        }
        clash = tags.first_clash(mine)
        if clash is not None:
            i, shared = clash
            same = ", ".join(f"{k}={mine[k]!r}" for k in shared)
            out.append(Problem(pointer, f"{keyword} variants {i} and {j} have the same tag {same}"))
        tags.add(j, mine)
        method = _method_of(index, variant)
        if method is not None:
            if method in methods:
                side, name = method
                out.append(
                    Problem(
                        pointer,
                        f"{keyword} variants {methods[method]} and {j} both stand for "
                        f"x-method {name!r} (x-side {side!r})",
                    )
                )
            else:
                methods[method] = j
    return out


class _TagIndex:
    """The tags (constant string properties) of a union's variants seen so far. Two
    variants collide when they share a tag property and agree on every shared one: then
    no tag value can tell them apart. Variants are grouped by their set of tag names, and
    each group indexed by the values of the names it shares with a newcomer, so a union
    of N variants with a few tag shapes costs O(N), not the O(N^2) of comparing pairs."""

    def __init__(self) -> None:
        self._groups: dict[frozenset[str], list[tuple[int, dict[str, str]]]] = {}
        # (group, shared names) -> values on those names -> the first variant with them
        self._by_values: dict[tuple[frozenset[str], tuple[str, ...]], dict[tuple[str, ...], int]]
        self._by_values = {}

    def first_clash(self, mine: dict[str, str]) -> tuple[int, tuple[str, ...]] | None:
        """The earliest variant seen that `mine` collides with, and the names shared."""
        best: tuple[int, tuple[str, ...]] | None = None
        for names, members in self._groups.items():
            shared = tuple(sorted(names & mine.keys()))
            if not shared:
                continue
            index = self._by_values.get((names, shared))
            if index is None:
                index = {}
                for i, theirs in members:
                    index.setdefault(tuple(theirs[k] for k in shared), i)
                self._by_values[(names, shared)] = index
            first = index.get(tuple(mine[k] for k in shared))
            if first is not None and (best is None or first < best[0]):
                best = (first, shared)
        return best

    def add(self, j: int, mine: dict[str, str]) -> None:
        names = frozenset(mine)
        self._groups.setdefault(names, []).append((j, mine))
        for (group, shared), index in self._by_values.items():
            if group == names:
                index.setdefault(tuple(mine[k] for k in shared), j)


def _check_discriminator(index: Index, pointer: str, schema: dict[str, Any]) -> list[Problem]:
    discriminator = schema["discriminator"]
    name = discriminator.get("propertyName") if isinstance(discriminator, dict) else None
    if not isinstance(name, str):
        return [
            Problem(
                pointer,
                "discriminator must be an object with a string propertyName, got "
                + short_json(discriminator),
            )
        ]
    keyword = "oneOf" if isinstance(schema.get("oneOf"), list) else "anyOf"
    variants = schema.get(keyword)
    if not isinstance(variants, list):
        return [Problem(pointer, "discriminator without oneOf/anyOf: nothing to discriminate")]
    out = []
    for i, variant in enumerate(variants):
        props, required = object_view(index, variant)
        if name not in props:
            missing = f"is not defined in {keyword} variant {i}"
        elif name not in required:
            missing = f"is not required by {keyword} variant {i}"
        else:
            continue
        out.append(Problem(pointer, f"discriminator property {name!r} {missing}"))
    return out


# --- required ----------------------------------------------------------------------------


def check_required(pointer: str, schema: dict[str, Any]) -> list[Problem]:
    required = schema.get("required")
    if schema.get("additionalProperties") is not False or not isinstance(required, list):
        return []
    props = schema.get("properties")
    declared = props if isinstance(props, dict) else {}
    raw_patterns = schema.get("patternProperties")
    patterns = list(raw_patterns) if isinstance(raw_patterns, dict) else []
    out = []
    for name in required:
        if not isinstance(name, str) or name in declared:
            continue
        # Matched by the linear-time engine the bindings use; a pattern it refuses is a
        # problem of its own (`schema_generation`), and may well match.
        if any(pattern_search(p, name) is not False for p in patterns):
            continue
        out.append(
            Problem(
                pointer,
                f"required property {name!r} is not in properties and additionalProperties "
                "is false, so no object can be valid",
            )
        )
    return out
