"""`migrate` against hostile files and processes (issue 32, files and processes): edits
saved while a run writes, outputs that are inputs, files swapped for FIFOs or /dev/zero,
names near NAME_MAX, mode bits and extended attributes, form feeds and CR-only files,
broken `pyproject.toml` package roots, `--jobs` out of range, `.gitignore` patterns that
backtrack, and memory on trees of large files. Each case reproduces a bug the outside
sweep found; each failed before its fix.
"""

from __future__ import annotations

import json
import os
import stat
import struct
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_schema._input import read_file
from acp_schema.cli import main
from acp_schema.migrations.chunk_identity.rule_ids import ALL_RULES
from acp_schema.migrations.chunk_identity.run import Options, run
from acp_schema.migrations.framework.disk import files as files_module
from acp_schema.migrations.framework.disk import sources
from acp_schema.migrations.framework.disk.files import Write, write_all
from acp_schema.migrations.framework.parsing import Layout, for_parser, restore

OLD = (
    "from acp_schema.v2 import SessionMessageChunk, TextContent\n\n\n"
    "def send(out, mid, me, parts):\n"
    "    for part in parts:\n"
    "        out.put(SessionMessageChunk(message_id=mid, content=TextContent(text=part), "
    "sender_session_id=me))\n"
)
MIGRATED_IMPORT = "from acp_schema.v2 import SessionMessage, SessionMessageChunk, TextContent"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


def _tree(tmp_path: Path, count: int = 2) -> list[Path]:
    tree = tmp_path / "tree"
    tree.mkdir(exist_ok=True)
    paths = []
    for index in range(count):
        path = tree / f"m{index}.py"
        path.write_text(OLD)
        paths.append(path)
    return paths


# --- an edit saved while the run writes --------------------------------------------------


@pytest.mark.parametrize("swap", [True, False], ids=["atomic-swap", "rename"])
def test_an_edit_saved_between_staging_and_rename_is_kept(
    swap: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    first, second = _tree(tmp_path)
    real_exchange = files_module.exchange
    real_replace = os.replace
    renames: list[str] = []

    def save_second_then_rename(source: object, target: object) -> None:
        if not renames:  # an editor saves the second file just as the first is renamed
            second.write_text(OLD + "# edited meanwhile\n")
        renames.append(str(target))
        real_replace(source, target)  # type: ignore[arg-type]

    def save_second_then_swap(first_name: Path, second_name: Path) -> bool:
        if not renames:
            second.write_text(OLD + "# edited meanwhile\n")
        renames.append(str(second_name))
        return real_exchange(first_name, second_name)

    if swap:
        monkeypatch.setattr(files_module, "exchange", save_second_then_swap)
    else:
        monkeypatch.setattr(files_module, "exchange", lambda first, second: False)
        monkeypatch.setattr(files_module.os, "replace", save_second_then_rename)
    assert main(["migrate", str(tmp_path / "tree")]) == 2
    assert second.read_text() == OLD + "# edited meanwhile\n"  # the edit stands
    assert first.read_text() == OLD  # and the run wrote all or nothing
    assert "changed on disk while it was being migrated" in capsys.readouterr().out
    assert not [p for p in (tmp_path / "tree").iterdir() if p.name.startswith(".acp-")]


@pytest.mark.parametrize(
    "edit",
    ["append", "rename-over", "same-length"],
)
def test_an_edit_saved_in_the_window_between_check_and_rename_is_kept(
    edit: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The check and the rename are two steps; an atomic swap, checked after the fact,
    # closes the window: the file swapped out must still be the one that was checked.
    (path,) = _tree(tmp_path, 1)
    real_exchange = files_module.exchange
    if not real_exchange(tmp_path / "tree" / "m0.py", tmp_path / "tree" / "m0.py"):
        pytest.skip("no atomic swap of names on this system")

    def edit_then_swap(first: Path, second: Path) -> bool:
        if second == path.resolve() and path.read_text() == OLD:
            if edit == "append":
                path.write_text(OLD + "# saved\n")
            elif edit == "same-length":
                path.write_text(OLD[:-2] + "#\n")
            else:
                (tmp_path / "saved").write_text(OLD + "# saved\n")
                os.replace(tmp_path / "saved", path)
        return real_exchange(first, second)

    monkeypatch.setattr(files_module, "exchange", edit_then_swap)
    errors = write_all([Write(path, b"new\n", OLD.encode(), read_file(path).stamp)])
    assert "changed on disk" in errors[path]
    assert path.read_text() != OLD and path.read_text().startswith(OLD[:-2])
    assert sorted(p.name for p in (tmp_path / "tree").iterdir()) == ["m0.py"]


def test_a_file_replaced_by_rename_with_the_same_bytes_is_a_change(tmp_path: Path) -> None:
    (path,) = _tree(tmp_path, 1)
    stamp = read_file(path).stamp
    replacement = tmp_path / "tree" / "saved"
    replacement.write_text(OLD)
    os.replace(replacement, path)  # as an editor saves: a new inode
    errors = write_all([Write(path, b"new\n", OLD.encode(), stamp)])
    assert "changed on disk" in errors[path]
    assert path.read_text() == OLD


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_target_swapped_for_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    (path,) = _tree(tmp_path, 1)
    path.unlink()
    os.mkfifo(path)  # reading it the plain way blocks until a writer comes: never
    errors = write_all([Write(path, b"new\n", OLD.encode())])
    assert "not a regular file (a named pipe)" in errors[path]
    assert stat.S_ISFIFO(path.stat().st_mode)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_target_swapped_for_a_link_to_dev_zero_is_refused(tmp_path: Path) -> None:
    (path,) = _tree(tmp_path, 1)
    path.unlink()
    path.symlink_to("/dev/zero")  # read whole, it never ends: MemoryError
    errors = write_all([Write(path, b"new\n", OLD.encode())])
    assert "not a regular file (a character device)" in errors[path]


# --- outputs that are inputs ----------------------------------------------------------------


@pytest.mark.parametrize("mode", [[], ["--check"], ["--diff"]], ids=["write", "check", "diff"])
@pytest.mark.parametrize("how", ["same", "symlink", "hard-link"])
def test_a_report_over_a_file_the_run_reads_is_refused_up_front(
    mode: list[str], how: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = _tree(tmp_path)
    report = {"same": first}.get(how, tmp_path / "report.json")
    if how == "symlink":
        report.symlink_to(first)
    elif how == "hard-link":
        os.link(first, report)
    assert main(["migrate", *mode, "--json", str(report), str(tmp_path / "tree")]) == 2
    err = capsys.readouterr().err
    assert "a file this run reads; the report would overwrite it" in err
    assert first.read_text() == OLD and second.read_text() == OLD


def test_a_report_over_the_settings_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _tree(tmp_path)
    settings = tmp_path / "tree" / "pyproject.toml"
    settings.write_text("[tool.acp-schema.migrate]\nselect = []\n")
    assert main(["migrate", "--check", "--json", str(settings), str(tmp_path / "tree")]) == 2
    assert "a file this run reads" in capsys.readouterr().err
    assert settings.read_text().startswith("[tool.acp-schema.migrate]")


def test_a_report_that_is_a_directory_stops_the_run_before_it_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, _ = _tree(tmp_path)
    (tmp_path / "report").mkdir()
    assert main(["migrate", "--json", str(tmp_path / "report"), str(tmp_path / "tree")]) == 2
    assert "is a directory" in capsys.readouterr().err
    assert first.read_text() == OLD  # it used to find out only after rewriting the tree


def test_a_report_whose_directory_turns_up_late_fails_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from acp_schema.migrations.framework.disk import report_file

    _tree(tmp_path)
    report = tmp_path / "report.json"
    real_commit = report_file.StagedReport.commit

    def directory_first(self: report_file.StagedReport, text: str) -> None:
        report.mkdir()  # someone makes the name a directory while the run works
        real_commit(self, text)

    monkeypatch.setattr(report_file.StagedReport, "commit", directory_first)
    assert main(["migrate", "--json", str(report), str(tmp_path / "tree")]) == 2
    assert "Is a directory" in capsys.readouterr().err
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".acp-")]


def test_a_new_report_gets_the_usual_permissions_and_an_old_one_keeps_its_own(
    tmp_path: Path,
) -> None:
    _tree(tmp_path)
    fresh = tmp_path / "fresh.json"
    assert main(["migrate", "--check", "--json", str(fresh), str(tmp_path / "tree")]) == 1
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~mask
    assert json.loads(fresh.read_text())["mode"] == "check"
    fresh.chmod(0o600)
    assert main(["migrate", "--check", "--json", str(fresh), str(tmp_path / "tree")]) == 1
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o600


# --- names near NAME_MAX ----------------------------------------------------------------------


def test_a_file_named_near_name_max_is_written(tmp_path: Path) -> None:
    limit = os.pathconf(tmp_path, "PC_NAME_MAX") if hasattr(os, "pathconf") else 255
    tree = tmp_path / "tree"
    (tree / ("d" * limit)).mkdir(parents=True)
    path = tree / ("d" * limit) / ("m" * (limit - 3) + ".py")
    path.write_text(OLD)
    assert main(["migrate", str(tree)]) == 0  # `.{name}.XXXX.tmp` used to overflow
    assert MIGRATED_IMPORT in path.read_text()


# --- what a file carries besides its bytes ---------------------------------------------------


@pytest.mark.skipif(not IS_ROOT, reason="setting setuid and setgid bits on any file needs root")
def test_setuid_and_setgid_bits_are_kept(tmp_path: Path) -> None:
    (path,) = _tree(tmp_path, 1)
    os.chown(path, 1234, 5678)
    path.chmod(0o6751)
    assert main(["migrate", str(tmp_path / "tree")]) == 0
    info = path.stat()
    assert MIGRATED_IMPORT in path.read_text()
    assert stat.S_IMODE(info.st_mode) == 0o6751
    assert (info.st_uid, info.st_gid) == (1234, 5678)


def test_the_owner_keeps_the_setgid_bit_of_a_group_file(tmp_path: Path) -> None:
    (path,) = _tree(tmp_path, 1)
    path.chmod(0o2755)
    if stat.S_IMODE(path.stat().st_mode) != 0o2755:
        pytest.skip("this file system or group does not take the setgid bit")
    assert main(["migrate", str(tmp_path / "tree")]) == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o2755


def _xattrs_supported(path: Path) -> bool:
    try:
        os.setxattr(path, "user.probe", b"1")
        os.removexattr(path, "user.probe")
    except (OSError, AttributeError):
        return False
    return True


def _acl(user_id: int) -> bytes:
    """A POSIX access ACL as Linux stores it in `system.posix_acl_access`: version 2,
    then (tag, permissions, id) entries: owner rw-, user `user_id` r--, group r--,
    mask r--, other ---."""
    undefined = 0xFFFFFFFF
    entries = [(0x01, 6, undefined), (0x02, 4, user_id), (0x04, 4, undefined)]
    entries += [(0x10, 4, undefined), (0x20, 0, undefined)]
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries)


def test_extended_attributes_and_acls_are_kept(tmp_path: Path) -> None:
    (path,) = _tree(tmp_path, 1)
    if not _xattrs_supported(path):
        pytest.skip("no user extended attributes here")
    os.setxattr(path, "user.origin", b"kept \x00 bytes")
    try:
        os.setxattr(path, "system.posix_acl_access", _acl(4321))
    except OSError:
        acl = None
    else:
        acl = os.getxattr(path, "system.posix_acl_access")
    before = stat.S_IMODE(path.stat().st_mode)
    assert main(["migrate", str(tmp_path / "tree")]) == 0
    assert MIGRATED_IMPORT in path.read_text()
    assert os.getxattr(path, "user.origin") == b"kept \x00 bytes"
    if acl is not None:
        assert os.getxattr(path, "system.posix_acl_access") == acl
    assert stat.S_IMODE(path.stat().st_mode) == before


def test_a_hard_linked_file_keeps_its_attributes_and_mode(tmp_path: Path) -> None:
    (path,) = _tree(tmp_path, 1)
    if not _xattrs_supported(path):
        pytest.skip("no user extended attributes here")
    os.link(path, tmp_path / "other-name.py")
    os.setxattr(path, "user.origin", b"x")
    path.chmod(0o2750)
    mode = stat.S_IMODE(path.stat().st_mode)
    assert main(["migrate", str(tmp_path / "tree")]) == 0
    assert (tmp_path / "other-name.py").read_text() == path.read_text()
    assert os.getxattr(path, "user.origin") == b"x"
    assert stat.S_IMODE(path.stat().st_mode) == mode


# --- valid Python libcst mishandles -----------------------------------------------------------


def test_form_feeds_in_indentation_are_migrated_and_kept(tmp_path: Path) -> None:
    source = OLD.replace("    for part", "\f    for part") + "\f\nx = 1\n  \f  # odd\n"
    compile(source, "m.py", "exec")
    path = tmp_path / "m.py"
    path.write_text(source)
    assert main(["migrate", str(path)]) == 0  # was: cannot parse, tokenizer error
    migrated = path.read_text()
    assert MIGRATED_IMPORT in migrated
    assert "\f    for part in parts:\n" in migrated
    assert migrated.endswith("\f\nx = 1\n  \f  # odd\n")
    compile(migrated, "m.py", "exec")


def test_a_cr_only_file_keeps_every_line_end(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_bytes(OLD.replace("\n", "\r").encode())
    assert main(["migrate", str(path)]) == 0
    migrated = path.read_bytes()
    assert b"\n" not in migrated
    assert migrated.endswith(b"))\r")  # the last line end used to be dropped
    assert MIGRATED_IMPORT.encode() + b"\r" in migrated


@pytest.mark.parametrize("end", ["", "\n"])
def test_indented_comments_at_the_end_of_a_migrated_file_are_kept(tmp_path: Path, end: str) -> None:
    # libcst 1.9 alone drops `   # keep me` (every such line but the last).
    tail = "\nx = 1\n   # keep me\n\t# and me\n # tail" + end
    path = tmp_path / "m.py"
    path.write_text(OLD + tail)
    assert main(["migrate", str(path)]) == 0
    migrated = path.read_text()
    assert MIGRATED_IMPORT in migrated
    assert migrated.endswith(tail)


def test_a_file_libcst_does_not_give_back_is_reported_and_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from acp_schema.migrations.chunk_identity import file_migration

    source = OLD + "x = 1\n   # keep me\n # tail"
    path = tmp_path / "m.py"
    path.write_text(source)
    # Without the layout that works around it, libcst's loss must be caught, not written.
    monkeypatch.setattr(file_migration, "for_parser", lambda data: (data, Layout()))
    assert main(["migrate", str(path)]) == 2
    assert path.read_text() == source
    assert "libcst does not give this file back as it was (line 8 differs)" in (
        capsys.readouterr().out
    )


# Module-level lines CPython takes: before a form feed, indentation does not count, nor
# does a comment's.
_LINE = st.sampled_from(
    [
        b"x = 1",
        b"",
        b"# c",
        b"\f",
        b" \f",
        b"\fx = 1",
        b"\t\fy = 2",
        b"  \f# z",
        b"   # k",
        b"\t# t",
    ]
)


@given(lines=st.lists(_LINE, max_size=8), cr_only=st.booleans())
def test_the_layout_for_libcst_is_undone_exactly(lines: list[bytes], cr_only: bool) -> None:
    import libcst as cst

    data = (b"\r" if cr_only else b"\n").join(lines)
    text, layout = for_parser(data)
    assert b"\f" not in b"".join(
        line[: len(line) - len(line.lstrip(b" \t\f"))] for line in text.split(b"\n")
    )
    assert cst.parse_module(text).bytes == text  # what libcst gets, it gives back
    assert restore(text, text, layout) == data


# --- pyproject.toml and the command line ------------------------------------------------------

PYPROJECTS = {
    "nul": '[tool.setuptools.package-dir]\n"" = "src\\u0000x"\n',
    "symlink-loop": '[tool.setuptools.package-dir]\n"" = "loop/x"\n',
    "packages-5": "[tool.poetry]\npackages = 5\n",
    "hatch-nul": '[tool.hatch.build.targets.wheel]\nsources = {"\\u0000" = 5}\n',
    "pythonpath-nul": '[tool.pytest.ini_options]\npythonpath = ["\\u0000"]\n',
}


@pytest.mark.parametrize("name", sorted(PYPROJECTS))
def test_package_roots_that_name_no_directory_are_ignored(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _tree(tmp_path, 1)
    (tmp_path / "tree" / "loop").symlink_to("loop")
    (tmp_path / "tree" / "pyproject.toml").write_text(PYPROJECTS[name])
    assert main(["migrate", "--check", str(tmp_path / "tree")]) == 1  # was a traceback
    assert "1 would change" in capsys.readouterr().out


def test_a_pyproject_with_a_5000_digit_integer_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _tree(tmp_path, 1)
    settings = tmp_path / "tree" / "pyproject.toml"
    settings.write_text("[tool.x]\nn = " + "9" * 5000 + "\n")
    assert main(["migrate", "--check", str(tmp_path / "tree")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"acp-schema migrate: {settings}: not valid TOML: an integer of more than 4300 digits"
    ]


@pytest.mark.parametrize("jobs", ["2147483648", "257", "9" * 5000, "0", "x"])
def test_jobs_out_of_range_is_a_usage_error(
    jobs: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (path,) = _tree(tmp_path, 1)
    assert main(["migrate", "--check", "--jobs", jobs, str(path)]) == 2
    err = capsys.readouterr().err
    assert "argument --jobs" in err and "Traceback" not in err


def test_the_largest_jobs_runs(tmp_path: Path) -> None:
    (path,) = _tree(tmp_path, 1)
    assert main(["migrate", "--check", "--jobs", "256", str(path)]) == 1


# --- .gitignore without git -------------------------------------------------------------------


def test_a_backtracking_gitignore_pattern_is_matched_in_linear_time(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / ".gitignore").write_bytes(b"*a*a*a*a*a*a*a*a*a*a*b\n!\n\\\n[z-a]\nz\xff-*\n")
    (tree / ("a" * 200 + ".py")).write_text(OLD)
    ignored = tree / os.fsdecode(b"z\xff-ab.py")
    ignored.write_text(OLD)
    # A hang guard, not a speed target: Python's `re` took minutes on this name.
    done = subprocess.run(
        [sys.executable, "-m", "acp_schema", "migrate", "--check", str(tree)],
        capture_output=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stderr
    assert b"1 files scanned" in done.stdout  # the name with \xff is ignored


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_gitignore_that_is_a_fifo_is_not_waited_for(tmp_path: Path) -> None:
    _tree(tmp_path, 1)
    os.mkfifo(tmp_path / "tree" / ".gitignore")
    done = subprocess.run(
        [sys.executable, "-m", "acp_schema", "migrate", "--check", str(tmp_path / "tree")],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr


# --- memory on trees of large files -----------------------------------------------------------


def test_skipped_and_oversized_files_are_not_held(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    size = 4 * 1024 * 1024
    tree = tmp_path / "tree"
    tree.mkdir()
    paths = []
    for index in range(10):  # 5 skipped, 5 over the size budget; 40 MB in all
        body = b"x = 1\n" if index % 2 else b"# sender_session_id SessionMessageChunk\n"
        path = tree / f"big{index}.py"
        path.write_bytes(body * (size // len(body)))
        paths.append(path)
    paths.append(tree / "small.py")
    paths[-1].write_text(OLD)
    monkeypatch.setattr(sources, "CACHE_BYTES", size)  # room for one large file
    tracemalloc.start()
    try:
        results = run(paths, Options(rules=ALL_RULES))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    statuses = sorted(r.status for r in results)
    assert statuses.count("skipped") == 5 and statuses.count("failed") == 5
    assert [r.status for r in results if r.path.name == "small.py"] == ["changed"]
    # Every file held at once was 40 MB; one at a time, and the cache, a few files.
    assert peak < 4 * size, f"peak {peak / 1e6:.0f} MB"


@pytest.mark.parametrize(
    "patterns",
    [b"b[!a]\n", b"a[^x]b\n", b"[!]]*\n", b"*[!q]\n!*.py\n", b"\xff*\n", b"[z-a]\n!\n"],
)
def test_gitignore_without_git_chooses_the_files_git_chooses(
    patterns: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pathspec writes `[!a]` as `[^a]`, which matched the `/` of a directory (`b/`).
    import shutil

    from tests.hostile_sweep_io import FILE_NAMES, _files_found

    if shutil.which("git") is None:
        pytest.skip("needs git for the reference")
    tree = tmp_path / "tree"
    for name in [*FILE_NAMES, b"a]b.py", b"axb.py"]:
        path = tree / os.fsdecode(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
    (tree / ".gitignore").write_bytes(patterns)
    ours = _files_found(tree, git=False)
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    assert ours == _files_found(tree, git=True)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_report_that_is_a_fifo_is_refused_without_waiting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Opening a FIFO to write waits for a reader that never comes.
    (path,) = _tree(tmp_path, 1)
    os.mkfifo(tmp_path / "report.json")
    assert main(["migrate", "--json", str(tmp_path / "report.json"), str(path)]) == 2
    err = capsys.readouterr().err
    assert err == f"acp-schema migrate: --json {tmp_path / 'report.json'}: not a regular file\n"
    assert path.read_text() == OLD


def test_a_report_path_that_loops_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (path,) = _tree(tmp_path, 1)
    (tmp_path / "loop.json").symlink_to("loop.json")
    assert main(["migrate", "--json", str(tmp_path / "loop.json"), str(path)]) == 2
    assert "Too many levels of symbolic links" in capsys.readouterr().err
    assert path.read_text() == OLD


def test_a_report_directory_that_cannot_be_written_stops_the_run_up_front(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from acp_schema.migrations.framework.disk import report_file

    (path,) = _tree(tmp_path, 1)

    def refuse(**kwargs: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied", str(kwargs.get("dir")))

    monkeypatch.setattr(report_file.tempfile, "mkstemp", refuse)
    assert main(["migrate", "--json", str(tmp_path / "r.json"), str(path)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"acp-schema migrate: --json {tmp_path / 'r.json'}: cannot write in {tmp_path}: "
        "Permission denied\n"
    )
    assert path.read_text() == OLD


def test_a_report_through_a_symlink_writes_the_link_s_target(tmp_path: Path) -> None:
    (path,) = _tree(tmp_path, 1)
    (tmp_path / "real.json").write_text("{}")
    (tmp_path / "link.json").symlink_to("real.json")
    assert main(["migrate", "--check", "--json", str(tmp_path / "link.json"), str(path)]) == 1
    assert (tmp_path / "link.json").is_symlink()
    assert json.loads((tmp_path / "real.json").read_text())["mode"] == "check"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json", "tree"]
