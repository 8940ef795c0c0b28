"""What acp's own transport does with a line Python's `json` cannot parse (an integer of more
than 4,300 digits, nesting deeper than the interpreter's recursion limit allows), over real
stdio pipes: acp 0.12 logs it on the root logger and skips it before any hook the bridge
has sees it; lifting the interpreter's limits in the client process, as docs/acp-sdk.md
says, lets the line through to the receiver, which decodes or refuses it as any other."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

acp = pytest.importorskip("acp", reason="agent-client-protocol (the acp extra) is not installed")

from acp_schema.acp_bridge import UndecodableUpdate, UpdateReceiver  # noqa: E402

DEPTH = 990  # past what `json.loads` reaches under the default recursion limit of 1,000
# From 3.12 the JSON parser's depth is bounded by the interpreter's C recursion limit
# instead, which 990 levels do not reach: acp then parses the deep line.
DEEP_SKIPPED = sys.version_info < (3, 12)
DIGITS = 5000  # past the default limit of 4,300 digits


def _update(message_id: str, meta: str = "{}") -> str:
    return (
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":'
        f'{{"sessionUpdate":"session_message","messageId":"{message_id}","_meta":{meta}}}}}}}'
    )


LINES = [
    _update("before"),
    _update("bigint", '{"n":' + "9" * DIGITS + "}"),
    _update("deep", '{"d":' + "[" * DEPTH + "]" * DEPTH + "}"),
    _update("after"),
]

PEER = """
import json, sys
LINES = json.loads(sys.argv[1])
def write(line):
    sys.stdout.write(line + "\\n")
    sys.stdout.flush()
for line in sys.stdin:
    request = json.loads(line)
    method, ident = request["method"], request.get("id")
    if method == "initialize":
        write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": {"protocolVersion": 1}}))
    elif method == "session/new":
        write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": {"sessionId": "s1"}}))
    elif method == "session/prompt":
        for update in LINES:
            write(update)
        write(json.dumps({"jsonrpc": "2.0", "id": ident, "result": {"stopReason": "end_turn"}}))
"""


class Client:
    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        pass


def _received(tmp_path: Path) -> list[str]:
    """What `on_update` gets for the peer's four lines: message ids, or `undecodable`."""
    peer = tmp_path / "peer.py"
    peer.write_text(PEER)
    received: list[str] = []

    def on_update(update: Any, entry: Any) -> None:
        if isinstance(update, UndecodableUpdate):
            received.append(f"undecodable {update.field}")
        else:
            received.append(update.update.message_id)

    async def talk() -> None:
        command = (sys.executable, str(peer), json.dumps(LINES))
        async with acp.spawn_agent_process(Client(), *command) as (conn, process):
            UpdateReceiver(on_update).attach(conn, process=process)
            await conn.initialize(protocol_version=1)
            session = await conn.new_session(cwd=".")
            await conn.prompt(session_id=session.session_id, prompt=[acp.text_block("go")])
            for _ in range(50):  # let the last notifications' tasks run
                await asyncio.sleep(0)

    asyncio.run(asyncio.wait_for(talk(), timeout=30))
    return received


def test_acps_transport_skips_a_line_json_cannot_parse_before_the_bridge_sees_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # As docs/acp-sdk.md says: nothing reaches on_update, acp logs one ERROR per line.
    with caplog.at_level(logging.ERROR):
        received = _received(tmp_path)
    assert received == ["before", "after"] if DEEP_SKIPPED else ["before", "deep", "after"]
    parsing = [r for r in caplog.records if r.getMessage() == "Error parsing JSON-RPC message"]
    errors = ["ValueError", "RecursionError"] if DEEP_SKIPPED else ["ValueError"]
    assert [r.name for r in parsing] == ["root"] * len(errors)
    assert [type(r.exc_info[1]).__name__ for r in parsing if r.exc_info] == errors


def test_with_the_interpreters_limits_lifted_the_lines_reach_on_update(tmp_path: Path) -> None:
    digits, depth = sys.get_int_max_str_digits(), sys.getrecursionlimit()
    sys.set_int_max_str_digits(0)
    sys.setrecursionlimit(DEPTH * 5)
    try:
        received = _received(tmp_path)
    finally:
        sys.set_int_max_str_digits(digits)
        sys.setrecursionlimit(depth)
    # The bindings refuse so long an integer (README, "Limits"), as an UndecodableUpdate
    # now; the deep one decodes.
    assert received == ["before", "undecodable params", "deep", "after"]
