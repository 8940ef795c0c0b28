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

`TranscriptStore` is a facade over parts in modules of their own: what it holds
(`entries`), decoding and skimming (`decoding`), applying updates (`applier`), the claims
index (`claims`), link answers (`linking`) and their problem texts (`problems`), and the
JSON form of content blocks (`wire`). Every name this module exported before the split
still imports from here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeAlias, cast, overload

from .applier import UpdateApplier
from .claims import ClaimIndex
from .decoding import _codec, decode_params, skim
from .entries import IDENTITY_FIELDS as IDENTITY_FIELDS  # public here before the split
from .entries import (
    Address,
    BlockT,
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

    from .entries import ContentBlock, V1Block, V2Block

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


class TranscriptStore(Generic[BlockT]):
    """Session-message entries of any number of transcripts, for one protocol version.

    Feed it notifications in the order the Agent sent them with `apply`; read entries with
    `entry` / `entries` and their link state with `link`.

    Typed by its version: `TranscriptStore("v2")` is a `TranscriptStore[V2Block]`, whose
    entries hold v2 content blocks (the model or its fast Struct, see `MessageEntry`); a
    version only known at run time gives the blocks of either version.
    """

    # JSON text is decoded by the fast path first (msgspec Structs, `acp_schema._fast`), by
    # the models when it refuses. False: the models only (tests compare the two).
    _fast_path = True

    @overload
    def __init__(self: TranscriptStore[V1Block], version: Literal["v1"]) -> None: ...
    @overload
    def __init__(self: TranscriptStore[V2Block], version: Literal["v2"]) -> None: ...
    @overload
    def __init__(self: TranscriptStore[ContentBlock], version: Version) -> None: ...
    def __init__(self, version: Version) -> None:
        if version not in ("v1", "v2"):
            raise ValueError(f"version must be 'v1' or 'v2', got {version!r}")
        self.version: Version = version
        codec = _codec(version)
        self._codec = codec
        # Read at each `apply`: None (set on the class or an instance) means the models only.
        self._fast_decode = codec.fast_decode if self._fast_path else None
        # transcript -> messageId -> entry, each in first-seen order; shared with the parts
        # below, which fill it (the applier) and read it.
        self._transcripts: dict[str, dict[str, MessageEntry[Any]]] = {}
        # Every session any session/update was addressed to ("loaded" transcripts).
        self._seen: set[str] = set()
        claims = ClaimIndex(self._transcripts)
        self._applier = UpdateApplier(codec, self._transcripts, self._seen, claims)
        self._links = LinkResolver(self._transcripts, self._seen, claims)

    # --- applying updates ---

    def apply(
        self, message: Notification | dict[str, Any] | str | bytes | bytearray
    ) -> MessageEntry[BlockT] | None:
        """Apply one notification; return the entry it touched, or None for other kinds.

        `message` is decoded notification params of this store's version (the model or
        its fast Struct), or a whole JSON-RPC `session/update` message as a dict or JSON
        text (text takes the fast path first, see the module docstring). Raises
        `UpdateDecodeError` for a session/update that does not decode and
        `NotSessionUpdateError` for any other JSON-RPC message; the store is then unchanged.
        """
        params = decode_params(self._codec, self._fast_decode, message)
        return cast("MessageEntry[BlockT] | None", self._applier.apply(params))

    def apply_skimming(self, line: str | bytes) -> MessageEntry[BlockT] | None:
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

    def release_content(self, entry: MessageEntry[Any]) -> None:
        """Let go of the content blocks and chunk records `entry` holds now, for a reader
        that is done with them (`transcript show`, once it printed the message), so that
        memory grows with what is still to be read, not with all content ever seen. From
        then on the entry holds only what comes after (`MessageEntry.released`); its
        identity, `_meta` and links are untouched."""
        self._applier.release(entry)

    # --- reading ---

    def entry(self, session_id: str, message_id: str) -> MessageEntry[BlockT] | None:
        """The session-message entry `message_id` of transcript `session_id`, if reported."""
        transcript = self._transcripts.get(session_id)
        return None if transcript is None else transcript.get(message_id)

    def entries(self, session_id: str) -> list[MessageEntry[BlockT]]:
        """The session-message entries of one transcript, in the order they were first seen."""
        return list(self._transcripts.get(session_id, {}).values())

    def transcripts(self) -> list[str]:
        """Session IDs of the transcripts holding session messages, in first-seen order."""
        return list(self._transcripts)

    def __iter__(self) -> Iterator[MessageEntry[BlockT]]:
        for transcript in self._transcripts.values():
            yield from transcript.values()

    def __len__(self) -> int:
        return sum(len(transcript) for transcript in self._transcripts.values())

    def is_loaded(self, session_id: str) -> bool:
        """Whether any session/update for this transcript has been applied."""
        return session_id in self._seen

    def link(self, session_id: str, message_id: str) -> Link | None:
        """The link state of an entry, or None if there is no such entry.

        A few dictionary lookups: the indexes are kept up to date by `apply`.
        """
        return self._links.link(session_id, message_id)
