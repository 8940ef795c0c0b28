"""Applying decoded updates to entries: a `session_message` upsert patches one entry
(content C, metadata M, participant IDs and references P), a chunk appends to one
(creating either, rule E), and a reader may release the content it is done with.

Where the chunk history of an entry lives (a slice of its content, or a list of its own
once a snapshot replaced the content) is known here only, besides `MessageEntry.chunks`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._fast import FastStruct
from .claims import ClaimIndex
from .entries import IDENTITY_FIELDS, Conflict, MessageEntry

if TYPE_CHECKING:
    from .decoding import _Codec

__all__ = ["UpdateApplier"]

_SESSION_FIELDS = frozenset({"sender_session_id", "recipient_session_id"})


class UpdateApplier:
    """Applies the decoded params of one protocol version to the store's entries."""

    __slots__ = (
        "_claims",
        "_codec",
        "_fast_chunk_type",
        "_fast_message_type",
        "_patch_meta",
        "_seen",
        "_session_ids",
        "_transcripts",
    )

    def __init__(
        self,
        codec: _Codec,
        transcripts: dict[str, dict[str, MessageEntry]],
        seen: set[str],
        claims: ClaimIndex,
    ) -> None:
        self._codec = codec
        self._fast_message_type = codec.fast_message_type
        self._fast_chunk_type = codec.fast_chunk_type
        # v1 replaces `_meta` wholesale; v2 patches it by top-level key (rule M).
        self._patch_meta = codec.version == "v2"
        # The store's own tables (shared, not copied), which this fills.
        self._transcripts = transcripts
        self._seen = seen
        self._claims = claims
        # One string object per session ID that entries hold (each line decodes its own
        # copy; a log names a few sessions many times over).
        self._session_ids: dict[str, str] = {}

    def apply(self, params: Any) -> MessageEntry | None:
        """Apply decoded notification params; the entry touched, or None for other kinds."""
        update = params.update
        kind = update.__class__
        if kind is self._fast_chunk_type:
            return self._append(params.session_id, update)
        if kind is self._fast_message_type:
            return self._upsert(params.session_id, update)
        if not isinstance(update, FastStruct):  # decoded by the models, so they are loaded
            models = self._codec.models
            if kind is models.chunk_type:
                return self._append(params.session_id, update)
            if kind is models.message_type:
                return self._upsert(params.session_id, update)
        self._seen.add(params.session_id)
        return None

    def _entry_for(self, session_id: str, message_id: str) -> MessageEntry:
        transcript = self._transcripts.get(session_id)
        if transcript is None:
            transcript = self._transcripts[session_id] = {}
            self._seen.add(session_id)
        entry = transcript.get(message_id)
        if entry is None:  # rule E: either kind creates an empty entry
            session_id = self._session_ids.setdefault(session_id, session_id)
            entry = transcript[message_id] = MessageEntry(session_id, message_id)
        return entry

    def _append(self, session_id: str, chunk: Any) -> MessageEntry:
        entry = self._entry_for(session_id, chunk.message_id)
        block = chunk.content
        content = entry.content
        number = entry._chunk_count
        if entry._chunk_history is not None:
            entry._chunk_history.append(block)
        elif number == 0:
            entry._chunk_start = len(content)
        content.append(block)
        entry._chunk_count = number + 1
        meta = chunk.meta
        if meta.__class__ is dict:  # omitted, null or malformed: the chunk has none
            if entry._chunk_metas is None:
                entry._chunk_metas = {number: meta}
            else:
                entry._chunk_metas[number] = meta
        return entry

    def _upsert(self, session_id: str, update: Any) -> MessageEntry:
        entry = self._entry_for(session_id, update.message_id)

        # Rule C. v1 says null or [] clears and a non-empty array replaces; v2 says null
        # clears and any array replaces. Both end in the same state: cleared content is
        # an empty list. A malformed value was decoded as MISSING, i.e. omitted (a Struct
        # refuses malformed values; its omitted is UNSET).
        content = update.content
        if content is None or isinstance(content, list):  # not MISSING (model) or UNSET
            if entry._chunk_history is None and entry._chunk_count:
                # The chunk history leaves the content it was a slice of.
                start, old = entry._chunk_start, entry.content
                whole = start == 0 and len(old) == entry._chunk_count
                entry._chunk_history = old if whole else old[start : start + entry._chunk_count]
            entry.content = [] if content is None else list(content)
            entry.replaced_since_release = entry.released

        # Rule M: null clears; an object replaces (v1) or patches top-level keys (v2).
        meta = update.meta
        if meta is None:
            entry.meta = None
        elif isinstance(meta, dict):
            entry.meta = _patched(entry.meta, meta) if self._patch_meta else dict(meta)

        # Rule P: only a string is a supplied value (MISSING, null, malformed are not); the
        # first one sticks and a different later one is recorded, never applied.
        learned = False
        for attr, wire in IDENTITY_FIELDS:
            value = getattr(update, attr)
            if value.__class__ is not str:
                continue
            known = getattr(entry, attr)
            if known is None:
                if attr in _SESSION_FIELDS:
                    value = self._session_ids.setdefault(value, value)
                setattr(entry, attr, value)
                learned = True
            elif known != value:
                conflict = Conflict(wire, known, value)
                if entry._conflicts is None:
                    entry._conflicts = [conflict]
                elif conflict not in entry._conflicts:
                    entry._conflicts.append(conflict)
        if learned:
            entry._version += 1
            self._claims.index(entry)
        return entry

    @staticmethod
    def release(entry: MessageEntry) -> None:
        """`TranscriptStore.release_content`: the entry keeps only what comes after."""
        entry.content.clear()  # the same list: one object less than a new one
        entry._chunk_count = 0
        entry._chunk_start = 0
        entry._chunk_history = None
        entry._chunk_metas = None
        entry.released = True
        entry.replaced_since_release = False


def _patched(stored: dict[str, Any] | None, patch: dict[str, Any]) -> dict[str, Any]:
    """v2 `_meta` patch: top-level keys replace, a null value deletes, no deep merge."""
    result = {} if stored is None else dict(stored)
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = value
    return result
