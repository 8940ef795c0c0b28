"""Rule `chunk-identity/dict`: raw `session_message_chunk` payloads whose
`senderSessionId` / `recipientSessionId` keys are now ignored by every decoder.

Before::

    send({"sessionUpdate": "session_message_chunk", "messageId": mid,
          "content": block, "senderSessionId": me})

After::

    send({"sessionUpdate": "session_message", "messageId": mid, "senderSessionId": me})
    send({"sessionUpdate": "session_message_chunk", "messageId": mid,
          "content": block})

A helper that builds the payload from a `kind` parameter keeps its keys (they matter for
`session_message`); its callers that pass `"session_message_chunk"` get the upsert.
"""

from __future__ import annotations

import libcst as cst

from acp_schema.migrations.chunk_identity import rule_ids as rules
from acp_schema.migrations.chunk_identity.candidates import (
    identity_key,
    message_id_element,
    tag_element,
)
from acp_schema.migrations.chunk_identity.planning.plan import Edit, Source
from acp_schema.migrations.chunk_identity.planning.planner import Planner
from acp_schema.migrations.framework.examples import Invalid, Valid
from acp_schema.migrations.framework.syntax import (
    chain,
    code,
    drop_items,
    string_value,
    with_last_comma,
)
from acp_schema.migrations.resolution.bindings import CHUNK_TAG


def _none_like(value: cst.BaseExpression) -> bool:
    return chain(value) == "None"


def source_from_dict(planner: Planner, node: cst.Dict) -> Source | None:
    """A source for a dict literal tagged `session_message_chunk` with identity keys."""
    tag = tag_element(node)
    if tag is None or string_value(tag.value) != CHUNK_TAG:
        return None
    for element in node.elements:
        if isinstance(element, cst.StarredDictElement):
            planner.warn(
                element,
                rules.DICT,
                f"`**{code(element.value)}` may carry senderSessionId / recipientSessionId, "
                "which chunks no longer carry; send them in a session_message upsert for the "
                "chunk's messageId instead",
            )
    source = Source(
        node=node,
        rule=rules.DICT,
        style="dict",
        module=None,
        class_ref=None,
        message_id=None,
        identity={},
        layout=node,
    )
    source.layout_items["tag"] = tag
    mid = message_id_element(node)
    if mid is not None:
        source.message_id = mid.value
        source.layout_items["message_id"] = mid
    moved = []
    for element in node.elements:
        if not isinstance(element, cst.DictElement):
            continue
        field_name = identity_key(element.key)
        if field_name is None:
            continue
        moved.append(element)
        source.layout_items[field_name] = element
        if not _none_like(element.value):
            source.identity[field_name] = element.value
    if not moved:
        return None
    dropped = {identity_key(e.key) for e in moved}

    def strip(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Dict)
        elements = drop_items(
            updated.elements,
            lambda e: isinstance(e, cst.DictElement) and identity_key(e.key) in dropped,
        )
        return updated.with_changes(elements=elements)

    source.strips.append((node, strip))
    return source


def kind_parameter(planner: Planner, node: cst.Dict) -> cst.Name | None:
    """The parameter that gives a payload its `sessionUpdate`, when it has identity keys."""
    tag = tag_element(node)
    if tag is None or not isinstance(tag.value, cst.Name):
        return None
    if not any(isinstance(e, cst.DictElement) and identity_key(e.key) for e in node.elements):
        return None
    assignment = planner.facts.single_assignment(tag.value)
    if assignment is None or not isinstance(assignment.node, cst.Param):
        return None
    return tag.value


def identity_unless_chunk(node: cst.Dict, kind: cst.Name) -> Edit:
    """Edit a payload whose kind is `kind` so that its identity entries are only there
    when it is not a chunk: `**({} if kind == "session_message_chunk" else {...})`."""
    tag = tag_element(node)
    quote = tag.key.quote if tag is not None and isinstance(tag.key, cst.SimpleString) else '"'

    def edit(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.Dict)
        moved = [
            e
            for e in updated.elements
            if isinstance(e, cst.DictElement) and identity_key(e.key) is not None
        ]
        # One line for the moved entries: their own commas may hold line breaks.
        separator = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        inner = cst.Dict(
            elements=[
                *(e.with_changes(comma=separator) for e in moved[:-1]),
                moved[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT),
            ]
        )
        test = cst.Comparison(
            left=cst.Name(kind.value),
            comparisons=[
                cst.ComparisonTarget(cst.Equal(), cst.SimpleString(f"{quote}{CHUNK_TAG}{quote}"))
            ],
        )
        choice = cst.IfExp(test=test, body=cst.Dict([]), orelse=inner)
        spread = cst.StarredDictElement(
            value=choice.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]),
            comma=moved[0].comma,
        )
        elements: list[cst.BaseDictElement] = []
        for element in updated.elements:
            if element is moved[0]:
                elements.append(spread)
            elif element not in moved:
                elements.append(element)
        if updated.elements[-1] in moved:
            with_last_comma(elements, updated.elements)
        return updated.with_changes(elements=elements)

    return edit


# Examples (Fixit style): the rule's documentation and its tests.
EXAMPLES = (
    Valid(
        """
        def announce(out, mid, me):
            out.write({"sessionUpdate": "session_message", "messageId": mid, "senderSessionId": me})
        """,
        why="a session_message payload keeps its participant IDs",
    ),
    Invalid(
        """
        def send(out, mid, me, block):
            out.write(
                {"sessionUpdate": "session_message_chunk", "messageId": mid, "content": block,
                 "senderSessionId": me}
            )
        """,
        fixed="""
        def send(out, mid, me, block):
            out.write(
                {"sessionUpdate": "session_message", "messageId": mid, "senderSessionId": me}
            )
            out.write(
                {"sessionUpdate": "session_message_chunk", "messageId": mid, "content": block}
            )
        """,
    ),
    Invalid(
        """
        def send(out, me, block):
            out.write(
                {"sessionUpdate": "session_message_chunk", "content": block, "senderSessionId": me}
            )
        """,
        lines=(3,),
        why="no messageId to name the message in an upsert: reported",
    ),
)
