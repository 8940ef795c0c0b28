"""docs/acp-sdk.md stays true: its agent and client examples, written out as they stand in
the page, run over real stdio and print the output the page shows."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("acp", reason="agent-client-protocol (the acp extra) is not installed")

PAGE = Path(__file__).resolve().parents[1] / "docs" / "acp-sdk.md"
BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)


def blocks() -> dict[str, str]:
    """The page's Python blocks by the file name on their first line, and its output."""
    found: dict[str, str] = {}
    for language, body in BLOCK.findall(PAGE.read_text(encoding="utf-8")):
        first = body.split("\n", 1)[0]
        if language == "python" and first.startswith("# ") and first.endswith(".py"):
            found[first[2:]] = body
        elif language == "text":
            found["output"] = body
    return found


def test_the_example_runs_and_prints_what_the_page_shows(tmp_path: Path) -> None:
    examples = blocks()
    assert {"agent.py", "client.py", "output"} <= examples.keys()
    for name in ("agent.py", "client.py"):
        (tmp_path / name).write_text(examples[name], encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "client.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # acp logs nothing
    assert done.stdout == examples["output"]
