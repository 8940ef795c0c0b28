"""Rule chunk-identity/import, rule selection and the bindings configuration."""

from __future__ import annotations

import pytest

from acp_schema.migrations.chunk_identity import rule_ids as rules
from acp_schema.migrations.chunk_identity.commands import ChunkImportCommand
from acp_schema.migrations.resolution.bindings import Bindings, defined_names

from .migrate_support import MigrationTest

I = rules.IMPORT  # noqa: E741 - one letter, like the other rule shorthands


class TestImports(MigrationTest):
    def test_removed_names_are_reported_with_their_new_name(self) -> None:
        source = """
            from acp_schema.v2 import AuthCapabilities, SessionMessageChunk, NoSuchThing
            from acp_schema import v2 as schema

            def caps():
                return schema.RequestPermissionOutcomeCancelled, schema.SessionMessage
            """
        findings = self.migrate(source, source, warnings=[(I, 1), (I, 1), (I, 5)])
        messages = [f.message for f in findings]
        assert any("now `ClientAuthCapabilities`" in m for m in messages)
        assert any("now `CancelledPermissionOutcome`" in m for m in messages)
        assert any("`NoSuchThing`" in m and "now" not in m for m in messages)

    def test_existing_names_and_other_modules_are_quiet(self) -> None:
        self.unchanged(
            """
            from acp_schema.v1 import SessionMessageChunk, SessionNotification
            from acp_schema.v2.methods import METHODS
            from elsewhere import AuthCapabilities
            """
        )

    def test_configured_bindings_are_checked_too(self) -> None:
        if defined_names("acp.schema") is None:
            pytest.skip("the agent-client-protocol package is not installed")
        source = "from acp.schema import NoSuchThing\n"
        self.unchanged(source)
        self.migrate(source, source, warnings=[(I, 1)], bindings=["acp"])


class TestImportCommandAlone(MigrationTest):
    TRANSFORM = ChunkImportCommand

    def test_runs_only_the_import_rule(self) -> None:
        source = """
            from acp_schema.v2 import AuthCapabilities, SessionMessageChunk

            def send(out, mid, me):
                out.put(SessionMessageChunk(message_id=mid, content=block, sender_session_id=me))
            """
        self.migrate(source, source, warnings=[(I, 1)])


def test_rule_selection() -> None:
    assert rules.select_rules() == rules.ALL_RULES
    assert rules.select_rules(["chunk-identity"]) == rules.ALL_RULES
    assert rules.select_rules(["chunk-identity/read"]) == {rules.READ}
    assert rules.select_rules(disable=["chunk-identity/read"]) == rules.ALL_RULES - {rules.READ}
    with pytest.raises(rules.UnknownRuleError, match="unknown rule 'chunk-identity/nope'"):
        rules.select_rules(["chunk-identity/nope"])


def test_bindings_match_modules_and_submodules_only() -> None:
    bindings = Bindings.with_extra(["acp"])
    assert bindings.modules == ("acp_schema.v1", "acp_schema.v2", "acp")
    assert bindings.class_module("acp.schema.SessionMessageChunk", "SessionMessageChunk")
    assert bindings.class_module("acp_schema.v2.SessionMessageChunk", "SessionMessageChunk")
    assert not bindings.class_module("acpx.SessionMessageChunk", "SessionMessageChunk")
    assert not bindings.class_module("acp_schema.v3.SessionMessageChunk", "SessionMessageChunk")
    assert not bindings.class_module("SessionMessageChunk", "SessionMessageChunk")
