"""The claims index: which entries' references name which address (rule L2).

Kept up to date as entries learn participant IDs and references, so that asking for a
link is a few dictionary lookups (`linking`) rather than a search of every transcript.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from .entries import MessageEntry

__all__ = ["ClaimIndex"]


class ClaimIndex:
    """Address a reference names -> the entries naming it, in the order they named it."""

    __slots__ = ("_transcripts", "changed", "first", "more")

    def __init__(self, transcripts: dict[str, dict[str, MessageEntry]]) -> None:
        # The store's own table (shared, not copied): a claim bumps the named entry.
        self._transcripts = transcripts
        # Address -> the first entry naming it; further ones, which make a conflict, in
        # `more`. Almost every address has one claimant.
        self.first: dict[tuple[str, str], MessageEntry] = {}
        self.more: dict[tuple[str, str], list[MessageEntry]] = {}
        # Contested address (in `more`) -> how often one of its claimants learned facts:
        # part of the stamp that keeps the rivals worked out for it valid (`linking`).
        self.changed: dict[tuple[str, str], int] = {}

    def index(self, entry: MessageEntry) -> None:
        """Record the address each reference of `entry` names, once it is complete (L2).

        O's `recipientMessageId` names an entry of transcript `recipientSessionId`; I's
        `senderMessageId` an entry of transcript `senderSessionId`.
        """
        for address in self._claimed_by(entry):  # what it learned may unfit it for them
            if address in self.more:
                self.changed[address] = self.changed.get(address, 0) + 1
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
        if address not in self.first:
            self.first[address] = entry
        else:
            self.more.setdefault(address, []).append(entry)
        if entry._named is None:
            entry._named = address
        transcript = self._transcripts.get(address[0])
        named = None if transcript is None else transcript.get(address[1])
        if named is not None:
            named._version += 1

    def claimants(self, address: tuple[str, str]) -> list[MessageEntry]:
        first = self.first.get(address)
        return [] if first is None else [first, *self.more.get(address, ())]

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
