"""Developer sessions: `nox -s generate`, `nox -s tests`, `nox -s tests_long`, `nox -s matrix`,
`nox -s acp`, `nox -s lint`, `nox -s typecheck`, `nox -s bench`, `nox -s mutants`, and `nox -t
pythons` (a session per supported Python: `pythons-3.10` ... `pythons-3.13`). Every session
installs the project from its own files."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys

import nox

nox.options.sessions = ["tests", "lint", "typecheck"]
nox.options.reuse_existing_virtualenvs = True
nox.options.default_venv_backend = "venv"


@nox.session
def generate(session: nox.Session) -> None:
    """Regenerate generated/v1 and generated/v2 from the bundled schemas."""
    session.install("-e", ".[codegen]")
    session.run("acp-schema", "schema", "check")
    session.run("acp-schema", "generate", *session.posargs)


@nox.session
def tests(session: nox.Session) -> None:
    """Without arguments, the release matrix, the acp adapter's tests against the other
    agent-client-protocol releases it supports, and then the test suite (what CI runs:
    `.ci/run`); the suite needs no network and no ../shared (reference tests skip without
    it). The suite runs last so that its summary closes the log."""
    _tests(session)


@nox.session
def tests_long(session: nox.Session) -> None:
    """`tests` with the property tests' long example budget (ACP_SCHEMA_LONG=1,
    tests/budget.py): three times the examples (CI sets the variable too)."""
    session.env["ACP_SCHEMA_LONG"] = "1"
    _tests(session)


def _tests(session: nox.Session) -> None:
    session.install("-e", ".[dev]")
    if not session.posargs:
        _matrix(session)
        _acp_releases(session)
    session.run("pytest", *session.posargs)


@nox.session
def matrix(session: nox.Session) -> None:
    """Every published schema of @agentclientprotocol/sdk: check, generate, import, decode,
    mypy --strict (fetched once with npm into ~/.cache/acp-schema; skipped offline)."""
    session.install("-e", ".[dev]")
    _matrix(session)


def _matrix(session: nox.Session) -> None:
    session.run("pytest", "-m", "matrix", "tests/test_release_matrix.py")


# Every agent-client-protocol release acp_schema.acp_bridge claims (`SUPPORTED` in
# runtime/acp_bridge/_support.py); the dev extra pins the last, which the suite runs with.
ACP_RELEASES = ("0.12.0", "0.12.1")
ACP_TESTS = (
    "tests/test_acp_bridge.py",
    "tests/test_acp_bridge_convert.py",
    "tests/test_acp_bridge_e2e.py",
)


@nox.session
def acp(session: nox.Session) -> None:
    """The acp adapter's tests against each agent-client-protocol release it supports."""
    session.install("-e", ".[dev]")
    _acp_releases(session)


def _acp_releases(session: nox.Session) -> None:
    for release in ACP_RELEASES[:-1]:
        session.install(f"agent-client-protocol=={release}")
        session.run("pytest", "-q", *ACP_TESTS)
    session.install(f"agent-client-protocol=={ACP_RELEASES[-1]}")  # as the dev extra pins


# --- every supported Python ---------------------------------------------------------------

# requires-python = ">=3.10"; the newest Python the dependencies are known to install on.
SUPPORTED_PYTHONS = ("3.10", "3.11", "3.12", "3.13")
# What must work on every Python: the bindings and their fast path, the transcript runtime,
# migrate (settings read from pyproject.toml included), the docs' examples. The whole suite
# runs on one Python (`tests`).
PORTABLE_TESTS = (
    "tests/test_bindings_*.py",
    "tests/test_fast_*.py",
    "tests/test_transcript*.py",
    "tests/test_migrate_*.py",
    "tests/test_acp_bridge*.py",
    "tests/test_doc_examples.py",
)


def _interpreter(version: str) -> str:
    """The interpreter of `version`: `pythonX.Y` on PATH when it runs (a pyenv shim of a
    version pyenv has not activated does not), else the newest `~/.pyenv/versions/X.Y.*`,
    else the bare version (nox then reports it missing, and fails in CI)."""
    found = shutil.which(f"python{version}")
    if found is not None:
        done = subprocess.run([found, "-c", ""], capture_output=True, check=False)
        if done.returncode == 0:
            return found
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates = glob.glob(os.path.join(root, "versions", f"{version}.*", "bin", "python"))
    patch = [(int(c.split(os.sep)[-3].split(".")[2]), c) for c in candidates if _final(c)]
    return max(patch)[1] if patch else version


def _final(path: str) -> bool:
    """`3.13.0`, not `3.13.0rc1` or `3.13.0t` (a free-threaded build)."""
    return path.split(os.sep)[-3].split(".")[2].isdigit()


def _portable_tests(session: nox.Session) -> None:
    session.install("-e", ".[dev]")
    session.run("python", "--version")
    tests = sorted({path for pattern in PORTABLE_TESTS for path in glob.glob(pattern)})
    session.run("pytest", "-q", *(session.posargs or tests))


_RUNNING = f"{sys.version_info[0]}.{sys.version_info[1]}"
for _version in SUPPORTED_PYTHONS:
    # Tags: `pythons` selects every version; `other-pythons` every version but the one nox
    # runs on, whose `tests` session runs the whole suite (CI: .ci/run).
    _tags = ["pythons"] + (["other-pythons"] if _version != _RUNNING else [])
    nox.session(
        name=f"pythons-{_version}",
        python=_interpreter(_version),
        tags=_tags,
    )(_portable_tests)


@nox.session
def lint(session: nox.Session) -> None:
    session.install("ruff==0.17.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict on the hand-written code and on the generated bindings.

    mypy cannot follow setuptools' editable finder for the folder-to-package mapping, so
    the package is installed into a scratch directory and checked there.
    """
    session.install("-e", ".[dev]")
    target = session.create_tmp() + "/site"
    shutil.rmtree(target, ignore_errors=True)  # pip --target does not replace old files
    # build/ may still hold modules a layout change moved away; setuptools would ship them.
    shutil.rmtree("build", ignore_errors=True)
    session.run("pip", "install", "--quiet", "--no-deps", "--target", target, ".")
    session.run("mypy", "--strict", "-p", "acp_schema", env={"MYPYPATH": target}, external=False)


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks: ratios against baselines measured side by side in one run."""
    session.install("-e", ".[dev]")
    session.install("orjson")  # a peer in the `peers` table (decode x json.loads)
    session.run("python", "-m", "tests.bench", *session.posargs)


@nox.session
def mutants(session: nox.Session) -> None:
    """Mutation testing with mutmut (`[tool.mutmut]` in pyproject.toml) over runtime/,
    codegen/ and migrations/, or over the files and folders given:
    `nox -s mutants -- runtime/_jsonrpc.py runtime/transcripts`. Slow (minutes per module
    on 2 cores), so not part of `tests`; prints the score per module
    (docs/mutation-testing.md says how to read it)."""
    session.install("-e", ".[dev]", "mutmut==3.8.1")
    session.run("python", "-m", "tests.mutants", *session.posargs)
