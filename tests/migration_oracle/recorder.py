"""The recording connection the oracle's programs send through, and the comparison of two
recordings (old code on old bindings, migrated code on the current bindings)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from acp_schema.transcripts import TranscriptStore

IDENTITY_KEYS = ("senderSessionId", "recipientSessionId")
SNAKE = {
    "session_update": "sessionUpdate",
    "message_id": "messageId",
    "sender_session_id": "senderSessionId",
    "recipient_session_id": "recipientSessionId",
    "sender_message_id": "senderMessageId",
    "recipient_message_id": "recipientMessageId",
    "session_id": "sessionId",
    "meta": "_meta",
}
CHUNK, MESSAGE = "session_message_chunk", "session_message"


def to_wire(value: Any) -> Any:
    """A sent value as JSON data (models by alias, snake-case keys of a `model_dump()` made
    camel-case, None-valued keys dropped: null never said anything)."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", by_alias=True)
    if isinstance(value, dict):
        return {SNAKE.get(k, k): to_wire(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [to_wire(v) for v in value]
    return value


@dataclass
class Event:
    kind: str  # "update", "log", "error"
    session_id: str | None = None
    update: Any = None
    shape: str = ""  # how the update was handed over: model, dict, json

    def key(self) -> tuple[Any, ...]:
        update = json.dumps(self.update, sort_keys=True) if self.update is not None else None
        return (self.kind, self.session_id, update, self.shape)


def _shape(update: Any) -> str:
    if isinstance(update, BaseModel):
        return "model"
    if isinstance(update, str):
        return "json"
    if isinstance(update, dict):
        return "dict"
    raise TypeError(f"cannot send a {type(update).__name__}")


class Channel:
    """A sink bound to one session: `send(update)` (model or dict) and `write(line)` (a JSON
    text, as a line-oriented transport takes it)."""

    def __init__(self, recorder: Recorder, session_id: str) -> None:
        self.recorder = recorder
        self.session_id = session_id

    def send(self, update: Any) -> None:
        self.recorder.record(self.session_id, update, _shape(update))

    def write(self, line: str) -> None:
        if not isinstance(line, str):
            raise TypeError(f"write() takes a JSON line, not {type(line).__name__}")
        self.recorder.record(self.session_id, json.loads(line), "json")

    def put(self, update: Any) -> None:
        self.send(update)


class Recorder(Channel):
    """A fake Client connection that records every notification it is handed."""

    def __init__(self, session_id: str = "s-main") -> None:
        self.events: list[Event] = []
        super().__init__(self, session_id)

    def record(self, session_id: str, update: Any, shape: str) -> None:
        wire = to_wire(update)
        if not isinstance(wire, dict) or "sessionUpdate" not in wire:
            raise TypeError(f"not a session update: {wire!r}")
        self.events.append(Event("update", session_id, wire, shape))

    def channel(self, session_id: str) -> Channel:
        return Channel(self, session_id)

    async def session_update(self, session_id: str, update: Any) -> None:
        self.record(session_id, update, _shape(update))

    async def notify(self, notification: Any) -> None:
        """A whole notification (model, dict or JSON text) with sessionId and update."""
        shape = _shape(notification)
        wire = to_wire(json.loads(notification) if shape == "json" else notification)
        self.record(wire["sessionId"], wire["update"], shape)

    async def send_batch(self, session_id: str, updates: list[Any]) -> None:
        for update in updates:
            self.record(session_id, update, _shape(update))

    def log(self, *args: Any) -> None:
        self.events.append(Event("log", update=[repr(a) for a in args]))

    def error(self, err: BaseException) -> None:
        self.events.append(Event("error", update=f"{type(err).__name__}: {err}"))


# --- comparing two recordings --------------------------------------------------------------


def _metadata_only(update: dict[str, Any]) -> bool:
    return update.get("sessionUpdate") == MESSAGE and set(update) <= {
        "sessionUpdate",
        "messageId",
        *IDENTITY_KEYS,
    }


def _visible(events: list[Event]) -> list[tuple[Any, ...]]:
    """Everything sent except participant IDs: chunks without them, metadata-only
    upserts left out (those are what the migration adds)."""
    out = []
    for event in events:
        if event.kind == "update":
            update = event.update
            if _metadata_only(update):
                continue
            if update.get("sessionUpdate") == CHUNK:
                update = {k: v for k, v in update.items() if k not in IDENTITY_KEYS}
            event = Event(event.kind, event.session_id, update, event.shape)
        out.append(event.key())
    return out


@dataclass
class Transcripts:
    """Replayed entries: final participants and content, and what was known at each chunk."""

    entries: dict[tuple[str, str], tuple[Any, ...]] = field(default_factory=dict)
    at_chunks: dict[tuple[str, str], list[tuple[str | None, str | None]]] = field(
        default_factory=dict
    )


def replay(events: list[Event], *, old: bool) -> Transcripts:
    """Feed the updates into a TranscriptStore. For the old run, a chunk's participant IDs
    count as the old Clients took them: as if upserted just before the chunk."""
    store = TranscriptStore("v2")
    found = Transcripts()
    for event in events:
        if event.kind != "update":
            continue
        update = dict(event.update)
        is_chunk = update.get("sessionUpdate") == CHUNK
        if old and is_chunk and any(k in update for k in IDENTITY_KEYS):
            store.apply(_envelope(event.session_id, _identity_upsert(update)))
        entry = store.apply(_envelope(event.session_id, update))
        if is_chunk and entry is not None:
            known = (entry.sender_session_id, entry.recipient_session_id)
            found.at_chunks.setdefault(tuple(entry.address), []).append(known)
    for entry in store:
        content = [block.model_dump(mode="json", by_alias=True) for block in entry.content]
        found.entries[tuple(entry.address)] = (
            entry.sender_session_id,
            entry.recipient_session_id,
            json.dumps(content, sort_keys=True),
        )
    return found


def _identity_upsert(chunk: dict[str, Any]) -> dict[str, Any]:
    upsert = {"sessionUpdate": MESSAGE, "messageId": chunk["messageId"]}
    upsert.update({k: chunk[k] for k in IDENTITY_KEYS if k in chunk})
    return upsert


def _envelope(session_id: str | None, update: dict[str, Any]) -> dict[str, Any]:
    params = {"sessionId": session_id, "update": update}
    return {"jsonrpc": "2.0", "method": "session/update", "params": params}


def differences(old: list[Event], new: list[Event]) -> list[str]:
    """How the migrated run differs from the old one (empty when equivalent)."""
    problems: list[str] = []
    old_seen, new_seen = _visible(old), _visible(new)
    if old_seen != new_seen:
        problems.append(f"what was sent differs:\n  old {old_seen}\n  new {new_seen}")
    before, after = replay(old, old=True), replay(new, old=False)
    if before.entries != after.entries:
        problems.append(f"entries differ:\n  old {before.entries}\n  new {after.entries}")
    for address, known_then in before.at_chunks.items():
        known_now = after.at_chunks.get(address, [])
        if len(known_now) != len(known_then):
            continue  # reported above
        for number, (then, now) in enumerate(zip(known_then, known_now, strict=True)):
            for old_value, new_value in zip(then, now, strict=True):
                if old_value is not None and new_value != old_value:
                    problems.append(
                        f"{address} chunk {number}: participants {now}, old code had {then}"
                    )
    if not any(before.at_chunks.values()):
        problems.append("the old program sent no chunk: the case tests nothing")
    elif not any(value is not None for e in before.entries.values() for value in e[:2]):
        problems.append("the old program sent no participant ID: the case tests nothing")
    return problems
