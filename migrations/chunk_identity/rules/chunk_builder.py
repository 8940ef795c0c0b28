"""Rule `chunk-identity/builder`: `.with_sender_session_id(s)` and
`.with_recipient_session_id(r)` on a chunk are gone from the bindings.

Before::

    await conn.session_update(session_id=sid, update=chunk.with_sender_session_id(me))

After::

    await conn.session_update(
        session_id=sid, update=SessionMessage(message_id=chunk.message_id, sender_session_id=me)
    )
    await conn.session_update(session_id=sid, update=chunk)

Builder chains on a `SessionMessageChunk(...)` call are handled together with its
keywords (one upsert for both). A receiver whose type the code does not show is left
alone and reported: `SessionMessage` has the same builders.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from acp_schema.migrations.chunk_identity import rule_ids as rules
from acp_schema.migrations.chunk_identity.planning.plan import Failure, Source
from acp_schema.migrations.chunk_identity.planning.planner import Planner
from acp_schema.migrations.framework.examples import Invalid, Valid
from acp_schema.migrations.framework.syntax import chain, code, is_pure
from acp_schema.migrations.resolution.bindings import IDENTITY_BUILDERS
from acp_schema.migrations.resolution.facts import Facts


@dataclass
class Chain:
    """A run of `.with_*()` builder calls over one base expression."""

    top: cst.BaseExpression
    base: cst.BaseExpression
    links: list[cst.Call] = field(default_factory=list)  # innermost first


def chain_above(facts: Facts, base: cst.BaseExpression) -> Chain:
    """The builder chain that has `base` as its receiver (possibly no links)."""
    found = Chain(top=base, base=base)
    node: cst.BaseExpression = base
    while True:
        attribute = facts.parent(node)
        call = facts.parent(attribute) if attribute is not None else None
        if (
            isinstance(attribute, cst.Attribute)
            and attribute.value is node
            and attribute.attr.value.startswith("with_")
            and isinstance(call, cst.Call)
            and call.func is attribute
        ):
            found.links.append(call)
            node = found.top = call
            continue
        return found


def chain_base(call: cst.Call) -> cst.BaseExpression:
    """The receiver under a run of builder calls ending in `call`."""
    node: cst.BaseExpression = call
    while (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value.startswith("with_")
    ):
        node = node.func.value
    return node


def builder_field(call: cst.Call) -> str | None:
    if isinstance(call.func, cst.Attribute):
        return IDENTITY_BUILDERS.get(call.func.attr.value)
    return None


def unlink(updated: cst.CSTNode) -> cst.CSTNode:
    """Replace `x.with_field(v)` by `x`."""
    assert isinstance(updated, cst.Call) and isinstance(updated.func, cst.Attribute)
    receiver = updated.func.value
    if updated.lpar and not receiver.lpar:  # `(chunk\n .with_x(v))` keeps its parentheses
        return receiver.with_changes(lpar=updated.lpar, rpar=updated.rpar)
    return receiver


def apply_links(source: Source, found: Chain) -> None:
    """Move the identity builders of `found` into `source` (last call wins, as it did)."""
    for link in found.links:
        name = link.func.attr.value if isinstance(link.func, cst.Attribute) else ""
        if name == "with_message_id" and link.args:
            source.message_id = link.args[0].value
            source.layout_items.pop("message_id", None)
            continue
        field_name = builder_field(link)
        if field_name is None:
            continue
        if len(link.args) != 1 or link.args[0].keyword is not None or link.args[0].star:
            raise Failure(f"`{code(link.func)}(...)` takes its value in an unusual way")
        value = link.args[0].value
        source.strips.append((link, unlink))
        source.identity.pop(field_name, None)
        source.layout_items.pop(field_name, None)
        if not _none_like(value):
            source.identity[field_name] = value
        source.changed_rules = (*source.changed_rules, rules.BUILDER)


def _none_like(value: cst.BaseExpression) -> bool:
    return chain(value) in {"None", "MISSING"}


def source_from_builder(planner: Planner, call: cst.Call) -> Source | None:
    """A source for a builder chain whose base is a chunk held in a name."""
    facts = planner.facts
    base = chain_base(call)
    found = chain_above(facts, base)
    if found.top is not call and builder_field(call) is not None:
        # Only the outermost call of a chain is a source; inner ones are its links.
        outer = [link for link in found.links if builder_field(link)]
        if outer and outer[-1] is not call:
            return None
    if isinstance(base, cst.Call) and facts.is_chunk_class(base.func):
        return None  # the constructor rule takes the whole chain
    fact = facts.fact(base) if chain(base) is not None else None
    if fact is None or fact.kind != "chunk":
        if (
            (fact is None or fact.kind == "unknown")
            and planner.near_chunks(call)
            and not planner.shown_not_chunk(base)
        ):
            planner.warn(
                call,
                rules.BUILDER,
                f"cannot tell whether `{code(base)}` is a SessionMessageChunk (SessionMessage "
                "has the same builder). If it is a chunk, send the participant IDs in a "
                "SessionMessage upsert for its message_id instead",
            )
        return None
    source = Source(
        node=found.top,
        rule=rules.BUILDER,
        style="model",
        module=fact.module,
        class_ref=fact.class_ref,
        message_id=cst.Attribute(value=base, attr=cst.Name("message_id"))
        if is_pure(base)
        else None,
        identity={},
    )
    apply_links(source, found)
    source.changed_rules = ()
    return source if source.strips else None


# Examples (Fixit style): the rule's documentation and its tests.
EXAMPLES = (
    Valid(
        """
        from acp_schema.v2 import SessionMessage

        def sign(message: SessionMessage, me):
            return message.with_sender_session_id(me)
        """,
        why="a SessionMessage has the same builder and keeps it",
    ),
    Invalid(
        """
        from acp_schema.v2 import SessionMessageChunk

        async def sign(conn, sid, chunk: SessionMessageChunk, me):
            await conn.send(sid, chunk.with_sender_session_id(me))
        """,
        fixed="""
        from acp_schema.v2 import SessionMessage, SessionMessageChunk

        async def sign(conn, sid, chunk: SessionMessageChunk, me):
            await conn.send(sid, SessionMessage(message_id=chunk.message_id, sender_session_id=me))
            await conn.send(sid, chunk)
        """,
    ),
    Invalid(
        """
        from acp_schema.v2 import SessionMessageChunk

        def sign(update, me):
            return update.with_sender_session_id(me)
        """,
        lines=(4,),
        why="a receiver of unknown type in a module that uses chunks: reported",
    ),
)
