"""Developer sessions: `nox -s generate`, `nox -s tests`, `nox -s tests_long`, `nox -s matrix`,
`nox -s acp`, `nox -s lint`, `nox -s typecheck`, `nox -s bench`. Every session installs the
project from its own files."""

from __future__ import annotations

import shutil

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
