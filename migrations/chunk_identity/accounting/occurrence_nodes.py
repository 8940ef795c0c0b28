"""The node each occurrence of a removed name stands at: a name outside strings, a
top-level string literal, or inside an f-string the replacement field it is in; and the
classes the module builds as chunk payloads. Used by `accounting`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import libcst as cst
from libcst.metadata import CodeRange

from acp_schema.migrations.chunk_identity.accounting.occurrences import (
    REMOVED_NAMES,
    Occurrence,
    names_in_text,
    nfkc,
)
from acp_schema.migrations.chunk_identity.candidates import TAG_KEYS
from acp_schema.migrations.framework.syntax import code, string_value
from acp_schema.migrations.resolution.bindings import CHUNK_TAG
from acp_schema.migrations.resolution.facts import Facts

Position = tuple[int, int]


def tagged_call(call: cst.Call) -> str | None:
    """The tag a call passes as `sessionUpdate=` / `session_update=`."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in TAG_KEYS:
            return string_value(arg.value)
    return None


def pos(where: Any) -> Position:
    return (where.line, where.column)


class NodeIndex:
    """The nodes the occurrences start at (names outside strings, top-level string
    literals), and the classes called with the chunk tag. Read from the position
    metadata already computed, not by another walk of the tree."""

    def __init__(self, facts: Facts, wanted: set[Position]) -> None:
        self.facts = facts
        self.names: dict[Position, cst.Name] = {}
        self.strings: dict[Position, cst.CSTNode] = {}
        # Names of classes called with the chunk tag (`Payload(sessionUpdate=...)`).
        self.chunk_built: set[str] = set()
        for node, where in facts.positions().items():
            if isinstance(node, cst.Name):
                self._name(node, where)
            elif isinstance(node, cst.SimpleString | cst.FormattedString):
                start = pos(where.start)
                if start in wanted and not self._in_fstring(node):
                    self.strings[start] = node
            elif (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Name)
                and tagged_call(node) == CHUNK_TAG
            ):
                self.chunk_built.add(node.func.value)

    def _name(self, node: cst.Name, where: CodeRange) -> None:
        if nfkc(node.value) in REMOVED_NAMES:
            start = pos(where.start)
            if not self._in_fstring(node):
                self.names[start] = node

    def _in_fstring(self, node: cst.CSTNode) -> bool:
        """Inside an f-string, whose whole text is the occurrence's literal."""
        for current in self.facts.ancestors(node):
            if isinstance(current, cst.FormattedString):
                return True
            if isinstance(current, cst.BaseStatement):
                return False
        return False

    def node_for(self, occurrence: Occurrence) -> cst.CSTNode | None:
        where = (occurrence.line, occurrence.column)
        if occurrence.in_string:
            return self.strings.get(where)
        return self.names.get(where)

    def inner_node(self, node: cst.CSTNode, occurrence: Occurrence) -> cst.CSTNode | None:
        """The node inside a string literal the occurrence is: the literal itself, or
        for an f-string the name or string of a replacement field (None: its text)."""
        if not isinstance(node, cst.FormattedString):
            return node
        seen = 0
        for part, inner in _fstring_parts(node):
            count = len(names_in_text(code(part) if inner is None else _text(inner)))
            if seen + count > occurrence.rank:
                return inner
            seen += count
        return None

    def inner_position(self, node: cst.CSTNode, occurrence: Occurrence) -> Position | None:
        inner = self.inner_node(node, occurrence)
        if inner is None or inner is node:
            return None
        return self.facts.position(inner)


def _fstring_parts(node: cst.FormattedString) -> Iterator[tuple[cst.CSTNode, cst.CSTNode | None]]:
    """(part, the node an occurrence in it is) in source order; None for text."""
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            yield part, None
            continue
        for inner in _occurrence_nodes(part):
            yield inner, inner


def _occurrence_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []

    class Finder(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            if name.value in REMOVED_NAMES:
                found.append(name)

        def visit_SimpleString(self, string: cst.SimpleString) -> None:
            if names_in_text(string.value):
                found.append(string)

        def visit_FormattedString(self, string: cst.FormattedString) -> bool:
            if names_in_text(code(string)):
                found.append(string)
            return False

    node.visit(Finder())
    return found


def _text(node: cst.CSTNode) -> str:
    return node.value if isinstance(node, cst.Name) else code(node)
