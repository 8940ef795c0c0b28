"""Behaviour of ``acp-schema transcript show`` (acp_schema.transcripts.cli)."""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_schema.cli import main
from acp_schema.transcripts import cli


def note(session_id: str, update: Any, **envelope: Any) -> str:
    """A `session/update` line; `envelope` adds keys beside `params` (an `id`, ...)."""
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session_id, "update": update},
        **envelope,
    }
    return json.dumps(message)


def upsert(message_id: Any, **fields: Any) -> dict[str, Any]:
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


def records(out: str) -> list[dict[str, Any]]:
    """Parse JSON Lines strictly: NaN and Infinity are not JSON."""

    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} in JSON output")

    return [json.loads(line, parse_constant=refuse) for line in out.splitlines()]


def test_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_log(tmp_path, GOOD_LOG)
    assert main(["transcript", "show", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert captured.out.splitlines() == [
        # Streamed: each message once its transcript moves on to another (or at the end).
        "A/o1: To B",
        "      Please run the tests.",
        "B/i1: From A",
        "      Please run the tests.",
        "A/o2: To C",
        "      See [resource_link file:///notes.md]",
        "B/m: (participants unknown)",
        "      [image]",
        # After the whole log.
        "Links, after the whole log:",
        "Transcript A (2 session messages)",
        "  o1: To B  [linked with B/i1]",
        "  o2: To C  [pending: C/c1 (that transcript is not loaded)]",
        "Transcript B (2 session messages)",
        "  i1: From A  [linked with A/o1]",
        "  m: (participants unknown)  [no reference yet]",
        "0 bad line(s), 2 other message(s) skipped",
    ]


def test_json_lines_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_log(tmp_path, GOOD_LOG)
    assert main(["transcript", "show", str(path), "--json"]) == 0
    found = records(capsys.readouterr().out)
    assert [r["record"] for r in found] == ["message"] * 4 + ["link"] * 4 + ["summary"]
    messages = {(r["sessionId"], r["messageId"]): r for r in found[:4]}
    assert list(messages) == [("A", "o1"), ("B", "i1"), ("A", "o2"), ("B", "m")]
    o1 = messages["A", "o1"]
    assert o1["updated"] is False and o1["direction"] == "outgoing"
    assert (o1["senderSessionId"], o1["recipientSessionId"]) == ("A", "B")
    assert o1["recipientMessageId"] == "i1" and o1["senderMessageId"] is None
    assert o1["text"] == "Please run the tests."
    assert o1["content"] == [
        {"type": "text", "text": "Please run "},
        {"type": "text", "text": "the tests."},
    ]
    assert messages["B", "m"]["content"] == [IMAGE]
    links = {(r["sessionId"], r["messageId"]): r for r in found[4:8]}
    assert links["A", "o1"]["link"] == {
        "state": "linked",
        "sessionId": "B",
        "messageId": "i1",
        "reason": "",
    }
    assert links["A", "o2"]["link"]["state"] == "pending"
    assert (links["A", "o2"]["link"]["sessionId"], links["A", "o2"]["link"]["messageId"]) == (
        "C",
        "c1",
    )
    assert links["B", "i1"]["link"]["state"] == "linked"
    assert links["B", "i1"]["direction"] == "incoming"
    assert links["B", "m"]["link"] == {
        "state": "none",
        "sessionId": None,
        "messageId": None,
        "reason": "",
    }
    assert found[-1] == {
        "record": "summary",
        "version": "v2",
        "messages": 4,
        "transcripts": 2,
        "badLines": 0,
        "skipped": 2,
        "stopped": None,
    }


def test_a_message_changed_after_it_was_shown_is_shown_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [
        note("A", chunk("o1", "first")),
        note("A", chunk("o2", "second")),  # A moves on: o1 is shown
        note("A", upsert("o1", **AB, recipientMessageId="i1")),  # late identity for o1
        note("A", chunk("o2", " and more")),
    ]
    assert main(["transcript", "show", str(write_log(tmp_path, lines)), "--json"]) == 0
    found = [r for r in records(capsys.readouterr().out) if r["record"] == "message"]
    assert [(r["messageId"], r["updated"], r["text"]) for r in found] == [
        ("o1", False, "first"),
        ("o2", False, "second and more"),
        ("o1", True, "first"),
    ]
    assert found[-1]["recipientMessageId"] == "i1"

    assert main(["transcript", "show", str(write_log(tmp_path, lines))]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[:6] == [
        "A/o1: (participants unknown)",
        "      first",
        "A/o2: (participants unknown)",
        "      second and more",
        "A/o1: To B  (changed after it was shown)",
        "      first",
    ]


class SlowLog:
    """A log that records what had been printed each time a line was read."""

    def __init__(self, lines: list[str], stdout: io.StringIO) -> None:
        self.lines = [line.encode() + b"\n" for line in lines]
        self.stdout = stdout
        self.printed_before_line: list[str] = []

    def readline(self, limit: int) -> bytes:
        assert 0 < limit <= cli.MAX_LINE_BYTES + 1  # never an unbounded read
        self.printed_before_line.append(self.stdout.getvalue())
        return self.lines.pop(0) if self.lines else b""

    def __enter__(self) -> SlowLog:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


@pytest.mark.parametrize("as_json", [False, True])
def test_output_streams_before_the_log_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, as_json: bool
) -> None:
    lines = [
        note("A", upsert("o1", **AB, content=[{"type": "text", "text": "hello"}])),
        note("A", chunk("o2", "next")),
        *[note("A", {**chunk("x", "agent"), "sessionUpdate": "agent_message_chunk"})] * 3,
    ]
    stdout = io.StringIO()
    log = SlowLog(lines, stdout)
    monkeypatch.setattr(sys, "stdout", stdout)
    real_open = cli.open_lines

    def fake_open(path: Path) -> Any:
        return log if Path(path).name == "slow.jsonl" else real_open(path)

    monkeypatch.setattr(cli, "open_lines", fake_open)
    assert main(["transcript", "show", "slow.jsonl", *(["--json"] if as_json else [])]) == 0
    # Nothing before the first message is complete; A/o1 as soon as A moves on to o2.
    assert log.printed_before_line[:2] == ["", ""]
    assert "hello" not in log.printed_before_line[1]
    assert "hello" in log.printed_before_line[2]
    assert "next" not in log.printed_before_line[-1]  # o2 is still open until the end
    assert "next" in stdout.getvalue()


def test_control_characters_are_escaped_in_text_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hostile = "red \x1b[31mRED\x1b[0m\r over\x07 \x9b2J \u202eevil\u2066 tab\tok"
    lines = [
        note("A\x1b]0;title\x07", upsert("o\x1b[1m", content=[{"type": "text", "text": hostile}])),
        note("A", chunk("o2", "line one\nline two")),
    ]
    assert main(["transcript", "show", str(write_log(tmp_path, lines))]) == 0
    out = capsys.readouterr().out
    assert not any(c in out for c in "\x1b\x07\r\x9b\u202e\u2066")
    assert "A\\x1b]0;title\\x07/o\\x1b[1m: (participants unknown)" in out.splitlines()
    assert (
        "      red \\x1b[31mRED\\x1b[0m\\x0d over\\x07 \\x9b2J \\u202eevil\\u2066 tab\tok"
        in out.splitlines()
    )
    assert out.splitlines()[3:5] == ["      line one", "      line two"]


def test_json_output_is_valid_json_with_nan_in_meta(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`NaN` is not JSON: its line is a bad line. `Infinity` in a free-form `_meta` decodes
    (as an overflowing `1e400` would, docs/bindings.md), and JSON cannot carry it."""
    meta = note("A", upsert("m", _meta={"x": 1.5, "deep": [{"y": 2.5}]}))
    chunk_meta = note("A", chunk("m", "\x1b[2J") | {"_meta": {"z": 3.5}})
    lines = [
        meta.replace("1.5", "NaN"),
        meta.replace("2.5", "-Infinity"),
        chunk_meta.replace("3.5", "Infinity"),
    ]
    assert main(["transcript", "show", str(write_log(tmp_path, lines)), "--json"]) == 1
    out = capsys.readouterr().out
    bad, message, _, summary = records(out)
    assert bad["record"] == "badLine" and bad["line"] == 1 and "NaN is not JSON" in bad["problem"]
    assert message["_meta"] == {"x": 1.5, "deep": [{"y": "-Infinity"}]}
    assert message["chunks"] == [{"_meta": {"z": "Infinity"}}]
    assert message["text"] == "\x1b[2J"  # exact, as a JSON escape
    assert summary["badLines"] == 1
    assert "\x1b" not in out


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
        f"{path}:2: invalid JSON at line 1, column 2: Expecting property name enclosed in "
        "double quotes",
        f"{path}:3: session/update does not decode: update.messageId: Field required",
        f"{path}:6: not a JSON-RPC 2.0 message object",
    ]
    assert "      first second" in captured.out.splitlines()
    assert captured.out.splitlines()[-1] == "3 bad line(s), 0 other message(s) skipped"


def test_bad_lines_in_the_json_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_log(tmp_path, [note("A", chunk("o1", "x")), "nope"])
    assert main(["transcript", "show", str(path), "--json"]) == 1
    captured = capsys.readouterr()
    found = records(captured.out)
    assert [(r["record"], r.get("line")) for r in found] == [
        ("badLine", 2),
        ("message", None),
        ("link", None),
        ("summary", None),
    ]
    assert found[-1]["badLines"] == 1
    assert f"{path}:2: invalid JSON" in captured.err


def test_protocol_option_selects_the_bindings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """v1 knows no `_vendor` update kinds (its union is closed); v2 passes them over."""
    path = write_log(tmp_path, [note("A", {"sessionUpdate": "_vendor", "x": 1})])
    assert main(["transcript", "show", str(path), "--protocol", "v2"]) == 0
    assert (
        capsys.readouterr().out
        == "No session messages.\n0 bad line(s), 0 other message(s) skipped\n"
    )
    assert main(["transcript", "show", str(path), "--protocol", "v1"]) == 1
    assert f"{path}:1: session/update does not decode" in capsys.readouterr().err


def test_v1_and_v2_meta_differ(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        note("A", upsert("m", _meta={"a": 1, "b": 2})),
        note("A", upsert("m", _meta={"a": None})),
    ]
    path = write_log(tmp_path, lines)
    metas = {}
    for version in ("v1", "v2"):
        assert main(["transcript", "show", str(path), "--json", "--protocol", version]) == 0
        metas[version] = records(capsys.readouterr().out)[0]["_meta"]
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


def test_conflicts_are_shown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        note("A", upsert("o1", **AB, recipientMessageId="i1")),
        note("B", upsert("i1", **AB, senderMessageId="o9")),
        note("B", upsert("i1", senderMessageId="o1")),
    ]
    assert main(["transcript", "show", str(write_log(tmp_path, lines)), "--json"]) == 0
    links = {r["messageId"]: r for r in records(capsys.readouterr().out) if r["record"] == "link"}
    assert links["i1"]["conflicts"] == [
        {"field": "senderMessageId", "kept": "o9", "rejected": "o1"}
    ]
    assert links["i1"]["link"]["state"] == "pending"  # B/i1's own reference names A/o9
    assert links["o1"]["link"]["state"] == "conflict"

    assert main(["transcript", "show", str(write_log(tmp_path, lines))]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "      ! senderMessageId: kept 'o9', ignored 'o1'" in out
    assert "  o1: To B  [unlinked, conflict: this view names B/i1, but B/i1 names A/o9]" in out


def test_an_over_long_line_stops_the_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "MAX_LINE_BYTES", 1000)
    path = write_log(tmp_path, [note("A", chunk("o1", "kept")), "[" + "0," * 1000 + "0]"])
    assert main(["transcript", "show", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        f"acp-schema transcript show: {path}:2: line longer than 1000 bytes; reading stopped\n"
    )
    assert captured.out.splitlines()[:2] == ["A/o1: (participants unknown)", "      kept"]
    assert captured.out.endswith(
        "0 bad line(s), 0 other message(s) skipped; reading stopped early\n"
    )


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero on this system")
def test_dev_zero_is_refused_without_filling_memory(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(cli, "MAX_LINE_BYTES", 1 << 16)
    assert main(["transcript", "show", "/dev/zero", "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        "acp-schema transcript show: /dev/zero:1: line longer than 65536 bytes; reading stopped\n"
    )
    assert records(captured.out)[-1]["stopped"] == "/dev/zero:1: line longer than 65536 bytes"


def test_deeply_nested_lines_are_bad_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep_meta = note("A", upsert("m", _meta={"x": 0})).replace(
        "0}", "[" * 100_000 + "]" * 100_000 + "}"
    )
    deep_other = note("A", {"sessionUpdate": "plan", "entries": [0]}).replace(
        "[0]", "[" * 100_000 + "]" * 100_000
    )
    path = write_log(tmp_path, [deep_meta, deep_other, "[" * 100_000])
    assert main(["transcript", "show", str(path)]) == 1
    too_deep = "invalid JSON: nested too deeply to decode"
    assert capsys.readouterr().err.splitlines() == [
        f"{path}:1: {too_deep}",
        f"{path}:2: {too_deep}",
        f"{path}:3: {too_deep}",
    ]


def test_a_closed_stdout_is_left_to_the_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`transcript show | head`: the handler neither hides nor mangles BrokenPipeError; the
    command line's entry point decides how a closed pipe ends."""

    class ClosedPipe(io.StringIO):
        def write(self, text: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    path = write_log(tmp_path, [note("A", chunk("o1", "x")), note("A", chunk("o2", "y"))])
    args = argparse.Namespace(log=path, protocol_version="v2", json=False)
    with pytest.raises(BrokenPipeError):
        cli._show(args)


def test_dash_reads_standard_input(tmp_path: Path) -> None:
    """`-` is standard input, as for other command-line tools; messages name it <stdin>."""
    lines = [note("A", upsert("m", senderSessionId="A")), "not json"]
    path = write_log(tmp_path, lines)
    command = [sys.executable, "-m", "acp_schema", "transcript", "show", "-"]
    with path.open("rb") as stdin:
        done = subprocess.run(command, stdin=stdin, capture_output=True, text=True, check=False)
    with_file = subprocess.run(
        [*command[:-1], str(path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == with_file.returncode == 1
    assert done.stdout == with_file.stdout
    assert done.stdout.startswith("A/m: To (recipient unknown)")
    assert done.stderr == with_file.stderr.replace(str(path), "<stdin>")
    assert done.stderr.startswith("<stdin>:2: invalid JSON")
    piped = subprocess.run(
        command, input="\n".join(lines), capture_output=True, text=True, check=False
    )
    assert (piped.returncode, piped.stdout) == (1, done.stdout)


def test_the_old_version_option_still_works_and_says_it_is_deprecated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write_log(tmp_path, [note("A", {"sessionUpdate": "_vendor", "x": 1})])
    assert main(["transcript", "show", str(path), "--version", "v1"]) == 1  # v1: closed union
    err = capsys.readouterr().err
    assert err.startswith(
        "acp-schema transcript show: --version VERSION is deprecated, use --protocol v1\n"
    )
    assert main(["transcript", "show", str(path), "--version", "v2", "--protocol", "v2"]) == 0
    assert "deprecated" in capsys.readouterr().err
    assert main(["transcript", "show", str(path), "--version", "v1", "--protocol", "v2"]) == 2
    assert capsys.readouterr().err == (
        "acp-schema transcript show: --protocol and --version disagree\n"
    )
    assert main(["transcript", "show", str(path), "--protocol", "v2"]) == 0
    assert capsys.readouterr().err == ""


def test_a_closed_standard_input_is_no_log() -> None:
    # `<&-`: the process starts without descriptor 0; that is not an empty log.
    done = subprocess.run(
        [sys.executable, "-m", "acp_schema", "transcript", "show", "-"],
        preexec_fn=lambda: os.close(0),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == "acp-schema transcript show: cannot read standard input: it is closed\n"
    assert done.stdout == ""


def test_an_integer_too_long_to_convert_is_said_in_the_readers_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    digits = "9" * 5000  # past CPython's default conversion limit of 4,300 digits
    line = note("A", {"sessionUpdate": "session_message", "messageId": "q", "_meta": {"n": 0}})
    path = write_log(tmp_path, [line.replace('{"n": 0}', '{"n": ' + digits + "}")])
    assert main(["transcript", "show", str(path)]) == 1
    err = capsys.readouterr().err
    assert "an integer of more than 4300 digits (at line 1, column" in err
    assert "set_int_max_str_digits" not in err
