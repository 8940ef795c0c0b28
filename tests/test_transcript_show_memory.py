"""`transcript show` keeps little of what it printed (docs/performance.md, "`transcript show`
memory") and prints the same bytes as a show that keeps everything: the store lets go of a
printed message's blocks, the command spills what a second printing needs, and neither the
store nor the command imports pydantic or the models until a line needs them.
"""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest

from acp_schema.cli import main
from acp_schema.transcripts import (
    MessageEntry,
    NotSessionUpdateError,
    TranscriptStore,
    UpdateDecodeError,
    Version,
    cli,
)
from acp_schema.transcripts._model_path import ModelCodec, closed_update_kinds
from acp_schema.transcripts.store import _codec
from acp_schema.transcripts.wire import _dump_keys
from tests.bench.transcripts import generate_log
from tests.test_transcript_cli import GOOD_LOG, chunk, note, upsert, write_log

IMAGE = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
LINK = {"type": "resource_link", "uri": "file:///a.md", "name": "a"}


def varied_log(seed: int) -> list[str]:
    """The bench's interleaved views (late references, snapshots, `_meta` patches, chunk
    `_meta`s, conflicts), with some chunks turned into placeholder blocks and some text
    ending in a space, so that text joins across a first and a second printing."""
    rng = random.Random(seed)
    lines = []
    for raw in generate_log(1500, seed):
        message = json.loads(raw)
        update = message["params"]["update"]
        if update.get("sessionUpdate") == "session_message_chunk":
            roll = rng.random()
            if roll < 0.1:
                update["content"] = rng.choice([IMAGE, LINK])
            elif roll < 0.2:
                update["content"]["text"] += " "
        lines.append(json.dumps(message))
    return lines


def keeping_everything(lines: list[str], version: Version, as_json: bool) -> str:
    """What `transcript show` printed before it let go of anything: the same rule for when
    a message is printed, every record made from a store that keeps all content."""
    store = TranscriptStore(version)
    stream = io.StringIO()
    output = cli.JsonLines(stream) if as_json else cli.Text(stream)

    def record(entry: MessageEntry, updated: bool) -> None:
        if as_json:
            fields = {"record": "message", "updated": updated, **cli.message_fields(entry)}
            stream.write(cli.dumps(fields) + "\n")
        else:
            output.message(entry, updated=updated, shown=None)

    open_views: dict[str, MessageEntry] = {}
    printed: set[MessageEntry] = set()
    changed: dict[MessageEntry, None] = {}
    skipped = bad = 0
    for line in lines:
        try:
            entry = store.apply_skimming(line)
        except NotSessionUpdateError:
            skipped += 1
            continue
        except UpdateDecodeError:
            bad += 1
            continue
        if entry is None:
            continue
        if entry in printed:
            changed[entry] = None
            continue
        current = open_views.get(entry.session_id)
        if current is not entry:
            if current is not None:
                printed.add(current)
                record(current, False)
            open_views[entry.session_id] = entry
    for entry in open_views.values():
        record(entry, False)
    for entry in changed:
        record(entry, True)
    output.links(store)
    output.summary(store, bad, skipped, None)
    return stream.getvalue()


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("as_json", [False, True])
def test_show_prints_what_a_show_keeping_everything_prints(
    version: Version,
    as_json: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = varied_log(7)
    path = write_log(tmp_path, lines)
    parts: list[bool] = []  # for each spill record: whether it continues an earlier one
    put = cli.Spill.put

    def counting(spill: cli.Spill, part: cli.Shown, *, previous: int | None, replaced: bool) -> int:
        parts.append(previous is not None)
        return put(spill, part, previous=previous, replaced=replaced)

    monkeypatch.setattr(cli.Spill, "put", counting)
    code = main(["transcript", "show", str(path), "--protocol", version, *(["--json"] * as_json)])
    out = capsys.readouterr().out
    assert code in (0, 1)
    assert out == keeping_everything(lines, version, as_json)
    again = "(changed after it was shown)" if not as_json else '"updated": true'
    assert out.count(again) > 50  # many second printings, from the spill
    assert "[image]" in out or '"image"' in out
    assert parts.count(True) > 50  # later parts of printed messages were spilled too


def test_a_released_entry_holds_what_came_after() -> None:
    store = TranscriptStore("v2")
    entry = store.apply(note("A", chunk("o1", "one")))
    assert entry is not None
    store.apply(note("A", upsert("o1", senderSessionId="A", _meta={"k": 1})))
    store.release_content(entry)
    assert (entry.content, entry.chunks, entry.released) == ([], [], True)
    store.apply(note("A", chunk("o1", "two")))
    assert [block.text for block in entry.content] == ["two"]  # type: ignore[union-attr]
    assert [record.content.text for record in entry.chunks] == ["two"]  # type: ignore[union-attr]
    assert entry.replaced_since_release is False
    store.apply(note("A", upsert("o1", content=[{"type": "text", "text": "whole"}])))
    assert entry.replaced_since_release and len(entry.chunks) == 1
    assert [block.text for block in entry.content] == ["whole"]  # type: ignore[union-attr]
    # Identity and `_meta` stay.
    assert (entry.sender_session_id, entry.meta) == ("A", {"k": 1})


def test_show_of_a_fast_path_log_imports_no_models(tmp_path: Path) -> None:
    path = write_log(tmp_path, GOOD_LOG)
    probe = (
        "import sys\n"
        "from acp_schema.cli import main\n"
        f"code = main(['transcript', 'show', {str(path)!r}])\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', "
        "'pydantic_core') or m.endswith('._models') or m == 'importlib.metadata')\n"
        "print(code, heavy, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stderr.strip() == "0 []"
    assert "Links, after the whole log:" in done.stdout


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_skimming_knows_the_update_kinds_the_models_know(version: Version) -> None:
    models = ModelCodec(version)
    assert _codec(version).closed_kinds == closed_update_kinds(models.params_type)


def _structs(kind: Any, seen: set[type[Any]]) -> None:
    """The Struct types a type can hold, at any depth."""
    info = msgspec.inspect.type_info(kind) if isinstance(kind, type) else kind
    if isinstance(info, msgspec.inspect.StructType):
        if info.cls in seen:
            return
        seen.add(info.cls)
        for field in info.fields:
            _structs(field.type, seen)
    for inner in getattr(info, "types", ()):
        _structs(inner, seen)
    for name in ("item_type", "key_type", "value_type"):
        if getattr(info, name, None) is not None:
            _structs(getattr(info, name), seen)


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_wire_form_keys_of_every_block_struct_are_the_models(version: Version) -> None:
    import importlib

    fast = importlib.import_module(f"acp_schema.{version}.fast")
    seen: set[type[Any]] = set()
    _structs(msgspec.inspect.type_info(fast.ContentBlock), seen)
    assert len(seen) >= 6
    for struct in seen:
        tag, fields = _dump_keys(struct)
        keys = ([tag[0]] if tag else []) + [key for _, key in fields]
        fields_of_model = struct.model_type().model_fields.items()
        wire = [info.serialization_alias or info.alias or name for name, info in fields_of_model]
        assert keys == wire, struct
