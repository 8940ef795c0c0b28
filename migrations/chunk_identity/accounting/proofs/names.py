"""Proof `local-name`: the name is one of the program's own names, not a field: a
parameter, a variable (local or global, a loop or `with` target), a function or a class
of that name. Not when its scope turns names into keys (`locals()`, `vars()`, and
`globals()` at module level), not for an import of the name (it may be a field name
held by another module), and not for a parameter that may be filled from a mapping's key
(its function takes `**kwargs`, is called with `**` in its module, or is used other than
by a direct call; a lambda's)."""

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
        if _filled_from_mappings(context, name, parent):
            return None
        return "a parameter of that name: a local value, not a chunk field"
    if isinstance(parent, cst.FunctionDef | cst.ClassDef):
        return "a function or class of that name, not a chunk field"
    for param in _parameters_read(context, name):
        if _filled_from_mappings(context, param.name, param):
            return None
    return "a variable of that name: a value of the program, not a chunk field"


def _parameters_read(context: ProofContext, name: cst.Name) -> list[cst.Param]:
    """The parameters a read of `name` may get its value from."""
    scope = context.facts.scope(name)
    if scope is None:
        return []
    found = []
    for assignment in scope.accesses[name]:
        for referent in assignment.referents:
            node = getattr(referent, "node", None)
            if isinstance(node, cst.Param):
                found.append(node)
    return found


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


def _filled_from_mappings(context: ProofContext, name: cst.Name, param: cst.Param) -> bool:
    """A parameter that may get its value from a mapping's key of its name: the function
    takes `**kwargs`, is called with `**` in this module (`handle(**u.model_dump())`),
    or is used other than by a direct call (it may be called so elsewhere). A
    positional-only parameter never is."""
    params = context.parent(param)
    function = context.parent(params) if params is not None else None
    if not isinstance(params, cst.Parameters) or not isinstance(function, cst.FunctionDef):
        return isinstance(params, cst.Parameters)  # a lambda: any caller
    if param in params.posonly_params:
        return False
    if isinstance(params.star_kwarg, cst.Param):
        return True
    scope = context.facts.scope(function)
    if scope is None:
        return True
    for assignment in scope.assignments[function.name.value]:
        if getattr(assignment, "node", None) is not function:
            continue
        for access in assignment.references:
            holder = context.parent(access.node)
            if not (isinstance(holder, cst.Call) and holder.func is access.node):
                return True
            if any(a.star == "**" for a in holder.args):
                return True
    return False


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
    Invalid(
        """
        def handle(messageId=None, senderSessionId=None, **rest):
            return senderSessionId

        def route(update):
            return handle(**update.model_dump(by_alias=True))
        """,
        lines=(1, 2),
        why="the parameter is filled from a chunk's dump by `**`",
    ),
)
