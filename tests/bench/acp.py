"""The acp adapter's cost per update (`acp_schema.acp_bridge`), against acp's own path in
the same run. `python -m tests.bench acp`.

Receiving: the handler of an acp client connection (what acp's receive loop awaits for each
message), driven with the params acp's transport hands it (parsed JSON):

- acp alone: acp's router, `agent_message_chunk` (validated by acp's models, then the
  Client's `session_update`, a no-op here);
- the adapter on the same updates: decoded by the bindings (fast path), handed to
  `on_update`, then acp's router as before; the difference is the adapter's cost;
- the adapter on session messages (upserts and chunks, kinds acp lacks): decoded and handed
  over, acp not involved; and with a `TranscriptStore` applying them.

Sending: `AgentSideConnection.session_update` with acp models built beforehand, against
`acp_bridge.send` with the bindings' models (a kind acp knows: converted with `to_acp`, then
acp's path; a session-message chunk: written as it is), over a transport that drops what it
is given; a context row builds each acp model in the loop too (with acp's helper), as a
sender that starts from its own data does. CPU time, best of several interleaved runs
(tests/bench/bindings.py `best_of`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import acp
from acp.agent.connection import AgentSideConnection

from acp_schema import v1
from acp_schema.acp_bridge import UpdateReceiver, send
from acp_schema.transcripts import TranscriptStore
from tests.bench.bindings import best_of

COUNT = 5_000
WORDS = [
    "the",
    "agent",
    "reads",
    "src/main.py",
    "and",
    "runs",
    "the",
    "tests,",
    "then",
    "reports",
    "back",
]


class _Client:
    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        return None


class _DropTransport:
    """A message transport that drops every message (so only the sending path is timed)."""

    async def send(self, message: dict[str, Any]) -> None:
        return None

    async def receive(self) -> dict[str, Any] | None:
        await asyncio.Event().wait()
        return None

    async def close(self) -> None:
        return None


def _text(index: int) -> str:
    return " ".join(WORDS[index % 5 : index % 5 + 6])


def agent_chunks() -> list[dict[str, Any]]:
    return [
        {
            "sessionId": "s1",
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m1",
                "content": {"type": "text", "text": _text(i)},
            },
        }
        for i in range(COUNT)
    ]


def session_messages() -> list[dict[str, Any]]:
    """One upsert with participants every 10 updates, chunks in between."""
    params = []
    for i in range(COUNT):
        message_id = f"o{i // 10}"
        if i % 10 == 0:
            update: dict[str, Any] = {
                "sessionUpdate": "session_message",
                "messageId": message_id,
                "senderSessionId": "s1",
                "recipientSessionId": "s2",
            }
        else:
            update = {
                "sessionUpdate": "session_message_chunk",
                "messageId": message_id,
                "content": {"type": "text", "text": _text(i)},
            }
        params.append({"sessionId": "s1", "update": update})
    return params


def _handler(receiver: UpdateReceiver | None) -> Any:
    """The method handler of a fresh acp client connection, with the receiver if any."""
    connection = acp.connect_to_agent(_Client(), _DropTransport())
    if receiver is not None:
        receiver.attach(connection)
    return connection._conn._handler  # what acp's receive loop awaits per message


def _drive(make: Callable[[], Any], params: list[dict[str, Any]]) -> Callable[[], None]:
    async def batch() -> None:
        handler = make()
        for one in params:
            await handler("session/update", one, True)

    return lambda: asyncio.run(batch())


def _sending(run: Callable[[Any], Coroutine[Any, Any, None]]) -> Callable[[], None]:
    async def batch() -> None:
        connection = AgentSideConnection(object(), _DropTransport(), listening=False)
        await run(connection)

    return lambda: asyncio.run(batch())


def _ignore(notification: Any, entry: Any) -> None:
    return None


def main() -> None:
    chunks, messages = agent_chunks(), session_messages()
    texts = [one["update"]["content"]["text"] for one in chunks]
    acp_updates = [acp.update_agent_message_text(text) for text in texts]
    our_updates = [v1.AgentMessageChunk(content=v1.TextContent(text=text)) for text in texts]
    our_chunks = [
        v1.SessionMessageChunk(message_id="o1", content=v1.TextContent(text=_text(i)))
        for i in range(COUNT)
    ]

    async def acp_sends(connection: Any) -> None:
        for update in acp_updates:
            await connection.session_update("s1", update)

    async def acp_builds_and_sends(connection: Any) -> None:
        for text in texts:
            await connection.session_update("s1", acp.update_agent_message_text(text))

    async def adapter_sends_known(connection: Any) -> None:
        for update in our_updates:
            await send(connection, update, session_id="s1")

    async def adapter_sends_chunks(connection: Any) -> None:
        for update in our_chunks:
            await send(connection, update, session_id="s1")

    runs = {
        "receive agent_message_chunk, acp alone": _drive(lambda: _handler(None), chunks),
        "receive agent_message_chunk, adapter + acp": _drive(
            lambda: _handler(UpdateReceiver(_ignore)), chunks
        ),
        "receive session messages, adapter": _drive(
            lambda: _handler(UpdateReceiver(_ignore)), messages
        ),
        "receive session messages, adapter + store": _drive(
            lambda: _handler(UpdateReceiver(_ignore, store=TranscriptStore("v1"))), messages
        ),
        "send agent_message_chunk, acp alone": _sending(acp_sends),
        "send agent_message_chunk, acp, model built per update": _sending(acp_builds_and_sends),
        "send agent_message_chunk, adapter": _sending(adapter_sends_known),
        "send session_message_chunk, adapter": _sending(adapter_sends_chunks),
    }
    times = best_of(runs)
    receive_base = times["receive agent_message_chunk, acp alone"]
    send_base = times["send agent_message_chunk, acp alone"]
    print(f"{COUNT} updates per run, CPU time, best of several; ratio to acp's own path")
    for name, seconds in times.items():
        base = receive_base if name.startswith("receive") else send_base
        print(f"  {name:<56} {seconds / COUNT * 1e6:7.2f} us/update  x{seconds / base:5.2f}")
    added = times["receive agent_message_chunk, adapter + acp"] - receive_base
    print(f"  adapter's added cost on a kind acp knows: {added / COUNT * 1e6:.2f} us/update")
