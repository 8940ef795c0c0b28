"""The output layer (`acp_schema.cli_output`): every command's output escapes control
characters and undecodable names the same way, and a stdout that is closed, full or gone
ends the command with one line and a defined code, never a traceback or Python's
"Exception ignored" at exit.

The stream cases run the real console script: what Python does at exit (its own flush
of stdout) is part of what is tested.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

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
