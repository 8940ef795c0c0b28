"""What the consumer rule asks of one use of an item in the code, read with `ast`: is
it handed as it is to a send, read for what both kinds share, tested against `None` or
for its kind (see `consumers`)."""

from __future__ import annotations

import ast

from acp_schema.migrations.chunk_identity.planning.sites import ENCODERS, SEND_VERBS, SERIALIZERS
from acp_schema.migrations.resolution.bindings import (
    CHUNK_CLASS,
    CHUNK_TAG,
    MESSAGE_CLASS,
    MESSAGE_TAG,
)

KIND_WORDS = (CHUNK_TAG, MESSAGE_TAG, CHUNK_CLASS, MESSAGE_CLASS)
MAX_DEPTH = 5  # local names followed from one to the next
# What an upsert has as well as a chunk (reading it from either is fine).
SHARED_ATTRIBUTES = frozenset({"session_update", "message_id", "meta"})


def enclosing_function(node: ast.AST | None, parents: dict[ast.AST, ast.AST]) -> ast.AST | None:
    while node is not None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return node
        node = parents.get(node)
    return None


def none_test(node: ast.expr, parents: dict[ast.AST, ast.AST]) -> bool:
    """`item is None`, `item is not None`, `if item:`: fine for any kind."""
    holder = parents.get(node)
    if isinstance(holder, ast.Compare):
        return all(isinstance(c, ast.Constant) and c.value is None for c in holder.comparators)
    if isinstance(holder, ast.NamedExpr):
        return none_test(holder, parents)
    return isinstance(holder, ast.If | ast.While) and holder.test is node


def parent_map(tree: ast.AST) -> dict[ast.AST, ast.AST]:
    return {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def shared(node: ast.expr, parents: dict[ast.AST, ast.AST]) -> bool:
    """A read of what the upsert and the chunks both have (`item.message_id`)."""
    holder = parents.get(node)
    return isinstance(holder, ast.Attribute) and holder.attr in SHARED_ATTRIBUTES


def forwarded(node: ast.expr, parents: dict[ast.AST, ast.AST], depth: int = 0) -> bool:
    """The item handed as it is (or serialised, or wrapped in a notification, a list or
    a dict, or first bound to a local name that is itself only forwarded) to a send."""
    current: ast.AST = node
    while True:
        holder = parents.get(current)
        if isinstance(holder, ast.Dict) and current in holder.values:
            current = holder
            continue
        if (
            isinstance(holder, ast.Assign)
            and len(holder.targets) == 1
            and isinstance(holder.targets[0], ast.Name)
            and depth < MAX_DEPTH
        ):
            return only_forwarded(holder.targets[0].id, holder, parents, depth + 1)
        if isinstance(holder, ast.Attribute) and holder.attr in SERIALIZERS:
            call = parents.get(holder)
            if isinstance(call, ast.Call) and call.func is holder and not call.args:
                current = call
                continue
            return False
        if isinstance(holder, ast.keyword):
            current, holder = holder, parents.get(holder)
        if isinstance(holder, ast.List | ast.Tuple):
            current = holder
            continue
        if not isinstance(holder, ast.Call) or holder.func is current:
            return False
        callee = last_name(holder.func) or ""
        if callee.lstrip("_").lower().startswith(SEND_VERBS):
            return True
        if dotted_name(holder.func) in ENCODERS or callee.endswith("Notification"):
            current = holder
            continue
        return False


def only_forwarded(
    name: str, assignment: ast.Assign, parents: dict[ast.AST, ast.AST], depth: int
) -> bool:
    """Every later use of a local name in its function is forwarded to a send."""
    scope = enclosing_function(assignment, parents)
    if scope is None:
        return False
    uses = [
        n
        for n in ast.walk(scope)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    ]
    return bool(uses) and all(forwarded(n, parents, depth) for n in uses)


def kind_tested(node: ast.expr, item: str, parents: dict[ast.AST, ast.AST], loop: ast.AST) -> bool:
    """The use sits under an `if` whose test names the item and a kind (a tag or a
    class), or after an `if` that skips other kinds (`continue`)."""
    current: ast.AST = node
    while current is not loop:
        holder = parents.get(current)
        if holder is None:
            return False
        if isinstance(holder, ast.If) and current in holder.body and tests_kind(holder.test, item):
            return True
        if isinstance(holder, ast.For | ast.AsyncFor) and holder is loop:
            index = holder.body.index(current) if current in holder.body else 0
            return any(skips_others(s, item) for s in holder.body[:index])
        current = holder
    return False


def tests_kind(test: ast.expr, item: str) -> bool:
    names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
    words = (
        {
            n.value
            for n in ast.walk(test)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
        }
        | {n.attr for n in ast.walk(test) if isinstance(n, ast.Attribute)}
        | names
    )
    return item in names and any(w in words for w in KIND_WORDS)


def skips_others(statement: ast.stmt, item: str) -> bool:
    """`if <kind test of item>: continue`."""
    return (
        isinstance(statement, ast.If)
        and tests_kind(statement.test, item)
        and len(statement.body) == 1
        and isinstance(statement.body[0], ast.Continue)
    )


def last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def dotted_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted_name(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


# Examples of rule chunk-identity/consumer, run with every rule of the family (the
