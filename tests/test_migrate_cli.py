"""`acp-schema migrate`: exit codes, modes, reports, files, workers, libcst.tool."""

# The before/after samples keep the line lengths of the code they show.
# ruff: noqa: E501

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from acp_schema.migrations.framework.disk.files import (
    FileChangedError,
    GitignoreMatcher,
    discover,
    write_atomically,
)
from acp_schema.migrations.framework.progress import ProgressBar

from .migrate_support import migrate, write_files

OLD = textwrap.dedent(
    """\
    from acp_schema.v2 import SessionMessageChunk, TextContent


    def send(out, mid, me, parts):
        for part in parts:
            out.put(SessionMessageChunk(message_id=mid, content=TextContent(text=part), sender_session_id=me))
    """
)
READER = textwrap.dedent(
    """\
    from acp_schema.v2 import SessionMessageChunk


    def sender(chunk: SessionMessageChunk):
        return chunk.sender_session_id
    """
)
PLAIN = "def unrelated():\n    return 1\n"


def snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


class TestExitCodesAndModes:
    def test_check_reports_pending_changes_and_writes_nothing(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        root = write_files(tmp_path, {"app/send.py": OLD, "app/plain.py": PLAIN})
        before = snapshot(root)
        assert migrate("--check", root) == 1
        assert snapshot(root) == before
        out = capsys.readouterr().out
        assert "1 would change" in out and "1 skipped" in out

    def test_write_then_nothing_left_to_do(self, tmp_path: Path) -> None:
        root = write_files(tmp_path, {"send.py": OLD})
        assert migrate(root) == 0
        text = (root / "send.py").read_text()
        assert "    out.put(SessionMessage(message_id=mid, sender_session_id=me))\n" in text
        assert (
            "out.put(SessionMessageChunk(message_id=mid, content=TextContent(text=part)))" in text
        )
        assert migrate("--check", root) == 0

    def test_warnings_fail_check_until_acknowledged(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        root = write_files(tmp_path, {"reader.py": READER})
        assert migrate("--check", root) == 1
        assert "reader.py:5:11: chunk-identity/read:" in capsys.readouterr().out
        # A comment naming another rule acknowledges nothing.
        handled = READER.replace(
            "return chunk.sender_session_id",
            "return chunk.sender_session_id  # acp-migrate: ok[chunk-identity/dict]",
        )
        (root / "reader.py").write_text(handled)
        assert migrate("--check", root) == 1
        (root / "reader.py").write_text(handled.replace("/dict]", "/read]"))
        assert migrate("--check", root) == 0
        out = capsys.readouterr().out
        assert "0 warning(s), 1 acknowledged" in out
        assert "reader.py:5:11" not in out.split("\n")[-3]

    def test_diff_prints_and_changes_nothing(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        root = write_files(tmp_path, {"send.py": OLD})
        before = snapshot(root)
        assert migrate("--diff", root) == 0
        assert snapshot(root) == before
        out = capsys.readouterr().out
        assert f"--- a/{(root / 'send.py').as_posix()}" in out
        assert "+    out.put(SessionMessage(message_id=mid, sender_session_id=me))" in out
        assert migrate("--diff", "--check", root) == 1

    def test_syntax_error_is_reported_and_the_run_goes_on(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        broken = "from acp_schema.v2 import SessionMessageChunk\ndef broken(:\n    pass\n"
        root = write_files(tmp_path, {"a_broken.py": broken, "b_send.py": OLD})
        assert migrate(root) == 2
        out = capsys.readouterr().out
        # Python's own message and position (libcst's parser names the next line).
        assert "a_broken.py: error: cannot parse: invalid syntax (line 2, column 11)" in out
        assert (root / "a_broken.py").read_text() == broken
        assert "SessionMessage(" in (root / "b_send.py").read_text()
        assert "1 failed" in out

    def test_missing_path_is_an_error(self, tmp_path: Path) -> None:
        assert migrate(tmp_path / "nope") == 2

    def test_unknown_rule_is_a_usage_error(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        assert migrate("--select", "chunk-identity/typo", tmp_path) == 2
        assert "unknown rule 'chunk-identity/typo'" in capsys.readouterr().err


class TestSelection:
    def test_family_and_rules(self, tmp_path: Path) -> None:
        root = write_files(tmp_path, {"send.py": OLD})
        assert migrate("--check", "--disable", "chunk-identity", root) == 0
        assert migrate("--check", "--select", "chunk-identity/read", root) == 0
        assert migrate("--check", "--select", "chunk-identity", root) == 1
        assert migrate("--check", "--select", "chunk-identity/constructor", root) == 1

    def test_bindings_from_the_command_line_and_pyproject(self, tmp_path: Path) -> None:
        vendored = OLD.replace("acp_schema.v2", "vendored_acp.schema")
        root = write_files(tmp_path, {"app/send.py": vendored})
        # Unconfigured, it is not rewritten; it is reported (a chunk name that does not
        # resolve to the bindings) unless the occurrence rule is off.
        assert migrate("--check", "--disable", "chunk-identity/occurrence", root) == 0
        assert migrate("--check", "--bindings", "vendored_acp", root) == 1
        (root / "pyproject.toml").write_text(
            '[tool.acp-schema.migrate]\nbindings = ["vendored_acp"]\nexclude = ["skip_*"]\n'
        )
        assert migrate("--check", root / "app") == 1


class TestFiles:
    def test_crlf_stays_crlf(self, tmp_path: Path) -> None:
        root = write_files(tmp_path, {"send.py": OLD.replace("\n", "\r\n").encode()})
        assert migrate(root) == 0
        data = (root / "send.py").read_bytes()
        assert b"SessionMessage(message_id=mid" in data
        assert b"\n" not in data.replace(b"\r\n", b"")
        assert migrate("--check", root) == 0

    def test_encoding_and_mode_are_kept(self, tmp_path: Path) -> None:
        latin = "# -*- coding: latin-1 -*-\n# café\n" + OLD
        root = write_files(tmp_path, {"send.py": latin.encode("latin-1")})
        (root / "send.py").chmod(0o640)
        assert migrate(root) == 0
        data = (root / "send.py").read_bytes()
        assert "# café".encode("latin-1") in data
        assert (root / "send.py").stat().st_mode & 0o777 == 0o640
        assert [p.name for p in root.iterdir()] == ["send.py"]  # no temp file left

    def test_exclude_globs(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        root = write_files(
            tmp_path, {"app/send.py": OLD, "vendor/send.py": OLD, "app/gen_pb2.py": OLD}
        )
        assert migrate("--check", "--exclude", "vendor", "--exclude", "*_pb2.py", root) == 1
        out = capsys.readouterr().out
        assert "1 files scanned" in out
        found = discover([root], excludes=["app/*"])
        assert [p.relative_to(root).as_posix() for p in found.files] == ["vendor/send.py"]

    def test_gitignore_with_git(self, tmp_path: Path) -> None:
        if shutil.which("git") is None:
            pytest.skip("git is not installed")
        root = write_files(
            tmp_path,
            {
                ".gitignore": "ignored/\n*.gen.py\n",
                "a.py": OLD,
                "ignored/b.py": OLD,
                "c.gen.py": OLD,
            },
        )
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        found = discover([root])
        assert found.used_git
        assert [p.name for p in found.files] == ["a.py"]
        # A file named on the command line is taken even when ignored.
        assert discover([root / "ignored" / "b.py"]).files == [root / "ignored" / "b.py"]
        assert len(discover([root], gitignore=False).files) == 3

    def test_gitignore_without_git(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(
            "acp_schema.migrations.framework.disk.files.shutil.which", lambda name: None
        )
        root = write_files(
            tmp_path,
            {
                ".git/HEAD": "",
                ".gitignore": "build/\n/top.py\n*.gen.py\n!keep.gen.py\n",
                "sub/.gitignore": "local.py\n",
                "src/top.py": OLD,
                "top.py": OLD,
                "build/x.py": OLD,
                "a.gen.py": OLD,
                "keep.gen.py": OLD,
                "sub/local.py": OLD,
                "sub/deep/local.py": OLD,
                "sub/ok.py": OLD,
            },
        )
        found = discover([root])
        assert not found.used_git
        assert sorted(p.relative_to(root).as_posix() for p in found.files) == [
            "keep.gen.py",
            "src/top.py",
            "sub/ok.py",
        ]
        # Starting below the repository root still applies the root's .gitignore.
        assert [p.name for p in discover([root / "build"]).files] == []

    def test_gitignore_matcher_rules(self, tmp_path: Path) -> None:
        (tmp_path / ".gitignore").write_text("# comment\n\n*.log\n!important.log\ndocs/\n/a/b.py\n")
        matcher = GitignoreMatcher().extended(tmp_path)
        assert matcher.ignored(tmp_path / "x" / "y.log", is_dir=False)
        assert not matcher.ignored(tmp_path / "important.log", is_dir=False)
        assert matcher.ignored(tmp_path / "docs", is_dir=True)
        assert not matcher.ignored(tmp_path / "docs", is_dir=False)
        assert matcher.ignored(tmp_path / "a" / "b.py", is_dir=False)
        assert not matcher.ignored(tmp_path / "c" / "a" / "b.py", is_dir=False)

    def test_write_refuses_a_file_changed_meanwhile(self, tmp_path: Path) -> None:
        path = tmp_path / "x.py"
        path.write_bytes(b"edited by someone\n")
        with pytest.raises(FileChangedError):
            write_atomically(path, b"new\n", expected=b"old\n")
        assert path.read_bytes() == b"edited by someone\n"
        assert [p.name for p in tmp_path.iterdir()] == ["x.py"]


class TestReports:
    def test_json_report(self, tmp_path: Path) -> None:
        broken = "SessionMessageChunk(\n"
        root = write_files(
            tmp_path,
            {"send.py": OLD, "reader.py": READER, "plain.py": PLAIN, "broken.py": broken},
        )
        report_path = tmp_path / "report.json"
        assert migrate("--check", "--json", report_path, root) == 2
        report = json.loads(report_path.read_text())
        assert report["mode"] == "check"
        assert report["summary"] == {
            "scanned": 4,
            "changed": 1,
            "unchanged": 1,
            "skipped": 1,
            "failed": 1,
            "warnings": {"chunk-identity/read": 1},
            "acknowledged": {},
            "occurrences": {"changed": 1, "unrelated": 0, "reported": 1, "unchecked": 0},
        }
        by_name = {Path(f["path"]).name: f for f in report["files"]}
        assert by_name["send.py"]["status"] == "changed"
        assert by_name["send.py"]["written"] is False
        assert by_name["send.py"]["changes"][0]["rule"] == "chunk-identity/constructor"
        assert by_name["plain.py"]["status"] == "skipped"
        assert by_name["broken.py"]["status"] == "failed"
        assert by_name["broken.py"]["error"].startswith("cannot parse:")
        [warning] = by_name["reader.py"]["warnings"]
        assert warning == {
            "line": 5,
            "column": 11,
            "rule": "chunk-identity/read",
            "message": warning["message"],
        }
        assert "TranscriptStore.entry" in warning["message"]

    def test_progress_bar_only_on_a_terminal(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        root = write_files(tmp_path, {"send.py": OLD})
        migrate("--check", root)
        assert "files" not in capsys.readouterr().err  # stderr is not a terminal here
        stream = io.StringIO()
        bar = ProgressBar(stream)
        bar(0, 4)
        bar(4, 4)
        assert stream.getvalue().endswith("[##############################] 4/4 files")


HELPERS = textwrap.dedent(
    """\
    from acp_schema.v2 import SessionMessageChunk


    def _text_chunk(message_id: str, text: str, sender: str) -> SessionMessageChunk:
        return SessionMessageChunk(message_id=message_id, content=text, sender_session_id=sender)
    """
)
CALLER = textwrap.dedent(
    """\
    from .helpers import _text_chunk


    def send(out, mid, me, parts):
        for part in parts:
            out.put(_text_chunk(mid, part, me))
    """
)


class TestRepositoryRuns:
    def test_a_file_that_does_not_call_the_helper_is_not_migrated_again(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # Imports from the helper's module, and has the helper's name inside longer names.
        tests = (
            "from app.helpers import SessionMessageChunk\n\n\n"
            "def test_text_chunk_keeps_the_content():\n    assert SessionMessageChunk\n"
        )
        root = write_files(
            tmp_path,
            {
                "app/__init__.py": "",
                "app/helpers.py": HELPERS,
                "app/use.py": CALLER,
                "app/test_helpers.py": tests,
            },
        )
        from acp_schema.migrations.chunk_identity import run as runner

        runs: list[str] = []
        migrate_bytes = runner.migrate_bytes

        def spy(path: Path, *args: Any, **kwargs: Any) -> Any:
            runs.append(path.name)
            return migrate_bytes(path, *args, **kwargs)

        monkeypatch.setattr(runner, "migrate_bytes", spy)
        assert migrate(root) == 0
        assert runs.count("test_helpers.py") == 1
        # The caller reaches no chunk itself: run once, with the helper's template.
        assert runs.count("use.py") == 1

    def test_helper_called_from_another_module(self, tmp_path: Path) -> None:
        root = write_files(
            tmp_path, {"app/__init__.py": "", "app/helpers.py": HELPERS, "app/use.py": CALLER}
        )
        assert migrate(root) == 0
        use = (root / "app" / "use.py").read_text()
        assert "out.put(SessionMessage(message_id=mid, sender_session_id=me))\n    for part" in use
        assert "from acp_schema.v2 import SessionMessage" in use
        assert "sender_session_id" not in (root / "app" / "helpers.py").read_text()
        assert migrate("--check", root) == 0

    @pytest.mark.parametrize(
        "imported",
        ["from .helpers import _text_chunk as make", "from app.helpers import _text_chunk as make"],
    )
    def test_helper_called_under_an_import_alias_gets_the_upsert(
        self, tmp_path: Path, imported: str
    ) -> None:
        # The helper's own module calls it too, so a missed aliased call would lose IDs.
        helpers = HELPERS + "\n\ndef greet(out, me):\n    out.put(_text_chunk('m0', 'hi', me))\n"
        caller = f"{imported}\n\n\ndef send(out, mid, me):\n    out.put(make(mid, 'a', me))\n"
        files = {"app/__init__.py": "", "app/helpers.py": helpers, "app/use.py": caller}
        root = write_files(tmp_path, files)
        assert migrate(root) == 0
        use = (root / "app" / "use.py").read_text()
        assert "out.put(SessionMessage(message_id=mid, sender_session_id=me))\n" in use
        assert "sender_session_id=sender" not in (root / "app" / "helpers.py").read_text()
        assert migrate("--check", root) == 0

    @pytest.mark.parametrize(
        "caller",
        [
            # a module object the run cannot resolve
            "def send(out, mod, mid, me):\n    out.put(mod._text_chunk(mid, 'a', me))\n",
            # looked up by its name
            "from app import helpers\n\n\n"
            "def send(out, mid, me):\n    out.put(getattr(helpers, '_text_chunk')(mid, 'a', me))\n",
        ],
    )
    def test_helper_reached_where_the_run_cannot_follow_keeps_its_ids(
        self, tmp_path: Path, caller: str, capsys: pytest.CaptureFixture[str]
    ) -> None:
        helpers = HELPERS + "\n\ndef greet(out, me):\n    out.put(_text_chunk('m0', 'hi', me))\n"
        files = {"app/__init__.py": "", "app/helpers.py": helpers, "app/use.py": caller}
        root = write_files(tmp_path, files)
        migrate(root)
        assert (root / "app" / "helpers.py").read_text() == helpers
        assert "a use of it in this run cannot follow" in capsys.readouterr().out
        assert migrate("--check", root) == 1

    def test_a_module_with_its_own_helper_still_gets_another_module_s(self, tmp_path: Path) -> None:
        # a.py (read first) has a helper of its own and calls b.py's: both calls need upserts.
        helper_a = HELPERS.replace("_text_chunk", "_a_chunk")
        helper_b = HELPERS.replace("_text_chunk", "_b_chunk")
        files = {
            "app/__init__.py": "",
            "app/a.py": helper_a + "\n\nfrom app.b import _b_chunk\n\n\ndef send(out, mid, me):\n"
            "    out.put(_a_chunk(mid, 'a', me))\n    out.put(_b_chunk(mid, 'b', me))\n",
            "app/b.py": helper_b
            + "\n\ndef greet(out, me):\n    out.put(_b_chunk('m0', 'hi', me))\n",
        }
        root = write_files(tmp_path, files)
        assert migrate(root) == 0
        a = (root / "app" / "a.py").read_text()
        assert a.count("out.put(SessionMessage(message_id=mid, sender_session_id=me))") == 2
        assert migrate("--check", root) == 0

    def test_helper_and_callers_are_written_together(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        files = {"app/__init__.py": "", "app/helpers.py": HELPERS, "app/use.py": CALLER}
        root = write_files(tmp_path, files)
        from acp_schema.migrations.chunk_identity import run as runner

        settle = runner._settle_helpers

        def then_edit_the_caller(*args: Any, **kwargs: Any) -> None:
            settle(*args, **kwargs)
            # Someone edits the caller while the run works: it must not be written.
            with (root / "app" / "use.py").open("a") as caller:
                caller.write("# edited meanwhile\n")

        monkeypatch.setattr(runner, "_settle_helpers", then_edit_the_caller)
        assert migrate(root) == 2
        # The helper keeps its IDs: nothing is lost, and --check still sees the work.
        assert (root / "app" / "helpers.py").read_text() == HELPERS
        monkeypatch.setattr(runner, "_settle_helpers", settle)
        assert migrate("--check", root) == 1
        assert migrate(root) == 0
        assert migrate("--check", root) == 0
        assert "sender_session_id" not in (root / "app" / "helpers.py").read_text()

    def test_helper_named_by_a_file_that_does_not_parse_is_left_alone(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        broken = CALLER + "\ndef broken(:\n    pass\n"
        files = {"app/__init__.py": "", "app/helpers.py": HELPERS, "app/use.py": broken}
        root = write_files(tmp_path, files)
        assert migrate(root) == 2
        assert (root / "app" / "helpers.py").read_text() == HELPERS
        out = capsys.readouterr().out
        assert "use.py names it but could not be migrated" in out

    def test_a_run_stopped_after_the_callers_is_finished_by_the_next(self, tmp_path: Path) -> None:
        files = {"app/__init__.py": "", "app/helpers.py": HELPERS, "app/use.py": CALLER}
        done = write_files(tmp_path / "done", files)
        assert migrate(done) == 0
        stopped = write_files(tmp_path / "stopped", files)
        from acp_schema.migrations.chunk_identity.rule_ids import ALL_RULES
        from acp_schema.migrations.chunk_identity.run import Options, run, write_groups

        paths = sorted(stopped.rglob("*.py"))
        [group] = write_groups(run(paths, Options(rules=ALL_RULES)))
        assert [r.path.name for r in group] == ["use.py", "helpers.py"]  # callers first
        first = group[0]
        assert first.new is not None
        first.path.write_bytes(first.new)  # ... and the run stops here
        assert migrate("--check", stopped) == 1
        assert migrate(stopped) == 0
        assert {k: v[0] for k, v in snapshot(stopped).items()} == {
            k: v[0] for k, v in snapshot(done).items()
        }

    def test_two_jobs_give_the_same_result_as_one(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from acp_schema.migrations.framework import pool

        monkeypatch.setattr(pool, "MIN_FILES_PER_WORKER", 1)  # workers even for a few files
        files: dict[str, str | bytes] = {
            "app/__init__.py": "",
            "app/helpers.py": HELPERS,
            "app/use.py": CALLER,
            "app/reader.py": READER,
            "app/broken.py": "SessionMessageChunk(\n",
        }
        files.update({f"app/send_{n}.py": OLD.replace("mid", f"mid{n}") for n in range(6)})
        files.update({f"app/plain_{n}.py": PLAIN for n in range(6)})
        one, two = write_files(tmp_path / "one", files), write_files(tmp_path / "two", files)
        assert migrate("--json", tmp_path / "one.json", one) == 2
        assert migrate("--jobs", "2", "--json", tmp_path / "two.json", two) == 2
        assert {k: v[0] for k, v in snapshot(one).items()} == {
            k: v[0] for k, v in snapshot(two).items()
        }

        def report(name: str, root: Path) -> str:
            return (tmp_path / name).read_text().replace(root.as_posix(), "ROOT")

        assert report("one.json", one) == report("two.json", two)


def test_libcst_tool_runs_the_codemod(tmp_path: Path) -> None:
    path = tmp_path / "send.py"
    path.write_text(OLD)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "libcst.tool",
            "codemod",
            "--no-format",
            "--hide-progress",
            "-x",
            "acp_schema.migrations.chunk_identity.commands.ChunkIdentityCommand",
            str(path),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "SessionMessage(message_id=mid, sender_session_id=me)" in path.read_text()


def test_an_internal_error_fails_only_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from acp_schema.migrations.chunk_identity import family as chunk_identity

    real = chunk_identity.plan_module

    def fragile(planner):  # type: ignore[no-untyped-def]
        if "boom" in planner.facts.module.code:
            raise RuntimeError("boom")
        return real(planner)

    monkeypatch.setattr(chunk_identity, "plan_module", fragile)
    root = write_files(tmp_path, {"a.py": OLD + "# boom\n", "b.py": OLD})
    assert migrate(root) == 2
    out = capsys.readouterr().out
    assert "a.py: error: internal error, file left unchanged: RuntimeError: boom" in out
    assert (root / "a.py").read_text() == OLD + "# boom\n"
    assert "SessionMessage(" in (root / "b.py").read_text()


class TestPrefilter:
    @pytest.mark.parametrize(
        "command", ["acp-schema generate", "acp-schema generate --schema s.json --out 'my pkg'"]
    )
    def test_generated_bindings_are_known_by_their_header(self, command: str) -> None:
        from acp_schema.codegen.generate.package_files import header_lines, seal
        from acp_schema.migrations.resolution.bindings import is_generated_bindings

        header = header_lines("schema.unstable.json", "0.89.0", "0" * 64, command)
        assert is_generated_bindings(seal(header + "\n" + OLD).encode())
        assert not is_generated_bindings(("# Generated by acp-schema from x\n" + OLD).encode())

    def test_unchanged_generated_bindings_and_files_without_a_removed_name_are_not_parsed(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from acp_schema.codegen.generate.package_files import header_lines, seal
        from acp_schema.migrations.chunk_identity import run as runner

        generated = seal(header_lines("schema.unstable.json", "0.89.0", "0" * 64) + "\n" + OLD)
        app = "class Event:\n    sender_session_id: str\n\ndef who(e):\n    return e.sender_session_id\n"
        edited = generated + "\n\ndef _who(chunk):\n    return chunk.sender_session_id\n"
        root = write_files(
            tmp_path,
            {
                "vendor/v2/_models.py": generated,
                "vendor/v2/_edited.py": edited,
                "app/events.py": app,
                "app/plain.py": "def f():\n    return 1\n",
                "send.py": OLD,
            },
        )
        parsed: list[str] = []
        migrate_bytes = runner.migrate_bytes

        def spy(path: Path, *args: Any, **kwargs: Any) -> Any:
            parsed.append(path.name)
            return migrate_bytes(path, *args, **kwargs)

        monkeypatch.setattr(runner, "migrate_bytes", spy)
        report = tmp_path / "report.json"
        assert migrate("--check", "--json", report, root) == 1
        # A file naming a removed name is parsed, chunk in reach or not; so is a generated
        # file whose body no longer matches its digest (a helper written into it).
        assert sorted(parsed) == ["_edited.py", "events.py", "send.py"]
        files = {Path(f["path"]).name: f for f in json.loads(report.read_text())["files"]}
        assert files["_models.py"]["status"] == "skipped"
        assert files["plain.py"]["status"] == "skipped"
        generated_proofs = {o.get("proof") for o in files["_models.py"]["occurrences"]}
        assert generated_proofs <= {"generated-bindings", None}
        # The application's own field is proven unrelated; a read from an untyped value
        # is reported: nothing shows it is not a chunk.
        verdicts = [(o["verdict"], o.get("proof")) for o in files["events.py"]["occurrences"]]
        assert verdicts == [("unrelated", "class-member"), ("reported", None)]
        assert [o["verdict"] for o in files["_edited.py"]["occurrences"]][-1] == "reported"


def test_few_files_are_migrated_in_process_whatever_jobs_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from acp_schema.migrations.chunk_identity import run as runner

    here: list[str] = []  # calls made in this process (a worker's calls are not seen)
    real = runner.migrate_bytes

    def spy(path: Path, *args: Any, **kwargs: Any) -> Any:
        here.append(path.name)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(runner, "migrate_bytes", spy)
    root = write_files(tmp_path, {f"send_{n}.py": OLD for n in range(3)})
    assert migrate("--check", "--jobs", "2", root) == 1
    assert sorted(here) == ["send_0.py", "send_1.py", "send_2.py"]


def test_settings_are_never_silently_ignored_without_a_toml_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python 3.10 has no tomllib: with tomli missing, reading pyproject.toml is an error
    that names the file and the fix, never an empty document (the [migrate] extra installs
    tomli there)."""
    from acp_schema.migrations.framework import config

    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text("[tool.acp-schema.migrate]\nbindings = ['x']\n", encoding="utf-8")
    assert config.read_toml(pyproject)["tool"]["acp-schema"]["migrate"] == {"bindings": ["x"]}
    monkeypatch.setattr(config.sys, "version_info", (3, 10, 13, "final", 0))
    monkeypatch.setitem(sys.modules, "tomli", None)  # `import tomli` fails
    with pytest.raises(config.ConfigError) as caught:
        config.read_toml(pyproject)
    assert str(caught.value).startswith(f"{pyproject}: cannot read its settings: Python 3.10")
    assert "pip install tomli" in str(caught.value)
