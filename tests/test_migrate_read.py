"""Rule chunk-identity/read: participant IDs read from chunks."""

# The before/after samples keep the line lengths of the code they show.
# ruff: noqa: E501

from __future__ import annotations

from acp_schema.migrations.chunk_identity import rule_ids as rules

from .migrate_support import MigrationTest, run_codemod

R = rules.READ


class TestRewrittenReads(MigrationTest):
    def test_getattr_on_a_local_chunk(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid, me):
                chunk = SessionMessageChunk(message_id=mid, content=block, recipient_session_id=me)
                print(getattr(chunk, "recipient_session_id", None))
                out.put(chunk)
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def send(out, mid, me):
                chunk = SessionMessageChunk(message_id=mid, content=block)
                print(me)
                out.put(SessionMessage(message_id=mid, recipient_session_id=me))
                out.put(chunk)
            """,
        )

    def test_a_field_that_was_never_set_is_reported(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid, me):
                chunk = SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)
                print(chunk.recipient_session_id)
                out.put(chunk)
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def send(out, mid, me):
                chunk = SessionMessageChunk(message_id=mid, content=block)
                print(chunk.recipient_session_id)
                out.put(SessionMessage(message_id=mid, sender_session_id=me))
                out.put(chunk)
            """,
            warnings=[(R, 5)],
        )

    def test_wildcard_class_sub_pattern_is_dropped(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def describe(update):
                match update:
                    case SessionMessageChunk(message_id=mid, sender_session_id=_, recipient_session_id=_):
                        return mid
                    case SessionMessageChunk(sender_session_id=_):
                        return "anonymous"
            """,
            """
            from acp_schema.v2 import SessionMessageChunk

            def describe(update):
                match update:
                    case SessionMessageChunk(message_id=mid):
                        return mid
                    case SessionMessageChunk():
                        return "anonymous"
            """,
            changes=[R, R],
        )

    def test_wildcard_mapping_entry_is_dropped(self) -> None:
        self.migrate(
            """
            def describe(payload):
                match payload:
                    case {"sessionUpdate": "session_message_chunk", "senderSessionId": _, "messageId": mid}:
                        return mid
            """,
            """
            def describe(payload):
                match payload:
                    case {"sessionUpdate": "session_message_chunk", "messageId": mid}:
                        return mid
            """,
        )


class TestReportedReads(MigrationTest):
    def test_isinstance_and_annotation_prove_a_chunk(self) -> None:
        source = """
            from acp_schema.v2 import SessionMessageChunk

            def sender(update, chunk: SessionMessageChunk):
                if isinstance(update, SessionMessageChunk):
                    return update.sender_session_id
                if update.session_update == "session_message_chunk":
                    return update.recipient_session_id
                return getattr(chunk, "sender_session_id", None)
            """
        findings = self.migrate(source, source, warnings=[(R, 5), (R, 7), (R, 8)])
        assert all("TranscriptStore.entry" in f.message for f in findings)

    def test_capturing_patterns_are_reported(self) -> None:
        source = """
            from acp_schema.v2 import SessionMessageChunk

            def describe(update):
                match update:
                    case SessionMessageChunk(sender_session_id=who):
                        return who
                    case {"sessionUpdate": "session_message_chunk", "senderSessionId": who}:
                        return who
            """
        self.migrate(source, source, warnings=[(R, 5), (R, 7)])

    def test_payload_key_read_after_a_tag_test(self) -> None:
        source = """
            def sender(payload):
                if payload["sessionUpdate"] == "session_message_chunk":
                    return payload["senderSessionId"], payload.get("recipientSessionId")
                return payload["senderSessionId"]
            """
        # After the test the code does not show what the payload is: reported too.
        self.migrate(source, source, warnings=[(R, 3), (R, 3), (rules.OCCURRENCE, 4)])

    def test_unknown_object_in_code_that_uses_chunks(self) -> None:
        source = """
            from acp_schema.v2 import SessionMessageChunk

            def sender(update):
                return update.sender_session_id
            """
        findings = self.migrate(source, source, warnings=[(R, 4)])
        assert "cannot tell" in findings[0].message

    def test_setting_the_field_on_a_chunk(self) -> None:
        source = """
            from acp_schema.v2 import SessionMessageChunk

            def tag(chunk: SessionMessageChunk, me):
                chunk.sender_session_id = me
            """
        self.migrate(source, source, warnings=[(R, 4)])

    def test_todo_comments_are_added_once(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def sender(chunk: SessionMessageChunk):
                # who sent it
                return chunk.sender_session_id
            """,
            """
            from acp_schema.v2 import SessionMessageChunk

            def sender(chunk: SessionMessageChunk):
                # who sent it
                # TODO(acp-schema migrate): chunk-identity/read: a SessionMessageChunk has no sender_session_id any more
                return chunk.sender_session_id
            """,
            warnings=[(R, 5)],
            todo_comments=True,
        )

    def test_an_acknowledged_read_gets_no_warning_and_no_todo(self) -> None:
        source = """
            from acp_schema.v2 import SessionMessageChunk

            def sender(chunk: SessionMessageChunk):
                # the transcript store fills it in; acp-migrate: ok[chunk-identity/read]
                return chunk.sender_session_id
            """
        findings = self.migrate(source, source, todo_comments=True)
        assert [(f.rule, f.line, f.kind) for f in findings] == [(R, 5, "acknowledged")]

    def test_todo_comments_for_what_no_rule_accounts_for(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def retag(chunk: SessionMessageChunk, me):
                return chunk.model_copy(update={"sender_session_id": me})
            """,
            """
            from acp_schema.v2 import SessionMessageChunk

            def retag(chunk: SessionMessageChunk, me):
                # TODO(acp-schema migrate): chunk-identity/occurrence: `sender_session_id` here: `.model_copy(...)` on `chunk`, which may be a chunk
                return chunk.model_copy(update={"sender_session_id": me})
            """,
            warnings=[(rules.OCCURRENCE, 4)],
            todo_comments=True,
        )


class TestQuietReads(MigrationTest):
    def test_other_types_and_code_without_chunks(self) -> None:
        self.unchanged(
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk
            from pydantic import BaseModel

            class Envelope(BaseModel):
                sender_session_id: str

                def who(self):
                    return self.sender_session_id

            def read(message: SessionMessage, envelope: Envelope, chunk: SessionMessageChunk):
                if isinstance(message, SessionMessage):
                    print(message.recipient_session_id)
                return message.sender_session_id, envelope.sender_session_id, chunk.message_id
            """
        )

    def test_unknown_objects_are_reported_however_far_from_chunks(self) -> None:
        # Distance is no proof: a module that names no chunk may be handed one.
        _, findings, _ = run_codemod(
            "def read(update):\n    return update.sender_session_id, update['senderSessionId']\n"
        )
        assert [(f.rule, f.line) for f in findings] == [(rules.OCCURRENCE, 2)] * 2
        self.unchanged(
            """
            def chunk(mid, text):
                return {"sessionUpdate": "session_message_chunk", "messageId": mid, "content": text}

            def participants(store):
                entry = store.entry("A", "m1")
                return entry.sender_session_id, entry.recipient_session_id
            """,
            warnings=[(rules.OCCURRENCE, 6), (rules.OCCURRENCE, 6)],
        )
