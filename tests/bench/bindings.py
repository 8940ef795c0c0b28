"""Binding benchmark: decode/encode of mixed session/update notifications, import time, and
the cost of a regeneration against the datamodel-code-generator runs inside it.

Everything is measured side by side in one run and reported as ratios:
decode >= 0.8x `json.loads` (v1, v2), >= 1.5x the `acp` package's models (v1 shapes they
accept), regeneration <= 1.3x its datamodel-code-generator runs.
"""

from __future__ import annotations

import gc
import json
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from acp_schema import v1, v2
from acp_schema._runtime import AcpModel
from acp_schema.codegen import generate as generator
from acp_schema.codegen.bundled import bundled_schema
from acp_schema.codegen.schema_check import load_schema

COUNT = 10_000
REPEAT = 5


class V1Message(AcpModel):
    """A whole session/update JSON-RPC message, as a Client decodes it after routing."""

    jsonrpc: Literal["2.0"]
    method: Literal["session/update"]
    params: v1.SessionNotification


class V2Message(AcpModel):
    jsonrpc: Literal["2.0"]
    method: Literal["session/update"]
    params: v2.UpdateSessionNotification


def _text(rng: random.Random) -> dict[str, Any]:
    return {"type": "text", "text": " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))}


WORDS = ["the", "agent", "reads", "file", "src/main.py", "and", "runs", "tests", "ok", "fix"]


def updates(version: str, rng: random.Random, *, acp_subset: bool) -> list[dict[str, Any]]:
    """Mixed updates in roughly the proportions of a real stream (mostly chunks)."""
    out: list[dict[str, Any]] = []
    for i in range(COUNT):
        roll = rng.random()
        mid = f"m{i // 20}"
        if roll < 0.55:
            kind = rng.choice(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"])
            update = {"sessionUpdate": kind, "content": _text(rng), "messageId": mid}
        elif roll < 0.70:
            update = {"sessionUpdate": "tool_call_update", "toolCallId": f"t{i % 50}"}
            update["status"] = rng.choice(["pending", "in_progress", "completed"])
        elif roll < 0.80 and version == "v1":
            entries = [
                {"content": "step", "priority": "medium", "status": "pending"}
                for _ in range(rng.randint(1, 4))
            ]
            update = {"sessionUpdate": "plan", "entries": entries}
        elif roll < 0.80:
            update = {"sessionUpdate": "agent_message", "messageId": mid, "content": [_text(rng)]}
        elif acp_subset:
            update = {"sessionUpdate": "session_info_update", "title": "Session title"}
        elif roll < 0.90:
            update = {
                "sessionUpdate": "session_message",
                "messageId": f"s{i}",
                "senderSessionId": "parent",
                "recipientSessionId": "child",
                "recipientMessageId": f"r{i}",
            }
        else:
            update = {"sessionUpdate": "session_message_chunk", "messageId": f"s{i}"}
            update["content"] = _text(rng)
        out.append(update)
    return out


def lines(version: str, *, acp_subset: bool = False) -> list[bytes]:
    rng = random.Random(f"bench-{version}-{acp_subset}")
    return [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"sessionId": f"sess-{i % 50}", "update": update},
            }
        ).encode()
        for i, update in enumerate(updates(version, rng, acp_subset=acp_subset))
    ]


def rate(run: Callable[[], object], *, collect: bool = False) -> float:
    """Messages per second: best of REPEAT runs over the whole corpus (least disturbed).

    Like `timeit`, the cyclic garbage collector is off while timing, for every contender:
    models are GC-tracked objects and plain dicts of scalars are not, so with the collector
    on, the figure mostly measures how many objects happen to be alive. `collect=True`
    measures with it on, for the record.
    """
    best = float("inf")
    for _ in range(REPEAT):
        gc.collect()
        if not collect:
            gc.disable()
        try:
            start = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - start)
        finally:
            gc.enable()
    return COUNT / best


def decode_rates(version: str, model: type[BaseModel], data: list[bytes]) -> dict[str, float]:
    validate = model.model_validate_json
    decoded = [validate(line) for line in data]
    parsed = [json.loads(line) for line in data]
    # the decoded models must encode to exactly what they came from
    assert all(json.loads(m.model_dump_json()) == p for m, p in zip(decoded, parsed, strict=True))
    return {
        "json.loads": rate(lambda: [json.loads(line) for line in data]),
        f"{version} decode": rate(lambda: [validate(line) for line in data]),
        f"{version} decode, GC on": rate(lambda: [validate(line) for line in data], collect=True),
        "json.dumps": rate(lambda: [json.dumps(p) for p in parsed]),
        f"{version} encode": rate(lambda: [m.model_dump_json() for m in decoded]),
    }


def acp_rates(data: list[bytes]) -> dict[str, float]:
    from acp import schema as acp_schema_models

    class AcpMessage(BaseModel):
        jsonrpc: Literal["2.0"]
        method: Literal["session/update"]
        params: acp_schema_models.SessionNotification

    validate = AcpMessage.model_validate_json
    decoded = [validate(line) for line in data]
    return {
        "acp decode": rate(lambda: [validate(line) for line in data]),
        "acp encode": rate(
            lambda: [m.model_dump_json(by_alias=True, exclude_none=True) for m in decoded]
        ),
    }


def import_seconds(module: str) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    runs = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(3)
    ]
    return min(runs)


def regeneration() -> tuple[float, float, float]:
    """Seconds for: both datamodel-codegen runs alone, both renders one after the other,
    and both renders as `acp-schema generate` does them (in parallel processes)."""
    schemas = [bundled_schema(v) for v in ("v1", "v2")]
    prepared = [generator.prepass(load_schema(s)).schema for s in schemas]
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        for schema in prepared:
            generator._run_codegen(schema, "# bench", Path(tmp))
        codegen = time.perf_counter() - start
    start = time.perf_counter()
    for schema_path in schemas:
        generator.render(schema_path)
    sequential = time.perf_counter() - start
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=2) as pool:
        list(pool.map(generator.render, schemas))
    parallel = time.perf_counter() - start
    return codegen, sequential, parallel


def main() -> None:
    print(f"{COUNT} mixed session/update messages per corpus, best of {REPEAT}")
    rows: list[tuple[str, float, float]] = []
    for version, model in (("v1", V1Message), ("v2", V2Message)):
        found = decode_rates(version, model, lines(version))
        base = found["json.loads"]
        rows += [(f"{version}: {name}", value, value / base) for name, value in found.items()]
    subset = lines("v1", acp_subset=True)
    ours = decode_rates("v1", V1Message, subset)
    theirs = acp_rates(subset)
    print(f"\n{'what':38} {'msg/s':>12} {'x json.loads':>13}")
    for name, value, ratio in rows:
        print(f"{name:38} {value:12,.0f} {ratio:13.2f}")
    print(f"\nv1 shapes the acp models accept ({len(subset)} messages)")
    for name in ("v1 decode", "v1 encode"):
        print(f"{'ours: ' + name:38} {ours[name]:12,.0f}")
    for name, value in theirs.items():
        print(f"{name:38} {value:12,.0f}")
    decode_vs_acp = ours["v1 decode"] / theirs["acp decode"]
    encode_vs_acp = ours["v1 encode"] / theirs["acp encode"]
    print(f"decode x acp: {decode_vs_acp:.2f} (target >= 1.5); encode x acp: {encode_vs_acp:.2f}")
    for version in ("v1", "v2"):
        ratio = next(r for n, _, r in rows if n == f"{version}: {version} decode")
        print(f"{version} decode x json.loads: {ratio:.2f} (target >= 0.8)")
    for module in ("acp_schema.v1", "acp_schema.v2", "acp.schema"):
        print(f"import {module}: {import_seconds(module) * 1000:.0f} ms")
    codegen, sequential, parallel = regeneration()
    print(f"datamodel-codegen runs for v1+v2: {codegen:.2f} s")
    print(f"regeneration, versions in turn: {sequential:.2f} s = {sequential / codegen:.2f}x")
    ratio = parallel / codegen
    print(f"regeneration as `acp-schema generate` runs it: {parallel:.2f} s = {ratio:.2f}x")
    print("  (target <= 1.3x)")


if __name__ == "__main__":
    main()
