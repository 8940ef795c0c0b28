"""Rule chunk-identity/dict: raw session_message_chunk payloads with identity keys."""

# The before/after samples keep the line lengths of the code they show.
# ruff: noqa: E501

from __future__ import annotations

from acp_schema.migrations.chunk_identity import rule_ids as rules

from .migrate_support import MigrationTest

D = rules.DICT


class TestPayloads(MigrationTest):
    def test_literal_payload_inside_a_json_rpc_message(self) -> None:
        self.migrate(
            """
            def send(out, sid, mid, me, peer, text):
                out.write({
                    "jsonrpc": "2.0",
                    "method": "session/update",
                    "params": {
                        "sessionId": sid,
                        "update": {
                            "sessionUpdate": "session_message_chunk",
                            "messageId": mid,
                            "content": {"type": "text", "text": text},
                            "senderSessionId": me,
                            "recipientSessionId": peer,
                        },
                    },
                })
            """,
            """
            def send(out, sid, mid, me, peer, text):
                out.write({
                    "jsonrpc": "2.0",
                    "method": "session/update",
                    "params": {
                        "sessionId": sid,
                        "update": {
                            "sessionUpdate": "session_message",
                            "messageId": mid,
                            "senderSessionId": me,
                            "recipientSessionId": peer,
                        },
                    },
                })
                out.write({
                    "jsonrpc": "2.0",
                    "method": "session/update",
                    "params": {
                        "sessionId": sid,
                        "update": {
                            "sessionUpdate": "session_message_chunk",
                            "messageId": mid,
                            "content": {"type": "text", "text": text},
                        },
                    },
                })
            """,
            changes=[D],
        )

    def test_assigned_then_sent_in_a_loop(self) -> None:
        self.migrate(
            """
            def send(out, mid, me, parts):
                for part in parts:
                    update = {'sessionUpdate': 'session_message_chunk', 'messageId': mid, 'content': part, 'senderSessionId': me}
                    out.write(update)
            """,
            """
            def send(out, mid, me, parts):
                out.write({'sessionUpdate': 'session_message', 'messageId': mid, 'senderSessionId': me})
                for part in parts:
                    update = {'sessionUpdate': 'session_message_chunk', 'messageId': mid, 'content': part}
                    out.write(update)
            """,
        )

    def test_snake_case_keys(self) -> None:
        self.migrate(
            """
            def send(out, mid, me):
                out.write({"session_update": "session_message_chunk", "message_id": mid, "content": block, "sender_session_id": me})
            """,
            """
            def send(out, mid, me):
                out.write({"session_update": "session_message", "message_id": mid, "sender_session_id": me})
                out.write({"session_update": "session_message_chunk", "message_id": mid, "content": block})
            """,
        )

    def test_payload_without_message_id_is_reported(self) -> None:
        source = """
            def send(out, me):
                out.write({"sessionUpdate": "session_message_chunk", "content": block, "senderSessionId": me})
            """
        self.migrate(source, source, warnings=[(D, 2)])


class TestKindParameter(MigrationTest):
    HELPER = """
        def _payload(kind, mid, text, sender, recipient=None):
            return {
                "sessionUpdate": kind,
                "messageId": mid,
                "content": {"type": "text", "text": text},
                "senderSessionId": sender,
                "recipientSessionId": recipient,
            }
        """
    HELPER_AFTER = """
        def _payload(kind, mid, text, sender, recipient=None):
            return {
                "sessionUpdate": kind,
                "messageId": mid,
                "content": {"type": "text", "text": text},
                **({} if kind == "session_message_chunk" else {"senderSessionId": sender, "recipientSessionId": recipient}),
            }
        """

    def test_calls_with_the_chunk_kind_get_the_upsert(self) -> None:
        self.migrate(
            self.HELPER
            + """
            def send(out, mid, me, peer, parts):
                out.write(_payload("session_message", mid, "", me, peer))
                for part in parts:
                    out.write(_payload("session_message_chunk", mid, part, me, peer))
                out.write(_payload("session_message_chunk", mid, "end", me))
            """,
            self.HELPER_AFTER
            + """
            def send(out, mid, me, peer, parts):
                out.write(_payload("session_message", mid, "", me, peer))
                out.write({"sessionUpdate": "session_message", "messageId": mid, "senderSessionId": me, "recipientSessionId": peer})
                for part in parts:
                    out.write(_payload("session_message_chunk", mid, part, me, peer))
                out.write({"sessionUpdate": "session_message", "messageId": mid, "senderSessionId": me})
                out.write(_payload("session_message_chunk", mid, "end", me))
            """,
        )

    def test_kind_from_a_variable_is_reported(self) -> None:
        call = """
            def send(out, kind, mid, me):
                out.write(_payload(kind, mid, "x", me))
            """
        # All or nothing: the helper keeps its keys when one of its calls cannot follow.
        [finding] = self.unchanged(self.HELPER + call, warnings=[(D, 2)])
        assert "cannot tell which kind" in finding.message

    def test_public_helper_is_reported(self) -> None:
        source = (
            self.HELPER.replace("_payload(", "payload(")
            + """
            def send(out, mid, me):
                out.write(payload("session_message_chunk", mid, "x", me))
            """
        )
        [finding] = self.unchanged(source, warnings=[(D, 2)])
        assert "`payload` is public" in finding.message

    def test_helper_only_called_with_other_kinds(self) -> None:
        call = """
            def send(out, mid, me):
                out.write(_payload("session_message", mid, "x", me))
            """
        self.migrate(self.HELPER + call, self.HELPER_AFTER + call, changes=[D])


class TestOtherDicts(MigrationTest):
    def test_unrelated_and_message_payloads_are_not_touched(self) -> None:
        # Payloads tagged with another kind are proven unrelated; an untagged one is not.
        self.unchanged(
            """
            def send(out, mid, me):
                out.write({"sessionUpdate": "session_message", "messageId": mid, "senderSessionId": me})
                out.write({"sessionUpdate": "agent_message_chunk", "content": block, "senderSessionId": me})
                out.write({"senderSessionId": me, "messageId": mid})
                return {"sessionUpdate": kind, "messageId": mid}
            """,
            warnings=[(rules.OCCURRENCE, 4)],
        )
