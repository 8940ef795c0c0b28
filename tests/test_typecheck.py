"""The generated bindings and the runtime they import are clean under `mypy --strict`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PACKAGES = ("acp_schema.v1", "acp_schema.v2", "acp_schema._runtime", "acp_schema._jsonrpc")


def test_bindings_pass_mypy_strict(installed_project: Path, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache")]
    for package in PACKAGES:
        command += ["-p", package]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(installed_project)},
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found" in done.stdout
