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


def test_mypy_sees_the_models_through_the_lazy_package(
    installed_project: Path, tmp_path: Path
) -> None:
    # The package's names are re-exported for type checkers; its run-time `__getattr__` is
    # hidden from them, so an unknown name stays an error instead of becoming `Any`.
    user = tmp_path / "user.py"
    user.write_text(
        "from acp_schema.v2 import UpdateSessionNotification\n"
        "from acp_schema.v2 import fast\n"
        "import acp_schema.v2\n"
        "reveal_type(UpdateSessionNotification)\n"
        "reveal_type(acp_schema.v2.RequestId)\n"
        "reveal_type(fast.UpdateSessionNotification.model_type())\n"
        "acp_schema.v2.NoSuchModel\n",
        encoding="utf-8",
    )
    command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache")]
    done = subprocess.run(
        [*command, str(user)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "MYPYPATH": str(installed_project)},
        check=False,
    )
    lines = done.stdout.splitlines()
    model = "acp_schema.v2._models.UpdateSessionNotification"
    assert lines[0].startswith('user.py:4: note: Revealed type is "def (')
    assert lines[0].endswith(f'-> {model}"')
    assert lines[1:] == [
        'user.py:5: note: Revealed type is "typing_extensions.TypeAliasType"',
        f'user.py:6: note: Revealed type is "type[{model}]"',
        'user.py:7: error: Module has no attribute "NoSuchModel"  [attr-defined]',
        "Found 1 error in 1 file (checked 1 source file)",
    ]
