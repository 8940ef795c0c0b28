"""Exact wire decoding: wire names only, strict JSON types, finite numbers, integer formats,
deep JSON, and the same behaviour from every decode entry point (the issue's table)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from acp_schema import v1, v2
from acp_schema._fast import as_model
from acp_schema._runtime import MISSING
from acp_schema.transcripts import TranscriptError, TranscriptStore
from acp_schema.v2.methods import METHODS as V2_METHODS
from tests.bindings_support import V1, V2, VERSIONS, Version

TEXT = {"type": "text", "text": "hi"}
CHUNK = {"sessionUpdate": "session_message_chunk", "messageId": "m", "content": TEXT}


def usage(**fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "usage_update", "used": 1, "size": 10, **fields}


def message(update: dict[str, Any]) -> str:
    params = {"sessionId": "s1", "update": update}
    return json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": params})


def test_a_python_name_on_a_chunk_is_an_unknown_key_everywhere() -> None:
    update = {**CHUNK, "sender_session_id": "A"}
    decoded = V2.decode(update)
    assert decoded.model_extra == {"sender_session_id": "A"}
    assert V2.round_trip(update) == update
    assert V2_METHODS.decode(message(update), side="client").params.update == decoded
    store = TranscriptStore("v2")
    entry = store.apply(message(update))
    assert entry is not None and entry.message_id == "m"


def test_the_constructor_still_refuses_removed_python_names() -> None:
    with pytest.raises(TypeError, match="sender_session_id"):
        v2.SessionMessageChunk(
            message_id="m", content=v2.TextContent(text="x"), sender_session_id="a"
        )  # type: ignore[call-arg]


def test_the_constructor_takes_python_names() -> None:
    built = v2.SessionMessage(message_id="m1", sender_session_id="A")
    assert (built.message_id, built.sender_session_id) == ("m1", "A")
    assert v2.SessionMessage(messageId="m1").message_id == "m1"  # type: ignore[call-arg]


@pytest.mark.parametrize(
    "update",
    [
        {"sessionUpdate": "session_message", "message_id": "m1"},  # Python name, key missing
        {"session_update": "session_message", "messageId": "m1"},  # tag under its Python name
        usage(used="7"),
        usage(used=True),
        usage(used=7.5),
        usage(size=2**64),  # uint64
        usage(size=-1),
        usage(cost={"amount": "0.5", "currency": "USD"}) | {"used": "x"},
    ],
)
def test_wrong_names_and_types_are_errors(update: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        V2.decode(update)


def test_a_python_name_for_meta_is_kept_as_an_unknown_key(version: Version) -> None:
    update = {"sessionUpdate": "session_message", "messageId": "m1", "meta": {"k": 1}}
    decoded = version.decode(update)
    assert decoded.meta is MISSING  # type: ignore[attr-defined]
    assert decoded.model_extra == {"meta": {"k": 1}}


@pytest.mark.parametrize(
    ("cost", "kept"),
    [
        ({"amount": "0.5", "currency": "USD"}, False),  # string for a number
        ({"amount": True, "currency": "USD"}, False),
        ({"amount": 0.5, "currency": 7}, False),
        ({"amount": 0.5, "currency": "USD"}, True),
        ({"amount": 1, "currency": "USD"}, True),  # an integer is a number
    ],
)
def test_a_malformed_default_on_error_value_reads_as_omitted(
    cost: dict[str, Any], kept: bool
) -> None:
    decoded = V2.decode(usage(cost=cost))
    assert ("cost" in decoded.model_fields_set) is kept


def test_a_non_finite_number_in_a_typed_field_is_malformed() -> None:
    params = {"sessionId": "s1", "update": usage(cost={"amount": 0.5, "currency": "USD"})}
    text = json.dumps(params).replace("0.5", "1e400")
    decoded = v2.UpdateSessionNotification.model_validate_json(text)
    assert "cost" not in decoded.update.model_fields_set  # type: ignore[union-attr]
    assert decoded.update.used == 1  # type: ignore[union-attr]


def test_nan_is_not_json_anywhere() -> None:
    text = json.dumps({"sessionId": "s1", "update": usage(_meta={"x": 0})})
    text = text.replace('"x": 0', '"x": NaN')
    with pytest.raises(ValidationError, match="Invalid JSON"):
        v2.UpdateSessionNotification.model_validate_json(text)
    with pytest.raises(ValueError):
        V2_METHODS.decode(message(usage()).replace('"used": 1', '"used": NaN'))
    with pytest.raises(TranscriptError):
        TranscriptStore("v2").apply(message(usage()).replace('"used": 1', '"used": NaN'))
    for raw in (text.encode(), bytearray(text.encode())):
        with pytest.raises(ValidationError, match="Invalid JSON"):
            v2.UpdateSessionNotification.model_validate_json(raw)
    # Inside a string it is just text.
    ok = json.dumps({"sessionId": "s1", "update": usage(_meta={"x": "NaN"})})
    assert v2.UpdateSessionNotification.model_validate_json(ok).update.meta == {"x": "NaN"}  # type: ignore[union-attr]


@pytest.mark.parametrize("token", ["Infinity", "-Infinity", "1e400"])
def test_an_infinite_number_is_refused_by_typed_fields(token: str) -> None:
    text = json.dumps({"sessionId": "s1", "update": usage()}).replace(
        '"used": 1', f'"used": {token}'
    )
    with pytest.raises(ValidationError):
        v2.UpdateSessionNotification.model_validate_json(text)
    with pytest.raises(ValueError):
        V2_METHODS.decode(message(usage()).replace('"used": 1', f'"used": {token}'))
    # In a free-form value it reads as infinity and is written back as null (documented).
    text = json.dumps({"sessionId": "s1", "update": usage(_meta={"x": 0})})
    decoded = v2.UpdateSessionNotification.model_validate_json(
        text.replace('"x": 0', f'"x": {token}')
    )
    assert json.loads(decoded.model_dump_json())["update"]["_meta"] == {"x": None}


@pytest.mark.parametrize(
    ("sent", "decoded"),
    [(7, 7), (7.0, 7), (1e2, 100), (2**64 - 1, 2**64 - 1)],
)
def test_json_integers_include_integral_numbers(sent: Any, decoded: int) -> None:
    value = V2.decode(usage(used=sent)).used  # type: ignore[attr-defined]
    assert value == decoded and type(value) is int


def test_integer_formats_bound_optional_fields_too() -> None:
    location = {"path": "/a", "line": 2**32}  # uint32
    update = {"sessionUpdate": "tool_call", "toolCallId": "t", "title": "x"}
    decoded = V1.decode({**update, "locations": [location]})
    assert decoded.locations[0].line is MISSING  # type: ignore[attr-defined]
    decoded = V1.decode({**update, "locations": [{"path": "/a", "line": 2**32 - 1}]})
    assert decoded.locations[0].line == 2**32 - 1  # type: ignore[attr-defined]
    with pytest.raises(ValidationError):
        v1.InitializeRequest.model_validate({"protocolVersion": 2**16})  # uint16


def deep_meta(depth: int) -> dict[str, Any]:
    value: Any = 1
    for _ in range(depth):
        value = {"k": value}
    return {"sessionUpdate": "session_message", "messageId": "m", "_meta": value}


def test_a_300_deep_meta_decodes_and_keeps_its_value() -> None:
    update = deep_meta(300)
    text = json.dumps({"sessionId": "s1", "update": update})
    decoded = v2.UpdateSessionNotification.model_validate_json(text)
    assert decoded.update.meta == update["_meta"]  # type: ignore[union-attr]
    assert v2.UpdateSessionNotification.model_validate(json.loads(text)) == decoded
    assert as_model(V2_METHODS.decode(message(update), side="client").params) == decoded
    assert TranscriptStore("v2").apply(message(update)) is not None


def test_json_deeper_than_python_can_hold_is_a_validation_error() -> None:
    text = '{"sessionId": "s1", "update": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with pytest.raises(ValidationError, match="Invalid JSON"):
        v2.UpdateSessionNotification.model_validate_json(text)
    with pytest.raises(ValueError):
        V2_METHODS.decode('{"jsonrpc": "2.0", "x": ' + "[" * 100_000 + "]" * 100_000 + "}")


WIRE_INPUTS = [
    CHUNK,
    {**CHUNK, "sender_session_id": "A", "senderSessionId": "B"},
    {"sessionUpdate": "session_message", "messageId": "m1", "message_id": "x"},
    {"sessionUpdate": "session_message", "message_id": "m1"},
    {"session_update": "session_message", "messageId": "m1"},
    {"sessionUpdate": "session_message", "sessionUpdate_": 1, "messageId": "m", "_meta": None},
    usage(used=7.0),
    usage(used="7"),
    usage(cost={"amount": "0.5", "currency": "USD"}),
    {"sessionUpdate": "_vendor.x", "payload": [1, {"a": None}]},
    {"sessionUpdate": "tool_call_update", "toolCallId": "t", "status": "completed"},
    {"sessionUpdate": "tool_call_update", "toolCallId": "t", "status": 1},
]


@pytest.mark.parametrize("version", VERSIONS, ids=lambda v: v.name)
@pytest.mark.parametrize("update", WIRE_INPUTS)
def test_model_validate_of_wire_data_behaves_like_model_validate_json(
    version: Version, update: dict[str, Any]
) -> None:
    params = {"sessionId": "s1", "update": update}
    outcomes = []
    for decode in (
        lambda: version.notification.model_validate_json(json.dumps(params)),
        lambda: version.notification.model_validate(params),
    ):
        try:
            outcomes.append(("ok", decode().model_dump_json()))
        except ValidationError as error:
            outcomes.append(("error", str([e["loc"] for e in error.errors()])))
    assert outcomes[0][0] == outcomes[1][0]
    if outcomes[0][0] == "ok":
        assert outcomes[0] == outcomes[1]


@pytest.fixture(params=VERSIONS, ids=lambda v: v.name)
def version(request: pytest.FixtureRequest) -> Version:
    result: Version = request.param
    return result


@pytest.mark.parametrize(
    ("value", "ok"), [(True, True), (1, False), ("true", False), (None, False)]
)
def test_a_boolean_takes_json_booleans_only(value: Any, ok: bool) -> None:
    option = {"configId": "c", "name": "n", "type": "boolean", "currentValue": value}
    if ok:
        assert v2.SessionConfigBoolean.model_validate(option).current_value is True
    else:
        with pytest.raises(ValidationError):
            v2.SessionConfigBoolean.model_validate_json(json.dumps(option))
        with pytest.raises(ValidationError):
            v2.SessionConfigBoolean.model_validate(option)


def test_an_integer_error_names_the_fields_own_bounds() -> None:
    # attack #15: every integer error said "within the range of its format", also for a
    # string, or for a `maximum` with no format
    from acp_schema._validation.markers import _integer_message

    assert _integer_message({}) == "Input should be a JSON integer"
    assert (
        _integer_message({"ge": 0, "le": 255}) == "Input should be a JSON integer >= 0 and <= 255"
    )
    assert _integer_message({"lt": 5, "multiple_of": 2}) == (
        "Input should be a JSON integer < 5 and a multiple of 2"
    )
