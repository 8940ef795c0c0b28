"""The pre-revision models as agent forks vendor them (a pydantic copy in a namespace
package): one text for the oracle cases, the accounting trees and the module-name tests.
The oracle runs programs against it, so the chunk's content is a real model."""

VENDORED = """\
from typing import Literal

from pydantic import BaseModel


class TextContent(BaseModel):
    type: Literal["text"] = "text"
    text: str


class SessionMessage(BaseModel):
    session_update: Literal["session_message"] = "session_message"
    message_id: str
    sender_session_id: str | None = None
    recipient_session_id: str | None = None


class SessionMessageChunk(BaseModel):
    session_update: Literal["session_message_chunk"] = "session_message_chunk"
    message_id: str
    content: TextContent
    sender_session_id: str | None = None
    recipient_session_id: str | None = None
"""
