"""Which classes the bindings of a schema have, and where in the schema each one comes from.

The generator's naming pre-pass turns inline schemas into classes of their own: the
variants of a tagged union (`ClientRequestSessionNew`, `<Union>Other`), the titled
alternatives of an untagged union (`ProxyResponseResult`), a tagged union held by a
property. The schema diff reports such a class when it appears or goes away, and files it
under the definition it sits in, at the place the diff itself would name
(`ProxyResponse<title:Result>`), so it is listed beside the other changes there.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..schema_check import iter_subschemas
from ..schema_walk import unescape
from .schema_views import is_null_schema, join_location, keyed_members

_DEFS_REF = "#/$defs/"

# (definition, location) of a class: its home in the schema the user wrote
Home = tuple[str, str]


def binding_homes(
    doc: Mapping[str, Any], warnings: list[str], side: str
) -> tuple[set[str], dict[str, Home]] | None:
    """The class and alias names the generator gives `doc`, and the home of every class
    that is not a definition of `doc`; None (and a warning) when the pre-pass fails."""
    from ..generate.prepass import NamingError, prepass

    try:
        result = prepass(dict(doc))
    except NamingError as exc:
        warnings.append(f"{side}: binding names not compared: {exc}")
        return None
    except (LookupError, TypeError, ValueError, AttributeError) as exc:
        # The pre-pass expects an ACP-shaped schema; any other walkable one is still diffed.
        warnings.append(f"{side}: binding names not compared: the pre-pass failed ({exc!r})")
        return None
    raw = doc.get("$defs")
    original: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
    defs: dict[str, Any] = result.schema.get("$defs", {})
    tagged: dict[str, Home] = {}  # a tagged union's variants, by tag
    for union in result.unions.values():
        for tag, name in union.variants.items():
            tagged.setdefault(name, (union.name, f"<{union.tag_property}={tag}>"))
        if union.other is not None:
            tagged.setdefault(union.other, (union.name, "<other>"))
    homes = _Homes(original, defs, tagged)
    return set(defs), {name: homes.home(name) for name in sorted(defs) if name not in original}


class _Homes:
    def __init__(
        self, original: Mapping[str, Any], defs: Mapping[str, Any], tagged: Mapping[str, Home]
    ) -> None:
        self.original = original
        self.defs = defs
        self.tagged = tagged
        self.found: dict[str, Home] = {}
        # A hoisted class is referenced from where it was taken out: its parent.
        self.parents: dict[str, tuple[str, list[str]]] = {}
        for parent in sorted(defs):
            for pointer, node in iter_subschemas(defs[parent]):
                ref = node.get("$ref")
                if isinstance(ref, str) and ref.startswith(_DEFS_REF):
                    child = ref[len(_DEFS_REF) :]
                    if child not in original and child != parent:
                        self.parents.setdefault(child, (parent, _tokens(pointer)))

    def home(self, name: str, seen: frozenset[str] = frozenset()) -> Home:
        if name in self.found:
            return self.found[name]
        if name in self.original or name in seen:
            return name, ""
        seen |= {name}
        if name in self.tagged:
            union, place = self.tagged[name]
            definition, location = self.home(union, seen)
            found = definition, join_location(location, place)
        elif name in self.parents:
            parent, tokens = self.parents[name]
            definition, location = self.home(parent, seen)
            # Walk the parent as the user wrote it, so the place reads as the diff's own.
            node = self.original.get(parent, self.defs.get(parent))
            found = definition, join_location(location, _place(node, tokens))
        else:
            found = name, ""
        self.found[name] = found
        return found


def _tokens(pointer: str) -> list[str]:
    return [unescape(t) for t in pointer.split("/")[1:]]


def place(node: Any, pointer: str) -> str:
    """The diff's location of a JSON pointer into a definition (`/properties/id/allOf/0`
    -> `id`)."""
    return _place(node, _tokens(pointer))


def _place(node: Any, tokens: list[str]) -> str:
    """The diff's location (`result<title:Error>`, `items[]`) of a JSON pointer into `node`;
    the walk stops where `node` no longer has what the pointer names."""
    out = ""
    index = 0
    while index < len(tokens) and isinstance(node, dict):
        token = tokens[index]
        following = tokens[index + 1] if index + 1 < len(tokens) else ""
        if token == "properties" and isinstance(node.get(token), dict):
            out = join_location(out, following)
            node = node[token].get(following)
            index += 2
        elif token in ("anyOf", "oneOf", "allOf") and following.isdigit():
            members = node.get(token)
            position = int(following)
            if not isinstance(members, list) or position >= len(members):
                break
            member = members[position]
            rest = [m for m in members if not is_null_schema(m)]
            # allOf wraps a reference; `anyOf: [X, null]` is X, nullable: no place of their own
            at = [i for i, m in enumerate(rest) if m is member]
            if token != "allOf" and len(rest) > 1 and at:
                out = join_location(out, f"<{list(keyed_members(rest))[at[0]]}>")
            node = member
            index += 2
        elif token == "items":
            out = join_location(out, "[]")
            node = node.get(token)
            index += 1
        elif token == "additionalProperties":
            out = join_location(out, "*")
            node = node.get(token)
            index += 1
        else:
            break
    return out
