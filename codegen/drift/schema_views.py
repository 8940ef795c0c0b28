"""How the schema diff reads one schema node: references, nullability, union members and a
short summary.

ACP wraps a reference with a description as ``allOf: [{$ref}]``, writes nullability either
as ``type: [X, "null"]`` or as a ``{"type": "null"}`` union member, and marks the open
variant of a union with ``not``. These helpers see through those spellings so that the
diff compares what a schema means, not how it is written.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from ..schema_check import json_type
from ..schema_refs import ref_target
from .schema_structure import DOC_ONLY_KEYWORDS

_MAX_SUMMARY = 80
_MAX_MEMBERS_SHOWN = 4


def join_location(location: str, rest: str) -> str:
    """`a.b` + `c` -> `a.b.c`; members and items attach without a dot."""
    if not location or not rest:
        return location or rest
    return location + rest if rest[0] in "<[" else f"{location}.{rest}"


def ref_name(ref: str) -> str:
    """The definition name a ref stands for, however escaped (`#/$defs/A~1B` -> `A/B`);
    any other ref (the root, a pointer into a definition) as written."""
    target = ref_target(ref)
    return target[1] if target is not None else ref


def is_local_ref(ref: str) -> bool:
    """A ref into this document (a JSON pointer or an anchor), which the diff follows."""
    return ref.startswith("#")


def as_object(node: Any) -> Any:
    """A boolean schema as the object schema that means the same: `true` is `{}`,
    `false` is `{"not": {}}`; anything else as it is."""
    if node is True:
        return {}
    if node is False:
        return {"not": {}}
    return node


def ref_of(node: Mapping[str, Any]) -> str | None:
    """The ref a schema stands for: `$ref`, or the `allOf: [{$ref}]` wrapper ACP uses."""
    ref = node.get("$ref")
    if isinstance(ref, str):
        return ref
    all_of = node.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        inner = all_of[0]
        if isinstance(inner.get("$ref"), str) and not (set(inner) - DOC_ONLY_KEYWORDS - {"$ref"}):
            return str(inner["$ref"])
    return None


def without_ref(node: Mapping[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in node.items() if k != "$ref"}
    if "$ref" not in node and ref_of(node) is not None:
        out.pop("allOf")
    return out


def is_null_schema(node: Any) -> bool:
    return (
        isinstance(node, dict)
        and node.get("type") == "null"
        and not (set(node) - DOC_ONLY_KEYWORDS - {"type"})
    )


def union_keyword(node: Mapping[str, Any]) -> str | None:
    for keyword in ("anyOf", "oneOf"):
        if isinstance(node.get(keyword), list):
            return keyword
    return None


def split_null(node: Mapping[str, Any]) -> tuple[bool, dict[str, Any]]:
    """(accepts null, the schema without its null alternative)."""
    core = dict(node)
    nullable = False
    kind = node.get("type")
    if isinstance(kind, list) and "null" in kind and len(kind) > 1:
        nullable = True
        rest = [t for t in kind if t != "null"]
        core["type"] = rest[0] if len(rest) == 1 else rest
    keyword = union_keyword(node)
    if keyword is not None:
        members = node[keyword]
        rest_members = [m for m in members if not is_null_schema(m)]
        if rest_members and len(rest_members) < len(members):
            nullable = True
            only = rest_members[0]
            mergeable = (
                len(rest_members) == 1
                and isinstance(only, dict)
                and not (set(core) - {keyword} - DOC_ONLY_KEYWORDS) & set(only)
                and "type" not in core
                and "properties" not in core
            )
            if mergeable:  # `anyOf: [X, null]` is X, nullable
                del core[keyword]
                core.update(only)
            else:
                core[keyword] = rest_members
    return nullable, core


def types_of(node: Mapping[str, Any]) -> frozenset[str] | None:
    kind = node.get("type")
    if isinstance(kind, str):
        return frozenset({kind})
    if isinstance(kind, list):
        return frozenset(t for t in kind if isinstance(t, str))
    return None  # any type


def dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def tag_of(member: Mapping[str, Any]) -> tuple[str, str] | None:
    props = member.get("properties")
    required = member.get("required")
    if not isinstance(props, dict) or not isinstance(required, list):
        return None
    for name in sorted(props):
        sub = props[name]
        if isinstance(sub, dict) and isinstance(sub.get("const"), str) and name in required:
            return name, sub["const"]
    return None


MemberKind = Literal["tag", "other", "null", "const", "ref", "title", "type", "position"]


def member_kind(member: Any, index: int) -> tuple[MemberKind, str]:
    """What identifies a union member across versions (see the module docstring)."""
    if not isinstance(member, dict):
        return "position", f"#{index}"
    tag = tag_of(member)
    if tag is not None:
        return "tag", f"{tag[0]}={tag[1]}"
    if "not" in member:
        return "other", "other"
    if is_null_schema(member):
        return "null", "null"
    if "const" in member:
        return "const", "const:" + dump(member["const"])
    ref = ref_of(member)
    if ref is not None:
        return "ref", "ref:" + ref_name(ref)
    title = member.get("title")
    if isinstance(title, str):
        return "title", "title:" + title
    kind = member.get("type")
    if isinstance(kind, str):
        return "type", "type:" + kind
    return "position", f"#{index}"


def keyed_members(members: list[Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for index, member in enumerate(members):
        key = member_kind(member, index)[1]
        if key in out:  # two members look alike: keep both, apart by position
            key = f"{key}#{index}"
        out[key] = member
    return out


def is_open_for(members: Mapping[str, Any], member: Any) -> bool:
    """Does a union with `members` accept `member`'s values without knowing it?"""
    kind = member_kind(member, 0)[0]
    if kind == "tag":
        return "other" in members  # the open variant takes unknown tags
    if kind == "const":
        value_type = json_type(member.get("const"))
        return any(
            isinstance(m, dict)
            and m.get("type") == value_type
            and not ({"const", "enum", "not"} & set(m))
            for m in members.values()
        )
    return False


def summary(node: Any, depth: int = 0) -> str:
    """A short type-like description of a schema: names, types and values, no prose."""
    text = _summary(node, depth)
    return text if len(text) <= _MAX_SUMMARY else text[: _MAX_SUMMARY - 3] + "..."


def _summary(node: Any, depth: int) -> str:
    if node is True:
        return "any"
    if node is False:
        return "nothing"
    if not isinstance(node, dict):
        return dump(node)
    nullable, core = split_null(node)
    ref = ref_of(core)
    keyword = union_keyword(core)
    if ref is not None:
        text = ref_name(ref)
    elif "const" in core:
        text = dump(core["const"])
    elif isinstance(core.get("enum"), list):
        text = " | ".join(dump(v) for v in core["enum"])
    elif keyword is not None:
        members = core[keyword]
        if depth > 0:
            text = f"union of {len(members)}"
        else:
            shown = [_member_summary(m, i) for i, m in enumerate(members[:_MAX_MEMBERS_SHOWN])]
            more = len(members) - len(shown)
            text = " | ".join(shown) + (f" | ... ({more} more)" if more > 0 else "")
    else:
        kinds = types_of(core)
        if kinds is None:
            text = "any"
        else:
            parts = []
            for kind in sorted(kinds):
                if kind == "array" and isinstance(core.get("items"), dict):
                    parts.append(f"array of {_summary(core['items'], depth + 1)}")
                elif kind in ("integer", "string") and isinstance(core.get("format"), str):
                    parts.append(f"{kind} ({core['format']})")
                else:
                    parts.append(kind)
            text = " | ".join(parts)
    return f"{text} | null" if nullable else text


def _member_summary(member: Any, index: int) -> str:
    kind, key = member_kind(member, index)
    if kind in ("tag", "other"):
        return key  # a tag value says more than "object"
    return _summary(member, 1)


# Keywords that can rule out a value whatever its type; every other keyword only applies
# to values of one type (`properties` to objects, `minimum` to numbers, ...).
_TYPE_CONSTRAINING = frozenset(
    {"type", "const", "enum", "$ref", "$dynamicRef", "allOf", "anyOf", "oneOf", "not", "if"}
)


def accepts_null(node: Any) -> bool:
    """Does `node` accept `null` without saying so, because it constrains no type?

    Conservative: a schema behind a reference or a combinator counts as not accepting it.
    """
    if node is True:
        return True
    return isinstance(node, dict) and not (_TYPE_CONSTRAINING & set(node))


def is_any(node: Any) -> bool:
    """Does `node` accept every value (`true`, `{}`, or only documentation)?"""
    return node is True or (isinstance(node, dict) and not (set(node) - DOC_ONLY_KEYWORDS))


def accepts_extra(node: Mapping[str, Any]) -> bool:
    return node.get("additionalProperties") is not False and (
        node.get("unevaluatedProperties") is not False
    )
