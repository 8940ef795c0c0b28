"""Client-side transcripts of session messages and the links between their two views.

The store lives in `store`; `acp-schema transcript show` in `cli`. Import from here.
"""

from .store import (
    Address,
    ChunkRecord,
    Conflict,
    Direction,
    Link,
    LinkState,
    MessageEntry,
    NotSessionUpdateError,
    TranscriptError,
    TranscriptStore,
    UpdateDecodeError,
    Version,
    wire_form,
)

__all__ = [
    "Address",
    "ChunkRecord",
    "Conflict",
    "Direction",
    "Link",
    "LinkState",
    "MessageEntry",
    "NotSessionUpdateError",
    "TranscriptError",
    "TranscriptStore",
    "UpdateDecodeError",
    "Version",
    "wire_form",
]
