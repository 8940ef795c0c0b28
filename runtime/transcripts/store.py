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

import heapq
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeAlias, cast

from .._fast import FastStruct
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

_NO_REFERENCE = Link("none")

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
        # Address a reference names -> the first entry naming it; further ones, which
        # make a conflict, in `_more_claims`. Almost every address has one claimant.
        self._claims: dict[tuple[str, str], MessageEntry] = {}
        self._more_claims: dict[tuple[str, str], list[MessageEntry]] = {}
        # For a contested address (in `_more_claims`): which claimants fit the view there,
        # worked out once per change of those views, so that asking for each rival's
        # link does not walk every other rival again (`_rivals`).
        self._rivals: dict[tuple[str, str], _Rivals] = {}
        self._rivals_changed: dict[tuple[str, str], int] = {}  # claimant learned facts

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
            self._index_claims(entry)
        return entry

    def _index_claims(self, entry: MessageEntry) -> None:
        """Record the address each reference of `entry` names, once it is complete (L2).

        O's `recipientMessageId` names an entry of transcript `recipientSessionId`; I's
        `senderMessageId` an entry of transcript `senderSessionId`.
        """
        for address in self._claimed_by(entry):  # what it learned may unfit it for them
            if address in self._more_claims:
                self._rivals_changed[address] = self._rivals_changed.get(address, 0) + 1
        if not entry._claims_outgoing:
            recipient = entry.recipient_session_id
            reference = entry.recipient_message_id
            if recipient is not None and reference is not None:
                self._claim(entry, (recipient, reference))
                entry._claims_outgoing = True
        if not entry._claims_incoming:
            sender = entry.sender_session_id
            reference = entry.sender_message_id
            if sender is not None and reference is not None:
                self._claim(entry, (sender, reference))
                entry._claims_incoming = True

    def _claim(self, entry: MessageEntry, address: tuple[str, str]) -> None:
        if address not in self._claims:
            self._claims[address] = entry
        else:
            self._more_claims.setdefault(address, []).append(entry)
        if entry._named is None:
            entry._named = address
        named = self.entry(*address)
        if named is not None:
            named._version += 1

    def _claimants(self, address: tuple[str, str]) -> list[MessageEntry]:
        first = self._claims.get(address)
        return [] if first is None else [first, *self._more_claims.get(address, ())]

    @staticmethod
    def _claimed_by(entry: MessageEntry) -> list[tuple[str, str]]:
        """The addresses `entry` is indexed as a claimant of."""
        out = []
        if entry._claims_outgoing:
            out.append(
                (cast("str", entry.recipient_session_id), cast("str", entry.recipient_message_id))
            )
        if entry._claims_incoming:
            out.append((cast("str", entry.sender_session_id), cast("str", entry.sender_message_id)))
        return out

    def _rivals_of(self, named: MessageEntry) -> _Rivals:
        """The claimants of a contested address that fit the view `named` there. Valid
        while that view learns nothing, no claimant learns anything and no claim is
        added (each bumps the stamp): one pass over the claimants per change."""
        address = named._key
        stamp = (named._version, self._rivals_changed.get(address, 0))
        rivals = self._rivals.get(address)
        if rivals is None or rivals.stamp != stamp:
            claimants = self._claimants(address)
            problems = [_claim_problem(claimant, named) for claimant in claimants]
            viable = [c for c, problem in zip(claimants, problems, strict=True) if problem is None]
            first = min((p for p in problems if p is not None), default=None)
            rivals = self._rivals[address] = _Rivals(stamp, viable, first)
        return rivals

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
        transcript = self._transcripts.get(session_id)
        entry = None if transcript is None else transcript.get(message_id)
        if entry is None:
            return None
        cached = entry._cached
        if cached is not None:
            link, version, partner, partner_version = cached
            if entry._version == version and partner._version == partner_version:
                return link
        if entry.recipient_message_id is not None and entry.sender_message_id is not None:
            return Link("conflict", None, _BOTH)
        named = entry._named  # the address its one reference names, once complete
        if named is not None:
            return self._link_by_own_reference(entry, named)
        return self._link_by_claims(entry)

    def _link_by_own_reference(self, entry: MessageEntry, named: tuple[str, str]) -> Link:
        """The view carries a complete reference: that pair alone decides (L3, L4)."""
        key = entry._key
        if named == key:
            return Link("conflict", None, "the view names itself")
        transcript = self._transcripts.get(named[0])
        partner = None if transcript is None else transcript.get(named[1])
        if partner is not None:
            if partner.recipient_message_id is not None and partner.sender_message_id is not None:
                return Link("conflict", None, f"counterpart {_text(named)}: {_BOTH}")
            partner_named = partner._named
            if partner_named is not None:
                # Both views carry a reference: they name each other or stay unlinked.
                if partner_named == key and (
                    (entry.recipient_message_id is None) != (partner.recipient_message_id is None)
                ):
                    # Two references that name each other settle the link for good; a
                    # participant ID that contradicts a view's place is only noted.
                    notes = [
                        f"{view.address}: {problem}"
                        for view in (entry, partner)
                        if (problem := _role_problem(view)) is not None
                    ]
                    return _cache_linked(entry, partner, "; ".join(notes))
                if partner_named == key:
                    field = (
                        "recipientMessageId" if entry.recipient_message_id else "senderMessageId"
                    )
                    return Link("conflict", None, f"both views carry {field}")
                return Link(
                    "conflict",
                    None,
                    f"this view names {_text(named)}, but {_text(named)} names "
                    f"{_text(partner_named)}",
                )
        problem = _role_problem(entry)
        if problem is not None:
            return Link("conflict", None, problem)
        if partner is None:
            where = (
                f"no session message {named[1]!r} in it yet"
                if named[0] in self._seen
                else "that transcript is not loaded"
            )
            return Link("pending", Address(*named), where)
        # The counterpart carries no complete reference (yet): one reference is enough,
        # unless another view's reference names the same counterpart just as well.
        # (What `_claim_problem` checks, less what is known already: neither view carries
        # both references, and this one's reference fits it.)
        problem = _role_problem(partner)
        if problem is not None:
            return Link("conflict", None, f"{partner.address}: {problem}")
        problem = _pair_problem(entry, partner)
        if problem is not None:
            return Link("conflict", None, problem)
        if named in self._more_claims:
            rivals = self._rivals_of(partner)  # `entry` is among them: it fits, as above
            if len(rivals.viable) > 1:
                return Link("conflict", None, rivals.contest(_text(named)))
        return _cache_linked(entry, partner)

    def _link_by_claims(self, entry: MessageEntry) -> Link:
        """The view has no complete reference: the views whose reference names it decide."""
        key = entry._key
        first = self._claims.get(key)
        if first is None:
            missing = _missing_reference(entry)
            return Link("none", None, missing) if missing else _NO_REFERENCE
        if key not in self._more_claims:
            problem = _claim_problem(first, entry)
            if problem is not None:
                return self._not_named(entry, problem)
            return _cache_linked(entry, first)
        rivals = self._rivals_of(entry)
        if len(rivals.viable) == 1:
            return _cache_linked(entry, rivals.viable[0])
        if rivals.viable:
            return Link("conflict", None, rivals.contest("this view"))
        assert rivals.first_problem is not None  # claimants, none viable: each has one
        return self._not_named(entry, rivals.first_problem)

    @staticmethod
    def _not_named(entry: MessageEntry, problem: str) -> Link:
        """Only unfit references name this view: the conflict is the claimant's (L3); this
        view has no usable reference of its own."""
        missing = _missing_reference(entry)
        return Link("none", None, f"{missing}; {problem}" if missing else problem)


def _cache_linked(entry: MessageEntry, partner: MessageEntry, note: str = "") -> Link:
    link = Link("linked", Address(partner.session_id, partner.message_id), note)
    # Valid while neither view learns anything and no new reference names either.
    entry._cached = (link, entry._version, partner, partner._version)
    return link


def _patched(stored: dict[str, Any] | None, patch: dict[str, Any]) -> dict[str, Any]:
    """v2 `_meta` patch: top-level keys replace, a null value deletes, no deep merge."""
    result = {} if stored is None else dict(stored)
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = value
    return result


def _text(address: tuple[str, str]) -> str:
    return f"{address[0]}/{address[1]}"


def _missing_reference(entry: MessageEntry) -> str:
    if entry.recipient_message_id is not None:
        return "recipientMessageId is known, recipientSessionId not yet"
    if entry.sender_message_id is not None:
        return "senderMessageId is known, senderSessionId not yet"
    return ""


_BOTH = "the view carries both senderMessageId and recipientMessageId"


# Views a conflict's reason lists by name; more are counted, so that the reason (printed
# for every rival) stays short however many views name the same one.
_SHOWN_VIEWS = 5


class _Rivals:
    """The claimants of one address that fit the view there, and the first reason (in
    sorted order) of those that do not."""

    __slots__ = ("_views", "first_problem", "stamp", "viable")

    def __init__(
        self, stamp: tuple[int, int], viable: list[MessageEntry], first_problem: str | None
    ) -> None:
        self.stamp = stamp
        self.viable = viable
        self.first_problem = first_problem
        self._views: str | None = None

    def contest(self, named: str) -> str:
        if self._views is None:
            self._views = _views(self.viable)
        return f"{self._views} all name {named}, which names none of them (yet)"


def _views(entries: list[MessageEntry]) -> str:
    # The first few, sorted, so that the text does not depend on which update came first.
    names = heapq.nsmallest(_SHOWN_VIEWS, (_text(e._key) for e in entries))
    more = len(entries) - len(names)
    return ", ".join(names) + (f" and {more} more view(s)" if more > 0 else "")


def _role_problem(entry: MessageEntry) -> str | None:
    """Why the one reference a view carries does not fit the view; stays once true.

    `recipientMessageId` belongs on the outgoing view, in the sender's transcript;
    `senderMessageId` on the incoming view, in the recipient's (L1).
    """
    here = entry.session_id
    if entry.recipient_message_id is not None:
        sender = entry.sender_session_id
        if sender is not None and sender != here:
            return (
                f"recipientMessageId belongs on the outgoing view, but this view's sender is "
                f"{sender!r}, not this transcript"
            )
    elif entry.sender_message_id is not None:
        recipient = entry.recipient_session_id
        if recipient is not None and recipient != here:
            return (
                f"senderMessageId belongs on the incoming view, but this view's recipient is "
                f"{recipient!r}, not this transcript"
            )
    return None


def _claim_problem(claimant: MessageEntry, named: MessageEntry) -> str | None:
    """Why `claimant`, whose reference names `named`, cannot be linked with it by that
    reference alone (`named` carries no complete reference). Facts only grow and each
    reason rests on known values, so once a problem, always a problem."""
    if claimant.recipient_message_id is not None and claimant.sender_message_id is not None:
        return f"{claimant.address}: {_BOTH}"
    if named.recipient_message_id is not None and named.sender_message_id is not None:
        return f"{named.address}: {_BOTH}"
    problem = _role_problem(claimant)
    if problem is not None:
        return f"{claimant.address}: {problem}"
    problem = _role_problem(named)
    if problem is not None:
        return f"{named.address}: {problem}"
    return _pair_problem(claimant, named)


def _pair_problem(one: MessageEntry, other: MessageEntry) -> str | None:
    """Why two views that a reference joins cannot be the two views of one message (L3).

    Neither view carries both references, and at least one carries one: that is how the
    pair was found.
    """
    if one.recipient_message_id is not None:
        if other.recipient_message_id is not None:
            return f"both {one.address} and {other.address} carry recipientMessageId"
        outgoing, incoming = one, other
    elif one.sender_message_id is not None:
        if other.sender_message_id is not None:
            return f"both {one.address} and {other.address} carry senderMessageId"
        outgoing, incoming = other, one
    elif other.recipient_message_id is not None:
        outgoing, incoming = other, one
    else:
        outgoing, incoming = one, other
    # The outgoing view sits in the sender's transcript, the incoming one in the recipient's.
    sender = outgoing.session_id
    s1, s2 = outgoing.sender_session_id, incoming.sender_session_id
    if (s1 is not None and s1 != sender) or (s2 is not None and s2 != sender):
        return f"the views disagree on the sender: {_listed(sender, s1, s2)}"
    recipient = incoming.session_id
    r1, r2 = outgoing.recipient_session_id, incoming.recipient_session_id
    if (r1 is not None and r1 != recipient) or (r2 is not None and r2 != recipient):
        return f"the views disagree on the recipient: {_listed(recipient, r1, r2)}"
    out_ref, in_ref = outgoing.recipient_message_id, incoming.sender_message_id
    if (out_ref is not None and out_ref != incoming.message_id) or (
        in_ref is not None and in_ref != outgoing.message_id
    ):
        return (
            f"the references do not name each other: {outgoing.address} names "
            f"{_reference_text(outgoing)}, {incoming.address} names {_reference_text(incoming)}"
        )
    return None


def _listed(*values: str | None) -> str:
    return ", ".join(sorted({repr(v) for v in values if v is not None}))


def _reference_text(entry: MessageEntry) -> str:
    if entry.recipient_message_id is not None:
        return f"{entry.recipient_session_id or '?'}/{entry.recipient_message_id}"
    if entry.sender_message_id is not None:
        return f"{entry.sender_session_id or '?'}/{entry.sender_message_id}"
    return "nothing"
