"""Rule chunk-identity/constructor: participant IDs passed to SessionMessageChunk(...)."""

# The before/after samples keep the line lengths of the code they show.
# ruff: noqa: E501

from __future__ import annotations

from acp_schema.migrations.chunk_identity import rule_ids as rules
from acp_schema.migrations.chunk_identity.commands import ChunkConstructorCommand
from acp_schema.migrations.chunk_identity.planning.plan import HelperTemplate, Param

from .migrate_support import MigrationTest, run_codemod

C = rules.CONSTRUCTOR


class TestSends(MigrationTest):
    def test_keywords_in_a_send_call(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk, TextContent

            async def send(conn, sid, mid, me, peer):
                await conn.session_update(session_id=sid, update=SessionMessageChunk(message_id=mid, content=TextContent(text="hi"), sender_session_id=me, recipient_session_id=peer))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk, TextContent

            async def send(conn, sid, mid, me, peer):
                await conn.session_update(session_id=sid, update=SessionMessage(message_id=mid, sender_session_id=me, recipient_session_id=peer))
                await conn.session_update(session_id=sid, update=SessionMessageChunk(message_id=mid, content=TextContent(text="hi")))
            """,
            changes=[C],
        )

    def test_camel_case_keywords_and_multi_line_layout(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk, TextContent

            def send(out, mid, me, peer):
                out.put(
                    SessionMessageChunk(
                        messageId=mid,
                        content=TextContent(text="hi"),  # the text
                        senderSessionId=me,
                        recipientSessionId=peer,
                    )
                )
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk, TextContent

            def send(out, mid, me, peer):
                out.put(
                    SessionMessage(
                        message_id=mid,
                        sender_session_id=me,
                        recipient_session_id=peer,
                    )
                )
                out.put(
                    SessionMessageChunk(
                        messageId=mid,
                        content=TextContent(text="hi"),  # the text
                    )
                )
            """,
        )

    def test_import_alias(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk as Chunk, TextContent

            def send(out, mid, me):
                out.put(Chunk(message_id=mid, content=TextContent(text="x"), sender_session_id=me))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk as Chunk, TextContent

            def send(out, mid, me):
                out.put(SessionMessage(message_id=mid, sender_session_id=me))
                out.put(Chunk(message_id=mid, content=TextContent(text="x")))
            """,
        )

    def test_module_attribute(self) -> None:
        self.migrate(
            """
            from acp_schema import v2 as schema

            def send(out, mid, me):
                out.put(schema.SessionMessageChunk(message_id=mid, content=schema.TextContent(text="x"), sender_session_id=me))
            """,
            """
            from acp_schema import v2 as schema

            def send(out, mid, me):
                out.put(schema.SessionMessage(message_id=mid, sender_session_id=me))
                out.put(schema.SessionMessageChunk(message_id=mid, content=schema.TextContent(text="x")))
            """,
        )

    def test_dotted_import_and_v1(self) -> None:
        self.migrate(
            """
            import acp_schema.v1

            def send(out, mid, me):
                out.put(acp_schema.v1.SessionMessageChunk(message_id=mid, content=block, recipient_session_id=me))
            """,
            """
            import acp_schema.v1

            def send(out, mid, me):
                out.put(acp_schema.v1.SessionMessage(message_id=mid, recipient_session_id=me))
                out.put(acp_schema.v1.SessionMessageChunk(message_id=mid, content=block))
            """,
        )

    def test_existing_session_message_import_is_reused(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessage as Upsert, SessionMessageChunk

            def send(out, mid, me):
                out.put(SessionMessageChunk(message_id=mid, content=block, sender_session_id=me))
            """,
            """
            from acp_schema.v2 import SessionMessage as Upsert, SessionMessageChunk

            def send(out, mid, me):
                out.put(Upsert(message_id=mid, sender_session_id=me))
                out.put(SessionMessageChunk(message_id=mid, content=block))
            """,
        )

    def test_taken_name_gets_an_alias(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            class SessionMessage:
                pass

            def send(out, mid, me):
                out.put(SessionMessageChunk(message_id=mid, content=block, sender_session_id=me))
            """,
            """
            from acp_schema.v2 import SessionMessage as AcpSessionMessage, SessionMessageChunk

            class SessionMessage:
                pass

            def send(out, mid, me):
                out.put(AcpSessionMessage(message_id=mid, sender_session_id=me))
                out.put(SessionMessageChunk(message_id=mid, content=block))
            """,
        )

    def test_wrapped_in_a_notification_and_returned_send(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk, UpdateSessionNotification

            async def send(conn, sid, mid, me):
                return await conn.notify(UpdateSessionNotification(session_id=sid, update=SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)).model_dump())
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk, UpdateSessionNotification

            async def send(conn, sid, mid, me):
                await conn.notify(UpdateSessionNotification(session_id=sid, update=SessionMessage(message_id=mid, sender_session_id=me)).model_dump())
                return await conn.notify(UpdateSessionNotification(session_id=sid, update=SessionMessageChunk(message_id=mid, content=block)).model_dump())
            """,
        )

    def test_comments_and_blank_lines_stay_with_their_statement(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid, me):
                prepare()

                # the reply
                out.put(SessionMessageChunk(message_id=mid, content=block, sender_session_id=me))  # sent
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def send(out, mid, me):
                prepare()

                out.put(SessionMessage(message_id=mid, sender_session_id=me))
                # the reply
                out.put(SessionMessageChunk(message_id=mid, content=block))  # sent
            """,
        )

    def test_only_none_values_are_just_dropped(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid):
                out.put(SessionMessageChunk(message_id=mid, content=block, sender_session_id=None))
            """,
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid):
                out.put(SessionMessageChunk(message_id=mid, content=block))
            """,
        )

    def test_side_effects_next_to_the_chunk_are_not_copied(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid, me):
                out.put(next_id(), SessionMessageChunk(message_id=mid, content=block, sender_session_id=me))
            """,
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid, me):
                out.put(next_id(), SessionMessageChunk(message_id=mid, content=block, sender_session_id=me))
            """,
            warnings=[(C, 4)],
        )

    def test_chunk_used_in_an_expression_is_reported(self) -> None:
        findings = self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(mid, me):
                return [SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)]
            """,
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(mid, me):
                return [SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)]
            """,
            warnings=[(C, 4)],
        )
        assert "left unchanged" in findings[0].message

    def test_one_line_statements(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid, me):
                x = 1; out.put(SessionMessageChunk(message_id=mid, content=block, sender_session_id=me))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def send(out, mid, me):
                x = 1; out.put(SessionMessage(message_id=mid, sender_session_id=me)); out.put(SessionMessageChunk(message_id=mid, content=block))
            """,
        )


class TestLoops(MigrationTest):
    def test_invariant_ids_hoisted_out_of_nested_loops(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            async def stream(conn, sid, mid, me, peer, pages):
                for page in pages:
                    for part in page:
                        await conn.session_update(session_id=sid, update=SessionMessageChunk(message_id=mid, content=part, sender_session_id=me, recipient_session_id=peer))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            async def stream(conn, sid, mid, me, peer, pages):
                await conn.session_update(session_id=sid, update=SessionMessage(message_id=mid, sender_session_id=me, recipient_session_id=peer))
                for page in pages:
                    for part in page:
                        await conn.session_update(session_id=sid, update=SessionMessageChunk(message_id=mid, content=part))
            """,
        )

    def test_hoisting_stops_at_the_loop_that_changes_an_id(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def stream(out, me, messages):
                for mid, parts in messages:
                    for part in parts:
                        out.put(SessionMessageChunk(message_id=mid, content=part, sender_session_id=me))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def stream(out, me, messages):
                for mid, parts in messages:
                    out.put(SessionMessage(message_id=mid, sender_session_id=me))
                    for part in parts:
                        out.put(SessionMessageChunk(message_id=mid, content=part))
            """,
            warnings=[(C, 6)],
        )

    def test_ids_changing_in_the_loop_give_one_upsert_per_chunk(self) -> None:
        findings = self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def stream(out, me, parts):
                for part in parts:
                    peer = part.peer
                    out.put(SessionMessageChunk(message_id=part.id, content=part.block, sender_session_id=me, recipient_session_id=peer))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def stream(out, me, parts):
                for part in parts:
                    peer = part.peer
                    out.put(SessionMessage(message_id=part.id, sender_session_id=me, recipient_session_id=peer))
                    out.put(SessionMessageChunk(message_id=part.id, content=part.block))
            """,
            warnings=[(C, 6)],
        )
        assert "`part.id`" in findings[0].message and "`peer`" in findings[0].message

    def test_an_attribute_assigned_in_the_loop_is_not_invariant(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def stream(self, out, parts):
                for part in parts:
                    self.peer = part.peer
                    out.put(SessionMessageChunk(message_id=self.mid, content=part, recipient_session_id=self.peer))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def stream(self, out, parts):
                for part in parts:
                    self.peer = part.peer
                    out.put(SessionMessage(message_id=self.mid, recipient_session_id=self.peer))
                    out.put(SessionMessageChunk(message_id=self.mid, content=part))
            """,
            warnings=[(C, 6)],
        )

    def test_a_possible_continue_before_the_send_prevents_hoisting(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def stream(out, mid, me, parts):
                for part in parts:
                    if not part:
                        continue
                    out.put(SessionMessageChunk(message_id=mid, content=part, sender_session_id=me))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def stream(out, mid, me, parts):
                for part in parts:
                    if not part:
                        continue
                    out.put(SessionMessage(message_id=mid, sender_session_id=me))
                    out.put(SessionMessageChunk(message_id=mid, content=part))
            """,
            warnings=[(C, 7)],
        )

    def test_one_line_loop_body(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def stream(out, mid, me, parts):
                for part in parts: out.put(SessionMessageChunk(message_id=mid, content=part, sender_session_id=me))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def stream(out, mid, me, parts):
                out.put(SessionMessage(message_id=mid, sender_session_id=me))
                for part in parts: out.put(SessionMessageChunk(message_id=mid, content=part))
            """,
        )

    def test_two_sends_of_one_message_share_the_upsert(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def stream(out, mid, me, parts):
                for part in parts:
                    out.put(SessionMessageChunk(message_id=mid, content=part, sender_session_id=me))
                    out.put(SessionMessageChunk(message_id=mid, content=sep, sender_session_id=me))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def stream(out, mid, me, parts):
                out.put(SessionMessage(message_id=mid, sender_session_id=me))
                for part in parts:
                    out.put(SessionMessageChunk(message_id=mid, content=part))
                    out.put(SessionMessageChunk(message_id=mid, content=sep))
            """,
        )


class TestNamesHelpersGenerators(MigrationTest):
    def test_assigned_then_sent_and_read(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            async def send(conn, sid, mid, me, log):
                chunk = SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)
                log.info("from %s", chunk.sender_session_id)
                await conn.session_update(session_id=sid, update=chunk)
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            async def send(conn, sid, mid, me, log):
                chunk = SessionMessageChunk(message_id=mid, content=block)
                log.info("from %s", me)
                await conn.session_update(session_id=sid, update=SessionMessage(message_id=mid, sender_session_id=me))
                await conn.session_update(session_id=sid, update=chunk)
            """,
            changes=[C, rules.READ],
        )

    def test_message_id_rebound_before_the_send_reads_the_chunk(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid, me):
                chunk = SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)
                mid = None
                out.put(chunk)
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def send(out, mid, me):
                chunk = SessionMessageChunk(message_id=mid, content=block)
                mid = None
                out.put(SessionMessage(message_id=chunk.message_id, sender_session_id=me))
                out.put(chunk)
            """,
        )

    def test_identity_rebound_before_the_send_is_reported(self) -> None:
        source = """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid, me):
                chunk = SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)
                me = "someone else"
                out.put(chunk)
            """
        self.migrate(source, source, warnings=[(C, 4)])

    def test_an_item_changed_through_an_alias_before_the_send_is_reported(self) -> None:
        source = """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid, route):
                alias = route
                chunk = SessionMessageChunk(message_id=mid, content=block, recipient_session_id=route["peer"])
                alias["peer"] = "s3"
                out.put(chunk)
            """
        self.migrate(source, source, warnings=[(C, 5)])

    def test_an_attribute_changed_through_an_alias_before_the_send_is_reported(self) -> None:
        source = """
            from acp_schema.v2 import SessionMessageChunk

            def send(self, out, mid):
                other = self
                chunk = SessionMessageChunk(message_id=mid, content=block, sender_session_id=self.me)
                other.me = "s3"
                out.put(chunk)
            """
        self.migrate(source, source, warnings=[(C, 5)])

    def test_assigned_and_never_sent_is_left_alone(self) -> None:
        source = """
            from acp_schema.v2 import SessionMessageChunk

            def build(mid, me, box):
                chunk = SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)
                box.pending = chunk
            """
        self.migrate(source, source, warnings=[(C, 4)])

    def test_helper_returning_a_chunk(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk, TextContent

            def _text_chunk(message_id: str, text: str, sender: str) -> SessionMessageChunk:
                return SessionMessageChunk(
                    message_id=message_id,
                    content=TextContent(text=text),
                    sender_session_id=sender,
                )

            async def relay(conn, sid, mid, me, parts):
                for part in parts:
                    await conn.session_update(session_id=sid, update=_text_chunk(mid, part, sender=me))
                chunk = _text_chunk(mid, "done", me)
                await conn.session_update(session_id=sid, update=chunk)
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk, TextContent

            def _text_chunk(message_id: str, text: str, sender: str) -> SessionMessageChunk:
                return SessionMessageChunk(
                    message_id=message_id,
                    content=TextContent(text=text),
                )

            async def relay(conn, sid, mid, me, parts):
                await conn.session_update(session_id=sid, update=SessionMessage(message_id=mid, sender_session_id=me))
                for part in parts:
                    await conn.session_update(session_id=sid, update=_text_chunk(mid, part, sender=me))
                chunk = _text_chunk(mid, "done", me)
                await conn.session_update(session_id=sid, update=SessionMessage(message_id=mid, sender_session_id=me))
                await conn.session_update(session_id=sid, update=chunk)
            """,
            warnings=[(C, 3)],  # one module at a time: callers elsewhere unseen
        )

    def test_helper_used_as_a_value_is_left_alone(self) -> None:
        source = """
            from acp_schema.v2 import SessionMessageChunk

            def _make(mid, me):
                return SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)

            FACTORIES = [_make]
            """
        findings = self.migrate(source, source, warnings=[(C, 4)])
        assert "used without being called" in findings[0].message

    def test_helper_whose_ids_are_not_parameters_is_left_alone(self) -> None:
        source = """
            from acp_schema.v2 import SessionMessageChunk

            ME = "agent"

            def _make(mid):
                return SessionMessageChunk(message_id=mid, content=block, sender_session_id=ME)

            def send(out):
                out.put(_make("m"))
            """
        self.migrate(source, source, warnings=[(C, 6)])

    def test_public_helper_is_left_alone_and_reported(self) -> None:
        # Callers outside the run may use it: they would lose the IDs.
        source = """
            from acp_schema.v2 import SessionMessageChunk

            def make(mid, me):
                return SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)

            def send(out, mid, me):
                out.send(make(mid, me))
            """
        [finding] = self.unchanged(source, warnings=[(C, 4)])
        assert "`make` is public" in finding.message
        assert "send a SessionMessage upsert" in finding.message

    def test_private_helper_without_a_call_in_its_module(self) -> None:
        source = """
            from acp_schema.v2 import SessionMessageChunk

            def _make(mid, me):
                return SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)
            """
        # One module at a time (libcst's runner): its callers cannot be seen.
        [finding] = self.unchanged(source, warnings=[(C, 4)])
        assert "no call of `_make` is in this module" in finding.message
        # `acp-schema migrate` plans it and lets the run decide (callers elsewhere).
        _, findings, command = run_codemod(self.make_fixture_data(source), repository_wide=True)
        assert [f for f in findings if f.kind == "warning"] == []
        [template] = command.exported_helpers
        assert template.qualified_name == "app.agent._make"
        assert template.identity == (("sender_session_id", "me"),)

    def test_helper_from_another_module(self) -> None:
        template = HelperTemplate(
            qualified_name="app.chunks.make",
            params=(Param("mid", "any"), Param("text", "any"), Param("me", "any", '"agent"')),
            style="model",
            module="acp_schema.v2",
            message_id="mid",
            identity=(("sender_session_id", "me"),),
        )
        self.migrate(
            """
            from .chunks import make

            def send(out, mid, parts):
                for part in parts:
                    out.put(make(mid, part))
            """,
            """
            from acp_schema.v2 import SessionMessage
            from .chunks import make

            def send(out, mid, parts):
                out.put(SessionMessage(message_id=mid, sender_session_id="agent"))
                for part in parts:
                    out.put(make(mid, part))
            """,
            # The second run gets the same template: the upsert already in place
            # keeps it from being added twice.
            helpers={template.qualified_name: template},
        )

    def test_generator_yields_the_upsert_and_widens_its_type(self) -> None:
        self.migrate(
            """
            from collections.abc import Iterator
            from acp_schema.v2 import SessionMessageChunk

            def chunks(mid: str, me: str, parts: list[str]) -> Iterator[SessionMessageChunk]:
                for part in parts:
                    yield SessionMessageChunk(message_id=mid, content=part, sender_session_id=me)
            """,
            """
            from collections.abc import Iterator
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def chunks(mid: str, me: str, parts: list[str]) -> Iterator[SessionMessageChunk | SessionMessage]:
                yield SessionMessage(message_id=mid, sender_session_id=me)
                for part in parts:
                    yield SessionMessageChunk(message_id=mid, content=part)
            """,
        )

    def test_generator_typed_with_the_union_is_not_widened(self) -> None:
        self.migrate(
            """
            from collections.abc import AsyncIterator
            from acp_schema.v2 import SessionMessageChunk, SessionUpdate

            async def chunks(mid: str, me: str) -> AsyncIterator[SessionUpdate]:
                yield SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)
            """,
            """
            from collections.abc import AsyncIterator
            from acp_schema.v2 import SessionMessage, SessionMessageChunk, SessionUpdate

            async def chunks(mid: str, me: str) -> AsyncIterator[SessionUpdate]:
                yield SessionMessage(message_id=mid, sender_session_id=me)
                yield SessionMessageChunk(message_id=mid, content=block)
            """,
        )


class TestLeftAlone(MigrationTest):
    def test_own_class_called_session_message_chunk(self) -> None:
        self.unchanged(
            """
            from pydantic import BaseModel

            class SessionMessageChunk(BaseModel):
                message_id: str
                sender_session_id: str

            def send(out, mid, me):
                chunk = SessionMessageChunk(message_id=mid, sender_session_id=me)
                out.put(chunk)
                return chunk.sender_session_id
            """,
            # Left alone: the class is reported, as `acp-schema migrate` reports it (it may
            # be a vendored copy of the old chunk, which this runner cannot use), and so is
            # every use of its fields: nothing shows that a class of that name is no chunk.
            warnings=[
                (rules.OLD_BINDINGS, 3),
                (rules.OCCURRENCE, 5),
                (rules.OCCURRENCE, 8),
                (rules.OCCURRENCE, 10),
            ],
        )

    def test_same_name_from_another_package(self) -> None:
        # Not rewritten (it may be another class), but reported: it may be a facade.
        self.unchanged(
            """
            from mylib.models import SessionMessageChunk

            def send(out, mid, me):
                out.put(SessionMessageChunk(message_id=mid, sender_session_id=me))
            """,
            warnings=[(rules.OCCURRENCE, 4)],
        )

    def test_relative_import_above_the_top_package(self) -> None:
        # In `app.agent`, `..` climbs above the package `app`: Python refuses the import,
        # so the name is not the bindings' chunk, whatever the dotted path after it says.
        self.unchanged(
            """
            from ..acp_schema.v2 import SessionMessageChunk, TextContent

            def send(out, mid, me):
                out.put(SessionMessageChunk(message_id=mid, content=TextContent(text="x"), sender_session_id=me))
            """,
            module="app.agent",
            warnings=[(rules.OCCURRENCE, 4)],
        )

    def test_session_message_and_other_classes(self) -> None:
        self.unchanged(
            """
            from acp_schema.v2 import AgentMessageChunk, SessionMessage

            def send(out, mid, me):
                out.put(SessionMessage(message_id=mid, sender_session_id=me, recipient_session_id=me))
                out.put(AgentMessageChunk(content=block, sender_session_id=me))
            """
        )

    def test_unpacked_keywords_are_reported(self) -> None:
        source = """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, fields):
                out.put(SessionMessageChunk(**fields))
            """
        self.migrate(source, source, warnings=[(C, 4)])

    def test_chunk_without_identity(self) -> None:
        self.unchanged(
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid):
                out.put(SessionMessageChunk(message_id=mid, content=block))
            """
        )

    def test_other_bindings_need_configuration(self) -> None:
        source = """
            from vendored_acp.schema import SessionMessageChunk

            def send(out, mid, me):
                out.put(SessionMessageChunk(message_id=mid, content=block, sender_session_id=me))
            """
        self.unchanged(source, warnings=[(rules.OCCURRENCE, 4)])
        self.migrate(
            source,
            """
            from vendored_acp.schema import SessionMessage, SessionMessageChunk

            def send(out, mid, me):
                out.put(SessionMessage(message_id=mid, sender_session_id=me))
                out.put(SessionMessageChunk(message_id=mid, content=block))
            """,
            bindings=["vendored_acp"],
        )


class TestRuleSelection(MigrationTest):
    TRANSFORM = ChunkConstructorCommand

    def test_the_rule_command_runs_only_its_rule(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def send(out, mid, me, peer, update):
                out.put(SessionMessageChunk(message_id=mid, content=block, sender_session_id=me).with_recipient_session_id(peer))
                return update.sender_session_id
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def send(out, mid, me, peer, update):
                out.put(SessionMessage(message_id=mid, sender_session_id=me))
                out.put(SessionMessageChunk(message_id=mid, content=block).with_recipient_session_id(peer))
                return update.sender_session_id
            """,
        )


class TestLoopReports(MigrationTest):
    def test_a_send_inside_a_condition_of_a_loop_is_reported(self) -> None:
        findings = self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def stream(out, mid, me, parts):
                for part in parts:
                    if part:
                        out.put(SessionMessageChunk(message_id=mid, content=part, sender_session_id=me))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def stream(out, mid, me, parts):
                for part in parts:
                    if part:
                        out.put(SessionMessage(message_id=mid, sender_session_id=me))
                        out.put(SessionMessageChunk(message_id=mid, content=part))
            """,
            warnings=[(C, 6)],
        )
        assert "nested block" in findings[0].message

    def test_methods_reading_attributes_of_self_are_hoisted(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            class Agent:
                def stream(self, parts):
                    for part in parts:
                        self.conn.send(session_id=self.sid, update=SessionMessageChunk(message_id=self.mid, content=part, sender_session_id=self.sid, recipient_session_id=self.peer))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            class Agent:
                def stream(self, parts):
                    self.conn.send(session_id=self.sid, update=SessionMessage(message_id=self.mid, sender_session_id=self.sid, recipient_session_id=self.peer))
                    for part in parts:
                        self.conn.send(session_id=self.sid, update=SessionMessageChunk(message_id=self.mid, content=part))
            """,
        )

    def test_attributes_read_across_an_await_keep_the_upsert_inside(self) -> None:
        # Other tasks run at the await and may change self.mid.
        findings = self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            class Agent:
                async def stream(self, parts):
                    for part in parts:
                        await self.conn.session_update(session_id=self.sid, update=SessionMessageChunk(message_id=self.mid, content=part, sender_session_id=self.sid))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            class Agent:
                async def stream(self, parts):
                    for part in parts:
                        await self.conn.session_update(session_id=self.sid, update=SessionMessage(message_id=self.mid, sender_session_id=self.sid))
                        await self.conn.session_update(session_id=self.sid, update=SessionMessageChunk(message_id=self.mid, content=part))
            """,
            warnings=[(C, 6)],
        )
        assert "at each `await`" in findings[0].message

    def test_a_method_call_on_self_in_the_loop_keeps_the_upsert_inside(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            class Agent:
                def stream(self, out, parts):
                    for part in parts:
                        self.rotate()
                        out.put(SessionMessageChunk(message_id=self.mid, content=part, recipient_session_id=self.peer))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            class Agent:
                def stream(self, out, parts):
                    for part in parts:
                        self.rotate()
                        out.put(SessionMessage(message_id=self.mid, recipient_session_id=self.peer))
                        out.put(SessionMessageChunk(message_id=self.mid, content=part))
            """,
            warnings=[(C, 7)],
        )

    def test_inside_with_and_try_blocks(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            async def send(conn, lock, mid, me):
                async with lock:
                    try:
                        await conn.send(SessionMessageChunk(message_id=mid, content=block, sender_session_id=me))
                    except OSError:
                        pass
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            async def send(conn, lock, mid, me):
                async with lock:
                    try:
                        await conn.send(SessionMessage(message_id=mid, sender_session_id=me))
                        await conn.send(SessionMessageChunk(message_id=mid, content=block))
                    except OSError:
                        pass
            """,
        )

    def test_two_yields_widen_the_annotation_once(self) -> None:
        self.migrate(
            """
            from collections.abc import Iterator
            from acp_schema.v2 import SessionMessageChunk

            def chunks(a: str, b: str, me: str) -> Iterator[SessionMessageChunk]:
                yield SessionMessageChunk(message_id=a, content=block, sender_session_id=me)
                yield SessionMessageChunk(message_id=b, content=block, sender_session_id=me)
            """,
            """
            from collections.abc import Iterator
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def chunks(a: str, b: str, me: str) -> Iterator[SessionMessageChunk | SessionMessage]:
                yield SessionMessage(message_id=a, sender_session_id=me)
                yield SessionMessageChunk(message_id=a, content=block)
                yield SessionMessage(message_id=b, sender_session_id=me)
                yield SessionMessageChunk(message_id=b, content=block)
            """,
        )


class TestOnlyProvenSends(MigrationTest):
    """What is not provably a send of the chunk is left exactly as it was."""

    def test_a_store_is_not_a_send(self) -> None:
        [finding] = self.unchanged(
            """
            from acp_schema.v2 import SessionMessageChunk

            def keep(outbox, key, mid, me):
                outbox.set(key, SessionMessageChunk(message_id=mid, content=block, sender_session_id=me))
            """,
            warnings=[(C, 4)],
        )
        assert "`outbox.set(...)` is not known to send" in finding.message

    def test_wrapped_and_assigned_is_not_sent_here(self) -> None:
        [finding] = self.unchanged(
            """
            from acp_schema.v2 import SessionMessageChunk, UpdateSessionNotification

            async def send(conn, sid, mid, me):
                note = UpdateSessionNotification(session_id=sid, update=SessionMessageChunk(message_id=mid, content=block, sender_session_id=me))
                await conn.notify(note)
            """,
            warnings=[(C, 4)],
        )
        assert "wrapped by `UpdateSessionNotification(...)` and assigned" in finding.message

    def test_other_elements_of_a_batch_are_not_sent_twice(self) -> None:
        self.unchanged(
            """
            from acp_schema.v2 import SessionMessageChunk

            async def send(conn, sid, first, mid, me):
                await conn.send_batch(sid, [first, SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)])
            """,
            warnings=[(C, 4)],
        )

    def test_a_computed_message_id_is_not_copied(self) -> None:
        [finding] = self.unchanged(
            """
            from uuid import uuid4
            from acp_schema.v2 import SessionMessageChunk

            def send(out, me):
                out.send(SessionMessageChunk(message_id=str(uuid4()), content=block, sender_session_id=me))
            """,
            warnings=[(C, 5)],
        )
        assert "bind it to a name first" in finding.message

    def test_a_yielded_json_line_gets_a_json_upsert(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def lines(mid, me, parts):
                for part in parts:
                    yield SessionMessageChunk(message_id=mid, content=part, sender_session_id=me).model_dump_json()
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def lines(mid, me, parts):
                yield SessionMessage(message_id=mid, sender_session_id=me).model_dump_json()
                for part in parts:
                    yield SessionMessageChunk(message_id=mid, content=part).model_dump_json()
            """,
        )

    def test_the_loop_variable_as_receiver_keeps_the_upsert_in_the_loop(self) -> None:
        findings = self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            async def fan_out(peers, sid, mid, me):
                for peer in peers:
                    await peer.session_update(session_id=sid, update=SessionMessageChunk(message_id=mid, content=block, sender_session_id=me))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            async def fan_out(peers, sid, mid, me):
                for peer in peers:
                    await peer.session_update(session_id=sid, update=SessionMessage(message_id=mid, sender_session_id=me))
                    await peer.session_update(session_id=sid, update=SessionMessageChunk(message_id=mid, content=block))
            """,
            warnings=[(C, 5)],
        )
        assert "`peer.session_update` changes inside the loop" in findings[0].message

    def test_an_item_changed_through_an_alias_in_the_loop_keeps_the_upsert_in_it(
        self,
    ) -> None:
        findings = self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def run(self, mid, parts):
                r = self.route
                for part in parts:
                    r["peer"] = part
                    self.out.write(SessionMessageChunk(message_id=mid, content=part, recipient_session_id=self.route["peer"]))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def run(self, mid, parts):
                r = self.route
                for part in parts:
                    r["peer"] = part
                    self.out.write(SessionMessage(message_id=mid, recipient_session_id=self.route["peer"]))
                    self.out.write(SessionMessageChunk(message_id=mid, content=part))
            """,
            warnings=[(C, 7)],
        )
        assert "`self.route` changes inside the loop" in findings[0].message

    def test_a_module_constant_never_reassigned_does_not_block_the_hoist(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            AGENT_SESSION = "agent-1"

            def stream(out, mid, parts):
                for part in parts:
                    log(part)
                    out.send(SessionMessageChunk(message_id=mid, content=part, sender_session_id=AGENT_SESSION))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            AGENT_SESSION = "agent-1"

            def stream(out, mid, parts):
                out.send(SessionMessage(message_id=mid, sender_session_id=AGENT_SESSION))
                for part in parts:
                    log(part)
                    out.send(SessionMessageChunk(message_id=mid, content=part))
            """,
        )

    def test_a_module_name_a_function_rebinds_blocks_the_hoist(self) -> None:
        findings = self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            AGENT_SESSION = "agent-1"

            def switch():
                global AGENT_SESSION
                AGENT_SESSION = "agent-2"

            def stream(out, mid, parts):
                for part in parts:
                    switch()
                    out.send(SessionMessageChunk(message_id=mid, content=part, sender_session_id=AGENT_SESSION))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            AGENT_SESSION = "agent-1"

            def switch():
                global AGENT_SESSION
                AGENT_SESSION = "agent-2"

            def stream(out, mid, parts):
                for part in parts:
                    switch()
                    out.send(SessionMessage(message_id=mid, sender_session_id=AGENT_SESSION))
                    out.send(SessionMessageChunk(message_id=mid, content=part))
            """,
            warnings=[(C, 12)],
        )
        assert "switch(...)" in findings[0].message

    def test_a_call_in_the_loop_may_change_a_global_message_id(self) -> None:
        self.migrate(
            """
            from acp_schema.v2 import SessionMessageChunk

            def stream(out, me, parts):
                for part in parts:
                    advance()
                    out.send(SessionMessageChunk(message_id=STATE["mid"], content=part, sender_session_id=me))
            """,
            """
            from acp_schema.v2 import SessionMessage, SessionMessageChunk

            def stream(out, me, parts):
                for part in parts:
                    advance()
                    out.send(SessionMessage(message_id=STATE["mid"], sender_session_id=me))
                    out.send(SessionMessageChunk(message_id=STATE["mid"], content=part))
            """,
            warnings=[(C, 6)],
        )
