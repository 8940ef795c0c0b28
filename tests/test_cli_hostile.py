"""Every subcommand against careless and hostile input: one line naming the input and the
problem, the documented exit code (README, "Errors and exit codes"), never a traceback.

Most cases run `main()` in this process (an exception escaping it would fail the test just
as a traceback would); Ctrl-C and a closed pipe need a real process. `transcript show` is
covered here for the generic cases (a missing file, a directory, Ctrl-C, a closed pipe);
its log contents have tests of their own.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_schema._input import MAX_INPUT_BYTES
from acp_schema._runtime import MISSING
from acp_schema._validation.json_nesting import too_deep
from acp_schema.cli import main
from acp_schema.codegen import bundled
from acp_schema.codegen.generate import pipeline as generate
from acp_schema.codegen.generate.pipeline import GeneratedFile
from acp_schema.codegen.schema_check import MAX_JSON_DEPTH, SchemaError, parse_schema_file

DEEP = 100_000  # far past Python's recursion limit


def _generated(body: str) -> str:
    return generate.seal(f"{generate.header('schema.json', 'ab' * 32)}\n{body}")


@dataclass(frozen=True)
class Inputs:
    root: Path

    def __getitem__(self, name: str) -> str:
        return str(self.root / name)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    root = tmp_path_factory.mktemp("hostile")
    (root / "adir").mkdir()
    (root / "afile").write_text("not a directory\n")
    (root / "deep.json").write_text("[" * DEEP + "]" * DEEP)
    (root / "deep-object.json").write_text('{"$defs": ' + '{"a": ' * DEEP + "{}" + "}" * DEEP + "}")
    (root / "not-json.json").write_bytes(b"\xff\xfe{]")
    self_ref = {"$defs": {"A": {"$ref": "#/$defs/A"}}}
    (root / "self-ref.json").write_text(json.dumps(self_ref))
    no_methods = {"$defs": {"Thing": {"type": "object", "properties": {"x": {"type": "string"}}}}}
    (root / "no-methods.json").write_text(json.dumps(no_methods))
    (root / "surrogate.json").write_text('{"$schema": "\\ud800"}')
    (root / "surrogate-key.json").write_text('{"$defs": {"A\\udfffB": {}}}')
    (root / "surrogate-description.json").write_text('{"description": ["ok", "\\udc00"]}')
    (root / "digits.json").write_text('{"$defs": {"A": {"maximum": ' + "9" * 5000 + "}}}")
    if hasattr(os, "mkfifo"):
        os.mkfifo(root / "fifo.json")  # no writer ever comes: reading it would block
    with (root / "huge.json").open("wb") as huge:  # sparse: no disk used, no byte read
        huge.truncate(MAX_INPUT_BYTES + 1)
    (root / "badconfig").mkdir()
    (root / "badconfig" / "pyproject.toml").write_bytes(b'[tool.acp-schema.migrate]\nx = "\xff"\n')
    (root / "badconfig" / "a.py").write_text("x = 1\n")
    foreign = root / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    earlier = [
        GeneratedFile("__init__.py", _generated("X = 1\n")),
        GeneratedFile("methods.py", _generated("METHODS = []\n")),
        GeneratedFile("py.typed", ""),
    ]
    generate.write_files(earlier, root / "earlier")  # a package generated from another schema
    return Inputs(root)


@dataclass(frozen=True)
class Case:
    command: str  # split at spaces; {name} stands for the path of that input
    code: int
    names: str  # the input the message must name
    says: str  # and what it must say about it
    stderr_only: bool = True  # the message is the only line on stderr (reports use stdout)


CASES = {
    # schema check: a report on stdout; exit 1 for problems, 2 for unusable files
    "schema-check-missing": Case(
        "schema check {missing.json}", 2, "missing.json", "No such file", False
    ),
    "schema-check-directory": Case("schema check {adir}", 2, "adir", "Is a directory", False),
    "schema-check-deep-array": Case(
        "schema check {deep.json}", 2, "deep.json", "nested deeper than", False
    ),
    "schema-check-deep-object": Case(
        "schema check {deep-object.json}", 2, "deep-object.json", "line 1, column", False
    ),
    "schema-check-not-json": Case(
        "schema check {not-json.json}", 2, "not-json.json", "not UTF-8", False
    ),
    "schema-check-self-ref": Case(
        "schema check {self-ref.json}", 1, "self-ref.json", "refers to itself", False
    ),
    # the one reader (acp_schema._input): what no schema file can be
    "schema-check-surrogate": Case(
        "schema check {surrogate.json}", 2, "surrogate.json", "lone surrogate", False
    ),
    "schema-check-surrogate-key": Case(
        "schema check {surrogate-key.json}", 2, "surrogate-key.json", "#/$defs/A\\udfffB", False
    ),
    "schema-check-digits": Case(
        "schema check {digits.json}", 2, "digits.json", "more than 4300 digits (at line 1", False
    ),
    "schema-check-fifo": Case(
        "schema check {fifo.json}", 2, "fifo.json", "not a regular file (a named pipe)", False
    ),
    "schema-check-huge": Case(
        "schema check {huge.json}", 2, "huge.json", "larger than 64 MB", False
    ),
    "diff-huge": Case("diff v1 {huge.json}", 2, "huge.json", "larger than 64 MB"),
    "generate-huge": Case("generate --schema {huge.json} --out {out}", 2, "huge.json", "64 MB"),
    "migrate-huge": Case("migrate {huge.json}", 2, "huge.json", "larger than 64 MB", False),
    "schema-check-dev-zero": Case(
        "schema check /dev/zero", 2, "/dev/zero", "not a regular file (a character", False
    ),
    "generate-surrogate": Case(
        "generate --schema {surrogate.json} --out {out}", 2, "surrogate.json", "lone surrogate"
    ),
    "generate-digits": Case(
        "generate --schema {digits.json} --out {out}", 2, "digits.json", "4300 digits"
    ),
    "generate-fifo": Case(
        "generate --schema {fifo.json} --out {out}", 2, "fifo.json", "not a regular file"
    ),
    "generate-dev-urandom": Case(
        "generate --schema /dev/urandom --out {out}", 2, "/dev/urandom", "not a regular file"
    ),
    "check-surrogate": Case(
        "check --schema {surrogate-description.json} --out {earlier}",
        2,
        "surrogate-description.json",
        "lone surrogate (\\uD800-\\uDFFF) in the string at #/description/1",
        False,
    ),
    "check-digits": Case(
        "check --schema {digits.json} --out {earlier}", 2, "digits.json", "4300 digits", False
    ),
    "check-fifo": Case(
        "check --schema {fifo.json} --out {earlier}", 2, "fifo.json", "a named pipe", False
    ),
    "diff-surrogate": Case("diff {surrogate.json} v1", 2, "surrogate.json", "lone surrogate"),
    "diff-surrogate-json": Case(
        "diff --format json v1 {surrogate-key.json}", 2, "surrogate-key.json", "lone surrogate"
    ),
    "diff-digits": Case("diff v1 {digits.json}", 2, "digits.json", "4300 digits"),
    "diff-fifo": Case("diff {fifo.json} v1", 2, "fifo.json", "a named pipe"),
    "diff-dev-zero": Case("diff v1 /dev/zero", 2, "/dev/zero", "a character device"),
    # generate: one line on stderr, exit 2
    "generate-missing": Case(
        "generate --schema {missing.json} --out {out}", 2, "missing.json", "No such file"
    ),
    "generate-directory": Case("generate --schema {adir} --out {out}", 2, "adir", "Is a directory"),
    "generate-deep": Case(
        "generate --schema {deep.json} --out {out}", 2, "deep.json", "nested deeper than"
    ),
    "generate-self-ref": Case(
        "generate --schema {self-ref.json} --out {out}", 2, "self-ref.json", "refers to itself"
    ),
    "generate-no-methods": Case(
        "generate --schema {no-methods.json} --out {out}", 2, "no-methods.json", "no methods"
    ),
    "generate-out-file": Case(
        "generate --schema {bundled} --out {afile}", 2, "afile", "not a directory"
    ),
    "generate-out-foreign": Case(
        "generate --schema {bundled} --out {foreign}", 2, "foreign", "did not write"
    ),
    "generate-out-below-file": Case(
        "generate --schema {bundled} --out {afile}/pkg", 2, "afile", "not a directory"
    ),
    "generate-out-package": Case(
        "generate --schema {bundled} --out {generated}",
        2,
        "generated",
        "installed acp_schema package",
    ),
    "generate-out-bundled-other-schema": Case(
        "generate --schema {no-methods.json} --out {v1out}",
        2,
        "generated/v1",
        "only the bundled schema",
    ),
    "generate-out-bundled-other-version": Case(
        "generate --schema {bundled} --out {v2out}", 2, "generated/v2", "only the bundled schema"
    ),
    "generate-out-schemas": Case(
        "generate --schema {bundled} --out {schemas}", 2, "schema", "bundled schema folder"
    ),
    "generate-out-proc": Case(
        "generate --schema {bundled} --out /proc/acp-schema-out", 2, "/proc/acp", "cannot write"
    ),
    # check: a report on stdout; exit 2 when the schema cannot be used
    "check-missing": Case(
        "check --schema {missing.json} --out {earlier}",
        2,
        "missing.json",
        "cannot read the schema",
        False,
    ),
    "check-directory": Case(
        "check --schema {adir} --out {earlier}", 2, "adir", "Is a directory", False
    ),
    "check-deep": Case(
        "check --schema {deep.json} --out {earlier}", 2, "deep.json", "nested deeper than", False
    ),
    "check-self-ref": Case(
        "check --schema {self-ref.json} --out {earlier}",
        2,
        "self-ref.json",
        "refers to itself",
        False,
    ),
    "check-full-deep": Case(
        "check --full --schema {deep.json} --out {earlier}",
        2,
        "deep.json",
        "nested deeper than",
        False,
    ),
    "check-out-file": Case(
        "check --schema {bundled} --out {afile}", 2, "afile", "not a directory", False
    ),
    "check-generated-file": Case(
        "check v1 --generated {afile}", 2, "afile", "not a directory", False
    ),
    # diff: one line on stderr, exit 2
    "diff-missing": Case("diff {missing.json} v1", 2, "missing.json", "No such file"),
    "diff-directory": Case("diff v1 {adir}", 2, "adir", "Is a directory"),
    "diff-deep": Case("diff {deep.json} v1", 2, "deep.json", "nested deeper than"),
    "diff-deep-object": Case(
        "diff v1 {deep-object.json}", 2, "deep-object.json", "nested deeper than"
    ),
    "diff-not-json": Case("diff {not-json.json} v1", 2, "not-json.json", "not UTF-8"),
    "diff-upstream-cache-file": Case(
        "diff --upstream 2.1.0 v1 --cache-dir {afile}", 2, "afile", "is a file"
    ),
    "diff-upstream-cache-below-file": Case(
        "diff --upstream 2.1.0 v1 --cache-dir {afile}/cache", 2, "afile", "is a file"
    ),
    "diff-upstream-not-a-version": Case(
        "diff --upstream latest v1", 2, "latest", "not an exact package version"
    ),
    # migrate: the path on stderr, the summary on stdout; exit 2
    "migrate-missing": Case("migrate {missing.py}", 2, "missing.py", "no such file", False),
    "migrate-device": Case("migrate /dev/null", 2, "/dev/null", "not a regular file", False),
    "migrate-fifo": Case("migrate {fifo.json}", 2, "fifo.json", "not a regular file", False),
    "migrate-config-not-utf8": Case(
        "migrate {badconfig}/a.py", 2, "pyproject.toml", "cannot read: not UTF-8 text"
    ),
    # transcript show: one line on stderr, exit 2
    "transcript-missing": Case(
        "transcript show {missing.jsonl}", 2, "missing.jsonl", "No such file"
    ),
    "transcript-directory": Case("transcript show {adir}", 2, "adir", "Is a directory"),
}


def _argv(case: Case, inputs: Inputs, tmp_path: Path) -> list[str]:
    places = {
        "out": str(tmp_path / "out"),
        "bundled": str(bundled.bundled_schema("v1")),
        "generated": str(bundled.generated_dir()),
        "schemas": str(bundled.schema_dir()),
        "v1out": str(bundled.default_output("v1")),
        "v2out": str(bundled.default_output("v2")),
    }
    out = []
    for arg in case.command.split():
        if "{" in arg:
            name, _, rest = arg[1:].partition("}")
            arg = (places[name] if name in places else inputs[name]) + rest
        out.append(arg)
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_hostile_input_gives_one_line_and_the_documented_code(
    name: str, inputs: Inputs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = CASES[name]
    if name == "migrate-device" and not Path("/dev/null").exists():
        pytest.skip("no /dev/null here")
    if "/dev/" in case.command and not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    if "fifo" in name and not hasattr(os, "mkfifo"):
        pytest.skip("named pipes are POSIX")
    if name == "generate-out-proc" and not Path("/proc/self").is_dir():
        pytest.skip("/proc (where not even root can create a directory) is Linux only")
    code = main(_argv(case, inputs, tmp_path))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    assert code == case.code, out + err
    # One line names the input and says what is wrong with it (a report may also name
    # the input in its heading).
    naming = [line for line in (out + err).splitlines() if case.names in line and case.says in line]
    assert len(naming) == 1, out + err
    if case.stderr_only:
        assert err.count("\n") == 1 and naming[0] in err
    assert not (tmp_path / "out").exists()  # nothing written on the way


def test_an_unwritable_out_directory_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes into read-only directories")
    parent = tmp_path / "locked"
    parent.mkdir()
    parent.chmod(0o500)
    try:
        args = ["generate", "--schema", str(bundled.bundled_schema("v1"))]
        code = main([*args, "--out", str(parent / "pkg")])
    finally:
        parent.chmod(0o700)
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "cannot write" in err and "Permission denied" in err
    assert list(parent.iterdir()) == []


# --- deep nesting ------------------------------------------------------------------------


def _nested(depth: int, kinds: list[bool], noise: str) -> str:
    """JSON nested `depth` levels deep: arrays and objects as `kinds` says, with a string
    full of brackets beside each level (they must not count)."""
    text = "0"
    for level in range(depth):
        if kinds[level % len(kinds)]:
            text = f"[{json.dumps(noise)}, {text}]"
        else:
            text = f'{{"k{level}": {text}, "s": {json.dumps(noise)}}}'
    return text


@settings(max_examples=60, deadline=None)
@given(
    depth=st.integers(min_value=1, max_value=3 * MAX_JSON_DEPTH),
    kinds=st.lists(st.booleans(), min_size=1, max_size=5),
    noise=st.text(alphabet='[]{}"\\ \n', max_size=8),
)
def test_nesting_is_measured_without_recursion(depth: int, kinds: list[bool], noise: str) -> None:
    text = _nested(depth, kinds, noise)
    found = too_deep(text, MAX_JSON_DEPTH)
    if depth <= MAX_JSON_DEPTH:
        assert found is None
        return
    assert found is not None
    # The position is the bracket that opens level MAX_JSON_DEPTH + 1.
    line = text.split("\n")[found.line - 1]
    assert line[found.column - 1] in "[{"


@settings(max_examples=20, deadline=None)
@given(depth=st.integers(min_value=MAX_JSON_DEPTH + 1, max_value=5_000))
def test_deep_schema_files_are_unusable_not_a_recursion_error(
    tmp_path_factory: pytest.TempPathFactory, depth: int
) -> None:
    path = tmp_path_factory.mktemp("deep") / "schema.json"
    path.write_text('{"$defs": ' + '{"a": ' * depth + "{}" + "}" * depth + "}")
    with pytest.raises(SchemaError) as caught:
        parse_schema_file(path)
    assert caught.value.unusable
    assert f"nested deeper than {MAX_JSON_DEPTH} levels" in str(caught.value)


def test_nesting_at_the_limit_parses(tmp_path: Path) -> None:
    path = tmp_path / "schema.json"
    path.write_text("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH)
    doc, problems = parse_schema_file(path)
    assert problems == [] and isinstance(doc, list)


def test_nesting_one_level_over_the_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "schema.json"
    depth = MAX_JSON_DEPTH + 1
    path.write_text("[" * depth + "]" * depth)
    with pytest.raises(SchemaError) as caught:
        parse_schema_file(path)
    assert caught.value.unusable
    assert f"nested deeper than {MAX_JSON_DEPTH} levels (at line 1, column {depth})" in str(
        caught.value
    )


def test_nesting_check_is_linear_on_escaped_quotes() -> None:
    # A string that never closes used to make the scanner retry from every later quote:
    # 80 KB took 38 s. At 2 MB a quadratic scan would not end within any test run.
    text = "[[[" + '\\"' * 1_000_000 + "[]" * MAX_JSON_DEPTH
    assert too_deep(text, MAX_JSON_DEPTH) is None
    assert too_deep("[" * (MAX_JSON_DEPTH + 1) + text, MAX_JSON_DEPTH) is not None


def test_a_schema_replaced_during_generate_is_read_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The checks, the header's digest and the warnings come from one reading of the file;
    # replacing it halfway through changes nothing (it used to end in a traceback).
    schema = tmp_path / "schema.json"
    original = bundled.bundled_schema("v1").read_bytes()
    schema.write_bytes(original)
    real = generate.finish_module

    def finish_then_replace(*args: object, **kwargs: object) -> object:
        schema.write_text("{not json")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(generate, "finish_module", finish_then_replace)
    assert main(["generate", "--schema", str(schema), "--out", str(tmp_path / "out")]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "not json" not in err
    digest = hashlib.sha256(original).hexdigest()
    assert digest in (tmp_path / "out" / "_models.py").read_text()


# --- Ctrl-C and a closed pipe, in real processes -----------------------------------------


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "acp_schema", *args]


def _interrupt_while_reading(argv: list[str], fifo: Path) -> subprocess.CompletedProcess[str]:
    """Run the command on a named pipe as its input; once it has opened the pipe and waits
    for data, send it SIGINT as a terminal's Ctrl-C would."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    opened = threading.Event()

    def open_writer() -> None:
        with fifo.open("w"):  # returns once the command has opened the other end
            opened.set()
            process.wait(timeout=60)

    writer = threading.Thread(target=open_writer, daemon=True)
    writer.start()
    if not opened.wait(timeout=60):
        process.kill()
        pytest.fail(f"{argv} never opened its input")
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    writer.join(timeout=5)
    return subprocess.CompletedProcess(argv, process.returncode, out, err)


# Only `transcript show` reads a stream (a log may be written while it is read); the schema
# commands refuse a named pipe before reading (CASES above).
INTERRUPTED = {
    "transcript show": (("transcript", "show", "{fifo}"), "acp-schema transcript show"),
}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("name", sorted(INTERRUPTED))
def test_ctrl_c_exits_130_with_one_line(name: str, inputs: Inputs, tmp_path: Path) -> None:
    args, who = INTERRUPTED[name]
    fifo = tmp_path / "input.json"
    os.mkfifo(fifo)
    places = {"fifo": str(fifo), "out": str(tmp_path / "out"), "earlier": inputs["earlier"]}
    argv = _command(*(places[a[1:-1]] if a.startswith("{") else a for a in args))
    done = _interrupt_while_reading(argv, fifo)
    assert done.returncode == 130, done.stderr
    assert done.stderr == f"{who}: interrupted\n"
    assert not (tmp_path / "out").exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_before_any_writer_is_acted_on(signum: int, tmp_path: Path) -> None:
    # The log is a named pipe nobody ever writes to: neither opening it nor waiting for
    # its data may hold a signal back (it used to wait for data to arrive first).
    fifo = tmp_path / "log.jsonl"
    os.mkfifo(fifo)
    process = subprocess.Popen(
        _command("transcript", "show", str(fifo)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_until_open(process.pid, fifo)
        process.send_signal(signum)
        err = process.communicate(timeout=60)[1]
    finally:
        process.kill()
    assert process.returncode == 128 + signum, err
    said = "interrupted" if signum == signal.SIGINT else "terminated"
    assert err == f"acp-schema transcript show: {said}\n"


def _wait_until_open(pid: int, path: Path) -> None:
    """Until process `pid` holds `path` open (Linux's /proc; elsewhere a fixed wait)."""
    fds = Path(f"/proc/{pid}/fd")
    for _ in range(600):
        try:
            if any(os.path.realpath(fd) == str(path.resolve()) for fd in fds.iterdir()):
                return
        except OSError:
            if not Path("/proc/self").is_dir():
                threading.Event().wait(5)
                return
        threading.Event().wait(0.1)
    pytest.fail(f"process {pid} never opened {path}")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_generate_leaves_no_temporary_files(signum: int, tmp_path: Path) -> None:
    # Stopped while datamodel-codegen works on the schema copy in the temporary directory.
    temp = tmp_path / "tmp"
    temp.mkdir()
    argv = _command("generate", "--schema", str(bundled.bundled_schema("v1")))
    argv += ["--out", str(tmp_path / "out")]
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(temp)},
    )
    try:
        for _ in range(1200):
            if list(temp.glob("*/schema.json")) or process.poll() is not None:
                break
            threading.Event().wait(0.05)
        assert process.poll() is None, "generate ended before its temporary files appeared"
        process.send_signal(signum)
        err = process.communicate(timeout=120)[1]
    finally:
        process.kill()
    said = "interrupted" if signum == signal.SIGINT else "terminated"
    assert (process.returncode, err) == (128 + signum, f"acp-schema generate: {said}\n")
    assert list(temp.iterdir()) == []
    assert not (tmp_path / "out").exists()


def test_ctrl_c_in_migrate_exits_130_with_one_line(tmp_path: Path) -> None:
    # migrate reads regular files only; the interrupt arrives while it works on one.
    (tmp_path / "code.py").write_text("x = 1\n")
    code = (
        "import os, signal, time\n"
        "import acp_schema.migrations.chunk_identity.run as runner\n"
        "def run(*args, **kwargs):\n"
        "    os.kill(os.getpid(), signal.SIGINT)\n"
        "    time.sleep(60)\n"
        "runner.run_all = run\n"
        "from acp_schema.cli import console_main\n"
        "import sys; sys.argv = ['acp-schema', 'migrate', sys.argv[1]]\n"
        "console_main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 130, done.stderr
    assert done.stderr == "acp-schema migrate: interrupted\n"
    assert (tmp_path / "code.py").read_text() == "x = 1\n"


def _with_closed_stdout(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """Run with stdout a pipe nobody reads any more (as `... | head` after head exits)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            argv, stdout=write_end, stderr=subprocess.PIPE, text=True, check=False, timeout=300
        )
    finally:
        os.close(write_end)
    return done


def _empty_log(tmp_path: Path) -> str:
    log = tmp_path / "log.jsonl"
    log.write_text("")
    return str(log)


CLOSED_PIPE: dict[str, Callable[[Path], list[str]]] = {
    "schema check": lambda tmp: ["schema", "check"],
    "check": lambda tmp: ["check"],
    "diff": lambda tmp: ["diff", "v1", "v2"],
    "transcript show": lambda tmp: ["transcript", "show", _empty_log(tmp)],
}


@pytest.mark.parametrize("name", sorted(CLOSED_PIPE))
def test_a_closed_pipe_ends_quietly(name: str, tmp_path: Path) -> None:
    done = _with_closed_stdout(_command(*CLOSED_PIPE[name](tmp_path)))
    assert done.stderr == ""
    assert done.returncode == 141


@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "PYTHONUNBUFFERED"])
def test_a_reader_leaving_mid_output_is_exit_141(unbuffered: str) -> None:
    # `acp-schema diff v1 v2 | head -c 10`: the report (about 88 KB) does not fit in the
    # pipe (64 KiB), so the reader leaves while the command still writes. Unbuffered, the
    # rest of the write used to be dropped without an error, and the exit was 0.
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    command = _command("diff", "v1", "v2")
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env) as run:
        assert run.stdout is not None and run.stderr is not None
        assert run.stdout.read(10) == b"Schema dif"
        run.stdout.close()
        err = run.stderr.read()
        code = run.wait(timeout=120)
    assert (code, err) == (141, b"")


@pytest.mark.parametrize("unbuffered", ["", "1"], ids=["buffered", "PYTHONUNBUFFERED"])
def test_help_into_a_closed_pipe_ends_quietly(unbuffered: str) -> None:
    # argparse ignores a failed write of --help; the flush at the end of `main` does not.
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered}
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = subprocess.run(
            _command("--help"), stdout=write_end, stderr=subprocess.PIPE, env=env, check=False
        )
    finally:
        os.close(write_end)
    assert (done.returncode, done.stderr) == (141, b"")


# --- what no command reported itself: the top-level net ----------------------------------


@pytest.mark.parametrize(
    ("raised", "code", "message"),
    [
        (KeyboardInterrupt(), 130, "acp-schema schema check: interrupted"),
        (
            RecursionError("deep"),
            2,
            "acp-schema schema check: the input is nested too deeply to process",
        ),
        (
            PermissionError(13, "Permission denied", "/some/file"),
            2,
            "acp-schema schema check: /some/file: Permission denied",
        ),
        (BrokenPipeError(32, "Broken pipe"), 141, ""),
    ],
    ids=["ctrl-c", "recursion", "os-error", "closed-pipe"],
)
def test_main_ends_every_command_the_same_way(
    raised: BaseException,
    code: int,
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from acp_schema.codegen import commands

    def handler(args: object) -> int:
        raise raised

    monkeypatch.setattr(commands, "_schema_check", handler)
    assert main(["schema", "check"]) == code
    err = capsys.readouterr().err
    assert err == (f"{message}\n" if message else "")


def test_a_failing_code_generator_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # datamodel-codegen's own traceback, on its stderr, must not reach the user as one.
    def render(path: Path, *options: object) -> list[GeneratedFile]:
        raise RuntimeError(
            "datamodel-codegen failed (1):\nTraceback (most recent call last):\n"
            '  File "x.py", line 1\nValueError: no models'
        )

    monkeypatch.setattr(generate, "render", render)
    schema = str(bundled.bundled_schema("v1"))
    assert main(["generate", "--schema", schema, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err == "acp-schema generate: datamodel-codegen failed (1): ValueError: no models\n"
    assert not (tmp_path / "out").exists()


# --- transcript show: free-form values deeper than pydantic's JSON-mode serializer -------


def _deep_value(depth: int) -> dict[str, object]:
    value: dict[str, object] = {"end": [1.5, "x"]}
    for _ in range(depth):
        value = {"a": value}
    return value


def test_transcript_json_writes_a_deep_meta_of_a_model_path_block(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An unknown key sends the block down the model path; its `_meta` (300 levels) is past
    # what `model_dump(mode="json")` writes, which used to end in a traceback.
    block = {"type": "text", "text": "hi", "unknownKey": 1, "_meta": _deep_value(300)}
    update = {
        "sessionUpdate": "session_message",
        "messageId": "m1",
        "senderSessionId": "A",
        "recipientSessionId": "B",
        "content": [block],
    }
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "A", "update": update},
    }
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps(message) + "\n")
    assert main(["transcript", "show", "--json", str(log)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    first = json.loads(out.splitlines()[0])
    assert first["record"] == "message"
    assert first["content"] == [block]


def test_the_deep_fallback_gives_the_wire_form() -> None:
    from acp_schema.transcripts.cli import _wire
    from acp_schema.transcripts.store import wire_form
    from acp_schema.v2 import ResourceLink

    link = ResourceLink.model_validate(
        {
            "type": "resource_link",
            "uri": "file:///a",
            "name": "a",
            "annotations": {"audience": ["user"]},
            "x": [1],
        }
    )

    def too_deep(block: object) -> dict[str, object]:
        raise ValueError("Maximum serialization depth exceeded")

    assert _wire(link, too_deep) == wire_form(link)


# --- Python objects in free-form values: refused as JSON text would refuse them ----------


@pytest.mark.parametrize(
    ("value", "says"),
    [
        (float("nan"), "NaN is not JSON (at /x"),
        (b"raw", "a value of type bytes is not JSON (at /x"),
        ({1, 2}, "a value of type set is not JSON (at /x"),
        (object(), "a value of type object is not JSON (at /x"),
        ((1, 2), "a value of type tuple is not JSON (at /x"),
        ("\ud800", "a lone surrogate is not JSON (at /x"),
    ],
    ids=["nan", "bytes", "set", "object", "tuple", "surrogate"],
)
def test_meta_from_python_holds_json_values_only(value: object, says: str) -> None:
    from pydantic import ValidationError

    from acp_schema.v2 import TextContent

    data = {"type": "text", "text": "t", "_meta": {"x": [value]}}
    with pytest.raises(ValidationError, match=re.escape(says.replace("/x", "/_meta/x/0"))):
        TextContent.model_validate(data)  # not read as "no _meta" by default-on-error
    with pytest.raises(ValidationError, match="is not JSON"):
        TextContent(text="t", meta={"x": value})
    with pytest.raises(ValidationError, match="is not JSON"):
        TextContent.model_validate({"type": "text", "text": "t", "unknown": {"x": value}})


def test_a_non_json_value_under_default_on_error_still_refuses_the_input() -> None:
    # `annotations` reads a malformed value as omitted; a set in its `_meta` is not a
    # malformed value but one JSON text cannot spell: the whole input is refused.
    from pydantic import ValidationError

    from acp_schema.v2 import TextContent

    data = {"type": "text", "text": "t", "annotations": {"_meta": {"x": {1}}}}
    with pytest.raises(ValidationError, match="json_invalid"):
        TextContent.model_validate(data)
    with pytest.raises(ValidationError, match="a value of type set is not JSON"):
        TextContent(text="t", annotations={"_meta": {"x": {1}}})
    # A JSON value of the wrong shape there is still read as omitted.
    malformed = TextContent.model_validate({"type": "text", "text": "t", "annotations": 5})
    assert malformed.annotations is MISSING


def test_meta_from_python_takes_what_json_text_gives() -> None:
    from acp_schema.v2 import TextContent

    meta = {"a": [1, 2.5, "s", None, True, {"b": float("inf")}]}
    block = TextContent.model_validate({"type": "text", "text": "t", "_meta": meta, "k": [1]})
    assert block.meta == meta
    text = '{"type": "text", "text": "t", "k": [1], '
    text += '"_meta": {"a": [1, 2.5, "s", null, true, {"b": 1e400}]}}'
    assert TextContent.model_validate_json(text) == block
    # A JSON value of the wrong shape is still the field's own business (default-on-error).
    assert TextContent.model_validate({"type": "text", "text": "t", "_meta": 5}).meta is MISSING


# --- hostile property names: the package generate writes imports, fast.py included -------


def _hostile_names_schema(path: Path) -> Path:
    from .test_generation_open_schemas import envelope, method_def

    names = ['a"b', "c\\d", "e\nf", "g\x00h", "ok"]
    defs = {
        "Req": method_def("m", "agent", **{name: {"type": "string"} for name in names}),
        "Res": method_def("m", "agent", done={"type": "boolean"}),
        "AgentRequest": envelope("request", ["Req"]),
        "AgentResponse": envelope("response", ["Res"]),
    }
    path.write_text(
        json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs})
    )
    return path


def test_hostile_property_names_give_a_package_that_imports(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = _hostile_names_schema(tmp_path / "names.json")
    assert main(["generate", "--schema", str(schema), "--out", str(tmp_path / "pkg" / "v9")]) == 0
    (tmp_path / "pkg" / "__init__.py").write_text("")
    code = (
        "from pkg.v9 import Req, fast\n"
        "assert not hasattr(fast, 'Req')  # msgspec cannot rename to these keys: model only\n"
        "assert hasattr(fast, 'Res')\n"
        'req = Req.model_validate_json(\'{"a\\\\"b": "1", "c\\\\\\\\d": "2", "ok": "3"}\')\n'
        "print(req.model_dump_json())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {'a"b': "1", "c\\d": "2", "ok": "3"}


def test_generate_refuses_a_package_that_would_not_import(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Were a Struct given a wire key msgspec refuses, the import check (a subprocess) sees
    # it before anything is written.
    from acp_schema.codegen.generate import fast_target

    monkeypatch.setattr(fast_target, "_wire_name", lambda name: name)
    schema = _hostile_names_schema(tmp_path / "names.json")
    out = tmp_path / "pkg" / "v9"
    assert main(["generate", "--schema", str(schema), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "the generated package does not import" in err and "Renamed field names" in err
    assert not out.exists()


# --- migrate: a full disk, looping paths, a size budget ------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 64 KB tmpfs (root, Linux): a disk that really fills up."""
    where = tmp_path / "disk"
    where.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small tmpfs needs root and mount(8)")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)


def _migratable(copies: int) -> str:
    from .test_migrate_files import OLD

    head, _, body = OLD.partition("\n\n\n")
    bodies = (body.replace("def send", f"def send{i}") for i in range(copies))
    return head + "\n\n\n" + "\n\n".join(bodies)


def _fill(disk: Path) -> Path:
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as stream, contextlib.suppress(OSError):
        while stream.write(bytes(4096)):
            pass
    return filler


def test_a_full_disk_leaves_a_hard_linked_file_whole(
    small_disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A hard-linked file is written in place (a rename would split the links); the new
    # text needs more blocks than the old one, and the disk has none left.
    old = _migratable(100)
    (small_disk / "send.py").write_text(old)
    os.link(small_disk / "send.py", small_disk / "link.txt")
    filler = _fill(small_disk)
    assert main(["migrate", str(small_disk / "send.py")]) == 2
    out = capsys.readouterr().out
    assert "not written: No space left on device" in out
    assert (small_disk / "send.py").read_text() == old
    assert (small_disk / "link.txt").read_text() == old
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler", "link.txt", "send.py"]
    filler.unlink()
    assert main(["migrate", str(small_disk / "send.py")]) == 0
    assert "SessionMessage(" in (small_disk / "link.txt").read_text()


def test_symlink_loops_are_reported_and_the_rest_is_migrated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Outside git, so the tree is walked: loops of files and of directories.
    from .test_migrate_files import OLD

    (tmp_path / "send.py").write_text(OLD)
    (tmp_path / "self.py").symlink_to("self.py")
    (tmp_path / "d1").symlink_to("d2")
    (tmp_path / "d2").symlink_to("d1")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "up").symlink_to("..")
    assert main(["migrate", "--no-gitignore", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert err == f"{tmp_path / 'self.py'}: too many levels of symbolic links\n"
    assert "1 written" in out or "1 changed" in out, out
    assert "SessionMessage(" in (tmp_path / "send.py").read_text()
    # Named on the command line, a loop is one failed path too.
    assert main(["migrate", str(tmp_path / "self.py"), str(tmp_path / "send.py")]) == 2
    assert capsys.readouterr().err == f"{tmp_path / 'self.py'}: too many levels of symbolic links\n"


def test_a_module_over_the_size_budget_is_reported_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = _migratable(40)
    (tmp_path / "big.py").write_text(big)
    (tmp_path / "other.py").write_text("x = 1\n" * 100_000)  # large, but nothing to migrate
    (tmp_path / "small.py").write_text(_migratable(1))
    args = [
        "migrate",
        "--max-file-size",
        "4K",
        str(tmp_path / "big.py"),
        str(tmp_path / "small.py"),
    ]
    assert main([*args, str(tmp_path / "other.py")]) == 2
    out = capsys.readouterr().out
    said = f"{tmp_path / 'big.py'}: error: not migrated: {len(big)} bytes, over the per-file"
    assert f"{said} budget of 4096" in out
    assert (tmp_path / "big.py").read_text() == big
    assert "SessionMessage(" in (tmp_path / "small.py").read_text()
    assert "other.py" not in out
    # The budget is the caller's to raise.
    assert main(["migrate", "--max-file-size", "1M", str(tmp_path / "big.py")]) == 0
    assert "SessionMessage(" in (tmp_path / "big.py").read_text()


def test_migrate_refuses_a_size_that_is_not_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate", "--max-file-size", "lots", "x.py"]) == 2
    assert "not a size: 'lots'" in capsys.readouterr().err


# --- transcript linking: rival claims ------------------------------------------------------


def _session_message(session_id: str, message_id: str, **identity: str) -> str:
    update = {"sessionUpdate": "session_message", "messageId": message_id, **identity}
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": session_id, "update": update},
        }
    )


def test_rival_claims_cost_one_pass_and_a_short_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    # N views all name B/i1, which names none of them: every one is a conflict. Asking
    # for all N + 1 links used to check every rival again for each (N^2 checks) and to
    # list all N views in each reason (N^2 text).
    from acp_schema.transcripts import linking
    from acp_schema.transcripts import store as store_module

    rivals = 300
    store = store_module.TranscriptStore("v2")
    store.apply_skimming(_session_message("B", "i1", recipientSessionId="B"))
    for i in range(rivals):
        reference = {"recipientSessionId": "B", "recipientMessageId": "i1"}
        store.apply_skimming(
            _session_message(f"S{i:03}", "o1", senderSessionId=f"S{i:03}", **reference)
        )
    checks = 0
    real = linking._claim_problem

    def counted(claimant: object, named: object) -> str | None:
        nonlocal checks
        checks += 1
        return real(claimant, named)  # type: ignore[arg-type]

    monkeypatch.setattr(linking, "_claim_problem", counted)
    links = [store.link(entry.session_id, entry.message_id) for entry in store]
    assert all(link is not None and link.state == "conflict" for link in links)
    assert checks <= rivals  # one pass over the claimants, not one per rival
    reasons = {link.reason for link in links if link is not None}
    assert reasons == {
        "S000/o1, S001/o1, S002/o1, S003/o1, S004/o1 and 295 more view(s) all name B/i1, "
        "which names none of them (yet)",
        "S000/o1, S001/o1, S002/o1, S003/o1, S004/o1 and 295 more view(s) all name this view, "
        "which names none of them (yet)",
    }
    # A rival that learns it does not fit (it now carries both references) drops out,
    # and the next answer knows it.
    store.apply_skimming(_session_message("S000", "o1", senderMessageId="elsewhere"))
    link = store.link("B", "i1")
    assert link is not None and "S001/o1, S002/o1" in link.reason and "S000/o1" not in link.reason


def test_a_view_that_names_itself_says_so() -> None:
    from acp_schema.transcripts.store import TranscriptStore

    store = TranscriptStore("v2")
    store.apply_skimming(
        _session_message("A", "m1", recipientSessionId="A", recipientMessageId="m1")
    )
    link = store.link("A", "m1")
    assert link is not None
    assert (link.state, link.counterpart, link.reason) == (
        "conflict",
        None,
        "the view names itself",
    )
    assert str(link) == "unlinked, conflict: the view names itself"


# --- diff --fail-on breaking: a change that breaks only the wire ----------------------------


def test_diff_with_thousands_of_unknown_keywords_is_not_quadratic(tmp_path: Path) -> None:
    # Compared with each variant of the other side's root union, every unknown keyword was
    # reported again inside each scratch comparison: 20,000 keys took 70 s. A scratch
    # comparison now stops at the first (all its verdicts are "unknown" alike).
    from acp_schema.codegen.drift import diff_keywords

    schema = tmp_path / "keys.json"
    schema.write_text(json.dumps({f"k{i}": i for i in range(300)}))
    emitted = 0
    real = diff_keywords.KeywordRules.others

    def counted(self: diff_keywords.KeywordRules, *args: object, **kwargs: object) -> None:
        nonlocal emitted
        real_emit = self.emit

        def emit(*a: object, **k: object) -> None:
            nonlocal emitted
            emitted += 1
            real_emit(*a, **k)  # type: ignore[arg-type]

        self.emit = emit  # type: ignore[method-assign]
        try:
            real(self, *args, **kwargs)  # type: ignore[arg-type]
        finally:
            self.emit = real_emit  # type: ignore[method-assign]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(diff_keywords.KeywordRules, "others", counted)
        assert main(["diff", str(schema), "v2"]) == 0
    assert emitted < 2_000  # 300 keys x ~70 variants before


def test_fail_on_breaking_counts_a_wire_only_break(tmp_path: Path) -> None:
    # A method added to envelopes that have no extension member: old decoders cannot
    # read the new params (wire), while the Python API only gains a class.
    from .test_schema_diff import case_paths, changes

    documents = [json.loads(Path(p).read_text()) for p in case_paths("method-added-to-envelopes")]
    for document in documents:
        document["$defs"]["ClientRequest"]["properties"]["params"]["anyOf"][0]["anyOf"].pop()
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(documents[0]))
    new.write_text(json.dumps(documents[1]))
    found = changes(*documents)
    assert found and all(c.api == "compatible" for c in found)
    assert any(c.old_reads_new == "breaking" for c in found)
    assert main(["diff", str(old), str(new), "--fail-on", "api"]) == 0
    assert main(["diff", str(old), str(new), "--fail-on", "wire"]) == 1
    assert main(["diff", str(old), str(new), "--fail-on", "breaking"]) == 1


def test_an_interrupted_migrate_write_leaves_no_temporary_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ctrl-C (or SIGTERM, raised alike) while the new texts are staged: the staged
    # temporary files go, the files keep their old bytes.
    from acp_schema.migrations.framework.disk import files as files_module

    paths = [tmp_path / f"{name}.py" for name in "abc"]
    for path in paths:
        path.write_bytes(b"old\n")
    real = files_module._prepare
    staged = 0

    def interrupted(write: files_module.Write) -> object:
        nonlocal staged
        staged += 1
        if staged == 3:
            raise KeyboardInterrupt
        return real(write)

    monkeypatch.setattr(files_module, "_prepare", interrupted)
    with pytest.raises(KeyboardInterrupt):
        files_module.write_all([files_module.Write(p, b"new\n", b"old\n") for p in paths])
    assert sorted(tmp_path.iterdir()) == paths
    assert all(p.read_bytes() == b"old\n" for p in paths)


def test_generate_into_a_directory_named_near_name_max(tmp_path: Path) -> None:
    # The staging directory beside it was named `.{name}-new-XXXX`: past NAME_MAX.
    limit = os.pathconf(tmp_path, "PC_NAME_MAX") if hasattr(os, "pathconf") else 255
    out = tmp_path / ("o" * limit)
    assert main(["generate", "--schema", str(bundled.bundled_schema("v1")), "--out", str(out)]) == 0
    assert (out / "__init__.py").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == [out.name]
