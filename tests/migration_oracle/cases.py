# ruff: noqa: E501 - the programs are written the way downstream code is, long lines too
"""The oracle's downstream programs: the patterns of docs/migration.md and more.

Every case has `main(conn)` (sync or async) in module `main` unless it says otherwise;
`conn` is the recording connection (tests/migration_oracle/recorder.py). `expect` says
whether the tool should rewrite it (and behaviour must not change) or report it and
leave it byte-identical.
"""

from __future__ import annotations

from .harness import Case
from .resolution_cases import RESOLUTION_CASES

V2 = "from acp_schema.v2 import SessionMessageChunk, TextContent\n"


def one(name: str, source: str, expect: str = "equivalent") -> Case:
    return Case(name, {"main.py": source}, expect)  # type: ignore[arg-type]


CASES: list[Case] = [
    # --- constructor: sent directly ------------------------------------------------------
    one(
        "constructor-in-loop-alias",
        """
        from acp_schema.v2 import SessionMessageChunk as Chunk, TextContent

        async def stream(conn, sid, mid, me, peer, parts):
            for part in parts:
                await conn.session_update(
                    session_id=sid,
                    update=Chunk(
                        message_id=mid,
                        content=TextContent(text=part),
                        sender_session_id=me,
                        recipient_session_id=peer,
                    ),
                )

        async def main(conn):
            await stream(conn, "s1", "m1", "s1", "s2", ["a", "b", "c"])
        """,
    ),
    one(
        "constructor-single-send",
        V2
        + """
        async def main(conn):
            await conn.session_update("s1", SessionMessageChunk(message_id="m1", content=TextContent(text="hi"), sender_session_id="s1"))
        """,
    ),
    one(
        "constructor-module-attribute",
        """
        import acp_schema.v2 as schema

        async def main(conn):
            sid, me, peer = "s1", "s1", "s2"
            await conn.session_update(session_id=sid, update=schema.SessionMessageChunk(
                message_id="m1", content=schema.TextContent(text="x"), recipient_session_id=peer, sender_session_id=me))
        """,
    ),
    one(
        "constructor-wire-name-keywords",
        V2
        + """
        async def main(conn):
            me = "s1"
            await conn.session_update(session_id="s1", update=SessionMessageChunk(messageId="m1", content=TextContent(text="x"), senderSessionId=me))
        """,
    ),
    one(
        "constructor-none-value-dropped",
        V2
        + """
        async def main(conn):
            peer = "s2"
            for text in ["a", "b"]:
                await conn.session_update(session_id="s1", update=SessionMessageChunk(message_id="m1", content=TextContent(text=text), sender_session_id=None, recipient_session_id=peer))
        """,
    ),
    one(
        "constructor-in-notification",
        """
        from acp_schema.v2 import SessionMessageChunk, TextContent, UpdateSessionNotification

        async def main(conn):
            sid, me = "s1", "s1"
            for text in ["a", "b"]:
                await conn.notify(UpdateSessionNotification(session_id=sid, update=SessionMessageChunk(message_id="m1", content=TextContent(text=text), sender_session_id=me)))
        """,
    ),
    one(
        "constructor-v1-notification",
        """
        from acp_schema.v1 import SessionMessageChunk, SessionNotification, TextContent

        async def main(conn):
            sid, peer = "s1", "s9"
            await conn.notify(SessionNotification(session_id=sid, update=SessionMessageChunk(message_id="m1", content=TextContent(text="v1"), recipient_session_id=peer)))
        """,
    ),
    one(
        "constructor-model-dump-json-direct",
        V2
        + """
        def main(conn):
            me = "s1"
            conn.write(SessionMessageChunk(message_id="m1", content=TextContent(text="j"), sender_session_id=me).model_dump_json())
        """,
    ),
    one(
        "constructor-batch-of-one",
        V2
        + """
        async def main(conn):
            me = "s1"
            await conn.send_batch("s1", [SessionMessageChunk(message_id="m1", content=TextContent(text="b"), sender_session_id=me)])
        """,
    ),
    one(
        "constructor-two-sessions-in-loop-variable-callee",
        V2
        + """
        async def main(conn):
            peers = [conn.channel("s1"), conn.channel("s2")]
            for peer in peers:
                peer.send(SessionMessageChunk(message_id="m1", content=TextContent(text="p"), sender_session_id=peer.session_id))
        """,
    ),
    one(
        "constructor-loop-variable-receiver",
        V2
        + """
        from acp_schema.v2 import UpdateSessionNotification

        class Peer:
            def __init__(self, conn, sid):
                self.conn, self.sid = conn, sid

            async def session_update(self, session_id, update):
                await self.conn.session_update(session_id=self.sid, update=update)

        async def main(conn):
            me = "s0"
            for peer in [Peer(conn, "s1"), Peer(conn, "s2")]:
                await peer.session_update(session_id="s1", update=SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id=me))
        """,
    ),
    one(
        "constructor-nested-block-in-loop",
        V2
        + """
        async def main(conn):
            me = "s1"
            for part in ["a", "", "b"]:
                if part:
                    await conn.session_update(session_id="s1", update=SessionMessageChunk(message_id="m1", content=TextContent(text=part), sender_session_id=me))
        """,
    ),
    one(
        "constructor-continue-before-send",
        V2
        + """
        async def main(conn):
            me = "s1"
            for part in ["a", "", "b"]:
                if not part:
                    continue
                await conn.session_update(session_id="s1", update=SessionMessageChunk(message_id="m1", content=TextContent(text=part), sender_session_id=me))
        """,
    ),
    one(
        "constructor-loop-changes-message-id",
        V2
        + """
        async def main(conn):
            me = "s1"
            for mid, part in [("m1", "a"), ("m2", "b")]:
                await conn.session_update(session_id="s1", update=SessionMessageChunk(message_id=mid, content=TextContent(text=part), sender_session_id=me))
        """,
    ),
    one(
        "constructor-loop-call-changes-global-message-id",
        V2
        + """
        CURRENT = {"mid": "m0"}
        COUNT = [0]

        def advance():
            COUNT[0] += 1
            CURRENT["mid"] = f"m{COUNT[0]}"

        async def main(conn):
            me = "s1"
            for part in ["a", "b", "c"]:
                advance()
                await conn.session_update(session_id="s1", update=SessionMessageChunk(message_id=CURRENT["mid"], content=TextContent(text=part), sender_session_id=me))
        """,
    ),
    one(
        "constructor-loop-method-changes-attribute-message-id",
        V2
        + """
        class Streamer:
            def __init__(self, conn):
                self.conn, self.mid, self.n = conn, "m0", 0

            def next_message(self):
                self.n += 1
                self.mid = f"m{self.n}"

            async def run(self, parts):
                for part in parts:
                    self.next_message()
                    await self.conn.session_update(session_id="s1", update=SessionMessageChunk(message_id=self.mid, content=TextContent(text=part), sender_session_id="s1"))

        async def main(conn):
            await Streamer(conn).run(["a", "b"])
        """,
    ),
    one(
        "constructor-self-attributes-hoisted",
        V2
        + """
        class Streamer:
            def __init__(self, conn):
                self.conn, self.sid, self.mid, self.me = conn, "s1", "m1", "s1"

            async def run(self, parts):
                for part in parts:
                    await self.conn.session_update(session_id=self.sid, update=SessionMessageChunk(message_id=self.mid, content=TextContent(text=part), sender_session_id=self.me))

        async def main(conn):
            await Streamer(conn).run(["a", "b"])
        """,
    ),
    one(
        "constructor-impure-identity-in-loop",
        V2
        + """
        CALLS = []

        def whoami():
            CALLS.append(1)
            return "s1"

        async def main(conn):
            for part in ["a", "b", "c"]:
                await conn.session_update(session_id="s1", update=SessionMessageChunk(message_id="m1", content=TextContent(text=part), sender_session_id=whoami()))
            conn.log(len(CALLS))
        """,
    ),
    one(
        "constructor-impure-message-id",
        V2
        + """
        COUNT = [0]

        def next_id():
            COUNT[0] += 1
            return f"m{COUNT[0]}"

        async def main(conn):
            await conn.session_update(session_id="s1", update=SessionMessageChunk(message_id=next_id(), content=TextContent(text="x"), sender_session_id="s1"))
        """,
        "reported",
    ),
    one(
        "constructor-uuid-message-id",
        V2
        + """
        from uuid import uuid4

        async def main(conn):
            await conn.session_update(session_id="s1", update=SessionMessageChunk(message_id=str(uuid4()), content=TextContent(text="x"), sender_session_id="s1"))
        """,
        "reported",
    ),
    one(
        "constructor-batch-with-other-elements",
        V2
        + """
        async def main(conn):
            first = SessionMessageChunk(message_id="m0", content=TextContent(text="first"))
            await conn.send_batch("s1", [first, SessionMessageChunk(message_id="m1", content=TextContent(text="rest"), sender_session_id="s1")])
        """,
        "reported",
    ),
    one(
        "constructor-star-keywords",
        V2
        + """
        async def main(conn):
            ids = {"sender_session_id": "s1"}
            await conn.session_update(session_id="s1", update=SessionMessageChunk(message_id="m1", content=TextContent(text="x"), **ids))
        """,
        "reported",
    ),
    # --- a chunk wrapped by something that is not a send --------------------------------
    one(
        "wrapped-notification-assigned",
        """
        from acp_schema.v2 import SessionMessageChunk, TextContent, UpdateSessionNotification

        async def main(conn):
            me = "s1"
            note = UpdateSessionNotification(session_id="s1", update=SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id=me))
            await conn.notify(note)
        """,
        "reported",
    ),
    one(
        "wrapped-notification-returned",
        """
        from acp_schema.v2 import SessionMessageChunk, TextContent, UpdateSessionNotification

        def _note(sid, mid, text, me):
            return UpdateSessionNotification(session_id=sid, update=SessionMessageChunk(message_id=mid, content=TextContent(text=text), sender_session_id=me))

        async def main(conn):
            await conn.notify(_note("s1", "m1", "x", "s1"))
        """,
        "reported",
    ),
    one(
        "wrapped-json-line-assigned",
        """
        import json

        def main(conn):
            me = "s1"
            line = json.dumps({"sessionUpdate": "session_message_chunk", "messageId": "m1", "content": {"type": "text", "text": "x"}, "senderSessionId": me})
            conn.write(line)
        """,
        "reported",
    ),
    one(
        "wrapped-json-line-sent",
        """
        import json

        def main(conn):
            me = "s1"
            conn.write(json.dumps({"sessionUpdate": "session_message_chunk", "messageId": "m1", "content": {"type": "text", "text": "x"}, "senderSessionId": me}))
        """,
    ),
    one(
        "wrapped-keyed-outbox",
        V2
        + """
        class Outbox:
            def __init__(self):
                self.latest = {}

            def set(self, key, update):
                self.latest[key] = update

            def flush(self, conn):
                for update in self.latest.values():
                    conn.send(update)

        def main(conn):
            outbox = Outbox()
            key = "k"
            outbox.set(key, SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id="s1"))
            outbox.flush(conn)
        """,
        "reported",
    ),
    one(
        "wrapped-list-append-then-sent",
        V2
        + """
        def main(conn):
            pending = []
            pending.append(SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id="s1"))
            conn.send(pending[-1])
        """,
        "reported",
    ),
    one(
        "wrapped-queue-put",
        V2
        + """
        import asyncio

        async def main(conn):
            queue = asyncio.Queue()
            me = "s1"
            for part in ["a", "b"]:
                await queue.put(SessionMessageChunk(message_id="m1", content=TextContent(text=part), sender_session_id=me))
            while not queue.empty():
                conn.send(await queue.get())
        """,
    ),
    # --- assigned to a name ---------------------------------------------------------------
    one(
        "assigned-then-sent",
        V2
        + """
        async def main(conn):
            me, peer = "s1", "s2"
            chunk = SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id=me, recipient_session_id=peer)
            conn.log("sending")
            await conn.session_update(session_id="s1", update=chunk)
        """,
    ),
    one(
        "assigned-impure-message-id",
        V2
        + """
        COUNT = [0]

        def next_id():
            COUNT[0] += 1
            return f"m{COUNT[0]}"

        async def main(conn):
            chunk = SessionMessageChunk(message_id=next_id(), content=TextContent(text="x"), sender_session_id="s1")
            await conn.session_update(session_id="s1", update=chunk)
        """,
    ),
    one(
        "assigned-sent-to-two-sessions",
        V2
        + """
        async def main(conn):
            me = "s1"
            chunk = SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id=me)
            await conn.session_update(session_id="s1", update=chunk)
            await conn.session_update(session_id="s2", update=chunk)
        """,
    ),
    one(
        "assigned-model-dump",
        V2
        + """
        def main(conn):
            me = "s1"
            chunk = SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id=me)
            conn.send(chunk.model_dump(by_alias=True))
        """,
    ),
    one(
        "assigned-message-id-changes-before-send",
        V2
        + """
        async def main(conn):
            mid = "m1"
            chunk = SessionMessageChunk(message_id=mid, content=TextContent(text="x"), sender_session_id="s1")
            mid = "m2"
            await conn.session_update(session_id="s1", update=chunk)
            conn.log(mid)
        """,
    ),
    one(
        "assigned-stored-on-object",
        V2
        + """
        class Box:
            pending = None

        async def main(conn):
            box = Box()
            box.pending = SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id="s1")
            await conn.session_update(session_id="s1", update=box.pending)
        """,
        "reported",
    ),
    one(
        "read-of-built-chunk",
        V2
        + """
        async def main(conn):
            me = "s1"
            chunk = SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id=me)
            conn.log("from", chunk.sender_session_id)
            await conn.session_update(session_id="s1", update=chunk)
        """,
    ),
    # --- builders -------------------------------------------------------------------------
    one(
        "builder-on-typed-parameter",
        V2
        + """
        async def sign(conn, sid: str, chunk: SessionMessageChunk, me: str) -> None:
            await conn.session_update(session_id=sid, update=chunk.with_sender_session_id(me))

        async def main(conn):
            await sign(conn, "s1", SessionMessageChunk(message_id="m1", content=TextContent(text="x")), "s1")
        """,
    ),
    one(
        "builder-chained-on-constructor",
        V2
        + """
        async def main(conn):
            me, peer = "s1", "s2"
            await conn.session_update(session_id="s1", update=SessionMessageChunk(message_id="m1", content=TextContent(text="x")).with_sender_session_id(me).with_recipient_session_id(peer))
        """,
    ),
    one(
        "builder-chain-names-message",
        V2
        + """
        async def main(conn):
            mid, me = "m7", "s1"
            await conn.session_update(session_id="s1", update=SessionMessageChunk(message_id="tmp", content=TextContent(text="x")).with_message_id(mid).with_sender_session_id(me))
        """,
    ),
    one(
        "builder-on-unknown-receiver",
        V2
        + """
        def sign(chunk, me):
            return chunk.with_sender_session_id(me)

        async def main(conn):
            await conn.session_update(session_id="s1", update=sign(SessionMessageChunk(message_id="m1", content=TextContent(text="x")), "s1"))
        """,
        "reported",
    ),
    # --- raw payloads ---------------------------------------------------------------------
    one(
        "dict-payload",
        """
        def main(conn):
            out, mid, me = conn.channel("s1"), "m1", "s1"
            for text in ["a", "b"]:
                block = {"type": "text", "text": text}
                out.send({"sessionUpdate": "session_message_chunk", "messageId": mid,
                          "content": block, "senderSessionId": me})
        """,
    ),
    one(
        "dict-kind-parameter-helper-private",
        """
        def _payload(kind, mid, text, sender):
            return {"sessionUpdate": kind, "messageId": mid, "content": text, "senderSessionId": sender}

        def main(conn):
            mid, me = "m1", "s1"
            conn.send(_payload("session_message", "m0", None, me))
            for part in ["a", "b"]:
                conn.send(_payload("session_message_chunk", mid, {"type": "text", "text": part}, me))
        """,
    ),
    one(
        "dict-kind-parameter-helper-public",
        """
        def payload(kind, mid, text, sender):
            return {"sessionUpdate": kind, "messageId": mid, "content": text, "senderSessionId": sender}

        def main(conn):
            mid, me = "m1", "s1"
            conn.send(payload("session_message", "m0", None, me))
            for part in ["a", "b"]:
                conn.send(payload("session_message_chunk", mid, {"type": "text", "text": part}, me))
        """,
        "reported",
    ),
    # --- yields ---------------------------------------------------------------------------
    one(
        "yielded-from-generator",
        V2
        + """
        from collections.abc import Iterator

        def chunks(mid: str, me: str, parts: list[str]) -> Iterator[SessionMessageChunk]:
            for part in parts:
                yield SessionMessageChunk(message_id=mid, content=TextContent(text=part), sender_session_id=me)

        async def main(conn):
            for chunk in chunks("m1", "s1", ["a", "b"]):
                await conn.session_update(session_id="s1", update=chunk)
        """,
    ),
    one(
        "yielded-json-lines",
        V2
        + """
        def lines(mid, me, parts):
            for part in parts:
                yield SessionMessageChunk(message_id=mid, content=TextContent(text=part), sender_session_id=me).model_dump_json()

        def main(conn):
            for line in lines("m1", "s1", ["a", "b"]):
                conn.write(line)
        """,
    ),
    # --- helpers --------------------------------------------------------------------------
    one(
        "helper-private-same-module",
        V2
        + """
        def _text_chunk(message_id: str, text: str, sender: str) -> SessionMessageChunk:
            return SessionMessageChunk(message_id=message_id, content=TextContent(text=text), sender_session_id=sender)

        async def main(conn):
            for part in ["a", "b"]:
                await conn.session_update(session_id="s1", update=_text_chunk("m1", part, "s1"))
        """,
    ),
    one(
        "helper-public-same-module",
        V2
        + """
        def text_chunk(message_id: str, text: str, sender: str) -> SessionMessageChunk:
            return SessionMessageChunk(message_id=message_id, content=TextContent(text=text), sender_session_id=sender)

        async def main(conn):
            await conn.session_update(session_id="s1", update=text_chunk("m1", "a", "s1"))
        """,
        "reported",
    ),
    one(
        "helper-in-dunder-all",
        V2
        + """
        __all__ = ["_text_chunk", "main"]

        def _text_chunk(message_id, text, sender):
            return SessionMessageChunk(message_id=message_id, content=TextContent(text=text), sender_session_id=sender)

        async def main(conn):
            await conn.session_update(session_id="s1", update=_text_chunk("m1", "a", "s1"))
        """,
        "reported",
    ),
    one(
        "helper-decorated",
        V2
        + """
        BUILDERS = {}

        def register(function):
            BUILDERS[function.__name__] = function
            return function

        @register
        def _text_chunk(message_id, text, sender):
            return SessionMessageChunk(message_id=message_id, content=TextContent(text=text), sender_session_id=sender)

        async def main(conn):
            await conn.session_update(session_id="s1", update=_text_chunk("m1", "a", "s1"))
            await conn.session_update(session_id="s1", update=BUILDERS["_text_chunk"]("m1", "b", "s1"))
        """,
        "reported",
    ),
    one(
        "helper-caller-with-impure-argument",
        V2
        + """
        COUNT = [0]

        def next_sender():
            COUNT[0] += 1
            return "s1"

        def _text_chunk(message_id, text, sender):
            return SessionMessageChunk(message_id=message_id, content=TextContent(text=text), sender_session_id=sender)

        async def main(conn):
            await conn.session_update(session_id="s1", update=_text_chunk("m1", "a", "s1"))
            await conn.session_update(session_id="s1", update=_text_chunk("m2", "b", next_sender()))
            conn.log(COUNT[0])
        """,
        "reported",
    ),
    one(
        "helper-used-as-value",
        V2
        + """
        def _text_chunk(message_id, text, sender):
            return SessionMessageChunk(message_id=message_id, content=TextContent(text=text), sender_session_id=sender)

        async def main(conn):
            make = _text_chunk
            await conn.session_update(session_id="s1", update=make("m1", "a", "s1"))
        """,
        "reported",
    ),
    one(
        "helper-returns-json",
        V2
        + """
        def _line(mid, text, me):
            return SessionMessageChunk(message_id=mid, content=TextContent(text=text), sender_session_id=me).model_dump_json()

        def main(conn):
            conn.write(_line("m1", "x", "s1"))
        """,
        "reported",
    ),
    one(
        "helper-dict-private",
        """
        def _payload(mid, text, me):
            return {"sessionUpdate": "session_message_chunk", "messageId": mid, "content": {"type": "text", "text": text}, "senderSessionId": me}

        def main(conn):
            for part in ["a", "b"]:
                conn.send(_payload("m1", part, "s1"))
        """,
    ),
    one(
        "helper-builder-private",
        V2
        + """
        def _signed(chunk: SessionMessageChunk, me: str) -> SessionMessageChunk:
            return chunk.with_sender_session_id(me)

        async def main(conn):
            chunk = SessionMessageChunk(message_id="m1", content=TextContent(text="x"))
            await conn.session_update(session_id="s1", update=_signed(chunk, "s1"))
        """,
    ),
    one(
        "helper-literal-default",
        V2
        + """
        def _text_chunk(message_id, text, sender="s1"):
            return SessionMessageChunk(message_id=message_id, content=TextContent(text=text), sender_session_id=sender)

        async def main(conn):
            await conn.session_update(session_id="s1", update=_text_chunk("m1", "a"))
        """,
    ),
    Case(
        "helper-private-other-module",
        {
            "chunks.py": V2
            + """
            def _text_chunk(message_id, text, sender):
                return SessionMessageChunk(message_id=message_id, content=TextContent(text=text), sender_session_id=sender)
            """,
            "main.py": """
            from chunks import _text_chunk

            async def main(conn):
                for part in ["a", "b"]:
                    await conn.session_update(session_id="s1", update=_text_chunk("m1", part, "s1"))
            """,
        },
        "equivalent",
    ),
    Case(
        "helper-public-other-module",
        {
            "chunks.py": V2
            + """
            def text_chunk(message_id, text, sender):
                return SessionMessageChunk(message_id=message_id, content=TextContent(text=text), sender_session_id=sender)
            """,
            "main.py": """
            from chunks import text_chunk

            async def main(conn):
                await conn.session_update(session_id="s1", update=text_chunk("m1", "a", "s1"))
            """,
        },
        "reported",
    ),
    Case(
        "helper-caller-outside-the-run",
        {
            "chunks.py": V2
            + """
            def _text_chunk(message_id, text, sender):
                return SessionMessageChunk(message_id=message_id, content=TextContent(text=text), sender_session_id=sender)
            """,
            "main.py": """
            from chunks import _text_chunk

            async def main(conn):
                await conn.session_update(session_id="s1", update=_text_chunk("m1", "a", "s1"))
            """,
        },
        "reported",
        outside=("main.py",),
    ),
    Case(
        "helper-dict-public-no-caller-in-run",
        {
            "payloads.py": """
            def chunk_payload(mid, text, me):
                return {"sessionUpdate": "session_message_chunk", "messageId": mid, "content": {"type": "text", "text": text}, "senderSessionId": me}
            """,
            "main.py": """
            from payloads import chunk_payload

            def main(conn):
                conn.send(chunk_payload("m1", "x", "s1"))
            """,
        },
        "reported",
        outside=("main.py",),
    ),
    Case(
        "helper-reexported-from-package",
        {
            "pkg/__init__.py": "from ._chunks import _text_chunk as text_chunk\n",
            "pkg/_chunks.py": V2
            + """
            def _text_chunk(message_id, text, sender):
                return SessionMessageChunk(message_id=message_id, content=TextContent(text=text), sender_session_id=sender)
            """,
            "main.py": """
            import pkg

            async def main(conn):
                await conn.session_update(session_id="s1", update=pkg.text_chunk("m1", "a", "s1"))
            """,
        },
        "reported",
    ),
    Case(
        "helper-non-literal-default-other-module",
        {
            "chunks.py": V2
            + """
            DEFAULT_SENDER = "s1"

            def _text_chunk(message_id, text, sender=DEFAULT_SENDER):
                return SessionMessageChunk(message_id=message_id, content=TextContent(text=text), sender_session_id=sender)
            """,
            "main.py": """
            from chunks import _text_chunk

            async def main(conn):
                await conn.session_update(session_id="s1", update=_text_chunk("m1", "a"))
            """,
        },
        "reported",
    ),
    Case(
        "helper-blocked-caller-other-module",
        {
            "chunks.py": V2
            + """
            def _text_chunk(message_id, text, sender):
                return SessionMessageChunk(message_id=message_id, content=TextContent(text=text), sender_session_id=sender)

            async def greet(conn):
                await conn.session_update(session_id="s1", update=_text_chunk("m0", "hello", "s1"))
            """,
            "main.py": """
            from chunks import _text_chunk, greet

            def who():
                return "s1"

            async def main(conn):
                await greet(conn)
                await conn.session_update(session_id="s1", update=_text_chunk("m1", "a", who()))
            """,
        },
        "reported",
    ),
    Case(
        "helper-same-module-name-in-two-packages",
        {
            "svc_a/app/__init__.py": "",
            "svc_a/app/chunks.py": V2
            + """
            def _text_chunk(message_id, text, sender, recipient):
                return SessionMessageChunk(message_id=message_id, content=TextContent(text=text), sender_session_id=sender, recipient_session_id=recipient)
            """,
            "svc_a/app/main.py": """
            from app.chunks import _text_chunk

            async def main(conn):
                await conn.session_update(session_id="s1", update=_text_chunk("m1", "a", "s1", "s2"))
            """,
            "svc_b/app/__init__.py": "",
            "svc_b/app/chunks.py": V2
            + """
            def _text_chunk(message_id, text, recipient, sender):
                return SessionMessageChunk(message_id=message_id, content=TextContent(text=text), sender_session_id=sender, recipient_session_id=recipient)
            """,
            "svc_b/app/main.py": """
            from app.chunks import _text_chunk

            async def main(conn):
                await conn.session_update(session_id="s1", update=_text_chunk("m1", "a", "s2", "s1"))
            """,
        },
        "equivalent",
        entry="app.main",
        path_root="svc_a",
    ),
    # --- reads and patterns ---------------------------------------------------------------
    one(
        "match-underscore-subpattern",
        V2
        + """
        def handle(conn, update):
            match update:
                case SessionMessageChunk(message_id=m, sender_session_id=_):
                    conn.log("chunk", m)

        async def main(conn):
            me = "s1"
            handle(conn, SessionMessageChunk(message_id="m0", content=TextContent(text="in")))
            chunk = SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id=me)
            await conn.session_update(session_id="s1", update=chunk)
        """,
    ),
    one(
        "read-from-received-chunk",
        V2
        + """
        def describe(update: SessionMessageChunk) -> str:
            return f"{update.message_id} from {getattr(update, 'sender_session_id', None)}"

        async def main(conn):
            conn.log(describe(SessionMessageChunk(message_id="m1", content=TextContent(text="x"))))
        """,
        "reported",
    ),
    one(
        "import-of-renamed-name",
        """
        from acp_schema.v2 import AuthCapabilities, SessionMessageChunk

        def main(conn):
            conn.log(AuthCapabilities.__name__, SessionMessageChunk.__name__)
        """,
        "reported",
    ),
    # --- more shapes ----------------------------------------------------------------------
    one(
        "read-getattr-of-built-chunk",
        V2
        + """
        async def main(conn):
            me = "s1"
            chunk = SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id=me)
            conn.log(getattr(chunk, "sender_session_id", None))
            await conn.session_update(session_id="s1", update=chunk)
        """,
    ),
    one(
        "dict-in-envelope-built-by-pure-wrapper",
        """
        def envelope(sid, update):
            return {"sessionId": sid, "update": update}

        async def main(conn):
            sid, mid, me = "s1", "m1", "s1"
            for part in ["a", "b"]:
                await conn.notify(envelope(sid, {"sessionUpdate": "session_message_chunk", "messageId": mid, "content": {"type": "text", "text": part}, "recipientSessionId": me}))
        """,
    ),
    one(
        "dict-through-unknown-wrapper",
        """
        SEEN = []

        def remember(update):
            SEEN.append(update)
            return update

        def main(conn):
            conn.send(remember({"sessionUpdate": "session_message_chunk", "messageId": "m1", "content": {"type": "text", "text": "x"}, "senderSessionId": "s1"}))
            conn.log(len(SEEN))
        """,
        "reported",
    ),
    one(
        "dict-assigned-then-sent",
        """
        def main(conn):
            mid, me = "m1", "s1"
            update = {"sessionUpdate": "session_message_chunk", "messageId": mid, "content": {"type": "text", "text": "x"}, "senderSessionId": me}
            conn.send(update)
        """,
    ),
    one(
        "dict-kind-from-a-variable",
        """
        def _payload(kind, mid, text, sender):
            return {"sessionUpdate": kind, "messageId": mid, "content": text, "senderSessionId": sender}

        def main(conn):
            kind = "session_message_chunk"
            conn.send(_payload(kind, "m1", {"type": "text", "text": "x"}, "s1"))
        """,
        "reported",
    ),
    one(
        "constructor-nonlocal-rebinds-message-id",
        V2
        + """
        async def main(conn):
            mid = "m1"

            def bump():
                nonlocal mid
                mid = "m2"

            for part in ["a", "b"]:
                await conn.session_update(session_id="s1", update=SessionMessageChunk(message_id=mid, content=TextContent(text=part), sender_session_id="s1"))
                bump()
        """,
    ),
    one(
        "constructor-sent-inside-try-in-loop",
        V2
        + """
        async def main(conn):
            me = "s1"
            for part in ["a", "b"]:
                try:
                    await conn.session_update(session_id="s1", update=SessionMessageChunk(message_id="m1", content=TextContent(text=part), sender_session_id=me))
                finally:
                    conn.log(part)
        """,
    ),
    one(
        "match-capturing-identity",
        V2
        + """
        def handle(conn, update):
            match update:
                case SessionMessageChunk(sender_session_id=sender):
                    conn.log("from", sender)

        def main(conn):
            handle(conn, SessionMessageChunk(message_id="m1", content=TextContent(text="x")))
        """,
        "reported",
    ),
    one(
        "helper-builder-chain-in-private-helper",
        V2
        + """
        def _signed(mid: str, text: str, me: str, peer: str) -> SessionMessageChunk:
            return SessionMessageChunk(message_id=mid, content=TextContent(text=text)).with_sender_session_id(me).with_recipient_session_id(peer)

        async def main(conn):
            for part in ["a", "b"]:
                await conn.session_update(session_id="s1", update=_signed("m1", part, "s1", "s2"))
        """,
    ),
    one(
        "helper-generator-is-reported",
        V2
        + """
        def _chunks(mid, me, parts):
            for part in parts:
                chunk = SessionMessageChunk(message_id=mid, content=TextContent(text=part), sender_session_id=me)
                return chunk
            yield

        async def main(conn):
            await conn.session_update(session_id="s1", update=SessionMessageChunk(message_id="m0", content=TextContent(text="-")))
        """,
        "reported",
    ),
    one(
        "yielded-in-a-one-element-batch",
        V2
        + """
        def batches(mid, me, parts):
            for part in parts:
                yield [SessionMessageChunk(message_id=mid, content=TextContent(text=part), sender_session_id=me)]

        async def main(conn):
            for batch in batches("m1", "s1", ["a", "b"]):
                await conn.send_batch("s1", batch)
        """,
    ),
    one(
        "assigned-then-logged-and-sent",
        V2
        + """
        async def main(conn):
            chunk = SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id="s1")
            conn.log(chunk)
            await conn.session_update(session_id="s1", update=chunk)
        """,
        "reported",
    ),
    one(
        "constructor-in-while-loop",
        V2
        + """
        async def main(conn):
            parts, me = ["a", "b"], "s1"
            while parts:
                part = parts.pop(0)
                await conn.session_update(session_id="s1", update=SessionMessageChunk(message_id="m1", content=TextContent(text=part), sender_session_id=me))
        """,
    ),
    one(
        "constructor-sent-with-another-update",
        V2
        + """
        class Pair:
            def __init__(self, conn):
                self.conn = conn

            def send_pair(self, first, second):
                self.conn.send(first)
                self.conn.send(second)

        def main(conn):
            first = SessionMessageChunk(message_id="m0", content=TextContent(text="first"))
            Pair(conn).send_pair(first, SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id="s1"))
        """,
        "reported",
    ),
    one(
        "dict-sent-with-another-payload",
        """
        async def main(conn):
            other = {"sessionUpdate": "agent_message_chunk", "messageId": "a1", "content": {"type": "text", "text": "hi"}}
            await conn.send_batch("s-main", [other])
            conn.send({"sessionUpdate": "session_message_chunk", "messageId": "m1", "content": {"type": "text", "text": "x"}, "senderSessionId": "s1"})
        """,
    ),
    # --- more follow-ups --------------------------------------------------------------
    one(
        "helper-read",
        V2
        + """
        def _c(mid, text, me):
            return SessionMessageChunk(message_id=mid, content=TextContent(text=text), sender_session_id=me)

        async def main(conn):
            c = _c("m1", "x", "s1")
            conn.log(c.sender_session_id)
            await conn.session_update(session_id="s1", update=c)
        """,
    ),
    one(
        "with-block",
        V2
        + """
        import contextlib
        async def main(conn):
            me = "s1"
            with contextlib.nullcontext():
                chunk = SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id=me)
                await conn.session_update(session_id="s1", update=chunk)
        """,
    ),
    one(
        "chunk-in-loop-assigned-sent-after",
        V2
        + """
        async def main(conn):
            me = "s1"
            for p in ["a", "b"]:
                chunk = SessionMessageChunk(message_id="m1", content=TextContent(text=p), sender_session_id=me)
            await conn.session_update(session_id="s1", update=chunk)
        """,
        "reported",
    ),
    one(
        "helper-loop-var-mid",
        V2
        + """
        def _c(mid, text, me):
            return SessionMessageChunk(message_id=mid, content=TextContent(text=text), sender_session_id=me)

        async def main(conn):
            for mid in ["m1", "m2"]:
                await conn.session_update(session_id="s1", update=_c(mid, "x", "s1"))
        """,
    ),
    one(
        "self-helper-method",
        V2
        + """
        class A:
            def _c(self, mid, me):
                return SessionMessageChunk(message_id=mid, content=TextContent(text="x"), sender_session_id=me)
        async def main(conn):
            await conn.session_update(session_id="s1", update=A()._c("m1", "s1"))
        """,
        "reported",
    ),
    one(
        "reassigned-after-build",
        V2
        + """
        async def main(conn):
            me = "s1"
            chunk = SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id=me)
            me = "s9"
            await conn.session_update(session_id="s1", update=chunk)
        """,
        "reported",
    ),
    one(
        "chained-send-result",
        V2
        + """
        async def main(conn):
            r = conn.send(SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id="s1"))
            conn.log(r)
        """,
    ),
]

# How modules and classes resolve in real agent trees (namespace packages, src layouts,
# facades, star imports, subclasses): tests/migration_oracle/resolution_cases.py.
CASES += RESOLUTION_CASES
