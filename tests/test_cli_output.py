"""The output layer (`acp_schema.cli_output`): every command's output escapes control
characters and undecodable names the same way, and a stdout that is closed, full or gone
ends the command with one line and a defined code, never a traceback or Python's
"Exception ignored" at exit.

The stream cases run the real console script: what Python does at exit (its own flush
of stdout) is part of what is tested.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_schema.cli import main
from acp_schema.cli_output import EXIT_OUTPUT, printable, shown
from acp_schema.migrations.cli import diff_name

OLD = (
    "from acp_schema.v2 import SessionMessageChunk, TextContent\n\n\n"
    "def send(out, mid, me, parts):\n"
    "    for part in parts:\n"
    "        out.put(SessionMessageChunk(message_id=mid, content=TextContent(text=part), "
    "sender_session_id=me))\n"
)
MIGRATED_IMPORT = "from acp_schema.v2 import SessionMessage, SessionMessageChunk, TextContent"
HAS_DEV_FULL = Path("/dev/full").exists()
# Every character the layer must never let through raw, and one of each kind of name.
RAW = [chr(c) for c in [*range(0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)]]
RAW += ["\u061c", "\u200e", "\u200f", "\u2028", "\u2029", "\u202a", "\u202e", "\u2066"]
HOSTILE_NAME = "a\tb\x1b[31mred\x07\nc\x9b\u202e"


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "acp_schema", *args]


def _run(
    args: list[str], *, stdout: object = subprocess.PIPE, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        _command(*args),
        stdout=stdout,  # type: ignore[arg-type]
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
        check=False,
        timeout=300,
    )


def _tree(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "old.py").write_text(OLD)
    return tree


def _log(tmp_path: Path) -> Path:
    update = {"sessionUpdate": "session_message", "messageId": "m1", "senderSessionId": "A"}
    message = {"jsonrpc": "2.0", "method": "session/update"}
    message["params"] = {"sessionId": "A", "update": update}  # type: ignore[assignment]
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps(message) + "\n")
    return log


# Each command with arguments that make it print a report on stdout.
COMMANDS = {
    "schema check": lambda tmp: ["schema", "check"],
    "check": lambda tmp: ["check"],
    "diff": lambda tmp: ["diff", "v1", "v2"],
    "diff json": lambda tmp: ["diff", "--format", "json", "v1", "v2"],
    "transcript show": lambda tmp: ["transcript", "show", str(_log(tmp))],
    "migrate --check": lambda tmp: ["migrate", "--check", str(_tree(tmp))],
    "migrate --diff": lambda tmp: ["migrate", "--diff", str(_tree(tmp))],
    "migrate": lambda tmp: ["migrate", str(_tree(tmp))],
    "help": lambda tmp: ["--help"],
}


# --- escaping ------------------------------------------------------------------------------


def test_shown_escapes_every_control_character_and_reordering_mark() -> None:
    text = shown("".join(RAW))
    assert not any(c in text for c in RAW)
    assert text.startswith("\\x00\\x01")
    assert shown("\t\n") == "\\x09\\x0a"
    assert shown("\x1b[2J\x9b\u202e") == "\\x1b[2J\\x9b\\u202e"


def test_undecodable_bytes_show_as_the_byte_they_were() -> None:
    name = os.fsdecode(b"caf\xe9-\xff.py")  # surrogateescape: U+DCE9, U+DCFF
    assert shown(name) == "caf\\xe9-\\xff.py"
    assert printable(name) == "caf\\xe9-\\xff.py"
    assert shown("\ud800") == "\\ud800"  # a surrogate no decoder made: its code point


def test_printable_keeps_line_feeds_and_tabs_and_plain_text() -> None:
    assert printable("one\ttwo\nthree\x1b") == "one\ttwo\nthree\\x1b"
    assert shown("plain-name_1.py é 日本") == "plain-name_1.py é 日本"


@given(st.text(alphabet=st.characters(codec=None, categories=None)))
def test_shown_is_one_line_of_plain_characters(text: str) -> None:
    out = shown(text)
    assert not any(c in out for c in [*RAW, "\t", "\n"])
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in out)
    out.encode("utf-8")  # writable to any UTF-8 stream, strict or not
    if not any(c in text for c in [*RAW, "\t", "\n"]) and text.isprintable():
        assert out == text


# --- undecodable names on a strict UTF-8 stdout -------------------------------------------

STRICT = {"PYTHONIOENCODING": "utf-8:strict"}


def test_migrate_names_a_file_that_is_not_utf8_and_writes_it(tmp_path: Path) -> None:
    # It used to write the file, then die on printing its name: exit 1, a traceback.
    tree = tmp_path / "tree"
    tree.mkdir()
    target = tree / os.fsdecode(b"x\xff.py")
    target.write_text(OLD)
    done = _run(["migrate", str(tree)], env=STRICT)
    assert done.returncode == 0, done.stderr
    assert b"x\\xff.py:6:16: chunk-identity/constructor" in done.stdout
    assert MIGRATED_IMPORT in target.read_text()
    assert b"Traceback" not in done.stderr


def test_every_report_names_an_undecodable_path_escaped(tmp_path: Path) -> None:
    odd = os.fsdecode(b"s\xfe")
    schema = tmp_path / f"{odd}.json"
    schema.write_text(json.dumps({"$defs": {"A": {"$ref": "#/$defs/B"}}}))
    from acp_schema.codegen import bundled

    valid = tmp_path / f"{odd}-v1.json"
    valid.write_bytes(bundled.bundled_schema("v1").read_bytes())
    log = tmp_path / f"{odd}.jsonl"
    log.write_bytes(b"not json\n")
    for args, code in (
        (["schema", "check", str(schema)], 1),
        (["diff", str(valid), str(valid)], 0),
        (["transcript", "show", str(log)], 1),
        (["schema", "check", str(tmp_path / f"{odd}-missing.json")], 2),
    ):
        done = _run(args, env=STRICT)
        assert done.returncode == code, (args, done.stderr)
        assert b"s\\xfe" in done.stdout + done.stderr, args
        assert b"Traceback" not in done.stderr


def test_generate_into_an_undecodable_directory_reports_it(tmp_path: Path) -> None:
    from acp_schema.codegen import bundled

    out = tmp_path / os.fsdecode(b"out\xff")
    done = _run(
        ["generate", "--schema", str(bundled.bundled_schema("v1")), "--out", str(out)],
        env=STRICT,
    )
    assert done.returncode == 0, done.stderr
    assert b"out\\xff (" in done.stdout
    assert (out / "__init__.py").is_file()


# --- control characters in names ------------------------------------------------------------


def test_file_names_with_control_characters_stay_on_their_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / f"{HOSTILE_NAME}.py").write_text(OLD)
    assert main(["migrate", "--check", str(tree)]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert len(lines) == 3  # the change, the summary, the bindings
    assert lines[0].startswith(f"{tree}/a\\x09b\\x1b[31mred\\x07\\x0ac\\x9b\\u202e.py:6:16:")
    assert not any(c in out.replace("\n", "") for c in RAW)


def test_schema_names_with_control_characters_reach_no_report_raw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from acp_schema.codegen import bundled

    doc = json.loads(bundled.bundled_schema("v2").read_text())
    doc["$defs"][HOSTILE_NAME] = {"type": "object", "properties": {HOSTILE_NAME: {}}}
    doc["$defs"]["TextContent"]["properties"][HOSTILE_NAME] = {"type": "string"}
    new = tmp_path / "new.json"
    new.write_text(json.dumps(doc))
    for fmt in ("text", "markdown"):
        main(["diff", "--format", fmt, "v2", str(new)])
        out = capsys.readouterr().out
        assert not any(c in out.replace("\n", "") for c in RAW), fmt
        assert "a\\x09b\\x1b[31mred\\x07\\x0ac" in out
        # every line of the report is one whole line: no name split one
        assert not any(line.startswith("c\\x9b") for line in out.splitlines())
    main(["diff", "--format", "json", "v2", str(new)])
    out = capsys.readouterr().out
    assert out.isascii()
    names = [c["definition"] + c["location"] for c in json.loads(out)["changes"]]
    assert any(HOSTILE_NAME in name for name in names)  # JSON keeps the name exactly


def test_schema_check_pointers_with_control_characters_are_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"$defs": {HOSTILE_NAME: {"$ref": "#/$defs/nope"}}}))
    assert main(["schema", "check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "#/$defs/a\\x09b\\x1b[31mred\\x07\\x0ac" in out
    assert not any(c in out.replace("\n", "") for c in RAW)


# --- diff headers ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "header"),
    [
        (b"a/plain.py", b"a/plain.py"),
        (b"a/caf\xc3\xa9.py", b"a/caf\xc3\xa9.py"),
        (b"a/t\tab.py", b'"a/t\\tab.py"'),
        (b"a/new\nline.py", b'"a/new\\nline.py"'),
        (b'a/q"uote.py', b'"a/q\\"uote.py"'),
        (b"a/back\\slash.py", b'"a/back\\\\slash.py"'),
        (b"a/esc\x1b.py", b'"a/esc\\033.py"'),
        (b"a/latin\xff.py", b'"a/latin\\377.py"'),
        (b"a/c1\xc2\x9b.py", b'"a/c1\\302\\233.py"'),
    ],
)
def test_diff_headers_quote_names_as_git_does(name: bytes, header: bytes) -> None:
    assert diff_name(name) == header


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git to apply the patch")
def test_a_diff_of_hostile_names_applies_with_git(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    names = [f"{HOSTILE_NAME}.py", os.fsdecode(b"x\xffy.py"), 'q"u\\o.py', "sp ace.py"]
    for name in names:
        (tree / name).write_text(OLD)
    git = ["git", "-C", str(tree)]
    subprocess.run([*git, "init", "-q"], check=True)
    done = subprocess.run(
        _command("migrate", "--no-gitignore", "--diff", "."),
        cwd=tree,
        capture_output=True,
        check=False,
        env={**os.environ, **STRICT},
    )
    assert done.returncode == 0, done.stderr
    patch = tmp_path / "p.diff"
    patch.write_bytes(done.stdout)
    subprocess.run([*git, "apply", str(patch)], check=True, capture_output=True)
    for name in names:
        assert MIGRATED_IMPORT in (tree / name).read_text(), name


# --- streams that cannot be written ---------------------------------------------------------


def _no_python_noise(err: bytes) -> None:
    assert b"Traceback" not in err
    assert b"Exception ignored" not in err


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_closed_stdout_is_refused_before_anything_is_done(name: str, tmp_path: Path) -> None:
    args = COMMANDS[name](tmp_path)
    done = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", *_command(*args)],
        capture_output=False,
        stderr=subprocess.PIPE,
        check=False,
        timeout=300,
    )
    _no_python_noise(done.stderr)
    assert done.returncode == EXIT_OUTPUT
    assert done.stderr.decode().splitlines() == [
        "acp-schema: standard output is closed; nothing done"
    ]
    if (tmp_path / "tree").exists():
        assert (tmp_path / "tree" / "old.py").read_text() == OLD  # not migrated


@pytest.mark.skipif(not HAS_DEV_FULL, reason="needs /dev/full")
@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "PYTHONUNBUFFERED"])
@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_full_stdout_is_one_line_and_exit_74(name: str, unbuffered: str, tmp_path: Path) -> None:
    args = COMMANDS[name](tmp_path)
    with open("/dev/full", "wb") as full:
        done = _run(args, stdout=full, env={"PYTHONUNBUFFERED": unbuffered})
    _no_python_noise(done.stderr)
    lines = done.stderr.decode().splitlines()
    assert lines[-1].endswith("cannot write to standard output: No space left on device")
    assert lines[-1].startswith("acp-schema")
    assert done.returncode == EXIT_OUTPUT


def test_a_full_stdout_in_process_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    class Full:
        def write(self, text: str) -> int:
            raise OSError(28, "No space left on device")

        def flush(self) -> None:
            pass

    monkeypatch.setattr(sys, "stdout", Full())
    assert main(["diff", "v1", "v2"]) == EXIT_OUTPUT
    assert capsys.readouterr().err == (
        "acp-schema diff: cannot write to standard output: No space left on device\n"
    )


def test_a_failing_stderr_does_not_stop_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    class Full:
        def write(self, text: str) -> int:
            raise OSError(28, "No space left on device")

        def flush(self) -> None:
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(sys, "stderr", Full())
    assert main(["schema", "check", str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().out


@pytest.mark.skipif(not HAS_DEV_FULL, reason="needs /dev/full")
def test_a_full_stderr_and_stdout_still_exit_with_the_code(tmp_path: Path) -> None:
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            _command("diff", "v1", "v2"), stdout=full, stderr=full, check=False, timeout=300
        )
    assert done.returncode == EXIT_OUTPUT


def test_a_progress_bar_writes_its_carriage_returns(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from acp_schema.cli_output import output_layer, write_raw

    captured = io.StringIO()
    monkeypatch.setattr(sys, "stderr", captured)
    with output_layer():
        write_raw(sys.stderr, "\r[##] 1/2")
        sys.stderr.write("\rname")
    assert captured.getvalue() == "\r[##] 1/2\\x0dname"


# --- the layer's stream, directly (survivors of the mutation run) ---------------------------


class _Inner:
    """A stream under the layer that records what reaches it, and fails on demand."""

    def __init__(self, *, encoding: str | None = "utf-8", tty: object = False) -> None:
        self.encoding = encoding
        self.errors = "strict"
        self.written: list[str] = []
        self.fail: OSError | None = None
        self.flushed = 0
        self.tty = tty

    def write(self, text: str) -> int:
        if self.fail is not None:
            raise self.fail
        self.written.append(text)
        return len(text)

    def flush(self) -> None:
        if self.fail is not None:
            raise self.fail
        self.flushed += 1

    def isatty(self) -> bool:
        if isinstance(self.tty, BaseException):
            raise self.tty
        return bool(self.tty)


def _layer(inner: object, name: str | None = "standard output") -> object:
    from acp_schema.cli_output import _SafeStream

    return _SafeStream(inner, name)  # type: ignore[arg-type]


def test_the_documented_exit_code_is_74() -> None:
    assert EXIT_OUTPUT == 74  # README, "Errors and exit codes"


def test_printable_ascii_passes_unchanged() -> None:
    plain = "".join(map(chr, range(0x20, 0x7F)))
    assert shown(plain) == plain and printable(plain) == plain


@pytest.mark.parametrize(
    ("char", "escape"),
    [
        ("\udc80", "\\x80"),
        ("\udcff", "\\xff"),
        ("\udc7f", "\\udc7f"),
        ("\udd00", "\\udd00"),
        ("\ud800", "\\ud800"),
        ("\x9f", "\\x9f"),
        ("\u2069", "\\u2069"),
    ],
)
def test_each_escape_is_the_byte_or_the_code_point(char: str, escape: str) -> None:
    assert shown(char) == escape


def test_a_stream_that_is_gone_is_one_error_then_nothing_reaches_it() -> None:
    from acp_schema.cli_output import OutputError

    inner = _Inner()
    stream = _layer(inner)
    inner.fail = OSError(28, "No space left on device")
    with pytest.raises(OutputError, match="cannot write to standard output: No space left"):
        stream.write("a")  # type: ignore[attr-defined]
    inner.fail = None  # the stream would take it now: the layer no longer tries
    with pytest.raises(OutputError, match="No space left on device") as again:
        stream.write("b")  # type: ignore[attr-defined]
    assert isinstance(again.value.cause, OSError) and not again.value.reader_left
    stream.flush()  # type: ignore[attr-defined]
    assert inner.written == [] and inner.flushed == 0


def test_a_reader_that_left_is_told_apart() -> None:
    from acp_schema.cli_output import OutputError

    assert OutputError("standard output", BrokenPipeError(32, "Broken pipe")).reader_left
    assert not OutputError("standard output", OSError(5, "I/O error")).reader_left


def test_a_missing_stdout_is_said_to_be_closed() -> None:
    from acp_schema.cli_output import OutputError

    stream = _layer(None)
    with pytest.raises(OutputError, match=r"^cannot write to standard output: it is closed$"):
        stream.write("x")  # type: ignore[attr-defined]
    with pytest.raises(io.UnsupportedOperation, match=r"^no stream$"):
        stream.fileno()  # type: ignore[attr-defined]
    assert not stream.isatty()  # type: ignore[attr-defined]
    assert stream.buffer is None  # type: ignore[attr-defined]


def test_stderr_failures_are_dropped() -> None:
    inner = _Inner()
    stream = _layer(inner, None)
    inner.fail = OSError(28, "No space left on device")
    stream.write("lost")  # type: ignore[attr-defined]
    stream.flush()  # type: ignore[attr-defined]
    _layer(None, None).write("nowhere")  # type: ignore[attr-defined]


def test_the_layer_passes_the_stream_s_properties_through() -> None:
    inner = _Inner(encoding="latin-1", tty=True)
    stream = _layer(inner)
    assert stream.encoding == "latin-1"  # type: ignore[attr-defined]
    assert stream.errors == "strict"  # type: ignore[attr-defined]
    assert stream.isatty() and stream.writable()  # type: ignore[attr-defined]
    stream.flush()  # type: ignore[attr-defined]
    assert inner.flushed == 1  # a flush reaches the stream under the layer
    assert _layer(_Inner(encoding=None)).encoding == "utf-8"  # type: ignore[attr-defined]
    assert not _layer(_Inner(tty=ValueError("closed"))).isatty()  # type: ignore[attr-defined]
    assert not _layer(_Inner(tty=False)).isatty()  # type: ignore[attr-defined]


def test_characters_the_encoding_lacks_are_escaped_not_an_error() -> None:
    inner = _Inner(encoding="ascii")
    stream = _layer(inner)
    stream.write("café 日本 \x1b")  # type: ignore[attr-defined]
    assert inner.written == ["caf\\xe9 \\u65e5\\u672c \\x1b"]
    utf8 = _Inner(encoding="UTF-8")
    _layer(utf8).write("café")  # type: ignore[attr-defined]
    assert utf8.written == ["café"]


def test_bytes_through_the_buffer_follow_the_text_written_before() -> None:
    raw = io.BytesIO()
    text = io.TextIOWrapper(raw, encoding="utf-8")
    stream = _layer(text)
    stream.write("head\n")  # type: ignore[attr-defined]
    binary = stream.buffer  # type: ignore[attr-defined]
    assert binary is not None
    assert binary.write(b"\x1b raw \xff\n") == 8
    binary.flush()
    assert raw.getvalue() == b"head\n\x1b raw \xff\n"  # bytes as they are, in order


def test_a_failing_buffer_is_the_same_error() -> None:
    from acp_schema.cli_output import OutputError

    class Raw:
        def write(self, data: bytes) -> int:
            raise OSError(28, "No space left on device")

        def flush(self) -> None:
            raise OSError(5, "Input/output error")

    inner = _Inner()
    inner.buffer = Raw()  # type: ignore[attr-defined]
    with pytest.raises(OutputError, match="No space left"):
        _layer(inner).buffer.write(b"x")  # type: ignore[attr-defined]
    with pytest.raises(OutputError, match="Input/output error"):
        _layer(inner).buffer.flush()  # type: ignore[attr-defined]


def test_a_failed_descriptor_is_pointed_at_dev_null(tmp_path: Path) -> None:
    from acp_schema.cli_output import _point_at_devnull

    target = tmp_path / "out"
    with target.open("w") as handle:
        _point_at_devnull(handle)
        os.write(handle.fileno(), b"after")  # goes to /dev/null now
    assert target.read_bytes() == b""
    _point_at_devnull(io.StringIO())  # no descriptor: nothing to do, no error


def test_closed_standard_descriptors_are_taken_by_dev_null(tmp_path: Path) -> None:
    # Started with 0 and 2 closed (and then 1 too): afterwards a file the command opens
    # gets descriptor 3, never one a child or a print would write to.
    code = (
        "import os, sys\n"
        "from acp_schema.cli_output import reserve_standard_descriptors\n"
        "reserve_standard_descriptors()\n"
        "fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT)\n"
        "os.write(fd, str(fd).encode() + b' ' + str([os.path.samestat(os.fstat(n), "
        "os.stat(os.devnull)) for n in (0, 1, 2)]).encode())\n"
    )
    for closing, expected in (
        ("<&- 2>&-", "[True, False, True]"),
        ("<&- >&- 2>&-", "[True, True, True]"),
    ):
        result = tmp_path / "result"
        subprocess.run(
            ["sh", "-c", f'exec "$@" {closing}', "sh", sys.executable, "-c", code, str(result)],
            check=True,
            timeout=60,
        )
        assert result.read_text() == f"3 {expected}", closing
        result.unlink()


def test_dropping_the_layer_after_its_stream_closed_raises_nothing() -> None:
    # The finalizer closes the wrapper, maybe after the stream under it was closed (a
    # test's capture, the interpreter's exit); on Python 3.13 a flush there raised
    # OutputError into "Exception ignored in: <_SafeStream ...>".

    class Closed(io.StringIO):
        def flush(self) -> None:  # as a closed file does
            raise ValueError("I/O operation on closed file.")

    inner = Closed()
    stream: Any = _layer(inner, "standard output")
    stream.write("kept\n")
    stream.close()  # what the finalizer does
    assert inner.getvalue() == "kept\n"
