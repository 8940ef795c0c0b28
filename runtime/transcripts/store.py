"""Client-side transcripts of session messages, and the links between their two views.

`TranscriptStore` applies `session/update` notifications the way the session-message rules
ask (entries E, content C, metadata M, participants and references P, linking L): one entry
per (`params.sessionId`, `messageId`) of `session_message` / `session_message_chunk`; every
other update kind is ignored. `TranscriptStore.link` says whether an entry's two views
(outgoing in the sender's transcript, incoming in the recipient's) found each other.

Linking is decided pair by pair (docs/session-messages.md, "Links are decided pair by
pair"): two views whose references name each other are linked for good, whatever a third
view claims; a view whose reference names a view whose own reference names another stays
unlinked. It is a pure function of what the entries know, answered from two indexes that
apply keeps up to date (entries by address, and the addresses references name). What an
entry knows only grows (a participant ID or reference, once known, never changes), so the
final state does not depend on how the updates of different entries interleave.

JSON text is decoded by the fast path first (msgspec Structs, `acp_schema._fast`) and by the
models only when the Structs refuse it, which is where every error and explanation comes
from. The state is the same whichever path decoded a line; only the type of a content block
differs (the rule: `MessageEntry`; docs/session-messages.md, "Decoded types").
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeAlias

from .._fast import FastStruct
from .claims import ClaimIndex
from .decoding import _codec, decode_params, skim
from .entries import (
    IDENTITY_FIELDS,
    Address,
    ChunkRecord,
    Conflict,
    Direction,
    Link,
    LinkState,
    MessageEntry,
    Version,
)
from .errors import NotSessionUpdateError, TranscriptError, UpdateDecodeError
from .linking import LinkResolver
from .wire import wire_form

if TYPE_CHECKING:
    from acp_schema import v1, v2
    from acp_schema.v1 import fast as v1_fast
    from acp_schema.v2 import fast as v2_fast

    Notification: TypeAlias = (
        "v1.SessionNotification | v2.UpdateSessionNotification"
        " | v1_fast.SessionNotification | v2_fast.UpdateSessionNotification"
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

_SESSION_FIELDS = frozenset({"sender_session_id", "recipient_session_id"})


# --- the store ---------------------------------------------------------------------------


class TranscriptStore:
    """Session-message entries of any number of transcripts, for one protocol version.

    Feed it notifications in the order the Agent sent them with `apply`; read entries with
    `entry` / `entries` and their link state with `link`.
    """

    # JSON text is decoded by the fast path first (msgspec Structs, `acp_schema._fast`), by
    # the models when it refuses. False: the models only (tests compare the two).
    _fast_path = True

    def __init__(self, version: Version) -> None:
        if version not in ("v1", "v2"):
            raise ValueError(f"version must be 'v1' or 'v2', got {version!r}")
        self.version: Version = version
        codec = _codec(version)
        self._codec = codec
        self._fast_decode = codec.fast_decode if self._fast_path else None
        self._fast_params_type = codec.fast_params_type
        self._fast_message_type = codec.fast_message_type
        self._fast_chunk_type = codec.fast_chunk_type
        # v1 replaces `_meta` wholesale; v2 patches it by top-level key (rule M).
        self._patch_meta = version == "v2"
        # transcript -> messageId -> entry, each in first-seen order.
        self._transcripts: dict[str, dict[str, MessageEntry]] = {}
        # Every session any session/update was addressed to ("loaded" transcripts).
        self._seen: set[str] = set()
        # One string object per session ID that entries hold (each line decodes its own
        # copy; a log names a few sessions many times over).
        self._session_ids: dict[str, str] = {}
        self._claims = ClaimIndex(self._transcripts)
        self._links = LinkResolver(self._transcripts, self._seen, self._claims)

    # --- applying updates ---

    def apply(
        self, message: Notification | dict[str, Any] | str | bytes | bytearray
    ) -> MessageEntry | None:
        """Apply one notification; return the entry it touched, or None for other kinds.

        `message` is decoded notification params of this store's version (the model or
        its fast Struct), or a whole JSON-RPC `session/update` message as a dict or JSON
        text (text takes the fast path first, see the module docstring). Raises
        `UpdateDecodeError` for a session/update that does not decode and
        `NotSessionUpdateError` for any other JSON-RPC message; the store is then unchanged.
        """
        params = decode_params(self._codec, self._fast_decode, message)
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

    def apply_skimming(self, line: str | bytes) -> MessageEntry | None:
        """`apply` for a reader of whole logs: a `session/update` of another kind is
        recognised by a plain JSON parse and its `sessionUpdate` tag, and not decoded.

        Such an update is not validated beyond its envelope (`jsonrpc`, `method`, no `id`,
        a string `sessionId`, an object `update` with a string tag the version knows; v1's
        update union is closed, so an unknown tag there still decodes, and fails, in full).
        Everything else, including a session message whose tag is written with JSON
        escapes and a line that spells `NaN`, goes through `apply`, with the same errors.
        """
        session_id, message = skim(self._codec, line)
        if session_id is not None:  # another update kind: its transcript is loaded, no more
            self._seen.add(session_id)
            return None
        return self.apply(message)

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

    def release_content(self, entry: MessageEntry) -> None:
        """Let go of the content blocks and chunk records `entry` holds now, for a reader
        that is done with them (`transcript show`, once it printed the message), so that
        memory grows with what is still to be read, not with all content ever seen. From
        then on the entry holds only what comes after (`MessageEntry.released`); its
        identity, `_meta` and links are untouched."""
        entry.content.clear()  # the same list: one object less than a new one
        entry._chunk_count = 0
        entry._chunk_start = 0
        entry._chunk_history = None
        entry._chunk_metas = None
        entry.released = True
        entry.replaced_since_release = False

    # --- reading ---

    def entry(self, session_id: str, message_id: str) -> MessageEntry | None:
        """The session-message entry `message_id` of transcript `session_id`, if reported."""
        transcript = self._transcripts.get(session_id)
        return None if transcript is None else transcript.get(message_id)

    def entries(self, session_id: str) -> list[MessageEntry]:
        """The session-message entries of one transcript, in the order they were first seen."""
        return list(self._transcripts.get(session_id, {}).values())

    def transcripts(self) -> list[str]:
        """Session IDs of the transcripts holding session messages, in first-seen order."""
        return list(self._transcripts)

    def __iter__(self) -> Iterator[MessageEntry]:
        for transcript in self._transcripts.values():
            yield from transcript.values()

    def __len__(self) -> int:
        return sum(len(transcript) for transcript in self._transcripts.values())

    def is_loaded(self, session_id: str) -> bool:
        """Whether any session/update for this transcript has been applied."""
        return session_id in self._seen

    # --- linking (rule L) ---

    def link(self, session_id: str, message_id: str) -> Link | None:
        """The link state of an entry, or None if there is no such entry.

        A few dictionary lookups: the indexes are kept up to date by `apply`.
        """
        return self._links.link(session_id, message_id)


def _patched(stored: dict[str, Any] | None, patch: dict[str, Any]) -> dict[str, Any]:
    """v2 `_meta` patch: top-level keys replace, a null value deletes, no deep merge."""
    result = {} if stored is None else dict(stored)
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = value
    return result
