"""What a transcript store holds and answers with: the entries (one view of a session
message each), the chunk, conflict and link records, and the names of their types.

Plain data with no decoding in it, so that every part of the store (applying updates,
claims, linking, the command that prints them) can share it without importing another.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeAlias

from typing_extensions import NamedTuple, TypeVar  # generic NamedTuple and defaults on 3.10

if TYPE_CHECKING:
    from acp_schema import v1, v2
    from acp_schema.v1 import fast as v1_fast
    from acp_schema.v2 import fast as v2_fast

    # A model, or the fast Struct of the same name (the rule: `MessageEntry`), by version.
    V1Block: TypeAlias = "v1.ContentBlock | v1_fast.ContentBlock"
    V2Block: TypeAlias = "v2.ContentBlock | v2_fast.ContentBlock"
    ContentBlock: TypeAlias = "V1Block | V2Block"

# The content blocks a store of one version holds: `TranscriptStore("v2")` is a
# `TranscriptStore[V2Block]`, and its entries `MessageEntry[V2Block]`. Without a parameter,
# the blocks of either version. Covariant: entries and records are read, never written, by
# their users (the store owns them).
BlockT = TypeVar("BlockT", covariant=True, default="ContentBlock")

__all__ = [
    "IDENTITY_FIELDS",
    "Address",
    "BlockT",
    "ChunkRecord",
    "Conflict",
    "Direction",
    "Link",
    "LinkState",
    "MessageEntry",
    "Version",
]

Version = Literal["v1", "v2"]
Direction = Literal["outgoing", "incoming", "unknown"]
LinkState = Literal["linked", "pending", "conflict", "none"]


class Address(NamedTuple):
    """Where an entry lives: its transcript (session ID) and its message ID there."""

    session_id: str
    message_id: str

    def __str__(self) -> str:
        return f"{self.session_id}/{self.message_id}"


class ChunkRecord(NamedTuple, Generic[BlockT]):
    """One `session_message_chunk` as received: its block and its own `_meta`.

    A chunk's `_meta` belongs to the chunk alone (rule M): it is kept here and never
    reaches the entry's `meta`. `None` when the chunk had none (omitted, null, malformed).
    `content` follows the store's one rule for blocks (see `MessageEntry`): the fast
    Struct when the chunk's line took the fast path, else the model.
    """

    content: BlockT
    meta: dict[str, Any] | None


@dataclass(frozen=True)
class Conflict:
    """A later value for a known participant ID or reference, which was not applied."""

    field: str  # wire name, e.g. "recipientMessageId"
    kept: str
    rejected: str

    def __str__(self) -> str:
        return f"{self.field}: kept {self.kept!r}, ignored {self.rejected!r}"


@dataclass(frozen=True, slots=True)
class Link:
    """How an entry stands towards its counterpart view (rule L).

    - `linked`: `counterpart` is the address of the other view, which the store holds;
      `reason` is empty, or notes a participant ID that contradicts where a view sits
      (the two references name each other, which settles the link nonetheless).
    - `pending`: a reference gives the counterpart's address, but no entry is there (yet).
    - `conflict`: this view cannot be linked by its reference, or not yet (rival claims
      on a view without a reference of its own); `reason` says why.
    - `none`: no usable reference yet; `reason` says what is missing, if anything.
    """

    state: LinkState
    counterpart: Address | None = None
    reason: str = ""

    def __str__(self) -> str:
        if self.state == "linked":
            note = f" (despite {self.reason})" if self.reason else ""
            return f"linked with {self.counterpart}{note}"
        if self.state == "pending":
            return f"pending: {self.counterpart} ({self.reason})"
        if self.state == "conflict":
            return f"unlinked, conflict: {self.reason}"
        return f"no reference yet ({self.reason})" if self.reason else "no reference yet"


# Entry attribute -> wire name, for participant IDs and references (rule P).
IDENTITY_FIELDS: tuple[tuple[str, str], ...] = (
    ("sender_session_id", "senderSessionId"),
    ("recipient_session_id", "recipientSessionId"),
    ("sender_message_id", "senderMessageId"),
    ("recipient_message_id", "recipientMessageId"),
)


class MessageEntry(Generic[BlockT]):
    """One session message as a transcript shows it (one view of a communication).

    Read it, do not change it: the store owns it and updates it in place. `content` is the
    list of content blocks (empty when none or cleared) and `meta` the entry's `_meta`.
    The four identity attributes are `None` until a concrete value arrives (rule P).

    The one rule for blocks: a block is the `acp_schema.vN.fast` Struct (`TextContent`,
    `ResourceLink`, ...) when the update that brought it took the fast path (a line msgspec
    decodes exactly, `acp_schema._fast`), else the model of the same class name; one
    entry's list may hold both. Both have the same attribute names and values (read the
    tag as `block.type` either way; an omitted field is `msgspec.UNSET` on a Struct,
    `MISSING` on a model); `to_model()` gives a Struct's model. `meta`, the identity
    attributes and chunk `_meta`s are plain values whichever path decoded the line.

    After `TranscriptStore.release_content(entry)` (a reader that is done with the content
    so far), `released` is True and `content` and `chunks` hold only what came after the
    last release: the chunks appended since, or, when `replaced_since_release` is True, the
    whole content of a snapshot that arrived since (the chunks are still only those since).
    """

    __slots__ = (
        "_cached",
        "_chunk_count",
        "_chunk_history",
        "_chunk_metas",
        "_chunk_start",
        "_claims_incoming",
        "_claims_outgoing",
        "_conflicts",
        "_key",
        "_named",
        "_version",
        "content",
        "message_id",
        "meta",
        "recipient_message_id",
        "recipient_session_id",
        "released",
        "replaced_since_release",
        "sender_message_id",
        "sender_session_id",
        "session_id",
    )

    def __init__(self, session_id: str, message_id: str) -> None:
        self.session_id = session_id
        self.message_id = message_id
        self._key = (session_id, message_id)  # a plain tuple: the collector skips those
        self.sender_session_id: str | None = None
        self.recipient_session_id: str | None = None
        self.sender_message_id: str | None = None
        self.recipient_message_id: str | None = None
        self.content: list[BlockT] = []
        self.meta: dict[str, Any] | None = None
        self.released = False
        self.replaced_since_release = False
        # Store-internal. The chunk history costs no object per chunk, and no list at all
        # until a snapshot replaces the content: until then it is the slice
        # content[_chunk_start:_chunk_start + _chunk_count]. The few chunk `_meta`s are
        # kept by chunk number. (Fewer live objects: less work for the garbage collector.)
        self._chunk_count = 0
        self._chunk_start = 0
        self._chunk_history: list[BlockT] | None = None
        self._chunk_metas: dict[int, dict[str, Any]] | None = None
        self._conflicts: list[Conflict] | None = None
        self._claims_outgoing = False  # the claims index holds (recipient, recipientMessageId)
        self._claims_incoming = False  # the claims index holds (sender, senderMessageId)
        self._named: tuple[str, str] | None = None  # the first address it claimed
        # Bumped when this entry learns an identity value or a reference starts naming it:
        # all a `linked` answer depends on, besides the same of its counterpart.
        self._version = 0
        # The last `linked` answer: (link, _version then, the partner, its _version then).
        # One slot, filled only once asked: most entries are never asked while a log is
        # read.
        self._cached: tuple[Link, int, MessageEntry[Any], int] | None = None

    @property
    def address(self) -> Address:
        return Address(self.session_id, self.message_id)

    @property
    def chunks(self) -> list[ChunkRecord[BlockT]]:
        """Every chunk received for this entry, in order, each with its own `_meta`."""
        history = self._chunk_history
        if history is None:
            history = self.content[self._chunk_start : self._chunk_start + self._chunk_count]
        metas = self._chunk_metas or {}
        return [ChunkRecord(block, metas.get(n)) for n, block in enumerate(history)]

    @property
    def conflicts(self) -> list[Conflict]:
        """Participant or reference values that differed from the known one (not applied)."""
        return list(self._conflicts or ())

    @property
    def direction(self) -> Direction:
        """`outgoing` in the sender's transcript, `incoming` in the recipient's."""
        here = self.session_id
        sender = self.sender_session_id == here
        recipient = self.recipient_session_id == here
        if sender and not recipient:
            return "outgoing"
        if recipient and not sender:
            return "incoming"
        if sender:  # a session writing to itself: the reference it carries tells the view
            return _role(self) or "unknown"
        return "unknown"

    def __repr__(self) -> str:
        known = "".join(
            f", {attr}={getattr(self, attr)!r}"
            for attr, _ in IDENTITY_FIELDS
            if getattr(self, attr) is not None
        )
        return (
            f"MessageEntry({self.session_id!r}, {self.message_id!r}{known}, "
            f"{len(self.content)} block(s))"
        )


def _role(entry: MessageEntry[Any]) -> Literal["outgoing", "incoming"] | None:
    """The view an entry says it is by the one reference it carries (rule L1)."""
    outgoing = entry.recipient_message_id is not None
    if outgoing == (entry.sender_message_id is not None):
        return None
    return "outgoing" if outgoing else "incoming"
