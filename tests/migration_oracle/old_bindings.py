"""Hand-made stand-ins for the bindings before the revision: `SessionMessageChunk` still
takes `sender_session_id` / `recipient_session_id` (and has their builders); the other
names the cases use are the current classes. Written for the oracle, not generated."""

from __future__ import annotations

import types
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from acp_schema import v1, v2
from acp_schema.v1 import _models as v1_models
from acp_schema.v2 import _models as v2_models

# Names the old bindings had and 2.1.0 renamed (the import rule reports them).
RENAMED = {"AuthCapabilities": "ClientAuthCapabilities"}


def _chunk_class(content_type: Any) -> type[BaseModel]:
    class SessionMessageChunk(BaseModel):
        model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True, frozen=True)

        session_update: Literal["session_message_chunk"] = Field(
            "session_message_chunk", alias="sessionUpdate"
        )
        message_id: str = Field(alias="messageId")
        content: content_type
        sender_session_id: str | None = Field(None, alias="senderSessionId")
        recipient_session_id: str | None = Field(None, alias="recipientSessionId")
        meta: dict[str, Any] | None = Field(None, alias="_meta")

        def with_message_id(self, value: str) -> SessionMessageChunk:
            return self.model_copy(update={"message_id": value})

        def with_content(self, value: Any) -> SessionMessageChunk:
            return self.model_copy(update={"content": value})

        def with_sender_session_id(self, value: str | None) -> SessionMessageChunk:
            return self.model_copy(update={"sender_session_id": value})

        def with_recipient_session_id(self, value: str | None) -> SessionMessageChunk:
            return self.model_copy(update={"recipient_session_id": value})

    return SessionMessageChunk


def _notification_class(name: str) -> type[BaseModel]:
    class Notification(BaseModel):
        model_config = ConfigDict(
            populate_by_name=True, serialize_by_alias=True, arbitrary_types_allowed=True
        )

        session_id: str = Field(alias="sessionId")
        update: Any

    Notification.__name__ = Notification.__qualname__ = name
    return Notification


def old_module(version: str) -> types.ModuleType:
    """A module standing in for `acp_schema.<version>` before the revision."""
    new = v1 if version == "v1" else v2
    module = types.ModuleType(f"acp_schema.{version}")
    models = v1_models if version == "v1" else v2_models  # the package is a lazy facade
    module.__dict__.update({k: v for k, v in vars(models).items() if not k.startswith("__")})
    module.SessionMessageChunk = _chunk_class(new.ContentBlock)  # type: ignore[attr-defined]
    notification = "SessionNotification" if version == "v1" else "UpdateSessionNotification"
    setattr(module, notification, _notification_class(notification))
    for old, current in RENAMED.items():
        if hasattr(new, current):
            setattr(module, old, getattr(new, current))
    return module
