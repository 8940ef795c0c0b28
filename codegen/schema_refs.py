"""`$ref` resolution, local refs only (JSON pointers and `$anchor`s) and hand-rolled so
that a malformed document can still be checked, and the checks built on it: refs that do
not resolve, and schemas that refer back to themselves before describing any value.

The one reading of a ref for every tool: `schema check`, the generator's pre-pass and
method table, and `diff` resolve with `Index.resolve` / `resolve_ref`, and name the
definition a ref stands for with `ref_target` (a URI fragment is percent-decoded first,
then split into RFC 6901 tokens, `~1` and `~0` unescaped)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import suppress
from typing import Any
from urllib.parse import unquote

from .schema_problems import Problem, kind_of
from .schema_walk import escape, iter_subschemas, unescape

# Guards against $ref / allOf cycles when looking through variants.
MAX_DEPTH = 32


DEFINITION_KEYS = ("$defs", "definitions")


class Unresolvable(Exception):
    """A ref that does not resolve; the message says why."""


def ref_target(ref: object) -> tuple[str, str] | None:
    """(container key, definition name) of a ref to a whole definition (`#/$defs/Name`,
    `#/definitions/Name`, spelt with any escapes); None for any other ref (the root,
    a pointer inside a definition, an anchor, another document)."""
    if not isinstance(ref, str):
        return None
    for key in DEFINITION_KEYS:
        prefix = f"#/{key}/"
        if ref.startswith(prefix):
            token = unquote(ref[len(prefix) :])
            if "/" in token:
                return None  # points inside a definition
            return key, unescape(token)
    return None


def resolve_ref(doc: object, ref: str) -> object:
    """What a local JSON-pointer ref (`#`, `#/$defs/A~1B`, `#/$defs/A/properties/b`)
    points to in `doc`; Unresolvable otherwise (anchors need an `Index`)."""
    fragment = unquote(ref[1:]) if ref.startswith("#") else None
    if fragment is None or (fragment and not fragment.startswith("/")):
        raise Unresolvable("not a JSON pointer into this document")
    return _resolve_pointer(doc, fragment)


class Index:
    """What ref resolution needs to know about the whole document."""

    def __init__(self, doc: dict[str, Any], subschemas: list[tuple[str, dict[str, Any]]]):
        self.doc = doc
        self.schema_ids = {id(s) for _, s in subschemas}
        self.anchors: dict[str, dict[str, Any]] = {}
        for _, schema in subschemas:
            for keyword in ("$anchor", "$dynamicAnchor"):
                name = schema.get(keyword)
                if isinstance(name, str):
                    self.anchors.setdefault(name, schema)

    def resolve(self, ref: str) -> object:
        """The schema a local ref points to; Unresolvable with the reason otherwise.

        Hand-rolled rather than via `referencing`, which assumes a valid schema and
        crashes on the malformed documents this module exists to report.
        """
        if not ref.startswith("#"):
            raise Unresolvable(
                "it points outside this document; only local refs ('#...') are supported"
            )
        fragment = unquote(ref[1:])  # a URI fragment: percent-decode before ~ escapes
        if fragment and not fragment.startswith("/"):
            if fragment not in self.anchors:
                raise Unresolvable(f"no schema declares $anchor {fragment!r}")
            return self.anchors[fragment]
        target = resolve_ref(self.doc, ref)
        if isinstance(target, bool) or (isinstance(target, dict) and id(target) in self.schema_ids):
            return target
        raise Unresolvable(f"it points to {kind_of(target)} that is not in a schema position")


def _resolve_pointer(doc: object, pointer: str) -> object:
    node = doc
    seen = ""
    for raw in pointer.split("/")[1:]:
        if re.search(r"~(?![01])", raw):
            raise Unresolvable(f"{raw!r} has an invalid escape (only ~0 and ~1 are allowed)")
        token = unescape(raw)
        if isinstance(node, dict):
            if token not in node:
                raise Unresolvable(f"there is no {token!r} in #{seen}")
            node = node[token]
        elif isinstance(node, list):
            if not re.fullmatch(r"0|[1-9][0-9]*", token) or int(token) >= len(node):
                raise Unresolvable(f"#{seen} has no item {token!r}")
            node = node[int(token)]
        else:
            raise Unresolvable(f"#{seen} is {kind_of(node)}, it has no {token!r}")
        seen += "/" + raw
    return node


def check_refs(index: Index, pointer: str, schema: dict[str, Any]) -> list[Problem]:
    out = []
    for keyword in ("$ref", "$dynamicRef"):
        ref = schema.get(keyword)
        if not isinstance(ref, str):
            continue  # a non-string is a meta-schema error
        try:
            index.resolve(ref)
        except Unresolvable as exc:
            out.append(Problem(pointer, f"{keyword} {ref!r} does not resolve: {exc}"))
    return out


# Keywords that apply a subschema to the same value (not to a part of it): a loop through
# them alone never reaches anything that describes a value.
_IN_PLACE_LIST = ("allOf", "anyOf", "oneOf")
_IN_PLACE_ONE = ("not", "if", "then", "else")


def _in_place(index: Index, schema: dict[str, Any]) -> Iterator[object]:
    """The subschemas `schema` applies to the very value it is given."""
    for keyword in ("$ref", "$dynamicRef"):
        ref = schema.get(keyword)
        if isinstance(ref, str):
            with suppress(Unresolvable):  # reported by check_refs
                yield index.resolve(ref)
    for keyword in _IN_PLACE_LIST:
        value = schema.get(keyword)
        if isinstance(value, list):
            yield from value
    for keyword in _IN_PLACE_ONE:
        yield schema.get(keyword)
    dependent = schema.get("dependentSchemas")
    if isinstance(dependent, dict):
        yield from dependent.values()


def check_cycles(index: Index, subschemas: list[tuple[str, dict[str, Any]]]) -> list[Problem]:
    """Schemas that refer back to themselves (`$ref` to itself, A -> B -> A, an allOf that
    includes itself) before describing any part of a value. Validating against one never
    ends and datamodel-codegen finds no model in it. Depth-first, without recursion."""
    where = {id(s): p for p, s in reversed(subschemas)}  # the first pointer of each schema
    state: dict[int, bool] = {}  # True while on the current path, False when done
    out = []
    for _, root in subschemas:
        if id(root) in state:
            continue
        path = [root]
        pending = [_in_place(index, root)]
        state[id(root)] = True
        while pending:
            child = next(pending[-1], None)
            if child is None:
                state[id(path.pop())] = False
                pending.pop()
                continue
            if not isinstance(child, dict) or id(child) not in where:
                continue  # a boolean schema, or a malformed value the meta-schema reports
            seen = state.get(id(child))
            if seen:
                loop = [*path[[id(s) for s in path].index(id(child)) :], child]
                chain = " -> ".join(f"#{where[id(s)]}" for s in loop)
                out.append(
                    Problem(
                        where[id(child)],
                        f"refers to itself before describing any part of a value ({chain}); "
                        "validating against it never ends and nothing can be generated from it",
                    )
                )
            elif seen is None:
                state[id(child)] = True
                path.append(child)
                pending.append(_in_place(index, child))
    return out


def follow(index: Index, schema: object) -> object:
    """The target of a bare ``$ref`` schema, or the schema itself."""
    for _ in range(MAX_DEPTH):
        if not (isinstance(schema, dict) and isinstance(schema.get("$ref"), str)):
            break
        try:
            schema = index.resolve(schema["$ref"])
        except Unresolvable:
            break
    return schema


def object_view(index: Index, schema: object) -> tuple[dict[str, Any], set[str]]:
    """Properties and required names of an object (a union variant), through $ref and allOf."""
    props: dict[str, Any] = {}
    required: set[str] = set()
    seen: set[int] = set()
    todo = [(schema, 0)]
    while todo:
        cur, depth = todo.pop()
        if not isinstance(cur, dict) or id(cur) in seen or depth > MAX_DEPTH:
            continue
        seen.add(id(cur))
        own = cur.get("properties")
        if isinstance(own, dict):
            for name, sub in own.items():
                props.setdefault(name, sub)  # the variant's own definition wins
        if isinstance(cur.get("required"), list):
            required.update(r for r in cur["required"] if isinstance(r, str))
        if isinstance(cur.get("$ref"), str):
            todo.append((follow(index, {"$ref": cur["$ref"]}), depth + 1))
        if isinstance(cur.get("allOf"), list):
            todo.extend((sub, depth + 1) for sub in reversed(cur["allOf"]))
    return props, required


# --- depth of the definition graph ---------------------------------------------------------
# How deep the definitions of a document nest: the longest chain of definitions each
# referring to the next, a group of definitions that refer to each other (a ring) counting
# as many links as it has members. pydantic builds a model's validator by recursing through
# the models it holds, so a chain past a few dozen links exhausts Python's recursion limit:
# the package fails on first use, or `generate` stops with "maximum recursion depth
# exceeded". `schema check` refuses a document deeper than MAX_DEFINITION_DEPTH, naming the
# definition the deepest chain starts from (docs/bindings.md).
#
# Everything here is iterative: the point is to measure a depth without recursing that deep.

# Measured: chains and rings of 60 object definitions build and decode at Python's default
# recursion limit, 100 do not; the bundled ACP schemas nest 10 (v1) and 12 (v2) deep.
MAX_DEFINITION_DEPTH = 48


def _edges(doc: dict[str, Any]) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """Each definition -> the definitions its schema refers to (anywhere inside it)."""
    nodes: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for key in ("$defs", "definitions"):
        defs = doc.get(key)
        if not isinstance(defs, dict):
            continue
        for name, schema in defs.items():
            targets = []
            for _, sub in iter_subschemas(schema):
                target = ref_target(sub.get("$ref"))
                if target is not None:
                    targets.append(target)
            nodes[(key, name)] = targets
    return {
        node: [t for t in dict.fromkeys(targets) if t in nodes] for node, targets in nodes.items()
    }


def _components(edges: dict[Any, list[Any]]) -> dict[Any, int]:
    """Node -> its strongly connected component (Tarjan's algorithm, without recursion)."""
    index: dict[Any, int] = {}
    low: dict[Any, int] = {}
    on_stack: set[Any] = set()
    stack: list[Any] = []
    component: dict[Any, int] = {}
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(edges[child])))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                number = len(set(component.values()))
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component[member] = number
                    if member == node:
                        break
    return component


def definition_depth(doc: dict[str, Any]) -> tuple[int, tuple[str, str] | None]:
    """The longest chain of definitions (a ring counts its size) and where it starts."""
    edges = _edges(doc)
    component = _components(edges)
    size: dict[int, int] = {}
    for number in component.values():
        size[number] = size.get(number, 0) + 1
    after: dict[int, set[int]] = {number: set() for number in size}
    for node, targets in edges.items():
        after[component[node]].update(component[t] for t in targets)
    for number, nexts in after.items():
        nexts.discard(number)
    # Tarjan numbers a component after every component it reaches: ascending order is a
    # valid order to compute the longest chain from each one.
    depth: dict[int, int] = {}
    for number in sorted(size):
        depth[number] = size[number] + max((depth[n] for n in after[number]), default=0)
    if not depth:
        return 0, None
    deepest = max(depth, key=lambda n: depth[n])
    start = next(node for node, number in component.items() if number == deepest)
    return depth[deepest], start


def check_depth(doc: dict[str, Any]) -> list[Problem]:
    depth, start = definition_depth(doc)
    if depth <= MAX_DEFINITION_DEPTH or start is None:
        return []
    key, name = start
    return [
        Problem(
            f"/{key}/{escape(name)}",
            f"definitions nest {depth} deep from here (a chain of definitions each holding the "
            f"next; a ring counts its members): the bindings build at most "
            f"{MAX_DEFINITION_DEPTH}; cannot be generated",
        )
    ]
