"""Client-side transcripts of session messages, and the links between their two views.

`TranscriptStore` applies `session/update` notifications the way the session-message rules
ask (entries E, content C, metadata M, participants and references P, linking L): one entry
per (`params.sessionId`, `messageId`) of `session_message` / `session_message_chunk`; every
other update kind is ignored. `TranscriptStore.link` says whether an entry's two views
(outgoing in the sender's transcript, incoming in the recipient's) found each other.

Linking is a pure function of what the entries know. Everything an entry knows only grows
(a participant ID or reference, once known, never changes), so a conflict, once seen, stays,
and the final state does not depend on how the updates of different entries interleave.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Literal, NamedTuple, TypeAlias, TypeVar

from pydantic import MISSING, BaseModel, ConfigDict, ValidationError

if TYPE_CHECKING:
    from acp_schema import v1, v2

    ContentBlock: TypeAlias = "v1.ContentBlock | v2.ContentBlock"
    Notification: TypeAlias = "v1.SessionNotification | v2.UpdateSessionNotification"

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
]

Version = Literal["v1", "v2"]
Direction = Literal["outgoing", "incoming", "unknown"]
LinkState = Literal["linked", "pending", "conflict", "none"]

METHOD = "session/update"


# --- errors ------------------------------------------------------------------------------


class TranscriptError(Exception):
    """Base of the errors `TranscriptStore.apply` raises; the store is unchanged by them."""


class UpdateDecodeError(TranscriptError, ValueError):
    """The input is meant as a `session/update` notification but does not decode.

    Invalid JSON, not a JSON-RPC 2.0 message object, or notification params that fail
    the bindings (e.g. a missing `messageId`). The pydantic error, if any, is `__cause__`.
    """


class NotSessionUpdateError(TranscriptError):
    """A well-formed JSON-RPC message that is not a `session/update` notification."""


# --- what the store holds ----------------------------------------------------------------


class Address(NamedTuple):
    """Where an entry lives: its transcript (session ID) and its message ID there."""

    session_id: str
    message_id: str

    def __str__(self) -> str:
        return f"{self.session_id}/{self.message_id}"


class ChunkRecord(NamedTuple):
    """One `session_message_chunk` as received: its block and its own `_meta`.

    A chunk's `_meta` belongs to the chunk alone (rule M), so it is kept here and never
    reaches the entry's `meta`.
    """

    content: ContentBlock
    meta: dict[str, Any] | None


@dataclass(frozen=True)
class Conflict:
    """A later value for a known participant ID or reference, which was not applied."""

    field: str  # wire name, e.g. "recipientMessageId"
    kept: str
    rejected: str

    def __str__(self) -> str:
        return f"{self.field}: kept {self.kept!r}, ignored {self.rejected!r}"


# Entry attribute -> wire name, for participant IDs and references (rule P).
IDENTITY_FIELDS: tuple[tuple[str, str], ...] = (
    ("sender_session_id", "senderSessionId"),
    ("recipient_session_id", "recipientSessionId"),
    ("sender_message_id", "senderMessageId"),
    ("recipient_message_id", "recipientMessageId"),
)


class MessageEntry:
    """One session message as a transcript shows it (one view of a communication).

    Read it, do not change it: the store owns it and updates it in place. `content` is the
    list of content blocks (empty when none or cleared), `meta` the entry's `_meta`,
    `chunks` every chunk received with its own `_meta`, `conflicts` the participant or
    reference values that arrived after a different one was known.
    """

    __slots__ = (
        "_claims_incoming",
        "_claims_outgoing",
        "chunks",
        "conflicts",
        "content",
        "message_id",
        "meta",
        "recipient_message_id",
        "recipient_session_id",
        "sender_message_id",
        "sender_session_id",
        "session_id",
    )

    def __init__(self, session_id: str, message_id: str) -> None:
        self.session_id = session_id
        self.message_id = message_id
        self.sender_session_id: str | None = None
        self.recipient_session_id: str | None = None
        self.sender_message_id: str | None = None
        self.recipient_message_id: str | None = None
        self.content: list[ContentBlock] = []
        self.meta: dict[str, Any] | None = None
        self.chunks: list[ChunkRecord] = []
        self.conflicts: list[Conflict] = []
        # Whether the claims index already holds this entry's reference (store-internal).
        self._claims_outgoing = False
        self._claims_incoming = False

    @property
    def address(self) -> Address:
        return Address(self.session_id, self.message_id)

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
        known = ", ".join(
            f"{attr}={getattr(self, attr)!r}"
            for attr, _ in IDENTITY_FIELDS
            if getattr(self, attr) is not None
        )
        return (
            f"MessageEntry({self.session_id!r}, {self.message_id!r}"
            f"{', ' + known if known else ''}, {len(self.content)} block(s))"
        )


@dataclass(frozen=True)
class Link:
    """How an entry stands towards its counterpart view (rule L).

    - `linked`: `counterpart` is the address of the other view, which the store holds.
    - `pending`: a reference gives the counterpart's address, but no entry is there (yet).
    - `conflict`: the views cannot be linked, and never will be; `reason` says why.
    - `none`: no usable reference yet; `reason` says what is missing.
    """

    state: LinkState
    counterpart: Address | None = None
    reason: str = ""

    def __str__(self) -> str:
        if self.state == "linked":
            return f"linked with {self.counterpart}"
        if self.state == "pending":
            return f"pending: {self.counterpart} ({self.reason})"
        if self.state == "conflict":
            return f"unlinked, conflict: {self.reason}"
        return f"no reference yet ({self.reason})" if self.reason else "no reference yet"


def _role(entry: MessageEntry) -> Literal["outgoing", "incoming"] | None:
    """The view an entry says it is by the reference it carries (rule L1), if exactly one."""
    outgoing = entry.recipient_message_id is not None
    incoming = entry.sender_message_id is not None
    if outgoing == incoming:
        return None
    return "outgoing" if outgoing else "incoming"


# --- decoding ----------------------------------------------------------------------------

ParamsT = TypeVar("ParamsT", bound=BaseModel)


class _Envelope(BaseModel, Generic[ParamsT]):
    """A whole `session/update` message, so that one pydantic-core call decodes a line."""

    model_config = ConfigDict(extra="allow")

    jsonrpc: Literal["2.0"]
    method: Literal["session/update"]
    params: ParamsT


class _Codec:
    """The binding types of one protocol version, imported on first use."""

    def __init__(self, version: Version) -> None:
        module = importlib.import_module(f"acp_schema.{version}")
        self.params_type: type[BaseModel] = (
            module.SessionNotification if version == "v1" else module.UpdateSessionNotification
        )
        self.message_type: type[BaseModel] = module.SessionMessage
        self.chunk_type: type[BaseModel] = module.SessionMessageChunk
        self.envelope: type[_Envelope[Any]] = _Envelope[self.params_type]  # type: ignore[name-defined]

    def decode(self, message: str | bytes | bytearray | dict[str, Any]) -> Any:
        """The notification params of a raw JSON-RPC message, or a `TranscriptError`."""
        try:
            if isinstance(message, dict):
                envelope = self.envelope.model_validate(message)
            else:
                envelope = self.envelope.model_validate_json(message)
        except ValidationError as error:
            raise self._explain(message, error) from None
        if envelope.__pydantic_extra__ and "id" in envelope.__pydantic_extra__:
            raise UpdateDecodeError(f"{METHOD} is a notification, but this message has an `id`")
        return envelope.params

    def _explain(
        self, message: str | bytes | bytearray | dict[str, Any], error: ValidationError
    ) -> TranscriptError:
        """Why a message failed the fast path: not ours at all, or a bad session/update."""
        if isinstance(message, dict):
            data: Any = message
        else:
            try:
                data = json.loads(message)
            except ValueError as bad_json:  # JSONDecodeError or UnicodeDecodeError
                return UpdateDecodeError(f"invalid JSON: {bad_json}")
        if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
            return UpdateDecodeError("not a JSON-RPC 2.0 message object")
        if "method" not in data:
            return NotSessionUpdateError("a JSON-RPC response, not a notification")
        if data["method"] != METHOD:
            return NotSessionUpdateError(f"method {data['method']!r}, not {METHOD!r}")
        if "params" not in data:
            return UpdateDecodeError(f"{METHOD} without params")
        try:
            self.params_type.model_validate(data["params"])
        except ValidationError as params_error:
            error = params_error
        decode_error = UpdateDecodeError(f"{METHOD} does not decode: {_summary(error)}")
        decode_error.__cause__ = error
        return decode_error


def _summary(error: ValidationError) -> str:
    """The first problem of a validation error, with its location, and how many more."""
    problems = error.errors(include_url=False)
    # An open union also reports that its Other variant refused the known tag: noise here.
    problems = [p for p in problems if p["type"] != "known_tag"] or problems
    first = problems[0]
    # Union branch labels ("tagged-union[...]", "function-before[...]") are not wire keys.
    where = ".".join(str(p) for p in first["loc"] if "[" not in str(p)) or "(top level)"
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{where}: {first['msg']}{more}"


_CODECS: dict[str, _Codec] = {}


def _codec(version: Version) -> _Codec:
    codec = _CODECS.get(version)
    if codec is None:
        codec = _CODECS[version] = _Codec(version)
    return codec


# --- the store ---------------------------------------------------------------------------


class TranscriptStore:
    """Session-message entries of any number of transcripts, for one protocol version.

    Feed it notifications in the order the Agent sent them with `apply`; read entries with
    `entry` / `entries` and their link state with `link`.
    """

    def __init__(self, version: Version) -> None:
        if version not in ("v1", "v2"):
            raise ValueError(f"version must be 'v1' or 'v2', got {version!r}")
        self.version: Version = version
        codec = _codec(version)
        self._codec = codec
        self._params_type = codec.params_type
        self._message_type = codec.message_type
        self._chunk_type = codec.chunk_type
        # v1 replaces `_meta` wholesale; v2 patches it by top-level key (rule M).
        self._patch_meta = version == "v2"
        # transcript -> messageId -> entry, each in first-seen order.
        self._transcripts: dict[str, dict[str, MessageEntry]] = {}
        # Every session any session/update was addressed to ("loaded" transcripts).
        self._seen: set[str] = set()
        # Address a reference names -> the entries naming it (usually one).
        self._claims: dict[tuple[str, str], list[MessageEntry]] = {}

    # --- applying updates ---

    def apply(
        self, message: Notification | dict[str, Any] | str | bytes | bytearray
    ) -> MessageEntry | None:
        """Apply one notification; return the entry it touched, or None for other kinds.

        `message` is decoded notification params of this store's version, or a whole
        JSON-RPC `session/update` message as a dict or JSON text. Raises
        `UpdateDecodeError` for a session/update that does not decode and
        `NotSessionUpdateError` for any other JSON-RPC message; the store is then unchanged.
        """
        if isinstance(message, self._params_type):
            params: Any = message
        elif isinstance(message, (str, bytes, bytearray, dict)):
            params = self._codec.decode(message)
        else:
            raise TypeError(
                f"a {self.version} store applies {self._params_type.__name__} or a raw "
                f"JSON-RPC message, not {type(message).__name__}"
            )
        session_id: str = params.session_id
        update = params.update
        if isinstance(update, self._message_type):
            return self._upsert(session_id, update)
        if isinstance(update, self._chunk_type):
            return self._append(session_id, update)
        self._seen.add(session_id)
        return None

    def _entry_for(self, session_id: str, message_id: str) -> MessageEntry:
        transcript = self._transcripts.get(session_id)
        if transcript is None:
            transcript = self._transcripts[session_id] = {}
            self._seen.add(session_id)
        entry = transcript.get(message_id)
        if entry is None:  # rule E: either kind creates an empty entry
            entry = transcript[message_id] = MessageEntry(session_id, message_id)
        return entry

    def _upsert(self, session_id: str, update: Any) -> MessageEntry:
        entry = self._entry_for(session_id, update.message_id)

        # Rule C. v1 says null or [] clears and a non-empty array replaces; v2 says null
        # clears and any array replaces. Both end in the same state: cleared content is
        # an empty list. A malformed value was decoded as MISSING, i.e. omitted.
        content = update.content
        if content is not MISSING:
            entry.content = [] if content is None else list(content)

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
                setattr(entry, attr, value)
                learned = True
            elif known != value:
                conflict = Conflict(wire, known, value)
                if conflict not in entry.conflicts:
                    entry.conflicts.append(conflict)
        if learned:
            self._index_claims(entry)
        return entry

    def _append(self, session_id: str, chunk: Any) -> MessageEntry:
        entry = self._entry_for(session_id, chunk.message_id)
        block = chunk.content
        entry.content.append(block)
        meta = chunk.meta
        entry.chunks.append(ChunkRecord(block, meta if isinstance(meta, dict) else None))
        return entry

    def _index_claims(self, entry: MessageEntry) -> None:
        """Record the address each reference of `entry` names, once it is complete (L2).

        O's `recipientMessageId` names an entry of transcript `recipientSessionId`; I's
        `senderMessageId` an entry of transcript `senderSessionId`.
        """
        if not entry._claims_outgoing:
            recipient = entry.recipient_session_id
            reference = entry.recipient_message_id
            if recipient is not None and reference is not None:
                self._claims.setdefault((recipient, reference), []).append(entry)
                entry._claims_outgoing = True
        if not entry._claims_incoming:
            sender = entry.sender_session_id
            reference = entry.sender_message_id
            if sender is not None and reference is not None:
                self._claims.setdefault((sender, reference), []).append(entry)
                entry._claims_incoming = True

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
        """The link state of an entry, or None if there is no such entry."""
        entry = self.entry(session_id, message_id)
        return None if entry is None else self._link_of(entry)

    def _claimants(self, address: tuple[str, str]) -> list[MessageEntry]:
        return self._claims.get(address, [])

    def _link_of(self, entry: MessageEntry) -> Link:
        problem = _view_problem(entry)
        if problem is not None:
            return Link("conflict", None, problem)
        named = _named_address(entry)  # at most one, as the view carries one reference
        naming_me = self._claimants((entry.session_id, entry.message_id))
        if len(naming_me) > 1:
            return Link("conflict", None, f"{_views(naming_me)} all name this view")

        partner: MessageEntry | None = None
        if named is not None:
            rivals = self._claimants(named)
            if len(rivals) > 1:
                return Link("conflict", None, f"{_views(rivals)} all name {named}")
            partner = self.entry(*named)
            if naming_me and naming_me[0] is not partner:
                return Link(
                    "conflict",
                    None,
                    f"this view names {named}, but {naming_me[0].address} names this view",
                )
        elif naming_me:
            partner = naming_me[0]

        if partner is None:
            if named is not None:
                where = (
                    f"no session message {named.message_id!r} in it yet"
                    if self.is_loaded(named.session_id)
                    else "that transcript is not loaded"
                )
                return Link("pending", named, where)
            return Link("none", None, _missing_reference(entry))

        problem = _view_problem(partner)
        if problem is not None:
            return Link("conflict", None, f"counterpart {partner.address}: {problem}")
        if named is None:
            # `partner` names this view; nothing else may name `partner` (L3).
            rivals = self._claimants((partner.session_id, partner.message_id))
            if rivals:
                return Link("conflict", None, f"{_views([entry, *rivals])} claim the same view")
        problem = _pair_problem(entry, partner)
        if problem is not None:
            return Link("conflict", None, problem)
        return Link("linked", partner.address)


def _patched(stored: dict[str, Any] | None, patch: dict[str, Any]) -> dict[str, Any]:
    """v2 `_meta` patch: top-level keys replace, a null value deletes, no deep merge."""
    result = {} if stored is None else dict(stored)
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = value
    return result


def _named_address(entry: MessageEntry) -> Address | None:
    """The address the entry's one reference names, once its session ID is known (L2)."""
    if entry.recipient_message_id is not None:
        if entry.recipient_session_id is not None:
            return Address(entry.recipient_session_id, entry.recipient_message_id)
    elif entry.sender_message_id is not None and entry.sender_session_id is not None:
        return Address(entry.sender_session_id, entry.sender_message_id)
    return None


def _missing_reference(entry: MessageEntry) -> str:
    if entry.recipient_message_id is not None:
        return "recipientMessageId is known, recipientSessionId not yet"
    if entry.sender_message_id is not None:
        return "senderMessageId is known, senderSessionId not yet"
    return ""


def _views(entries: list[MessageEntry]) -> str:
    # Sorted, so that the text does not depend on which update came first.
    return ", ".join(sorted(str(e.address) for e in entries))


def _view_problem(entry: MessageEntry) -> str | None:
    """What makes one view unlinkable by itself; depends on known values only, so it stays."""
    here = entry.session_id
    if entry.recipient_message_id is not None:
        if entry.sender_message_id is not None:
            return "the view carries both senderMessageId and recipientMessageId"
        sender = entry.sender_session_id
        if sender is not None and sender != here:
            return (
                f"recipientMessageId belongs on the outgoing view, but this view's sender is "
                f"{sender!r}, not this transcript"
            )
        if entry.recipient_session_id == here and entry.recipient_message_id == entry.message_id:
            return "the view names itself"
    elif entry.sender_message_id is not None:
        recipient = entry.recipient_session_id
        if recipient is not None and recipient != here:
            return (
                f"senderMessageId belongs on the incoming view, but this view's recipient is "
                f"{recipient!r}, not this transcript"
            )
        if entry.sender_session_id == here and entry.sender_message_id == entry.message_id:
            return "the view names itself"
    return None


def _pair_problem(one: MessageEntry, other: MessageEntry) -> str | None:
    """Why two views that a reference joins cannot be the two views of one message (L3)."""
    one_role, other_role = _role(one), _role(other)
    if one_role is not None and one_role == other_role:
        return f"both {one.address} and {other.address} carry the {one_role} view's reference"
    # A pair is only formed through a reference, so at least one of them has a role.
    if one_role == "outgoing" or other_role == "incoming":
        outgoing, incoming = one, other
    else:
        outgoing, incoming = other, one
    senders = {outgoing.session_id, outgoing.sender_session_id, incoming.sender_session_id}
    senders.discard(None)
    if len(senders) > 1:
        return f"the views disagree on the sender: {', '.join(sorted(map(str, senders)))}"
    recipients = {incoming.session_id, outgoing.recipient_session_id, incoming.recipient_session_id}
    recipients.discard(None)
    if len(recipients) > 1:
        return f"the views disagree on the recipient: {', '.join(sorted(map(str, recipients)))}"
    if outgoing.recipient_message_id not in (None, incoming.message_id) or (
        incoming.sender_message_id not in (None, outgoing.message_id)
    ):
        return (
            f"the references do not name each other: {outgoing.address} names "
            f"{_reference_text(outgoing)}, {incoming.address} names {_reference_text(incoming)}"
        )
    return None


def _reference_text(entry: MessageEntry) -> str:
    if entry.recipient_message_id is not None:
        return f"{entry.recipient_session_id or '?'}/{entry.recipient_message_id}"
    if entry.sender_message_id is not None:
        return f"{entry.sender_session_id or '?'}/{entry.sender_message_id}"
    return "nothing"
