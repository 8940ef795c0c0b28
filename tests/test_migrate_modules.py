"""Module names as Python imports them (PEP 420 namespace packages, `src/` layouts, the
package roots a pyproject.toml declares), and `migrate --check` on a tree shaped like an
agent fork that vendors the old models in a namespace package."""

# ruff: noqa: E501

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from acp_schema.migrations.resolution.modules import module_names
from tests.migration_oracle.vendored import VENDORED

from .migrate_support import migrate, write_files

USE = textwrap.dedent(
    """\
    from acme.proto.models import SessionMessageChunk


    def first_chunk(mid: str) -> SessionMessageChunk:
        return SessionMessageChunk(message_id=mid, content="hello")


    def who(update: object) -> str | None:
        if isinstance(update, SessionMessageChunk):
            return update.sender_session_id
        return None
    """
)
READ_LINE = "        return update.sender_session_id"


def fork_tree(root: Path, pyproject: str | None = None) -> Path:
    """`src/acme/proto/models.py` vendors the chunk; `src/acme` has no `__init__.py`."""
    files = {
        "src/acme/proto/__init__.py": "",
        "src/acme/proto/models.py": VENDORED,
        "src/acme/proto/use.py": USE,
    }
    if pyproject is not None:
        files["pyproject.toml"] = pyproject
    return write_files(root, files)


class TestModuleNames:
    def test_namespace_package_in_src_layout(self, tmp_path: Path) -> None:
        root = fork_tree(tmp_path, "[project]\nname = 'acme'\n")
        names = module_names(root / "src/acme/proto/models.py")
        assert names.name == "acme.proto.models"
        assert names.package == "acme.proto"
        assert names.root == (root / "src").resolve()
        # Importable from the project directory and by the old `__init__.py` chain too.
        assert "src.acme.proto.models" in names.aliases
        assert "proto.models" in names.aliases

    def test_src_convention_without_any_project_file(self, tmp_path: Path) -> None:
        root = write_files(tmp_path, {"repo/src/acme/agent/acp_unstable.py": "x = 1\n"})
        assert (root / "repo").is_dir()
        assert module_names(root / "repo/src/acme/agent/acp_unstable.py").name in {
            "acme.agent.acp_unstable",  # src/ found as a root
        }

    def test_package_roots_a_pyproject_declares(self, tmp_path: Path) -> None:
        pyproject = textwrap.dedent(
            """\
            [tool.setuptools.packages.find]
            where = ["lib"]

            [tool.setuptools.package-dir]
            "acme.legacy" = "old/legacy"
            """
        )
        root = write_files(
            tmp_path,
            {
                "pyproject.toml": pyproject,
                "lib/acme/agent/chunks.py": "",
                "old/legacy/models.py": "",
                "old/legacy/__init__.py": "",
            },
        )
        assert module_names(root / "lib/acme/agent/chunks.py").name == "acme.agent.chunks"
        legacy = module_names(root / "old/legacy/models.py")
        assert legacy.name == "acme.legacy.models"
        assert legacy.package == "acme.legacy"
        init = module_names(root / "old/legacy/__init__.py")
        assert (init.name, init.package) == ("acme.legacy", "acme.legacy")

    def test_setup_cfg_package_dir(self, tmp_path: Path) -> None:
        root = write_files(
            tmp_path,
            {"setup.cfg": "[options]\npackage_dir =\n    =code\n", "code/acme/x.py": ""},
        )
        assert module_names(root / "code/acme/x.py").name == "acme.x"

    def test_only_identifiers_make_a_name(self, tmp_path: Path) -> None:
        root = write_files(
            tmp_path, {"pyproject.toml": "", "my-tools/run.py": "", "pkg/__init__.py": ""}
        )
        names = module_names(root / "my-tools/run.py")
        assert names.name == "run"  # its own directory, as `python my-tools/run.py` runs it
        assert all("-" not in n for n, _ in names.names)

    def test_a_broken_pyproject_adds_no_roots(self, tmp_path: Path) -> None:
        root = write_files(tmp_path, {"pyproject.toml": "[tool.setuptools\n", "a/b.py": ""})
        assert module_names(root / "a/b.py").name == "a.b"


class TestForkShapedTree:
    @pytest.mark.parametrize(
        "pyproject",
        [None, "[project]\nname = 'acme'\n", '[tool.setuptools.packages.find]\nwhere = ["src"]\n'],
        ids=["no-pyproject", "project", "declared-root"],
    )
    def test_read_is_reported_and_check_fails_until_acknowledged(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str], pyproject: str | None
    ) -> None:
        root = fork_tree(tmp_path, pyproject)
        assert READ_LINE in USE
        report = tmp_path / "report.json"
        assert migrate("--check", "--json", report, root) == 1
        out = capsys.readouterr().out
        assert "src/acme/proto/use.py:10:15: chunk-identity/read:" in out
        data = json.loads(report.read_text())
        [detected] = data["bindings"]["detected"]
        assert detected["module"] == "acme.proto.models"

        use = root / "src/acme/proto/use.py"
        models = root / "src/acme/proto/models.py"
        use.write_text(
            USE.replace(READ_LINE, READ_LINE + "  # acp-migrate: ok[chunk-identity/read]")
        )
        # The vendored class itself is still reported until it is acknowledged too.
        assert migrate("--check", root) == 1
        models.write_text(
            VENDORED.replace(
                "class SessionMessageChunk",
                "# kept for old peers; acp-migrate: ok[chunk-identity]\nclass SessionMessageChunk",
            )
        )
        assert migrate("--check", "--json", report, root) == 0
        data = json.loads(report.read_text())
        assert data["summary"]["acknowledged"] == {
            "chunk-identity/old-bindings": 1,
            "chunk-identity/read": 1,
        }
        acknowledged = {
            Path(f["path"]).name: [a["line"] for a in f["acknowledged"]] for f in data["files"]
        }
        assert acknowledged["use.py"] == [10]

    def test_fixing_the_read_clears_it(self, tmp_path: Path) -> None:
        root = fork_tree(tmp_path)
        use = root / "src/acme/proto/use.py"
        use.write_text(USE.replace(READ_LINE, "        return store.sender_of(update.message_id)"))
        models = root / "src/acme/proto/models.py"
        models.write_text("# acp-migrate: ok[chunk-identity/old-bindings]\n" + VENDORED)
        # The acknowledgement above line 1 speaks for line 2, not the class: still red.
        assert migrate("--check", root) == 1
        models.write_text(
            VENDORED.replace(
                "class SessionMessageChunk(BaseModel):",
                "class SessionMessageChunk(BaseModel):  # acp-migrate: ok[chunk-identity/old-bindings]",
            )
        )
        assert migrate("--check", root) == 0

    def test_helper_in_a_namespace_package_reaches_its_callers(self, tmp_path: Path) -> None:
        helpers = textwrap.dedent(
            """\
            from acp_schema.v2 import SessionMessageChunk, TextContent


            def _text_chunk(mid, text, me):
                return SessionMessageChunk(message_id=mid, content=TextContent(text=text), sender_session_id=me)
            """
        )
        caller = textwrap.dedent(
            """\
            from acme.proto._chunks import _text_chunk


            def send(out, mid, me, parts):
                for part in parts:
                    out.put(_text_chunk(mid, part, me))
            """
        )
        root = write_files(
            tmp_path,
            {
                "pyproject.toml": "[project]\nname = 'acme'\n",
                "src/acme/proto/_chunks.py": helpers,
                "src/acme/app/use.py": caller,
            },
        )
        assert migrate(root) == 0
        assert "sender_session_id" not in (root / "src/acme/proto/_chunks.py").read_text()
        use = (root / "src/acme/app/use.py").read_text()
        assert "out.put(SessionMessage(message_id=mid, sender_session_id=me))" in use
        assert migrate("--check", root) == 0

    def test_no_read_warning_where_the_code_shows_the_application_class(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        from tests.migration_oracle.trees import TREES

        [fork] = [t for t in TREES if t.name == "fork-namespace-src-layout"]
        root = write_files(tmp_path, fork.files)
        # The vendored models named as bindings (detection off, so the application's
        # classes are not known as look-alikes either): `assert isinstance(e, ...)`, a
        # comprehension filtered by isinstance and a `dict[str, _Message]` lookup show
        # the type; only the read from a chunk is reported.
        off = ("--disable", "chunk-identity/old-bindings")
        assert migrate("--check", "--bindings", "acme.proto.models", *off, root) == 1
        warnings = [
            line for line in capsys.readouterr().out.splitlines() if ": chunk-identity/" in line
        ]
        in_use = [w for w in warnings if "/use.py:" in w]
        assert len(in_use) == 1
        assert "use.py:7:15: chunk-identity/read:" in in_use[0]
        # The vendored chunk class itself still declares the removed fields.
        assert [w.split(": ")[1] for w in warnings if w not in in_use] == [
            "chunk-identity/occurrence"
        ] * 2
