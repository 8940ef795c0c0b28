"""Which definitions are a method's request params, notification params or result.

Read from the schema's own markers, never from definition names:

* `x-method` and `x-side` on a definition name the method and the side that handles it;
* the JSON-RPC envelopes say what role a definition plays. An object schema with `method`
  and `params` properties whose params may be definitions carrying `x-method` is a request
  envelope when it also has an `id` property, else a notification envelope; an object
  schema with a `result` property whose value may be such definitions is a response
  envelope (`AgentRequest`, `AgentNotification`, `AgentResponse`, ... in ACP, or inline in
  the root `anyOf`, wherever they sit).

A result is tied to its request by equal (`x-method`, `x-side`). A result without a request
definition is a method without params. A method may be both a request and a notification
on one side (`proxy/successor` in ACP 2.4.0): it gets one entry of each kind.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from .schema_refs import DEFINITION_KEYS, ref_target
from .schema_walk import escape, iter_subschemas

_MAX_DEPTH = 16

Kind = Literal["request", "notification"]


@dataclass(frozen=True, order=True)
class MethodEntry:
    """One row of the method table, by definition name."""

    name: str  # the x-method value
    side: str  # the x-side value
    kind: Kind
    params: str | None  # None: the method takes no params
    result: str | None = None  # None for a notification


@dataclass
class MethodRoles:
    entries: list[MethodEntry] = field(default_factory=list)
    # (pointer, message, is_error) for what the reader could not place.
    findings: list[tuple[str, str, bool]] = field(default_factory=list)


def definitions(doc: dict[str, Any]) -> Iterator[tuple[str, str, Any]]:
    """(container key, name, schema) of every root-level definition."""
    for key in DEFINITION_KEYS:
        container = doc.get(key)
        if isinstance(container, dict):
            for name, body in container.items():
                yield key, name, body


class _Reader:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.defs = {(key, name): body for key, name, body in definitions(doc)}

    def method_of(self, target: tuple[str, str]) -> tuple[str, str] | None:
        body = self.defs.get(target)
        if not isinstance(body, dict):
            return None
        method, side = body.get("x-method"), body.get("x-side")
        if isinstance(method, str) and method and isinstance(side, str) and side:
            return method, side
        return None

    def methods_in(self, schema: object, depth: int = 0) -> list[tuple[str, str]]:
        """The definitions with `x-method` that a union position may stand for."""
        if not isinstance(schema, dict) or depth > _MAX_DEPTH:
            return []
        found: list[tuple[str, str]] = []
        target = ref_target(schema.get("$ref"))
        if target is not None:
            if self.method_of(target) is not None:
                found.append(target)
            else:
                found += self.methods_in(self.defs.get(target), depth + 1)
        for key in ("anyOf", "oneOf", "allOf"):
            variants = schema.get(key)
            if isinstance(variants, list):
                for variant in variants:
                    found += self.methods_in(variant, depth + 1)
        return found

    def read(self) -> MethodRoles:
        roles: dict[str, dict[tuple[str, str], list[str]]] = {
            "request": {},
            "notification": {},
            "result": {},
        }
        # (role, x-method, x-side) -> pointers of the envelopes that name a definition for it
        where: dict[tuple[str, str, str], set[str]] = {}
        placed: set[tuple[str, str]] = set()
        for pointer, node in iter_subschemas(self.doc):
            props = node.get("properties")
            if not isinstance(props, dict):
                continue
            slots = []
            if "method" in props and "params" in props:
                slots.append(("request" if "id" in props else "notification", props["params"]))
            if "result" in props:
                slots.append(("result", props["result"]))
            for role, schema in slots:
                for target in self.methods_in(schema):
                    named = self.method_of(target)
                    assert named is not None
                    names = roles[role].setdefault(named, [])
                    if target[1] not in names:
                        names.append(target[1])
                        where.setdefault((role, named[0], named[1]), set()).add(pointer)
                    placed.add(target)
        out = MethodRoles()
        for role, by_method in roles.items():
            for (method, side), names in sorted(by_method.items()):
                # Two in one union are reported by the union check; here those of two unions.
                if len(names) > 1 and len(where[(role, method, side)]) > 1:
                    listed = ", ".join(sorted(names))
                    out.findings.append(
                        ("", f"x-method {method!r} (x-side {side!r}) has several {role} "
                         f"definitions ({listed}): the method table would be ambiguous", True)
                    )  # fmt: skip
        requests, results = roles["request"], roles["result"]
        for (method, side), names in requests.items():
            result = results[(method, side)][0] if (method, side) in results else None
            out.entries.append(MethodEntry(method, side, "request", names[0], result))
        for (method, side), names in results.items():
            if (method, side) not in requests:  # a method without params
                out.entries.append(MethodEntry(method, side, "request", None, names[0]))
        for (method, side), names in roles["notification"].items():
            out.entries.append(MethodEntry(method, side, "notification", names[0]))
        out.entries.sort()
        for (key, name), _ in sorted(self.defs.items()):
            if self.method_of((key, name)) is not None and (key, name) not in placed:
                out.findings.append(
                    (f"/{key}/{escape(name)}",
                     "has x-method, but no request, notification or response envelope "
                     "refers to it: it is left out of the method table", False)
                )  # fmt: skip
        return out


def read_method_roles(doc: dict[str, Any]) -> MethodRoles:
    """The method table of a schema, by definition name, and what could not be placed."""
    return _Reader(doc).read()
