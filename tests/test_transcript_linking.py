"""Linking the outgoing and incoming views of a session message (rule L).

The outgoing view O sits in the sender's transcript and may carry `recipientMessageId`;
the incoming view I sits in the recipient's transcript and may carry `senderMessageId`.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from acp_schema.transcripts import Address, Link, TranscriptStore, Version, wire_form
from tests.budget import examples

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
    # Both carry a reference and they do not name each other: A/o1 names B/i1, whose own
    # reference names A/o9. A/o1's claim is the conflict; B/i1's reference is its own
    # business, and still waits for A/o9.
    assert link(store, "A", "o1") == Link(
        "conflict", None, "this view names B/i1, but B/i1 names A/o9"
    )
    assert link(store, "B", "i1") == Link(
        "pending", Address("A", "o9"), "no session message 'o9' in it yet"
    )
    # A later, agreeing value is not applied (rule P), so the conflict does not heal.
    store.apply(incoming(senderMessageId="o1"))
    assert link(store, "A", "o1").state == "conflict"
    entry = store.entry("B", "i1")
    assert entry is not None and [str(c) for c in entry.conflicts] == [
        "senderMessageId: kept 'o9', ignored 'o1'"
    ]
    # The view B/i1 does name links with it once it is there; A/o1 stays unlinked.
    store.apply(outgoing("o9"))
    assert linked(store, ("B", "i1"), ("A", "o9"))
    assert link(store, "A", "o1").state == "conflict"


def test_a_third_view_claiming_a_linked_counterpart(store: TranscriptStore) -> None:
    """A/o1 and B/i1 name each other, then C/x names B/i1 too."""
    store.apply(outgoing(recipientMessageId="i1"))
    store.apply(incoming(senderMessageId="o1"))
    assert linked(store, ("A", "o1"), ("B", "i1"))
    store.apply(
        note("C", upsert("x", senderSessionId="C", recipientSessionId="B", recipientMessageId="i1"))
    )
    # A/o1 and B/i1 name each other (L3) and stay linked; C/x's claim is the conflict.
    assert linked(store, ("A", "o1"), ("B", "i1"))
    assert link(store, "C", "x") == Link(
        "conflict", None, "this view names B/i1, but B/i1 names A/o1"
    )
    store.apply(incoming(senderMessageId="o1", content=[{"type": "text", "text": "more"}]))
    assert linked(store, ("A", "o1"), ("B", "i1"))


def test_rival_claims_wait_for_the_named_view(store: TranscriptStore) -> None:
    """Two views name B/i1, which names neither yet: undecided until B/i1 says which."""
    store.apply(
        note("C", upsert("x", senderSessionId="C", recipientSessionId="B", recipientMessageId="i1"))
    )
    store.apply(note("B", upsert("i1", recipientSessionId="B")))  # sender not known yet
    assert linked(store, ("C", "x"), ("B", "i1"))  # one reference is enough (L4)
    store.apply(outgoing(recipientMessageId="i1"))
    contest = "A/o1, C/x all name B/i1, which names none of them (yet)"
    assert link(store, "A", "o1") == Link("conflict", None, contest)
    assert link(store, "C", "x") == Link("conflict", None, contest)
    assert link(store, "B", "i1") == Link(
        "conflict", None, "A/o1, C/x all name this view, which names none of them (yet)"
    )
    store.apply(incoming(senderMessageId="o1"))
    assert linked(store, ("A", "o1"), ("B", "i1"))
    assert link(store, "C", "x").state == "conflict"


def test_two_incoming_views_claiming_one_outgoing_view(store: TranscriptStore) -> None:
    store.apply(outgoing())
    store.apply(incoming("i1", senderMessageId="o1"))
    assert linked(store, ("A", "o1"), ("B", "i1"))
    store.apply(incoming("i2", senderMessageId="o1"))
    assert link(store, "A", "o1") == Link(
        "conflict", None, "B/i1, B/i2 all name this view, which names none of them (yet)"
    )
    assert link(store, "B", "i1").state == "conflict"
    assert link(store, "B", "i2").state == "conflict"
    store.apply(outgoing(recipientMessageId="i2"))  # A/o1 settles it
    assert linked(store, ("A", "o1"), ("B", "i2"))
    assert link(store, "B", "i1") == Link(
        "conflict", None, "this view names A/o1, but A/o1 names B/i2"
    )


def test_a_view_found_by_reference_that_names_another(store: TranscriptStore) -> None:
    """B/i1 names A/o1, but A/o1's own reference names B/i2, which names nothing."""
    store.apply(outgoing(recipientMessageId="i2"))
    store.apply(incoming("i1", senderMessageId="o1"))
    store.apply(incoming("i2"))
    assert linked(store, ("A", "o1"), ("B", "i2"))
    assert link(store, "B", "i1").state == "conflict"


def test_a_participant_contradicting_a_linked_pair_is_noted(store: TranscriptStore) -> None:
    store.apply(outgoing(recipientMessageId="i1"))
    store.apply(incoming(senderMessageId="o1"))
    # B/i1 now says the message went to C, although it sits in B's transcript.
    store.apply(note("B", upsert("i1", recipientSessionId="C")))  # conflict by rule P
    store.apply(note("A", upsert("o2", senderSessionId="Z", recipientSessionId="B")))
    assert linked(store, ("A", "o1"), ("B", "i1"))
    store.apply(note("C", upsert("i3", senderSessionId="A", senderMessageId="o3")))
    store.apply(note("A", upsert("o3", recipientSessionId="C", recipientMessageId="i3")))
    store.apply(note("C", upsert("i3", recipientSessionId="D")))
    result = link(store, "A", "o3")
    assert result.state == "linked"
    assert result.reason == (
        "C/i3: senderMessageId belongs on the incoming view, but this view's recipient is "
        "'D', not this transcript"
    )
    assert str(result).startswith("linked with C/i3 (despite C/i3: senderMessageId belongs")


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
    assert link(store, "A", "o1") == Link(
        "conflict", None, "the view carries both senderMessageId and recipientMessageId"
    )
    # B/i1 carries no reference; the one naming it is unfit, and the conflict is A/o1's.
    assert link(store, "B", "i1") == Link(
        "none", None, "A/o1: the view carries both senderMessageId and recipientMessageId"
    )


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
            [wire_form(block) for block in entry.content],
            entry.meta,
            [(wire_form(c.content), c.meta) for c in entry.chunks],
            entry.conflicts,
            store.link(entry.session_id, entry.message_id),
        )
        for entry in store
    }


@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=examples(50, 150), deadline=None)
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


# --- pairwise linking: every arrival order, checked after every step -------------------

PAIR_SESSIONS = ("A", "B", "C")
PAIR_IDS = ("m1", "m2", "m3")
Facts = dict[str, str]  # wire name -> the one concrete value a view ever carries


@st.composite
def view_facts(draw: st.DrawFn) -> dict[tuple[str, str], Facts]:
    """Views with fixed identity facts: pairs of one message (which may lose facts or get
    a wrong reference) and strays whose references name whatever they like."""
    sessions, ids = st.sampled_from(PAIR_SESSIONS), st.sampled_from(PAIR_IDS)
    views: dict[tuple[str, str], Facts] = {}
    for _ in range(draw(st.integers(1, 3))):
        sender, recipient = draw(sessions), draw(sessions)
        out_id, in_id = draw(ids), draw(ids)
        pair = {
            (sender, out_id): {"recipientMessageId": in_id},
            (recipient, in_id): {"senderMessageId": out_id},
        }
        for address, facts in pair.items():
            if address in views:
                continue
            facts |= {"senderSessionId": sender, "recipientSessionId": recipient}
            for field in list(facts):
                if draw(st.integers(0, 5)) == 0:  # never sent
                    del facts[field]
            if draw(st.integers(0, 7)) == 0:  # a reference that names something else
                facts[draw(st.sampled_from(sorted(facts) or ["x"]))] = draw(ids)
            views[address] = facts
    for _ in range(draw(st.integers(0, 3))):
        address = (draw(sessions), draw(ids))
        fields = st.sampled_from(
            ["senderSessionId", "recipientSessionId", "senderMessageId", "recipientMessageId"]
        )
        facts = {}
        for field in draw(st.lists(fields, max_size=3, unique=True)):
            facts[field] = draw(sessions if field.endswith("SessionId") else ids)
        views.setdefault(address, facts)
    return views


@st.composite
def updates_of(draw: st.DrawFn, address: tuple[str, str], facts: Facts) -> list[bytes]:
    """One view's facts spread over several updates: up front, late in metadata-only
    upserts, repeated, or padded with null and malformed values that supply nothing;
    chunks in between (with stray identity keys, which must be ignored)."""
    session_id, message_id = address
    upserts: list[dict[str, Any]] = [upsert(message_id) for _ in range(draw(st.integers(1, 3)))]
    for field, value in facts.items():
        for n in draw(st.lists(st.integers(0, len(upserts) - 1), min_size=1, max_size=2)):
            upserts[n][field] = value
    for one in upserts:
        for field in ("senderSessionId", "recipientSessionId", "senderMessageId"):
            if field not in one and draw(st.integers(0, 5)) == 0:
                one[field] = draw(st.sampled_from([None, 7, ["x"]]))
        if draw(st.booleans()):
            one["content"] = [{"type": "text", "text": draw(texts)}]
    chunks = []
    for _ in range(draw(st.integers(0, 2))):
        piece = chunk(message_id, draw(texts))
        if draw(st.booleans()):
            piece["senderMessageId"] = draw(st.sampled_from(PAIR_IDS))
        chunks.append(piece)
    return [note(session_id, update) for update in upserts + chunks]


@st.composite
def arrivals(draw: st.DrawFn) -> tuple[list[bytes], list[bytes]]:
    """Every update of every view in view order, and the same updates in any order."""
    views = draw(view_facts())
    updates = [u for address, facts in views.items() for u in draw(updates_of(address, facts))]
    return updates, draw(st.permutations(updates))


def _reference(entry: Any) -> tuple[str, str] | None:
    """The address an entry's one reference names, once complete (rules L1, L2)."""
    if entry.recipient_message_id is not None and entry.sender_message_id is not None:
        return None
    if entry.recipient_message_id is not None and entry.recipient_session_id is not None:
        return (entry.recipient_session_id, entry.recipient_message_id)
    if entry.sender_message_id is not None and entry.sender_session_id is not None:
        return (entry.sender_session_id, entry.sender_message_id)
    return None


def _name_each_other(one: Any, other: Any) -> bool:
    """An outgoing and an incoming view whose references name each other."""
    return (
        _reference(one) == (other.session_id, other.message_id)
        and _reference(other) == (one.session_id, one.message_id)
        and (one.recipient_message_id is None) != (other.recipient_message_id is None)
    )


def _unlinked_for_good(store: TranscriptStore, entry: Any) -> bool:
    """Rule L3's other half: the view names a view whose own reference is not this one's
    counterpart (or it carries both references, or names itself)."""
    if entry.recipient_message_id is not None and entry.sender_message_id is not None:
        return True
    named = _reference(entry)
    if named is None:
        return False
    if named == (entry.session_id, entry.message_id):
        return True
    other = store.entry(*named)
    if other is None:
        return False
    both = other.recipient_message_id is not None and other.sender_message_id is not None
    return both or (_reference(other) is not None and not _name_each_other(entry, other))


def check_rule_l3(store: TranscriptStore) -> None:
    for entry in store:
        key = (entry.session_id, entry.message_id)
        named = _reference(entry)
        other = None if named is None else store.entry(*named)
        if other is not None and _name_each_other(entry, other):
            assert link(store, *key).state == "linked", key
            assert link(store, *key).counterpart == named, key
        elif _unlinked_for_good(store, entry):
            assert link(store, *key).state == "conflict", key


def link_states(store: TranscriptStore) -> dict[tuple[str, str], Link | None]:
    return {(e.session_id, e.message_id): store.link(e.session_id, e.message_id) for e in store}


@pytest.mark.parametrize("version", VERSIONS)
@settings(max_examples=examples(70, 200), deadline=None)
@given(orders=arrivals())
def test_pairwise_linking_in_every_arrival_order(
    version: Version, orders: tuple[list[bytes], list[bytes]]
) -> None:
    """Views that name each other are linked from the update that completes the second
    reference on, whatever comes after; a view naming a view whose reference names
    another stays unlinked; and the final state is the same for every arrival order."""
    in_order, shuffled = orders
    reference = TranscriptStore(version)
    for update in in_order:
        reference.apply(update)
    store = TranscriptStore(version)
    for update in shuffled:
        store.apply(update)
        check_rule_l3(store)
    final = link_states(store)
    assert final == link_states(reference)
    for state in {found.state for found in final.values() if found is not None}:
        event(f"some view {state}")


def test_the_issue_case_in_every_arrival_order() -> None:
    """A/o1 and B/i1 name each other, C/x names B/i1 too; facts arrive in every order."""
    updates = [
        note("A", upsert("o1", senderSessionId="A", recipientSessionId="B")),
        note("A", upsert("o1", recipientMessageId="i1")),
        note("B", chunk("i1", "hi")),
        note("B", upsert("i1", senderSessionId="A", senderMessageId="o1")),
        note("C", upsert("x", senderSessionId="C", recipientSessionId="B")),
        note("C", upsert("x", recipientMessageId="i1")),
    ]
    for order in itertools.permutations(updates):
        store = TranscriptStore("v2")
        for update in order:
            store.apply(update)
            check_rule_l3(store)
        assert linked(store, ("A", "o1"), ("B", "i1"))
        assert link(store, "C", "x") == Link(
            "conflict", None, "this view names B/i1, but B/i1 names A/o1"
        )


def test_rivals_are_worked_out_again_when_one_learns_it_cannot_fit(
    store: TranscriptStore,
) -> None:
    store.apply(note("B", upsert("i1", recipientSessionId="B")))
    store.apply(outgoing(recipientMessageId="i1"))
    store.apply(note("C", upsert("x", recipientSessionId="B", recipientMessageId="i1")))
    contest = "A/o1, C/x all name this view, which names none of them (yet)"
    assert link(store, "B", "i1") == Link("conflict", None, contest)
    # C/x learns its sender, which is not transcript C: its reference fits no more.
    store.apply(note("C", upsert("x", senderSessionId="Z")))
    assert linked(store, ("A", "o1"), ("B", "i1"))


@pytest.mark.parametrize(("rivals", "more"), [(5, ""), (6, " and 1 more view(s)")])
def test_a_contest_names_five_views_and_counts_the_rest(
    store: TranscriptStore, rivals: int, more: str
) -> None:
    store.apply(note("B", upsert("i1", recipientSessionId="B")))
    for n in range(rivals):
        sender = f"C{n}"
        fields = {"senderSessionId": sender, "recipientSessionId": "B"}
        store.apply(note(sender, upsert("x", recipientMessageId="i1", **fields)))
    shown = ", ".join(f"C{n}/x" for n in range(5))
    assert link(store, "B", "i1") == Link(
        "conflict", None, f"{shown}{more} all name this view, which names none of them (yet)"
    )


def test_the_claims_index_lists_the_claimants_of_an_address() -> None:
    from acp_schema.transcripts.claims import ClaimIndex
    from acp_schema.transcripts.entries import MessageEntry

    index = ClaimIndex({})
    first, second = MessageEntry("A", "o1"), MessageEntry("C", "x")
    for entry in (first, second):
        entry.recipient_session_id, entry.recipient_message_id = "B", "i1"
    assert index.claimants(("B", "i1")) == []
    index.index(first)
    assert index.claimants(("B", "i1")) == [first]
    index.index(second)
    assert index.claimants(("B", "i1")) == [first, second]
    assert index.claimants(("B", "i2")) == []
