# ruff: noqa: E501 - written the way downstream code is, long lines too
"""A wide catalogue of downstream patterns for `acp-schema migrate`, written for this
project (tests/migration_oracle/catalogue_harness.py runs each and names its outcome).

Sections: `class-1` a chunk reaches code that names none (helpers, aliases, factories,
constants, Enums, `setattr` with field names from a constants module, quoted
annotations, `json.loads`); `class-2` a callee that is not the chunk class still builds
or copies one (`functools.partial`, `dict(...)`, `model_construct`, `model_copy` on a
union, a Protocol parameter); `class-3` JSON templates in strings; `class-4` rewrites
whose consumers change (generators, in-process routers, vendored generated files with
a hand-written helper); `agent` shapes of real agent code (pydantic models sent from
async loops, queues, subagent delegation, retries, handlers on the receiving side);
`lookalike` the application's own classes with participant-ID fields, which must get
no report at all.

Every program has `main(conn)` in `main.py` (the recording connection of
tests/migration_oracle/recorder.py).
"""

from __future__ import annotations

from .catalogue_harness import Entry

V2 = "from acp_schema.v2 import SessionMessageChunk, TextContent\n"


def one(name: str, kind: str, source: str, **others: str) -> Entry:
    files = {"main.py": source, **{f"{k.replace('__', '/')}.py": v for k, v in others.items()}}
    return Entry(name, kind, files)


def alike(name: str, source: str, **others: str) -> Entry:
    files = {"main.py": source, **{f"{k.replace('__', '/')}.py": v for k, v in others.items()}}
    return Entry(name, "lookalike", files, noise=True)


CLASS_1 = [
    one(
        "payload-helper-with-kind-parameter-elsewhere",
        "class-1",
        """
        from payloads import payload

        def main(conn):
            for text in ["a", "b"]:
                conn.send(payload("session_message_chunk", "m1", "s1", {"type": "text", "text": text}))
        """,
        payloads="""
        def payload(kind, mid, sender, content):
            return {"sessionUpdate": kind, "messageId": mid, "senderSessionId": sender, "content": content}
        """,
    ),
    one(
        "chunk-alias-defined-elsewhere",
        "class-1",
        """
        from aliases import Chunk
        from acp_schema.v2 import TextContent

        async def main(conn):
            await conn.session_update("s1", Chunk(message_id="m1", content=TextContent(text="hi"), sender_session_id="s1"))
        """,
        aliases="""
        from acp_schema.v2 import SessionMessageChunk

        Chunk = SessionMessageChunk
        """,
    ),
    one(
        "chunk-factory-defined-elsewhere",
        "class-1",
        """
        from factory import make_chunk
        from acp_schema.v2 import TextContent

        async def main(conn):
            for text in ["x", "y"]:
                await conn.session_update("s1", make_chunk(message_id="m1", content=TextContent(text=text), sender_session_id="s1", recipient_session_id="s2"))
        """,
        factory="""
        from acp_schema.v2 import SessionMessageChunk

        def make_chunk(**fields):
            return SessionMessageChunk(**fields)
        """,
    ),
    one(
        "tag-held-by-an-enum-elsewhere",
        "class-1",
        """
        from kinds import Kind

        def main(conn):
            conn.send({"sessionUpdate": Kind.CHUNK.value, "messageId": "m1", "content": {"type": "text", "text": "e"}, "senderSessionId": "s1"})
        """,
        kinds="""
        import enum

        class Kind(str, enum.Enum):
            CHUNK = "session_message_chunk"
            MESSAGE = "session_message"
        """,
    ),
    one(
        "tag-held-by-a-constant-elsewhere",
        "class-1",
        """
        from kinds import CHUNK_KIND

        def main(conn):
            conn.send({"sessionUpdate": CHUNK_KIND, "messageId": "m1", "content": {"type": "text", "text": "c"}, "recipientSessionId": "s2"})
        """,
        kinds='CHUNK_KIND = "session_message_chunk"\n',
    ),
    one(
        "field-names-in-a-constants-module",
        "class-1",
        """
        from fields import SENDER_KEY
        from acp_schema.v2 import SessionMessageChunk, TextContent

        def main(conn):
            chunk = SessionMessageChunk(message_id="m1", content=TextContent(text="k"))
            conn.send(chunk.model_copy(update={SENDER_KEY: "s1"}))
        """,
        fields='SENDER_KEY = "sender_session_id"\n',
    ),
    one(
        "setattr-with-a-field-name-constant",
        "class-1",
        """
        from fields import SENDER
        from stamp import stamp

        def main(conn):
            payload = {"sessionUpdate": "session_message_chunk", "messageId": "m1", "content": {"type": "text", "text": "s"}}
            stamp(payload, SENDER, "s1")
            conn.send(payload)
        """,
        fields='SENDER = "senderSessionId"\n',
        stamp="""
        def stamp(payload, key, value):
            payload[key] = value
        """,
    ),
    one(
        "quoted-annotation-read",
        "class-1",
        """
        from acp_schema.v2 import TextContent
        import acp_schema.v2 as schema

        def route(chunk: "schema.SessionMessageChunk") -> str:
            return chunk.recipient_session_id or "s1"

        def main(conn):
            chunk = schema.SessionMessageChunk(message_id="m1", content=TextContent(text="q"), recipient_session_id="s2")
            conn.channel(route(chunk)).send(chunk)
        """,
    ),
    one(
        "reader-of-json-loads",
        "class-1",
        """
        import json
        from forward import forward

        def main(conn):
            line = json.dumps({"sessionUpdate": "session_message_chunk", "messageId": "m1", "content": {"type": "text", "text": "j"}, "recipientSessionId": "s2"})
            forward(conn, line)
        """,
        forward="""
        import json

        def forward(conn, line):
            update = json.loads(line)
            conn.channel(update.get("recipientSessionId", "s1")).send(update)
        """,
    ),
    one(
        "chunk-returned-by-another-module-and-read",
        "class-1",
        """
        from build import build

        def main(conn):
            chunk = build("m1", "b", "s1")
            conn.channel(chunk.sender_session_id).send(chunk)
        """,
        build="""
        from acp_schema.v2 import SessionMessageChunk, TextContent

        def build(mid, text, me):
            return SessionMessageChunk(message_id=mid, content=TextContent(text=text), sender_session_id=me)
        """,
    ),
    one(
        "getattr-default-in-a-module-without-chunks",
        "class-1",
        """
        from acp_schema.v2 import SessionMessageChunk, TextContent
        from label import label

        def main(conn):
            chunk = SessionMessageChunk(message_id="m1", content=TextContent(text="g"), sender_session_id="s1")
            conn.log(label(chunk))
            conn.send(chunk)
        """,
        label="""
        def label(update):
            return "from " + str(getattr(update, "sender_session_id", None))
        """,
    ),
]

CLASS_2 = [
    one(
        "functools-partial",
        "class-2",
        V2
        + """
        import functools

        def main(conn):
            make = functools.partial(SessionMessageChunk, sender_session_id="s1")
            for text in ["p", "q"]:
                conn.send(make(message_id="m1", content=TextContent(text=text)))
        """,
    ),
    one(
        "dict-call-payload",
        "class-2",
        """
        def main(conn):
            conn.send(dict(sessionUpdate="session_message_chunk", messageId="m1", content={"type": "text", "text": "d"}, senderSessionId="s1"))
        """,
    ),
    one(
        "dict-copy-with-added-key",
        "class-2",
        """
        BASE = {"sessionUpdate": "session_message_chunk", "messageId": "m1"}

        def main(conn):
            conn.send(dict(BASE, content={"type": "text", "text": "c"}, recipientSessionId="s2"))
        """,
    ),
    one(
        "model-construct",
        "class-2",
        V2
        + """
        def main(conn):
            conn.send(SessionMessageChunk.model_construct(message_id="m1", content=TextContent(text="mc"), sender_session_id="s1"))
        """,
    ),
    one(
        "model-copy-on-a-union",
        "class-2",
        V2
        + """
        from acp_schema.v2 import SessionUpdate

        def sign(update: SessionUpdate, me: str) -> SessionUpdate:
            return update.model_copy(update={"sender_session_id": me})

        def main(conn):
            conn.send(sign(SessionMessageChunk(message_id="m1", content=TextContent(text="u")), "s1"))
        """,
    ),
    one(
        "protocol-parameter",
        "class-2",
        V2
        + """
        from typing import Any, Protocol

        class Signable(Protocol):
            def with_sender_session_id(self, value: str) -> Any: ...

        def sign(item: Signable, me: str) -> Any:
            return item.with_sender_session_id(me)

        def main(conn):
            conn.send(sign(SessionMessageChunk(message_id="m1", content=TextContent(text="pr")), "s1"))
        """,
    ),
    one(
        "model-validate-of-an-untagged-dict",
        "class-2",
        V2
        + """
        def main(conn):
            conn.send(SessionMessageChunk.model_validate({"messageId": "m1", "content": {"type": "text", "text": "v"}, "senderSessionId": "s1"}))
        """,
    ),
    one(
        "double-star-literal",
        "class-2",
        V2
        + """
        def main(conn):
            conn.send(SessionMessageChunk(message_id="m1", content=TextContent(text="ds"), **{"sender_session_id": "s1"}))
        """,
    ),
    one(
        "double-star-of-a-dict-call",
        "class-2",
        V2
        + """
        def main(conn):
            extra = dict(sender_session_id="s1", recipient_session_id="s2")
            conn.send(SessionMessageChunk(message_id="m1", content=TextContent(text="dc"), **extra))
        """,
    ),
    one(
        "builder-on-an-unannotated-parameter",
        "class-2",
        V2
        + """
        def sign(update, me):
            return update.with_sender_session_id(me)

        def main(conn):
            conn.send(sign(SessionMessageChunk(message_id="m1", content=TextContent(text="b")), "s1"))
        """,
    ),
    one(
        "lambda-factory",
        "class-2",
        V2
        + """
        def main(conn):
            make = lambda text, me: SessionMessageChunk(message_id="m1", content=TextContent(text=text), sender_session_id=me)
            conn.send(make("l", "s1"))
        """,
    ),
]

CLASS_3 = [
    one(
        "percent-formatted-json-template",
        "class-3",
        """
        TEMPLATE = '{"sessionUpdate": "session_message_chunk", "messageId": "%s", "content": {"type": "text", "text": "%s"}, "senderSessionId": "%s"}'

        def main(conn):
            for text in ["a", "b"]:
                conn.write(TEMPLATE % ("m1", text, "s1"))
        """,
    ),
    one(
        "f-string-json",
        "class-3",
        """
        def main(conn):
            mid, me = "m1", "s1"
            conn.write(f'{{"sessionUpdate": "session_message_chunk", "messageId": "{mid}", "content": {{"type": "text", "text": "f"}}, "senderSessionId": "{me}"}}')
        """,
    ),
    one(
        "json-dumps-of-a-literal",
        "class-3",
        """
        import json

        def main(conn):
            for text in ["a", "b"]:
                conn.write(json.dumps({"sessionUpdate": "session_message_chunk", "messageId": "m1", "content": {"type": "text", "text": text}, "senderSessionId": "s1"}))
        """,
    ),
    one(
        "format-method-template",
        "class-3",
        """
        LINE = '{{"sessionUpdate": "{kind}", "messageId": "m1", "content": {{"type": "text", "text": "t"}}, "recipientSessionId": "{peer}"}}'

        def main(conn):
            conn.write(LINE.format(kind="session_message_chunk", peer="s2"))
        """,
    ),
    one(
        "template-module-with-kind-slot",
        "class-3",
        """
        from templates import render

        def main(conn):
            conn.write(render("session_message_chunk", "m1", "s1"))
        """,
        templates="""
        def render(kind, mid, me):
            return '{"sessionUpdate": "%s", "messageId": "%s", "content": {"type": "text", "text": "r"}, "senderSessionId": "%s"}' % (kind, mid, me)
        """,
    ),
]

CLASS_4 = [
    one(
        "generator-consumer-reads-content",
        "class-4",
        V2
        + """
        def chunks(mid, me, parts):
            for part in parts:
                yield SessionMessageChunk(message_id=mid, content=TextContent(text=part), sender_session_id=me)

        async def main(conn):
            seen = []
            for chunk in chunks("m1", "s1", ["a", "b"]):
                seen.append(chunk.content.text)
                await conn.session_update("s1", chunk)
            conn.log("".join(seen))
        """,
    ),
    one(
        "generator-consumer-in-another-module",
        "class-4",
        """
        from stream import chunks

        async def main(conn):
            for chunk in chunks("m1", "s1", ["a", "b"]):
                if chunk.content.text:
                    await conn.session_update("s1", chunk)
        """,
        stream=V2
        + """
        def chunks(mid, me, parts):
            for part in parts:
                yield SessionMessageChunk(message_id=mid, content=TextContent(text=part), sender_session_id=me)
        """,
    ),
    one(
        "generator-listed-then-indexed",
        "class-4",
        V2
        + """
        def chunks(mid, me, parts):
            for part in parts:
                yield SessionMessageChunk(message_id=mid, content=TextContent(text=part), sender_session_id=me)

        def main(conn):
            items = list(chunks("m1", "s1", ["a", "b"]))
            conn.log(items[0].content.text)
            for item in items:
                conn.send(item)
        """,
    ),
    one(
        "generator-forwarded-only",
        "class-4",
        V2
        + """
        async def chunks(mid, me, parts):
            for part in parts:
                yield SessionMessageChunk(message_id=mid, content=TextContent(text=part), sender_session_id=me)

        async def main(conn):
            async for chunk in chunks("m1", "s1", ["a", "b"]):
                await conn.session_update(session_id="s1", update=chunk)
        """,
    ),
    one(
        "generator-yield-from-consumer",
        "class-4",
        V2
        + """
        def chunks(mid, me, parts):
            for part in parts:
                yield SessionMessageChunk(message_id=mid, content=TextContent(text=part), sender_session_id=me)

        def both(me):
            yield from chunks("m1", me, ["a"])
            yield from chunks("m2", me, ["b"])

        def main(conn):
            for chunk in both("s1"):
                conn.log(chunk.message_id, chunk.content.text)
                conn.send(chunk)
        """,
    ),
    one(
        "in-process-router-by-recipient",
        "class-4",
        V2
        + """
        from router import Router

        async def main(conn):
            router = Router(conn)
            for text in ["a", "b"]:
                await router.session_update("s1", SessionMessageChunk(message_id="m1", content=TextContent(text=text), recipient_session_id="s2"))
        """,
        router="""
        class Router:
            def __init__(self, conn):
                self.conn = conn

            async def session_update(self, session_id, update):
                target = getattr(update, "recipient_session_id", None) or session_id
                await self.conn.session_update(target, update)
        """,
    ),
    one(
        "in-process-printer-reads-content",
        "class-4",
        V2
        + """
        from printer import Printer

        async def main(conn):
            printer = Printer(conn)
            for text in ["a", "b"]:
                await printer.session_update("s1", SessionMessageChunk(message_id="m1", content=TextContent(text=text), sender_session_id="s1"))
        """,
        printer="""
        class Printer:
            def __init__(self, conn):
                self.conn = conn

            async def session_update(self, session_id, update):
                self.conn.log(update.content.text)
                await self.conn.session_update(session_id, update)
        """,
    ),
    one(
        "in-process-forwarder-only",
        "class-4",
        V2
        + """
        class Forwarder:
            def __init__(self, conn):
                self.conn = conn

            async def session_update(self, session_id, update):
                await self.conn.session_update(session_id, update)

        async def main(conn):
            forwarder = Forwarder(conn)
            for text in ["a", "b"]:
                await forwarder.session_update("s1", SessionMessageChunk(message_id="m1", content=TextContent(text=text), sender_session_id="s1"))
        """,
    ),
    one(
        "in-process-router-reads-dicts",
        "class-4",
        """
        from router import route

        def main(conn):
            for text in ["a", "b"]:
                route(conn, {"sessionUpdate": "session_message_chunk", "messageId": "m1", "content": {"type": "text", "text": text}, "recipientSessionId": "s2"})
        """,
        router="""
        def route(conn, update):
            conn.channel(update.get("recipientSessionId") or "s1").send(update)
        """,
    ),
    one(
        "generated-header-with-a-hand-written-helper",
        "class-4",
        """
        from vendored import signed_chunk

        def main(conn):
            conn.send(signed_chunk("m1", "v", "s1"))
        """,
        vendored=(
            "# Generated by acp-schema from schema.unstable.json with datamodel-code-generator 0.89.0.\n"
            "# Do not edit: regenerate with `acp-schema generate`.\n"
            f"# schema-sha256: {'0' * 64}\n"
            f"# content-sha256: {'1' * 64}\n"
            "from acp_schema.v2 import SessionMessageChunk, TextContent\n\n\n"
            "def signed_chunk(mid, text, me):\n"
            "    return SessionMessageChunk(message_id=mid, content=TextContent(text=text), sender_session_id=me)\n"
        ),
    ),
]

AGENT = [
    one(
        "agent-class-streams-in-an-async-loop",
        "agent",
        V2
        + """
        class Agent:
            def __init__(self, conn, session_id):
                self._conn = conn
                self.session_id = session_id

            async def stream(self, mid, parts):
                for part in parts:
                    await self._conn.session_update(session_id=self.session_id, update=SessionMessageChunk(message_id=mid, content=TextContent(text=part), sender_session_id=self.session_id))

        async def main(conn):
            await Agent(conn, "s1").stream("m1", ["a", "b", "c"])
        """,
    ),
    one(
        "asyncio-queue-producer-and-sender",
        "agent",
        V2
        + """
        import asyncio

        async def produce(queue, mid, me, parts):
            for part in parts:
                await queue.put(SessionMessageChunk(message_id=mid, content=TextContent(text=part), sender_session_id=me))
            await queue.put(None)

        async def drain(conn, queue):
            while (update := await queue.get()) is not None:
                await conn.session_update("s1", update)

        async def main(conn):
            queue = asyncio.Queue()
            await asyncio.gather(produce(queue, "m1", "s1", ["a", "b"]), drain(conn, queue))
        """,
    ),
    one(
        "queue-consumer-reads-content",
        "agent",
        V2
        + """
        import asyncio

        async def produce(queue, mid, me, parts):
            for part in parts:
                await queue.put(SessionMessageChunk(message_id=mid, content=TextContent(text=part), sender_session_id=me))
            await queue.put(None)

        async def drain(conn, queue):
            while (update := await queue.get()) is not None:
                conn.log(update.content.text)
                await conn.session_update("s1", update)

        async def main(conn):
            queue = asyncio.Queue()
            await asyncio.gather(produce(queue, "m1", "s1", ["a", "b"]), drain(conn, queue))
        """,
    ),
    one(
        "subagent-delegation-two-views",
        "agent",
        V2
        + """
        async def delegate(conn, parent, child, out_id, in_id, parts):
            for part in parts:
                await conn.session_update(parent, SessionMessageChunk(message_id=out_id, content=TextContent(text=part), sender_session_id=parent, recipient_session_id=child))
                await conn.session_update(child, SessionMessageChunk(message_id=in_id, content=TextContent(text=part), sender_session_id=parent, recipient_session_id=child))

        async def main(conn):
            await delegate(conn, "s1", "s2", "o1", "i1", ["do", "this"])
        """,
    ),
    one(
        "retry-around-the-send",
        "agent",
        V2
        + """
        async def main(conn):
            for text in ["a", "b"]:
                for attempt in range(3):
                    try:
                        await conn.session_update("s1", SessionMessageChunk(message_id="m1", content=TextContent(text=text), sender_session_id="s1"))
                        break
                    except OSError:
                        continue
        """,
    ),
    one(
        "common-keywords-unpacked",
        "agent",
        V2
        + """
        async def main(conn):
            common = {"message_id": "m1", "sender_session_id": "s1"}
            for text in ["a", "b"]:
                await conn.session_update("s1", SessionMessageChunk(content=TextContent(text=text), **common))
        """,
    ),
    one(
        "llm-deltas-streamed",
        "agent",
        V2
        + """
        async def deltas():
            for token in ["Hel", "lo"]:
                yield token

        async def main(conn):
            me = "s1"
            async for delta in deltas():
                await conn.session_update(session_id=me, update=SessionMessageChunk(message_id="m1", content=TextContent(text=delta), sender_session_id=me))
        """,
    ),
    one(
        "pending-list-flushed-later",
        "agent",
        V2
        + """
        class Outbox:
            def __init__(self, conn):
                self.conn = conn
                self._pending = []

            def add(self, text, me):
                self._pending.append(SessionMessageChunk(message_id="m1", content=TextContent(text=text), sender_session_id=me))

            def flush(self):
                for update in self._pending:
                    self.conn.send(update)

        def main(conn):
            box = Outbox(conn)
            box.add("a", "s1")
            box.add("b", "s1")
            box.flush()
        """,
    ),
    one(
        "method-helper-returns-chunk",
        "agent",
        V2
        + """
        class Agent:
            def __init__(self, me):
                self.me = me

            def _chunk(self, text):
                return SessionMessageChunk(message_id="m1", content=TextContent(text=text), sender_session_id=self.me)

        def main(conn):
            agent = Agent("s1")
            for text in ["a", "b"]:
                conn.send(agent._chunk(text))
        """,
    ),
    one(
        "batch-built-by-comprehension",
        "agent",
        V2
        + """
        async def main(conn):
            parts = ["a", "b"]
            await conn.send_batch("s1", [SessionMessageChunk(message_id="m1", content=TextContent(text=p), sender_session_id="s1") for p in parts])
        """,
    ),
    one(
        "client-handler-match-captures-sender",
        "agent",
        V2
        + """
        def handle(conn, update):
            match update:
                case SessionMessageChunk(sender_session_id=sender) if sender:
                    conn.channel(sender).send(update)
                case _:
                    conn.send(update)

        def main(conn):
            handle(conn, SessionMessageChunk(message_id="m1", content=TextContent(text="h"), sender_session_id="s2"))
        """,
    ),
    one(
        "notification-model-dump-json",
        "agent",
        """
        from acp_schema.v2 import SessionMessageChunk, TextContent, UpdateSessionNotification

        async def main(conn):
            for text in ["a", "b"]:
                await conn.notify(UpdateSessionNotification(session_id="s1", update=SessionMessageChunk(message_id="m1", content=TextContent(text=text), sender_session_id="s1")).model_dump_json())
        """,
    ),
    one(
        "typed-dict-payload",
        "agent",
        """
        from typing import TypedDict

        class ChunkPayload(TypedDict, total=False):
            sessionUpdate: str
            messageId: str
            content: dict
            senderSessionId: str

        def main(conn):
            conn.send(ChunkPayload(sessionUpdate="session_message_chunk", messageId="m1", content={"type": "text", "text": "t"}, senderSessionId="s1"))
        """,
    ),
    one(
        "event-wrapper-dataclass",
        "agent",
        V2
        + """
        from dataclasses import dataclass

        @dataclass
        class Outgoing:
            session_id: str
            update: object

        def main(conn):
            event = Outgoing("s1", SessionMessageChunk(message_id="m1", content=TextContent(text="w"), sender_session_id="s1"))
            conn.channel(event.session_id).send(event.update)
        """,
    ),
    one(
        "event-spread-into-a-chunk-payload",
        "agent",
        """
        from dataclasses import dataclass, asdict

        @dataclass
        class Event:
            messageId: str
            senderSessionId: str

        def to_wire(event: Event, text: str) -> dict:
            return {"sessionUpdate": "session_message_chunk", "content": {"type": "text", "text": text}, **asdict(event)}

        def main(conn):
            conn.send(to_wire(Event("m1", "s1"), "a"))
        """,
    ),
    one(
        "message-payload-retagged-as-chunk",
        "agent",
        """
        def build(mid, me, text):
            payload = {"sessionUpdate": "session_message", "messageId": mid, "senderSessionId": me}
            payload["sessionUpdate"] = "session_message_chunk"
            payload["content"] = {"type": "text", "text": text}
            return payload

        def main(conn):
            conn.send(build("m1", "s1", "r"))
        """,
    ),
    one(
        "model-with-aliased-tag-field",
        "agent",
        """
        from pydantic import BaseModel, ConfigDict, Field

        class Wire(BaseModel):
            model_config = ConfigDict(populate_by_name=True)
            kind: str = Field("session_message_chunk", alias="sessionUpdate")
            message_id: str = Field(alias="messageId")
            content: dict
            sender_session_id: str = Field(alias="senderSessionId")

        def main(conn):
            conn.send(Wire(message_id="m1", content={"type": "text", "text": "w"}, sender_session_id="s1").model_dump(by_alias=True))
        """,
    ),
    one(
        "fullwidth-identifiers",
        "agent",
        "from acp_schema.v2 import \uff33essionMessageChunk, TextContent\n"
        + """
        def main(conn):
            conn.send(\uff33essionMessageChunk(message_id="m1", content=TextContent(text="n"), \uff53ender_session_id="s1"))
        """,
    ),
    one(
        "private-helper-in-loop",
        "agent",
        V2
        + """
        def _chunk(mid, text, me):
            return SessionMessageChunk(message_id=mid, content=TextContent(text=text), sender_session_id=me)

        async def main(conn):
            for text in ["a", "b"]:
                await conn.session_update("s1", _chunk("m1", text, "s1"))
        """,
    ),
]

LOOKALIKES = [
    alike(
        "dataclass-event-annotated-parameter",
        """
        from dataclasses import dataclass
        from acp_schema.v2 import SessionMessage

        @dataclass
        class MessageEvent:
            message_id: str
            sender_session_id: str

        def announce(conn, event: MessageEvent):
            conn.send(SessionMessage(message_id=event.message_id, sender_session_id=event.sender_session_id))

        def main(conn):
            announce(conn, MessageEvent("m1", "s1"))
        """,
    ),
    alike(
        "isinstance-narrowing",
        """
        from dataclasses import dataclass

        @dataclass
        class Delivered:
            sender_session_id: str

        def senders(events):
            return [e.sender_session_id for e in events if isinstance(e, Delivered)]

        def main(conn):
            conn.log(senders([Delivered("s1"), object()]))
        """,
    ),
    alike(
        "self-container-annotated-in-init",
        """
        from acp_schema.v2 import SessionMessage

        class Inbox:
            def __init__(self) -> None:
                self._messages: dict[str, SessionMessage] = {}

            def add(self, message: SessionMessage) -> None:
                self._messages[message.message_id] = message

            def sender(self, key: str) -> str | None:
                return self._messages[key].sender_session_id

            def senders(self) -> list[str | None]:
                return [m.sender_session_id for m in self._messages.values()]

        def main(conn):
            inbox = Inbox()
            inbox.add(SessionMessage(message_id="m1", sender_session_id="s1"))
            conn.log(inbox.sender("m1"), inbox.senders())
        """,
    ),
    alike(
        "pydantic-model-with-its-own-builders",
        """
        from pydantic import BaseModel

        class Envelope(BaseModel):
            sender_session_id: str | None = None

            def with_sender_session_id(self, value: str) -> "Envelope":
                return self.model_copy(update={"sender_session_id": value})

        def main(conn):
            envelope = Envelope().with_sender_session_id("s1")
            conn.log(envelope.sender_session_id)
        """,
    ),
    alike(
        "quoted-optional-annotation",
        """
        from __future__ import annotations
        from dataclasses import dataclass

        @dataclass
        class Route:
            recipient_session_id: str

        def target(route: "Route | None") -> str:
            return route.recipient_session_id if route else "none"

        def main(conn):
            conn.log(target(Route("s2")), target(None))
        """,
    ),
    alike(
        "union-alias-in-another-module",
        """
        from events import Event, Sent

        def who(event: Event) -> str:
            return event.sender_session_id

        def main(conn):
            conn.log(who(Sent("s1")))
        """,
        events="""
        from dataclasses import dataclass

        @dataclass
        class Sent:
            sender_session_id: str

        @dataclass
        class Received:
            sender_session_id: str

        Event = Sent | Received
        """,
    ),
    alike(
        "named-tuple-replace",
        """
        from typing import NamedTuple

        class Hop(NamedTuple):
            sender_session_id: str
            recipient_session_id: str

        def main(conn):
            hop = Hop("s1", "s2")._replace(recipient_session_id="s3")
            conn.log(hop.recipient_session_id)
        """,
    ),
    alike(
        "session-message-upserts-and-reads",
        """
        from acp_schema.v2 import SessionMessage

        def upsert(mid: str, me: str, peer: str) -> SessionMessage:
            return SessionMessage(message_id=mid, sender_session_id=me, recipient_session_id=peer)

        def main(conn):
            message = upsert("m1", "s1", "s2")
            conn.log(message.sender_session_id)
            conn.send(message)
        """,
    ),
    alike(
        "transcript-store-entry-read",
        """
        from acp_schema.transcripts import TranscriptStore

        def participants(store: TranscriptStore, sid: str, mid: str):
            entry = store.entry(sid, mid)
            if entry is None:
                return None
            return entry.sender_session_id, entry.recipient_session_id

        def main(conn):
            conn.log(participants(TranscriptStore("v2"), "s1", "m1"))
        """,
    ),
    alike(
        "log-prose-and-docstrings",
        '''
        import logging

        log = logging.getLogger("agent")

        def warn_missing(mid: str) -> str:
            """Chunks no longer carry senderSessionId: the message does."""
            log.warning("message %s has no sender_session_id yet", mid)
            log.info(f"no recipient_session_id for {mid}")
            return mid

        def main(conn):
            conn.log(warn_missing("m1"))
        ''',
    ),
    alike(
        "message-payload-dicts",
        """
        def upsert(mid, me):
            payload = {"sessionUpdate": "session_message", "messageId": mid, "senderSessionId": me}
            payload["recipientSessionId"] = "s2"
            return payload

        def main(conn):
            conn.send(upsert("m1", "s1"))
        """,
    ),
    alike(
        "message-json-template",
        """
        import json

        TEMPLATE = '{"sessionUpdate": "session_message", "messageId": "%s", "senderSessionId": "%s"}'

        def main(conn):
            conn.send(json.loads(TEMPLATE % ("m1", "s1")))
        """,
    ),
    alike(
        "tag-tested-union",
        """
        from acp_schema.v2 import SessionMessage, SessionUpdate

        def sender(update: SessionUpdate) -> str | None:
            if update.session_update == "session_message":
                return update.sender_session_id
            return None

        def main(conn):
            conn.log(sender(SessionMessage(message_id="m1", sender_session_id="s1")))
        """,
    ),
    alike(
        "store-attribute-constructed-in-init",
        """
        class Thread:
            def __init__(self, sender_session_id: str) -> None:
                self.sender_session_id = sender_session_id

        class Threads:
            def __init__(self) -> None:
                self.current = Thread("s1")

            def who(self) -> str:
                return self.current.sender_session_id

        def main(conn):
            conn.log(Threads().who())
        """,
    ),
    alike(
        "list-of-records-loop",
        """
        from dataclasses import dataclass

        @dataclass
        class Row:
            sender_session_id: str

        def senders(rows: list[Row]) -> list[str]:
            out = []
            for row in rows:
                out.append(row.sender_session_id)
            return out

        def main(conn):
            conn.log(senders([Row("s1"), Row("s2")]))
        """,
    ),
    alike(
        "returned-by-an-annotated-function",
        """
        from dataclasses import dataclass

        @dataclass
        class Peer:
            recipient_session_id: str

        def peer_of(name: str) -> Peer:
            return Peer(name)

        def main(conn):
            conn.log(peer_of("s2").recipient_session_id)
        """,
    ),
]

CATALOGUE: list[Entry] = [*CLASS_1, *CLASS_2, *CLASS_3, *CLASS_4, *AGENT, *LOOKALIKES]
