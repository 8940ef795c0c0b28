"""Proof `local-name`: the name is one of the program's own names, not a field: a
parameter, a variable (local or global, a loop or `with` target), a function or a class
of that name. Not when its scope turns names into keys (`locals()`, `vars()`, and
`globals()` at module level), and not for an import of the name (it may be a field
name held by another module)."""

from __future__ import annotations

import libcst as cst

from acp_schema.migrations.chunk_identity.accounting.proofs.context import ProofContext, Site
from acp_schema.migrations.chunk_identity.accounting.proofs.member import owner_of
from acp_schema.migrations.framework.examples import Invalid, Valid
from acp_schema.migrations.framework.syntax import chain

KIND = "local-name"
NAME_TABLES = frozenset({"locals", "vars", "globals"})


def prove(context: ProofContext, site: Site) -> str | None:
    name = site.inner
    if not isinstance(name, cst.Name) or site.occurrence.in_string:
        return None
    parent = context.parent(name)
    if not _program_name(context, name, parent):
        return None
    if owner_of(context, name) is not None:
        return None  # a class member: `class-member` decides
    scope = _scope_node(context, name)
    if _uses_name_tables(scope):
        return None
    if isinstance(parent, cst.Param):
        return "a parameter of that name: a local value, not a chunk field"
    if isinstance(parent, cst.FunctionDef | cst.ClassDef):
        return "a function or class of that name, not a chunk field"
    return "a variable of that name: a value of the program, not a chunk field"


def _program_name(context: ProofContext, name: cst.Name, parent: cst.CSTNode | None) -> bool:
    """Not an attribute, a keyword, a pattern key or an imported name."""
    if isinstance(parent, cst.Attribute):
        return parent.value is name
    if isinstance(parent, cst.Arg):
        return parent.keyword is not name
    if isinstance(parent, cst.MatchKeywordElement):
        return parent.key is not name
    if isinstance(parent, cst.AsName):
        return not isinstance(context.parent(parent), cst.ImportAlias)
    return not isinstance(parent, cst.ImportAlias)


def _scope_node(context: ProofContext, name: cst.Name) -> cst.CSTNode:
    for current in context.facts.ancestors(name):
        if isinstance(current, cst.FunctionDef | cst.Lambda):
            return current
    return context.facts.module


def _uses_name_tables(scope: cst.CSTNode) -> bool:
    found = False

    class Finder(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            nonlocal found
            if chain(node.func) in NAME_TABLES and not node.args:
                found = True

    scope.visit(Finder())
    return found


EXAMPLES = (
    Valid(
        """
        from acp_schema.v2 import SessionMessage, SessionMessageChunk

        def announce(conn, mid, sender_session_id):
            upsert = SessionMessage(message_id=mid, sender_session_id=sender_session_id)
            return conn.send(upsert)
        """,
        why="a parameter, and its use as the value of a SessionMessage keyword",
    ),
    Invalid(
        """
        from acp_schema.v2 import SessionMessageChunk

        def build(message_id, content, sender_session_id):
            return SessionMessageChunk(**locals())
        """,
        lines=(3, 4),
        why="locals() makes the parameter's name a keyword of the chunk",
    ),
)
