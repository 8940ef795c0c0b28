# ruff: noqa: E501 - written the way downstream code is, long lines too
"""Fixture trees for the occurrence accounting: layouts and patterns of real agent
repositories (vendored models in a namespace package, `src/` layouts, facades, star
imports, subclasses, the application's own look-alike classes).

`expect` pins the verdict of some occurrences: (file, a snippet of its line) -> verdict.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .vendored import VENDORED


@dataclass(frozen=True)
class Tree:
    name: str
    files: dict[str, str]
    expect: dict[tuple[str, str], str] = field(default_factory=dict)


# The application's own events, which also carry participant IDs (look-alikes).
EVENTS = """\
from dataclasses import dataclass


@dataclass
class MessageEvent:
    message_id: str
    sender_session_id: str
    text: str


@dataclass
class _Message:
    sender_session_id: str
    recipient_session_id: str | None = None
"""

FORK_USE = """\
from acme.events import MessageEvent, _Message
from acme.proto.models import SessionMessage, SessionMessageChunk


def who(update: object) -> str | None:
    if isinstance(update, SessionMessageChunk):
        return update.sender_session_id
    return None


def announce(mid: str, me: str) -> SessionMessage:
    return SessionMessage(message_id=mid, sender_session_id=me)


def from_event(e: object) -> str:
    assert isinstance(e, MessageEvent)
    return e.sender_session_id


def senders(events: list[object]) -> list[str]:
    return [e.sender_session_id for e in events if isinstance(e, MessageEvent)]


def lookup(by_id: dict[str, _Message], key: str) -> str:
    return by_id[key].sender_session_id


def describe(chunk: SessionMessageChunk) -> str:
    \"\"\"Chunks used to carry sender_session_id; now the message does.\"\"\"
    return f"chunk {chunk.message_id}"
"""

TREES: list[Tree] = [
    Tree(
        "fork-namespace-src-layout",
        {
            "pyproject.toml": "[project]\nname = 'acme'\n",
            "src/acme/proto/__init__.py": "",
            "src/acme/proto/models.py": VENDORED,
            "src/acme/events.py": EVENTS,
            "src/acme/agent/use.py": FORK_USE,
        },
        {
            ("src/acme/agent/use.py", "return update.sender_session_id"): "reported",
            ("src/acme/agent/use.py", "SessionMessage(message_id=mid"): "unrelated",
            ("src/acme/agent/use.py", "return e.sender_session_id"): "unrelated",
            ("src/acme/agent/use.py", "for e in events if isinstance"): "unrelated",
            ("src/acme/agent/use.py", "by_id[key].sender_session_id"): "unrelated",
            ("src/acme/agent/use.py", "used to carry sender_session_id"): "unrelated",
            (
                "src/acme/proto/models.py",
                "    sender_session_id: str | None = None\n    recipient_session_id: str | None = None\n\n\nclass",
            ): "unrelated",
            ("src/acme/events.py", "    sender_session_id: str\n    text"): "unrelated",
        },
    ),
    Tree(
        "star-imports-and-facades",
        {
            "app/__init__.py": "",
            "app/schema.py": "from acp_schema.v2 import *\n",
            "app/facade/__init__.py": "from app.schema import *\n",
            "app/star_user.py": """\
from acp_schema.v2 import *


def build(mid, me):
    return SessionMessageChunk(message_id=mid, content=TextContent(text="x"), sender_session_id=me)
""",
            "app/facade_user.py": """\
from app.facade import SessionMessageChunk, TextContent


def build(mid, me):
    return SessionMessageChunk(message_id=mid, content=TextContent(text="x"), sender_session_id=me)
""",
        },
        {
            ("app/star_user.py", "sender_session_id=me"): "reported",
            ("app/facade_user.py", "sender_session_id=me"): "reported",
        },
    ),
    Tree(
        "subclass-copy-and-typeddict",
        {
            "pkg/__init__.py": "",
            "pkg/chunks.py": """\
from typing import TypedDict

from acp_schema.v2 import SessionMessageChunk


class TracedChunk(SessionMessageChunk):
    trace_id: str | None = None


class ChunkPayload(TypedDict, total=False):
    sessionUpdate: str
    messageId: str
    senderSessionId: str


def traced(mid, me):
    return TracedChunk(message_id=mid, content={"type": "text", "text": "x"}, sender_session_id=me)


def retag(chunk: SessionMessageChunk, me: str) -> SessionMessageChunk:
    return chunk.model_copy(update={"sender_session_id": me})


def payload(mid, me):
    return ChunkPayload(sessionUpdate="session_message_chunk", messageId=mid, senderSessionId=me)
""",
        },
        {
            ("pkg/chunks.py", "sender_session_id=me)"): "reported",
            ("pkg/chunks.py", 'update={"sender_session_id": me}'): "reported",
            ("pkg/chunks.py", "messageId=mid, senderSessionId=me"): "reported",
            ("pkg/chunks.py", "    senderSessionId: str"): "reported",
        },
    ),
    Tree(
        "tag-held-by-a-constant",
        {
            "kinds.py": 'CHUNK_KIND = "session_message_chunk"\nMESSAGE_KIND = "session_message"\n',
            "send.py": """\
from kinds import CHUNK_KIND, MESSAGE_KIND


def send(out, mid, me, block):
    out.write({"sessionUpdate": CHUNK_KIND, "messageId": mid, "content": block, "senderSessionId": me})


def announce(out, mid, me):
    out.write({"sessionUpdate": MESSAGE_KIND, "messageId": mid, "senderSessionId": me})
""",
        },
        {
            ("send.py", '"content": block, "senderSessionId": me'): "reported",
        },
    ),
    Tree(
        "subclass-used-from-another-module",
        {
            "traced.py": """\
from acp_schema.v2 import SessionMessageChunk


class TracedChunk(SessionMessageChunk):
    trace_id: str | None = None
""",
            "send.py": """\
from traced import TracedChunk


def send(out, mid, me, block):
    out.put(TracedChunk(message_id=mid, content=block, sender_session_id=me))
""",
        },
        {("send.py", "sender_session_id=me"): "reported"},
    ),
    Tree(
        "look-alikes-typed-by-the-code",
        {
            "app/__init__.py": "",
            "app/models.py": """\
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from pydantic import BaseModel


@dataclass
class Message:
    message_id: str
    sender_session_id: str
    recipient_session_id: str | None = None


class Hop(NamedTuple):
    sender_session_id: str


class Envelope(BaseModel):
    sender_session_id: str | None = None

    def with_sender_session_id(self, value: str) -> Envelope:
        return self.model_copy(update={"sender_session_id": value})
""",
            "app/inbox.py": """\
from __future__ import annotations

from acp_schema.v2 import SessionMessageChunk

from app.models import Envelope, Hop, Message


class Inbox:
    def __init__(self) -> None:
        self._messages: dict[str, Message] = {}
        self.last: Message | None = None

    def sender(self, key: str) -> str:
        return self._messages[key].sender_session_id

    def senders(self) -> list[str]:
        return [m.sender_session_id for m in self._messages.values()]

    def last_recipient(self) -> str | None:
        return self.last.recipient_session_id if self.last else None


def hop(h: "Hop") -> str:
    return h._replace(sender_session_id="s9").sender_session_id


def seal(envelope: Envelope, me: str) -> Envelope:
    return envelope.with_sender_session_id(me)


def of(update: object) -> str | None:
    if isinstance(update, Message):
        return update.sender_session_id
    if isinstance(update, SessionMessageChunk):
        return update.message_id
    return None
""",
        },
        {
            ("app/inbox.py", "return self._messages[key].sender_session_id"): "unrelated",
            ("app/inbox.py", "[m.sender_session_id for m"): "unrelated",
            ("app/inbox.py", "self.last.recipient_session_id"): "unrelated",
            ("app/inbox.py", 'h._replace(sender_session_id="s9")'): "unrelated",
            ("app/inbox.py", "envelope.with_sender_session_id(me)"): "unrelated",
            ("app/inbox.py", "        return update.sender_session_id"): "unrelated",
            ("app/models.py", "    sender_session_id: str\n    recipient"): "unrelated",
            ("app/models.py", 'update={"sender_session_id": value}'): "unrelated",
        },
    ),
    Tree(
        "unreached-files",
        {
            # No chunk class, re-export or tag in reach: nothing here is about chunks.
            "svc/audit.py": """\
class AuditRecord:
    def __init__(self, sender_session_id: str) -> None:
        self.sender_session_id = sender_session_id


def line(record: AuditRecord) -> str:
    return f"from {record.sender_session_id}"
""",
        },
        {("svc/audit.py", "self.sender_session_id = "): "unrelated"},
    ),
]
