"""The transcript store's fast path (msgspec Structs, `acp_schema._fast`) changes nothing
a user can observe: `transcript show` prints the same bytes, and a store ends in the same
state, whether a line was decoded by the Structs or by the models.

`TranscriptStore._fast_path = False` turns the fast path off (the models decode every
line); each test runs both ways and checks that both paths were actually taken.
"""

from __future__ import annotations

import importlib
import json
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import TypeAdapter

from acp_schema._fast import FastStruct
from acp_schema.cli import main
from acp_schema.transcripts import TranscriptError, TranscriptStore, Version, wire_form
from acp_schema.transcripts.store import _codec
from tests.test_bindings_properties import SETTINGS, mutated, strategies
from tests.test_transcript_cli import note, upsert

VERSIONS: tuple[Version, ...] = ("v1", "v2")
SESSIONS = ("A", "B", "C")
MESSAGES = ("o1", "i1", "m")


def chunk(message_id: Any, content: Any, **fields: Any) -> dict[str, Any]:
    return {
        "sessionUpdate": "session_message_chunk",
        "messageId": message_id,
        "content": content,
        **fields,
    }


def text(value: str, **fields: Any) -> dict[str, Any]:
    return {"type": "text", "text": value, **fields}


AB = {"senderSessionId": "A", "recipientSessionId": "B"}
IMAGE = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
LINK = {"type": "resource_link", "uri": "file:///a.md", "name": "a", "size": 3}
RESOURCE = {"type": "resource", "resource": {"uri": "file:///b.md", "text": "b"}}
# A binary resource has no Struct form (its union keeps the text member only).
BLOB = {"type": "resource", "resource": {"uri": "file:///b.png", "blob": "aGk="}}

# Lines each path takes, and lines only the models take (unknown keys, unknown kinds,
# values the models read leniently), interleaved on the same entries.
VARIED_LOG = [
    json.dumps({"jsonrpc": "2.0", "id": 0, "result": {}}),
    note("A", chunk("o1", text("Please "))),
    note("A", chunk("o1", text("run"), senderSessionId="A")),  # a key the revision removed
    note("A", upsert("o1", **AB, _meta={"trace": 1, "big": 2**70, "f": 1.5})),
    note("A", chunk("o1", text(" the tests.", annotations={"priority": True}))),  # on error
    note("A", chunk("o1", LINK, _meta={"n": 1})),
    note("A", chunk("o1", {**LINK, "size": 3.0})),  # an integral float for an integer
    note("B", upsert("i1", **AB, content=[text("Please run the tests."), IMAGE, RESOURCE])),
    note("B", upsert("i1", senderMessageId="o1", extra="kept by the model")),  # unknown key
    note("A", upsert("o1", recipientMessageId="i1", senderSessionId="Z")),  # a conflict
    note("A", upsert("o1", recipientSessionId=5)),  # malformed: not supplied
    note("A", upsert("o2", senderSessionId="A", recipientSessionId="C", recipientMessageId="c")),
    note("A", upsert("o2", content="not an array", _meta=[1])),  # both count as omitted
    note("A", upsert("o2", content=[text("kept"), {"type": "nope"}])),  # one item skipped
    note("A", upsert("o2", _meta={"a": 1, "b": {"c": None}})),
    note("A", upsert("o2", _meta={"a": None, "d": "\u202e\x1b"})),  # v2 patches, v1 replaces
    note("A", chunk("o2", text("x")), id=4),  # a notification with an id
    note("A", upsert(7)),  # a messageId that is not a string
    note("B", upsert("m", content=[])),
    note("B", chunk("m", text("a")), extra=True),  # an unknown envelope key
    note("B", chunk("m", text("b"), _meta=None)),
    note("B", upsert("m", content=None, _meta={"x": 1e400})),
    note("B", {"sessionUpdate": "agent_message_chunk", "content": text("other")}),
    note("B", {"sessionUpdate": "some_future_kind", "x": 1}),  # v2: Other; v1: an error
    note("C", {"sessionUpdate": "session_\\u006dessage", "messageId": "esc"}).replace(
        "\\\\u006d", "\\u006d"
    ),  # the tag written with an escape
    note("C", upsert("c", **AB)).replace('"c"', "NaN", 1),
    note("C", upsert("c", senderSessionId="A", recipientSessionId="C", senderMessageId="o2")),
    '{"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "C", "update": {',
    json.dumps({"jsonrpc": "2.0", "method": "session/prompt", "params": {}}),
    note("A", chunk("o1", text("late"), _meta={"n": 2})),
]


def run_show(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    *,
    fast: bool,
) -> tuple[int, str, str]:
    monkeypatch.setattr(TranscriptStore, "_fast_path", fast)
    code = main(["transcript", "show", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


class FastCounts:
    """Counts the lines the fast path took and refused (wraps each version's decoder)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.counts: Counter[str] = Counter()
        for version in VERSIONS:
            codec = _codec(version)
            monkeypatch.setattr(codec, "fast_decode", self._counting(codec.fast_decode))

    def _counting(self, decode: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def counting(data: Any) -> Any:
            try:
                result = decode(data)
            except msgspec.DecodeError:
                self.counts["refused"] += 1
                raise
            self.counts["taken"] += 1
            return result

        return counting


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("form", ["text", "json"])
def test_show_prints_the_same_bytes_either_way(
    version: Version,
    form: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(VARIED_LOG) + "\n", encoding="utf-8")
    args = [str(path), "--protocol", version, *(["--json"] if form == "json" else [])]
    counts = FastCounts(monkeypatch)

    models_only = run_show(monkeypatch, capsys, args, fast=False)
    assert counts.counts == {}
    fast_first = run_show(monkeypatch, capsys, args, fast=True)
    assert counts.counts["taken"] >= 8 and counts.counts["refused"] >= 8

    assert fast_first == models_only
    code, out, err = models_only
    assert code == 1 and err.count(f"{path}:") >= 4  # the bad lines were reported
    assert all(f"{name}" in out for name in ("o1", "i1", "o2", "Please run"))


def test_blocks_follow_the_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    """A block is the Struct when its line took the fast path, else the model."""
    store = TranscriptStore("v2")
    store.apply(note("A", chunk("o1", text("fast"))))
    store.apply(note("A", chunk("o1", text("slow"), senderSessionId="A")))
    store.apply(note("A", chunk("o1", BLOB)))  # no Struct form: the model
    entry = store.entry("A", "o1")
    assert entry is not None
    kinds = [(type(b).__name__, isinstance(b, FastStruct)) for b in entry.content]
    assert kinds == [("TextContent", True), ("TextContent", False), ("EmbeddedResource", False)]
    assert [type(record.content) for record in entry.chunks] == [type(b) for b in entry.content]
    assert [wire_form(b) for b in entry.content] == [text("fast"), text("slow"), BLOB]

    monkeypatch.setattr(TranscriptStore, "_fast_path", False)
    models = TranscriptStore("v2")
    models.apply(note("A", chunk("o1", text("fast"))))
    block = models.entry("A", "o1").content[0]  # type: ignore[union-attr]
    assert not isinstance(block, FastStruct)


@pytest.mark.parametrize("version", VERSIONS)
def test_errors_are_the_models_errors(version: Version) -> None:
    """Lines the Structs refuse raise what the models raise, from `str` and `bytes` alike."""
    bad = [
        note("A", upsert("\udc80")),  # json.dumps escapes the lone surrogate
        note("A", upsert("o1"), id=3),
        note("A", upsert(None)),
        '{"jsonrpc": "2.0", "method": "session/update", "params": ',
    ]
    # A `str` holding a lone surrogate itself (not Unicode text; bytes get it escaped).
    raw_surrogate = note("A", upsert("x")).replace('"x"', '"\udc80"')
    for line in [*bad, raw_surrogate]:
        found = []
        for fast in (True, False):
            store = TranscriptStore(version)
            if not fast:
                store._fast_decode = None
            for data in (line, line.encode(errors="surrogateescape")):
                with pytest.raises(TranscriptError) as error:
                    store.apply(data)
                found.append((type(error.value), str(error.value)))
            assert len(store) == 0
        assert found[:2] == found[2:]


def test_fast_params_are_applied() -> None:
    """`apply` takes the fast params Struct as it takes the params model."""
    from acp_schema.v2 import fast

    params = fast.UpdateSessionNotification.decode_json(
        json.dumps({"sessionId": "A", "update": upsert("o1", **AB, content=[text("hi")])})
    )
    assert isinstance(params, fast.UpdateSessionNotification)
    store = TranscriptStore("v2")
    entry = store.apply(params)
    assert entry is not None and entry.direction == "outgoing"
    assert [wire_form(b) for b in entry.content] == [text("hi")]


@pytest.mark.parametrize("version", VERSIONS)
@SETTINGS
@given(data=st.data())
def test_wire_form_of_a_struct_is_the_models_dump(version: Version, data: st.DataObject) -> None:
    """Same keys, same order, same values as the model decoded from the same text."""
    package = importlib.import_module(f"acp_schema.{version}")
    text = json.dumps(data.draw(strategies(version).for_def("ContentBlock")))
    try:
        block = msgspec.json.decode(text, type=package.fast.ContentBlock)
    except msgspec.DecodeError:
        return  # the model's path; its wire form is the model's own dump
    model = TypeAdapter(package.ContentBlock).validate_json(text)
    assert json.dumps(wire_form(block)) == json.dumps(model.model_dump(mode="json"))


# --- the same state, whichever path decoded each line -------------------------------------


def tagged(tag: str) -> Callable[[Any], Any]:
    def add(update: Any) -> Any:
        return {"sessionUpdate": tag, **update} if isinstance(update, dict) else update

    return add


def anchored(version: str) -> st.SearchStrategy[Any]:
    """Notification params (schema instances, some with a value replaced by junk) whose
    session and message IDs come from a few, so that updates meet on entries."""
    gen = strategies(version)
    name = "SessionNotification" if version == "v1" else "UpdateSessionNotification"
    # The definitions leave out the tag, which the update union adds.
    ours = gen.for_def("SessionMessage").map(tagged("session_message")) | gen.for_def(
        "SessionMessageChunk"
    ).map(tagged("session_message_chunk"))
    params = (
        st.fixed_dictionaries({"sessionId": st.sampled_from(SESSIONS), "update": ours})
        | gen.for_def(name)
        | mutated(version)
    )
    ids = st.fixed_dictionaries(
        {
            "sessionId": st.sampled_from(SESSIONS),
            "messageId": st.sampled_from(MESSAGES),
            "senderSessionId": st.sampled_from(SESSIONS),
            "recipientSessionId": st.sampled_from(SESSIONS),
            "senderMessageId": st.sampled_from(MESSAGES),
            "recipientMessageId": st.sampled_from(MESSAGES),
        }
    )

    def anchor(pair: tuple[Any, dict[str, str]]) -> Any:
        value, fixed = pair
        if isinstance(value, dict):
            if isinstance(value.get("sessionId"), str):
                value["sessionId"] = fixed["sessionId"]
            update = value.get("update")
            if isinstance(update, dict):
                for key, replacement in fixed.items():
                    if isinstance(update.get(key), str):
                        update[key] = replacement
        return value

    return st.tuples(params, ids).map(anchor)


def lines(version: str) -> st.SearchStrategy[list[tuple[str, bool]]]:
    """JSON-RPC lines (a few with an `id` or another unknown envelope key), each with
    whether to feed it to `apply_skimming` rather than `apply`."""
    envelope = st.sampled_from([{}, {}, {}, {"id": 1}, {"x": None}])
    line = st.tuples(anchored(version), envelope).map(
        lambda pair: json.dumps(
            {"jsonrpc": "2.0", "method": "session/update", "params": pair[0], **pair[1]}
        )
    )
    return st.lists(st.tuples(line, st.booleans()), min_size=1, max_size=12)


def feed(store: TranscriptStore, fed: list[tuple[str, bool]]) -> list[object]:
    outcomes: list[object] = []
    for line, skimming in fed:
        try:
            entry = store.apply_skimming(line) if skimming else store.apply(line.encode())
        except TranscriptError as error:
            outcomes.append((type(error).__name__, str(error)))
        else:
            outcomes.append(None if entry is None else entry.address)
    return outcomes


def state(store: TranscriptStore) -> Iterator[object]:
    yield store.transcripts()
    yield [session for session in SESSIONS if store.is_loaded(session)]
    for entry in store:
        yield (
            entry.address,
            entry.sender_session_id,
            entry.recipient_session_id,
            entry.sender_message_id,
            entry.recipient_message_id,
            entry.direction,
            json.dumps([wire_form(block) for block in entry.content]),
            entry.meta,
            json.dumps([(wire_form(c.content), c.meta) for c in entry.chunks]),
            entry.conflicts,
            store.link(entry.session_id, entry.message_id),
        )


@pytest.mark.parametrize("version", VERSIONS)
@SETTINGS
@given(data=st.data())
def test_a_store_ends_in_the_same_state_either_way(version: Version, data: st.DataObject) -> None:
    fed = data.draw(lines(version))
    fast = TranscriptStore(version)
    models = TranscriptStore(version)
    models._fast_decode = None  # the models decode every line
    assert feed(fast, fed) == feed(models, fed)
    assert list(state(fast)) == list(state(models))
