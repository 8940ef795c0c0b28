"""`acp-schema migrate` finds vendored pre-revision bindings on its own, and reads its
settings per file from the nearest pyproject.toml."""

# ruff: noqa: E501

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from acp_schema.migrations.resolution.old_bindings import find_old_bindings

from .migrate_support import migrate, write_files

MODELS = textwrap.dedent(
    """\
    from pydantic import BaseModel


    class SessionMessage(BaseModel):
        message_id: str
        sender_session_id: str | None = None
        recipient_session_id: str | None = None


    class SessionMessageChunk(BaseModel):
        message_id: str
        content: str
        sender_session_id: str | None = None
        recipient_session_id: str | None = None
    """
)
SEND = textwrap.dedent(
    """\
    from {module} import SessionMessageChunk


    def send(out, mid, me, parts):
        for part in parts:
            out.put(SessionMessageChunk(message_id=mid, content=part, sender_session_id=me))
    """
)


class TestDetection:
    def test_vendored_models_are_reported_and_used_as_bindings(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        root = write_files(
            tmp_path,
            {
                "app/__init__.py": "",
                "app/models.py": MODELS,
                "app/send.py": SEND.format(module="app.models"),
                "app/relative.py": SEND.format(module=".models"),
            },
        )
        report = tmp_path / "report.json"
        assert migrate("--json", report, root / "app") == 0
        out = capsys.readouterr().out
        models = (root / "app" / "models.py").as_posix()
        assert (
            f"{models}:10:0: chunk-identity/old-bindings: pydantic model `SessionMessageChunk` "
            "declares recipient_session_id and sender_session_id, which chunks no longer have: "
            "regenerate or replace with acp_schema.v1/v2" in out
        )
        assert (
            "bindings: default acp_schema.v1, acp_schema.v2; detected app.models.SessionMessageChunk"
            in out
        )
        for name in ("send.py", "relative.py"):
            text = (root / "app" / name).read_text()
            assert "out.put(SessionMessage(message_id=mid, sender_session_id=me))" in text, text
            assert "from app.models import SessionMessage" in text or "from .models import" in text
        used = json.loads(report.read_text())["bindings"]
        assert used["default"] == ["acp_schema.v1", "acp_schema.v2"]
        assert used["configured"] == []
        assert [(d["module"], d["class"], d["line"]) for d in used["detected"]] == [
            ("app.models", "SessionMessageChunk", 10)
        ]
        # A second run changes nothing; the vendored class stays reported (and --check
        # red) until it is replaced or acknowledged.
        capsys.readouterr()
        assert migrate("--check", root / "app") == 1
        assert "0 would change" in capsys.readouterr().out
        models = root / "app" / "models.py"
        models.write_text(
            models.read_text().replace(
                "class SessionMessageChunk(BaseModel):",
                "class SessionMessageChunk(BaseModel):  # acp-migrate: ok[chunk-identity/old-bindings]",
            )
        )
        assert migrate("--check", root / "app") == 0

    def test_worker_processes_see_the_detected_bindings(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        from acp_schema.migrations.framework import pool

        monkeypatch.setattr(pool, "MIN_FILES_PER_WORKER", 1)  # workers even for two files
        root = write_files(
            tmp_path,
            {
                "app/__init__.py": "",
                "app/models.py": MODELS,
                "app/one.py": SEND.format(module="app.models"),
                "app/two.py": SEND.format(module="app.models"),
            },
        )
        assert migrate("--jobs", "2", root) == 0
        for name in ("one.py", "two.py"):
            assert "SessionMessage(message_id=mid" in (root / "app" / name).read_text()

    def test_re_exports_are_followed(self, tmp_path: Path) -> None:
        root = write_files(
            tmp_path,
            {
                "vendor/__init__.py": "from .models import *\n",
                "vendor/models.py": MODELS,
                "vendor/named.py": "from .models import SessionMessage, SessionMessageChunk as Chunk\n",
                "use_star.py": SEND.format(module="vendor"),
                "use_named.py": SEND.format(module="vendor.named").replace(
                    "import SessionMessageChunk", "import Chunk as SessionMessageChunk"
                ),
            },
        )
        assert migrate(root) == 0
        star = (root / "use_star.py").read_text()
        assert "from vendor import SessionMessage" in star
        assert "out.put(SessionMessage(message_id=mid, sender_session_id=me))" in star
        assert "SessionMessage(message_id=mid" in (root / "use_named.py").read_text()

    def test_a_module_without_session_message_is_left_alone(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        models = MODELS.split("\n\n\nclass SessionMessageChunk")[0].replace(
            "class SessionMessage(", "class SessionMessageChunk("
        )
        root = write_files(
            tmp_path,
            {
                "old/__init__.py": "",
                "old/models.py": models,
                "send.py": SEND.format(module="old.models"),
            },
        )
        before = (root / "send.py").read_text()
        assert migrate(root) == 0
        assert (root / "send.py").read_text() == before
        out = capsys.readouterr().out
        assert "declares an old SessionMessageChunk but no SessionMessage" in out

    def test_kinds_of_declarations(self, tmp_path: Path) -> None:
        source = textwrap.dedent(
            """\
            import attr
            from dataclasses import dataclass
            from typing import Literal, TypedDict


            @dataclass
            class DataChunk:
                session_update: Literal["session_message_chunk"]
                sender_session_id: str


            class WireChunk(TypedDict):
                sessionUpdate: Literal["session_message_chunk"]
                senderSessionId: str


            @attr.s
            class AttrsChunk:
                session_update = attr.ib(default="session_message_chunk")
                recipient_session_id = attr.ib()


            class SessionMessageChunk:
                def __init__(self, sender_session_id):
                    self.sender_session_id = sender_session_id


            class Unrelated:  # participant IDs, but no chunk tag or name
                sender_session_id: str


            class SessionMessage:  # the message still has them
                session_update: Literal["session_message"]
                sender_session_id: str
            """
        )
        path = tmp_path / "shapes.py"
        path.write_text(source)
        found = find_old_bindings([(path, source.encode())])
        assert [(d.name, d.kind, d.line) for d in found.declarations] == [
            ("DataChunk", "dataclass", 7),
            ("WireChunk", "TypedDict", 12),
            ("AttrsChunk", "attrs class", 18),
            ("SessionMessageChunk", "class", 23),
        ]
        assert "shapes.Unrelated" in found.app_classes

    def test_look_alike_classes_are_not_reported(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        envelope = "class Envelope:\n    sender_session_id: str\n    recipient_session_id: str\n"
        chat = "class SessionMessageChunk:\n    text: str\n"
        use = textwrap.dedent(
            """\
            from acp_schema.v2 import SessionMessageChunk
            from app.envelope import Envelope


            def route(env: Envelope, chunk: SessionMessageChunk) -> str:
                print(chunk.message_id)
                return env.sender_session_id
            """
        )
        root = write_files(
            tmp_path,
            {
                "app/__init__.py": "",
                "app/envelope.py": envelope,
                "app/chat.py": chat,
                "app/use.py": use,
            },
        )
        assert migrate(root) == 0
        out = capsys.readouterr().out
        assert "0 warning(s)" in out and "chunk-identity/" not in out, out
        assert "detected" not in out
        assert (root / "app" / "use.py").read_text() == use

    def test_disabling_the_rule_turns_detection_off(self, tmp_path: Path) -> None:
        root = write_files(
            tmp_path,
            {
                "app/__init__.py": "",
                "app/models.py": MODELS,
                "app/send.py": SEND.format(module="app.models"),
            },
        )
        # Without detection the vendored class is not known as the chunk: nothing is
        # rewritten, but its uses are still reported (rule occurrence) unless that is off.
        assert migrate("--diff", "--disable", "chunk-identity/old-bindings", root) == 0
        assert migrate("--check", "--disable", "chunk-identity/old-bindings", root) == 1
        off = ("--disable", "chunk-identity/old-bindings", "--disable", "chunk-identity/occurrence")
        assert migrate("--check", *off, root) == 0
        assert migrate("--check", root) == 1


class TestConfiguration:
    def test_nearest_pyproject_per_file_whatever_the_order(self, tmp_path: Path) -> None:
        vendored = SEND.format(module="vendored_acp.schema")
        write_files(
            tmp_path,
            {
                "mono/.git/HEAD": "",
                "mono/pyproject.toml": "[project]\nname = 'mono'\n",
                "mono/a/pyproject.toml": '[tool.acp-schema.migrate]\nbindings = ["vendored_acp"]\n',
                "mono/a/send.py": vendored,
                "mono/b/pyproject.toml": "[tool.acp-schema.migrate]\nbindings = []\n",
                "mono/b/send.py": vendored,
            },
        )
        a, b = tmp_path / "mono" / "a", tmp_path / "mono" / "b"
        for order in ((a, b), (b, a)):
            for project in (a, b):
                (project / "send.py").write_text(vendored)
            assert migrate(*order) == 0
            assert "SessionMessage(" in (a / "send.py").read_text()
            assert (b / "send.py").read_text() == vendored

    def test_table_above_the_repository_root_is_not_read(self, tmp_path: Path) -> None:
        vendored = SEND.format(module="vendored_acp.schema")
        write_files(
            tmp_path,
            {
                "pyproject.toml": '[tool.acp-schema.migrate]\nbindings = ["vendored_acp"]\n',
                "repo/.git/HEAD": "",
                "repo/send.py": vendored,
            },
        )
        # The table above is not read, so vendored_acp is not the bindings: nothing to
        # change, though the unresolved SessionMessageChunk is reported.
        report = tmp_path / "report.json"
        assert migrate("--check", "--json", report, tmp_path / "repo") == 1
        summary = json.loads(report.read_text())["summary"]
        assert summary["changed"] == 0
        assert summary["warnings"] == {"chunk-identity/occurrence": 1}

    def test_excludes_are_relative_to_their_pyproject(self, tmp_path: Path) -> None:
        old = SEND.format(module="acp_schema.v2")
        write_files(
            tmp_path,
            {
                "proj/pyproject.toml": '[tool.acp-schema.migrate]\nexclude = ["gen/*"]\n',
                "proj/gen/send.py": old,
                "proj/src/send.py": old,
            },
        )
        assert migrate(tmp_path / "proj" / "gen" / "send.py", tmp_path / "proj" / "src") == 0
        assert (tmp_path / "proj" / "gen" / "send.py").read_text() == old
        assert "SessionMessage(" in (tmp_path / "proj" / "src" / "send.py").read_text()

    @pytest.mark.parametrize(
        ("text", "problem"),
        [
            ("[tool.acp-schema.migrate\n", "not valid TOML"),
            ("[tool.acp-schema.migrate]\nbindings = 'acp'\n", "bindings must be a list of strings"),
            (
                "[tool.acp-schema.migrate]\ntodo-comments = 1\n",
                "todo-comments must be true or false",
            ),
            ("[tool.acp-schema.migrate]\nbinding = ['acp']\n", "unknown key 'binding'"),
            ("[tool.acp-schema]\nmigrate = 3\n", "must be a table"),
            ("[tool.acp-schema.migrate]\nselect = ['chunk-identity/nope']\n", "unknown rule"),
        ],
    )
    def test_broken_pyproject_is_a_one_line_error(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, problem: str
    ) -> None:
        old = SEND.format(module="acp_schema.v2")
        write_files(tmp_path, {"pyproject.toml": text, "send.py": old})
        assert migrate(tmp_path) == 2
        captured = capsys.readouterr()
        assert captured.err.count("\n") == 1, captured.err
        assert problem in captured.err
        assert "Traceback" not in captured.err
        assert str(tmp_path / "pyproject.toml") in captured.err
        assert (tmp_path / "send.py").read_text() == old


def test_old_generated_bindings_are_detected_without_parsing_them_whole(tmp_path: Path) -> None:
    from acp_schema.codegen.generate.package_files import header_lines, seal

    # Bindings an older acp-schema generated (the header says so) whose chunk still has
    # the IDs: only the chunk class is read, and it counts as the bindings' chunk.
    generated = seal(header_lines("schema.unstable.json", "0.80.0", "0" * 64) + "\n" + MODELS)
    files = [
        (tmp_path / "vendor" / "_models.py", generated.encode()),
        (tmp_path / "send.py", SEND.format(module="_models").encode()),
    ]
    found = find_old_bindings(files)
    [declaration] = found.declarations
    assert (declaration.name, declaration.line) == ("SessionMessageChunk", 14)
    assert found.app_classes == ()  # only the chunk class was read


def test_libcst_runner_says_it_cannot_treat_a_vendored_class_as_the_chunk() -> None:
    from .migrate_support import run_codemod

    code, findings, _ = run_codemod(MODELS, module="app.models")
    assert code == MODELS
    [warning] = [f for f in findings if f.rule == "chunk-identity/old-bindings"]
    assert warning.line == 10
    assert "one file at a time" in warning.message
    assert "`acp-schema migrate`" in warning.message
    assert "--bindings" in warning.message
