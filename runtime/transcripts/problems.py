"""Why two views cannot be linked: the problem texts link answers give (rule L), each a
pure function of what the entries know.

Facts only grow and each reason rests on known values, so a view that has a problem
keeps it: the link resolver and the rivals' cache rely on that.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .entries import MessageEntry


_BOTH = "the view carries both senderMessageId and recipientMessageId"


def _text(address: tuple[str, str]) -> str:
    return f"{address[0]}/{address[1]}"


def _missing_reference(entry: MessageEntry) -> str:
    if entry.recipient_message_id is not None:
        return "recipientMessageId is known, recipientSessionId not yet"
    if entry.sender_message_id is not None:
        return "senderMessageId is known, senderSessionId not yet"
    return ""


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
