"""Downstream code written against the 2.0.0 v2 bindings (vendored as `acpbind.v2`).

One probe per use of an API-breaking change of 2.0.0 -> 2.1.0, with a look-alike that
the upgrade does not touch. Imports sit inside the probes so each one runs on its own.
"""

from __future__ import annotations


class AuthCapabilities:  # the application's own class of that name
    terminal = True


def probe_removed_class() -> None:
    from acpbind.v2 import AuthCapabilities  # breaks

    AuthCapabilities(terminal=True)  # breaks


def probe_own_class_of_removed_name() -> None:
    caps = AuthCapabilities()  # not listed
    assert caps.terminal  # not listed


def probe_removed_variant_class() -> None:
    from acpbind.v2 import RequestPermissionOutcomeCancelled  # breaks

    RequestPermissionOutcomeCancelled()  # breaks


def probe_kept_variant() -> None:
    from acpbind.v2 import SelectedPermissionOutcome  # not listed

    SelectedPermissionOutcome(option_id="allow")  # not listed


def probe_bound_literal_violated() -> None:
    from acpbind.v2 import ToolCallLocation

    # The field decodes leniently (default-on-error): the value is dropped, no error.
    ToolCallLocation(path="/src/a.py", line=0)  # listed


def probe_bound_literal_kept() -> None:
    from acpbind.v2 import ToolCallLocation

    location = ToolCallLocation(path="/src/a.py", line=7)  # not listed
    assert location.line == 7  # not listed


def probe_bound_value_not_shown() -> None:
    from acpbind.v2 import ToolCallLocation

    first = int("3")
    ToolCallLocation(path="/src/a.py", line=first)  # listed


def probe_size_bound() -> None:
    from acpbind.v2 import ResourceLink

    # The field decodes leniently (default-on-error): the value is dropped, no error.
    ResourceLink(name="log", uri="file:///log", size=-1)  # listed


def probe_size_kept() -> None:
    from acpbind.v2 import ResourceLink

    ResourceLink(name="log", uri="file:///log", size=10)  # not listed


def probe_chunk_identity_keyword() -> None:
    from acpbind.v2 import SessionMessageChunk, TextContent

    text = TextContent(text="hi")
    SessionMessageChunk(message_id="m1", content=text, sender_session_id="s1")  # breaks


def probe_chunk_identity_keyword_on_several_lines() -> None:
    from acpbind.v2 import SessionMessageChunk, TextContent

    SessionMessageChunk(
        message_id="m1",
        content=TextContent(text="hi"),
        recipient_session_id="r1",  # breaks
    )


def probe_chunk_identity_read() -> None:
    from acpbind.v2 import SessionMessageChunk, TextContent

    chunk = SessionMessageChunk(message_id="m1", content=TextContent(text="hi"))
    print(chunk.recipient_session_id)  # breaks


def probe_chunk_identity_builder() -> None:
    from acpbind.v2 import SessionMessageChunk, TextContent

    chunk = SessionMessageChunk(message_id="m1", content=TextContent(text="hi"))
    chunk.with_sender_session_id("s1")  # breaks


def probe_message_keeps_identity() -> None:
    from acpbind.v2 import SessionMessage

    message = SessionMessage(message_id="m1", sender_session_id="s1")  # not listed
    assert message.sender_session_id == "s1"  # not listed


def probe_chunk_identity_on_the_wire() -> None:
    from acpbind.v2 import SessionMessageChunk

    raw = {"sessionUpdate": "session_message_chunk", "senderSessionId": "s1"}  # listed
    raw["messageId"] = "m1"
    raw["content"] = {"type": "text", "text": "hi"}
    SessionMessageChunk.model_validate(raw)


def probe_message_on_the_wire() -> None:
    raw = {
        "sessionUpdate": "session_message",
        "messageId": "m1",
        "senderSessionId": "s1",
    }  # not listed
    assert raw


def probe_class_became_union() -> None:
    from acpbind.v2 import AvailableCommand

    AvailableCommand(name="test", description="run the tests")  # breaks


def probe_union_in_annotation() -> None:
    from acpbind.v2 import AvailableCommand

    commands: list[AvailableCommand] = []  # not listed
    assert commands == []


def probe_other_variant_lost_field() -> None:
    from acpbind.v2 import AuthMethodOther

    method = AuthMethodOther(type="oauth", method_id="m", name="OAuth")
    print(method.description)  # listed


def probe_agent_variant_keeps_field() -> None:
    from acpbind.v2 import AuthMethodAgent

    method = AuthMethodAgent(method_id="m", name="Agent", description="by the agent")
    print(method.description)  # not listed


def probe_other_variant_keyword() -> None:
    from acpbind.v2 import AuthMethodOther

    AuthMethodOther(type="oauth", method_id="m", name="OAuth", description="d")  # listed


def probe_null_request_id() -> None:
    from acpbind.v2 import AgentResponseError, Error

    AgentResponseError(id=None, error=Error(code=-32603, message="internal"))  # breaks


def probe_request_id_kept() -> None:
    from acpbind.v2 import AgentResponseError, Error

    AgentResponseError(id=1, error=Error(code=-32603, message="internal"))  # not listed


def probe_client_capabilities_auth() -> None:
    from acpbind.v2 import ClientCapabilities

    settings = {"terminal": True}
    ClientCapabilities(auth=settings)  # listed


def probe_client_capabilities_without_auth() -> None:
    from acpbind.v2 import ClientCapabilities

    ClientCapabilities()  # not listed
