"""Rule chunk-identity/builder: with_sender_session_id / with_recipient_session_id."""

# The before/after samples keep the line lengths of the code they show.
# ruff: noqa: E501

from __future__ import annotations

from acp_schema.migrations.chunk_identity import rule_ids as rules
from acp_schema.migrations.chunk_identity.commands import ChunkBuilderCommand

from .migrate_support import MigrationTest

B = rules.BUILDER


class TestBuilders(MigrationTest):
    def test_chain_on_a_constructor(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid, me, peer):
                out.put(SessionMessageChunk(message_id=mid, content=block).with_sender_session_id(me).with_meta(m).with_recipient_session_id(peer))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def send(out, mid, me, peer):
                out.put(SessionMessage(message_id=mid, sender_session_id=me, recipient_session_id=peer))
                out.put(SessionMessageChunk(message_id=mid, content=block).with_meta(m))
            """,
            changes=[B],
        )

    def test_keywords_and_builders_make_one_upsert(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid, me, peer):
                out.put(SessionMessageChunk(message_id=mid, content=block, sender_session_id=me).with_recipient_session_id(peer))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def send(out, mid, me, peer):
                out.put(SessionMessage(message_id=mid, sender_session_id=me, recipient_session_id=peer))
                out.put(SessionMessageChunk(message_id=mid, content=block))
            """,
            changes=[rules.CONSTRUCTOR, B],
        )

    def test_the_last_message_id_counts(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, old, new, me):
                out.put(SessionMessageChunk(message_id=old, content=block).with_message_id(new).with_sender_session_id(me))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def send(out, old, new, me):
                out.put(SessionMessage(message_id=new, sender_session_id=me))
                out.put(SessionMessageChunk(message_id=old, content=block).with_message_id(new))
            """,
        )

    def test_parenthesised_multi_line_chain_keeps_its_parentheses(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid, me):
                chunk = (
                    SessionMessageChunk(message_id=mid, content=block)
                    .with_sender_session_id(me)
                )
                out.put(chunk)
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def send(out, mid, me):
                chunk = (
                    SessionMessageChunk(message_id=mid, content=block)
                )
                out.put(SessionMessage(message_id=mid, sender_session_id=me))
                out.put(chunk)
            """,
        )

    def test_chunk_typed_parameter(self) -> None:
        self.migrate(
            """
            from acp_schema import v2

            async def send(conn, sid: str, chunk: v2.SessionMessageChunk, me: str) -> None:
                await conn.session_update(session_id=sid, update=chunk.with_sender_session_id(me))
            """,
            """
            from acp_schema import v2

            async def send(conn, sid: str, chunk: v2.SessionMessageChunk, me: str) -> None:
                await conn.session_update(session_id=sid, update=v2.SessionMessage(message_id=chunk.message_id, sender_session_id=me))
                await conn.session_update(session_id=sid, update=chunk)
            """,
        )

    def test_chunk_narrowed_by_isinstance(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, update, me):
                if isinstance(update, SessionMessageChunk):
                    out.put(update.with_sender_session_id(me))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def send(out, update, me):
                if isinstance(update, SessionMessageChunk):
                    out.put(SessionMessage(message_id=update.message_id, sender_session_id=me))
                    out.put(update)
            """,
        )

    def test_helper_taking_a_chunk(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def _signed(chunk: SessionMessageChunk, me: str) -> SessionMessageChunk:
                return chunk.with_sender_session_id(me)

            def send(out, chunk: SessionMessageChunk, me: str) -> None:
                out.put(_signed(chunk, me))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def _signed(chunk: SessionMessageChunk, me: str) -> SessionMessageChunk:
                return chunk

            def send(out, chunk: SessionMessageChunk, me: str) -> None:
                out.put(SessionMessage(message_id=chunk.message_id, sender_session_id=me))
                out.put(_signed(chunk, me))
            """,
            warnings=[(B, 3)],  # one module at a time: callers elsewhere unseen
        )

    def test_session_message_builders_are_not_touched(self) -> None:
        self.unchanged(
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def send(out, message: SessionMessage, chunk: SessionMessageChunk, me):
                out.put(message.with_sender_session_id(me))
                out.put(chunk)
            """
        )

    def test_unknown_receiver_is_reported_where_chunks_are_used(self) -> None:
        source = """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, update, me):
                out.put(update.with_sender_session_id(me))
            """
        self.migrate(source, source, warnings=[(B, 4)])

    def test_unknown_receiver_in_code_without_chunks_is_still_reported(self) -> None:
        # No chunk named in the module is no proof: the accounting reports it.
        self.unchanged(
            """
            def send(out, update, me):
                out.put(update.with_sender_session_id(me))
            """,
            warnings=[(rules.OCCURRENCE, 2)],
        )


class TestBuilderCommandAlone(MigrationTest):
    TRANSFORM = ChunkBuilderCommand

    def test_keywords_stay_when_only_builders_are_selected(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid, me, peer):
                out.put(SessionMessageChunk(message_id=mid, content=block, sender_session_id=me).with_recipient_session_id(peer))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def send(out, mid, me, peer):
                out.put(SessionMessage(message_id=mid, recipient_session_id=peer))
                out.put(SessionMessageChunk(message_id=mid, content=block, sender_session_id=me))
            """,
        )
