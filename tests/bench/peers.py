"""The speed targets against the peers, in one run: `python -m tests.bench peers`.

1. Decode of whole `session/update` messages, as a multiple of `json.loads` on the same
   lines: the fast path (an envelope Struct over the generated notification, as
   tests/bench/_fast_path.py), the models (`model_validate_json` of an envelope model),
   the `acp` package's models (0.12.1) and `orjson.loads`; results discarded and kept (the
   cyclic collector on, as programs run). On the v1 lines acp decodes to the same JSON value
   (`bindings.acp_subset`), of the realistic corpus (tests/bench/_corpus.py) and the short
   one (1-12-word texts, tests/bench/bindings.py). Target: models kept >= acp kept.
2. `METHODS.decode` of the same whole messages (both versions, both corpora), as a multiple
   of `json.loads`. Target: >= 2.0.
3. Import: CPU of a fresh interpreter that imports a model class, over a bare interpreter's;
   the notification (`_notifications.py` alone), a request (all the models) and `acp.schema`;
   and the first decode after it. Target: the notification <= 100 ms.

Every row is interleaved with its baseline and the peers (round by round), best of several,
CPU time: a loaded machine moves the ratios little. The GC-tracked objects and collector
allocations one kept message leaves are printed too: they are where kept decode goes.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import resource
import subprocess
import sys
import tempfile
from collections.abc import Callable

from tests.bench import _corpus
from tests.bench._fast_path import V1Envelope
from tests.bench.bindings import (
    V1Message,
    acp_message_type,
    acp_subset,
    best_of,
    bytecode_env,
    discard,
    keep,
    lines,
    tracked_per_message,
)

REPEAT = 7
IMPORT_ROUNDS = 9
REALISTIC = 10_000

try:
    import orjson
except ImportError:  # the bench session installs it; elsewhere the column is left out
    orjson = None


def allocations_per_message(decode: Callable[[bytes], object], data: list[bytes]) -> float:
    """Objects the collector counts (tracked or not) that one kept message leaves: what
    fills its generations, and so how often it runs."""
    sample = data[:2000]
    gc.collect()
    gc.disable()
    try:
        before = gc.get_count()[0]
        kept = [decode(line) for line in sample]
        added = gc.get_count()[0] - before
    finally:
        gc.enable()
    del kept
    return added / len(sample)


def peers_table() -> dict[str, float]:
    """The decode table; returns `<corpus> <how>: models x acp` ratios."""
    theirs = acp_message_type().model_validate_json
    decoders: dict[str, Callable[[bytes], object]] = {
        "fast path": V1Envelope.decode_json,
        "models": V1Message.model_validate_json,
        "acp 0.12.1": theirs,
    }
    if orjson is not None:
        decoders["orjson"] = orjson.loads
    corpora = {
        "realistic": acp_subset(_corpus.lines("v1", REALISTIC)),
        "short": acp_subset(lines("v1", acp_subset=True)),
    }
    print("\ndecode of whole session/update messages, x json.loads on the same lines")
    print(f"(v1 lines acp decodes to the same JSON value; CPU time, best of {REPEAT},")
    print(" interleaved; kept = the results kept, the cyclic collector on)")
    print(f"{'corpus, results':22}" + "".join(f"{name:>12}" for name in decoders))
    found: dict[str, float] = {}
    for label, data in corpora.items():
        for decode in decoders.values():
            decode(data[0])  # validators and decoders built outside the timing
        runs: dict[str, Callable[[], object]] = {}
        for how, wrap in (("discarded", discard), ("kept", keep)):
            runs[f"json.loads {how}"] = wrap(json.loads, data)
            for name, decode in decoders.items():
                runs[f"{name} {how}"] = wrap(decode, data)
        timed = best_of(runs, repeat=REPEAT)
        for how in ("discarded", "kept"):
            base = timed[f"json.loads {how}"]
            cells = "".join(f"{base / timed[f'{name} {how}']:12.2f}" for name in decoders)
            print(f"{label + ', ' + how + f' ({len(data):,})':22}{cells}")
            found[f"{label} {how}"] = timed[f"acp 0.12.1 {how}"] / timed[f"models {how}"]
    print("per kept message (short corpus):  tracked objects / collector allocations")
    data = corpora["short"]
    for name in ("models", "acp 0.12.1"):
        tracked = tracked_per_message(decoders[name], data)
        counted = allocations_per_message(decoders[name], data)
        print(f"  {name:12} {tracked:5.1f} / {counted:5.1f}")
    return found


def methods_table() -> dict[str, float]:
    """`METHODS.decode` x json.loads; returns `<version> <corpus> <how>` ratios."""
    found: dict[str, float] = {}
    print("\nMETHODS.decode of whole session/update messages, x json.loads (target >= 2.0)")
    for version in ("v1", "v2"):
        decode = importlib.import_module(f"acp_schema.{version}.methods").METHODS.decode
        for label, data in (
            ("realistic", _corpus.lines(version, REALISTIC)),
            ("short", lines(version)),
        ):
            decode(data[0])
            timed = best_of(
                {
                    "loads discarded": discard(json.loads, data),
                    "decode discarded": discard(decode, data),
                    "loads kept": keep(json.loads, data),
                    "decode kept": keep(decode, data),
                },
                repeat=REPEAT,
            )
            cells = []
            for how in ("discarded", "kept"):
                ratio = timed[f"loads {how}"] / timed[f"decode {how}"]
                found[f"{version} {label} {how}"] = ratio
                cells.append(f"{how} {ratio:5.2f}")
            print(f"  {version} {label:10} " + "   ".join(cells))
    return found


_UPDATE = '{"sessionUpdate": "agent_message_chunk", %s"content": {"type": "text", "text": "hi"}}'
_MESSAGE = '{"sessionId": "s", "update": %s}' % (_UPDATE % '"messageId": "m", ')
_ACP_MESSAGE = '{"sessionId": "s", "update": %s}' % (_UPDATE % "")  # acp 0.12 has no IDs
_FIRST = "M.model_validate_json({!r})"
IMPORTS = {
    "bare interpreter": "pass",
    "v1 notification": "from acp_schema.v1 import SessionNotification as M",
    "v2 notification": "from acp_schema.v2 import UpdateSessionNotification as M",
    "v2 request (all models)": "from acp_schema.v2 import PromptRequest",
    "acp.schema": "import acp.schema",
    "v2 notification + 1st decode": "from acp_schema.v2 import UpdateSessionNotification as M\n"
    + _FIRST.format(_MESSAGE),
    "v2 all models + 1st decode": "import acp_schema.v2._models\n"
    "from acp_schema.v2 import UpdateSessionNotification as M\n" + _FIRST.format(_MESSAGE),
    "acp.schema + 1st decode": "from acp.schema import SessionNotification as M\n"
    + _FIRST.format(_ACP_MESSAGE),
}


def _child_cpu(statement: str, env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", statement], check=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def import_table() -> dict[str, float]:
    """CPU ms over a bare interpreter, best of `IMPORT_ROUNDS` interleaved rounds, with the
    modules compiled beforehand (as an installed package has them)."""
    best = dict.fromkeys(IMPORTS, float("inf"))
    with tempfile.TemporaryDirectory(prefix="acp-schema-bench-") as cache:
        env = bytecode_env(cache)
        for statement in IMPORTS.values():  # compiles every module they import
            _child_cpu(statement, env)
        for _ in range(IMPORT_ROUNDS):
            for name, statement in IMPORTS.items():
                best[name] = min(best[name], _child_cpu(statement, env))
    bare = best.pop("bare interpreter")
    found = {name: (value - bare) * 1000 for name, value in best.items()}
    print(f"\nimport, CPU ms of a fresh interpreter over a bare one ({bare * 1000:.0f} ms),")
    print(f"best of {IMPORT_ROUNDS} interleaved rounds, compiled bytecode")
    for name, ms in found.items():
        print(f"  {name:32} {ms:7.1f}")
    return found


def main() -> None:
    decode = peers_table()
    methods = methods_table()
    imports = import_table()
    print("\ntargets")
    for key, ratio in decode.items():
        print(f"  models x acp 0.12.1, {key:20} {ratio:5.2f}  (>= 1.0: {_yes(ratio >= 1.0)})")
    for key, ratio in methods.items():
        print(f"  METHODS.decode x json.loads, {key:24} {ratio:5.2f}  (>= 2.0: {_yes(ratio >= 2)})")
    for version in ("v1", "v2"):
        ms = imports[f"{version} notification"]
        print(f"  import of the {version} notification {ms:6.1f} ms  (<= 100: {_yes(ms <= 100)})")
    saved = imports["v2 request (all models)"] - imports["v2 notification"]
    slower = imports["v2 notification + 1st decode"] - imports["v2 notification"]
    alone = imports["v2 all models + 1st decode"] - imports["v2 request (all models)"]
    print(f"  v2: the part saves {saved:.1f} ms of import; its first decode {slower:.1f} ms,")
    print(f"      {alone:.1f} ms with all the models loaded (not slower by more than saved:"
          f" {_yes(slower - alone <= saved)})")  # fmt: skip
    print(f"\n(cpu count {os.cpu_count()}, load average {os.getloadavg()[0]:.1f})")


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"
