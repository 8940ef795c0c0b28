"""Proving that a value still holds where a chunk is sent: the message ID and the
participant IDs the upsert copies must evaluate the same at the send as where the chunk
was built, or the upsert would name another message or other participants."""

from __future__ import annotations

import libcst as cst

from acp_schema.migrations.chunk_identity.planning.plan import Failure, Source
from acp_schema.migrations.framework.syntax import is_pure, item_reads, read_chains, stores_in
from acp_schema.migrations.resolution.facts import Facts


def stable_message_id(
    facts: Facts,
    source: Source,
    start: cst.CSTNode,
    end: cst.CSTNode,
    name: cst.Name,
) -> cst.BaseExpression | None:
    """None when the source's own message-id expression still holds at `end`, else
    `<name>.message_id`."""
    mid = source.message_id
    if source.template is None and mid is not None and stable_between(facts, start, end, mid):
        return None
    if source.template is not None and all(
        stable_between(facts, start, end, v) for v in source.bound.values()
    ):
        return None
    if source.style == "dict":
        item = source.layout_items.get("message_id")
        if not isinstance(item, cst.DictElement):
            raise Failure("the payload has no messageId entry")
        index = cst.SubscriptElement(cst.Index(item.key.deep_clone()))
        return cst.Subscript(value=cst.Name(name.value), slice=[index])
    return cst.Attribute(value=cst.Name(name.value), attr=cst.Name("message_id"))


def stable_between(facts: Facts, start: cst.CSTNode, end: cst.CSTNode, value: cst.CSTNode) -> bool:
    """Whether `value` (pure) evaluates the same at `end` as at `start` (statements of
    one function, `end` after `start` in the same block or nested below a later
    statement of that block)."""
    if not is_pure(value):
        return False
    start_statement = facts.block_statement(start)
    if start_statement is None:
        return False
    block = facts.parent(start_statement)
    assert isinstance(block, cst.Module | cst.IndentedBlock)
    end_top = None
    for current in (end, *facts.ancestors(end)):
        if facts.parent(current) is block:
            end_top = current
            break
    if end_top is None:
        return False
    body: list[cst.CSTNode] = list(block.body)
    first, last = body.index(start_statement), body.index(end_top)
    if last < first:
        return False
    # What runs after `start` and before `end`: the rest of start's line, the
    # statements in between, and the statement around `end` (all of it: in a loop
    # its later part runs again before the next `end`).
    between = body[first + 1 : last]
    if end_top is not end:
        between.append(end_top)
    if isinstance(start, cst.BaseSmallStatement) and isinstance(
        start_statement, cst.SimpleStatementLine
    ):
        later = start_statement.body[start_statement.body.index(start) + 1 :]
        between = [*later, *between]
    stores = stores_in(between, skip=[end])
    items = item_reads(value)
    return not any(
        stores.conflicts(read) or stores.aliased(read, items=read in items)
        for read in read_chains(value)
    )
