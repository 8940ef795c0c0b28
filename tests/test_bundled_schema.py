"""The bundled schemas describe the revised protocol, in the project's own words."""

from __future__ import annotations

import json
from typing import Any

import pytest

from acp_schema.codegen.bundled import bundled_schema
from acp_schema.codegen.schema_check import iter_subschemas

IDENTITY = ("senderSessionId", "recipientSessionId", "senderMessageId", "recipientMessageId")


@pytest.fixture(params=["v1", "v2"])
def defs(request: pytest.FixtureRequest) -> dict[str, Any]:
    schema = json.loads(bundled_schema(request.param).read_text(encoding="utf-8"))
    result: dict[str, Any] = schema["$defs"]
    return result


def test_session_message_carries_both_references(defs: dict[str, Any]) -> None:
    message = defs["SessionMessage"]
    assert message["required"] == ["messageId"]
    for name in ("senderMessageId", "recipientMessageId"):
        prop = message["properties"][name]
        assert prop["anyOf"] == [{"$ref": "#/$defs/MessageId"}, {"type": "null"}]
        assert prop["x-deserialize-default-on-error"] is True


def test_chunk_carries_only_content(defs: dict[str, Any]) -> None:
    chunk = defs["SessionMessageChunk"]
    assert set(chunk["properties"]) == {"messageId", "content", "_meta"}
    assert chunk["required"] == ["messageId", "content"]


def test_identity_descriptions_state_the_participant_rule(defs: dict[str, Any]) -> None:
    # The spec page wins over the published text: omitted or null keeps the known value.
    for name in IDENTITY:
        text = defs["SessionMessage"]["properties"][name]["description"]
        assert "not supplied" in text and "`null`" in text, name
        assert "clears" not in text, name
    assert "content only" in defs["SessionMessageChunk"]["description"]


def test_every_definition_has_a_description(defs: dict[str, Any]) -> None:
    undescribed = [name for name, body in defs.items() if not body.get("description")]
    assert undescribed == []


def test_descriptions_carry_no_links_to_the_published_docs(defs: dict[str, Any]) -> None:
    linked = [
        pointer
        for pointer, node in iter_subschemas({"$defs": defs})
        if "agentclientprotocol.com" in str(node.get("description", ""))
    ]
    assert linked == []
