"""The console script explains a missing extra instead of failing with a traceback."""

from __future__ import annotations

import subprocess
import sys


def test_missing_tools_extra_is_named() -> None:
    code = (
        "import sys; sys.modules['jsonschema'] = None\n"  # as if the extra were not installed
        "from acp_schema.cli import main\n"
        "raise SystemExit(main(['schema', 'check']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert "jsonschema is not installed" in done.stderr
    assert "pip install 'acp-schema[codegen]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_script_runs_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "acp_schema", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.startswith("acp-schema ")
