"""What a reported occurrence is, said for the person who reads the report: why no proof
of `proofs` applies to it (used by `accounting`)."""

from __future__ import annotations

import libcst as cst

from acp_schema.migrations.chunk_identity.accounting.occurrences import REMOVED_NAMES
from acp_schema.migrations.chunk_identity.accounting.proofs.context import ProofContext
from acp_schema.migrations.chunk_identity.accounting.proofs.member import owner_of
from acp_schema.migrations.framework.syntax import chain, code, string_value

NAME_FUNCTIONS = frozenset({"getattr", "hasattr", "setattr", "delattr"})
KEY_METHODS = frozenset({"get", "pop", "setdefault"})


def describe(context: ProofContext, node: cst.CSTNode, inner: cst.CSTNode | None) -> str:
    target = inner if inner is not None else node
    if isinstance(target, cst.Name):
        return _name(context, target)
    parent = context.parent(target)
    if isinstance(parent, cst.DictElement) and parent.key is target:
        return _key(context, parent)
    if isinstance(parent, cst.MatchMappingElement):
        return "a key of a mapping pattern that may match a chunk payload"
    if isinstance(parent, cst.Index):
        subscript = context.parent(context.parent(parent) or parent)
        if isinstance(subscript, cst.Subscript):
            return f"an index into `{code(subscript.value)}`, which may be a chunk payload"
    if isinstance(parent, cst.Arg):
        call = context.parent(parent)
        if isinstance(call, cst.Call):
            called = chain(call.func) or ""
            if called.rpartition(".")[2] in NAME_FUNCTIONS and call.args:
                receiver = code(call.args[0].value)
                return f"`{called}(...)` on `{receiver}`, which may be a chunk"
            if isinstance(call.func, cst.Attribute) and call.func.attr.value in KEY_METHODS:
                return f"a lookup in `{code(call.func.value)}`, which may be a chunk payload"
    if string_value(target) in REMOVED_NAMES:
        return (
            "a field name held as a string value (it may be given to getattr, setattr or "
            "a payload elsewhere)"
        )
    return (
        "a key or a name in the text of a string (a JSON or code template, a key=value "
        "pair) whose kind this run cannot read"
    )


def _name(context: ProofContext, name: cst.Name) -> str:
    parent = context.parent(name)
    if isinstance(parent, cst.Attribute) and parent.attr is name:
        return f"cannot tell whether `{code(parent.value)}` is a SessionMessageChunk"
    if isinstance(parent, cst.Arg) and parent.keyword is name:
        call = context.parent(parent)
        if isinstance(call, cst.Call):
            return f"cannot tell whether `{code(call.func)}(...)` builds a chunk"
    owner = owner_of(context, name)
    if owner is not None:
        return f"cannot tell that class `{owner.name.value}` is not a chunk"
    if isinstance(parent, cst.ImportAlias | cst.AsName):
        return "an import of a removed name"
    if isinstance(parent, cst.MatchKeywordElement):
        return "a class pattern that may match a chunk"
    return "a name the code may use as a chunk field (`locals()`, `vars()`)"


def _key(context: ProofContext, element: cst.DictElement) -> str:
    payload = context.parent(element)
    argument = context.parent(payload) if payload is not None else None
    call = context.parent(argument) if argument is not None else None
    if (
        isinstance(argument, cst.Arg)
        and isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and argument.star != "**"
    ):
        method, receiver = call.func.attr.value, code(call.func.value)
        if method in {"model_copy", "copy", "model_validate", "update", "parse_obj"}:
            return f"`.{method}(...)` on `{receiver}`, which may be a chunk"
    return "a key of a payload whose tag this run cannot read, which may be a chunk"
