"""The repository layout the design card fixes: generated/ holds only generated code, one
module owns the command line, and the installed package has no import cycles."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

# Run against the installed copy: grimp cannot follow setuptools' editable finder, which
# maps the package's folders from several places.
_GRAPH = """
import json, grimp
graph = grimp.build_graph("acp_schema", cache_dir=None)
cycles = set()
for module in sorted(graph.modules):
    for imported in graph.find_modules_directly_imported_by(module):
        chain = graph.find_shortest_chain(importer=imported, imported=module)
        if chain:
            cycles.add(" -> ".join((module, *chain)))
print(json.dumps({
    "modules": sorted(graph.modules),
    "cycles": sorted(cycles),
    "cli_importers": sorted(graph.find_modules_that_directly_import("acp_schema.cli")),
}))
"""


@pytest.fixture(scope="module")
def import_graph(installed_project: Path) -> dict[str, list[str]]:
    pytest.importorskip("grimp", reason="grimp (dev extra) builds the import graph")
    done = subprocess.run(
        [sys.executable, "-c", _GRAPH],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(installed_project), "PATH": ""},
    )
    graph: dict[str, list[str]] = json.loads(done.stdout)
    return graph


def test_the_package_has_no_import_cycles(import_graph: dict[str, list[str]]) -> None:
    # grimp counts every import statement: top level, inside functions, under TYPE_CHECKING.
    whole = "acp_schema.migrations.chunk_identity.commands" in import_graph["modules"]
    assert whole  # the graph holds the deepest package too
    assert import_graph["cycles"] == []


def test_the_import_layers_hold(installed_project: Path) -> None:
    # The contracts are [tool.importlinter] in pyproject.toml: each package imports only
    # the layers below it (the migrations' command, the migration, resolution, framework).
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if lint is None:
        pytest.skip("import-linter (dev extra) checks the layers")
    done = subprocess.run(
        [lint, "--config", str(REPO / "pyproject.toml"), "--no-cache"],
        capture_output=True,
        text=True,
        check=False,
        cwd=installed_project,
        env={"PYTHONPATH": str(installed_project), "PATH": ""},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


# What keeps a hand-written package livable: a reader sees a folder's rooms at a glance and
# can hold a module or a class in mind.
MAX_MODULES_PER_FOLDER = 15
MAX_MODULE_LINES = 600
MAX_CLASS_LINES = 300
HAND_WRITTEN = ("runtime", "codegen", "migrations")


def test_hand_written_code_stays_within_the_size_limits() -> None:
    too_big = []
    for top in HAND_WRITTEN:
        for folder in [REPO / top, *(p for p in (REPO / top).rglob("*") if p.is_dir())]:
            modules = list(folder.glob("*.py"))
            if len(modules) > MAX_MODULES_PER_FOLDER:
                too_big.append(f"{folder.relative_to(REPO)}: {len(modules)} modules")
            for module in modules:
                source = module.read_text(encoding="utf-8")
                lines = source.count("\n")
                if lines > MAX_MODULE_LINES:
                    too_big.append(f"{module.relative_to(REPO)}: {lines} lines")
                for node in ast.walk(ast.parse(source)):
                    if isinstance(node, ast.ClassDef):
                        size = (node.end_lineno or node.lineno) - node.lineno + 1
                        if size > MAX_CLASS_LINES:
                            too_big.append(f"{module.relative_to(REPO)}:{node.name}: {size} lines")
    assert too_big == []


def test_the_old_codemod_path_still_works_with_a_warning() -> None:
    import importlib

    sys.modules.pop("acp_schema.migrations.commands", None)
    with pytest.warns(DeprecationWarning, match="chunk_identity.commands"):
        old = importlib.import_module("acp_schema.migrations.commands")
    from acp_schema.migrations.chunk_identity.commands import ChunkIdentityCommand

    assert old.ChunkIdentityCommand is ChunkIdentityCommand


def test_nothing_imports_the_top_level_parser(import_graph: dict[str, list[str]]) -> None:
    # Only `python -m acp_schema` starts it; every tool registers from its own package.
    assert import_graph["cli_importers"] == ["acp_schema.__main__"]


def test_generated_holds_only_generated_packages() -> None:
    assert sorted(p.name for p in (REPO / "generated").iterdir()) == ["v1", "v2"]
    for path in (REPO / "generated").rglob("*"):
        if path.is_dir() or path.name == "py.typed" or "__pycache__" in path.parts:
            continue
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("# Generated by acp-schema"), path


def test_the_transcript_command_lives_with_the_store() -> None:
    from acp_schema.transcripts import cli, store

    assert Path(cli.__file__).parent == Path(store.__file__).parent


def test_each_tool_of_codegen_is_a_subpackage_registering_its_own_commands() -> None:
    from acp_schema.cli import COMMAND_GROUPS

    groups = [module for module, _ in COMMAND_GROUPS]
    for tool in ("generate", "drift"):
        assert f"acp_schema.codegen.{tool}.commands" in groups
        assert (REPO / "codegen" / tool / "__init__.py").is_file()


def test_the_documented_diff_import_path_still_works_with_a_warning() -> None:
    import importlib
    import sys

    sys.modules.pop("acp_schema.codegen.schema_diff", None)
    with pytest.warns(DeprecationWarning, match="acp_schema.codegen.drift.schema_diff"):
        old = importlib.import_module("acp_schema.codegen.schema_diff")
    from acp_schema.codegen.drift.schema_diff import CODEMODS

    assert old.CODEMODS is CODEMODS
