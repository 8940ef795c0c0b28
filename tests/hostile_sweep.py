"""A sweep of hostile inputs over every subcommand and the Python API (`python -m
tests.hostile_sweep [--quick]`): how many inputs, how many failures, and each failure.

Not part of the test suite (it takes minutes: the schemas that pass the checks go through
datamodel-codegen). A failure is what the README promises never happens: an exception out
of `main()` (a traceback), an exit code outside 0/1/2/130, a run past its time limit, a
"Traceback" in the output, output written by a command that failed, a migrated file that
is neither its old text nor a migrated one, or (Python API) an exception other than a
`ValidationError` from `model_validate`, or a model that validates and then cannot be
written as JSON.
"""

# ruff: noqa: E501

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_schema.cli import main
from acp_schema.codegen import bundled

SECONDS = 60  # per command
DOCUMENTED = {0, 1, 2}


class _TimedOut(BaseException):
    pass


@dataclass
class Tally:
    inputs: int = 0
    runs: int = 0
    failures: list[str] = field(default_factory=list)

    def fail(self, what: str) -> None:
        self.failures.append(what)
        print(f"FAIL {what}", flush=True)


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    def expire(signum: int, frame: object) -> None:
        raise _TimedOut

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run(tally: Tally, argv: list[str], label: str, out_dir: Path | None = None) -> int | None:
    """`acp-schema ARGV` in this process; records a failure and returns None if it broke
    a promise, else the exit code."""
    tally.runs += 1
    out, err = io.StringIO(), io.StringIO()
    started = time.perf_counter()
    try:
        with _time_limit(SECONDS), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(argv)
    except _TimedOut:
        tally.fail(f"{label}: over {SECONDS} s: {argv}")
        return None
    except BaseException as exc:  # what main() let through would be a traceback
        tally.fail(f"{label}: {type(exc).__name__}: {exc!s:.200} ({argv})")
        return None
    text = out.getvalue() + err.getvalue()
    if "Traceback" in text:
        tally.fail(f"{label}: traceback in the output ({argv})")
    if code not in DOCUMENTED:
        tally.fail(f"{label}: exit {code} ({argv}): {err.getvalue()[-200:]!r}")
    if code != 0 and out_dir is not None and out_dir.exists():
        tally.fail(f"{label}: exit {code} but {out_dir} was written ({argv})")
    elapsed = time.perf_counter() - started
    if elapsed > SECONDS / 2:
        print(f"slow {label}: {elapsed:.1f} s", flush=True)
    return code


# --- schema inputs -----------------------------------------------------------------------


def _bundled() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(bundled.bundled_schema("v2").read_text())
    return loaded


def _with_property(name: str) -> dict[str, Any]:
    doc = _bundled()
    defs = doc["$defs"]
    target = defs["TextContent"]
    target["properties"][name] = {"type": "string", "description": name}
    return doc


def _with_definition(name: str) -> dict[str, Any]:
    doc = _bundled()
    doc["$defs"][name] = {"type": "object", "properties": {"x": {"type": "string"}}}
    return doc


HOSTILE_NAMES = [
    'quo"te', "back\\slash", "new\nline", "nul\x00byte", "tab\there", "\u202eright-to-left",
    "emoji\U0001f600", "class", "__init__", "model_dump", "_meta", "meta", "with_text",
    "1digit", "", " ", "a-b", "a.b", "a/b", "~0", "$ref", "type", "self", "None",
    "very" * 300, "x\r", "\x7f", "\ud7ff", "k\u0301",
]  # fmt: skip


def schema_texts() -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of hostile schema files."""
    simple: dict[str, bytes] = {
        "empty": b"",
        "null": b"null",
        "array": b"[]",
        "object": b"{}",
        "string": b'"x"',
        "not-utf8": b"\xff\xfe{}",
        "bom": b"\xef\xbb\xbf{}",
        "truncated": b'{"$defs": {',
        "nan": b'{"x": NaN}',
        "infinity": b'{"x": -Infinity}',
        "overflow": b'{"maximum": 1e400}',
        "digits": b'{"maximum": ' + b"9" * 5000 + b"}",
        "digits-in-string": b'{"description": "' + b"9" * 5000 + b'"}',
        "negative-digits": b'{"maximum": -' + b"9" * 4301 + b"}",
        "surrogate": b'{"$schema": "\\ud800"}',
        "surrogate-key": b'{"$defs": {"A\\udfff": {}}}',
        "surrogate-pair": b'{"description": "\\ud83d\\ude00"}',
        "surrogate-deep": b'{"$defs": {"A": {"enum": ["ok", "\\udc80"]}}}',
        "encoded-surrogate": b'{"description": "\xed\xa0\x80"}',
        "nul": b'{"description": "\\u0000"}',
        "deep-65": b"[" * 65 + b"]" * 65,
        "deep-64": b"[" * 64 + b"]" * 64,
        "deep-100k": b"[" * 100_000 + b"]" * 100_000,
        "deep-object": b'{"a":' * 5000 + b"{}" + b"}" * 5000,
        "quotes-80k": b"[[[" + b'\\"' * 40_000 + b"[]" * 100,
        "quotes-open": b'{"a": "' + b"\\\\" * 40_000,
        "brackets-in-strings": b'{"description": "' + b"[" * 100_000 + b'"}',
        "duplicate-keys": b'{"$defs": {}, "$defs": {}}',
        "big-string": b'{"description": "' + b"x" * 5_000_000 + b'"}',
        "many-keys": json.dumps({f"k{i}": i for i in range(200_000)}).encode(),
        "ref-loop": json.dumps({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}}).encode(),
        "ref-missing": json.dumps({"$defs": {"A": {"$ref": "#/$defs/Nope"}}}).encode(),
        "ref-remote": json.dumps({"$defs": {"A": {"$ref": "https://example.com/x.json"}}}).encode(),
        "ref-file": json.dumps({"$defs": {"A": {"$ref": "file:///etc/passwd"}}}).encode(),
        "defs-not-object": b'{"$defs": []}',
        "def-not-schema": b'{"$defs": {"A": 5}}',
        "bad-type": b'{"$defs": {"A": {"type": "nonsense"}}}',
        "allof-self": json.dumps({"$defs": {"A": {"allOf": [{"$ref": "#/$defs/A"}]}}}).encode(),
    }  # fmt: skip
    yield from simple.items()
    for index, name in enumerate(HOSTILE_NAMES):
        try:
            yield f"property-{index}", json.dumps(_with_property(name)).encode()
            yield f"definition-{index}", json.dumps(_with_definition(name)).encode()
        except UnicodeEncodeError:
            continue
    doc = _bundled()
    doc["$defs"]["AgentNotification"]["x-method"] = "a\nb"
    yield "x-method-newline", json.dumps(doc).encode()
    doc = _bundled()
    del doc["$defs"]
    yield "no-defs", json.dumps(doc).encode()


def sweep_schemas(tally: Tally, root: Path, quick: bool) -> None:
    earlier = root / "earlier"
    run(
        tally,
        ["generate", "--schema", str(bundled.bundled_schema("v1")), "--out", str(earlier)],
        "setup",
    )
    files: list[tuple[str, Path]] = []
    for name, data in schema_texts():
        path = root / f"{name}.json"
        path.write_bytes(data)
        files.append((name, path))
    fifo = root / "fifo.json"
    os.mkfifo(fifo)
    loop = root / "loop.json"
    loop.symlink_to(loop)
    specials = [("fifo", fifo), ("loop", loop), ("dir", root), ("missing", root / "nope.json")]
    specials += [
        (p, Path(p)) for p in ("/dev/zero", "/dev/urandom", "/dev/null") if Path(p).exists()
    ]
    for name, path in files + specials:
        tally.inputs += 1
        label = f"schema {name}"
        run(tally, ["schema", "check", str(path)], label)
        run(tally, ["diff", str(path), "v2"], label)
        run(tally, ["diff", "--format", "json", "v1", str(path)], label)
        run(tally, ["diff", "--format", "markdown", str(path), str(path)], label)
        run(tally, ["check", "--schema", str(path), "--out", str(earlier)], label)
        slow = name.startswith(("property-", "definition-")) and quick
        if not slow:
            out = root / "out" / name.strip("/").replace("/", "-")
            if run(tally, ["generate", "--schema", str(path), "--out", str(out)], label, out) == 0:
                _import_generated(tally, out, label)


def _import_generated(tally: Tally, out: Path, label: str) -> None:
    import subprocess

    (out.parent / "__init__.py").write_text("")
    code = (
        f"import importlib\nfor m in ('out.{out.name}', 'out.{out.name}.fast', "
        f"'out.{out.name}.methods', 'out.{out.name}._models'):\n    importlib.import_module(m)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=out.parent.parent,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        tally.fail(f"{label}: generated package does not import: {done.stderr[-300:]}")


# --- transcript logs ---------------------------------------------------------------------


def _line(update: dict[str, Any], session: Any = "A") -> str:
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session, "update": update},
    }
    return json.dumps(message)


def _deep(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def log_texts() -> Iterator[tuple[str, bytes]]:
    upsert = {"sessionUpdate": "session_message", "messageId": "m", "content": []}
    block = {"type": "text", "text": "t", "unknown": 1}
    logs: dict[str, list[str]] = {
        "deep-meta-300": [_line({**upsert, "content": [{**block, "_meta": _deep(300)}]})],
        "deep-meta-900": [_line({**upsert, "content": [{**block, "_meta": _deep(900)}]})],
        "deep-message-meta": [_line({**upsert, "_meta": _deep(400)})],
        "nan": [_line(upsert).replace("[]", "[NaN]")],
        "nan-meta": [_line({**upsert, "_meta": {"x": 1}}).replace(": 1}", ": NaN}")],
        "infinity-meta": [_line({**upsert, "_meta": {"x": 1}}).replace(": 1}", ": 1e400}")],
        "surrogate": [_line({**upsert, "content": [{"type": "text", "text": "\\ud800"}]}).replace("\\\\ud800", "\\ud800")],
        "digits": [_line({**upsert, "_meta": {"x": 1}}).replace(": 1}", ": " + "9" * 5000 + "}")],
        "session-not-string": [_line(upsert, session=5)],
        "self-named": [_line({**upsert, "recipientSessionId": "A", "recipientMessageId": "m"})],
        "rivals": [
            _line({**upsert, "messageId": "i", "recipientSessionId": "B"}, "B"),
            *(
                _line({**upsert, "senderSessionId": f"S{i}", "recipientSessionId": "B", "recipientMessageId": "i"}, f"S{i}")
                for i in range(3000)
            ),
        ],
        "control-chars": [_line({**upsert, "messageId": "\x1b[2J\x07", "content": [{"type": "text", "text": "\x9b\u202e"}]})],
        "chunks-10k": [
            _line({"sessionUpdate": "session_message_chunk", "messageId": "m", "content": {"type": "text", "text": "x"}})
        ] * 10_000,
    }  # fmt: skip
    for name, lines in logs.items():
        yield name, ("\n".join(lines) + "\n").encode()
    yield "binary", bytes(range(256)) * 100
    yield "no-newline-big", b"x" * 3_000_000
    yield "empty-lines", b"\n" * 100_000
    yield (
        "not-utf8",
        b'{"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "\xff"}}\n',
    )


def sweep_logs(tally: Tally, root: Path) -> None:
    for name, data in log_texts():
        path = root / f"{name}.jsonl"
        path.write_bytes(data)
        tally.inputs += 1
        for args in ([], ["--json"], ["--protocol", "v1"]):
            run(tally, ["transcript", "show", *args, str(path)], f"log {name}")
    for special in ("/dev/null", str(root), str(root / "missing.jsonl")):
        tally.inputs += 1
        run(tally, ["transcript", "show", special], f"log {special}")


# --- migrate -----------------------------------------------------------------------------

OLD = (
    "from acp_schema.v2 import SessionMessageChunk, TextContent\n\n\n"
    "def send(out, mid, me, parts):\n"
    "    for part in parts:\n"
    "        out.put(SessionMessageChunk(message_id=mid, content=TextContent(text=part), "
    "sender_session_id=me))\n"
)


def module_texts() -> Iterator[tuple[str, bytes]]:
    yield "plain", OLD.encode()
    yield "latin1-cookie", b"# -*- coding: latin-1 -*-\n" + OLD.encode() + b"# \xe9\n"
    yield "bogus-cookie", b"# -*- coding: nonsense -*-\n" + OLD.encode()
    yield "not-utf8", OLD.encode() + b"# \xff\xfe\n"
    yield "nul", OLD.encode() + b"\x00\n"
    yield "crlf", OLD.replace("\n", "\r\n").encode()
    yield "bom", b"\xef\xbb\xbf" + OLD.encode()
    yield "deep-parens", b"sender_session_id = " + b"(" * 10_000 + b"1" + b")" * 10_000 + b"\n"
    yield (
        "deep-blocks",
        (
            "sender_session_id = 1\n"
            + "".join(" " * i + "if x:\n" for i in range(200))
            + " " * 200
            + "pass\n"
        ).encode(),
    )
    yield "syntax-error", OLD.encode() + b"def (:\n"
    yield "big", OLD.encode() + b"# sender_session_id\n" + b"x = 1\n" * 300_000
    yield "binary", b"sender_session_id" + bytes(range(256)) * 50
    yield "long-line", b"sender_session_id = '" + b"x" * 2_000_000 + b"'\n"


def sweep_migrate(tally: Tally, root: Path) -> None:
    for name, data in module_texts():
        tally.inputs += 1
        for mode in (["--check"], ["--diff"], []):
            path = root / f"{name}-{len(mode)}{mode[0][2:] if mode else 'write'}.py"
            path.write_bytes(data)
            code = run(tally, ["migrate", *mode, str(path)], f"migrate {name}")
            after = path.read_bytes()
            if (mode or code not in (0, 1)) and after != data:
                tally.fail(f"migrate {name}: file changed with {mode} exit {code}")
    fifo = root / "fifo.py"
    os.mkfifo(fifo)
    loop = root / "loop.py"
    loop.symlink_to(loop)
    tree = root / "tree"
    tree.mkdir()
    (tree / "a.py").write_text(OLD)
    (tree / "self.py").symlink_to("self.py")
    (tree / "up").symlink_to("..")
    (tree / "d1").symlink_to("d2")
    (tree / "d2").symlink_to("d1")
    for special in (fifo, loop, Path("/dev/null"), Path("/dev/zero"), tree, root / "missing.py"):
        tally.inputs += 1
        run(tally, ["migrate", "--no-gitignore", str(special)], f"migrate {special.name}")


# --- Python API ---------------------------------------------------------------------------


class _Odd:
    def __repr__(self) -> str:
        return "odd"


def api_values() -> Iterator[tuple[str, Any]]:
    yield from {
        "nan": float("nan"), "inf": float("inf"), "bytes": b"x", "bytearray": bytearray(b"x"),
        "set": {1}, "frozenset": frozenset(), "tuple": (1,), "object": object(), "odd": _Odd(),
        "int-key": {1: 2}, "none-key": {None: 1}, "complex": 1j, "type": int,
        "deep-300": _deep(300), "deep-3000": _deep(3000), "big-int": 10**5000,
        "surrogate": "\ud800", "path": Path("/"), "list-of-set": [[{1}]],
    }.items()  # fmt: skip


def sweep_api(tally: Tally) -> None:
    from pydantic import ValidationError

    from acp_schema.v2 import SessionMessage, TextContent

    for name, value in api_values():
        tally.inputs += 1
        for where, data, model in (
            ("_meta", {"type": "text", "text": "t", "_meta": {"x": value}}, TextContent),
            ("extra", {"type": "text", "text": "t", "unknown": value}, TextContent),
            ("message", {"messageId": "m", "_meta": {"x": value}}, SessionMessage),
        ):
            tally.runs += 1
            label = f"api {name} in {where}"
            try:
                with _time_limit(SECONDS):
                    instance = model.model_validate(data)
            except ValidationError:
                continue
            except BaseException as exc:
                tally.fail(f"{label}: model_validate raised {type(exc).__name__}: {exc!s:.150}")
                continue
            try:
                instance.model_dump_json()
            except BaseException as exc:
                documented = name.startswith("deep-")  # README: the serializer stops near 255
                if not documented:
                    tally.fail(
                        f"{label}: validated, then model_dump_json raised {type(exc).__name__}"
                    )


def main_sweep() -> int:
    quick = "--quick" in sys.argv
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 32
    tally = Tally()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="acp-hostile-") as tmp:
        root = Path(tmp)
        if only in (None, "io"):  # files, processes and terminal I/O: hostile_sweep_io
            from tests.hostile_sweep_io import sweep_io

            io_tally = sweep_io(_mkdir(root / "io"), seed=seed, scale=1 if quick else 2)
            print(io_tally.table())
            for area in io_tally.areas.values():
                tally.inputs += area.attempts
                tally.runs += area.attempts
                tally.failures += area.failures
        for name, part in (
            ("api", lambda: sweep_api(tally)),
            ("transcript", lambda: sweep_logs(tally, _mkdir(root / "logs"))),
            ("migrate", lambda: sweep_migrate(tally, _mkdir(root / "modules"))),
            ("schemas", lambda: sweep_schemas(tally, _mkdir(root / "schemas"), quick)),
        ):
            if only is not None and only != name:
                continue
            print(f"-- {name}", flush=True)
            part_started = time.perf_counter()
            part()
            print(f"   {time.perf_counter() - part_started:.0f} s", flush=True)
    print(
        f"{tally.inputs} inputs, {tally.runs} runs, {len(tally.failures)} failure(s) "
        f"in {time.perf_counter() - started:.0f} s"
    )
    return 1 if tally.failures else 0


def _mkdir(path: Path) -> Path:
    path.mkdir()
    return path


if __name__ == "__main__":
    raise SystemExit(main_sweep())
