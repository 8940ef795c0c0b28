"""The package, generated bindings included, is clean under `mypy --strict`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def test_package_passes_mypy_strict(installed_project: Path, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache")]
    command += ["-p", "acp_schema"]
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
