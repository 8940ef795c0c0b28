"""End to end: migrate tests/fixtures/old_client (written against the old bindings),
type-check the result against the new bindings, run it, and feed what it sends to the
transcript runtime: every message must have the participants the old code meant."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_schema.cli import main
from tests.reference_schemas import require_reference

REPO = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).parent / "fixtures" / "old_client"

# What the fixture's senders mean: (transcript, message) -> (sender, recipient, text).
EXPECTED: dict[tuple[str, str], tuple[str, str, str]] = {
    ("parent", "out-1"): ("parent", "child", "Check the logs"),
    ("parent", "out-2"): ("parent", "child", "one more thing"),
    ("parent", "in-1"): ("child", "parent", "Found it"),
    ("child", "in-2"): ("parent", "child", "abc"),
    ("child", "out-3"): ("child", "parent", "xy"),
    ("parent", "in-3"): ("child", "parent", "z"),
}

RUN_SCENARIO = (
    "import asyncio, json, sys\n"
    "from old_client.scenario import main\n"
    "json.dump(asyncio.run(main()), sys.stdout)\n"
)


def run_scenario(*pythonpath: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, pythonpath))}
    done = subprocess.run(
        [sys.executable, "-c", RUN_SCENARIO], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A migrated copy of the fixture package (its parent directory) and the JSON report."""
    root = tmp_path_factory.mktemp("migrated")
    shutil.copytree(FIXTURE, root / "old_client")
    report = root / "report.json"
    assert (
        main(["migrate", "--todo-comments", "--json", str(report), str(root / "old_client")]) == 0
    )
    return root, json.loads(report.read_text())


def test_migration_changes_every_sender_and_is_idempotent(
    migrated: tuple[Path, dict[str, Any]],
) -> None:
    root, report = migrated
    summary = report["summary"]
    assert summary["failed"] == 0
    assert summary["changed"] == 6  # all senders, helpers and the reader
    assert summary["warnings"] == {"chunk-identity/read": 1}  # reader.sender_of's getattr
    reader = (root / "old_client" / "reader.py").read_text()
    assert "# TODO(acp-schema migrate): chunk-identity/read:" in reader
    # The read left for a person keeps CI red until it is fixed or acknowledged in place.
    assert main(["migrate", "--check", str(root / "old_client")]) == 1
    read = 'sender = getattr(update, "sender_session_id", None)'
    assert read in reader
    checked = root / "checked"
    shutil.copytree(root / "old_client", checked / "old_client")
    (checked / "old_client" / "reader.py").write_text(
        reader.replace(read, read + "  # acp-migrate: ok[chunk-identity/read]")
    )
    assert main(["migrate", "--check", str(checked / "old_client")]) == 0


def test_migrated_code_passes_mypy_strict_against_the_new_bindings(
    migrated: tuple[Path, dict[str, Any]], installed_project: Path
) -> None:
    root, _ = migrated
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            str(root / ".mypy_cache"),
            "-p",
            "old_client",
        ],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "MYPYPATH": os.pathsep.join([str(root), str(installed_project)])},
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def participants(sent: list[dict[str, Any]]) -> dict[tuple[str, str], tuple[str, str, str]]:
    """What the transcript runtime makes of the messages: participants and text."""
    from acp_schema.transcripts import TranscriptStore

    store = TranscriptStore(version="v2")
    for message in sent:
        store.apply(message)
    found = {}
    for session_id, message_id in EXPECTED:
        entry = store.entry(session_id, message_id)
        assert entry is not None, (session_id, message_id)
        text = "".join(getattr(block, "text", "") for block in entry.content)
        assert entry.sender_session_id is not None and entry.recipient_session_id is not None
        found[session_id, message_id] = (entry.sender_session_id, entry.recipient_session_id, text)
    return found


def test_migrated_code_sends_the_same_participants(
    migrated: tuple[Path, dict[str, Any]],
) -> None:
    pytest.importorskip("acp_schema.transcripts", reason="the transcript runtime is not there")
    root, _ = migrated
    result = run_scenario(root)
    assert participants(result["sent"]) == EXPECTED
    updates = [m["params"]["update"] for m in result["sent"]]
    chunks = [u for u in updates if u["sessionUpdate"] == "session_message_chunk"]
    upserts = [u for u in updates if u["sessionUpdate"] == "session_message"]
    assert len(chunks) == 12
    assert not any("senderSessionId" in u or "recipientSessionId" in u for u in chunks)
    # One metadata-only upsert per message: the loops' upserts were hoisted.
    assert len(upserts) == len(EXPECTED)
    assert not any("content" in u for u in upserts)
    # Every upsert comes before the first chunk of its message.
    first: dict[tuple[str, str], str] = {}
    for message in result["sent"]:
        update = message["params"]["update"]
        first.setdefault(
            (message["params"]["sessionId"], update["messageId"]), update["sessionUpdate"]
        )
    assert set(first.values()) == {"session_message"}
    assert result["log"] == ["parent -> child: one more thing"]
    # The class pattern matches chunks again once its `sender_session_id=_` is gone.
    assert result["described"].count("something else") == len(upserts)
    assert sorted(set(result["described"]) - {"something else"}) == sorted(
        f"chunk of {message_id}" for _, message_id in EXPECTED
    )


@pytest.fixture(scope="module")
def old_bindings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site directory whose `acp_schema.v2` is generated from the 2.0.0 reference."""
    old_v2_schema = require_reference("2.0.0", "v2")
    site = tmp_path_factory.mktemp("old_site")
    package = site / "acp_schema"
    package.mkdir()
    import acp_schema

    source = Path(acp_schema.__file__).parent
    for name in ("__init__.py", "_runtime.py", "_jsonrpc.py"):
        shutil.copy(source / name, package / name)
    generated = main(["generate", "--schema", str(old_v2_schema), "--out", str(package / "v2")])
    assert generated == 0
    return site


def test_same_meaning_as_the_old_code_on_the_old_bindings(
    migrated: tuple[Path, dict[str, Any]], old_bindings: Path
) -> None:
    pytest.importorskip("acp_schema.transcripts", reason="the transcript runtime is not there")
    old = run_scenario(old_bindings, FIXTURE.parent)
    meant: dict[tuple[str, str], tuple[str, str, str]] = {}
    for message in old["sent"]:
        update = message["params"]["update"]
        key = (message["params"]["sessionId"], update["messageId"])
        sender, recipient, text = meant.get(key, ("", "", ""))
        meant[key] = (
            update.get("senderSessionId") or sender,
            update.get("recipientSessionId") or recipient,
            text + update["content"]["text"],
        )
    assert meant == EXPECTED
    root, _ = migrated
    assert participants(run_scenario(root)["sent"]) == meant
    assert old["log"] == run_scenario(root)["log"]
