"""Rule `chunk-identity/constructor`: `SessionMessageChunk(...)` no longer takes
`sender_session_id` / `recipient_session_id` (nor `senderSessionId` / `recipientSessionId`).

Before::

    await conn.session_update(
        session_id=sid,
        update=SessionMessageChunk(
            message_id=mid, content=block, sender_session_id=me, recipient_session_id=peer
        ),
    )

After::

    await conn.session_update(
        session_id=sid,
        update=SessionMessage(message_id=mid, sender_session_id=me, recipient_session_id=peer),
    )
    await conn.session_update(
        session_id=sid, update=SessionMessageChunk(message_id=mid, content=block)
    )

The upsert is sent with the same call, before the chunk; in a loop that does not change
the IDs it is sent once, before the loop. A chunk assigned to a name is followed to
where that name is sent, returned (the callers of the helper get the upsert) or yielded.
"""

from __future__ import annotations

import libcst as cst

from acp_schema.migrations.chunk_identity import rule_ids as rules
from acp_schema.migrations.chunk_identity.planning.plan import Failure, Source, with_next_step
from acp_schema.migrations.chunk_identity.planning.planner import Planner
from acp_schema.migrations.chunk_identity.rules.chunk_builder import apply_links, chain_above
from acp_schema.migrations.framework.examples import Invalid, Valid
from acp_schema.migrations.framework.syntax import chain, code, drop_items
from acp_schema.migrations.resolution.bindings import IDENTITY_FIELDS, WIRE_TO_FIELD

MESSAGE_ID_KEYWORDS = frozenset({"message_id", "messageId"})


def _field_of(arg: cst.Arg) -> str | None:
    if arg.keyword is None:
        return None
    name = arg.keyword.value
    return name if name in IDENTITY_FIELDS else WIRE_TO_FIELD.get(name)


def _none_like(value: cst.BaseExpression) -> bool:
    return chain(value) in {"None", "MISSING"}


def source_from_call(planner: Planner, call: cst.Call) -> Source | None:
    """A source for a `SessionMessageChunk(...)` call (and builders chained on it)."""
    facts = planner.facts
    module = facts.is_chunk_class(call.func)
    if module is None:
        return None
    source = Source(
        node=call,
        rule=rules.CONSTRUCTOR,
        style="model",
        module=module,
        class_ref=call.func,
        message_id=None,
        identity={},
        layout=call,
    )
    moved: set[str] = set()
    unpacked = [arg for arg in call.args if arg.star == "**"]
    if unpacked and rules.CONSTRUCTOR in planner.selected:
        planner.warn(
            call,
            rules.CONSTRUCTOR,
            f"`**{code(unpacked[0].value)}` may carry sender_session_id / recipient_session_id, "
            "which chunks no longer take; send them in a SessionMessage upsert instead",
        )
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in MESSAGE_ID_KEYWORDS:
            source.message_id = arg.value
            source.layout_items["message_id"] = arg
            continue
        field_name = _field_of(arg)
        if field_name is None or rules.CONSTRUCTOR not in planner.selected:
            continue
        assert arg.keyword is not None
        moved.add(arg.keyword.value)
        source.layout_items[field_name] = arg
        if not _none_like(arg.value):
            source.identity[field_name] = arg.value
    if moved:

        def strip(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            args = drop_items(
                updated.args, lambda a: a.keyword is not None and a.keyword.value in moved
            )
            return updated.with_changes(args=args)

        source.strips.append((call, strip))
    found = chain_above(facts, call)
    if rules.BUILDER in planner.selected:
        try:
            apply_links(source, found)
        except Failure as err:
            planner.warn(call, rules.BUILDER, with_next_step(f"left unchanged: {err}"))
            return None
    if not source.strips:
        return None
    if not moved:
        source.rule = rules.BUILDER
    source.node = found.top
    return source


# Examples (Fixit style): the rule's documentation and its tests.
EXAMPLES = (
    Valid(
        """
        from acp_schema.v2 import SessionMessage

        def announce(out, mid, me):
            out.send(SessionMessage(message_id=mid, sender_session_id=me))
        """,
        why="SessionMessage keeps its participant IDs",
    ),
    Invalid(
        """
        from acp_schema.v2 import SessionMessageChunk

        def send(out, mid, me, block):
            out.send(SessionMessageChunk(message_id=mid, content=block, sender_session_id=me))
        """,
        fixed="""
        from acp_schema.v2 import SessionMessage, SessionMessageChunk

        def send(out, mid, me, block):
            out.send(SessionMessage(message_id=mid, sender_session_id=me))
            out.send(SessionMessageChunk(message_id=mid, content=block))
        """,
        why="the IDs move to an upsert sent first, the same way",
    ),
    Invalid(
        """
        from acp_schema.v2 import SessionMessageChunk

        def keep(pending, mid, me, block):
            pending.append(SessionMessageChunk(message_id=mid, content=block, sender_session_id=me))
        """,
        lines=(4,),
        why="`append` may store the chunk instead of sending it: reported",
    ),
)
