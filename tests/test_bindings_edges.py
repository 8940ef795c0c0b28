"""The decoding edge table: unknown fields and tags, bad payloads, the x-deserialize keywords,
and omitted versus null."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from acp_schema import v1, v2
from acp_schema._runtime import MISSING
from tests.bindings_support import V1, V2, VERSIONS, Version

TEXT = {"type": "text", "text": "hi"}


@pytest.fixture(params=VERSIONS, ids=lambda v: v.name)
def version(request: pytest.FixtureRequest) -> Version:
    result: Version = request.param
    return result


def test_unknown_fields_are_kept(version: Version) -> None:
    update = {
        "sessionUpdate": "session_message",
        "messageId": "m",
        "future": {"nested": [1, None]},
        "_meta": {"k": "v"},
    }
    decoded = version.decode(update)
    assert decoded.model_extra == {"future": {"nested": [1, None]}}
    assert decoded.meta == {"k": "v"}
    assert version.round_trip(update) == update


def test_v1_rejects_an_unknown_tag() -> None:
    with pytest.raises(ValidationError, match="does not match any of the expected tags"):
        V1.decode({"sessionUpdate": "brand_new", "x": 1})


def test_v2_keeps_an_unknown_tag_as_other_with_its_payload() -> None:
    update = {"sessionUpdate": "_vendor.thing", "x": [1, {"y": None}]}
    decoded = V2.decode(update)
    assert isinstance(decoded, v2.SessionUpdateOther)
    assert decoded.session_update == "_vendor.thing"
    assert V2.round_trip(update) == update


def test_v2_unknown_content_block_is_other() -> None:
    update = {
        "sessionUpdate": "session_message_chunk",
        "messageId": "m",
        "content": {"type": "hologram", "frames": 3},
    }
    chunk = V2.decode(update)
    assert isinstance(chunk.content, v2.ContentBlockOther)  # type: ignore[attr-defined]
    assert V2.round_trip(update) == update


@pytest.mark.parametrize(
    "update",
    [
        {"sessionUpdate": "session_message"},  # messageId missing
        {"sessionUpdate": "session_message", "messageId": 7},  # non-string messageId
        {"sessionUpdate": "session_message", "messageId": None},
        {"sessionUpdate": "session_message_chunk", "messageId": "m"},  # content missing
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text"}},  # text missing
    ],
)
def test_known_tag_with_bad_payload_is_an_error(version: Version, update: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        version.decode(update)


def test_v2_known_tag_error_is_not_swallowed_by_other() -> None:
    with pytest.raises(ValidationError) as caught:
        V2.decode({"sessionUpdate": "session_message", "messageId": 7})
    # The known variant's error alone: Other's refusal of the known tag is not a problem.
    assert [(p["loc"], p["type"]) for p in caught.value.errors()] == [
        (("update", "messageId"), "string_type")
    ]


@pytest.mark.parametrize("bad", ["text", 3, {"type": "text"}])
def test_malformed_default_on_error_field_counts_as_omitted(version: Version, bad: Any) -> None:
    update = {"sessionUpdate": "session_message", "messageId": "m", "content": bad}
    decoded = version.decode(update)
    assert decoded.content is MISSING
    assert "content" not in decoded.model_fields_set
    assert version.round_trip(update) == {"sessionUpdate": "session_message", "messageId": "m"}


def test_content_array_drops_only_the_bad_item(version: Version) -> None:
    good2 = {"type": "text", "text": "second"}
    update = {
        "sessionUpdate": "session_message",
        "messageId": "m",
        "content": [TEXT, {"type": "text", "text": 5}, good2],
    }
    decoded = version.decode(update)
    assert [block.text for block in decoded.content] == ["hi", "second"]
    assert version.round_trip(update)["content"] == [TEXT, good2]


def _session_message_nullable_fields() -> list[tuple[Version, str]]:
    cases = []
    for version in VERSIONS:
        for name, info in version.module.SessionMessage.model_fields.items():
            if info.default is MISSING:
                cases.append((version, name))
    return cases


@pytest.mark.parametrize(
    ("version", "field"), _session_message_nullable_fields(), ids=lambda x: getattr(x, "name", x)
)
def test_null_and_omitted_stay_apart(version: Version, field: str) -> None:
    key = version.module.SessionMessage.model_fields[field].alias or field
    omitted = {"sessionUpdate": "session_message", "messageId": "m"}
    nulled = {**omitted, key: None}
    assert getattr(version.decode(omitted), field) is MISSING
    assert getattr(version.decode(nulled), field) is None
    assert version.round_trip(omitted) == omitted
    assert version.round_trip(nulled) == nulled


def test_every_nullable_field_of_session_message_was_checked() -> None:
    # The parametrisation above must see the revision's fields, in both versions.
    names = {(v.name, f) for v, f in _session_message_nullable_fields()}
    for version in ("v1", "v2"):
        for field in ("sender_message_id", "recipient_message_id", "content", "meta"):
            assert (version, field) in names


def test_default_on_null_gives_the_empty_value() -> None:
    stdio = {"name": "srv", "command": "/bin/x", "args": None, "env": None}
    decoded = v2.NewSessionRequest.model_validate(
        {"cwd": "/w", "mcpServers": [{"type": "stdio", **stdio}]}
    )
    server = decoded.mcp_servers[0]
    assert server.args == []
    assert server.env == []


def test_required_default_on_error_keeps_the_key_required() -> None:
    with pytest.raises(ValidationError, match="entries"):
        v1.Plan.model_validate({})
    plan = v1.Plan.model_validate({"entries": "not a list"})
    assert plan.entries == []


def test_construction_by_python_and_wire_names_agree(version: Version) -> None:
    mod = version.module
    by_python = mod.SessionMessage(message_id="m", sender_session_id="a", meta={"k": 1})
    by_wire = mod.SessionMessage.model_validate(
        {"messageId": "m", "senderSessionId": "a", "_meta": {"k": 1}}
    )
    assert by_python == by_wire
    assert by_python.model_dump() == by_wire.model_dump()


def test_builders_return_new_instances(version: Version) -> None:
    mod = version.module
    first = mod.SessionMessage(message_id="m")
    second = first.with_recipient_message_id("r").with_meta(None)
    assert first.recipient_message_id is MISSING
    assert second.recipient_message_id == "r"
    assert second.model_dump() == {
        "sessionUpdate": "session_message",
        "messageId": "m",
        "recipientMessageId": "r",
        "_meta": None,
    }


def test_constraints_apply_to_the_value_not_to_null() -> None:
    # a nullable uint32: null is a value, -1 breaks the constraint (default-on-error: omitted)
    assert v1.ToolCallLocation.model_validate({"path": "/a", "line": None}).line is None
    assert v1.ToolCallLocation.model_validate({"path": "/a", "line": 3}).line == 3
    assert v1.ToolCallLocation.model_validate({"path": "/a", "line": -1}).line is MISSING


def test_envelopes_decode_params_by_method() -> None:
    from pydantic import TypeAdapter

    envelope = TypeAdapter(v2.AgentNotification)
    params = {"sessionId": "s", "update": {"sessionUpdate": "session_message", "messageId": "m"}}
    known = envelope.validate_python({"method": "session/update", "params": params})
    assert isinstance(known, v2.AgentNotificationSessionUpdate)
    assert isinstance(known.params, v2.UpdateSessionNotification)
    # the same params under an extension method stay as they were sent
    other = envelope.validate_python({"method": "_vendor/update", "params": params})
    assert isinstance(other, v2.AgentNotificationOther)
    assert json.loads(envelope.dump_json(other)) == {"method": "_vendor/update", "params": params}
    with pytest.raises(ValidationError):
        envelope.validate_python({"method": "session/update", "params": {"sessionId": "s"}})


def test_default_on_error_covers_the_fields_own_bounds() -> None:
    # SessionConfigSelectGroup.options: minItems 1, skip-invalid-items, default-on-error.
    # Every option malformed: the bad items go, the empty list breaks minItems, and
    # default-on-error turns that into the empty value (the TypeScript SDK decodes it so too)
    # instead of failing the group and, with it, the whole config option.
    group = v2.SessionConfigSelectGroup.model_validate_json(
        '{"groupId": "g", "name": "n", "options": [{"value": "v"}]}'
    )
    assert group.options == []
    update = v2.ConfigOptionUpdate.model_validate_json(
        '{"sessionUpdate": "config_option_update", "configOptions": [{"type": "select",'
        ' "configId": "c", "name": "n", "currentValue": "v", "options":'
        ' [{"groupId": "g", "name": "n", "options": [{"value": "v"}]}]}]}'
    )
    assert len(update.config_options) == 1
