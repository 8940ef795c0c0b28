"""Transcript store throughput: raw JSON lines -> decode + apply + link, against decode alone.

The log is generated deterministically (seeded): 50 transcripts, session messages whose
outgoing and incoming views are streamed as chunks, with participants and references sent
up front or late by metadata-only upserts, whole snapshots, `_meta` patches, a few views
never reported (pending links) or with disagreeing references (conflicts), and other
session/update kinds mixed in. Both sides read the same bytes in the same run:

- decode only: the v2 bindings' `UpdateSessionNotification` inside a JSON-RPC envelope
  model defined here, `model_validate_json` per line;
- store: `TranscriptStore("v2").apply(line)` then `link()` of the entry it touched (the
  store decodes with the fast Structs first; a context row shows it with the models only,
  as it was before the fast path).

Second part, `acp-schema transcript show` end to end: a log of 1,000,000 lines, 90% of them
other update kinds (agent and thought chunks, plans), written to a temporary directory,
read by the command in a subprocess (text and `--json`, output to a pipe) beside a
subprocess that only runs `json.loads` over the same lines. It reports time to the first
output line, total time and peak memory (the child's own peak resident set), and the ratios to
the `json.loads` run. The children use bytecode compiled beforehand into the temporary
directory, as an installed package has it; two context rows compile this project's modules
from source at start instead, as this editable checkout does under PYTHONDONTWRITEBYTECODE.

Target: the store runs at >= 0.5x the decode-only rate. Two context rows help read the
ratio: decoding while keeping every session message's content blocks alive (the least any
store that holds the decoded content pays: allocation and cyclic-GC work grow with what is
kept, which decode-only never pays), and the store with the cyclic collector paused
(a diagnostic of how much of the gap is collector work, not a way to run). Peak memory
comes from separate tracemalloc runs (tracing slows everything, so it is not timed).
"""

from __future__ import annotations

import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel

from acp_schema import v2
from acp_schema.transcripts import TranscriptStore

UPDATES = 100_000
SESSIONS = 50
SEED = 20_251_130
REPEATS = 3
TARGET = 0.5

WORDS = (
    "please", "check", "the", "failing", "tests", "in", "the", "parser", "module", "and",
    "report", "back", "with", "a", "short", "summary", "of", "what", "you", "changed",
    "why", "fix", "is", "safe",
)  # fmt: skip


class SessionUpdateMessage(BaseModel):
    """A whole JSON-RPC `session/update` notification, for the decode-only baseline."""

    jsonrpc: Literal["2.0"]
    method: Literal["session/update"]
    params: v2.UpdateSessionNotification


def _text(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def _line(session_id: str, update: dict[str, Any]) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session_id, "update": update},
    }
    return json.dumps(message, separators=(",", ":")).encode()


def _view(
    rng: random.Random,
    session_id: str,
    message_id: str,
    identity: dict[str, str],
    reference: dict[str, str],
) -> list[bytes]:
    """The updates of one view, in the order the Agent sends them."""
    updates: list[dict[str, Any]] = []
    upsert = {"sessionUpdate": "session_message", "messageId": message_id}
    if rng.random() < 0.5:  # participants up front, the reference maybe late
        early = {**identity, **(reference if rng.random() < 0.5 else {})}
        updates.append({**upsert, **early})
    texts = [_text(rng, 2, 8) for _ in range(rng.randint(2, 8))]
    for text in texts:
        chunk: dict[str, Any] = {
            "sessionUpdate": "session_message_chunk",
            "messageId": message_id,
            "content": {"type": "text", "text": text},
        }
        if rng.random() < 0.1:
            chunk["_meta"] = {"seq": len(updates)}
        updates.append(chunk)
    # A metadata-only upsert: whatever identity was not sent yet (or all of it again).
    late: dict[str, Any] = {**upsert, **identity, **reference}
    if rng.random() < 0.3:
        late["_meta"] = {"trace": rng.randrange(1000), "done": None}
    updates.insert(rng.randint(1, len(updates)), late)
    if rng.random() < 0.2:  # a whole snapshot replaces the streamed content
        snapshot = [{"type": "text", "text": " ".join(texts)}]
        updates.append({**upsert, "content": snapshot})
    return [_line(session_id, u) for u in updates]


def _other(rng: random.Random, session_id: str) -> bytes:
    kind = rng.choice(("agent_message_chunk", "agent_thought_chunk", "user_message_chunk"))
    content = {"type": "text", "text": _text(rng, 2, 10)}
    update = {"sessionUpdate": kind, "messageId": f"m{rng.randrange(500)}", "content": content}
    return _line(session_id, update)


def generate_log(updates: int = UPDATES, seed: int = SEED) -> list[bytes]:
    """Deterministic raw lines: many messages' views interleaved, each in its own order."""
    rng = random.Random(seed)
    sessions = [f"sess-{n:02d}" for n in range(SESSIONS)]
    streams: list[list[bytes]] = []
    lines: list[bytes] = []
    serial = 0
    while len(lines) < updates:
        while len(streams) < 40:  # about 40 views streaming at any time
            serial += 1
            sender, recipient = rng.sample(sessions, 2)
            out_id, in_id = f"out-{serial}", f"in-{serial}"
            identity = {"senderSessionId": sender, "recipientSessionId": recipient}
            conflicting = rng.random() < 0.01
            streams.append(_view(rng, sender, out_id, identity, {"recipientMessageId": in_id}))
            if rng.random() < 0.9:  # the rest stay pending: the incoming view never comes
                named = f"out-{serial}x" if conflicting else out_id
                streams.append(_view(rng, recipient, in_id, identity, {"senderMessageId": named}))
        if rng.random() < 0.15:
            lines.append(_other(rng, rng.choice(sessions)))
            continue
        stream = rng.choice(streams)
        lines.append(stream.pop(0))
        if not stream:
            streams.remove(stream)
    return lines[:updates]


def _decode_only(lines: list[bytes]) -> None:
    validate = SessionUpdateMessage.model_validate_json
    for line in lines:
        validate(line)


def _decode_and_keep(lines: list[bytes]) -> list[object]:
    validate = SessionUpdateMessage.model_validate_json
    kept: list[object] = []
    for line in lines:
        update = validate(line).params.update
        if isinstance(update, (v2.SessionMessage, v2.SessionMessageChunk)):
            kept.append(update.content)
    return kept


def store_run(lines: list[bytes]) -> TranscriptStore:
    store = TranscriptStore("v2")
    apply, link = store.apply, store.link
    for line in lines:
        entry = apply(line)
        if entry is not None:
            link(entry.session_id, entry.message_id)
    return store


def _json_loads(lines: list[bytes]) -> None:
    loads = json.loads
    for line in lines:
        loads(line)


def store_run_models_only(lines: list[bytes]) -> TranscriptStore:
    TranscriptStore._fast_path = False
    try:
        return store_run(lines)
    finally:
        TranscriptStore._fast_path = True


def _store_run_gc_paused(lines: list[bytes]) -> TranscriptStore:
    gc.disable()
    try:
        return store_run(lines)
    finally:
        gc.enable()


def _seconds(run: Callable[[list[bytes]], object], lines: list[bytes]) -> float:
    gc.collect()
    start = time.perf_counter()
    result = run(lines)
    elapsed = time.perf_counter() - start
    del result  # freed outside the timed part, like the baselines' nothing
    return elapsed


def _peak_bytes(run: Callable[[list[bytes]], object], lines: list[bytes]) -> tuple[int, int]:
    """(peak, still held after the run) while `run` keeps its result alive."""
    gc.collect()
    tracemalloc.start()
    result = run(lines)
    current, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    return peak, current


def main() -> None:
    lines = generate_log()
    size = sum(len(line) for line in lines)
    print(
        f"{len(lines):,} session/update lines ({size / 1e6:.1f} MB), {SESSIONS} transcripts, "
        f"seed {SEED}; best of {REPEATS}"
    )
    decode, store = "decode only (v2 envelope model)", "store: decode + apply + link"
    runs: dict[str, Callable[[list[bytes]], object]] = {
        "json.loads (context)": _json_loads,
        decode: _decode_only,
        "decode + keep content (context)": _decode_and_keep,
        store: store_run,
        "store, models only (context)": store_run_models_only,
        "store, GC paused (diagnostic)": _store_run_gc_paused,
    }
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(REPEATS):  # interleaved, so that machine noise hits all sides alike
        for name, run in runs.items():
            best[name] = min(best[name], _seconds(run, lines))
    decode_rate = len(lines) / best[decode]

    print(f"\n{'what':<34} {'updates/s':>12} {'x decode':>9}")
    for name, seconds in best.items():
        rate = len(lines) / seconds
        print(f"{name:<34} {rate:>12,.0f} {rate / decode_rate:>9.2f}")

    print(f"\n{'peak memory (tracemalloc)':<34} {'peak MB':>12} {'held MB':>9}")
    for name, run in ((decode, _decode_only), ("decode + keep content", _decode_and_keep)):
        peak, held = _peak_bytes(run, lines)
        print(f"{name:<34} {peak / 1e6:>12.1f} {held / 1e6:>9.1f}")
    peak, held = _peak_bytes(store_run, lines)
    print(f"{store:<34} {peak / 1e6:>12.1f} {held / 1e6:>9.1f}")

    final = store_run(lines)
    states = Counter(
        link.state
        for entry in final
        if (link := final.link(entry.session_id, entry.message_id)) is not None
    )
    summary = ", ".join(f"{state} {count:,}" for state, count in sorted(states.items()))
    print(f"\n{len(final):,} entries in {len(final.transcripts())} transcripts: {summary}")

    ratio = best[decode] / best[store]
    verdict = "met" if ratio >= TARGET else "NOT met"
    print(f"store / decode-only = {ratio:.2f} (target >= {TARGET}: {verdict})")

    show_main()


# --- `transcript show` end to end ----------------------------------------------------------

SHOW_LINES = 1_000_000
SHOW_SESSION_MESSAGES = SHOW_LINES // 10  # the rest: other update kinds
SHOW_MEMORY_TARGET = 3.0  # the target: peak memory x the json.loads loop's

# Runs in the child: the command (or the json.loads baseline) over the log, then reports
# the child's own peak resident memory on stderr, in KiB: VmHWM where there is /proc
# (Linux carries ru_maxrss over from the parent across fork and exec), else ru_maxrss.
_CHILD = """
import json, resource, sys
def peak_kib():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
mode, path = sys.argv[1], sys.argv[2]
if mode == "import":  # what any run of the command pays before reading a line
    from acp_schema.cli import main
    from acp_schema.transcripts import TranscriptStore
    TranscriptStore("v2")
    print("done", flush=True)
    code = 0
elif mode == "json.loads":
    loads = json.loads
    with open(path, "rb") as log:
        for line in log:
            loads(line)
    print("done", flush=True)
    code = 0
else:
    from acp_schema.cli import main
    code = main(["transcript", "show", path, *(["--json"] if mode == "--json" else [])])
    sys.stdout.flush()
print("MAXRSS", peak_kib(), file=sys.stderr)
raise SystemExit(code)
"""


def _other_update(rng: random.Random, session_id: str) -> bytes:
    kind = rng.choice(("agent_message_chunk", "agent_thought_chunk", "user_message_chunk", "plan"))
    if kind == "plan":
        steps = [
            {"content": _text(rng, 2, 6), "priority": "medium", "status": "pending"}
            for _ in range(rng.randint(1, 4))
        ]
        return _line(session_id, {"sessionUpdate": "plan", "entries": steps})
    content = {"type": "text", "text": _text(rng, 2, 12)}
    return _line(session_id, {"sessionUpdate": kind, "content": content})


def write_show_logs(path: str, others_path: str, seed: int = SEED) -> int:
    """1M lines: the session messages of `generate_log`, each followed by nine updates of
    other kinds (drawn from a pool, so that generating stays quick); and the same without
    the session messages at `others_path`. Returns the size of the first."""
    rng = random.Random(seed + 1)
    sessions = [f"sess-{n:02d}" for n in range(SESSIONS)]
    pool = [_other_update(rng, rng.choice(sessions)) for _ in range(5_000)]
    others_per_message = (SHOW_LINES - SHOW_SESSION_MESSAGES) // SHOW_SESSION_MESSAGES
    with open(path, "wb") as log, open(others_path, "wb") as others:
        for line in generate_log(SHOW_SESSION_MESSAGES, seed):
            log.write(line + b"\n")
            for _ in range(others_per_message):
                other = rng.choice(pool) + b"\n"
                log.write(other)
                others.write(other)
        return log.tell()


def _run_child(mode: str, path: str, pycache: str | None = None) -> tuple[float, float, int, int]:
    """(seconds to the first output line, total seconds, peak RSS bytes, output lines).

    With `pycache`, the child reads and writes bytecode there (as an installed package has
    it, compiled at install), not in the source tree; without, it compiles every module of
    this project from source at each start (what this editable checkout does with
    PYTHONDONTWRITEBYTECODE): compiling the generated modules costs megabytes at start-up.
    """
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    if pycache is not None:
        del env["PYTHONDONTWRITEBYTECODE"]
        env["PYTHONPYCACHEPREFIX"] = pycache
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, mode, path],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert child.stdout is not None and child.stderr is not None
    first = None
    lines = 0
    for _ in child.stdout:
        if first is None:
            first = time.perf_counter() - start
        lines += 1
    stderr = child.stderr.read().decode()
    code = child.wait()
    total = time.perf_counter() - start
    if code not in (0, 1):
        raise RuntimeError(f"{mode} exited {code}: {stderr[-2000:]}")
    peak_kib = int(stderr.rsplit("MAXRSS", 1)[1].split()[0])
    return first if first is not None else total, total, peak_kib * 1024, lines


def show_main() -> None:
    with tempfile.TemporaryDirectory(prefix="acp-bench-show-") as folder:
        path, others = os.path.join(folder, "log.jsonl"), os.path.join(folder, "others.jsonl")
        size = write_show_logs(path, others)
        print(
            f"\n`transcript show` over {SHOW_LINES:,} lines ({size / 1e6:.0f} MB), "
            f"{SHOW_SESSION_MESSAGES:,} of them session messages, the rest other update "
            f"kinds; each run a fresh subprocess writing to a pipe (start-up included)"
        )
        pycache = os.path.join(folder, "pycache")
        for mode in ("import", "text", "--json"):  # fills the bytecode cache
            _run_child(mode, others, pycache)
        runs = {
            "json.loads over the lines": ("json.loads", path, pycache),
            "show": ("text", path, pycache),
            "show --json": ("--json", path, pycache),
            "start-up only (context)": ("import", path, pycache),
            "show, other kinds only": ("text", others, pycache),
            "show, compiling (context)": ("text", path, None),
            "start-up, compiling": ("import", path, None),
        }
        results = {name: _run_child(*run) for name, run in runs.items()}
    base_total, base_peak = results["json.loads over the lines"][1:3]
    print(
        f"\n{'what':<26} {'first line s':>12} {'total s':>8} {'x loads':>8} "
        f"{'peak MB':>8} {'x loads':>8} {'out lines':>10}"
    )
    for name, (first, total, peak, lines) in results.items():
        print(
            f"{name:<26} {first:>12.2f} {total:>8.2f} {total / base_total:>8.2f} "
            f"{peak / 1e6:>8.0f} {peak / base_peak:>8.2f} {lines:>10,}"
        )
    print(
        "(other kinds only: the 900,000 other lines alone; its peak beside the start-up's "
        "shows what reading lines costs in memory, without messages to keep. Every run "
        "uses bytecode compiled once beforehand, as an installed package does; the two "
        "`compiling` rows compile this project's modules from source at start, as this "
        "editable checkout does with PYTHONDONTWRITEBYTECODE)"
    )
    show_peak = max(results["show"][2], results["show --json"][2])
    met = "yes" if show_peak <= SHOW_MEMORY_TARGET * base_peak else "no"
    print(
        f"target: show peak memory x the json.loads loop's <= {SHOW_MEMORY_TARGET:.1f}:"
        f" {show_peak / base_peak:.2f} ({met}); start-up alone"
        f" {results['start-up only (context)'][2] / base_peak:.2f}"
    )
