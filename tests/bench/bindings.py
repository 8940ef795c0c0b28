"""Binding benchmark: every figure of the speed targets side by side in one run, as ratios
against baselines measured in the same run (docs/performance.md explains each row).

- decode of mixed `session/update` messages, results discarded and results kept (cyclic
  GC on, as programs run), against `json.loads` doing the same;
- encode against `json.dumps`;
- the same for the fast path (the generated msgspec Structs, `acp_schema.vN.fast`; rows
  in `tests/bench/_fast_path.py`), with the share of messages it took, corpora where some
  messages need the fallback, and `to_model()` / `from_model()` against a pydantic decode;
- import of one version's bindings and the first decode after it, now (validators built
  on first use, real annotations), as before (built at import, string annotations) and
  with the fast module (`from acp_schema.vN import fast`, its first decode);
- the transcript store (decode + apply + link) against decode alone, GC on;
- `acp-schema generate v1 v2` CPU time against bare datamodel-codegen runs.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from acp_schema import v1, v2
from acp_schema._runtime import AcpModel

COUNT = 20_000
REALISTIC_COUNT = 10_000  # longer messages: fewer of them
REPEAT = 5  # CPU time, best of: steady enough on a shared machine, and the run short
IMPORT_RUNS = 5
STORE_LINES = 100_000  # as tests/bench/transcripts.py
STORE_REPEAT = 3


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


def best_of(
    runs: dict[str, Callable[[], object]], *, collect: bool = True, repeat: int = REPEAT
) -> dict[str, float]:
    """CPU seconds of each run: best of `repeat` (the least disturbed on a shared machine),
    the runs interleaved so that machine noise hits baselines and subjects alike. CPU time
    of this process, not wall time: on a loaded machine a short run's wall time is mostly
    other processes' turns, which hit a 20 ms run and a 500 ms run very differently.

    The cyclic collector is on unless `collect=False` (a diagnostic: how much of a figure
    is collector work). A run's result, when it keeps one, is freed outside the timing.
    """
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for name, run in runs.items():
            gc.collect()
            if not collect:
                gc.disable()
            try:
                start = time.process_time()
                result = run()
                best[name] = min(best[name], time.process_time() - start)
            finally:
                gc.enable()
            del result
    return best


def seconds(run: Callable[[], object], *, repeat: int = REPEAT) -> float:
    return best_of({"": run}, repeat=repeat)[""]


def discard(decode: Callable[[bytes], object], data: list[bytes]) -> Callable[[], None]:
    def run() -> None:
        for line in data:
            decode(line)

    return run


def keep(decode: Callable[[bytes], object], data: list[bytes]) -> Callable[[], list[object]]:
    return lambda: [decode(line) for line in data]


def tracked_per_message(decode: Callable[[bytes], object], data: list[bytes]) -> float:
    """GC-tracked objects that one kept message adds (what a full collection walks)."""
    sample = data[:2000]
    gc.collect()
    before = len(gc.get_objects())
    kept = [decode(line) for line in sample]
    gc.collect()
    added = len(gc.get_objects()) - before - 1  # the list `kept`
    del kept
    return added / len(sample)


Row = tuple[str, float, float, str]  # what, messages/s, ratio, against what


def decode_rows(version: str, model: type[AcpModel], data: list[bytes]) -> list[Row]:
    validate = model.model_validate_json
    loads, dumps = json.loads, json.dumps
    # Decoding first, while no decoded model is alive: the collector's full passes walk
    # every live tracked object, so models kept from elsewhere would slow the kept runs.
    timed = best_of(
        {
            "json.loads, discarded": discard(loads, data),
            "decode, discarded": discard(validate, data),
            "json.loads, kept": keep(loads, data),
            "decode, kept": keep(validate, data),
        }
    )
    timed |= best_of(
        {
            "json.loads, kept, GC off": keep(loads, data),
            "decode, kept, GC off (diagnostic)": keep(validate, data),
        },
        collect=False,
    )
    decoded = [validate(line) for line in data]
    parsed = [json.loads(line) for line in data]
    # the decoded models must encode to exactly what they came from, by either path
    assert all(json.loads(m.model_dump_json()) == p for m, p in zip(decoded, parsed, strict=True))
    before = BaseModel.model_dump_json  # pydantic's own method, which AcpModel bypasses
    assert all(m.model_dump_json() == before(m) for m in decoded)
    timed |= best_of(
        {
            "json.dumps": lambda: [dumps(p) for p in parsed],
            "encode (model_dump_json)": lambda: [m.model_dump_json() for m in decoded],
            "encode, before (pydantic's model_dump_json)": lambda: [before(m) for m in decoded],
        }
    )
    against = {
        "decode, discarded": "json.loads, discarded",
        "decode, kept": "json.loads, kept",
        "decode, kept, GC off (diagnostic)": "json.loads, kept, GC off",
        "encode (model_dump_json)": "json.dumps",
        "encode, before (pydantic's model_dump_json)": "json.dumps",
    }
    rows: list[Row] = []
    for name, spent in timed.items():
        base = against.get(name)
        ratio = timed[base] / spent if base else 1.0
        rows.append((f"{version}: {name}", len(data) / spent, ratio, base or ""))
    return rows


def acp_message_type() -> type[BaseModel]:
    """The whole `session/update` message with the `acp` package's models (0.12.1, v1)."""
    from acp import schema as acp_schema_models

    class AcpMessage(BaseModel):
        jsonrpc: Literal["2.0"]
        method: Literal["session/update"]
        params: acp_schema_models.SessionNotification

    return AcpMessage


def acp_subset(data: list[bytes]) -> list[bytes]:
    """The lines the `acp` package's models decode to the same JSON value (it knows no
    session messages, for one): the peer's rows run on exactly these."""
    theirs = acp_message_type().model_validate_json
    kept = []
    for line in data:
        try:
            model = theirs(line)
        except ValueError:
            continue
        if json.loads(model.model_dump_json(by_alias=True, exclude_none=True)) == json.loads(line):
            kept.append(line)
    return kept


def acp_figures(data: list[bytes]) -> dict[str, float]:
    """Our v1 models against the `acp` package's on the same lines, in the same run:
    decode (discarded, kept) as a multiple of `json.loads`, encode of `json.dumps`."""
    theirs, ours = acp_message_type().model_validate_json, V1Message.model_validate_json
    theirs(data[0]), ours(data[0])  # validators built outside the timing
    loads, dumps = json.loads, json.dumps
    timed = best_of(
        {
            "json.loads, discarded": discard(loads, data),
            "ours, discarded": discard(ours, data),
            "acp, discarded": discard(theirs, data),
            "json.loads, kept": keep(loads, data),
            "ours, kept": keep(ours, data),
            "acp, kept": keep(theirs, data),
        }
    )
    parsed = [loads(line) for line in data]
    their_models, our_models = [theirs(line) for line in data], [ours(line) for line in data]
    timed |= best_of(
        {
            "json.dumps": lambda: [dumps(p) for p in parsed],
            "ours, encode": lambda: [m.model_dump_json() for m in our_models],
            "acp, encode": lambda: [
                m.model_dump_json(by_alias=True, exclude_none=True) for m in their_models
            ],
        }
    )
    figures = {"lines": float(len(data))}
    for who in ("ours", "acp"):
        for how in ("discarded", "kept"):
            figures[f"{who}, {how}"] = timed[f"json.loads, {how}"] / timed[f"{who}, {how}"]
        figures[f"{who}, encode"] = timed["json.dumps"] / timed[f"{who}, encode"]
    return figures


# -- import and first decode ---------------------------------------------------------------

# Runs in a fresh interpreter: CPU seconds of (pydantic + runtime import, module body, first
# decode). The module's code is compiled before the clock starts (an import reads it from
# the .pyc); "before" compiles it with string annotations and builds validators at import,
# which is exactly what the previous generated modules and AcpModel config did.
_IMPORT_PROBE = """
import __future__, sys, time, types
clock = time.process_time
start = clock()
import pydantic
import acp_schema._runtime as runtime
base = clock() - start
version, before, path, model, line = sys.argv[1:]
if before == "1":
    runtime.AcpModel.model_config["defer_build"] = False
flags = __future__.annotations.compiler_flag if before == "1" else 0
code = compile(open(path, encoding="utf-8").read(), path, "exec", flags=flags, dont_inherit=True)
name = "acp_schema." + version
module = types.ModuleType(name)
module.__file__ = path
module.__package__ = name
sys.modules[name] = module
start = clock()
exec(code, module.__dict__)
body = clock() - start
start = clock()
getattr(module, model).model_validate_json(line)
first = clock() - start
print(base, body, first)
"""


def probe(command: list[str], env: dict[str, str], *, runs: int = IMPORT_RUNS) -> tuple[float, ...]:
    """Best of `runs` subprocesses, per figure printed (CPU seconds)."""
    figures = [
        tuple(float(x) for x in subprocess.run(command, capture_output=True, text=True,
                                               check=True, env=env).stdout.split())
        for _ in range(runs)
    ]  # fmt: skip
    return tuple(min(column) for column in zip(*figures, strict=True))


def import_cpu(
    version: str, env: dict[str, str], *, before: bool, model: str, line: bytes
) -> tuple[float, ...]:
    # All the models in one module, as they were before they came in two parts (the
    # package's `__init__.py` is a facade that loads them lazily; `peers` measures the
    # notification's part alone): the parts joined, the rest's import of the first dropped.
    path = Path(env["PYTHONPYCACHEPREFIX"]) / f"{version}_all_models.py"
    if not path.exists():
        path.write_text(_all_models_source(version), encoding="utf-8")
    command = [sys.executable, "-c", _IMPORT_PROBE, version, "1" if before else "0", str(path)]
    return probe([*command, model, line.decode()], env)


def _all_models_source(version: str) -> str:
    import ast

    folder = Path(str(importlib.import_module(f"acp_schema.{version}").__file__)).parent
    first = ast.parse((folder / "_notifications.py").read_text(encoding="utf-8"))
    rest = ast.parse((folder / "_models.py").read_text(encoding="utf-8"))
    rest.body = [
        node
        for node in rest.body
        if not (isinstance(node, ast.ImportFrom) and node.module == "_notifications")
    ]
    return ast.unparse(first) + "\n" + ast.unparse(rest) + "\n"


def bytecode_env(cache: str) -> dict[str, str]:
    """Imports read compiled modules, as from an installed package, even where the
    environment says not to write them (PYTHONDONTWRITEBYTECODE): they go to `cache`."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return env | {"PYTHONPYCACHEPREFIX": cache}


Imports = dict[str, dict[str, tuple[float, float]]]


def import_report() -> Imports:
    """Per version, now and with the fast module: (import x before, first decode CPU s)."""
    found: Imports = {}
    print(f"\nimport + first decode, CPU seconds, best of {IMPORT_RUNS} fresh interpreters")
    print("(deps: pydantic and the runtime, or for the fast rows msgspec and the fast runtime)")
    print(f"{'':28} {'deps':>9} {'module':>8} {'1st decode':>11} {'total':>7} {'x before':>9}")
    with tempfile.TemporaryDirectory() as cache:
        env = bytecode_env(cache)
        for version, model in (("v1", "SessionNotification"), ("v2", "UpdateSessionNotification")):
            found[version] = import_rows(version, model, env)
    return found


def import_rows(version: str, model: str, env: dict[str, str]) -> dict[str, tuple[float, float]]:
    from tests.bench._fast_path import IMPORT_PROBE as FAST_PROBE
    from tests.bench._fast_path import STANDALONE_PROBE, fast_v1, fast_v2

    params = json.dumps(json.loads(lines(version)[0])["params"]).encode()
    fast_command = [sys.executable, "-c", FAST_PROBE, version, model, params.decode()]
    probe(fast_command, env, runs=1)  # compiles every module it imports, into the cache
    figures = {
        when: import_cpu(version, env, before=when == "before", model=model, line=params)
        for when in ("before", "now")
    }
    fast_base, facade, fast_body, fast_first, took_fast, light, later = probe(fast_command, env)
    assert took_fast, "the fast path's first decode fell back"
    assert light, "importing the package and its fast module imported pydantic or the models"
    figures["fast: import vN, vN.fast"] = (fast_base, facade + fast_body, fast_first)
    path = str((fast_v1 if version == "v1" else fast_v2).__file__)
    *alone, took_fast, pydantic_imported = probe(
        [sys.executable, "-c", STANDALONE_PROBE, version, path, model, params.decode()], env
    )
    assert took_fast and not pydantic_imported
    figures["fast module alone (diag.)"] = (alone[0], alone[1], alone[2])
    old_base, old_body, _ = figures["before"]
    for when, (base, body, first) in figures.items():
        print(
            f"{version} {when:25} {base:9.3f} {body:8.3f} {first:11.3f} "
            f"{base + body + first:7.3f} {(base + body + first) / sum(figures['before']):9.2f}"
        )
    now_base, now_body, now_first = figures["now"]
    found = {
        "now": ((now_base + now_body) / (old_base + old_body), now_first),
        "fast": ((fast_base + facade + fast_body) / (old_base + old_body), fast_first),
        "models": (later / (old_base + old_body), 0.0),
        "alone": ((alone[0] + alone[1]) / (old_base + old_body), alone[2]),
    }
    print(
        f"{version} import alone, x before: now {found['now'][0]:.2f}"
        f" (module body alone: {now_body / old_body:.2f}),"
        f" with the fast module {found['fast'][0]:.2f}; target <= 0.5"
    )
    print(
        f"{version}   `import acp_schema.{version}`: {facade * 1000:.1f} ms (the facade: no"
        f" pydantic, no models), `from acp_schema.{version} import fast`: {fast_body:.3f} s"
        f" (Structs); the fast module alone {found['alone'][0]:.2f}"
    )
    print(
        f"{version}   then the first model name used (`acp_schema.{version}.{model}`) imports"
        f" pydantic and the models: {later:.3f} s, x before {found['models'][0]:.2f}"
    )
    return found


# -- transcript store ----------------------------------------------------------------------


def store_report() -> float:
    from acp_schema._fast import REFUSALS
    from acp_schema.transcripts.store import _codec
    from tests.bench.transcripts import generate_log, store_run, store_run_models_only

    data = generate_log(STORE_LINES)
    validate = V2Message.model_validate_json
    fast_envelope = _codec("v2").fast_decode

    def fast_decode(line: bytes) -> object:
        # The store's own decode step alone: its envelope Struct, the models on refusal.
        try:
            return fast_envelope(line)
        except REFUSALS:
            return validate(line)

    timed = best_of(
        {
            "decode": discard(validate, data),
            "fast decode": discard(fast_decode, data),
            "store": lambda: store_run(data),
            "models only": lambda: store_run_models_only(data),
        },
        repeat=STORE_REPEAT,
    )
    decode, store, models = timed["decode"], timed["store"], timed["models only"]
    fast = timed["fast decode"]
    print(f"\ntranscript store, {len(data):,} lines of the tests/bench/transcripts.py log")
    print(f"decode only (models), GC on:    {len(data) / decode:12,.0f} lines/s")
    print(f"decode only (fast path), GC on: {len(data) / fast:12,.0f} lines/s")
    print(f"store apply + link: {len(data) / store:12,.0f} lines/s")
    print(f"  = {fast / store:.2f}x its own decode alone (fast path; target >= 0.5)")
    print(f"  = {decode / store:.2f}x a decode with the models")
    print(f"  the store with the models only (no fast path): {decode / models:.2f}x decode")
    return fast / store


# -- generate --------------------------------------------------------------------------------


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _self_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def generate_report(repeat: int = STORE_REPEAT) -> float:
    """CPU seconds (self + children, every process waited for) of the whole command against
    the bare datamodel-codegen runs on the pre-pass output of the same schemas, same flags;
    best of `repeat` rounds, the two interleaved."""
    from acp_schema.codegen.bundled import bundled_schema
    from acp_schema.codegen.generate import pipeline as generator

    schemas = [bundled_schema(v) for v in ("v1", "v2")]
    prepared = [generator.prepass(generator._loaded(s).document).schema for s in schemas]
    bare = ours = float("inf")
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as tmp:
            start = _children_cpu()
            for schema in prepared:
                generator._run_codegen(schema, "# bench", Path(tmp))
            bare = min(bare, _children_cpu() - start)
            # what `acp-schema generate v1 v2` runs, into scratch directories
            jobs = [(str(s), f"{tmp}/{v}") for s, v in zip(schemas, ("v1", "v2"), strict=True)]
            script = (
                "import sys; from pathlib import Path; "
                "from acp_schema.codegen.generate.pipeline import generate_many; "
                f"generate_many([(Path(s), Path(o)) for s, o in {jobs!r}])"
            )
            start = _children_cpu()
            subprocess.run([sys.executable, "-c", script], check=True, capture_output=True)
            ours = min(ours, _children_cpu() - start)
    print(f"\ngenerate v1 v2, CPU seconds (self + children), best of {repeat}")
    print(f"bare datamodel-codegen runs: {bare:6.2f}")
    print(f"acp-schema generate:         {ours:6.2f} = {ours / bare:.2f}x  (target <= 1.3)")
    phases(schemas[1])
    return ours / bare


def phases(schema_path: Path) -> None:
    """Where one version's CPU goes, phase by phase, in this process."""
    from acp_schema.codegen.generate import pipeline as generator
    from acp_schema.codegen.generate.postpass import (
        PostpassPlan,
        _collector_paused,
        _field_names,
        _Finisher,
        cst,
    )
    from acp_schema.codegen.schema_check import meta_schema_problems

    spent: dict[str, float] = {}

    def phase(name: str, run: Callable[[], Any]) -> Any:
        start_self, start_children = _self_cpu(), _children_cpu()
        result = run()
        spent[name] = _self_cpu() - start_self + _children_cpu() - start_children
        return result

    loaded = phase("read + parse + structural checks", lambda: generator._loaded(schema_path))
    schema = loaded.document
    pre = phase("pre-pass", lambda: generator.prepass(schema))
    with tempfile.TemporaryDirectory() as tmp:
        source = phase(
            "datamodel-codegen (subprocess)",
            lambda: generator._run_codegen(pre.schema, "# bench", Path(tmp)),
        )
    phase("meta-schema validation", lambda: meta_schema_problems(schema))
    with _collector_paused():  # as finish_module runs them
        tree = phase("post-pass: libcst parse", lambda: cst.parse_module(source))
        plan, names = PostpassPlan(pre.unions), _field_names(tree)
        done = phase("post-pass: transform", lambda: tree.visit(_Finisher(plan, names)))
        text = phase("post-pass: print code", lambda: done.code)
    models = phase("ruff format (subprocess)", lambda: generator.ruff_format(text, "__init__.py"))
    fast = phase("fast target: fast.py", lambda: generator.fast_module(models, "# bench"))
    phase("ruff format fast.py", lambda: generator.ruff_format(fast, "fast.py"))
    print(f"where {schema_path.parent.name}'s generate CPU goes (in-process, one run):")
    for name, value in spent.items():
        print(f"  {name:32} {value:6.2f}")


def _met(goal: str, values: list[float]) -> str:
    if goal.startswith((">=", "<=")):
        limit = float(goal[2:])
        met = [v >= limit if goal.startswith(">=") else v <= limit for v in values]
        return {(True, True): "yes", (False, False): "no"}.get((met[0], met[-1]), "partly")
    return ""


def main() -> None:
    from tests.bench import _corpus, _fast_path

    print(f"{COUNT:,} mixed session/update messages per corpus, best of {REPEAT} (CPU time),")
    print("GC on unless a row says otherwise; ratio = the baseline's time / this row's time")
    corpora = {"v1": lines("v1"), "v2": lines("v2")}
    gc.collect()
    print(f"(the program holds {len(gc.get_objects()):,} GC-tracked objects before decoding:")
    print(" every full collection walks them as well as what the run keeps)")
    rows = [
        *decode_rows("v1", V1Message, corpora["v1"]),
        *decode_rows("v2", V2Message, corpora["v2"]),
    ]
    fast: dict[str, dict[str, float]] = {}
    for version, data in corpora.items():
        fast_rows, fast[version] = _fast_path.decode_rows(version, data)
        rows += fast_rows
    rows += _fast_path.fallback_rows("v2", corpora["v2"])
    # The realistic corpus (tests/bench/_corpus.py): text of 10-400 words, tool calls with
    # raw input and output, plans, session messages, config options; its rows say so.
    realistic = {version: _corpus.lines(version, REALISTIC_COUNT) for version in corpora}
    models = {"v1": V1Message, "v2": V2Message}
    for version, data in realistic.items():
        rows += relabel(decode_rows(version, models[version], data), version, "realistic")
        fast_rows, fast[f"{version} realistic"] = _fast_path.decode_rows(version, data)
        rows += relabel(fast_rows, version, "realistic")
    methods: dict[str, float] = {}
    for label, sets in (("short", corpora), ("realistic", realistic)):
        for version, data in sets.items():
            found, methods[f"{version} {label}"] = _fast_path.methods_rows(version, label, data)
            rows += found
    print(f"\n{'what':62} {'msg/CPU s':>11} {'ratio':>6}  against")
    for name, rate, ratio, base in rows:
        print(f"{name:62} {rate:11,.0f} {ratio:6.2f}  {base}")
    print("\nshare of the corpus the fast path took (the rest fell back to the model):")
    for version, figures in fast.items():
        print(
            f"  {version:12}: envelope {figures['share']:.1%},"
            f" params alone {figures['params share']:.1%},"
            f" METHODS.decode {methods[version if ' ' in version else version + ' short']:.1%}"
        )
    print("realistic corpus, per update kind: messages, and the share the fast path took")
    for version, data in realistic.items():
        shares = _fast_path.kind_shares(version, data)
        print("  " + version + ": " + ", ".join(
            f"{kind} {total} ({taken / total:.0%})" for kind, (total, taken) in shares.items()
        ))  # fmt: skip

    print("\nGC-tracked objects per kept v2 message (what each full collection walks):")
    trackers: dict[str, Callable[[bytes], object]] = {
        "json.loads": json.loads,
        "pydantic bindings": V2Message.model_validate_json,
    }
    for name, decode in trackers.items():
        print(f"  {name:20} {tracked_per_message(decode, corpora['v2']):5.1f}")
    print(f"  {'fast path':20} {fast['v2']['tracked']:5.1f}  (v1: {fast['v1']['tracked']:.1f})")

    acp = {
        "short": acp_figures(acp_subset(lines("v1", acp_subset=True))),
        "realistic": acp_figures(acp_subset(realistic["v1"])),
    }
    print("\nv1 lines the `acp` package (0.12.1) decodes to the same JSON value, ours beside")
    print("theirs in the same run (decode x json.loads, encode x json.dumps):")
    print(f"{'corpus':10} {'lines':>6} {'discarded':>16} {'kept':>16} {'encode':>16}")
    print(f"{'':17} {'ours':>8} {'acp':>7} {'ours':>8} {'acp':>7} {'ours':>8} {'acp':>7}")
    for label, figures in acp.items():
        cells = " ".join(
            f"{figures[f'{who}, {how}']:{8 if who == 'ours' else 7}.2f}"
            for how in ("discarded", "kept", "encode")
            for who in ("ours", "acp")
        )
        print(f"{label:10} {figures['lines']:6,.0f} {cells}")

    imports = import_report()
    store = store_report()
    generate = generate_report()

    ratio = {name: r for name, _, r, _ in rows}
    table: list[tuple[str, str, str, list[float], str]] = []  # label, goal, path, v1/v2, fmt
    for label, goal, row, fast_row in [
        ("kept decode, GC on, x json.loads", ">= 1.0", "decode, kept", "decode_json, kept"),
        ("discarded decode x json.loads", ">= 1.5", "decode, discarded",
         "decode_json, discarded"),
        ("encode x json.dumps", ">= 1.3", "encode (model_dump_json)",
         "encode (model_dump_json)"),
    ]:  # fmt: skip
        table.append((label, goal, "pydantic", [ratio[f"{v}: {row}"] for v in corpora], ".2f"))
        table.append(("", goal, "fast", [ratio[f"{v} fast: {fast_row}"] for v in corpora], ".2f"))
    table.append(
        (
            "", "", "msgspec.json.encode",
            [ratio[f"{v} fast: encode (msgspec.json.encode, bytes)"] for v in corpora], ".2f",
        )
    )  # fmt: skip
    before = [ratio[f"{v}: encode, before (pydantic's model_dump_json)"] for v in corpora]
    table.append(("encode before (pydantic's path) x json.dumps", "", "pydantic", before, ".2f"))
    paths = {"now": "pydantic", "fast": "fast", "alone": "fast alone (diag.)"}
    for key, path in paths.items():
        label = "import x before (CPU)" if key == "now" else ""
        goal = "<= 0.5" if key != "alone" else ""
        table.append((label, goal, path, [imports[v][key][0] for v in corpora], ".2f"))
    models = [imports[v]["models"][0] for v in corpora]
    table.append(("", "", "models on 1st use", models, ".2f"))
    for key, path in paths.items():
        label = "first decode after import, CPU ms" if key == "now" else ""
        goal = "report" if key != "alone" else ""
        table.append((label, goal, path, [imports[v][key][1] * 1000 for v in corpora], ".0f"))
    print(f"\n{'target':44} {'goal':>7} {'path':>19} {'v1':>6} {'v2':>6}  met")
    for label, goal, path, values, fmt in table:
        cells = " ".join(f"{v:6{fmt}}" for v in values)
        print(f"{label:44} {goal:>7} {path:>19} {cells}  {_met(goal, values)}")
    print(
        f"{'store apply+link x decode-only, GC on':44} {'>= 0.5':>7} {'fast, then models':>19}"
        f" {'':>6} {store:6.2f}  {_met('>= 0.5', [store])}"
    )
    print(
        f"{'generate v1 v2 x bare datamodel-codegen CPU':44} {'<= 1.3':>7} {'':>19}"
        f" {generate:13.2f}  {_met('<= 1.3', [generate])}"
    )
    targets_table(ratio, acp, fast, methods)
    print(f"\n(cpu count {os.cpu_count()}, load average {os.getloadavg()[0]:.1f})")


def relabel(rows: list[Row], version: str, label: str) -> list[Row]:
    """Rows of another corpus: `v1: ...` becomes `v1 realistic: ...`."""
    return [(name.replace(version, f"{version} {label}", 1), *rest) for name, *rest in rows]  # type: ignore[misc]


def targets_table(
    ratio: dict[str, float],
    acp: dict[str, dict[str, float]],
    fast: dict[str, dict[str, float]],
    methods: dict[str, float],
) -> None:
    """The speed targets for real agent streams, on both corpora (acp has v1 models only)."""
    print(f"\n{'target':50} {'goal':>7} {'corpus':>10} {'v1':>6} {'v2':>6}  met")
    for label in ("realistic", "short"):
        tag = "" if label == "short" else " realistic"
        versions = ("v1", "v2")
        figures = acp[label]
        lines: list[tuple[str, str, list[float]]] = [
            ("models: discarded decode x json.loads", ">= 0.8",
             [ratio[f"{v}{tag}: decode, discarded"] for v in versions]),
            ("models: discarded decode x json.loads, acp lines", ">= 0.8",
             [figures["ours, discarded"]]),
            ("models: discarded decode x acp 0.12.1", ">= 1.0",
             [figures["ours, discarded"] / figures["acp, discarded"]]),
            ("models: kept decode x acp 0.12.1", ">= 1.0",
             [figures["ours, kept"] / figures["acp, kept"]]),
            ("models: encode x acp 0.12.1", ">= 1.0",
             [figures["ours, encode"] / figures["acp, encode"]]),
            ("METHODS.decode, discarded x json.loads", "",
             [ratio[f"{v} {label}: METHODS.decode, discarded"] for v in versions]),
            ("METHODS.decode, kept x json.loads", "",
             [ratio[f"{v} {label}: METHODS.decode, kept"] for v in versions]),
            ("METHODS.decode: share of messages fast", "",
             [methods[f"{v} {label}"] for v in versions]),
            ("decode_json (envelope): share of messages fast", "",
             [fast[f"{v}{tag}"]["share"] for v in versions]),
            ("decode_json (envelope), discarded x json.loads", "",
             [ratio[f"{v}{tag} fast: decode_json, discarded"] for v in versions]),
        ]  # fmt: skip
        for name, goal, values in lines:
            cells = " ".join(f"{v:6.2f}" for v in values)
            print(f"{name:50} {goal:>7} {label:>10} {cells:13}  {_met(goal, values)}")


if __name__ == "__main__":
    main()
