"""Link answers (rule L): how an entry stands towards its counterpart view, worked out
from what the entries know and the claims index, pair by pair.

Two views whose references name each other are linked for good, whatever a third view
claims; a view whose reference names a view whose own reference names another stays
unlinked (docs/session-messages.md, "Links are decided pair by pair"). The answers are
cached on the entries and checked against their versions, so asking again is cheap.
"""

from __future__ import annotations

import heapq

from .claims import ClaimIndex
from .entries import Address, Link, MessageEntry
from .problems import (
    _BOTH,
    _claim_problem,
    _missing_reference,
    _pair_problem,
    _role_problem,
    _text,
)

__all__ = ["LinkResolver"]

_NO_REFERENCE = Link("none")


class LinkResolver:
    """Answers `TranscriptStore.link` from the store's entries and its claims index."""

    __slots__ = ("_claims", "_rivals", "_seen", "_transcripts")

    def __init__(
        self,
        transcripts: dict[str, dict[str, MessageEntry]],
        seen: set[str],
        claims: ClaimIndex,
    ) -> None:
        # The store's own tables (shared, not copied): they change as updates apply.
        self._transcripts = transcripts
        self._seen = seen
        self._claims = claims
        # For a contested address (in `claims.more`): which claimants fit the view there,
        # worked out once per change of those views, so that asking for each rival's
        # link does not walk every other rival again (`_rivals_of`).
        self._rivals: dict[tuple[str, str], _Rivals] = {}

    def link(self, session_id: str, message_id: str) -> Link | None:
        """`TranscriptStore.link`: a few dictionary lookups, as `apply` keeps the indexes."""
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
        if named in self._claims.more:
            rivals = self._rivals_of(partner)  # `entry` is among them: it fits, as above
            if len(rivals.viable) > 1:
                return Link("conflict", None, rivals.contest(_text(named)))
        return _cache_linked(entry, partner)

    def _link_by_claims(self, entry: MessageEntry) -> Link:
        """The view has no complete reference: the views whose reference names it decide."""
        key = entry._key
        first = self._claims.first.get(key)
        if first is None:
            missing = _missing_reference(entry)
            return Link("none", None, missing) if missing else _NO_REFERENCE
        if key not in self._claims.more:
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

    def _rivals_of(self, named: MessageEntry) -> _Rivals:
        """The claimants of a contested address that fit the view `named` there. Valid
        while that view learns nothing, no claimant learns anything and no claim is
        added (each bumps the stamp): one pass over the claimants per change."""
        address = named._key
        stamp = (named._version, self._claims.changed.get(address, 0))
        rivals = self._rivals.get(address)
        if rivals is None or rivals.stamp != stamp:
            claimants = self._claims.claimants(address)
            problems = [_claim_problem(claimant, named) for claimant in claimants]
            viable = [c for c, problem in zip(claimants, problems, strict=True) if problem is None]
            first = min((p for p in problems if p is not None), default=None)
            rivals = self._rivals[address] = _Rivals(stamp, viable, first)
        return rivals


def _cache_linked(entry: MessageEntry, partner: MessageEntry, note: str = "") -> Link:
    link = Link("linked", Address(partner.session_id, partner.message_id), note)
    # Valid while neither view learns anything and no new reference names either.
    entry._cached = (link, entry._version, partner, partner._version)
    return link


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
