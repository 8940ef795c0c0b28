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


GEN = (
    "from acp_schema.v2 import SessionMessageChunk\n\n\n"
    "def chunks(mid, me, parts):\n"
    "    for part in parts:\n"
    "        yield SessionMessageChunk(message_id=mid, content=part, sender_session_id=me)\n"
)
CHUNK = "SessionMessageChunk(message_id=mid, content=part, sender_session_id=me)"
USE_AS_CHUNK = "    for c in {call}(mid, me, parts):\n        print(c.content.text)\n"


@pytest.mark.parametrize(
    ("files", "user"),
    [
        # imported under another name
        (
            {"app/use.py": "from app.gen import chunks as produce\n\n\ndef f(mid, me, parts):\n"
             + USE_AS_CHUNK.format(call="produce")},
            "app/use.py",
        ),
        # bound to a local name from the module
        (
            {"app/use.py": "from app import gen\n\n\ndef f(mid, me, parts):\n"
             "    produce = gen.chunks\n" + USE_AS_CHUNK.format(call="produce")},
            "app/use.py",
        ),
        # re-exported by the package under another name
        (
            {"app/__init__.py": "from .gen import chunks as stream\n",
             "main.py": "import app\n\n\ndef f(mid, me, parts):\n"
             + USE_AS_CHUNK.format(call="app.stream")},
            "main.py",
        ),
    ],
)  # fmt: skip
def test_a_generator_reached_under_other_names_is_followed(
    tmp_path: Path, files: dict[str, str], user: str
) -> None:
    results = _run(tmp_path, {"app/__init__.py": "", "app/gen.py": GEN, **files})
    assert results["app/gen.py"].new is not None
    assert _consumer_lines(results[user]) == [5 if "produce =" not in files[user] else 6]


def test_a_send_function_of_the_run_that_gets_the_upsert_is_reported(tmp_path: Path) -> None:
    source = (
        "from acp_schema.v2 import SessionMessageChunk\n\n\n"
        "def send_update(out, update):\n"
        "    if isinstance(update, SessionMessageChunk):\n"  # drops the upsert
        "        out.session_update(session_id='s', update=update)\n\n\n"
        "def relay(out, update):\n"
        "    out.session_update(session_id='s', update=update)\n\n\n"
        "def main(out, mid, me, parts):\n"
        "    for part in parts:\n"
        f"        send_update(out, {CHUNK})\n"
        f"        relay(out, {CHUNK})\n"
    )
    results = _run(tmp_path, {"app/__init__.py": "", "app/agent.py": source})
    agent = results["app/agent.py"]
    assert agent.new is not None
    assert _consumer_lines(agent) == [5]  # `relay` only forwards it


def test_a_queue_read_through_its_bound_get_is_reported(tmp_path: Path) -> None:
    source = (
        "import queue\n"
        "from acp_schema.v2 import SessionMessageChunk\n\n\n"
        "def main(out, mid, me, parts):\n"
        "    q = queue.Queue()\n"
        "    for part in parts:\n"
        "        q.put(SessionMessageChunk(message_id=mid, content=part, sender_session_id=me))\n"
        "    q.put(None)\n"
        "    for item in iter(q.get, None):\n"
        "        print(item.content.text)\n"
    )
    results = _run(tmp_path, {"app/__init__.py": "", "app/agent.py": source})
    assert results["app/agent.py"].new is not None
    assert _consumer_lines(results["app/agent.py"]) == [10]
