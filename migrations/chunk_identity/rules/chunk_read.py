"""Rule `chunk-identity/read`: participant IDs read from a chunk.

A chunk no longer has `sender_session_id` / `recipient_session_id`: the attribute is
gone, `getattr(chunk, "sender_session_id", None)` silently gives the default, a class
pattern `SessionMessageChunk(sender_session_id=s)` silently stops matching.

Rewritten where the code proves the value: a read of a chunk built in the same function
whose participant IDs this migration moved to an upsert takes the upsert's value::

    chunk = SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)
    log.info("from %s", chunk.sender_session_id)

becomes ``log.info("from %s", me)``. A `_` sub-pattern for an identity field is dropped,
so the pattern matches again. Every other read of a proven or possible chunk is
reported: the value lives on the message (`TranscriptStore.entry(session_id,
message_id)` on the receiving side), and only a person can thread it through.
"""

from __future__ import annotations

import libcst as cst

from acp_schema.migrations.chunk_identity import rule_ids as rules
from acp_schema.migrations.chunk_identity.candidates import Candidates, identity_key
from acp_schema.migrations.chunk_identity.planning.planner import Planner
from acp_schema.migrations.chunk_identity.planning.stability import stable_between
from acp_schema.migrations.framework.examples import Invalid, Valid
from acp_schema.migrations.framework.syntax import chain, code, drop_items, string_value
from acp_schema.migrations.resolution.bindings import CHUNK_TAG, IDENTITY_FIELDS

ENTRY_HINT = (
    "take it from the message instead: the SessionMessage upsert that names the "
    "participants, or on the receiving side "
    "`TranscriptStore.entry(session_id, chunk.message_id).{field}`"
)


def plan_reads(planner: Planner, found: Candidates) -> None:
    for attribute in found.identity_attributes:
        _attribute_read(planner, attribute)
    for call in found.getattr_calls:
        field_name = string_value(call.args[1].value)
        assert field_name is not None
        _read(planner, call, call.args[0].value, field_name)
    for pattern in found.match_classes:
        _class_pattern(planner, pattern)
    for mapping in found.match_mappings:
        _mapping_pattern(planner, mapping)
    for node in found.identity_subscripts:
        _payload_read(planner, node)


def _attribute_read(planner: Planner, attribute: cst.Attribute) -> None:
    facts = planner.facts
    holder = facts.parent(attribute)
    if isinstance(holder, cst.Call) and holder.func is attribute:
        return  # a method call, not a field read
    if _is_store(facts.parent, attribute):
        fact = facts.fact(attribute.value) if chain(attribute.value) else None
        if fact is not None and fact.kind == "chunk":
            planner.warn(
                attribute,
                rules.READ,
                f"sets {attribute.attr.value} on a chunk, which no longer has it; send a "
                "SessionMessage upsert with it for the chunk's message_id",
            )
        return
    _read(planner, attribute, attribute.value, attribute.attr.value)


def _is_store(parent: object, node: cst.CSTNode) -> bool:
    holder = parent(node)  # type: ignore[operator]
    if isinstance(holder, cst.AssignTarget | cst.Del):
        return True
    return isinstance(holder, cst.AugAssign | cst.AnnAssign) and holder.target is node


def _read(planner: Planner, node: cst.CSTNode, obj: cst.BaseExpression, field_name: str) -> None:
    facts = planner.facts
    fact = facts.fact(obj) if chain(obj) is not None or isinstance(obj, cst.Subscript) else None
    if fact is not None and fact.kind == "other":
        return
    if fact is not None and fact.value is not None:
        placement = planner.committed.get(id(fact.value))
        if placement is not None and fact.assignment is not None:
            source = placement.source
            value = source.identity.get(field_name)
            assignment = facts.small_statement(fact.assignment)
            if value is None:
                planner.warn(
                    node,
                    rules.READ,
                    f"{field_name} was never set on this chunk (the old read gave MISSING); "
                    + ENTRY_HINT.format(field=field_name),
                )
                return
            if assignment is not None and stable_between(facts, assignment, node, value):
                replacement = value.deep_clone()
                planner.plan.edit(node, lambda _updated: replacement)
                planner.changed(
                    node, rules.READ, f"read {field_name} from the value sent in the upsert"
                )
                return
            planner.warn(
                node,
                rules.READ,
                f"`{code(value)}` may have changed since the chunk was built; "
                + ENTRY_HINT.format(field=field_name),
            )
            return
        if fact.kind == "unknown":
            fact = None  # assigned from something this rule cannot see through
    if fact is not None and fact.kind == "chunk":
        planner.warn(
            node,
            rules.READ,
            f"a SessionMessageChunk has no {field_name} any more; "
            + ENTRY_HINT.format(field=field_name),
        )
        return
    if planner.near_chunks(node) and not planner.shown_not_chunk(obj):
        planner.warn(
            node,
            rules.READ,
            f"cannot tell whether `{code(obj)}` is a SessionMessageChunk; if it is, "
            + ENTRY_HINT.format(field=field_name),
        )


def _wildcard(pattern: cst.MatchPattern) -> bool:
    return isinstance(pattern, cst.MatchAs) and pattern.pattern is None and pattern.name is None


def _class_pattern(planner: Planner, pattern: cst.MatchClass) -> None:
    if planner.facts.is_chunk_class(pattern.cls) is None:
        return
    removable = set()
    for keyword in pattern.kwds:
        if keyword.key.value not in IDENTITY_FIELDS:
            continue
        if _wildcard(keyword.pattern):
            removable.add(keyword.key.value)
        else:
            planner.warn(
                keyword,
                rules.READ,
                f"this pattern never matches any more: chunks have no {keyword.key.value}; "
                "match on the chunk alone and " + ENTRY_HINT.format(field=keyword.key.value),
            )
    if not removable or len(removable) != sum(k.key.value in IDENTITY_FIELDS for k in pattern.kwds):
        return

    def edit(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.MatchClass)
        kwds = drop_items(updated.kwds, lambda k: k.key.value in removable)
        patterns = list(updated.patterns)
        if not kwds and patterns and updated.kwds:
            patterns[-1] = patterns[-1].with_changes(comma=updated.kwds[-1].comma)
        return updated.with_changes(kwds=kwds, patterns=patterns)

    planner.plan.edit(pattern, edit)
    planner.changed(
        pattern, rules.READ, "dropped `_` sub-patterns for fields chunks no longer have"
    )


def _mapping_pattern(planner: Planner, mapping: cst.MatchMapping) -> None:
    tagged = any(
        string_value(e.key) in {"sessionUpdate", "session_update"}
        and isinstance(e.pattern, cst.MatchValue)
        and string_value(e.pattern.value) == CHUNK_TAG
        for e in mapping.elements
    )
    if not tagged:
        return
    removable = set()
    for element in mapping.elements:
        field_name = identity_key(element.key)
        if field_name is None:
            continue
        if _wildcard(element.pattern):
            removable.add(field_name)
        else:
            planner.warn(
                element,
                rules.READ,
                "agents no longer send participant IDs on chunks, so this pattern stops "
                "matching; match the chunk alone and " + ENTRY_HINT.format(field=field_name),
            )
    if not removable:
        return

    def edit(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.MatchMapping)
        elements = drop_items(updated.elements, lambda e: identity_key(e.key) in removable)
        return updated.with_changes(elements=elements)

    planner.plan.edit(mapping, edit)
    planner.changed(mapping, rules.READ, "dropped `_` entries for keys chunks no longer carry")


def _payload_read(planner: Planner, node: cst.CSTNode) -> None:
    """`payload["senderSessionId"]` where an enclosing test shows a chunk payload."""
    facts = planner.facts
    if isinstance(node, cst.Subscript):
        obj = node.value
        index = node.slice[0].slice
        key = index.value if isinstance(index, cst.Index) else None
    else:
        assert isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
        obj, key = node.func.value, node.args[0].value
    dotted = chain(obj)
    field_name = identity_key(key)
    if dotted is None or field_name is None:
        return
    for current in facts.ancestors(node):
        if isinstance(current, cst.If) and _tests_chunk_payload(current.test, dotted):
            planner.warn(
                node,
                rules.READ,
                "chunk payloads no longer carry participant IDs; "
                + ENTRY_HINT.format(field=field_name),
            )
            return
        if isinstance(current, cst.FunctionDef):
            return


def _tests_chunk_payload(test: cst.BaseExpression, dotted: str) -> bool:
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    left, right = test.left, test.comparisons[0].comparator
    for probe, literal in ((left, right), (right, left)):
        if string_value(literal) != CHUNK_TAG:
            continue
        if isinstance(probe, cst.Subscript) and chain(probe.value) == dotted:
            index = probe.slice[0].slice
            if isinstance(index, cst.Index) and string_value(index.value) == "sessionUpdate":
                return True
        if (
            isinstance(probe, cst.Call)
            and isinstance(probe.func, cst.Attribute)
            and probe.func.attr.value == "get"
            and chain(probe.func.value) == dotted
            and probe.args
            and string_value(probe.args[0].value) == "sessionUpdate"
        ):
            return True
    return False


# Examples (Fixit style): the rule's documentation and its tests.
EXAMPLES = (
    Valid(
        """
        from acp_schema.v2 import SessionMessage, SessionMessageChunk

        def sender(message: SessionMessage):
            return message.sender_session_id
        """,
        why="the code shows a SessionMessage, which keeps the field",
    ),
    Invalid(
        """
        from acp_schema.v2 import SessionMessageChunk

        def describe(update):
            match update:
                case SessionMessageChunk(message_id=m, sender_session_id=_):
                    return m
        """,
        fixed="""
        from acp_schema.v2 import SessionMessageChunk

        def describe(update):
            match update:
                case SessionMessageChunk(message_id=m):
                    return m
        """,
        why="a `_` sub-pattern goes, so the pattern matches chunks again",
    ),
    Invalid(
        """
        from acp_schema.v2 import SessionMessageChunk

        def sender(chunk: SessionMessageChunk):
            return chunk.sender_session_id
        """,
        lines=(4,),
        why="a received chunk: the value lives on the message now",
    ),
)
