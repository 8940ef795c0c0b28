"""The hostile sweep's part for files, processes and terminal I/O (`python -m
tests.hostile_sweep --only io`): drawn names, streams, races, report targets, project
files, `.gitignore` patterns and source layouts, against every command.

Inputs are drawn from a seeded generator (the same run each time for a seed; `--seed N`
for another), not listed by hand. Each area counts its attempts and its failures; a
failure is a promise of the README broken:

* names: a raw control character, reordering mark or undecodable byte on a terminal, a
  name split over lines, a traceback, an undocumented exit code; a `--diff` header that
  `git apply` cannot take back to the same name;
* streams: anything but one line and exit 74 (full), 141 (gone) or refused (closed);
  "Exception ignored" or a traceback;
* races: an edit lost, a file neither its old bytes nor migrated, a temporary file left;
* reports: a report written over an input, or a tree written when the report cannot be;
* project files, `--jobs`: a traceback;
* `.gitignore`: a pattern that takes more than the time limit, or a decision different
  from git's own (`git ls-files` in a copy of the tree);
* layouts: valid Python (form feeds, CR or CRLF line ends) refused, a migrated file that
  does not compile, a second run that changes it again, or lost line ends.
"""

# ruff: noqa: E501, B023

from __future__ import annotations

import contextlib
import io
import os
import random
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from acp_schema.cli import main
from acp_schema.codegen import bundled

OLD = (
    "from acp_schema.v2 import SessionMessageChunk, TextContent\n\n\n"
    "def send(out, mid, me, parts):\n"
    "    for part in parts:\n"
    "        out.put(SessionMessageChunk(message_id=mid, content=TextContent(text=part), "
    "sender_session_id=me))\n"
)
MIGRATED = "from acp_schema.v2 import SessionMessage, SessionMessageChunk, TextContent"
DOCUMENTED = {0, 1, 2, 74, 130, 141, 143}
# What may never reach a terminal raw (line feed and tab aside, which lines are made of).
RAW = {*map(chr, [*range(0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)])}
RAW |= set("\u061c\u200e\u200f\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
NAME_PIECES = [
    b"a", b"Z", b"_", b"-", b".", b" ", b"\t", b"\n", b"\r", b"\x1b[31m", b"\x07", b"\x08",
    b"\x7f", b"\x9b", b"\xc2\x9b", b"\xff", b"\xfe", b"\xe9", b"\xc3\xa9", b"\xe2\x80\xae",
    b"\xe2\x80\xa8", b'"', b"\\", b"'", b"$(x)", b"%s", b"*", b"?", b"[", b"!", b"#", b"\xf0\x9f\x98\x80",
]  # fmt: skip


@dataclass
class Area:
    attempts: int = 0
    failures: list[str] = field(default_factory=list)


@dataclass
class IoTally:
    areas: dict[str, Area] = field(default_factory=dict)

    def attempt(self, area: str) -> None:
        self.areas.setdefault(area, Area()).attempts += 1

    def fail(self, area: str, what: str) -> None:
        self.areas.setdefault(area, Area()).failures.append(what)
        print(f"FAIL [{area}] {what[:300]}", flush=True)

    def table(self) -> str:
        rows = ["| area | attempts | failures |", "|---|---:|---:|"]
        for name, area in self.areas.items():
            rows.append(f"| {name} | {area.attempts} | {len(area.failures)} |")
        return "\n".join(rows)


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "acp_schema", *args]


def _process(
    args: list[str], *, stdout: object = subprocess.PIPE, env: dict[str, str] | None = None,
    cwd: Path | None = None, shell_prefix: list[str] | None = None,
) -> subprocess.CompletedProcess[bytes]:  # fmt: skip
    command = [*(shell_prefix or []), *_command(*args)]
    return subprocess.run(
        command,
        stdout=stdout,  # type: ignore[arg-type]
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONIOENCODING": "utf-8:strict", **(env or {})},
        cwd=cwd,
        check=False,
        timeout=300,
    )


def _raw_in(text: bytes) -> str | None:
    decoded = text.decode("utf-8", "surrogateescape")
    for char in decoded:
        if char in RAW or 0xD800 <= ord(char) <= 0xDFFF:
            return repr(char)
    return None


def draw_name(rng: random.Random, limit: int) -> bytes:
    """A file name of drawn pieces: control characters, undecodable bytes, quotes, bidi
    marks, glob characters; sometimes as long as the file system allows."""
    name = b"".join(rng.choice(NAME_PIECES) for _ in range(rng.randint(1, 8)))
    if rng.random() < 0.15:
        name = name + b"n" * (limit - len(name) - 3)
    return name[: limit - 8]  # room for the longest suffix the sweep adds (`-out`, `.json`)


# --- names on terminals -------------------------------------------------------------------


def sweep_names(tally: IoTally, root: Path, rng: random.Random, count: int) -> None:
    limit = os.pathconf(root, "PC_NAME_MAX") if hasattr(os, "pathconf") else 255
    for index in range(count):
        name = draw_name(rng, limit)
        case = root / f"n{index}"
        case.mkdir()
        tree = case / "tree"
        tree.mkdir()
        py = tree / os.fsdecode(name + b".py")
        py.write_text(OLD)
        schema = case / os.fsdecode(name + b".json")
        schema.write_bytes(bundled.bundled_schema("v1").read_bytes())
        log = case / os.fsdecode(name + b".log")
        log.write_text('{"jsonrpc": "2.0", "method": "x"}\nnot json\n')
        out = case / os.fsdecode(name + b"-out")
        runs = {
            "migrate --check": ["migrate", "--check", str(tree)],
            "migrate --diff": ["migrate", "--diff", str(tree)],
            "schema check": ["schema", "check", str(schema), str(case / "missing.json")],
            "diff": ["diff", str(schema), "v1"],
            "transcript show": ["transcript", "show", str(log)],
            "check": ["check", "--schema", str(schema), "--out", str(out)],
            "migrate": ["migrate", "--json", str(case / "r.json"), str(tree)],
        }
        if index % 5 == 0:  # a generate run takes seconds: one name in five
            runs["generate"] = ["generate", "--schema", str(schema), "--out", str(out)]
        for label, args in runs.items():
            tally.attempt("names")
            done = _process(args)
            what = f"{label} {name!r}"
            if done.returncode not in DOCUMENTED:
                tally.fail("names", f"{what}: exit {done.returncode}")
            if b"Traceback" in done.stderr:
                tally.fail("names", f"{what}: traceback {done.stderr[-300:]!r}")
            shown = done.stderr if label == "migrate --diff" else done.stdout + done.stderr
            if label == "migrate --diff":
                headers = [x for x in done.stdout.split(b"\n") if x.startswith((b"--- ", b"+++ "))]
                shown += b"\n".join(headers)
            raw = _raw_in(shown)
            if raw is not None:
                tally.fail("names", f"{what}: {raw} reached the terminal raw")
        if MIGRATED not in py.read_text():
            tally.fail("names", f"migrate {name!r}: the file was not written")
        _check_patch(tally, case, name)


def _check_patch(tally: IoTally, case: Path, name: bytes) -> None:
    """`--diff` headers name the file so that `git apply` writes it back."""
    if shutil.which("git") is None:
        return
    tally.attempt("names")
    tree = case / "git"
    tree.mkdir()
    path = tree / os.fsdecode(name + b".py")
    path.write_text(OLD)
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    done = _process(["migrate", "--no-gitignore", "--diff", "."], cwd=tree)
    patch = case / "p.diff"
    patch.write_bytes(done.stdout)
    applied = subprocess.run(
        ["git", "-C", str(tree), "apply", str(patch)], capture_output=True, check=False
    )
    if applied.returncode != 0 or MIGRATED not in path.read_text():
        tally.fail("names", f"--diff of {name!r} does not apply: {applied.stderr[-200:]!r}")


# --- streams ------------------------------------------------------------------------------


def _stream_commands(root: Path) -> dict[str, list[str]]:
    tree = root / "tree"
    tree.mkdir(exist_ok=True)
    (tree / "m.py").write_text(OLD)
    log = root / "log.jsonl"
    log.write_text("not json\n" * 3000)
    return {
        "schema check": ["schema", "check"],
        "check": ["check"],
        "diff": ["diff", "v1", "v2"],
        "diff markdown": ["diff", "--format", "markdown", "v1", "v2"],
        "transcript show": ["transcript", "show", str(log)],
        "transcript --json": ["transcript", "show", "--json", str(log)],
        "migrate --check": ["migrate", "--check", str(tree)],
        "migrate --diff": ["migrate", "--diff", str(tree)],
        "help": ["--help"],
        "version": ["--version"],
        "usage": ["migrate"],
    }


def sweep_streams(tally: IoTally, root: Path) -> None:
    for label, args in _stream_commands(root).items():
        for unbuffered in ("", "1"):
            env = {"PYTHONUNBUFFERED": unbuffered}
            outcomes: list[tuple[str, Callable[[], subprocess.CompletedProcess[bytes]]]] = [
                ("closed", lambda: _process(args, env=env, shell_prefix=["sh", "-c", 'exec "$@" >&-', "sh"])),
                ("gone", lambda: _gone(args, env)),
            ]  # fmt: skip
            if Path("/dev/full").exists():
                outcomes.append(("full", lambda: _full(args, env)))
            for kind, run in outcomes:
                tally.attempt("streams")
                done = run()
                what = f"{label} stdout {kind} (unbuffered={unbuffered!r})"
                err = done.stderr
                if b"Traceback" in err or b"Exception ignored" in err:
                    tally.fail("streams", f"{what}: {err[-300:]!r}")
                expected = {"closed": 74, "full": 74, "gone": 141}[kind]
                usage = label == "usage" and kind != "closed"  # argparse writes to stderr
                if done.returncode != expected and not (usage and done.returncode == 2):
                    tally.fail("streams", f"{what}: exit {done.returncode}: {err[-200:]!r}")
                # The failure is said in one line, the last (a report's own lines on
                # stderr, such as transcript show's bad lines, may come before it).
                said = {
                    "closed": b"acp-schema: standard output is closed; nothing done",
                    "full": b"cannot write to standard output: No space left on device",
                }.get(kind)
                lines = err.splitlines()
                if said is not None and not usage and not (lines and lines[-1].endswith(said)):
                    tally.fail("streams", f"{what}: no closing line: {err[-300:]!r}")
                if kind == "closed" and len(lines) != 1:
                    tally.fail("streams", f"{what}: more than one line: {err[-300:]!r}")


def _full(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    with open("/dev/full", "wb") as full:
        return _process(args, stdout=full, env=env)


def _gone(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return _process(args, stdout=write_end, env=env)
    finally:
        os.close(write_end)


# --- races while migrate writes -----------------------------------------------------------


def _mutations(path: Path) -> dict[str, Callable[[], None]]:
    def append() -> None:
        with path.open("a") as stream:
            stream.write("# edited\n")

    def rename_over() -> None:
        other = path.with_name(".editor-save")
        other.write_bytes(path.read_bytes() + b"# edited\n")
        os.replace(other, path)

    def fifo() -> None:
        path.unlink()
        os.mkfifo(path)

    def dev_zero() -> None:
        path.unlink()
        path.symlink_to("/dev/zero")

    def same_length() -> None:
        data = path.read_bytes()
        path.write_bytes(data[:-2] + b"#\n")

    def chmod() -> None:
        path.chmod(0o600)

    return {
        "append": append, "rename-over": rename_over, "fifo": fifo, "dev-zero": dev_zero,
        "same-length": same_length, "chmod": chmod, "delete": path.unlink,
    }  # fmt: skip


def sweep_races(tally: IoTally, root: Path, rng: random.Random, count: int) -> None:
    """An edit saved at a drawn moment of the writes (right before the n-th swap or
    rename, the window between the last check and the write), to a drawn file of the run.
    An edit to a file not yet written must stop the run with every file as it was (the
    edit kept); one to a file already written is the user's, after the run's."""
    from acp_schema.migrations.framework.disk import files as files_module

    real_exchange = files_module.exchange
    for index in range(count):
        case = root / f"r{index}"
        case.mkdir()
        paths = [case / f"m{i}.py" for i in range(rng.randint(2, 5))]
        for path in paths:
            path.write_text(OLD)
        victim = rng.choice(paths)
        kind = rng.choice(sorted(_mutations(victim)))
        when = rng.randint(0, len(paths) - 1)
        written: list[Path] = []
        before_its_write: list[bool] = []

        def swap(first: Path, second: Path) -> bool:
            if len(written) == when:
                before_its_write.append(victim.resolve() not in written)
                _mutations(victim)[kind]()
            written.append(Path(second).resolve())
            return real_exchange(first, second)

        tally.attempt("races")
        files_module.exchange = swap  # type: ignore[assignment]
        try:
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                code = main(["migrate", str(case)])
        except BaseException as exc:
            tally.fail("races", f"{kind}: {type(exc).__name__}: {exc}")
            continue
        finally:
            files_module.exchange = real_exchange  # type: ignore[assignment]
        what = f"{kind} of {victim.name} before write {when} of {len(paths)}"
        leftovers = [p.name for p in case.iterdir() if p.name.startswith(".acp-")]
        if leftovers:
            tally.fail("races", f"{what}: temporary files left: {leftovers}")
        early = bool(before_its_write and before_its_write[0])
        if early and code != 2:
            tally.fail("races", f"{what}: exit {code}, the edit was not noticed")
        for path in paths:
            if (path == victim and before_its_write) or not path.is_file():
                continue
            text = path.read_text()
            if code == 2 and text != OLD:
                tally.fail("races", f"{what}: {path.name} written although the run failed")
            if code == 0 and MIGRATED not in text:
                tally.fail("races", f"{what}: {path.name} not written although the run passed")
        kept = kind in ("append", "same-length", "rename-over")
        if early and kept and victim.read_text() == OLD:
            tally.fail("races", f"{what}: the edit was lost")
        if (
            before_its_write
            and not early
            and kind == "append"
            and "# edited" not in victim.read_text()
        ):
            tally.fail("races", f"{what}: an edit after the write was undone")


# --- report targets -----------------------------------------------------------------------


def sweep_reports(tally: IoTally, root: Path) -> None:
    for kind in (
        "input",
        "symlink",
        "hard-link",
        "directory",
        "fifo",
        "no-dir",
        "pyproject",
        "file-dir",
    ):
        for mode in ([], ["--check"], ["--diff"]):
            case = root / f"{kind}{len(mode)}{''.join(mode)}"
            tree = case / "tree"
            tree.mkdir(parents=True)
            (tree / "m.py").write_text(OLD)
            (tree / "pyproject.toml").write_text("[tool.acp-schema.migrate]\n")
            report = {
                "input": tree / "m.py", "symlink": case / "l.json", "hard-link": case / "h.json",
                "directory": case / "d", "fifo": case / "f.json", "no-dir": case / "x" / "r.json",
                "pyproject": tree / "pyproject.toml", "file-dir": tree / "m.py" / "r.json",
            }[kind]  # fmt: skip
            if kind == "symlink":
                report.symlink_to(tree / "m.py")
            elif kind == "hard-link":
                os.link(tree / "m.py", report)
            elif kind == "directory":
                report.mkdir()
            elif kind == "fifo":
                os.mkfifo(report)
            tally.attempt("reports")
            err = io.StringIO()
            try:
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                    code = main(["migrate", *mode, "--json", str(report), str(tree)])
            except BaseException as exc:
                tally.fail("reports", f"{kind} {mode}: {type(exc).__name__}: {exc}")
                continue
            if code != 2 or len(err.getvalue().splitlines()) != 1:
                tally.fail("reports", f"{kind} {mode}: exit {code}: {err.getvalue()!r}")
            if (tree / "m.py").read_text() != OLD:
                tally.fail("reports", f"{kind} {mode}: the tree was written")
            if not (tree / "pyproject.toml").read_text().startswith("[tool"):
                tally.fail("reports", f"{kind} {mode}: the settings were overwritten")


# --- pyproject.toml and --jobs ------------------------------------------------------------


def _toml_value(rng: random.Random, depth: int = 0) -> str:
    choices = [
        lambda: str(rng.randint(-(10**6), 10**6)),
        lambda: "9" * rng.choice([10, 4300, 4301, 5000]),
        lambda: rng.choice(['"src"', '"src\\u0000x"', '"loop/x"', '"../.."', '"/"', '""', '"\\u202e"']),
        lambda: rng.choice(["true", "nan", "inf", "1.5", "1979-05-27"]),
        lambda: "[" + ", ".join(_toml_value(rng, depth + 1) for _ in range(rng.randint(0, 3))) + "]",
        lambda: "{" + ", ".join(f'"k{i}" = {_toml_value(rng, depth + 1)}' for i in range(rng.randint(0, 2))) + "}",
    ]  # fmt: skip
    return rng.choice(choices[:4] if depth > 2 else choices)()


PACKAGE_KEYS = [
    ("tool.setuptools", "package-dir"), ("tool.setuptools.packages.find", "where"),
    ("tool.hatch.build.targets.wheel", "packages"), ("tool.hatch.build.targets.wheel", "sources"),
    ("tool.poetry", "packages"), ("tool.pdm.build", "package-dir"),
    ("tool.uv.build-backend", "module-root"), ("tool.pytest.ini_options", "pythonpath"),
    ("tool.acp-schema.migrate", "exclude"), ("tool.acp-schema.migrate", "bindings"),
    ("tool.acp-schema.migrate", "select"), ("tool.acp-schema.migrate", "todo-comments"),
]  # fmt: skip


def sweep_projects(tally: IoTally, root: Path, rng: random.Random, count: int) -> None:
    for index in range(count):
        case = root / f"p{index}"
        (case / "pkg").mkdir(parents=True)
        (case / "pkg" / "m.py").write_text(OLD)
        (case / "loop").symlink_to("loop")
        table, key = rng.choice(PACKAGE_KEYS)
        (case / "pyproject.toml").write_text(f"[{table}]\n{key} = {_toml_value(rng)}\n")
        jobs = rng.choice(["1", "2", "256", "257", "0", "-1", "2147483648", "9" * 5000, "x", "1e3"])
        for args in (
            ["migrate", "--check", str(case)],
            ["migrate", "--check", "--jobs", jobs, str(case)],
        ):
            tally.attempt("projects")
            try:
                with (
                    contextlib.redirect_stdout(io.StringIO()),
                    contextlib.redirect_stderr(io.StringIO()),
                ):
                    code = main(args)
            except BaseException as exc:
                text = (case / "pyproject.toml").read_text()[:200]
                tally.fail("projects", f"{text!r} {args[2:4]}: {type(exc).__name__}: {exc!s:.200}")
                continue
            if code not in (1, 2):
                tally.fail("projects", f"{args}: exit {code}")


# --- .gitignore ---------------------------------------------------------------------------

PATTERN_PIECES = [
    "a",
    "b",
    "*",
    "**",
    "?",
    "[ab]",
    "[!a]",
    "[z-a]",
    "/",
    "!",
    "\\",
    "\\*",
    " ",
    ".py",
    "\udcff",
    "é",
]
FILE_NAMES = [b"a.py", b"b.py", b"ab.py", b"a/b.py", b"b/a/ab.py", b"\xff.py", b"a\xffb.py", b"aaaa.py", b"[ab].py", b"*.py", b"a b.py", b"d/\xe9.py"]  # fmt: skip


def _files_found(tree: Path, git: bool) -> set[str] | None:
    from acp_schema.migrations.framework.disk import files as files_module

    real = files_module.shutil.which
    if not git:
        files_module.shutil.which = lambda name: None  # type: ignore[assignment]
    try:
        found = files_module.discover([tree])
    finally:
        files_module.shutil.which = real  # type: ignore[assignment]
    if git and not found.used_git:
        return None
    return {os.fsencode(p.relative_to(tree)).decode("latin-1") for p in found.files}


def sweep_gitignore(tally: IoTally, root: Path, rng: random.Random, count: int) -> None:
    has_git = shutil.which("git") is not None
    for index in range(count):
        tree = root / f"g{index}"
        for name in FILE_NAMES:
            path = tree / os.fsdecode(name)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x = 1\n")
        lines = []
        for _ in range(rng.randint(1, 4)):
            lines.append("".join(rng.choice(PATTERN_PIECES) for _ in range(rng.randint(1, 6))))
        (tree / ".gitignore").write_bytes(
            "\n".join(lines).encode("utf-8", "surrogateescape") + b"\n"
        )
        (tree / ("a" * 120 + ".py")).write_text("x = 1\n")
        tally.attempt("gitignore")
        started = time.perf_counter()
        try:
            ours = _files_found(tree, git=False)
        except BaseException as exc:
            tally.fail("gitignore", f"{lines!r}: {type(exc).__name__}: {exc}")
            continue
        if time.perf_counter() - started > 10:
            tally.fail("gitignore", f"{lines!r}: {time.perf_counter() - started:.0f} s")
        if not has_git:
            continue
        subprocess.run(["git", "init", "-q", str(tree)], check=True)
        tally.attempt("gitignore")
        theirs = _files_found(tree, git=True)
        if theirs is not None and ours != theirs:
            only_ours, only_git = sorted((ours or set()) - theirs), sorted(theirs - (ours or set()))
            tally.fail("gitignore", f"{lines!r}: only ours {only_ours}, only git's {only_git}")


# --- source layouts -----------------------------------------------------------------------


def _layout(rng: random.Random) -> bytes:
    lines = OLD.split("\n")
    for number, line in enumerate(lines):
        if line and rng.random() < 0.4:
            lines[number] = rng.choice(["\f", " \f", "\f\f", "\t\f"]) + line
    end = rng.choice(["\n", "\r\n", "\r"])
    text = end.join(lines)
    if rng.random() < 0.3:
        text += end + "\f" + end + "x = 1" + end
    return text.encode()


def sweep_layouts(tally: IoTally, root: Path, rng: random.Random, count: int) -> None:
    for index in range(count):
        data = _layout(rng)
        try:
            compile(data, "m.py", "exec")
        except SyntaxError:
            continue  # not valid Python: not this sweep's concern
        path = root / f"l{index}.py"
        path.write_bytes(data)
        tally.attempt("layouts")
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            code = main(["migrate", str(path)])
        migrated = path.read_bytes()
        what = f"{data[:80]!r}"
        if code != 0:
            tally.fail("layouts", f"{what}: exit {code}: {out.getvalue()[-200:]!r}")
            continue
        try:
            compile(migrated, "m.py", "exec")
        except SyntaxError as err:
            tally.fail("layouts", f"{what}: the migrated file does not compile: {err}")
        for end in (b"\r\n", b"\r", b"\n"):
            if end in data:
                kind = end
                break
        if (kind == b"\r" and b"\n" in migrated) or (kind == b"\n" and b"\r" in migrated):
            tally.fail("layouts", f"{what}: line ends changed")
        if data.endswith(kind) and not migrated.endswith(kind):
            tally.fail("layouts", f"{what}: the last line end was lost")
        if migrated.count(b"\f") != data.count(b"\f"):
            tally.fail("layouts", f"{what}: form feeds lost")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            again = main(["migrate", "--check", str(path)])
        if again != 0:
            tally.fail("layouts", f"{what}: a second run would change it again")


# --- the part -------------------------------------------------------------------------------


def sweep_io(root: Path, *, seed: int = 32, scale: int = 1) -> IoTally:
    tally = IoTally()
    rng = random.Random(seed)
    parts: list[tuple[str, Callable[[Path], None]]] = [
        ("streams", lambda where: sweep_streams(tally, where)),
        ("reports", lambda where: sweep_reports(tally, where)),
        ("races", lambda where: sweep_races(tally, where, rng, 40 * scale)),
        ("projects", lambda where: sweep_projects(tally, where, rng, 60 * scale)),
        ("gitignore", lambda where: sweep_gitignore(tally, where, rng, 60 * scale)),
        ("layouts", lambda where: sweep_layouts(tally, where, rng, 60 * scale)),
        ("names", lambda where: sweep_names(tally, where, rng, 12 * scale)),
    ]
    for name, part in parts:
        where = root / name
        where.mkdir()
        started = time.perf_counter()
        print(f"-- io: {name}", flush=True)
        part(where)
        print(f"   {time.perf_counter() - started:.0f} s", flush=True)
    return tally


def failures(tally: IoTally) -> Iterator[str]:
    for area in tally.areas.values():
        yield from area.failures


def summary(tally: IoTally) -> Counter[str]:
    return Counter({name: len(area.failures) for name, area in tally.areas.items()})
