"""How deep the definitions of a document nest: the longest chain of definitions each
referring to the next, a group of definitions that refer to each other (a ring) counting
as many links as it has members. pydantic builds a model's validator by recursing through
the models it holds, so a chain past a few dozen links exhausts Python's recursion limit:
the package fails on first use, or `generate` stops with "maximum recursion depth
exceeded". `schema check` refuses a document deeper than MAX_DEFINITION_DEPTH, naming the
definition the deepest chain starts from (docs/bindings.md).

Everything here is iterative: the point is to measure a depth without recursing that deep.
"""

from __future__ import annotations

from typing import Any

from .schema_problems import Problem
from .schema_refs import ref_target
from .schema_walk import escape, iter_subschemas

# Measured: chains and rings of 60 object definitions build and decode at Python's default
# recursion limit, 100 do not; the bundled ACP schemas nest 16 (v1) and 17 (v2) deep.
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
