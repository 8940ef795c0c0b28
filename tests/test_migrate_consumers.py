"""Rule chunk-identity/consumer: code of the run that iterates a generator the migration
makes yield an upsert before the chunks, and uses its items as chunks, is reported
where it consumes them (its own examples, run with every rule, and across modules)."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_schema.migrations.chunk_identity import consumers
from acp_schema.migrations.chunk_identity.rule_ids import ALL_RULES, CONSUMER
from acp_schema.migrations.chunk_identity.run import FileResult, Options, run
from acp_schema.migrations.framework.examples import Example, Valid

from .migrate_support import write_files

CASES = list(enumerate(consumers.EXAMPLES))


def _run(root: Path, files: dict[str, str]) -> dict[str, FileResult]:
    write_files(root, files)
    results = run(sorted(root.rglob("*.py")), Options(rules=ALL_RULES))
    return {r.path.relative_to(root).as_posix(): r for r in results}


def _consumer_lines(result: FileResult) -> list[int]:
    return [f.line for f in result.warnings if f.rule == CONSUMER]


@pytest.mark.parametrize(("index", "example"), CASES, ids=[str(i) for i, _ in CASES])
def test_consumer_example(index: int, example: Example, tmp_path: Path) -> None:
    results = _run(tmp_path, {"app/__init__.py": "", "app/agent.py": example.source})
    agent = results["app/agent.py"]
    assert agent.new is not None, "the generator is rewritten"
    expected = [] if isinstance(example, Valid) else list(example.lines)
    assert _consumer_lines(agent) == expected, example.why


def test_consumers_in_other_modules_and_after_the_migration(tmp_path: Path) -> None:
    files = {
        "app/__init__.py": "",
        "app/gen.py": consumers.EXAMPLES[1].source.split("def transcript")[0],
        "app/use.py": (
            "from app.gen import chunks\n\n\n"
            "def texts(mid, me, parts):\n"
            "    out = []\n"
            "    for chunk in chunks(mid, me, parts):\n"
            "        out.append(chunk.content.text)\n"
            "    return out\n\n\n"
            "def kinds(mid, me, parts):\n"
            "    for chunk in chunks(mid, me, parts):\n"
            "        if chunk.session_update != 'session_message_chunk':\n"
            "            continue\n"
            "        print(chunk.content.text)\n"
        ),
    }
    results = _run(tmp_path, files)
    assert _consumer_lines(results["app/use.py"]) == [6]
    # Written and run again (`--check` on the migrated tree): still reported.
    for result in results.values():
        if result.new is not None:
            result.path.write_bytes(result.new)
    again = {
        r.path.relative_to(tmp_path).as_posix(): r
        for r in run(sorted(tmp_path.rglob("*.py")), Options(rules=ALL_RULES))
    }
    assert _consumer_lines(again["app/use.py"]) == [6]
    assert all(r.new is None for r in again.values())
