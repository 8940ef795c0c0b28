"""`nox -s mutants` (tests/mutants.py): the checkout's paths name the modules mutmut mutates
in the staged tree, and what the session appends to pyproject.toml lands in `[tool.mutmut]`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

if sys.version_info < (3, 11):
    pytest.skip("tests/mutants.py reads pyproject with tomllib (3.11+)", allow_module_level=True)

import tomllib

from tests import mutants

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = (REPO / "pyproject.toml").read_text(encoding="utf-8")
DIRS = mutants.package_dirs(tomllib.loads(PYPROJECT))


def test_a_file_of_the_checkout_names_its_installed_module() -> None:
    assert mutants.modules_of([str(REPO / "runtime/_jsonrpc.py")], DIRS) == [
        "src/acp_schema/_jsonrpc.py"
    ]
    assert mutants.modules_of([str(REPO / "codegen/generate/postpass.py")], DIRS) == [
        "src/acp_schema/codegen/generate/postpass.py"
    ]


def test_a_folder_names_its_own_modules_only() -> None:
    runtime = mutants.modules_of([str(REPO / "runtime")], DIRS)
    assert "src/acp_schema/transcripts/linking.py" in runtime
    assert "src/acp_schema/_validation/json_values.py" in runtime
    assert not [m for m in runtime if m.startswith(("src/acp_schema/codegen", "src/acp_schema/v"))]
    accounting = mutants.modules_of([str(REPO / "migrations/chunk_identity/accounting")], DIRS)
    assert accounting and all(
        m.startswith("src/acp_schema/migrations/chunk_identity/accounting/") for m in accounting
    )


def test_each_folder_has_its_tests() -> None:
    runtime = mutants.tests_for(["src/acp_schema/_jsonrpc.py"])
    assert "tests/test_jsonrpc_decode.py" in runtime
    assert "tests/test_cli_hostile.py" not in runtime  # the end-to-end sweep: left out
    assert mutants.tests_for(["src/acp_schema/migrations/cli.py"]) == sorted(
        p.relative_to(REPO).as_posix() for p in REPO.glob("tests/test_migrate_*.py")
    )


def test_lines_appended_to_pyproject_belong_to_the_mutmut_table() -> None:
    appended = PYPROJECT + 'only_mutate = ["src/acp_schema/_jsonrpc.py"]\n'
    assert tomllib.loads(appended)["tool"]["mutmut"]["only_mutate"] == [
        "src/acp_schema/_jsonrpc.py"
    ]
