# ruff: noqa: E501 - the programs are written the way downstream code is, long lines too
"""Oracle cases for how modules and classes resolve in real agent trees: vendored models
in PEP 420 namespace packages under `src/`, relative imports there, facades (also in a
namespace package), star imports and star re-exports of the bindings, subclasses of the
chunk, `model_copy(update=...)`, and a TypedDict chunk built by call.

The vendored models are the project's own pydantic copy of the pre-revision shapes; the
migrated program still runs against them (the tool does not edit the vendored class), so
a rewrite is equivalent when the upsert it adds carries the same participants."""

from __future__ import annotations

from .harness import Case
from .vendored import VENDORED

SRC = "src"

RESOLUTION_CASES: list[Case] = [
    Case(
        "namespace-src-vendored-send",
        {
            "src/acme/proto/__init__.py": "",
            "src/acme/proto/models.py": VENDORED,
            "src/acme/agent/relay.py": """
            from acme.proto.models import SessionMessageChunk, TextContent

            async def main(conn):
                for part in ["a", "b"]:
                    await conn.session_update("s1", SessionMessageChunk(message_id="m1", content=TextContent(text=part), sender_session_id="s1", recipient_session_id="s2"))
            """,
        },
        "equivalent",
        entry="acme.agent.relay",
        path_root=SRC,
    ),
    Case(
        "namespace-src-vendored-read",
        {
            "src/acme/proto/__init__.py": "",
            "src/acme/proto/models.py": VENDORED,
            "src/acme/agent/relay.py": """
            from acme.proto.models import SessionMessageChunk, TextContent

            def who(update):
                if isinstance(update, SessionMessageChunk):
                    return update.sender_session_id
                return None

            async def main(conn):
                conn.log(who(SessionMessageChunk(message_id="m1", content=TextContent(text="a"))))
            """,
        },
        "reported",
        entry="acme.agent.relay",
        path_root=SRC,
    ),
    Case(
        "namespace-relative-import",
        {
            "src/acme/proto/models.py": VENDORED,
            "src/acme/proto/send.py": """
            from .models import SessionMessageChunk, TextContent

            async def main(conn):
                await conn.session_update("s1", SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id="s1"))
            """,
        },
        "equivalent",
        entry="acme.proto.send",
        path_root=SRC,
    ),
    Case(
        "facade-in-namespace-package",
        {
            "src/acme/proto/models.py": VENDORED,
            "src/acme/api/__init__.py": "from acme.proto.models import SessionMessage, SessionMessageChunk, TextContent\n",
            "src/acme/agent/main.py": """
            from acme.api import SessionMessageChunk, TextContent

            async def main(conn):
                await conn.session_update("s1", SessionMessageChunk(message_id="m1", content=TextContent(text="x"), recipient_session_id="s2"))
            """,
        },
        "equivalent",
        entry="acme.agent.main",
        path_root=SRC,
    ),
    Case(
        "star-import-of-the-bindings",
        {
            "main.py": """
            from acp_schema.v2 import *

            async def main(conn):
                await conn.session_update("s1", SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id="s1"))
            """,
        },
        "equivalent",  # the star import is followed as the facades' are
    ),
    Case(
        "alias-by-assignment-of-the-chunk",
        {
            "main.py": """
            from acp_schema.v2 import SessionMessageChunk, TextContent

            Chunk = SessionMessageChunk

            async def main(conn):
                await conn.session_update("s1", Chunk(message_id="m1", content=TextContent(text="x"), sender_session_id="s1"))
            """,
        },
        "equivalent",
    ),
    Case(
        "star-reexport-through-a-facade",
        {
            "app/__init__.py": "",
            "app/schema.py": "from acp_schema.v2 import *\n",
            "main.py": """
            from app.schema import SessionMessageChunk, TextContent

            async def main(conn):
                await conn.session_update("s1", SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id="s1"))
            """,
        },
        "equivalent",
    ),
    Case(
        "facade-of-a-facade-in-a-namespace-package",
        {
            "src/acme/schema.py": "from acp_schema.v2 import *\n",
            "src/acme/api/__init__.py": "from acme.schema import *\n",
            "src/acme/agent/main.py": """
            from acme.api import SessionMessageChunk, TextContent

            async def main(conn):
                for part in ["a", "b"]:
                    await conn.session_update("s1", SessionMessageChunk(message_id="m1", content=TextContent(text=part), recipient_session_id="s2"))
            """,
        },
        "equivalent",
        entry="acme.agent.main",
        path_root=SRC,
    ),
    Case(
        "facade-by-name-without-message",
        {
            "app/__init__.py": "",
            "app/schema.py": "from acp_schema.v2 import SessionMessageChunk, TextContent\n",
            "main.py": """
            from app.schema import SessionMessageChunk, TextContent

            async def main(conn):
                await conn.session_update("s1", SessionMessageChunk(message_id="m1", content=TextContent(text="x"), sender_session_id="s1"))
            """,
        },
        "reported",
    ),
    Case(
        "subclass-of-the-chunk",
        {
            "main.py": """
            from acp_schema.v2 import SessionMessageChunk, TextContent

            class TracedChunk(SessionMessageChunk):
                pass

            async def main(conn):
                await conn.session_update("s1", TracedChunk(message_id="m1", content=TextContent(text="x"), sender_session_id="s1"))
            """,
        },
        "reported",
    ),
    Case(
        "model-copy-update",
        {
            "main.py": """
            from acp_schema.v2 import SessionMessageChunk, TextContent

            async def main(conn):
                chunk = SessionMessageChunk(message_id="m1", content=TextContent(text="x"))
                await conn.session_update("s1", chunk.model_copy(update={"sender_session_id": "s1"}))
            """,
        },
        "reported",
    ),
    Case(
        "typeddict-chunk-built-by-call",
        {
            "main.py": """
            from typing import TypedDict

            class ChunkPayload(TypedDict, total=False):
                sessionUpdate: str
                messageId: str
                content: dict
                senderSessionId: str

            async def main(conn):
                await conn.session_update("s1", ChunkPayload(sessionUpdate="session_message_chunk", messageId="m1", content={"type": "text", "text": "x"}, senderSessionId="s1"))
            """,
        },
        "reported",
    ),
]
