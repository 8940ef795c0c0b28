"""Fixtures and settings shared by several test modules."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parents[1]

# In CI the property tests draw the same examples every run, so a red build always means
# a change, never a newly drawn example; on developers' machines they keep exploring.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(scope="session")
def installed_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project installed with `pip install --target`, for mypy (which cannot follow
    the editable install); made once per test session.

    pip builds in an isolated environment, which needs setuptools from an index or
    pip's cache. Offline without it, the bindings package is copied as pyproject.toml
    maps it (`acp_schema` is `runtime/`, its `v1`/`v2` are `generated/v1`, `generated/v2`),
    which is all mypy reads here."""
    target = tmp_path_factory.mktemp("site")
    # From a copy of the sources: setuptools reuses the checkout's build/ folder, which
    # still holds modules a layout change has moved away.
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, source / name)
    for folder in ("runtime", "generated", "codegen", "migrations"):
        shutil.copytree(
            REPO / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    command = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target)]
    done = subprocess.run(
        [*command, str(source)], capture_output=True, text=True, check=False, timeout=300
    )
    if done.returncode != 0:
        shutil.rmtree(target)
        shutil.copytree(REPO / "runtime", target / "acp_schema")
        for version in ("v1", "v2"):
            shutil.copytree(REPO / "generated" / version, target / "acp_schema" / version)
    return target


def pytest_report_header() -> str:
    from tests.budget import LONG

    budget = "long (ACP_SCHEMA_LONG=1)" if LONG else "quick (ACP_SCHEMA_LONG=1 for the long one)"
    return f"property tests: the {budget} example budget (tests/budget.py)"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The figures of the suites that print them, when they ran: the migration oracle and
    the TypeScript SDK conformance (visible in CI logs)."""
    oracle = sys.modules.get("tests.migration_oracle")
    if oracle is not None and oracle.FIGURES:
        terminalreporter.write_line(oracle.figures_line(oracle.FIGURES))
    from tests.conformance.report import LINES

    if LINES:
        terminalreporter.section("conformance with the TypeScript SDK")
        for line in LINES:
            terminalreporter.write_line(line)
