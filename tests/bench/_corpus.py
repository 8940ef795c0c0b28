"""The realistic corpus of the benchmarks: whole `session/update` messages as an agent
streams them, with realistic text lengths (docs/performance.md, "Corpora").

- text chunks of 10-400 words (agent, thought and user), now and then with code, markdown,
  quotes, non-ASCII text or an embedded resource;
- tool calls with raw input (paths, commands, patterns) and tool call updates with raw output
  (command output of 1-60 lines, a diff that mentions `Number.isNaN` now and then);
- plans of 1-8 entries, config option updates with a `select` option (the mode and model
  pickers) beside a boolean, usage and session info updates;
- session messages between sessions (who sent what to whom), as the revision adds them.

Every message is valid for its version (`lines` checks each one with the models). The
short-text corpus of `tests/bench/bindings.py` (1-12-word texts) is kept beside it.
"""

from __future__ import annotations

import json
import random
from typing import Any

COUNT = 20_000

_VOCABULARY = """
the agent reads file and runs tests then checks whether output matches expected value
function returns None when input is empty list so we add guard before loop update config
parser handles nested keys import module refactor class method rename variable fix failing
case TypeError KeyError stack trace line column path src/app/main.py tests/test_api.py
README.md `pytest` `git diff` café naïve 東京 — first second next finally however because
"quoted" it's
"""
_WORDS = _VOCABULARY.split()
_COMMANDS = ["pytest -q tests/", "npm run build", "git status", "rg -n TODO src", "make lint"]
_PATHS = [f"/home/dev/project/src/{name}.py" for name in ("main", "api", "config", "db", "cli")]


def words(rng: random.Random, low: int, high: int) -> str:
    """`low`-`high` words, with a line break or a code fence now and then."""
    out = []
    for i in range(rng.randint(low, high)):
        out.append(rng.choice(_WORDS))
        if i and rng.random() < 0.03:
            out.append("\n\n" if rng.random() < 0.5 else "\n```python\n")
    return " ".join(out)


def _text(rng: random.Random) -> dict[str, Any]:
    return {"type": "text", "text": words(rng, 10, 400)}


def _block(rng: random.Random) -> dict[str, Any]:
    """Mostly text; now and then a file embedded by the user, or a link to one."""
    roll = rng.random()
    if roll < 0.05:
        resource = {"uri": f"file://{rng.choice(_PATHS)}", "text": _output(rng, 40)}
        resource["mimeType"] = "text/x-python"
        return {"type": "resource", "resource": resource}
    if roll < 0.08:
        return {"type": "resource_link", "uri": f"file://{rng.choice(_PATHS)}", "name": "main.py"}
    return _text(rng)


def _output(rng: random.Random, most: int) -> str:
    lines = []
    for _ in range(rng.randint(1, most)):
        line = words(rng, 3, 14)
        if rng.random() < 0.02:
            line = "-  if (Number.isNaN(value)) return null;  // " + line
        lines.append(line)
    return "\n".join(lines)


def _raw_input(rng: random.Random) -> dict[str, Any]:
    roll = rng.random()
    if roll < 0.4:
        return {"command": rng.choice(_COMMANDS), "cwd": "/home/dev/project", "timeout": 120}
    if roll < 0.7:
        return {"path": rng.choice(_PATHS), "offset": rng.randint(1, 400), "limit": 200}
    return {"pattern": rng.choice(_WORDS), "glob": "**/*.py", "caseSensitive": False}


def _config_options(version: str, rng: random.Random) -> list[dict[str, Any]]:
    key = "id" if version == "v1" else "configId"
    models = [{"value": f"model-{i}", "name": f"Model {i}", "description": words(rng, 3, 12)}
              for i in range(rng.randint(2, 6))]  # fmt: skip
    return [
        {"type": "select", key: "model", "name": "Model", "category": "model",
         "currentValue": models[0]["value"], "options": models},
        {"type": "select", key: "mode", "name": "Mode", "category": "mode",
         "currentValue": "code", "options": [{"value": "code", "name": "Code"},
                                             {"value": "ask", "name": "Ask"}]},
        {"type": "boolean", key: "thinking", "name": "Thinking", "currentValue": True},
    ]  # fmt: skip


def _plan(version: str, rng: random.Random) -> dict[str, Any]:
    entries = [
        {"content": words(rng, 4, 16), "priority": rng.choice(["high", "medium", "low"]),
         "status": rng.choice(["pending", "in_progress", "completed"])}
        for _ in range(rng.randint(1, 8))
    ]  # fmt: skip
    if version == "v1":
        return {"sessionUpdate": "plan", "entries": entries}
    return {
        "sessionUpdate": "plan_update",
        "plan": {"type": "items", "planId": "p1", "entries": entries},
    }


def _tool_call(version: str, rng: random.Random, call: str) -> dict[str, Any]:
    kind = rng.choice(["read", "edit", "execute", "search"])
    title = f"{kind} {rng.choice(_PATHS)}"
    update = {"toolCallId": call, "title": title, "kind": kind, "status": "pending"}
    update |= {"rawInput": _raw_input(rng), "locations": [{"path": rng.choice(_PATHS)}]}
    update["sessionUpdate"] = "tool_call" if version == "v1" else "tool_call_update"
    return update


def _tool_result(version: str, rng: random.Random, call: str) -> dict[str, Any]:
    output = _output(rng, 60)
    update: dict[str, Any] = {"sessionUpdate": "tool_call_update", "toolCallId": call}
    update["status"] = rng.choice(["completed", "completed", "failed"])
    update["rawOutput"] = {"stdout": output, "exitCode": rng.choice([0, 0, 1])}
    content = {"type": "content", "content": {"type": "text", "text": output}}
    if version == "v1" and rng.random() < 0.3:
        content = {"type": "diff", "path": rng.choice(_PATHS), "oldText": _output(rng, 12),
                   "newText": _output(rng, 12)}  # fmt: skip
    update["content"] = [content]
    return update


def update(version: str, rng: random.Random, i: int) -> dict[str, Any]:
    """One update, in roughly the proportions of an agent's stream (mostly chunks)."""
    roll, message = rng.random(), f"m{i // 30}"
    call = f"call-{i // 6}"
    if roll < 0.55:
        kind = rng.choice(["agent_message_chunk"] * 4 + ["agent_thought_chunk"] * 2 +
                          ["user_message_chunk"])  # fmt: skip
        block = _block(rng) if kind == "user_message_chunk" else _text(rng)
        return {"sessionUpdate": kind, "messageId": message, "content": block}
    if roll < 0.67:
        return _tool_call(version, rng, call)
    if roll < 0.80:
        return _tool_result(version, rng, call)
    if roll < 0.86:
        return _plan(version, rng)
    if roll < 0.92:
        return {
            "sessionUpdate": "session_message", "messageId": f"s{i}",
            "senderSessionId": "parent", "recipientSessionId": f"child-{i % 3}",
            "recipientMessageId": f"r{i}", "content": [_text(rng)],
        }  # fmt: skip
    if roll < 0.94:
        return {"sessionUpdate": "config_option_update",
                "configOptions": _config_options(version, rng)}  # fmt: skip
    if roll < 0.97:
        cost = {"amount": round(rng.random(), 4), "currency": "USD"}
        used = rng.randint(1000, 190000)
        return {"sessionUpdate": "usage_update", "used": used, "size": 200000, "cost": cost}
    return {"sessionUpdate": "session_info_update", "title": words(rng, 2, 8),
            "updatedAt": "2026-03-01T12:00:00Z"}  # fmt: skip


def lines(version: str, count: int = COUNT, *, seed: str = "realistic") -> list[bytes]:
    """`count` whole `session/update` messages of `version`, as JSON lines."""
    rng = random.Random(f"{seed}-{version}")
    return [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"sessionId": f"sess-{i % 8}", "update": update(version, rng, i)},
            },
            ensure_ascii=False,
        ).encode()
        for i in range(count)
    ]
