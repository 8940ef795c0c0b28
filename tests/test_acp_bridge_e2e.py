"""End to end over real stdio pipes: an acp agent process (tests/acp_delegation_agent.py,
acp's `run_agent` plus `acp_bridge.send`) reports a subagent delegation to this process,
an acp client (`acp.spawn_agent_process`) with an `acp_bridge.UpdateReceiver` attached.

The oracle: the transcript the client renders while the updates arrive is byte for byte
what `acp-schema transcript show` prints for the log the client recorded (acp's own stream
observer writes it); acp logs nothing; `agent_message_chunk`, a kind acp knows, still
reaches the Client's own `session_update`. Without the receiver the same run makes acp log
one traceback per session message (the problem the adapter solves).
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

acp = pytest.importorskip("acp", reason="agent-client-protocol (the acp extra) is not installed")

from packaging.version import Version  # noqa: E402

from acp_schema.acp_bridge import (  # noqa: E402
    ACP_VERSION,
    AgentExitedError,
    UndecodableUpdate,
    UpdateReceiver,
)
from acp_schema.transcripts import TranscriptStore  # noqa: E402
from acp_schema.transcripts.cli import Progress, Text  # noqa: E402
from tests import acp_delegation_agent  # noqa: E402

AGENT = Path(__file__).with_name("acp_delegation_agent.py")
ACP_ERROR = "Unhandled error while handling notification"
UPDATES = 19  # what the agent sends: 7 upserts, 10 chunks, 2 agent_message_chunk


class RecordingClient:
    """An acp Client that keeps what acp hands its `session_update`."""

    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates.append((session_id, update))


class Run:
    """One client run against the agent process: what each side saw."""

    def __init__(self) -> None:
        self.client = RecordingClient()
        self.log: list[str] = []  # every message the agent sent, one JSON text each
        self.store = TranscriptStore("v1")  # the receiver's: kept whole for the assertions
        self.screen = io.StringIO()
        # `transcript show`'s renderer lets go of printed content in the store it renders
        # from, so it renders from a store of its own, fed the same decoded updates.
        self.shown = TranscriptStore("v1")
        self.progress = Progress(Text(self.screen), self.shown)
        self.decoded: list[Any] = []
        self.stop_reason: str | None = None
        self.decoded_when_prompt_returned = 0
        self.agent_stderr = b""

    def record(self, event: Any) -> None:
        if event.direction.value == "incoming":
            self.log.append(json.dumps(event.message))

    def on_update(self, notification: Any, entry: Any) -> None:
        self.decoded.append(notification)
        if entry is not None:
            shown = self.shown.apply(notification)
            assert shown is not None
            self.progress.touched(shown)

    def rendered(self) -> str:
        self.progress.finish()
        Text(self.screen).links(self.shown)
        return self.screen.getvalue()


async def _talk(run: Run, *, with_receiver: bool, handled: Callable[[], bool]) -> None:
    # acp gives the agent a trimmed environment; PYTHONPATH, if set, picks the acp to test
    env = {key: os.environ[key] for key in ("PYTHONPATH",) if key in os.environ}
    async with acp.spawn_agent_process(
        run.client, sys.executable, str(AGENT), env=env, observers=[run.record]
    ) as (connection, process):
        if with_receiver:
            UpdateReceiver(run.on_update, store=run.store).attach(connection)
        await connection.initialize(protocol_version=1)
        session = await connection.new_session(cwd=str(AGENT.parent))
        response = await connection.prompt(
            session_id=session.session_id, prompt=[acp.text_block("run the tests")]
        )
        run.stop_reason = response.stop_reason
        run.decoded_when_prompt_returned = len(run.decoded)
        if Version("0.12.1") > ACP_VERSION:
            # acp 0.12.0's prompt() returns without waiting for the updates of its turn
            for _ in range(1000):
                if handled():
                    break
                await asyncio.sleep(0.01)
    assert process.stderr is not None
    run.agent_stderr = await process.stderr.read()


def _run(*, with_receiver: bool, handled: Callable[[Run], bool]) -> Run:
    """One run; `handled(run)` says when every update of the turn has been handled."""
    run = Run()
    talk = _talk(run, with_receiver=with_receiver, handled=lambda: handled(run))
    asyncio.run(asyncio.wait_for(talk, timeout=60))
    return run


def acp_errors(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage().startswith(ACP_ERROR)]


def _show(log: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "acp_schema", "transcript", "show", "--protocol", "v1", str(log)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stderr == ""
    return done.stdout


def test_a_delegation_over_stdio_renders_as_transcript_show_prints_its_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    run = _run(with_receiver=True, handled=lambda run: len(run.decoded) >= UPDATES)
    assert run.stop_reason == "end_turn"
    assert run.agent_stderr == b""

    log = tmp_path / "agent.jsonl"
    log.write_text("".join(line + "\n" for line in run.log))
    shown = _show(log)
    rendered = run.rendered()
    # `show` ends with a count of bad lines and other messages (the JSON-RPC responses),
    # which only a reader of the whole log has; everything before it is the transcript.
    body, summary = shown.rsplit("\n", 2)[0] + "\n", shown.rsplit("\n", 2)[1]
    assert summary == "0 bad line(s), 3 other message(s) skipped"
    assert rendered == body

    # The linked transcript itself: both directions linked, the late references included.
    assert "Links, after the whole log:" in rendered
    views = [("sess-parent", "o1", "sess-child", "i1"), ("sess-child", "o2", "sess-parent", "i2")]
    for own, here, other, there in views:
        assert run.store.link(own, here).state == "linked"
        assert run.store.link(own, here).counterpart == (other, there)
    request = run.store.entry("sess-child", "i1")
    assert [block.text for block in request.content] == [
        "Please run the parser ",
        "tests and report back.",
    ]
    assert run.store.entry("sess-parent", "o1").meta == {"delegation": "d1"}

    # Every update reached the application decoded by the bindings, in the fast form.
    assert len(run.decoded) == UPDATES
    if Version("0.12.1") <= ACP_VERSION:  # acp's prompt() waits for the turn's updates
        assert run.decoded_when_prompt_returned == UPDATES  # so nothing is pending then
    kinds = [n.update.session_update for n in run.decoded]
    assert kinds.count("session_message") == 7 and kinds.count("session_message_chunk") == 10
    assert all(type(n).__module__ == "acp_schema.v1.fast" for n in run.decoded)
    # acp's own handler still gets the kinds it knows, as its own models, and nothing else.
    assert [(sid, type(u).__name__, u.content.text) for sid, u in run.client.updates] == [
        ("sess-parent", "AgentMessageChunk", "Asking a subagent to run the tests."),
        ("sess-parent", "AgentMessageChunk", "The subagent says all tests pass."),
    ]
    assert all(type(u).__module__ == "acp.schema" for _, u in run.client.updates)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_without_the_receiver_acp_logs_a_traceback_per_session_message(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    run = _run(with_receiver=False, handled=lambda run: len(acp_errors(caplog)) >= 17)
    assert run.stop_reason == "end_turn"
    errors = acp_errors(caplog)
    assert len(errors) == 17  # 7 upserts and 10 chunks, each refused by acp's models
    assert all(r.exc_info is not None for r in errors)
    assert len(run.client.updates) == 2  # the kinds acp knows are not affected


# --- a peer that sends what it should not, and a Client that takes its time -----------------

MIXED = acp_delegation_agent.MIXED
# The places in MIXED of what acp's router gets (acp's models read it), and the field the
# one WARNING line names for each update the bindings or acp refuse.
ACP_READS = [0, 1, 8, 9, 11]
REPORTED = {
    3: "not decoded by acp_schema.v1: update.messageId: Input should be a valid string",
    5: "not decoded by acp_schema.v1: update.sessionUpdate: a kind acp_schema.v1 does not know",
    6: "not decoded by acp_schema.v1: update.messageId: Field required",
    7: "not decoded by acp_schema.v1: update.content: Input should be an object",
    9: "not decoded by acp_schema.v1: update.used: Input should be a JSON integer",
    10: "(plan) not read by agent-client-protocol",
    12: "not decoded by acp_schema.v1: update.used: Invalid JSON: NaN is not JSON",
}

# The bindings' error for each refused update: its type, the field, the problem's first words.
ERRORS = {
    3: ("string_type", "update.messageId", "Input should be a valid string"),
    5: (
        "union_tag_invalid",
        "update.sessionUpdate",
        "Input tag 'kind_from_2030' found using 'sessionUpdate' does not match any of the "
        "expected tags",
    ),
    6: ("missing", "update.messageId", "Field required"),
    7: ("dict_type", "update.content", "Input should be an object"),
    9: (
        "json_integer",
        "update.used",
        "Input should be a JSON integer >= 0 and <= 18446744073709551615",
    ),
    12: ("json_invalid", "update.used", "Invalid JSON"),  # located by the bridge: JSON says ()
}


class SlowClient:
    """An acp Client whose `session_update` awaits: long for a tool call, briefly else."""

    def __init__(self) -> None:
        self.started: list[int] = []
        self.finished: list[int] = []

    async def session_update(self, session_id: str, update: Any, **meta: Any) -> None:
        self.started.append(meta["seq"])
        await asyncio.sleep(0.3 if update.session_update == "tool_call" else 0.01)
        self.finished.append(meta["seq"])


def _seq(value: Any) -> int:
    if isinstance(value, UndecodableUpdate):
        return int(value.params["_meta"]["seq"])
    return int(value.meta["seq"])


async def _mixed_turn(client: SlowClient, received: list[Any], store: TranscriptStore) -> Any:
    async def on_update(value: Any, entry: Any) -> None:
        if _seq(value) % 3 == 0:  # the application takes its time too, now and then
            await asyncio.sleep(0.05)
        received.append(value)

    env = {key: os.environ[key] for key in ("PYTHONPATH",) if key in os.environ}
    wire: list[int] = []

    def record(event: Any) -> None:
        message = event.message
        if event.direction.value == "incoming" and message.get("method") == "session/update":
            wire.append(message["params"]["_meta"]["seq"])

    async with acp.spawn_agent_process(
        client, sys.executable, str(AGENT), env=env, observers=[record]
    ) as (connection, process):
        UpdateReceiver(on_update, store=store).attach(connection, process=process)
        await connection.initialize(protocol_version=1)
        session = await connection.new_session(cwd=str(AGENT.parent))
        response = await connection.prompt(
            session_id=session.session_id, prompt=[acp.text_block("mixed")]
        )
        for _ in range(1000):  # the application's last calls may still be running
            if len(received) >= len(MIXED) and len(client.finished) >= len(ACP_READS):
                break
            await asyncio.sleep(0.01)
    assert process.stderr is not None
    assert await process.stderr.read() == b""
    assert wire == list(range(len(MIXED)))  # the agent wrote them in this order
    return response


def test_every_update_reaches_on_update_once_in_wire_order_whatever_awaits(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    client, received, store = SlowClient(), [], TranscriptStore("v1")
    response = asyncio.run(asyncio.wait_for(_mixed_turn(client, received, store), timeout=60))
    assert response.stop_reason == "end_turn"

    # Exactly once each, in the order the agent sent them, the tool call that the Client
    # handles slowly included; decoded, or as an UndecodableUpdate with the params as sent.
    assert [_seq(value) for value in received] == list(range(len(MIXED)))
    refused = {3, 5, 6, 7, 9, 12}
    for seq, value in enumerate(received):
        assert isinstance(value, UndecodableUpdate) is (seq in refused)
        if seq in refused:
            assert value.params["update"] == json.loads(json.dumps(MIXED[seq][1]))
    # ... and with the bindings' one error: its type, and the field and problem it names.
    for seq in sorted(refused):
        value = received[seq]
        assert isinstance(value.error, ValidationError) and value.error.error_count() == 1
        assert value.error.errors()[0]["type"] == ERRORS[seq][0], seq
        assert (value.field, value.problem.split(":")[0]) == ERRORS[seq][1:], seq
        assert value.session_id == "sess-parent"
        assert value.kind == MIXED[seq][1]["sessionUpdate"]
    assert received[5].unknown_kind and received[5].kind == "kind_from_2030"
    assert not any(received[seq].unknown_kind for seq in refused - {5})
    # acp's Client got what acp's models read, starting them in wire order, as acp's models.
    assert client.started == ACP_READS and sorted(client.finished) == ACP_READS
    # The store holds the session messages that decoded: the upsert and two chunks.
    entry = store.entry("sess-parent", "o1")
    assert entry is not None and len(entry.content) == 2

    # One WARNING line per refused update, naming the field; no traceback, no error.
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == len(REPORTED)
    for record, (seq, text) in zip(warnings, sorted(REPORTED.items()), strict=True):
        assert record.levelno == logging.WARNING and record.name == "acp_schema.acp_bridge"
        assert text in record.getMessage(), (seq, record.getMessage())
        assert "\n" not in record.getMessage()
    assert [r.getMessage() for r in caplog.records if r.exc_info or r.exc_text] == []


@pytest.mark.parametrize(
    ("prompt", "returncode", "how"),
    [("exit 3", 3, "exited with status 3"), ("kill", -9, "was killed by signal 9 (SIGKILL)")],
)
def test_a_request_after_the_agent_died_says_how_it_ended(
    prompt: str, returncode: int, how: str
) -> None:
    received: list[Any] = []

    async def talk() -> list[AgentExitedError]:
        env = {key: os.environ[key] for key in ("PYTHONPATH",) if key in os.environ}
        errors: list[AgentExitedError] = []
        client = RecordingClient()
        async with acp.spawn_agent_process(client, sys.executable, str(AGENT), env=env) as (
            connection,
            process,
        ):
            UpdateReceiver(lambda value, entry: received.append(value)).attach(
                connection, process=process
            )
            await connection.initialize(protocol_version=1)
            session = await connection.new_session(cwd=str(AGENT.parent))
            for text in (prompt, "again"):  # during the turn, then on a closed connection
                with pytest.raises(AgentExitedError) as caught:
                    await connection.prompt(
                        session_id=session.session_id, prompt=[acp.text_block(text)]
                    )
                errors.append(caught.value)
            with pytest.raises(AgentExitedError):
                await connection.cancel(session_id=session.session_id)
            assert process.returncode == returncode
        return errors

    errors = asyncio.run(asyncio.wait_for(talk(), timeout=60))
    for error in errors:
        assert isinstance(error, ConnectionError)
        assert (error.returncode, error.method) == (returncode, "session/prompt")
        assert str(error) == f"session/prompt: the agent process {error.pid} {how}"
    # What the agent sent before it died was received (acp 0.12.0 may not have handled it
    # before the prompt failed; the connection delivers what it read before it closed).
    assert [value.update.message_id for value in received] == ["last-words"]
