"""`acp_bridge.send` and `UpdateReceiver` on real acp connections joined in memory (acp's
own message transport pair; the agent side is built as `acp.run_agent` builds it), and the
version gate. The stdio end to end is
tests/test_acp_bridge_e2e.py."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

acp = pytest.importorskip("acp", reason="agent-client-protocol (the acp extra) is not installed")

from acp._transport import memory_transport_pair  # noqa: E402
from acp.agent.connection import AgentSideConnection  # noqa: E402
from pydantic import ValidationError  # noqa: E402

import acp_schema  # noqa: E402
from acp_schema import UnsupportedAcpError, v1, v2  # noqa: E402
from acp_schema.acp_bridge import (  # noqa: E402
    AgentExitedError,
    OnUpdate,
    ReceivedUpdate,
    UndecodableUpdate,
    UpdateReceiver,
    send,
)
from acp_schema.acp_bridge import _support as support  # noqa: E402
from acp_schema.acp_bridge.undecodable import one_line, quoted  # noqa: E402
from acp_schema.transcripts import MessageEntry, TranscriptStore  # noqa: E402
from acp_schema.v1 import fast  # noqa: E402

ACP_ERROR = "Unhandled error while handling notification"
SEQUENCES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(test(), timeout=20))


async def settle() -> None:
    """Let the connection's tasks run (each message is handled in a task of its own)."""
    for _ in range(30):
        await asyncio.sleep(0)


def text(value: str) -> v1.TextContent:
    return v1.TextContent(text=value)


# --- send ----------------------------------------------------------------------------------


async def _sent(message: Any, **keywords: Any) -> dict[str, Any]:
    """What `send` writes on an acp agent connection: the message the other end receives."""
    agent_end, client_end = memory_transport_pair()
    connection = AgentSideConnection(object(), agent_end, listening=False)
    await send(connection, message, **keywords)
    received = await client_end.receive()
    assert received is not None
    return received


async def _sent_by_acp(session_id: str, update: Any, **meta: Any) -> dict[str, Any]:
    agent_end, client_end = memory_transport_pair()
    connection = AgentSideConnection(object(), agent_end, listening=False)
    await connection.session_update(session_id, update, **meta)
    received = await client_end.receive()
    assert received is not None
    return received


def test_a_kind_acp_knows_goes_through_acps_session_update() -> None:
    async def test() -> None:
        ours = await _sent(
            v1.AgentMessageChunk(content=text("hi"), message_id="m1"), session_id="s1"
        )
        theirs = await _sent_by_acp(
            "s1",
            acp.schema.AgentMessageChunk(
                session_update="agent_message_chunk",
                content=acp.text_block("hi"),
                message_id="m1",
            ),
        )
        assert ours == theirs
        # the notification's `_meta` travels as acp's keywords do
        note = v1.SessionNotification(
            session_id="s1",
            update=v1.AgentMessageChunk(content=text("hi")),
            meta={"trace": "t1"},
        )
        sent = await _sent(note)
        assert sent["params"]["_meta"] == {"trace": "t1"}
        assert sent == await _sent_by_acp("s1", acp.update_agent_message_text("hi"), trace="t1")

    run(test)


def test_a_kind_acp_does_not_know_is_written_exactly() -> None:
    async def test() -> None:
        update = v1.SessionMessage.model_validate(
            {
                "sessionUpdate": "session_message",
                "messageId": "o1",
                "senderSessionId": "a",
                "recipientSessionId": None,
                "content": [{"type": "text", "text": "hi", "xVendor": 1}],
                "_meta": {"k": [1]},
                "futureField": True,
            }
        )
        sent = await _sent(update, session_id="a")
        assert sent == {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "a", "update": update.model_dump(mode="json")},
        }
        assert sent["params"]["update"]["recipientSessionId"] is None  # null kept
        chunk = fast.SessionMessageChunk.decode_json(
            b'{"sessionUpdate":"session_message_chunk","messageId":"o1",'
            b'"content":{"type":"text","text":"x"}}'
        )
        assert isinstance(chunk, fast.SessionMessageChunk)  # a fast Struct is sent as well
        sent = await _sent(chunk, session_id="a")
        assert sent["params"]["update"]["content"] == {"type": "text", "text": "x"}

    run(test)


def test_what_acps_path_cannot_carry_is_written_exactly() -> None:
    async def test() -> None:
        # a top-level key acp's SessionNotification lacks
        note = v1.SessionNotification.model_validate(
            {
                "sessionId": "s1",
                "update": {"sessionUpdate": "usage_update", "used": 1, "size": 2},
                "futureTop": 1,
            }
        )
        assert (await _sent(note))["params"] == note.model_dump(mode="json")
        # a value acp's copy of the schema reads differently (an unlisted category)
        update = v1.ConfigOptionUpdate.model_validate(
            {
                "sessionUpdate": "config_option_update",
                "configOptions": [
                    {
                        "id": "o",
                        "name": "n",
                        "type": "boolean",
                        "currentValue": True,
                        "category": "x",
                    }
                ],
            }
        )
        sent = await _sent(update, session_id="s1")
        assert sent["params"]["update"] == update.model_dump(mode="json")
        # a `_meta` key named like a parameter of acp's session_update
        note = v1.SessionNotification(
            session_id="s1",
            update=v1.AgentMessageChunk(content=text("hi")),
            meta={"update": 1},
        )
        assert (await _sent(note))["params"]["_meta"] == {"update": 1}

    run(test)


# Updates of kinds acp knows, as the bindings decode them off the wire.
KNOWN_KIND_UPDATES: list[dict[str, Any]] = [
    {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}},
    {
        "sessionUpdate": "user_message_chunk",
        "content": {"type": "resource_link", "uri": "file:///a", "name": "a"},
        "messageId": "m1",
    },
    {
        "sessionUpdate": "tool_call",
        "toolCallId": "t1",
        "title": "Read",
        "kind": "read",
        "locations": [{"path": "/a", "line": 3}],
        "rawInput": {"path": "/a"},
        "content": [{"type": "content", "content": {"type": "text", "text": "y"}}],
    },
    {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"},
    {
        "sessionUpdate": "plan",
        "entries": [{"content": "c", "priority": "high", "status": "pending"}],
    },
    {
        "sessionUpdate": "available_commands_update",
        "availableCommands": [{"name": "n", "description": "d", "input": {"hint": "h"}}],
    },
    {"sessionUpdate": "current_mode_update", "currentModeId": "ask"},
    {
        "sessionUpdate": "usage_update",
        "used": 1,
        "size": 2,
        "cost": {"amount": 2, "currency": "EUR"},
    },
]

JSON_LEAVES = st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=5)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)


def _objects(value: Any) -> list[dict[str, Any]]:
    """Every JSON object inside a value, the value itself first if it is one."""
    found: list[dict[str, Any]] = []
    if isinstance(value, dict):
        found.append(value)
        for item in value.values():
            found.extend(_objects(item))
    elif isinstance(value, list):
        for item in value:
            found.extend(_objects(item))
    return found


@st.composite
def _known_kind_notifications_with_unknown_keys(draw: st.DrawFn) -> dict[str, Any]:
    """A `session/update` of a kind acp knows, with unknown keys added to some of its
    objects (the params, the update, the objects nested in it), `_meta` perhaps."""
    params: dict[str, Any] = {
        "sessionId": "s1",
        "update": dict(draw(st.sampled_from(KNOWN_KIND_UPDATES))),
    }
    params = json.loads(json.dumps(params))  # a copy the strategy may change
    if draw(st.booleans()):
        params["_meta"] = draw(st.dictionaries(st.text(max_size=4), JSON_VALUES, max_size=2))
    objects = _objects(params["update"])
    if draw(st.booleans()):
        objects.append(params)
    for target in draw(st.lists(st.sampled_from(objects), min_size=1, max_size=4)):
        key = "x" + draw(st.text(max_size=4))  # no schema key starts with a lower-case x
        target[key] = draw(JSON_VALUES)
    return params


@SEQUENCES
@given(_known_kind_notifications_with_unknown_keys())
def test_send_writes_every_key_of_a_kind_acp_knows(params: dict[str, Any]) -> None:
    # acp's own `session_update` writes its models by their declared classes: an unknown
    # key anywhere in the update would be dropped on the way; `send` must not lose it.
    note = v1.SessionNotification.model_validate(params)
    value = note.model_dump(mode="json")

    async def test() -> None:
        assert (await _sent(note))["params"] == value
        sent_update = await _sent(note.update, session_id="s1")
        assert sent_update["params"]["update"] == value["update"]

    run(test)


def test_send_keeps_unknown_keys_acps_writer_would_drop() -> None:
    async def test() -> None:
        update = v1.AgentMessageChunk.model_validate(
            {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "x", "zz": 1},
                "yy": [1],
            }
        )
        sent = await _sent(update, session_id="s1")
        assert sent["params"]["update"] == {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "x", "zz": 1},
            "yy": [1],
        }
        # an explicit null acp's writer leaves out is kept as well
        chunk = v1.AgentMessageChunk.model_validate(
            {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "x"},
                "messageId": None,
            }
        )
        assert (await _sent(chunk, session_id="s1"))["params"]["update"]["messageId"] is None

    run(test)


def test_acps_path_is_taken_exactly_when_acp_writes_the_value() -> None:
    async def through_acp(message: Any) -> bool:
        agent_end, client_end = memory_transport_pair()
        connection = AgentSideConnection(object(), agent_end, listening=False)
        calls: list[Any] = []
        original = connection.session_update

        async def recorded(*arguments: Any, **keywords: Any) -> None:
            calls.append(arguments)
            await original(*arguments, **keywords)

        connection.session_update = recorded  # type: ignore[method-assign]
        await send(connection, message, session_id="s1")
        assert await client_end.receive() is not None
        return bool(calls)

    async def test() -> None:
        assert await through_acp(v1.AgentMessageChunk(content=text("hi"), message_id="m1"))
        with_unknown = v1.AgentMessageChunk.model_validate(
            {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": "x"},
                "y": 1,
            }
        )
        assert not await through_acp(with_unknown)

    run(test)


def test_other_notifications_take_their_method_from_the_table() -> None:
    async def test() -> None:
        sent = await _sent(v1.CompleteElicitationNotification(elicitation_id="e1"))
        assert sent["method"] == "elicitation/complete"
        assert sent["params"] == {"elicitationId": "e1"}

    run(test)


def test_send_refuses_what_it_cannot_address() -> None:
    async def test() -> None:
        with pytest.raises(TypeError, match="needs session_id="):
            await _sent(v1.AgentMessageChunk(content=text("hi")))
        note = v1.SessionNotification(
            session_id="s1", update=v1.AgentMessageChunk(content=text("hi"))
        )
        with pytest.raises(ValueError, match="'s2' but the notification is for 's1'"):
            await _sent(note, session_id="s2")
        with pytest.raises(TypeError, match="not a session update or the params"):
            await _sent(v1.PromptResponse(stop_reason="end_turn"))
        with pytest.raises(TypeError, match=r"acp_schema\.v1 models"):
            await _sent({"sessionId": "s1"})
        # a session id is a string, as the bindings read it
        for wrong in (5, 0, b"s1", True):
            with pytest.raises(TypeError, match="session_id must be a str, not "):
                await _sent(v1.AgentMessageChunk(content=text("hi")), session_id=wrong)
        with pytest.raises(TypeError, match="session_id must be a str, not int"):
            await _sent(v1.SessionMessage(message_id="m"), session_id=5)
        # a v2 model is named with its package: the same class name as the v1 one it wants
        with pytest.raises(TypeError, match=r"v1 models, not acp_schema\.v2\.SessionMessage$"):
            await _sent(v2.SessionMessage(message_id="m"), session_id="s1")
        with pytest.raises(TypeError, match=r"v1 models, not dict$"):
            await _sent({"sessionId": "s1"})
        with pytest.raises(TypeError, match="needs an acp AgentSideConnection, not object"):
            await send(object(), v1.CompleteElicitationNotification(elicitation_id="e1"))

    run(test)


# --- receive -------------------------------------------------------------------------------


class Client:
    def __init__(self) -> None:
        self.updates: list[Any] = []

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append(update)


def _update(session_id: str, update: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session_id, "update": update},
    }


class Wired:
    """An acp client connection with a receiver, and the agent's end of its transport."""

    def __init__(self, on_update: Any = None, store: TranscriptStore | None = None) -> None:
        self.agent_end, client_end = memory_transport_pair()
        self.client = Client()
        self.connection = acp.connect_to_agent(self.client, client_end)
        self.seen: list[tuple[Any, Any]] = []
        receiver = UpdateReceiver(on_update or self.keep, store=store)
        receiver.attach(self.connection)

    def keep(self, notification: Any, entry: Any) -> None:
        self.seen.append((notification, entry))


def test_every_update_reaches_the_application_and_acp_gets_the_kinds_it_knows(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)

    async def test() -> None:
        store = TranscriptStore("v1")
        wired = Wired(store=store)
        upsert = {"sessionUpdate": "session_message", "messageId": "o1", "senderSessionId": "a"}
        await wired.agent_end.send(_update("a", upsert))
        for piece in ("one ", "two ", "three"):
            chunk = {
                "sessionUpdate": "session_message_chunk",
                "messageId": "o1",
                "content": {"type": "text", "text": piece},
            }
            await wired.agent_end.send(_update("a", chunk))
        known = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "k"}}
        await wired.agent_end.send(_update("a", known))
        await settle()
        kinds = [n.update.session_update for n, _ in wired.seen]
        assert kinds == ["session_message", *["session_message_chunk"] * 3, "agent_message_chunk"]
        assert all(isinstance(n, fast.SessionNotification) for n, _ in wired.seen)
        entry = store.entry("a", "o1")
        assert entry is not None and [e for _, e in wired.seen[:4]] == [entry] * 4
        assert wired.seen[4][1] is None  # not a session message
        assert [b.text for b in entry.content] == ["one ", "two ", "three"]  # in order
        assert [type(u).__name__ for u in wired.client.updates] == ["AgentMessageChunk"]
        await wired.connection.close()

    run(test)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def _assert_no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    assert [r.getMessage() for r in caplog.records if r.exc_info or r.exc_text] == []
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []


# Params the bindings refuse, each with the field the report names and what it says there.
MALFORMED = [
    ({"sessionUpdate": "session_message", "messageId": 5}, "update.messageId", "valid string"),
    (
        {"sessionUpdate": "session_message_chunk", "messageId": "m", "content": "not a block"},
        "update.content",
        "an object",
    ),
    (
        {"sessionUpdate": "session_message_chunk", "content": {"type": "text", "text": "x"}},
        "update.messageId",
        "Field required",
    ),
    (
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": ["x"]}},
        "update.content.text",
        "valid string",
    ),
    (  # the text the bindings read has a NaN token; JSON has none
        {"sessionUpdate": "usage_update", "used": float("nan"), "size": 2},
        "update.used",
        "NaN is not JSON",
    ),
]


def test_what_the_bindings_refuse_reaches_on_update_as_a_value_with_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)

    async def test() -> None:
        wired = Wired()
        for update, _, _ in MALFORMED:
            await wired.agent_end.send(_update("a", update))
        await wired.agent_end.send(_update("a", {"sessionUpdate": "kind_from_2030", "x": 1}))
        await wired.agent_end.send(
            {"jsonrpc": "2.0", "method": "session/update", "params": ["not", "an", "object"]}
        )
        await settle()
        values = [value for value, _ in wired.seen]
        assert all(isinstance(value, UndecodableUpdate) for value in values)
        assert [entry for _, entry in wired.seen] == [None] * len(values)
        assert [v.params["update"] for v in values[:-1]] == [
            *[update for update, _, _ in MALFORMED],
            {"sessionUpdate": "kind_from_2030", "x": 1},
        ]
        for value, (update, field, problem) in zip(values, MALFORMED, strict=False):
            assert isinstance(value.error, ValidationError)
            assert value.error.error_count() == 1
            assert (value.field, value.session_id, value.kind) == (
                field,
                "a",
                update["sessionUpdate"],
            )
            assert problem in value.problem
            assert not value.unknown_kind
        newer, garbage = values[-2:]
        assert newer.unknown_kind and newer.kind == "kind_from_2030"
        assert newer.field == "update.sessionUpdate"
        assert (garbage.field, garbage.session_id, garbage.kind) == ("params", None, None)
        assert garbage.params == ["not", "an", "object"]
        assert wired.client.updates == []  # acp's models refuse them all too
        await wired.connection.close()

    run(test)
    warnings = _warnings(caplog)
    assert len(warnings) == len(MALFORMED) + 2  # one line per update
    for line, (_sent, field, _) in zip(warnings, MALFORMED, strict=False):
        assert line.startswith(
            f"session/update for session 'a' not decoded by acp_schema.v1: {field}: "
        )
        assert line.endswith("; on_update gets it as an UndecodableUpdate")
    assert "a kind acp_schema.v1 does not know ('kind_from_2030')" in warnings[-2]
    assert "session ?" in warnings[-1] and ": params: " in warnings[-1]
    assert all("\n" not in line for line in warnings)
    _assert_no_tracebacks(caplog)


def test_a_nan_is_named_where_it_is() -> None:
    params = {
        "sessionId": "a",
        "update": {
            "sessionUpdate": "usage_update",
            "used": 1,
            "size": 2,
            "_meta": {"k": [float("nan")]},
        },
    }
    value = UpdateReceiver().decode(params)
    assert isinstance(value, UndecodableUpdate)
    assert value.field == "update._meta.k.0"
    assert "NaN" in value.problem


def test_what_acp_reads_but_the_bindings_refuse_still_reaches_acp(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)

    async def test() -> None:
        wired = Wired()
        # acp's models are lax (the string "1" for an integer); the bindings are exact.
        update = {"sessionUpdate": "usage_update", "used": "1", "size": 2}
        await wired.agent_end.send(_update("a", update))
        await settle()
        [(value, _entry)] = wired.seen
        assert isinstance(value, UndecodableUpdate) and value.field == "update.used"
        assert [(type(u).__name__, u.used) for u in wired.client.updates] == [("UsageUpdate", 1)]
        await wired.connection.close()

    run(test)
    [warning] = _warnings(caplog)
    assert "update.used: Input should be a JSON integer" in warning
    _assert_no_tracebacks(caplog)


def test_what_the_bindings_read_but_acp_refuses_is_reported_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)

    async def test() -> None:
        wired = Wired()
        # The schema reads a `null` list as empty (default on null); acp's copy refuses it.
        await wired.agent_end.send(_update("a", {"sessionUpdate": "plan", "entries": None}))
        await settle()
        [(value, _)] = wired.seen
        assert isinstance(value, fast.SessionNotification | v1.SessionNotification)
        assert value.update.session_update == "plan" and list(value.update.entries) == []
        assert wired.client.updates == []
        await wired.connection.close()

    run(test)
    [warning] = _warnings(caplog)
    assert warning.startswith(
        "session/update for session 'a' (plan) not read by agent-client-protocol"
    )
    assert "update.plan.entries: Input should be a valid list" in warning
    assert warning.endswith("the Client's session_update does not get it, on_update does")
    _assert_no_tracebacks(caplog)


def test_params_json_text_cannot_hold_are_judged_from_the_values() -> None:
    receiver = UpdateReceiver()
    # A lone surrogate is no JSON text, wherever it comes from (the bindings' one rule):
    # a refusal the user sees, saying where, with the raw params kept.
    lone = {"sessionId": "a", "update": {"sessionUpdate": "session_message", "messageId": "\ud800"}}
    refused_lone = receiver.decode(lone)
    assert isinstance(refused_lone, UndecodableUpdate)
    assert refused_lone.params == lone
    assert "lone surrogate" in refused_lone.problem and "/update/messageId" in refused_lone.problem
    deep: Any = []
    for _ in range(700):  # deeper than pydantic's JSON writer goes
        deep = [deep]
    nested = {
        "sessionId": "a",
        "update": {"sessionUpdate": "session_message", "messageId": "m", "_meta": {"k": deep}},
    }
    assert isinstance(receiver.decode(nested), v1.SessionNotification)
    nested["update"]["messageId"] = 5
    refused = receiver.decode(nested)
    assert isinstance(refused, UndecodableUpdate) and refused.field == "update.messageId"


def test_params_too_deep_for_the_interpreter_are_a_refusal_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The bindings decode any nesting the interpreter holds; should a decode still blow the
    # stack, the update is an UndecodableUpdate like any other refusal, not an exception.
    def too_deep(value: Any) -> Any:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(v1.SessionNotification, "model_validate", too_deep)
    params = {
        "sessionId": "a",
        "update": {"sessionUpdate": "session_message", "messageId": "\ud800"},
    }
    value = UpdateReceiver().decode(params)
    assert isinstance(value, UndecodableUpdate)
    assert (value.field, value.problem) == ("params", "nested too deeply to decode")
    assert value.params is params
    assert value.error.title == "SessionNotification"
    assert [e["type"] for e in value.error.errors()] == ["too_deep"]


def test_the_report_stays_one_line_whatever_the_peer_sends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)

    async def test() -> None:
        wired = Wired()
        kind = "evil\nWARNING forged line\x1b[31m" + "x" * 10_000
        await wired.agent_end.send(_update("s\n2", {"sessionUpdate": kind}))
        await settle()
        await wired.connection.close()

    run(test)
    [warning] = _warnings(caplog)
    assert "\n" not in warning and "\x1b" not in warning
    assert "'s\\n2'" in warning and "evil\\nWARNING" in warning
    assert len(warning) < 700


def test_requests_and_other_notifications_go_to_acp_untouched() -> None:
    async def test() -> None:
        wired = Wired()
        request = {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "fs/read_text_file",
            "params": {"sessionId": "a", "path": "/x"},
        }
        await wired.agent_end.send(request)
        response = await wired.agent_end.receive()
        assert response is not None and response["id"] == 5
        assert response["error"]["code"] == -32601  # the Client has no read_text_file
        assert wired.seen == []
        await wired.connection.close()

    run(test)


# One update of each way the receiver handles one: (params' update, acp's Client gets it).
WAYS = [
    ({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "k"}}, True),
    ({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Run"}, True),
    ({"sessionUpdate": "session_message", "messageId": "o1"}, False),
    (
        {
            "sessionUpdate": "session_message_chunk",
            "messageId": "o1",
            "content": {"type": "text", "text": "c"},
        },
        False,
    ),
    ({"sessionUpdate": "session_message", "messageId": 5}, False),  # malformed
    ({"sessionUpdate": "kind_from_2030"}, False),  # unknown to both
    ({"sessionUpdate": "usage_update", "used": "1", "size": 2}, True),  # only acp reads it
    ({"sessionUpdate": "plan", "entries": None}, False),  # only the bindings read it
]


class SlowClient:
    """An acp Client whose `session_update` yields to the loop a given number of times."""

    def __init__(self, pauses: list[int]) -> None:
        self.pauses = pauses
        self.started: list[int] = []
        self.finished: list[int] = []

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        number = int(session_id)
        self.started.append(number)
        for _ in range(self.pauses[number]):
            await asyncio.sleep(0)
        self.finished.append(number)


@SEQUENCES
@given(
    script=st.lists(
        st.tuples(st.sampled_from(range(len(WAYS))), st.integers(0, 6), st.integers(0, 6)),
        min_size=1,
        max_size=25,
    ),
    as_coroutine=st.booleans(),
)
def test_on_update_gets_every_update_once_in_wire_order(
    script: list[tuple[int, int, int]], as_coroutine: bool
) -> None:
    """Whatever the Client's `session_update` and `on_update` await, and whichever way
    each update goes (acp's router, the bindings only, refused), `on_update` sees the
    updates once each, in the order they were sent; acp's Client gets those acp reads,
    starting them in that order too."""

    async def test() -> None:
        seen: list[int] = []

        def plain(value: Any, entry: Any) -> None:
            seen.append(int(_session(value)))

        async def coroutine(value: Any, entry: Any) -> None:
            for _ in range(script[int(_session(value))][2]):
                await asyncio.sleep(0)
            seen.append(int(_session(value)))

        agent_end, client_end = memory_transport_pair()
        client = SlowClient([pauses for _, pauses, _ in script])
        connection = acp.connect_to_agent(client, client_end)
        UpdateReceiver(coroutine if as_coroutine else plain).attach(connection)
        for number, (way, _, _) in enumerate(script):
            await agent_end.send(_update(str(number), dict(WAYS[way][0])))
        for _ in range(2000):
            if len(seen) == len(script):
                break
            await asyncio.sleep(0)
        for _ in range(200):  # let acp finish what it has (the Client may still pause)
            await asyncio.sleep(0)
        assert seen == list(range(len(script)))
        to_acp = [number for number, (way, _, _) in enumerate(script) if WAYS[way][1]]
        assert client.started == to_acp
        assert sorted(client.finished) == to_acp
        await connection.close()

    logging.disable(logging.WARNING)  # the reports are tested above; here, the order
    try:
        run(test)
    finally:
        logging.disable(logging.NOTSET)


def _session(value: Any) -> str:
    return (
        value.session_id if not isinstance(value, UndecodableUpdate) else value.params["sessionId"]
    )


def test_an_error_in_on_update_is_reported_and_holds_nothing_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)

    async def test() -> None:
        seen: list[str] = []

        async def on_update(value: Any, entry: Any) -> None:
            seen.append(str(value.update.message_id))
            if value.update.message_id == "m1":
                raise RuntimeError("the application's own bug")

        wired = Wired(on_update=on_update)
        for message_id in ("m1", "m2"):
            await wired.agent_end.send(
                _update("a", {"sessionUpdate": "session_message", "messageId": message_id})
            )
        known = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "k"}}
        await wired.agent_end.send(_update("a", known))
        await settle()
        assert seen == ["m1", "m2", "UNSET"]  # the chunk has no messageId
        assert len(wired.client.updates) == 1  # acp still got what it reads
        await wired.connection.close()

    wired_plain: list[str] = []

    def failing(value: Any, entry: Any) -> None:
        wired_plain.append(value.update.session_update)
        raise RuntimeError("the application's own bug")

    async def plain() -> None:
        wired = Wired(on_update=failing)
        known = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "k"}}
        await wired.agent_end.send(_update("a", known))
        await settle()
        assert wired_plain == ["agent_message_chunk"]
        assert len(wired.client.updates) == 1  # handed to acp before the error is raised
        await wired.connection.close()

    run(test)
    run(plain)
    # The application's errors are acp's to report, as an error of the Client's own
    # handler is: with the traceback that shows where it happened.
    errors = [r for r in caplog.records if r.getMessage().startswith(ACP_ERROR)]
    assert len(errors) == 2
    assert all(r.exc_info is not None and "own bug" in str(r.exc_info[1]) for r in errors)


def test_a_receiver_attaches_once_and_takes_a_v1_store() -> None:
    async def test() -> None:
        wired = Wired()
        with pytest.raises(
            ValueError, match=r"^an UpdateReceiver is attached to this connection already$"
        ):
            UpdateReceiver().attach(wired.connection)
        with pytest.raises(TypeError, match="expected an acp ClientSideConnection"):
            UpdateReceiver().attach(object())
        await wired.connection.close()

    run(test)
    with pytest.raises(
        ValueError, match=r"^acp speaks ACP v1: the store must be a v1 store, not v2$"
    ):
        UpdateReceiver(store=TranscriptStore("v2"))


# --- the version gate ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "supported"),
    [
        ("0.12.0", True),
        ("0.12.1", True),
        ("0.12.9.post1", True),
        ("0.13", False),
        ("0.13.0rc1", False),  # PEP 440: `<0.13` leaves out 0.13's pre-releases
        ("0.12.0rc1", False),
        ("0.11.1", False),
    ],
)
def test_the_supported_range(version: str, supported: bool) -> None:
    assert (version in support.SUPPORTED) is supported


@pytest.mark.parametrize(
    ("installed", "message"),
    [
        ("0.13.0", "supports agent-client-protocol >=0.12.0,<0.13, found 0.13.0"),
        ("0.11.1", "found 0.11.1"),
        ("not-a-version", "cannot read the version"),
        (None, "pip install 'acp-schema\\[acp\\]'"),
    ],
)
def test_an_acp_outside_the_range_fails_at_import_with_a_message(
    monkeypatch: pytest.MonkeyPatch, installed: str | None, message: str
) -> None:
    def version(name: str) -> str:
        assert name == "agent-client-protocol"
        if installed is None:
            raise support.metadata.PackageNotFoundError(name)
        return installed

    monkeypatch.setattr(support.metadata, "version", version)
    with pytest.raises(support.UnsupportedAcpError, match=message):
        support.check_version()


def test_the_installed_acp_is_in_range() -> None:
    assert support.ACP_VERSION in support.SUPPORTED


def test_the_rest_of_the_package_does_not_import_acp() -> None:
    # acp is an optional extra: only acp_schema.acp_bridge needs it.
    probe = (
        "import sys, acp_schema, acp_schema.v1, acp_schema.transcripts, acp_schema.cli\n"
        "from acp_schema import v1\n"
        "v1.SessionNotification\n"
        "print(sorted(m for m in sys.modules if m == 'acp' or m.startswith('acp.')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"


def test_importing_the_adapter_with_another_acp_fails_with_the_reason(tmp_path: Path) -> None:
    # A distribution record of acp 0.13.0 found first on the path: what `pip install` of a
    # newer acp would leave.
    record = tmp_path / "agent_client_protocol-0.13.0.dist-info"
    record.mkdir()
    (record / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: agent-client-protocol\nVersion: 0.13.0\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", "import acp_schema.acp_bridge"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        check=False,
    )
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        "acp_schema.UnsupportedAcpError: acp_schema.acp_bridge supports "
        "agent-client-protocol >=0.12.0,<0.13, found 0.13.0: install a supported version "
        "or an acp-schema that supports it"
    )


GUARDED_IMPORT = """
from acp_schema import UnsupportedAcpError
try:
    from acp_schema import acp_bridge
except UnsupportedAcpError as error:
    print("caught:", error)
else:
    print("imported", acp_bridge.ACP_VERSION)
"""


def _guarded_import(path: Path) -> str:
    # `path` first; then the PYTHONPATH this test runs with, which may pick the acp to test
    search = os.pathsep.join(filter(None, [str(path), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", GUARDED_IMPORT],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": search},
        check=True,
    )
    assert done.stderr == ""
    return done.stdout.strip()


def test_the_version_error_is_caught_by_its_own_name(tmp_path: Path) -> None:
    # `UnsupportedAcpError` imports from the package root, which needs no acp, so the
    # import of the bridge can be guarded with it (it is an ImportError too).
    record = tmp_path / "agent_client_protocol-0.13.0.dist-info"
    record.mkdir()
    (record / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: agent-client-protocol\nVersion: 0.13.0\n"
    )
    assert _guarded_import(tmp_path).startswith("caught: acp_schema.acp_bridge supports ")
    assert issubclass(UnsupportedAcpError, ImportError)
    assert UnsupportedAcpError is acp_schema.UnsupportedAcpError


def test_an_acp_that_fails_to_import_is_the_same_error(tmp_path: Path) -> None:
    # The right version on record, but its package broken (a half-finished install).
    (tmp_path / "acp").mkdir()
    (tmp_path / "acp" / "__init__.py").write_text("raise ImportError('half\\ninstalled')\n")
    assert _guarded_import(tmp_path) == (
        f"caught: agent-client-protocol {support.ACP_VERSION} is installed but cannot be "
        "imported: half installed"
    )


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("raise RuntimeError('boom\\nat import')\n", "RuntimeError: boom at import"),
        ("def broken(:\n", "SyntaxError: "),
        ("import no_such_module_anywhere\n", "ModuleNotFoundError: No module named "),
        ("raise KeyError('k')\n", "KeyError: 'k'"),
    ],
)
def test_any_failure_importing_acp_is_the_same_error(
    tmp_path: Path, body: str, reason: str
) -> None:
    # Not only an ImportError: whatever acp (or what it imports) raises while importing.
    (tmp_path / "acp").mkdir()
    (tmp_path / "acp" / "__init__.py").write_text(body)
    caught = _guarded_import(tmp_path)
    assert caught.startswith(
        f"caught: agent-client-protocol {support.ACP_VERSION} is installed but cannot be "
        f"imported: {reason}"
    )
    assert "\n" not in caught


def test_a_missing_version_library_is_the_same_error(tmp_path: Path) -> None:
    (tmp_path / "packaging").mkdir()
    (tmp_path / "packaging" / "__init__.py").write_text("raise ImportError('no packaging')\n")
    assert _guarded_import(tmp_path) == (
        "caught: acp_schema.acp_bridge needs the packaging library to check the version of "
        "agent-client-protocol: pip install 'acp-schema[acp]'"
    )


def test_with_a_supported_acp_the_guarded_import_imports() -> None:
    assert _guarded_import(Path("/nonexistent")) == f"imported {support.ACP_VERSION}"


# --- the value, its report, and the receiver's edges ------------------------------------------


def _refused(update: Any, session_id: Any = "a") -> UndecodableUpdate:
    value = UpdateReceiver().decode({"sessionId": session_id, "update": update})
    assert isinstance(value, UndecodableUpdate)
    return value


def test_an_undecodable_update_is_a_frozen_value_of_the_public_type() -> None:
    import dataclasses

    value = _refused({"sessionUpdate": "session_message", "messageId": 5})
    with pytest.raises(dataclasses.FrozenInstanceError):
        value.params = {}  # type: ignore[misc]
    decoded = UpdateReceiver().decode(
        {"sessionId": "a", "update": {"sessionUpdate": "session_message", "messageId": "m"}}
    )
    assert isinstance(value, ReceivedUpdate) and isinstance(decoded, ReceivedUpdate)
    assert not isinstance(decoded, UndecodableUpdate)
    assert get_args(OnUpdate)[0] == [ReceivedUpdate, MessageEntry | None]


def test_a_store_handed_an_undecodable_update_says_so() -> None:
    # The receiver keeps refusals from its store; an application that hands one on gets
    # an error naming the value's type, and the store is unchanged.
    store = TranscriptStore("v1")
    value = _refused({"sessionUpdate": "session_message", "messageId": 5})
    with pytest.raises(TypeError, match=r"not UndecodableUpdate$"):
        store.apply(value)  # type: ignore[arg-type]
    assert list(store.transcripts()) == []


@pytest.mark.parametrize(
    ("update", "unknown"),
    [
        ({"sessionUpdate": "kind_from_2030"}, True),
        ({"sessionUpdate": 5}, False),  # a tag that is no string: malformed
        ({"messageId": "m"}, False),  # no tag at all
        (  # an unknown tag deeper down (a content block type) is no unknown update kind
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "video"}},
            False,
        ),
        ({"sessionUpdate": "kind_from_2030", "x": 1}, True),
    ],
)
def test_only_an_unknown_update_kind_is_one(update: Any, unknown: bool) -> None:
    assert _refused(update).unknown_kind is unknown


def test_the_report_counts_the_other_problems() -> None:
    one = _refused({"sessionUpdate": "session_message", "messageId": 5})
    assert one.describe() == (
        "session/update for session 'a' not decoded by acp_schema.v1: update.messageId: "
        "Input should be a valid string; on_update gets it as an UndecodableUpdate"
    )
    two = _refused({"sessionUpdate": "session_message", "messageId": 5}, session_id=7)
    assert two.error.error_count() == 2 and two.session_id is None
    assert two.describe() == (
        "session/update for session ? not decoded by acp_schema.v1: sessionId: "
        "Input should be a valid string (and 1 more); on_update gets it as an "
        "UndecodableUpdate"
    )
    newer = _refused({"sessionUpdate": "kind_from_2030"})
    assert newer.describe() == (
        "session/update for session 'a' not decoded by acp_schema.v1: update.sessionUpdate: "
        "a kind acp_schema.v1 does not know ('kind_from_2030'); on_update gets it as an "
        "UndecodableUpdate"
    )


def test_peer_text_in_a_report_is_escaped_and_cut_at_200_characters() -> None:
    # A problem that quotes the peer's text (an unknown content type) ...
    sneaky = _refused(
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "vi\ndeo\x1b[2J\u202e"}}
    )
    line = sneaky.describe()
    assert line.isprintable()
    assert "vi\\ndeo\\x1b[2J\\u202e" in line
    # ... and the peer's strings, quoted: up to 200 characters whole, then cut.
    assert one_line("x" * 200) == "x" * 200
    assert one_line("x" * 201) == "x" * 200 + "..."
    assert one_line("a\tb\x00") == "a\\tb\\x00"
    assert quoted("y" * 200) == repr("y" * 200)
    assert quoted("y" * 201) == repr("y" * 200 + "...")
    assert quoted(None) == "?"


def test_the_report_goes_to_the_bridges_logger(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)

    async def test() -> None:
        wired = Wired()
        await wired.agent_end.send(_update("a", {"sessionUpdate": "kind_from_2030"}))
        await settle()
        await wired.connection.close()

    run(test)
    [record] = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert (record.name, record.levelno, record.exc_info) == (
        "acp_schema.acp_bridge",
        logging.WARNING,
        None,
    )


def test_other_notifications_are_not_taken_for_updates(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)

    async def test() -> None:
        wired = Wired()
        # a notification acp's router knows (unstable: it answers "method not found",
        # which acp reports itself), and an extension notification
        for method in ("elicitation/complete", "_vendor/ping"):
            await wired.agent_end.send({"jsonrpc": "2.0", "method": method, "params": {}})
        await settle()
        assert wired.seen == []
        await wired.connection.close()

    run(test)
    assert not [r for r in caplog.records if r.name == "acp_schema.acp_bridge"]


def test_without_the_process_a_closed_connection_is_acps_error() -> None:
    async def test() -> None:
        wired = Wired()
        await wired.agent_end.close()  # the agent's end goes away; no process to ask
        for _ in range(100):
            await asyncio.sleep(0)
        with pytest.raises(ConnectionError) as caught:
            await wired.connection.prompt(session_id="a", prompt=[acp.text_block("x")])
        assert type(caught.value) is ConnectionError
        assert str(caught.value) == "Connection closed"
        await wired.connection.close()

    run(test)


def test_closing_the_connection_cancels_the_calls_still_running() -> None:
    async def test() -> None:
        ended: list[str] = []

        class StuckClient:
            async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
                await asyncio.sleep(30)

        async def on_update(value: Any, entry: Any) -> None:
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                ended.append("cancelled")
                raise

        agent_end, client_end = memory_transport_pair()
        connection = acp.connect_to_agent(StuckClient(), client_end)
        UpdateReceiver(on_update).attach(connection)
        known = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "k"}}
        await agent_end.send(_update("a", known))
        await settle()
        loop = asyncio.get_running_loop()
        started = loop.time()
        await connection.close()
        # at once: nothing waits for the 30 s of either handler (acp's close swallows a
        # timeout's cancellation, so the time is what tells)
        assert loop.time() - started < 3
        assert ended == ["cancelled"]

    run(test)


def test_an_error_about_the_whole_value_is_located_at_the_top() -> None:
    from acp_schema.acp_bridge.undecodable import first_problem

    try:
        v1.SessionNotification.model_validate_json("[1]")
    except ValidationError as error:
        assert first_problem(error) == ("(top level)", "Input should be an object")
    else:
        raise AssertionError("a list is no SessionNotification")


# --- a dying agent ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("returncode", "how"),
    [
        (0, "exited with status 0"),
        (1, "exited with status 1"),
        (-9, "was killed by signal 9 (SIGKILL)"),
        (-15, "was killed by signal 15 (SIGTERM)"),
        (-200, "was killed by signal 200"),  # no signal of that number
    ],
)
def test_how_a_process_ended_is_said_plainly(returncode: int, how: str) -> None:
    from acp_schema.acp_bridge.exits import how_it_ended

    assert how_it_ended(returncode) == how
    error = AgentExitedError("session/prompt", 42, returncode)
    assert (error.method, error.pid, error.returncode) == ("session/prompt", 42, returncode)
    assert str(error) == f"session/prompt: the agent process 42 {how}"


class LivingProcess:
    """A process that closed its output but does not exit (as far as the bridge can see)."""

    pid = 4242
    returncode = None

    async def wait(self) -> int:
        await asyncio.sleep(3600)
        return 0


def test_a_connection_closed_by_a_process_that_lives_on_is_acps_error() -> None:
    # The bridge waits a bounded time (2 s) for an exit status, then leaves acp's error.
    async def test() -> None:
        agent_end, client_end = memory_transport_pair()
        connection = acp.connect_to_agent(Client(), client_end)
        UpdateReceiver().attach(connection, process=LivingProcess())
        await agent_end.close()
        for _ in range(100):
            await asyncio.sleep(0)
        with pytest.raises(ConnectionError) as caught:
            await connection.prompt(session_id="a", prompt=[acp.text_block("x")])
        assert type(caught.value) is ConnectionError  # not AgentExitedError: it did not exit
        await connection.close()

    run(test)


class ExitingProcess:
    """A process whose exit status comes a moment after its output closed."""

    pid = 4343
    returncode: int | None = None

    async def wait(self) -> int:
        await asyncio.sleep(0.05)
        self.returncode = 3
        return 3


def test_the_bridge_waits_for_an_exit_status_that_comes_after_the_close(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The end of the agent's output usually comes just before its exit status: the bridge
    # waits for it (two seconds at most, as docs/acp-sdk.md says) and names it.
    waits: list[float | None] = []
    wait_for = asyncio.wait_for

    async def recording(awaitable: Awaitable[Any], timeout: float | None) -> Any:
        waits.append(timeout)
        return await wait_for(awaitable, timeout)

    monkeypatch.setattr(asyncio, "wait_for", recording)

    async def test() -> None:
        agent_end, client_end = memory_transport_pair()
        connection = acp.connect_to_agent(Client(), client_end)
        UpdateReceiver().attach(connection, process=ExitingProcess())
        await agent_end.close()
        for _ in range(100):
            await asyncio.sleep(0)
        with pytest.raises(AgentExitedError) as caught:
            await connection.prompt(session_id="a", prompt=[acp.text_block("x")])
        assert (caught.value.returncode, caught.value.pid) == (3, 4343)
        assert str(caught.value) == "session/prompt: the agent process 4343 exited with status 3"
        await connection.close()

    run(test)
    assert 2.0 in waits
