"""The errors `TranscriptStore.apply` raises, and what tells a `session/update` from other
JSON-RPC messages.

A module of its own, without pydantic, so that both the store (which imports the models
only when a line needs them) and its model path (`_model_path`) can use it.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "METHOD",
    "NOT_A_REQUEST",
    "TOO_DEEP",
    "NotSessionUpdateError",
    "TranscriptError",
    "UpdateDecodeError",
    "envelope_problem",
]

METHOD = "session/update"
NOT_A_REQUEST = f"{METHOD} is a notification, but this message has an `id`"
# The bindings decode any depth the interpreter can hold (deeper than pydantic-core's own
# parser goes); deeper input is refused with this message.
TOO_DEEP = "invalid JSON: nested too deeply to decode"


class TranscriptError(Exception):
    """Base of the errors `TranscriptStore.apply` raises; the store is unchanged by them."""


class UpdateDecodeError(TranscriptError, ValueError):
    """The input is meant as a `session/update` notification but does not decode.

    Invalid JSON, not a JSON-RPC 2.0 message object, or notification params that fail
    the bindings (e.g. a missing `messageId`). The pydantic error, if any, is `__cause__`.
    """


class NotSessionUpdateError(TranscriptError):
    """A well-formed JSON-RPC message that is not a `session/update` notification."""


def envelope_problem(data: Any) -> TranscriptError | None:
    """Why decoded JSON is not a `session/update` notification at all, if it is not."""
    if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
        return UpdateDecodeError("not a JSON-RPC 2.0 message object")
    if "method" not in data:
        return NotSessionUpdateError("a JSON-RPC response, not a notification")
    if data["method"] != METHOD:
        return NotSessionUpdateError(f"method {data['method']!r}, not {METHOD!r}")
    return None
