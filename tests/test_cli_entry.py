"""The console script explains a missing extra instead of failing with a traceback."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize(
    ("missing", "argv", "prefix", "extra"),
    [
        ("jsonschema", ["schema", "check"], "acp-schema schema check", "codegen"),
        # libcst comes with both extras; generate needs codegen's, not migrate's
        ("libcst", ["generate", "v1"], "acp-schema generate", "codegen"),
        ("libcst", ["migrate", "."], "acp-schema migrate", "migrate"),
    ],
)
def test_missing_tools_extra_is_named(
    missing: str, argv: list[str], prefix: str, extra: str
) -> None:
    code = (
        f"import sys; sys.modules[{missing!r}] = None\n"  # as if the extra were not installed
        "from acp_schema.cli import main\n"
        f"raise SystemExit(main({argv!r}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stderr.startswith(f"{prefix}: {missing} is not installed; ")
    assert f"needs the [{extra}] extra" in done.stderr
    assert f"pip install '.[{extra}]'" in done.stderr
    assert len(done.stderr.splitlines()) == 1


def test_the_script_runs_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "acp_schema", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert done.stdout.startswith("acp-schema ")
