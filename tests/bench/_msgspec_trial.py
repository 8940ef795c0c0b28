"""A measured trial, not a second decoder: msgspec Structs for the v2 `session/update`
shapes of the bindings benchmark, with the pydantic bindings as the fallback.

It exists to put a figure next to the pydantic path in the same run (docs/performance.md,
"kept decode"). The Structs are hand-written for the benchmark's shapes only, are strict
(`forbid_unknown_fields`, tags closed), untracked by the cyclic collector (`gc=False`), and
anything they refuse goes to pydantic; they do not claim the bindings' semantics (no
default-on-error, no unknown keys kept, no open unions), which is why none of this ships.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec
from msgspec import UNSET, UnsetType, field

from acp_schema._runtime import AcpModel

Meta = dict[str, Any] | UnsetType


class Strict(msgspec.Struct, forbid_unknown_fields=True, gc=False, omit_defaults=True):
    pass


class TextContent(Strict, tag="text", tag_field="type"):
    text: str
    annotations: dict[str, Any] | UnsetType | None = UNSET
    meta: Meta = field(default=UNSET, name="_meta")


class _Chunk(Strict, tag_field="sessionUpdate"):
    messageId: str
    content: TextContent
    meta: Meta = field(default=UNSET, name="_meta")


class UserMessageChunk(_Chunk, tag="user_message_chunk"):
    pass


class AgentMessageChunk(_Chunk, tag="agent_message_chunk"):
    pass


class AgentThoughtChunk(_Chunk, tag="agent_thought_chunk"):
    pass


class SessionMessageChunk(_Chunk, tag="session_message_chunk"):
    pass


class AgentMessage(Strict, tag="agent_message", tag_field="sessionUpdate"):
    messageId: str
    content: list[TextContent] | UnsetType | None = UNSET
    meta: Meta = field(default=UNSET, name="_meta")


class ToolCallUpdate(Strict, tag="tool_call_update", tag_field="sessionUpdate"):
    toolCallId: str
    status: Literal["pending", "in_progress", "completed", "failed"] | UnsetType | None = UNSET
    title: str | UnsetType | None = UNSET
    meta: Meta = field(default=UNSET, name="_meta")


class SessionMessage(Strict, tag="session_message", tag_field="sessionUpdate"):
    messageId: str
    senderSessionId: str | UnsetType | None = UNSET
    recipientSessionId: str | UnsetType | None = UNSET
    senderMessageId: str | UnsetType | None = UNSET
    recipientMessageId: str | UnsetType | None = UNSET
    content: list[TextContent] | UnsetType | None = UNSET
    meta: Meta = field(default=UNSET, name="_meta")


Update = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | SessionMessageChunk
    | AgentMessage
    | ToolCallUpdate
    | SessionMessage
)


class Params(Strict):
    sessionId: str
    update: Update
    meta: Meta = field(default=UNSET, name="_meta")


class Envelope(Strict):
    jsonrpc: Literal["2.0"]
    method: Literal["session/update"]
    params: Params


def decoder(fallback: type[AcpModel]) -> Any:
    """Decode with the Structs; on anything they refuse, with the pydantic `fallback`."""
    fast = msgspec.json.Decoder(Envelope).decode
    slow = fallback.model_validate_json
    error = msgspec.ValidationError

    def decode(line: bytes) -> object:
        try:
            return fast(line)
        except error:
            return slow(line)

    return decode


encode = msgspec.json.Encoder().encode
