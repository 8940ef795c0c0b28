"""What every proof kind gets: the occurrence, the node it stands at, and the module's
facts (`resolution.Facts` for names, `resolution.ValueEvidence` for values)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst

from acp_schema.migrations.chunk_identity.accounting.occurrences import Occurrence
from acp_schema.migrations.framework.syntax import chain, string_value
from acp_schema.migrations.resolution.bindings import CHUNK_TAG
from acp_schema.migrations.resolution.facts import Facts
from acp_schema.migrations.resolution.module_symbols import definition
from acp_schema.migrations.resolution.value_evidence import ValueEvidence

TAG_KEYS = frozenset({"sessionUpdate", "session_update"})


@dataclass(frozen=True)
class Site:
    """An occurrence and where it stands: `node` is the name token's `cst.Name` or the
    string literal holding it; `inner` is, for an f-string, the node of the replacement
    field the name is in (None for the f-string's own text), else `node` itself."""

    occurrence: Occurrence
    node: cst.CSTNode
    inner: cst.CSTNode | None


@dataclass
class ProofContext:
    facts: Facts
    values: ValueEvidence
    # Names of the module's classes called with the chunk tag (`Payload(sessionUpdate=...)`).
    chunk_built: set[str] = field(default_factory=set)

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        return self.facts.parent(node)

    def tag_value(self, node: cst.BaseExpression | None) -> str | None:
        """The tag an expression holds when the code shows it: a string literal, or a
        name or attribute bound once, in this module or another of the run, to one."""
        if node is None:
            return None
        literal = string_value(node)
        if literal is not None:
            return literal
        names: list[str] = []
        if isinstance(node, cst.Name | cst.Attribute):
            dotted = chain(node)
            names = self.values.resolver(node)(dotted) if dotted else []
        found = {self._constant(q) for q in names}
        return found.pop() if len(found) == 1 else None

    def _constant(self, qualified: str) -> str | None:
        """A module constant's string, or an Enum member's (`Kind.MESSAGE`)."""
        lookup = self.values.oracle.symbols
        target = definition(lookup, qualified)
        if target is not None:
            return _string_of(target.node)
        owner, _, member = qualified.rpartition(".")
        enum = definition(lookup, owner)
        if enum is None or not isinstance(enum.node, ast.ClassDef):
            return None
        for statement in enum.node.body:
            if isinstance(statement, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == member for t in statement.targets
            ):
                return _string_of(statement)
        return None


def _string_of(node: ast.stmt) -> str | None:
    value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value
    return None


def other_tag(tag: str | None) -> bool:
    return tag is not None and tag != CHUNK_TAG


Prover = Callable[[ProofContext, Site], "str | None"]
