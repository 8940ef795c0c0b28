"""The revision itself, in v1 and v2: message references, and chunks that carry only content."""

from __future__ import annotations

from typing import Any

import pytest

from acp_schema._runtime import MISSING
from tests.bindings_support import VERSIONS, Version

REFERENCES = ("sender_message_id", "recipient_message_id")
PARTICIPANTS = ("sender_session_id", "recipient_session_id")
TEXT = {"type": "text", "text": "hello"}


@pytest.fixture(params=VERSIONS, ids=lambda v: v.name)
def version(request: pytest.FixtureRequest) -> Version:
    result: Version = request.param
    return result


def test_both_references_serialize_and_decode(version: Version) -> None:
    mod = version.module
    sent = mod.SessionMessage(message_id="out-1").with_sender_session_id("parent")
    sent = sent.with_recipient_session_id("child").with_recipient_message_id("in-7")
    wire = sent.model_dump(mode="json")
    assert wire == {
        "sessionUpdate": "session_message",
        "messageId": "out-1",
        "senderSessionId": "parent",
        "recipientSessionId": "child",
        "recipientMessageId": "in-7",
    }
    back = version.decode({**wire, "senderMessageId": "out-0"})
    assert isinstance(back, mod.SessionMessage)
    assert back.recipient_message_id == "in-7"
    assert back.sender_message_id == "out-0"
    assert {"recipient_message_id", "sender_message_id"} <= back.model_fields_set


@pytest.mark.parametrize("field", REFERENCES + PARTICIPANTS)
def test_null_reference_is_kept_as_null(version: Version, field: str) -> None:
    wire_key = version.module.SessionMessage.model_fields[field].alias
    update = {"sessionUpdate": "session_message", "messageId": "m", wire_key: None}
    decoded = version.decode(update)
    assert getattr(decoded, field) is None
    assert version.round_trip(update) == update  # null is not omitted


@pytest.mark.parametrize("bad", [5, True, {"id": "x"}, ["x"]])
@pytest.mark.parametrize("field", REFERENCES + PARTICIPANTS)
def test_malformed_reference_means_not_supplied(version: Version, field: str, bad: Any) -> None:
    wire_key = version.module.SessionMessage.model_fields[field].alias
    update = {"sessionUpdate": "session_message", "messageId": "m", wire_key: bad}
    decoded = version.decode(update)
    assert getattr(decoded, field) is MISSING
    assert field not in decoded.model_fields_set
    assert version.round_trip(update) == {"sessionUpdate": "session_message", "messageId": "m"}


def test_chunk_carries_only_content(version: Version) -> None:
    chunk_cls = version.module.SessionMessageChunk
    assert set(chunk_cls.model_fields) == {"session_update", "message_id", "content", "meta"}
    for name in PARTICIPANTS + REFERENCES:
        assert not hasattr(chunk_cls, f"with_{name}")
    assert hasattr(chunk_cls, "with_content")


def test_identity_keys_on_a_chunk_are_ignored_and_never_encoded(version: Version) -> None:
    update = {
        "sessionUpdate": "session_message_chunk",
        "messageId": "m",
        "content": TEXT,
        "senderSessionId": "a",
        "recipientSessionId": "b",
        "x-custom": 1,
    }
    chunk = version.decode(update)
    assert isinstance(chunk, version.module.SessionMessageChunk)
    assert chunk.model_extra == {"x-custom": 1}
    assert version.round_trip(update) == {
        "sessionUpdate": "session_message_chunk",
        "messageId": "m",
        "content": TEXT,
        "x-custom": 1,
    }


def test_old_chunk_keyword_fails_loudly(version: Version) -> None:
    mod = version.module
    with pytest.raises(TypeError, match="sender_session_id"):
        mod.SessionMessageChunk(
            message_id="m", content=mod.TextContent(text="x"), sender_session_id="a"
        )
    with pytest.raises(TypeError) as both:
        mod.SessionMessageChunk(
            message_id="m", recipient_session_id="b", sender_session_id="a", content=TEXT
        )
    assert str(both.value) == (
        "SessionMessageChunk no longer has recipient_session_id, sender_session_id: the "
        "revision moved it to the message upsert (see `acp-schema migrate`)"
    )


def test_late_participants_arrive_by_metadata_only_upsert(version: Version) -> None:
    mod = version.module
    upsert = mod.SessionMessage(message_id="m").with_sender_session_id("a")
    upsert = upsert.with_recipient_session_id("b").with_sender_message_id("o-1")
    wire = version.notification(session_id="b", update=upsert).model_dump(mode="json")
    assert wire["update"] == {
        "sessionUpdate": "session_message",
        "messageId": "m",
        "senderSessionId": "a",
        "recipientSessionId": "b",
        "senderMessageId": "o-1",
    }
    assert "content" not in wire["update"]  # metadata only: content left as it is
    decoded = version.decode(wire["update"])
    assert decoded.content is MISSING


def test_the_tag_is_on_the_wire_without_being_spelled(version: Version) -> None:
    mod = version.module
    note = version.notification(session_id="s", update=mod.SessionMessage(message_id="m1"))
    assert note.model_dump(mode="json")["update"]["sessionUpdate"] == "session_message"
    chunk = mod.AgentMessageChunk(content=mod.TextContent(text="hi"), message_id="a1")
    dumped = version.notification(session_id="s", update=chunk).model_dump(mode="json")
    assert dumped["update"]["sessionUpdate"] == "agent_message_chunk"
    assert dumped["update"]["content"] == {"type": "text", "text": "hi"}
