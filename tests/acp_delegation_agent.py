"""An acp agent process for the end-to-end test: it reports a subagent delegation.

Run as `python tests/acp_delegation_agent.py`; it speaks ACP on stdin/stdout through acp's
own `run_agent`, and sends every update with `acp_schema.acp_bridge.send`.

On `session/prompt` for the parent session it delegates to a child session:

- `agent_message_chunk` (a kind acp knows) in the parent;
- the request, parent -> child: the outgoing view `o1` in the parent (participants, no
  reference yet) and the incoming view `i1` in the child (participants and its reference
  to `o1`), then its text in chunks on both views;
- the reply, child -> parent: the outgoing view `o2` in the child and the incoming view
  `i2` in the parent, participants first, then chunks, then both references in a later
  metadata-only upsert; `o1`'s reference to `i1` arrives last of all;
- a closing `agent_message_chunk` in the parent.

Other prompts (the first text block) pick other turns, for the tests of what the client
does with what a peer may send:

- `mixed`: updates of every kind the receiver handles differently, in one sequence
  (`MIXED`): kinds acp knows (sent with `send`), session messages, malformed ones, a kind
  no one knows yet, one only acp reads, one only the bindings read; the malformed ones
  are written as they are, through the bridge's raw writer. Each notification's `_meta`
  carries its place in the sequence (`seq`), so the client can check the order.
- `exit N` / `kill`: one session message, then the process ends with status N, or kills
  itself with SIGKILL, without answering.
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any

import acp
from acp.schema import InitializeResponse, NewSessionResponse, PromptResponse

from acp_schema import v1
from acp_schema.acp_bridge import send
from acp_schema.acp_bridge._support import send_raw_notification

PARENT = "sess-parent"
CHILD = "sess-child"
REQUEST = ["Please run the parser ", "tests and report back."]
REPLY = ["All 42 parser tests ", "pass; nothing ", "to fix."]


def text(value: str) -> v1.TextContent:
    return v1.TextContent(text=value)


def upsert(message_id: str, **fields: Any) -> v1.SessionMessage:
    return v1.SessionMessage(message_id=message_id, **fields)


def chunk(message_id: str, value: str) -> v1.SessionMessageChunk:
    return v1.SessionMessageChunk(message_id=message_id, content=text(value))


def say(value: str) -> v1.AgentMessageChunk:
    return v1.AgentMessageChunk(content=text(value))


class DelegatingAgent:
    """Answers `initialize`, `session/new` and `session/prompt`; the rest is acp's default."""

    def __init__(self) -> None:
        self.connection: Any = None

    def on_connect(self, connection: Any) -> None:
        self.connection = connection

    async def initialize(self, protocol_version: int, **_: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=protocol_version)

    async def new_session(self, cwd: str, **_: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id=PARENT)

    async def prompt(self, prompt: list[Any], session_id: str, **_: Any) -> PromptResponse:
        words = prompt[0].text.split()
        if words == ["mixed"]:
            await self.mixed(session_id)
        elif words[:1] in (["exit"], ["kill"]):
            await send(self.connection, upsert("last-words"), session_id=session_id)
            if words[0] == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            os._exit(int(words[1]))
        else:
            await self.delegate(session_id)
        return PromptResponse(stop_reason="end_turn")

    async def mixed(self, session_id: str) -> None:
        for seq, (how, update) in enumerate(MIXED):
            if how == "send":  # a v1 model, through acp's session_update or written exactly
                note = v1.SessionNotification.model_validate(
                    {"sessionId": session_id, "update": update, "_meta": {"seq": seq}}
                )
                await send(self.connection, note)
            else:  # written as it is, malformed or not
                params = {"sessionId": session_id, "update": update, "_meta": {"seq": seq}}
                await send_raw_notification(self.connection, "session/update", params)

    async def delegate(self, parent: str) -> None:
        conn = self.connection
        await send(conn, say("Asking a subagent to run the tests."), session_id=parent)
        # The request: parent -> child.
        request = {"sender_session_id": parent, "recipient_session_id": CHILD}
        await send(conn, upsert("o1", **request, meta={"delegation": "d1"}), session_id=parent)
        await send(conn, upsert("i1", **request, sender_message_id="o1"), session_id=CHILD)
        for piece in REQUEST:
            await send(conn, chunk("o1", piece), session_id=parent)
            await send(conn, chunk("i1", piece), session_id=CHILD)
        # The reply: child -> parent, participants first, references later.
        reply = {"sender_session_id": CHILD, "recipient_session_id": parent}
        await send(conn, upsert("o2", **reply), session_id=CHILD)
        await send(conn, upsert("i2", **reply), session_id=parent)
        for piece in REPLY:
            await send(conn, chunk("o2", piece), session_id=CHILD)
            await send(conn, chunk("i2", piece), session_id=parent)
        await send(conn, upsert("o2", recipient_message_id="i2"), session_id=CHILD)
        await send(conn, upsert("i2", sender_message_id="o2"), session_id=parent)
        await send(conn, upsert("o1", recipient_message_id="i1"), session_id=parent)
        await send(conn, say("The subagent says all tests pass."), session_id=parent)


TEXT = {"type": "text", "text": "x"}
# (how it is sent, the update): "send" for `acp_bridge.send`, "raw" for exactly this value.
MIXED: list[tuple[str, dict[str, Any]]] = [
    ("send", {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "a"}}),
    ("send", {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Run the tests"}),
    ("send", {"sessionUpdate": "session_message", "messageId": "o1", "senderSessionId": "p"}),
    ("raw", {"sessionUpdate": "session_message", "messageId": 5}),
    ("send", {"sessionUpdate": "session_message_chunk", "messageId": "o1", "content": TEXT}),
    ("raw", {"sessionUpdate": "kind_from_2030", "detail": {"x": 1}}),
    ("raw", {"sessionUpdate": "session_message_chunk", "content": TEXT}),
    ("raw", {"sessionUpdate": "session_message_chunk", "messageId": "o1", "content": "x"}),
    ("send", {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "b"}}),
    ("raw", {"sessionUpdate": "usage_update", "used": "1", "size": 2}),
    ("raw", {"sessionUpdate": "plan", "entries": None}),
    ("send", {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"}),
    ("raw", {"sessionUpdate": "usage_update", "used": float("nan"), "size": 2}),
    ("send", {"sessionUpdate": "session_message_chunk", "messageId": "o1", "content": TEXT}),
]


if __name__ == "__main__":
    asyncio.run(acp.run_agent(DelegatingAgent()))
