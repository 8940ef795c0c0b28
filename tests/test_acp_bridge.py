"""`acp_bridge.send` and `UpdateReceiver` on real acp connections joined in memory (acp's
own message transport pair; the agent side is built as `acp.run_agent` builds it), and the
version gate. The stdio end to end is
tests/test_acp_bridge_e2e.py."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

acp = pytest.importorskip("acp", reason="agent-client-protocol (the acp extra) is not installed")

from acp._transport import memory_transport_pair  # noqa: E402
from acp.agent.connection import AgentSideConnection  # noqa: E402

from acp_schema import v1  # noqa: E402
from acp_schema.acp_bridge import UpdateReceiver, send  # noqa: E402
from acp_schema.acp_bridge import _support as support  # noqa: E402
from acp_schema.transcripts import TranscriptStore  # noqa: E402
from acp_schema.v1 import fast  # noqa: E402

ACP_ERROR = "Unhandled error while handling notification"


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


def test_what_the_bindings_refuse_is_acps_to_handle_as_before(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)

    async def test() -> None:
        wired = Wired()
        # a session message without its messageId: neither package takes it
        await wired.agent_end.send(_update("a", {"sessionUpdate": "session_message"}))
        await settle()
        assert wired.seen == []
        await wired.connection.close()

    run(test)
    errors = [r for r in caplog.records if r.getMessage().startswith(ACP_ERROR)]
    assert len(errors) == 1  # acp's own report, as without the receiver


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


def test_an_async_callback_is_awaited_in_order() -> None:
    async def test() -> None:
        order: list[str] = []

        async def on_update(notification: Any, entry: Any) -> None:
            await asyncio.sleep(0)
            order.append(notification.update.message_id)

        wired = Wired(on_update=on_update)
        for message_id in ("m1", "m2"):
            await wired.agent_end.send(
                _update("a", {"sessionUpdate": "session_message", "messageId": message_id})
            )
        await settle()
        assert order == ["m1", "m2"]
        await wired.connection.close()

    run(test)


def test_a_receiver_attaches_once_and_takes_a_v1_store() -> None:
    async def test() -> None:
        wired = Wired()
        with pytest.raises(ValueError, match="attached to this connection already"):
            UpdateReceiver().attach(wired.connection)
        with pytest.raises(TypeError, match="expected an acp ClientSideConnection"):
            UpdateReceiver().attach(object())
        await wired.connection.close()

    run(test)
    with pytest.raises(ValueError, match="must be a v1 store"):
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
        "acp_schema.acp_bridge._support.UnsupportedAcpError: acp_schema.acp_bridge supports "
        "agent-client-protocol >=0.12.0,<0.13, found 0.13.0: install a supported version "
        "or an acp-schema that supports it"
    )
