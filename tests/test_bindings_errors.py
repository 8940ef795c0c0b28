"""Decode errors as a user reads them: one error per real problem, located by wire names.

The texts are pydantic's own (`str(ValidationError)`) minus its documentation links, which
name pydantic's version."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from acp_schema import v1, v2
from acp_schema.v1 import fast as fast1
from acp_schema.v2 import fast as fast2
from acp_schema.v2.methods import METHODS as METHODS2

NOTIFICATIONS: dict[str, tuple[type[BaseModel], Any]] = {
    "v1": (v1.SessionNotification, fast1.SessionNotification),
    "v2": (v2.UpdateSessionNotification, fast2.UpdateSessionNotification),
}


def _text(error: ValidationError) -> str:
    return "\n".join(line for line in str(error).splitlines() if "errors.pydantic.dev" not in line)


def _decode_error(version: str, update: Any) -> str:
    """The text of the error decoding `update` as a session/update notification's update,
    checked to be the same from the model, from Python data and from the fast path."""
    model, struct = NOTIFICATIONS[version]
    raw = json.dumps({"sessionId": "s", "update": update})
    with pytest.raises(ValidationError) as from_json:
        model.model_validate_json(raw)
    with pytest.raises(ValidationError) as from_fast:
        struct.decode_json(raw.encode())
    assert str(from_fast.value) == str(from_json.value)
    with pytest.raises(ValidationError) as from_python:
        model.model_validate(json.loads(raw))
    locations = [problem["loc"] for problem in from_json.value.errors()]
    assert [problem["loc"] for problem in from_python.value.errors()] == locations
    return _text(from_json.value)


def _header(version: str) -> str:
    return f"1 validation error for {NOTIFICATIONS[version][0].__name__}\n"


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_session_message_without_its_message_id(version: str) -> None:
    assert _decode_error(version, {"sessionUpdate": "session_message"}) == _header(version) + (
        "update.messageId\n"
        "  Field required [type=missing, input_value={'sessionUpdate': 'session_message'}, "
        "input_type=dict]"
    )


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_field_of_the_wrong_type_in_a_known_variant(version: str) -> None:
    update = {"sessionUpdate": "session_message", "messageId": 5}
    assert _decode_error(version, update) == _header(version) + (
        "update.messageId\n"
        "  Input should be a valid string [type=string_type, input_value=5, input_type=int]"
    )


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_field_of_the_wrong_type_in_a_nested_content_block(version: str) -> None:
    update = {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": {"type": "text", "text": ["a list, not text"] * 5},
    }
    assert _decode_error(version, update) == _header(version) + (
        "update.content.text\n"
        "  Input should be a valid string [type=string_type, "
        "input_value=['a list, not text', 'a l...xt', 'a list, not text'], input_type=list]"
    )


def test_an_unknown_content_block_type_in_a_closed_union() -> None:
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "video"}}
    assert _decode_error("v1", update) == _header("v1") + (
        "update.content.type\n"
        "  Input tag 'video' found using 'type' does not match any of the expected tags: "
        "'text', 'image', 'audio', 'resource_link', 'resource' "
        "[type=union_tag_invalid, input_value='video', input_type=str]"
    )


def test_a_tag_of_the_wrong_type_in_an_open_union() -> None:
    update = {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": {"type": 7}}
    assert _decode_error("v2", update) == _header("v2") + (
        "update.content.type\n"
        "  Input should be a valid string [type=string_type, input_value=7, input_type=int]"
    )


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_a_missing_tag(version: str) -> None:
    assert _decode_error(version, {"messageId": "m"}) == _header(version) + (
        "update.sessionUpdate\n"
        "  Field required [type=missing, input_value={'messageId': 'm'}, input_type=dict]"
    )


def test_an_update_that_is_not_an_object() -> None:
    assert _decode_error("v2", [1]) == _header("v2") + (
        "update\n  Input should be an object [type=dict_type, input_value=[1], input_type=list]"
    )


def test_two_real_problems_are_two_errors() -> None:
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text"}}
    assert _decode_error("v2", update) == (
        "2 validation errors for UpdateSessionNotification\n"
        "update.messageId\n"
        "  Field required [type=missing, input_value={'sessionUpdate': 'agent_...tent': "
        "{'type': 'text'}}, input_type=dict]\n"
        "update.content.text\n"
        "  Field required [type=missing, input_value={'type': 'text'}, input_type=dict]"
    )


def test_an_error_inside_a_list_of_union_items_keeps_the_index() -> None:
    with pytest.raises(ValidationError) as caught:
        v2.PromptRequest.model_validate(
            {
                "sessionId": "s",
                "messageId": "m",
                "prompt": [{"type": "text", "text": "a"}, {"type": "text"}],
            }
        )
    assert [problem["loc"] for problem in caught.value.errors()] == [("prompt", 1, "text")]


def test_construction_and_the_method_table_report_the_same_way() -> None:
    with pytest.raises(ValidationError) as constructed:
        v2.UpdateSessionNotification(session_id="s", update={"sessionUpdate": "session_message"})
    assert [p["loc"] for p in constructed.value.errors()] == [("update", "messageId")]
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": {"sessionUpdate": "session_message"}},
    }
    with pytest.raises(ValidationError) as decoded:
        METHODS2.decode(message)
    assert [p["loc"] for p in decoded.value.errors()] == [("update", "messageId")]


def test_a_union_nested_in_a_variant_reports_its_own_tag() -> None:
    # `state_update` is itself an open union keyed by `state`, inside the update union
    assert _decode_error("v2", {"sessionUpdate": "state_update"}) == _header("v2") + (
        "update.state\n"
        "  Field required [type=missing, input_value={'sessionUpdate': 'state_update'}, "
        "input_type=dict]"
    )
