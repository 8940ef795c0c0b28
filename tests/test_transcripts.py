"""Applying session messages to transcripts (acp_schema.transcripts): rules E, C, M, P.

Each test feeds whole JSON-RPC `session/update` messages, the way a Client receives them,
and reads the resulting entries; most run for v1 and v2.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from acp_schema import v1, v2
from acp_schema.transcripts import (
    Conflict,
    MessageEntry,
    NotSessionUpdateError,
    TranscriptStore,
    UpdateDecodeError,
    Version,
    wire_form,
)

VERSIONS = ("v1", "v2")
# Notification params and upsert types of each version.
PARAMS: dict[str, type[Any]] = {"v1": v1.SessionNotification, "v2": v2.UpdateSessionNotification}
UPSERT: dict[str, type[Any]] = {"v1": v1.SessionMessage, "v2": v2.SessionMessage}


def note(session_id: str, update: dict[str, Any]) -> dict[str, Any]:
    """A whole JSON-RPC session/update notification."""
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session_id, "update": update},
    }


def upsert(message_id: str, **fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "session_message", "messageId": message_id, **fields}


def chunk(message_id: str, text: str, **fields: Any) -> dict[str, Any]:
    content = {"type": "text", "text": text}
    return {
        "sessionUpdate": "session_message_chunk",
        "messageId": message_id,
        "content": content,
        **fields,
    }


def text(*parts: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": part} for part in parts]


def texts(store: TranscriptStore, session_id: str, message_id: str) -> list[str]:
    entry = store.entry(session_id, message_id)
    assert entry is not None
    return [block_text(block) for block in entry.content]


def block_text(block: object) -> str:
    text = getattr(block, "text", None)
    assert isinstance(text, str), f"not a text block: {block!r}"
    return text


def chunk_texts(entry: MessageEntry) -> list[str]:
    return [block_text(record.content) for record in entry.chunks]


def feed(store: TranscriptStore, session_id: str, *updates: dict[str, Any]) -> None:
    for update in updates:
        store.apply(note(session_id, update))


@pytest.fixture(params=VERSIONS)
def store(request: pytest.FixtureRequest) -> TranscriptStore:
    version: Version = request.param
    return TranscriptStore(version)


# --- rule E and the streaming scenario ---------------------------------------------------


def test_streaming_scenario(store: TranscriptStore) -> None:
    """Chunk first, another message interleaved, a snapshot, late participants, bare chunks."""
    feed(store, "A", chunk("o1", "Hel"))
    entry = store.entry("A", "o1")
    assert entry is not None
    assert (entry.sender_session_id, entry.recipient_session_id) == (None, None)
    assert entry.direction == "unknown"

    feed(store, "A", chunk("o2", "other "), chunk("o1", "lo"), chunk("o2", "message"))
    assert texts(store, "A", "o1") == ["Hel", "lo"]
    assert texts(store, "A", "o2") == ["other ", "message"]

    feed(store, "A", upsert("o1", content=text("Hello, world")))
    assert texts(store, "A", "o1") == ["Hello, world"]

    # Participants arrive late, in a metadata-only upsert: the content stays as it is.
    feed(store, "A", upsert("o1", senderSessionId="A", recipientSessionId="B"))
    assert texts(store, "A", "o1") == ["Hello, world"]
    assert (entry.sender_session_id, entry.recipient_session_id, entry.direction) == (
        "A",
        "B",
        "outgoing",
    )

    # Later chunks carry no identity (and identity sent on a chunk anyway is ignored).
    feed(store, "A", chunk("o1", "!"), chunk("o1", "?", senderSessionId="Z"))
    assert texts(store, "A", "o1") == ["Hello, world", "!", "?"]
    assert (entry.sender_session_id, entry.recipient_session_id) == ("A", "B")
    assert entry.conflicts == []

    # Still the same single inter-session message entry, the other one untouched.
    assert store.entry("A", "o1") is entry
    assert [e.message_id for e in store.entries("A")] == ["o1", "o2"]
    assert texts(store, "A", "o2") == ["other ", "message"]
    assert chunk_texts(entry) == ["Hel", "lo", "!", "?"]


def test_either_kind_creates_an_empty_entry(store: TranscriptStore) -> None:
    feed(store, "A", upsert("m1"), chunk("m2", "x"))
    first, second = store.entry("A", "m1"), store.entry("A", "m2")
    assert first is not None and second is not None
    assert (first.content, first.meta, first.sender_session_id) == ([], None, None)
    assert texts(store, "A", "m2") == ["x"]


def test_incoming_view_direction(store: TranscriptStore) -> None:
    feed(store, "B", upsert("i1", recipientSessionId="B"))
    entry = store.entry("B", "i1")
    assert entry is not None and entry.direction == "incoming"
    feed(store, "B", upsert("i1", senderSessionId="A"))
    assert entry.direction == "incoming"


def test_direction_unknown_when_neither_participant_is_this_transcript(
    store: TranscriptStore,
) -> None:
    feed(store, "C", upsert("m", senderSessionId="A", recipientSessionId="B"))
    entry = store.entry("C", "m")
    assert entry is not None and entry.direction == "unknown"


@pytest.mark.parametrize(
    ("references", "direction"),
    [
        ({}, "unknown"),
        ({"recipientMessageId": "i"}, "outgoing"),
        ({"senderMessageId": "o"}, "incoming"),
        ({"recipientMessageId": "i", "senderMessageId": "o"}, "unknown"),
    ],
    ids=["no-reference", "recipient-reference", "sender-reference", "both-references"],
)
def test_a_self_addressed_view_takes_its_direction_from_its_one_reference(
    store: TranscriptStore, references: dict[str, str], direction: str
) -> None:
    # A session writing to itself: both views sit in one transcript, so only the one
    # reference a view carries tells which it is; none, or both, tell nothing.
    feed(store, "A", upsert("m", senderSessionId="A", recipientSessionId="A", **references))
    entry = store.entry("A", "m")
    assert entry is not None and entry.direction == direction


def test_transcripts_are_separate_key_spaces(store: TranscriptStore) -> None:
    feed(store, "A", chunk("m1", "in A"))
    feed(store, "B", chunk("m1", "in B"))
    assert texts(store, "A", "m1") == ["in A"]
    assert texts(store, "B", "m1") == ["in B"]
    assert store.transcripts() == ["A", "B"]
    assert len(store) == 2


def test_other_update_kinds_neither_create_nor_touch_entries(store: TranscriptStore) -> None:
    """In v2 message IDs are unique per message type only: agent_message m1 is another m1."""
    feed(store, "A", chunk("m1", "session message"))
    other = {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m1",
        "content": {"type": "text", "text": "agent text"},
    }
    assert store.apply(note("A", other)) is None
    assert store.apply(note("B", {**other, "messageId": "m9"})) is None
    assert texts(store, "A", "m1") == ["session message"]
    assert store.entry("B", "m9") is None
    assert store.transcripts() == ["A"]
    assert store.is_loaded("B")  # the transcript has been seen, though it holds nothing


def test_unknown_update_kind_is_ignored_in_v2() -> None:
    store = TranscriptStore("v2")
    assert store.apply(note("A", {"sessionUpdate": "_vendor_thing", "x": 1})) is None
    assert len(store) == 0


def test_unknown_update_kind_does_not_decode_in_v1() -> None:
    """The v1 union is closed: an unknown kind is a decode error, the caller decides."""
    store = TranscriptStore("v1")
    with pytest.raises(UpdateDecodeError):
        store.apply(note("A", {"sessionUpdate": "_vendor_thing", "x": 1}))


# --- rule C: content ---------------------------------------------------------------------


def test_content_patch_rules(store: TranscriptStore) -> None:
    feed(store, "A", upsert("m", content=text("a", "b")))
    assert texts(store, "A", "m") == ["a", "b"]
    feed(store, "A", upsert("m", _meta={"k": 1}))  # omitted: unchanged
    assert texts(store, "A", "m") == ["a", "b"]
    feed(store, "A", upsert("m", content=text("c")))  # a non-empty array replaces
    assert texts(store, "A", "m") == ["c"]
    feed(store, "A", upsert("m", content=None))  # null clears
    assert texts(store, "A", "m") == []
    feed(store, "A", chunk("m", "d"), chunk("m", "e"))  # chunks append one block each
    assert texts(store, "A", "m") == ["d", "e"]


def test_empty_array_leaves_no_content_in_both_versions(store: TranscriptStore) -> None:
    """v1 calls `[]` a clear, v2 a replacement by nothing: either way nothing is left."""
    feed(store, "A", upsert("m", content=text("a")), upsert("m", content=[]))
    assert texts(store, "A", "m") == []
    feed(store, "A", chunk("m", "after"))
    assert texts(store, "A", "m") == ["after"]


def test_invalid_content_items_are_skipped_one_by_one(store: TranscriptStore) -> None:
    items = [{"type": "text", "text": "kept"}, {"type": "text"}, {"type": "text", "text": "too"}]
    feed(store, "A", upsert("m", content=items))
    assert texts(store, "A", "m") == ["kept", "too"]


def test_content_of_wrong_type_counts_as_omitted(store: TranscriptStore) -> None:
    feed(store, "A", upsert("m", content=text("a")), upsert("m", content="not an array"))
    assert texts(store, "A", "m") == ["a"]
    feed(store, "A", upsert("m", content={"type": "text", "text": "an object"}))
    assert texts(store, "A", "m") == ["a"]


def test_chunk_appends_after_snapshot_content(store: TranscriptStore) -> None:
    feed(store, "A", upsert("m", content=text("a", "b")), chunk("m", "c"))
    assert texts(store, "A", "m") == ["a", "b", "c"]
    entry = store.entry("A", "m")
    assert entry is not None
    assert chunk_texts(entry) == ["c"]
    # The history keeps only chunks, also once another snapshot replaces the content.
    feed(store, "A", upsert("m", content=text("d")), chunk("m", "e"))
    assert texts(store, "A", "m") == ["d", "e"]
    assert chunk_texts(entry) == ["c", "e"]


def test_chunk_history_survives_a_snapshot(store: TranscriptStore) -> None:
    feed(store, "A", chunk("m", "a"), chunk("m", "b", _meta={"n": 2}))
    feed(store, "A", upsert("m", content=text("whole")), chunk("m", "c"))
    entry = store.entry("A", "m")
    assert entry is not None
    assert texts(store, "A", "m") == ["whole", "c"]
    history = [(block_text(c.content), c.meta) for c in entry.chunks]
    assert history == [("a", None), ("b", {"n": 2}), ("c", None)]


def test_non_text_blocks_are_kept(store: TranscriptStore) -> None:
    image = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    feed(store, "A", upsert("m", content=[image]))
    entry = store.entry("A", "m")
    assert entry is not None
    (block,) = entry.content
    assert type(block).__name__ == "ImageContent"
    assert wire_form(block) == image


# --- rule M: _meta -----------------------------------------------------------------------


def test_meta_v1_replaces_wholesale() -> None:
    store = TranscriptStore("v1")
    feed(store, "A", upsert("m", _meta={"a": 1, "b": {"x": 1}}))
    feed(store, "A", upsert("m", _meta={"b": {"y": 2}, "c": None}))
    entry = store.entry("A", "m")
    assert entry is not None and entry.meta == {"b": {"y": 2}, "c": None}


def test_meta_v2_patches_top_level_keys() -> None:
    store = TranscriptStore("v2")
    feed(store, "A", upsert("m", _meta={"a": 1, "b": {"x": 1}, "keep": True}))
    feed(store, "A", upsert("m", _meta={"a": None, "b": {"y": 2}, "c": None, "d": 4}))
    entry = store.entry("A", "m")
    # a removed, b replaced without merging, c (null, absent) not added, d added, keep kept.
    assert entry is not None and entry.meta == {"b": {"y": 2}, "keep": True, "d": 4}


def test_meta_v2_patch_on_an_entry_without_meta() -> None:
    store = TranscriptStore("v2")
    feed(store, "A", upsert("m", _meta={"gone": None, "k": "v"}))
    entry = store.entry("A", "m")
    assert entry is not None and entry.meta == {"k": "v"}


def test_meta_null_clears_omitted_and_malformed_leave(store: TranscriptStore) -> None:
    feed(store, "A", upsert("m", _meta={"k": 1}))
    entry = store.entry("A", "m")
    assert entry is not None
    feed(store, "A", upsert("m", content=text("x")))
    assert entry.meta == {"k": 1}
    feed(store, "A", upsert("m", _meta=["not", "an", "object"]), upsert("m", _meta=5))
    assert entry.meta == {"k": 1}
    feed(store, "A", upsert("m", _meta=None))
    assert entry.meta is None


def test_meta_is_not_shared_with_the_decoded_update(store: TranscriptStore) -> None:
    meta = {"k": 1}
    update = UPSERT[store.version](message_id="m", meta=meta)
    store.apply(PARAMS[store.version](session_id="A", update=update))
    meta["k"] = 2
    update.meta["k"] = 3
    entry = store.entry("A", "m")
    assert entry is not None and entry.meta == {"k": 1}


def test_chunk_meta_stays_on_the_chunk(store: TranscriptStore) -> None:
    feed(store, "A", upsert("m", _meta={"entry": True}))
    feed(store, "A", chunk("m", "a", _meta={"chunk": 1}), chunk("m", "b", _meta=None))
    feed(store, "A", chunk("m", "c", _meta="malformed"))
    entry = store.entry("A", "m")
    assert entry is not None
    assert entry.meta == {"entry": True}
    assert [c.meta for c in entry.chunks] == [{"chunk": 1}, None, None]


# --- rule P: participant IDs and references ----------------------------------------------

IDENTITY = {
    "senderSessionId": "sender_session_id",
    "recipientSessionId": "recipient_session_id",
    "senderMessageId": "sender_message_id",
    "recipientMessageId": "recipient_message_id",
}


@pytest.mark.parametrize("wire", IDENTITY)
def test_first_value_sticks_and_a_different_one_is_a_conflict(
    store: TranscriptStore, wire: str
) -> None:
    attr = IDENTITY[wire]
    feed(store, "A", upsert("m", **{wire: "first"}))
    entry = store.entry("A", "m")
    assert entry is not None and getattr(entry, attr) == "first"
    feed(store, "A", upsert("m", **{wire: "first"}))  # the same value: nothing to report
    assert entry.conflicts == []
    feed(store, "A", upsert("m", **{wire: "second"}, content=text("still applied")))
    feed(store, "A", upsert("m", **{wire: "second"}))  # reported once
    assert getattr(entry, attr) == "first"
    assert entry.conflicts == [Conflict(wire, "first", "second")]
    assert str(entry.conflicts[0]) == f"{wire}: kept 'first', ignored 'second'"
    # The rest of the conflicting update was applied.
    assert texts(store, "A", "m") == ["still applied"]


@pytest.mark.parametrize("wire", IDENTITY)
@pytest.mark.parametrize("not_supplied", [None, 7, ["A"], {"id": "A"}, True])
def test_null_and_malformed_values_are_not_supplied(
    store: TranscriptStore, wire: str, not_supplied: object
) -> None:
    attr = IDENTITY[wire]
    feed(store, "A", upsert("m", **{wire: not_supplied}))
    entry = store.entry("A", "m")
    assert entry is not None and getattr(entry, attr) is None
    feed(store, "A", upsert("m", **{wire: "known"}), upsert("m", **{wire: not_supplied}))
    assert getattr(entry, attr) == "known"
    assert entry.conflicts == []


def test_omitted_identity_keeps_known_values(store: TranscriptStore) -> None:
    feed(store, "A", upsert("m", senderSessionId="A", recipientMessageId="i"))
    feed(store, "A", upsert("m", content=text("x")), chunk("m", "y"))
    entry = store.entry("A", "m")
    assert entry is not None
    assert (entry.sender_session_id, entry.recipient_message_id) == ("A", "i")


def test_identity_on_a_chunk_is_ignored(store: TranscriptStore) -> None:
    feed(store, "B", chunk("i", "x", senderSessionId="A", recipientSessionId="B"))
    entry = store.entry("B", "i")
    assert entry is not None
    assert (entry.sender_session_id, entry.recipient_session_id) == (None, None)
    # ...and does not conflict with the values an upsert brings later.
    feed(store, "B", upsert("i", senderSessionId="C"), chunk("i", "y", senderSessionId="D"))
    assert entry.sender_session_id == "C" and entry.conflicts == []


# --- input forms and errors --------------------------------------------------------------


def test_every_input_form_gives_the_same_entry(store: TranscriptStore) -> None:
    message = note("A", upsert("m", senderSessionId="A", content=text("x"), _meta={"k": 1}))
    forms: list[Any] = [
        message,
        json.dumps(message),
        json.dumps(message).encode(),
        PARAMS[store.version].model_validate(message["params"]),
    ]
    seen = []
    for form in forms:
        single = TranscriptStore(store.version)
        entry = single.apply(form)
        assert entry is not None
        seen.append((entry.sender_session_id, texts(single, "A", "m"), entry.meta))
    assert seen == [("A", ["x"], {"k": 1})] * len(forms)


def snapshot(store: TranscriptStore) -> list[tuple[object, ...]]:
    return [
        (e.address, e.sender_session_id, e.recipient_message_id, len(e.content), e.meta)
        for e in store
    ]


SESSION_UPDATE = {"jsonrpc": "2.0", "method": "session/update"}
BAD_SESSION_UPDATES = {
    "no messageId": note("A", {"sessionUpdate": "session_message"}),
    "null messageId": note("A", upsert("m") | {"messageId": None}),
    "numeric messageId": note("A", upsert("m") | {"messageId": 5}),
    "chunk without content": note("A", {k: v for k, v in chunk("m", "").items() if k != "content"}),
    "no sessionId": {**SESSION_UPDATE, "params": {"update": upsert("m")}},
    "no params": SESSION_UPDATE,
    "an id": {**note("A", upsert("m")), "id": 1},
}


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (json.dumps(BAD_SESSION_UPDATES["no messageId"]), "messageId: Field required"),
        (json.dumps(BAD_SESSION_UPDATES["null messageId"]), "messageId: Input should be"),
        (json.dumps(BAD_SESSION_UPDATES["numeric messageId"]), "messageId: Input should be"),
        (json.dumps(BAD_SESSION_UPDATES["chunk without content"]), "content: Field required"),
        (json.dumps(BAD_SESSION_UPDATES["no sessionId"]), "sessionId: Field required"),
        (json.dumps(BAD_SESSION_UPDATES["no params"]), "without params"),
        (json.dumps(BAD_SESSION_UPDATES["an id"]), "has an `id`"),
        ('{"jsonrpc": "2.0", "method": "session/update", ', "invalid JSON"),
        ('["not", "an", "object"]', "not a JSON-RPC 2.0 message"),
        ('{"method": "session/update", "params": {}}', "not a JSON-RPC 2.0 message"),
    ],
)
def test_undecodable_session_update_raises_and_changes_nothing(
    store: TranscriptStore, line: str, message: str
) -> None:
    feed(store, "A", upsert("m", senderSessionId="A", content=text("x"), _meta={"k": 1}))
    before = snapshot(store)
    with pytest.raises(UpdateDecodeError, match=message):
        store.apply(line)
    assert snapshot(store) == before


def test_decode_error_keeps_the_pydantic_error_as_cause(store: TranscriptStore) -> None:
    with pytest.raises(UpdateDecodeError) as caught:
        store.apply(note("A", {"sessionUpdate": "session_message"}))
    assert "update.messageId" in str(caught.value)
    assert caught.value.__cause__ is not None


@pytest.mark.parametrize(
    "message",
    [
        {"jsonrpc": "2.0", "id": 1, "result": {}},
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}},
        {"jsonrpc": "2.0", "id": 2, "method": "session/request_permission", "params": {}},
    ],
)
def test_other_jsonrpc_messages_are_not_session_updates(
    store: TranscriptStore, message: dict[str, Any]
) -> None:
    with pytest.raises(NotSessionUpdateError):
        store.apply(message)
    with pytest.raises(NotSessionUpdateError):
        store.apply(json.dumps(message))
    assert len(store) == 0


def test_a_model_of_the_other_version_is_refused() -> None:
    store = TranscriptStore("v1")
    params = v2.UpdateSessionNotification(session_id="A", update=v2.SessionMessage(message_id="m"))
    with pytest.raises(TypeError, match="v1 store applies SessionNotification"):
        store.apply(params)


def test_unknown_version_is_refused() -> None:
    with pytest.raises(ValueError, match="'v3'"):
        TranscriptStore("v3")  # type: ignore[arg-type]


# --- hostile nesting ---------------------------------------------------------------------


def nested(depth: int) -> Any:
    value: Any = 0
    for _ in range(depth):
        value = [value]
    return value


def test_deep_nesting_is_a_decode_error_never_a_recursion_error(store: TranscriptStore) -> None:
    """Deeper than any supported Python can hold: the same error on every one."""
    depth = 100_000
    line = json.dumps(note("A", upsert("m", _meta={"x": 0}))).replace(
        '"x": 0', '"x": ' + "[" * depth + "]" * depth
    )
    for form in (line, line.encode()):
        with pytest.raises(UpdateDecodeError, match="nested too deeply to decode"):
            store.apply(form)
        with pytest.raises(UpdateDecodeError, match="nested too deeply to decode"):
            store.apply_skimming(form)
    assert len(store) == 0


def test_nesting_the_interpreter_can_hold_decodes_or_is_the_same_error(
    store: TranscriptStore,
) -> None:
    """5,000 levels: Python 3.10-3.12 cannot hold them (the decode error), 3.13 can (the
    entry, its `_meta` whole); any depth the interpreter can hold decodes, never a
    RecursionError either way."""
    depth = 5_000
    line = json.dumps(note("A", upsert("m", _meta={"x": 0}))).replace(
        '"x": 0', '"x": ' + "[" * depth + "]" * depth
    )
    for apply in (store.apply, store.apply_skimming):
        try:
            entry = apply(line)
        except UpdateDecodeError as error:
            assert str(error) == "invalid JSON: nested too deeply to decode"
            assert len(store) == 0
            continue
        assert entry is not None and entry.meta is not None
        value, levels = entry.meta["x"], 0
        while value:
            value, levels = value[0], levels + 1
        assert levels == depth - 1


@pytest.mark.parametrize("depth", [195, 300])
def test_nesting_the_bindings_decode_is_kept(store: TranscriptStore, depth: int) -> None:
    # Deeper than pydantic-core's own parser (200 levels, the message's 5 included) too: the
    # bindings decode any depth the interpreter holds, as the TypeScript SDK does.
    line = json.dumps(note("A", upsert("m", _meta={"x": nested(depth)})))
    entry = store.apply(line)
    assert entry is not None and entry.meta == {"x": nested(depth)}


def test_a_dict_nested_deeper_than_python_can_walk(store: TranscriptStore) -> None:
    """A Python caller's own dict: whatever pydantic does with it, no RecursionError."""
    message = note("A", upsert("m", content=[{"type": "text", "text": "x"}]))
    message["params"]["update"]["content"][0]["annotations"] = {"audience": nested(100_000)}
    entry = store.apply(message)  # the bad annotations are dropped (they decode leniently)
    assert entry is not None and texts(store, "A", "m") == ["x"]


# --- skimming other update kinds (what `transcript show` reads logs with) ----------------


def test_skimming_applies_session_messages_like_apply(store: TranscriptStore) -> None:
    line = json.dumps(note("A", upsert("m", senderSessionId="A", content=text("hi"))))
    entry = store.apply_skimming(line.encode())
    assert entry is not None and texts(store, "A", "m") == ["hi"]
    # A tag written with JSON escapes is not found by the byte search, and still applied.
    escaped = json.dumps(note("A", chunk("m", "!"))).replace(
        "session_message", "session\\u005fmessage"
    )
    assert store.apply_skimming(escaped) is entry
    assert texts(store, "A", "m") == ["hi", "!"]


def test_skimming_does_not_decode_other_update_kinds(
    store: TranscriptStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_full_decode(*args: object) -> None:
        raise AssertionError("decoded in full")

    monkeypatch.setattr(store, "apply", no_full_decode)
    # A known kind with a body the bindings would refuse: not validated, just skipped.
    agent = {"sessionUpdate": "agent_message_chunk", "content": 5}
    assert store.apply_skimming(json.dumps(note("B", agent))) is None
    assert store.is_loaded("B")
    with pytest.raises(NotSessionUpdateError):
        store.apply_skimming(b'{"jsonrpc": "2.0", "id": 1, "result": {}}')
    with pytest.raises(NotSessionUpdateError):
        store.apply_skimming(b'{"jsonrpc": "2.0", "method": "fs/read", "params": {}}')
    assert len(store) == 0


@pytest.mark.parametrize(
    "line",
    [
        "{not json",
        json.dumps({**note("A", {"sessionUpdate": "plan"}), "jsonrpc": "1.0"}),
        json.dumps({**note("A", {"sessionUpdate": "plan"}), "id": 3}),
        json.dumps(note("A", {"sessionUpdate": 7})),
        json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": 1}}),
    ],
)
def test_skimming_reports_what_apply_reports(store: TranscriptStore, line: str) -> None:
    with pytest.raises(UpdateDecodeError) as skimmed:
        store.apply_skimming(line)
    with pytest.raises(UpdateDecodeError) as applied:
        store.apply(line)
    assert str(skimmed.value) == str(applied.value)
    assert not store.is_loaded("A")


def test_skimming_refuses_nan_as_apply_does(store: TranscriptStore) -> None:
    """`NaN` is not JSON, whichever update kind carries it; `Infinity` in a free-form
    `_meta` decodes (docs/bindings.md), so a skimmed update with it is still skipped."""
    plan = {"sessionUpdate": "plan", "entries": [], "_meta": {"x": 1.5}}
    line = json.dumps(note("A", plan))
    with pytest.raises(UpdateDecodeError) as applied:
        store.apply(line.replace("1.5", "NaN"))
    for form in (line.replace("1.5", "NaN"), line.replace("1.5", "NaN").encode()):
        with pytest.raises(UpdateDecodeError) as skimmed:
            store.apply_skimming(form)
        assert str(skimmed.value) == str(applied.value)
    assert "NaN is not JSON" in str(applied.value)
    assert not store.is_loaded("A")
    assert store.apply_skimming(line.replace("1.5", "Infinity")) is None
    assert store.is_loaded("A")


def test_skimming_v1_still_refuses_unknown_update_kinds() -> None:
    """v1's update union is closed: an unknown kind is an error there, skimmed or not."""
    line = json.dumps(note("A", {"sessionUpdate": "_vendor_thing"}))
    with pytest.raises(UpdateDecodeError, match="does not decode"):
        TranscriptStore("v1").apply_skimming(line)
    assert TranscriptStore("v2").apply_skimming(line) is None


def test_link_texts_say_the_state_and_why() -> None:
    from acp_schema.transcripts import Address, Link

    there = Address("B", "i1")
    assert str(Link("linked", there)) == "linked with B/i1"
    assert str(Link("linked", there, "a note")) == "linked with B/i1 (despite a note)"
    assert str(Link("pending", there, "not loaded")) == "pending: B/i1 (not loaded)"
    assert str(Link("conflict", None, "both")) == "unlinked, conflict: both"
    assert str(Link("none")) == "no reference yet"
    assert str(Link("none", None, "senderSessionId missing")) == (
        "no reference yet (senderSessionId missing)"
    )


def test_an_entry_shows_what_it_knows() -> None:
    store = TranscriptStore("v1")
    feed(store, "A", upsert("o1", senderSessionId="A", recipientMessageId="i1"), chunk("o1", "x"))
    entry = store.entry("A", "o1")
    assert repr(entry) == (
        "MessageEntry('A', 'o1', sender_session_id='A', recipient_message_id='i1', 1 block(s))"
    )
