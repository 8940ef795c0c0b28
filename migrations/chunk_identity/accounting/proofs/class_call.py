"""Proof `not-chunk-class`: a keyword (or dict key) given to a class that is shown not to
be a chunk, whose own field it fills: a bindings class other than the chunk
(`SessionMessage(sender_session_id=...)`, `SessionMessage.model_validate({...})`), or a
class of the run whose bases are all shown not to be chunks and that declares the field
itself (a class-body field, in it or a base, or an `__init__` parameter of that name).
Also a keyword of a class pattern of such a class (`case Envelope(sender_session_id=s)`).

Not proofs: a function (it may build a chunk with what it gets), `functools.partial`
and other callables that pass keywords on, a class that takes `**kwargs`, a TypedDict
(a payload: see `payload-tagged-other`), an alias or factory the code does not show."""

from __future__ import annotations

import ast

import libcst as cst

from acp_schema.migrations.chunk_identity.accounting.occurrences import REMOVED_NAMES
from acp_schema.migrations.chunk_identity.accounting.proofs.context import ProofContext, Site
from acp_schema.migrations.framework.examples import Invalid, Valid
from acp_schema.migrations.framework.syntax import code, string_value
from acp_schema.migrations.resolution.module_symbols import Lookup, definition

KIND = "not-chunk-class"
CONSTRUCTORS = frozenset({"model_validate", "model_construct", "parse_obj", "construct"})


def _class_expression(context: ProofContext, site: Site) -> cst.BaseExpression | None:
    node = site.inner
    parent = context.parent(node) if node is not None else None
    if isinstance(node, cst.Name):
        if isinstance(parent, cst.Arg) and parent.keyword is node:
            call = context.parent(parent)
            return _callee_class(call) if isinstance(call, cst.Call) else None
        if isinstance(parent, cst.MatchKeywordElement) and parent.key is node:
            pattern = context.parent(parent)
            return pattern.cls if isinstance(pattern, cst.MatchClass) else None
        return None
    if node is None or string_value(node) not in REMOVED_NAMES:
        return None
    if not (isinstance(parent, cst.DictElement) and parent.key is node):
        return None
    payload = context.parent(parent)
    argument = context.parent(payload) if payload is not None else None
    call = context.parent(argument) if argument is not None else None
    if not (isinstance(argument, cst.Arg) and isinstance(call, cst.Call)):
        return None
    func = call.func
    if argument.star == "**":  # `Envelope(**{"sender_session_id": ...})`
        return _callee_class(call)
    if (
        isinstance(func, cst.Attribute)
        and func.attr.value in {"model_validate", "parse_obj"}
        and call.args[0] is argument
    ):
        return func.value
    return None


def _callee_class(call: cst.Call) -> cst.BaseExpression:
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value in CONSTRUCTORS:
        return func.value
    return func


def prove(context: ProofContext, site: Site) -> str | None:
    expression = _class_expression(context, site)
    if expression is None:
        return None
    names, holds = context.values.class_named(expression)
    if not holds.other or not names:
        return None
    oracle = context.values.oracle
    field = site.occurrence.name
    keyword = context.parent(site.inner) if site.inner is not None else None
    is_pattern = keyword is not None and isinstance(context.parent(keyword), cst.MatchClass)
    for qualified in names:
        if oracle.is_typed_dict(qualified):
            return None
        if oracle.bindings.owner(qualified.rpartition(".")[0]) is not None:
            continue  # a bindings class: its fields are its own
        if not is_pattern and not declares(oracle.symbols, qualified, field):
            return None
    return f"`{code(expression)}` is not a chunk: {holds.why}"


def _same_field(declared: str, given: str) -> bool:
    return declared.replace("_", "").lower() == given.replace("_", "").lower()


def declares(lookup: Lookup, qualified: str, field: str, hops: int = 0) -> bool:
    """Whether the class (or a base of the run) declares `field` itself."""
    target = definition(lookup, qualified)
    if target is None or not isinstance(target.node, ast.ClassDef) or hops > 10:
        return False
    node = target.node
    for statement in node.body:
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and _same_field(statement.target.id, field)  # by field or wire name
        ):
            return True
        if isinstance(statement, ast.FunctionDef) and statement.name == "__init__":
            arguments = statement.args
            if arguments.kwarg is not None:
                return False
            names = [a.arg for a in (*arguments.args, *arguments.kwonlyargs)]
            return field in names
    for base in node.bases:
        if isinstance(base, ast.Name | ast.Attribute):
            dotted = ast.unparse(base)
            for name in target.symbols.resolve(dotted):
                if declares(lookup, name, field, hops + 1):
                    return True
    return False


EXAMPLES = (
    Valid(
        """
        from acp_schema.v2 import SessionMessage, SessionMessageChunk

        def announce(mid: str, me: str) -> SessionMessage:
            return SessionMessage(message_id=mid, sender_session_id=me)
        """,
        why="a keyword of SessionMessage, which keeps the field",
    ),
    Valid(
        """
        from dataclasses import dataclass
        from acp_schema.v2 import SessionMessageChunk

        @dataclass
        class Delivery:
            sender_session_id: str
            text: str

        def record(me: str, text: str) -> Delivery:
            return Delivery(sender_session_id=me, text=text)
        """,
        why="the application's own dataclass, which declares the field",
    ),
    Invalid(
        """
        import functools
        from acp_schema.v2 import SessionMessageChunk

        def factory(me):
            return functools.partial(SessionMessageChunk, sender_session_id=me)
        """,
        lines=(5,),
        why="partial passes the keyword on to the chunk",
    ),
    Invalid(
        """
        from acp_schema.v2 import SessionMessageChunk

        class Wrapped:
            def __init__(self, **fields):
                self.chunk = SessionMessageChunk(**fields)

        def build(mid, block, me):
            return Wrapped(message_id=mid, content=block, sender_session_id=me)
        """,
        lines=(5, 8),
        why="a class taking **kwargs may hand them to a chunk",
    ),
)
