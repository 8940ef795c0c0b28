"""The README's Python example runs as printed, and says what it does."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_bindings_example_runs_and_prints_what_it_says() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    example = blocks[0]
    namespace: dict[str, Any] = {}
    exec(compile(example, "README.md", "exec"), namespace)
    # the commented output after `note.model_dump_json()`
    shown = "".join(
        line.lstrip("# ").strip() for line in example.splitlines() if line.startswith("# ")
    )
    assert json.loads(namespace["note"].model_dump_json()) == json.loads(shown)
    assert namespace["decoded"].update.sender_session_id is namespace["acp_schema"].MISSING
