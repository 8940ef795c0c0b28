"""Behaviour of ``acp-schema transcript show`` (acp_schema.transcripts.cli)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_schema.cli import main


def note(session_id: str, update: dict[str, Any]) -> str:
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session_id, "update": update},
    }
    return json.dumps(message)


def upsert(message_id: str, **fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "session_message", "messageId": message_id, **fields}


def chunk(message_id: str, text: str) -> dict[str, Any]:
    return {
        "sessionUpdate": "session_message_chunk",
        "messageId": message_id,
        "content": {"type": "text", "text": text},
    }


AB = {"senderSessionId": "A", "recipientSessionId": "B"}
IMAGE = {"type": "image", "data": "AAAA", "mimeType": "image/png"}
LINK = {"type": "resource_link", "uri": "file:///notes.md", "name": "notes"}

# A's outgoing view streams and learns its reference late; B reports the incoming view
# as one snapshot; A also writes to C, whose transcript is not in the log.
GOOD_LOG = [
    json.dumps({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}),
    note("A", chunk("o1", "Please run ")),
    note("A", upsert("o1", **AB)),
    note("A", chunk("o1", "the tests.")),
    note("B", upsert("i1", **AB, content=[{"type": "text", "text": "Please run the tests."}])),
    note("A", upsert("o1", recipientMessageId="i1")),
    note("A", upsert("o2", senderSessionId="A", recipientSessionId="C", recipientMessageId="c1")),
    note("A", chunk("o2", "See")),
    note("A", {"sessionUpdate": "session_message_chunk", "messageId": "o2", "content": LINK}),
    note("B", chunk("m", "Who wrote this?")),
    note("B", upsert("m", content=[IMAGE])),
    note("A", {**chunk("o1", "unrelated"), "sessionUpdate": "agent_message_chunk"}),
    json.dumps({"jsonrpc": "2.0", "id": 7, "method": "session/request_permission", "params": {}}),
]


def write_log(tmp_path: Path, lines: list[str]) -> Path:
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_log(tmp_path, GOOD_LOG)
    assert main(["transcript", "show", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.splitlines() == [
        "Transcript A (2 session messages)",
        "  o1: To B  [linked with B/i1]",
        "      Please run the tests.",
        "  o2: To C  [pending: C/c1 (that transcript is not loaded)]",
        "      See [resource_link file:///notes.md]",
        "Transcript B (2 session messages)",
        "  i1: From A  [linked with A/o1]",
        "      Please run the tests.",
        "  m: (participants unknown)  [no reference yet]",
        "      [image]",
        "0 bad line(s), 2 other message(s) skipped",
    ]


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_log(tmp_path, GOOD_LOG)
    assert main(["transcript", "show", str(path), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["version"] == "v2"
    assert (document["badLines"], document["skipped"]) == ([], 2)
    transcripts = {t["sessionId"]: t["messages"] for t in document["transcripts"]}
    assert list(transcripts) == ["A", "B"]
    o1, o2 = transcripts["A"]
    assert o1["direction"] == "outgoing"
    assert (o1["senderSessionId"], o1["recipientSessionId"]) == ("A", "B")
    assert o1["recipientMessageId"] == "i1" and o1["senderMessageId"] is None
    assert o1["text"] == "Please run the tests."
    assert o1["content"] == [
        {"type": "text", "text": "Please run "},
        {"type": "text", "text": "the tests."},
    ]
    assert o1["link"] == {"state": "linked", "sessionId": "B", "messageId": "i1", "reason": ""}
    assert o2["link"]["state"] == "pending"
    assert (o2["link"]["sessionId"], o2["link"]["messageId"]) == ("C", "c1")
    i1, m = transcripts["B"]
    assert i1["link"]["state"] == "linked" and i1["direction"] == "incoming"
    assert m["content"] == [IMAGE] and m["direction"] == "unknown"
    assert m["link"] == {"state": "none", "sessionId": None, "messageId": None, "reason": ""}


def test_conflicts_are_shown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        note("A", upsert("o1", **AB, recipientMessageId="i1")),
        note("B", upsert("i1", **AB, senderMessageId="o9")),
        note("B", upsert("i1", senderMessageId="o1")),
    ]
    assert main(["transcript", "show", str(write_log(tmp_path, lines)), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    (i1,) = document["transcripts"][1]["messages"]
    assert i1["conflicts"] == [{"field": "senderMessageId", "kept": "o9", "rejected": "o1"}]
    assert i1["link"]["state"] == "pending"  # B/i1's own reference names A/o9
    assert document["transcripts"][0]["messages"][0]["link"]["state"] == "conflict"

    assert main(["transcript", "show", str(write_log(tmp_path, lines))]) == 0
    out = capsys.readouterr().out
    assert "      ! senderMessageId: kept 'o9', ignored 'o1'" in out.splitlines()
    assert "  o1: To B  [unlinked, conflict: this view names B/i1, but B/i1 names A/o9]" in out


def test_bad_lines_are_reported_and_the_rest_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        note("A", chunk("o1", "first")),
        "{not json",
        note("A", {"sessionUpdate": "session_message"}),  # no messageId
        "",
        note("A", chunk("o1", " second")),
        "42",
    ]
    path = write_log(tmp_path, lines)
    assert main(["transcript", "show", str(path)]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"{path}:2: invalid JSON: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1)",
        f"{path}:3: session/update does not decode: update.session_message.messageId: "
        "Field required",
        f"{path}:6: not a JSON-RPC 2.0 message object",
    ]
    assert "      first second" in captured.out.splitlines()
    assert captured.out.splitlines()[-1] == "3 bad line(s), 0 other message(s) skipped"


def test_bad_lines_in_the_json_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_log(tmp_path, [note("A", chunk("o1", "x")), "nope"])
    assert main(["transcript", "show", str(path), "--json"]) == 1
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert [bad["line"] for bad in document["badLines"]] == [2]
    assert f"{path}:2: invalid JSON" in captured.err


def test_version_flag_selects_the_bindings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """v1 knows no `_vendor` update kinds (its union is closed); v2 passes them over."""
    path = write_log(tmp_path, [note("A", {"sessionUpdate": "_vendor", "x": 1})])
    assert main(["transcript", "show", str(path), "--version", "v2"]) == 0
    assert (
        capsys.readouterr().out
        == "No session messages.\n0 bad line(s), 0 other message(s) skipped\n"
    )
    assert main(["transcript", "show", str(path), "--version", "v1"]) == 1
    assert f"{path}:1: session/update does not decode" in capsys.readouterr().err


def test_v1_and_v2_meta_differ(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        note("A", upsert("m", _meta={"a": 1, "b": 2})),
        note("A", upsert("m", _meta={"a": None})),
    ]
    path = write_log(tmp_path, lines)
    metas = {}
    for version in ("v1", "v2"):
        assert main(["transcript", "show", str(path), "--json", "--version", version]) == 0
        document = json.loads(capsys.readouterr().out)
        metas[version] = document["transcripts"][0]["messages"][0]["_meta"]
    assert metas == {"v1": {"a": None}, "v2": {"b": 2}}


def test_missing_log_is_unusable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "missing.jsonl"
    assert main(["transcript", "show", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        f"acp-schema transcript show: cannot read {path}: No such file or directory\n"
    )


def test_a_directory_is_unusable(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["transcript", "show", str(tmp_path)]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_group_without_command_prints_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["transcript"]) == 2
    assert "usage: acp-schema transcript" in capsys.readouterr().err
