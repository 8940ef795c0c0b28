"""Linking the outgoing and incoming views of a session message (rule L).

The outgoing view O sits in the sender's transcript and may carry `recipientMessageId`;
the incoming view I sits in the recipient's transcript and may carry `senderMessageId`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_schema.transcripts import Address, Link, TranscriptStore, Version

VERSIONS = ("v1", "v2")


def note(session_id: str, update: dict[str, Any]) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session_id, "update": update},
    }
    return json.dumps(message).encode()


def upsert(message_id: str, **fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "session_message", "messageId": message_id, **fields}


def chunk(message_id: str, text: str) -> dict[str, Any]:
    return {
        "sessionUpdate": "session_message_chunk",
        "messageId": message_id,
        "content": {"type": "text", "text": text},
    }


def outgoing(message_id: str = "o1", **fields: Any) -> bytes:
    """An upsert of the outgoing view in A's transcript: A sends to B."""
    return note("A", upsert(message_id, senderSessionId="A", recipientSessionId="B", **fields))


def incoming(message_id: str = "i1", **fields: Any) -> bytes:
    """An upsert of the incoming view in B's transcript."""
    return note("B", upsert(message_id, senderSessionId="A", recipientSessionId="B", **fields))


def link(store: TranscriptStore, session_id: str, message_id: str) -> Link:
    found = store.link(session_id, message_id)
    assert found is not None, f"no entry {session_id}/{message_id}"
    return found


def linked(store: TranscriptStore, one: tuple[str, str], other: tuple[str, str]) -> bool:
    return link(store, *one) == Link("linked", Address(*other)) and link(store, *other) == Link(
        "linked", Address(*one)
    )


@pytest.fixture(params=VERSIONS)
def store(request: pytest.FixtureRequest) -> TranscriptStore:
    version: Version = request.param
    return TranscriptStore(version)


def test_both_references_agree(store: TranscriptStore) -> None:
    store.apply(outgoing(recipientMessageId="i1"))
    store.apply(incoming(senderMessageId="o1"))
    assert linked(store, ("A", "o1"), ("B", "i1"))
    assert str(link(store, "A", "o1")) == "linked with B/i1"


def test_only_the_outgoing_view_has_a_reference(store: TranscriptStore) -> None:
    store.apply(outgoing(recipientMessageId="i1"))
    store.apply(incoming())
    # One reference is enough, and the view without one finds its counterpart too.
    assert linked(store, ("A", "o1"), ("B", "i1"))


def test_only_the_incoming_view_has_a_reference(store: TranscriptStore) -> None:
    store.apply(incoming(senderMessageId="o1"))
    store.apply(outgoing())
    assert linked(store, ("A", "o1"), ("B", "i1"))


def test_one_reference_without_the_other_transcript_is_pending(store: TranscriptStore) -> None:
    store.apply(outgoing(recipientMessageId="i1"))
    assert link(store, "A", "o1") == Link(
        "pending", Address("B", "i1"), "that transcript is not loaded"
    )
    assert store.entry("B", "i1") is None  # nothing invented
    assert store.transcripts() == ["A"]


def test_incoming_reference_without_the_sender_transcript_is_pending(
    store: TranscriptStore,
) -> None:
    store.apply(incoming(senderMessageId="o1"))
    result = link(store, "B", "i1")
    assert (result.state, result.counterpart) == ("pending", Address("A", "o1"))


def test_pending_becomes_linked_when_the_counterpart_arrives(store: TranscriptStore) -> None:
    store.apply(outgoing(recipientMessageId="i1"))
    store.apply(note("B", chunk("other", "B is loaded, i1 not yet")))
    assert link(store, "A", "o1") == Link(
        "pending", Address("B", "i1"), "no session message 'i1' in it yet"
    )
    store.apply(note("B", chunk("i1", "hello")))  # a chunk creates the counterpart
    assert linked(store, ("A", "o1"), ("B", "i1"))


def test_recipient_reference_to_an_entry_never_reported(store: TranscriptStore) -> None:
    store.apply(outgoing(recipientMessageId="ghost", content=[{"type": "text", "text": "hi"}]))
    store.apply(note("B", chunk("i1", "an unrelated incoming view")))
    assert link(store, "A", "o1").state == "pending"
    assert store.entry("B", "ghost") is None
    assert len(store) == 2
    assert link(store, "B", "i1").state == "none"


def test_references_after_all_chunks(store: TranscriptStore) -> None:
    for piece in ("Run ", "the ", "tests"):
        store.apply(note("A", chunk("o1", piece)))
        store.apply(note("B", chunk("i1", piece)))
    assert link(store, "A", "o1").state == "none"
    assert link(store, "B", "i1").state == "none"
    # Metadata-only upserts bring participants and references at the end.
    store.apply(outgoing(recipientMessageId="i1"))
    assert linked(store, ("A", "o1"), ("B", "i1"))
    store.apply(incoming(senderMessageId="o1"))
    assert linked(store, ("A", "o1"), ("B", "i1"))
    entry = store.entry("A", "o1")
    assert entry is not None and len(entry.content) == 3


def test_a_reference_needs_its_session_id(store: TranscriptStore) -> None:
    store.apply(note("A", upsert("o1", recipientMessageId="i1")))
    store.apply(note("B", chunk("i1", "x")))
    assert link(store, "A", "o1") == Link(
        "none", None, "recipientMessageId is known, recipientSessionId not yet"
    )
    store.apply(note("A", upsert("o1", recipientSessionId="B")))
    assert linked(store, ("A", "o1"), ("B", "i1"))


def test_conflicting_references_stay_unlinked(store: TranscriptStore) -> None:
    store.apply(outgoing(recipientMessageId="i1"))
    store.apply(incoming(senderMessageId="o9"))
    for view in (("A", "o1"), ("B", "i1")):
        assert link(store, *view).state == "conflict"
    assert "do not name each other" in link(store, "A", "o1").reason
    # A later, agreeing value is not applied (rule P), so the conflict does not heal.
    store.apply(incoming(senderMessageId="o1"))
    assert link(store, "B", "i1").state == "conflict"
    assert link(store, "A", "o1").state == "conflict"
    entry = store.entry("B", "i1")
    assert entry is not None and [str(c) for c in entry.conflicts] == [
        "senderMessageId: kept 'o9', ignored 'o1'"
    ]


def test_a_third_view_claiming_the_same_counterpart(store: TranscriptStore) -> None:
    store.apply(outgoing(recipientMessageId="i1"))
    store.apply(incoming(senderMessageId="o1"))
    assert linked(store, ("A", "o1"), ("B", "i1"))
    # Another outgoing view, in C's transcript, names the same incoming view.
    store.apply(
        note(
            "C", upsert("o2", senderSessionId="C", recipientSessionId="B", recipientMessageId="i1")
        )
    )
    for view in (("A", "o1"), ("B", "i1"), ("C", "o2")):
        assert link(store, *view).state == "conflict", view
    assert link(store, "C", "o2").reason == "A/o1, C/o2 all name B/i1"
    # Never heals, whatever comes later.
    store.apply(incoming(senderMessageId="o1", content=[{"type": "text", "text": "more"}]))
    assert link(store, "A", "o1").state == "conflict"


def test_two_incoming_views_claiming_one_outgoing_view(store: TranscriptStore) -> None:
    store.apply(outgoing())
    store.apply(incoming("i1", senderMessageId="o1"))
    assert linked(store, ("A", "o1"), ("B", "i1"))
    store.apply(incoming("i2", senderMessageId="o1"))
    assert link(store, "A", "o1") == Link("conflict", None, "B/i1, B/i2 all name this view")
    assert link(store, "B", "i1").state == "conflict"
    assert link(store, "B", "i2").state == "conflict"


def test_a_view_found_by_reference_that_is_named_by_another(store: TranscriptStore) -> None:
    """I names O, but O's own reference names another incoming view."""
    store.apply(outgoing(recipientMessageId="i2"))
    store.apply(incoming("i1", senderMessageId="o1"))
    store.apply(incoming("i2"))
    assert link(store, "A", "o1").state == "conflict"
    assert link(store, "B", "i1").state == "conflict"
    assert link(store, "B", "i2").state == "conflict"


def test_equal_message_ids_never_link(store: TranscriptStore) -> None:
    store.apply(outgoing("m1", content=[{"type": "text", "text": "same text"}]))
    store.apply(incoming("m1", content=[{"type": "text", "text": "same text"}]))
    assert link(store, "A", "m1") == Link("none")
    assert link(store, "B", "m1") == Link("none")


def test_views_that_disagree_on_participants(store: TranscriptStore) -> None:
    store.apply(outgoing(recipientMessageId="i1"))
    store.apply(note("B", upsert("i1", senderSessionId="C", recipientSessionId="B")))
    result = link(store, "A", "o1")
    assert result.state == "conflict"
    assert result.reason == "the views disagree on the sender: 'A', 'C'"


def test_a_view_with_both_references_is_a_conflict(store: TranscriptStore) -> None:
    store.apply(outgoing(recipientMessageId="i1", senderMessageId="x"))
    store.apply(incoming())
    assert link(store, "A", "o1").state == "conflict"
    assert link(store, "B", "i1").state == "conflict"


def test_a_reference_of_the_wrong_view_is_a_conflict(store: TranscriptStore) -> None:
    # recipientMessageId belongs on the outgoing view, but this entry is B's incoming view.
    store.apply(incoming(recipientMessageId="x"))
    result = link(store, "B", "i1")
    assert result.state == "conflict" and "belongs on the outgoing view" in result.reason


def test_two_outgoing_views_naming_each_other(store: TranscriptStore) -> None:
    store.apply(note("A", upsert("o1", recipientSessionId="B", recipientMessageId="o2")))
    store.apply(note("B", upsert("o2", recipientSessionId="A", recipientMessageId="o1")))
    assert link(store, "A", "o1").state == "conflict"
    assert link(store, "B", "o2").state == "conflict"


def test_a_link_goes_both_ways_across_many_transcripts(store: TranscriptStore) -> None:
    sessions = [f"s{n}" for n in range(6)]
    for n, sender in enumerate(sessions):
        recipient = sessions[(n + 1) % len(sessions)]
        ids = {"senderSessionId": sender, "recipientSessionId": recipient}
        store.apply(note(sender, upsert(f"out{n}", recipientMessageId=f"in{n}", **ids)))
        store.apply(note(recipient, upsert(f"in{n}", **ids)))
    for n, sender in enumerate(sessions):
        recipient = sessions[(n + 1) % len(sessions)]
        assert linked(store, (sender, f"out{n}"), (recipient, f"in{n}"))


def test_link_of_an_unknown_entry_is_none(store: TranscriptStore) -> None:
    assert store.link("A", "nothing") is None


# --- the final state does not depend on how messages interleave -------------------------

SESSIONS = ("A", "B", "C")
# Two communications A -> B, one B -> C, plus a stray view claiming m1's incoming view.
VIEWS = (
    ("A", "o1", {"senderSessionId": "A", "recipientSessionId": "B"}, "recipientMessageId", "i1"),
    ("B", "i1", {"senderSessionId": "A", "recipientSessionId": "B"}, "senderMessageId", "o1"),
    ("A", "o2", {"senderSessionId": "A", "recipientSessionId": "B"}, "recipientMessageId", "i2"),
    ("B", "i2", {"senderSessionId": "A", "recipientSessionId": "B"}, "senderMessageId", "o2"),
    ("B", "o3", {"senderSessionId": "B", "recipientSessionId": "C"}, "recipientMessageId", "i3"),
    ("C", "i3", {"senderSessionId": "B", "recipientSessionId": "C"}, "senderMessageId", "o3"),
    ("C", "x", {"senderSessionId": "C", "recipientSessionId": "B"}, "recipientMessageId", "i1"),
)
WRONG = ("A", "B", "C", "o1", "i1", "zz")
# How an upsert treats each identity field: mostly right, sometimes not supplied or wrong.
CHOICES = ("omit", "omit", "right", "right", "right", "right", "null", "bad", "wrong")

texts = st.text(alphabet="abc ", max_size=3)
metas = st.one_of(
    st.none(),
    st.just("malformed"),
    st.dictionaries(st.sampled_from("kl"), st.one_of(st.none(), st.integers(0, 3)), max_size=2),
)


@st.composite
def view_updates(draw: st.DrawFn, view: int) -> list[bytes]:
    session_id, message_id, participants, reference, target = VIEWS[view]
    updates = []
    for _ in range(draw(st.integers(0, 5))):
        if draw(st.booleans()):
            update = chunk(message_id, draw(texts))
            if draw(st.booleans()):
                update["_meta"] = draw(metas)
        else:
            update = upsert(message_id)
            for key, value in [*participants.items(), (reference, target)]:
                choice = draw(st.sampled_from(CHOICES))
                if choice != "omit":
                    update[key] = {
                        "right": value,
                        "null": None,
                        "bad": 7,
                        "wrong": draw(st.sampled_from(WRONG)),
                    }[choice]
            if draw(st.booleans()):
                update["content"] = draw(
                    st.one_of(st.none(), st.lists(texts, max_size=2), st.just("bad"))
                )
                if isinstance(update["content"], list):
                    update["content"] = [{"type": "text", "text": t} for t in update["content"]]
            if draw(st.booleans()):
                update["_meta"] = draw(metas)
        updates.append(note(session_id, update))
    if draw(st.booleans()):  # some other kind of update in the same transcript
        other = chunk(message_id, "agent text") | {"sessionUpdate": "agent_message_chunk"}
        updates.append(note(session_id, other))
    return updates


@st.composite
def interleavings(draw: st.DrawFn) -> tuple[list[bytes], list[bytes]]:
    """Each view's updates in order, and one interleaving that keeps every view's order."""
    chosen = draw(st.lists(st.sampled_from(range(len(VIEWS))), min_size=1, unique=True))
    streams = [draw(view_updates(view)) for view in chosen]
    in_order = [update for stream in streams for update in stream]
    turns = draw(st.permutations([n for n, stream in enumerate(streams) for _ in stream]))
    positions = [0] * len(streams)
    mixed = []
    for n in turns:
        mixed.append(streams[n][positions[n]])
        positions[n] += 1
    return in_order, mixed


def final_state(store: TranscriptStore) -> dict[tuple[str, str], tuple[object, ...]]:
    return {
        (entry.session_id, entry.message_id): (
            entry.sender_session_id,
            entry.recipient_session_id,
            entry.sender_message_id,
            entry.recipient_message_id,
            entry.direction,
            [block.model_dump() for block in entry.content],
            entry.meta,
            [(c.content.model_dump(), c.meta) for c in entry.chunks],
            entry.conflicts,
            store.link(entry.session_id, entry.message_id),
        )
        for entry in store
    }


@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=150, deadline=None)
@given(orders=interleavings())
def test_final_state_does_not_depend_on_interleaving(
    version: Version, orders: tuple[list[bytes], list[bytes]]
) -> None:
    in_order, mixed = orders
    reference = TranscriptStore(version)
    for update in in_order:
        reference.apply(update)
    store = TranscriptStore(version)
    for update in mixed:
        entry = store.apply(update)
        if entry is not None:  # ask along the way too: answers may be cached
            store.link(entry.session_id, entry.message_id)
    assert final_state(store) == final_state(reference)


@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=150, deadline=None)
@given(orders=interleavings())
def test_a_conflict_never_heals(version: Version, orders: tuple[list[bytes], list[bytes]]) -> None:
    _, mixed = orders
    store = TranscriptStore(version)
    conflicted: set[tuple[str, str]] = set()
    for update in mixed:
        store.apply(update)
        for entry in store:
            key = (entry.session_id, entry.message_id)
            state = link(store, *key).state
            assert key not in conflicted or state == "conflict", key
            if state == "conflict":
                conflicted.add(key)
