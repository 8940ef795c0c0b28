"""`acp-schema migrate` file safety: gitignore as git reads it, symlinks, owners, hard
links, all-or-nothing writes, diffs that `git apply` takes, parse errors and nesting."""

# ruff: noqa: E501

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import ClassVar

import pytest

from acp_schema.migrations.chunk_identity.rule_ids import ALL_RULES
from acp_schema.migrations.chunk_identity.run import Options, migrate_bytes
from acp_schema.migrations.framework.disk import files as files_module
from acp_schema.migrations.framework.disk.files import Write, discover, write_all

from .migrate_support import migrate, write_files

OLD = textwrap.dedent(
    """\
    from acp_schema.v2 import SessionMessageChunk, TextContent


    def send(out, mid, me, parts):
        for part in parts:
            out.put(SessionMessageChunk(message_id=mid, content=TextContent(text=part), sender_session_id=me))
    """
)

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(root: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        ["git", "-c", "core.excludesFile=/dev/null", *args],
        cwd=root,
        input=stdin,
        capture_output=True,
        check=False,
    )


class TestGitignoreOracle:
    """The matcher used without git decides exactly as `git check-ignore` does."""

    GITIGNORE: ClassVar[dict[str, str]] = {
        ".gitignore": textwrap.dedent(
            """\
            # comments and blank lines

            *.gen.py
            !keep.gen.py
            build/
            /rooted.py
            docs/*.py
            **/cache/**
            a/**/z.py
            \\#hash.py
            \\!bang.py
            trailing.py\\{space}
            [ab]_?.py
            nested/
            !nested/back.py
            """
        ).format(space=" "),
        "pkg/.gitignore": "local.py\n/only_here.py\n!rooted.py\n*.py\n!*_keep.py\n",
        "pkg/sub/.gitignore": "!local.py\n",
        ".git/info/exclude": "excluded_by_info.py\n",
    }
    FILES = (
        "ok.py",
        "x.gen.py",
        "keep.gen.py",
        "build/b.py",
        "src/build/b.py",
        "rooted.py",
        "src/rooted.py",
        "docs/d.py",
        "docs/deeper/d.py",
        "src/cache/c.py",
        "cache/c.py",
        "a/z.py",
        "a/b/c/z.py",
        "#hash.py",
        "!bang.py",
        "trailing.py ",
        "a_1.py",
        "c_1.py",
        "nested/back.py",
        "pkg/local.py",
        "pkg/only_here.py",
        "pkg/rooted.py",
        "pkg/any.py",
        "pkg/this_keep.py",
        "pkg/sub/local.py",
        "pkg/sub/other.py",
        "excluded_by_info.py",
        "src/excluded_by_info.py",
    )

    @needs_git
    def test_same_files_as_git(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        root = tmp_path / "repo"
        root.mkdir()
        assert git(root, "init", "-q").returncode == 0
        write_files(root, {**self.GITIGNORE, **dict.fromkeys(self.FILES, "x = 1\n")})
        names = "\0".join(self.FILES).encode()
        checked = git(root, "check-ignore", "--no-index", "-z", "--stdin", stdin=names)
        assert checked.returncode in (0, 1), checked.stderr
        ignored_by_git = {n for n in checked.stdout.decode().split("\0") if n}
        # git's own listing agrees with check-ignore (a second opinion on the oracle).
        listed = git(root, "ls-files", "-co", "--exclude-standard", "-z")
        assert {n for n in listed.stdout.decode().split("\0") if n.endswith((".py", ".py "))} == (
            set(self.FILES) - ignored_by_git
        )

        monkeypatch.setattr(files_module.shutil, "which", lambda name: None)  # no git
        found = discover([root])
        assert not found.used_git
        ours = {p.relative_to(root).as_posix() for p in found.files}
        expected = {f for f in set(self.FILES) - ignored_by_git if f.endswith(".py")}
        assert ours == expected
        # A sample of decisions, so the oracle cannot be trivially empty.
        assert "x.gen.py" in ignored_by_git and "keep.gen.py" not in ignored_by_git
        assert "pkg/sub/local.py" in ours and "pkg/local.py" not in ours
        assert "#hash.py" in ignored_by_git and "a/b/c/z.py" in ignored_by_git

    def test_starting_inside_an_ignored_directory(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr(files_module.shutil, "which", lambda name: None)
        root = write_files(tmp_path, {".git/HEAD": "", ".gitignore": "gen/\n", "gen/a/x.py": OLD})
        assert discover([root / "gen" / "a"]).files == []
        assert discover([root / "gen" / "a" / "x.py"]).files == [root / "gen" / "a" / "x.py"]


class TestLinksAndOwners:
    def test_symlink_is_kept_and_its_target_migrated_once(self, tmp_path: Path) -> None:
        root = write_files(tmp_path, {"real/send.py": OLD})
        (root / "link.py").symlink_to(root / "real" / "send.py")
        assert migrate(root) == 0
        assert (root / "link.py").is_symlink()
        migrated = (root / "real" / "send.py").read_text()
        assert migrated.count("SessionMessage(message_id=mid, sender_session_id=me)") == 1
        # Named alone, the link still leads to its target, and stays a link.
        (root / "real" / "send.py").write_text(OLD)
        assert migrate(root / "link.py") == 0
        assert (root / "link.py").is_symlink()
        assert (root / "real" / "send.py").read_text() == migrated

    def test_hard_links_keep_sharing_the_file(self, tmp_path: Path) -> None:
        root = write_files(tmp_path, {"send.py": OLD})
        os.link(root / "send.py", root / "other_name.txt")
        inode = (root / "send.py").stat().st_ino
        assert migrate(root / "send.py") == 0
        assert (root / "send.py").stat().st_ino == inode
        assert (root / "other_name.txt").read_text() == (root / "send.py").read_text()
        assert "SessionMessage(" in (root / "send.py").read_text()

    @pytest.mark.skipif(
        not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give files away"
    )
    def test_owner_and_mode_are_kept(self, tmp_path: Path) -> None:
        root = write_files(tmp_path, {"send.py": OLD})
        os.chown(root / "send.py", 4321, 4322)
        (root / "send.py").chmod(0o604)
        assert migrate(root) == 0
        status = (root / "send.py").stat()
        assert (status.st_uid, status.st_gid, status.st_mode & 0o777) == (4321, 4322, 0o604)
        assert "SessionMessage(" in (root / "send.py").read_text()

    def test_owner_that_cannot_be_set_means_writing_in_place(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        path = tmp_path / "send.py"
        path.write_bytes(b"old\n")
        inode = path.stat().st_ino

        def refuse(*args: object) -> None:
            raise PermissionError("not allowed")

        real_stat = Path.stat

        def stat_with_other_owner(self: Path, **kwargs: bool) -> os.stat_result:
            result = real_stat(self, **kwargs)
            if self == path:  # pretend someone else owns the file
                values = list(result)
                values[4] = result.st_uid + 1
                return os.stat_result(values)
            return result

        monkeypatch.setattr(files_module.os, "chown", refuse)
        monkeypatch.setattr(Path, "stat", stat_with_other_owner)
        assert write_all([Write(path, b"new\n", b"old\n")]) == {}
        monkeypatch.undo()
        assert path.read_bytes() == b"new\n"
        assert path.stat().st_ino == inode
        assert [p.name for p in tmp_path.iterdir()] == ["send.py"]


class TestAllOrNothing:
    def test_a_failed_rename_rolls_back_the_files_already_written(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
    ) -> None:
        root = write_files(tmp_path, {"a.py": OLD, "b.py": OLD, "c.py": OLD})
        real_replace = os.replace
        calls = []

        def flaky(source: str, target: str) -> None:
            calls.append(target)
            if len(calls) == 2:
                raise OSError(28, "No space left on device", target)
            real_replace(source, target)

        monkeypatch.setattr(files_module.os, "replace", flaky)
        # as on a file system without an atomic swap: the writer renames with os.replace
        monkeypatch.setattr(files_module, "exchange", lambda first, second: False)
        assert migrate(root) == 2
        monkeypatch.undo()
        for name in ("a.py", "b.py", "c.py"):
            assert (root / name).read_text() == OLD, name
        assert sorted(p.name for p in root.iterdir()) == ["a.py", "b.py", "c.py"]
        out = capsys.readouterr().out
        assert "b.py: error: not written: No space left on device" in out
        assert "a.py: error: not written:" in out and "writes all its files or none" in out
        assert "3 failed" in out
        # The rerun finishes the job.
        assert migrate(root) == 0
        assert all("SessionMessage(" in (root / n).read_text() for n in ("a.py", "b.py", "c.py"))

    def test_a_failed_temporary_file_writes_nothing(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        root = write_files(tmp_path, {"a.py": OLD, "b.py": OLD})
        real = files_module.tempfile.mkstemp
        made = []

        def flaky(**kwargs: str) -> tuple[int, str]:
            made.append(kwargs)
            if len(made) == 2:
                raise OSError(13, "Permission denied", kwargs["dir"])
            return real(**kwargs)

        monkeypatch.setattr(files_module.tempfile, "mkstemp", flaky)
        assert migrate(root) == 2
        monkeypatch.undo()
        assert (root / "a.py").read_text() == OLD and (root / "b.py").read_text() == OLD
        assert sorted(p.name for p in root.iterdir()) == ["a.py", "b.py"]

    def test_report_in_a_missing_directory_is_an_error_before_any_write(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        root = write_files(tmp_path, {"src/a.py": OLD})
        assert migrate("--json", tmp_path / "no" / "such" / "report.json", root / "src") == 2
        assert (root / "src" / "a.py").read_text() == OLD
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "no such directory" in err


class TestDiff:
    SAMPLES: ClassVar[dict[str, bytes]] = {
        "bom.py": b"\xef\xbb\xbf" + OLD.encode(),
        "crlf.py": OLD.replace("\n", "\r\n").encode(),
        "latin.py": ("# -*- coding: latin-1 -*-\n# café\n" + OLD).encode("latin-1"),
        "no_newline.py": OLD.rstrip("\n").encode() + b"  # last line",
        "bom_crlf.py": b"\xef\xbb\xbf" + OLD.replace("\n", "\r\n").encode(),
    }

    @needs_git
    def test_git_apply_takes_the_diff(self, tmp_path: Path) -> None:
        root = tmp_path / "repo"
        root.mkdir()
        assert git(root, "init", "-q").returncode == 0
        write_files(root, {f"src/{name}": data for name, data in self.SAMPLES.items()})
        done = subprocess.run(
            [sys.executable, "-m", "acp_schema", "migrate", "--diff", "src"],
            cwd=root,
            capture_output=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        patch = done.stdout
        assert patch.startswith(b"--- a/src/")
        assert b"files scanned" not in patch and b"files scanned" in done.stderr
        (tmp_path / "change.patch").write_bytes(patch)
        checked = git(root, "apply", "--check", str(tmp_path / "change.patch"))
        assert checked.returncode == 0, checked.stderr.decode()
        assert git(root, "apply", str(tmp_path / "change.patch")).returncode == 0
        applied = {n: (root / "src" / n).read_bytes() for n in self.SAMPLES}
        for name, data in self.SAMPLES.items():
            (root / "src" / name).write_bytes(data)
        assert migrate(root / "src") == 0
        for name in self.SAMPLES:
            assert (root / "src" / name).read_bytes() == applied[name], name
        assert applied["bom.py"].startswith(b"\xef\xbb\xbf")
        assert b"caf\xe9" in applied["latin.py"]

    @needs_git
    def test_a_symlinks_diff_names_its_target(self, tmp_path: Path) -> None:
        root = tmp_path / "repo"
        root.mkdir()
        assert git(root, "init", "-q").returncode == 0
        write_files(root, {"real/send.py": OLD})
        (root / "link.py").symlink_to(Path("real") / "send.py")
        done = subprocess.run(
            [sys.executable, "-m", "acp_schema", "migrate", "--diff", "link.py"],
            cwd=root,
            capture_output=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith(b"--- a/real/send.py\n+++ b/real/send.py\n")
        (tmp_path / "change.patch").write_bytes(done.stdout)
        assert git(root, "apply", str(tmp_path / "change.patch")).returncode == 0
        assert (root / "link.py").is_symlink()
        assert "SessionMessage(" in (root / "real" / "send.py").read_text()


class TestParseProblems:
    def position(self, source: bytes) -> str | None:
        result = migrate_bytes(Path("x.py"), source, Options(rules=ALL_RULES))
        assert result.status == "failed"
        return result.error

    def test_syntax_errors_at_the_right_place(self) -> None:
        head = b"from acp_schema.v2 import SessionMessageChunk\n"
        assert self.position(head + b"def f(:\n    pass\n") == (
            "cannot parse: invalid syntax (line 2, column 6)"
        )
        assert self.position(head + b"x = (1,\n\ny = 2\n") == (
            "cannot parse: '(' was never closed (line 2, column 4)"
        )
        assert self.position(head + b"def f():\n    x = 1\n      y = 2\n") == (
            "cannot parse: unexpected indent (line 4, column 5)"
        )
        crlf = self.position(head.replace(b"\n", b"\r\n") + b"a = 1\r\nb = $\r\n")
        assert crlf is not None and "(line 3, column 4)" in crlf

    def test_deep_nesting_is_reported_and_the_run_goes_on(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        head = "from acp_schema.v2 import SessionMessageChunk\n"
        root = write_files(
            tmp_path,
            {
                "a_parens.py": head + "x = " + "(" * 1000 + "1" + ")" * 1000 + "\n",
                "b_lists.py": head + "x = " + "[" * 1000 + "1" + "]" * 1000 + "\n",
                "c_chain.py": head + "x = " + " + ".join(["a"] * 1500) + "\n",
                "d_send.py": OLD,
            },
        )
        assert migrate(root) == 2
        out = capsys.readouterr().out
        assert "a_parens.py: error: cannot parse: too many nested parentheses (line 2" in out
        assert "b_lists.py: error: cannot parse: too many nested parentheses" in out
        assert "c_chain.py: error: too deeply nested for libcst (RecursionError)" in out
        assert "SessionMessage(" in (root / "d_send.py").read_text()
        assert "3 failed" in out


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="`type` statements parse here")
def test_syntax_this_python_rejects_is_reported_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # libcst takes it, but the run reads modules with `ast` too and would miss this one.
    source = OLD + "\ntype Pair = tuple[int, int]\n"
    root = write_files(tmp_path, {"m.py": source})
    assert migrate(root) == 2
    assert (root / "m.py").read_text() == source
    out = capsys.readouterr().out
    assert "m.py: error: cannot parse: invalid syntax (line 8, column 5) for Python 3." in out
