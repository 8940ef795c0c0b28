"""The fast path's rows of the bindings benchmark (`tests/bench/bindings.py` runs them): the
generated msgspec Structs (`acp_schema.vN.fast`) on the same corpora, against baselines
measured in the same run.

A whole `session/update` message is decoded by a small envelope Struct over the generated
notification Struct, as a client decodes it after routing; like the generated Structs it
falls back to a model (the bench's pydantic envelope) for whatever it refuses.
"""

from __future__ import annotations

import importlib
import json
import random
from collections.abc import Callable
from typing import Any, Literal

import msgspec

from acp_schema import _fast
from acp_schema.v1 import fast as fast_v1
from acp_schema.v2 import fast as fast_v2
from tests.bench.bindings import (
    Row,
    V1Message,
    V2Message,
    best_of,
    discard,
    keep,
    tracked_per_message,
)

CONVERT_REPEAT = 3  # to_model / from_model run at pydantic's speed: fewer repeats suffice
FALLBACK_SHARES = (0.01, 0.10)


class V1Envelope(_fast.FastStruct[V1Message]):
    jsonrpc: Literal["2.0"]
    method: Literal["session/update"]
    params: fast_v1.SessionNotification

    @classmethod
    def model_type(cls) -> type[V1Message]:
        return V1Message


class V2Envelope(_fast.FastStruct[V2Message]):
    jsonrpc: Literal["2.0"]
    method: Literal["session/update"]
    params: fast_v2.UpdateSessionNotification

    @classmethod
    def model_type(cls) -> type[V2Message]:
        return V2Message


ENVELOPES: dict[str, type[V1Envelope] | type[V2Envelope]] = {"v1": V1Envelope, "v2": V2Envelope}
NOTIFICATIONS: dict[str, Any] = {
    "v1": fast_v1.SessionNotification,
    "v2": fast_v2.UpdateSessionNotification,
}


def params_of(data: list[bytes]) -> list[bytes]:
    return [json.dumps(json.loads(line)["params"]).encode() for line in data]


def fast_share(envelope: type[msgspec.Struct], decoded: list[object]) -> float:
    return sum(isinstance(d, envelope) for d in decoded) / len(decoded)


def _rows(
    version: str,
    count: int,
    timed: dict[str, float],
    against: dict[str, str],
    notes: dict[str, str],
) -> list[Row]:
    return [
        (
            f"{version} fast: {name}",
            count / timed[name],
            timed[base] / timed[name],
            f"{base}{notes.get(name, '')}",
        )
        for name, base in against.items()
    ]


def decode_rows(version: str, data: list[bytes]) -> tuple[list[Row], dict[str, float]]:
    """Decode (envelope and params alone), encode and conversion rows of one version, and
    the figures the summary needs (`share`: messages that took the fast path)."""
    envelope, notification = ENVELOPES[version], NOTIFICATIONS[version]
    model = envelope.model_type()
    validate, loads = model.model_validate_json, json.loads
    params, decode_params = params_of(data), notification.decode_json
    envelope.decode_json(data[0])  # build the decoders outside the timing (first decode:
    notification.decode_json(params[0])  # reported by the import rows)
    # Decoding first, while nothing decoded is alive (as in bindings.decode_rows).
    timed = best_of(
        {
            "json.loads, discarded": discard(loads, data),
            "decode_json, discarded": discard(envelope.decode_json, data),
            "json.loads, kept": keep(loads, data),
            "decode_json, kept": keep(envelope.decode_json, data),
            "json.loads of params, discarded": discard(loads, params),
            "params: Notification.decode_json, discarded": discard(decode_params, params),
            "json.loads of params, kept": keep(loads, params),
            "params: Notification.decode_json, kept": keep(decode_params, params),
        }
    )
    tracked = tracked_per_message(envelope.decode_json, data)
    decoded = [envelope.decode_json(line) for line in data]
    share = fast_share(envelope, decoded)
    params_share = fast_share(notification, [notification.decode_json(p) for p in params])
    fast_lines = [line for d, line in zip(decoded, data, strict=True) if isinstance(d, envelope)]
    structs = [d for d in decoded if isinstance(d, envelope)]
    del decoded
    # Encoding before any model is alive: each collection before a run walks what is alive.
    timed |= encode_times(structs, fast_lines)
    # What the fast path took must mean what the model decodes from the same line, and
    # convert both ways.
    models = [validate(line) for line in fast_lines]
    pairs = zip(structs, models, strict=True)
    assert all(s.to_model() == m and envelope.from_model(m) == s for s, m in pairs)

    def to_model() -> None:
        for s in structs:
            s.to_model()

    def from_model() -> None:
        for m in models:
            envelope.from_model(m)

    timed |= best_of(
        {
            "pydantic decode, discarded": discard(validate, data),
            "to_model(), discarded": to_model,
            "from_model(), discarded": from_model,
        },
        repeat=CONVERT_REPEAT,
    )
    against = {
        "decode_json, discarded": "json.loads, discarded",
        "decode_json, kept": "json.loads, kept",
        "params: Notification.decode_json, discarded": "json.loads of params, discarded",
        "params: Notification.decode_json, kept": "json.loads of params, kept",
        "encode (model_dump_json)": "json.dumps",
        "encode (msgspec.json.encode, bytes)": "json.dumps",
        "to_model(), discarded": "pydantic decode, discarded",
        "from_model(), discarded": "pydantic decode, discarded",
    }
    notes = {
        "decode_json, kept": f"; {share:.1%} fast",
        "params: Notification.decode_json, kept": f"; {params_share:.1%} fast",
    }
    figures = {"share": share, "params share": params_share, "tracked": tracked}
    return _rows(version, len(data), timed, against, notes), figures


def encode_times(structs: list[Any], data: list[bytes]) -> dict[str, float]:
    """Encode the Structs decoded from `data`, against `json.dumps` of the same messages;
    first checks that they write the JSON they came from (in msgspec's key order)."""
    loads, dumps, encode = json.loads, json.dumps, msgspec.json.encode
    parsed = [loads(line) for line in data]
    assert all(loads(s.model_dump_json()) == p for s, p in zip(structs, parsed, strict=True))
    return best_of(
        {
            "json.dumps": lambda: [dumps(p) for p in parsed],
            "encode (model_dump_json)": lambda: [s.model_dump_json() for s in structs],
            "encode (msgspec.json.encode, bytes)": lambda: [encode(s) for s in structs],
        }
    )


def with_unknown_key(data: list[bytes], share: float, seed: str) -> list[bytes]:
    """The corpus with an unknown key in the update of about `share` of the messages: the
    model keeps it, the Struct refuses it, so those messages take the fallback."""
    rng = random.Random(seed)
    out = []
    for line in data:
        if rng.random() < share:
            message = json.loads(line)
            message["params"]["update"]["benchUnknownKey"] = True
            line = json.dumps(message).encode()
        out.append(line)
    return out


def fallback_rows(version: str, data: list[bytes]) -> list[Row]:
    """Decode with a share of the messages refused by the fast path, against `json.loads`
    on the same corpus and against the fast path on the untouched corpus."""
    envelope = ENVELOPES[version]
    loads = json.loads
    runs: dict[str, Callable[[], object]] = {
        "kept, no fallback": keep(envelope.decode_json, data),
    }
    corpora = {
        f"{share:.0%} unknown key": with_unknown_key(data, share, f"fallback-{version}-{share}")
        for share in FALLBACK_SHARES
    }
    for name, corpus in corpora.items():
        runs[f"json.loads, kept, {name}"] = keep(loads, corpus)
        runs[f"decode_json, kept, {name}"] = keep(envelope.decode_json, corpus)
        runs[f"json.loads, discarded, {name}"] = discard(loads, corpus)
        runs[f"decode_json, discarded, {name}"] = discard(envelope.decode_json, corpus)
    timed = best_of(runs)
    rows: list[Row] = []
    for name, corpus in corpora.items():
        share = fast_share(envelope, [envelope.decode_json(line) for line in corpus])
        for how in ("kept", "discarded"):
            subject = f"decode_json, {how}, {name}"
            spent = timed[subject]
            note = f"; {share:.1%} fast"
            if how == "kept":
                slower = spent / timed["kept, no fallback"]
                note += f"; {slower:.2f}x the time with no fallback"
            base = f"json.loads, {how}, {name}"
            ratio = timed[base] / spent
            rows.append((f"{version} fast: {subject}", len(corpus) / spent, ratio, base + note))
    return rows


# Runs in a fresh interpreter: CPU seconds of (msgspec + the fast path's runtime, the
# package `acp_schema.vN` (a facade now), the fast module, the fast path's first decode),
# real import statements; whether that decode took the fast path; whether pydantic and the
# models were still not imported then; and CPU seconds of the first model name used after
# (which imports pydantic and the models).
IMPORT_PROBE = """
import sys, time
clock = time.process_time
version, name, line = sys.argv[1:]
start = clock()
import importlib
import msgspec
import acp_schema._fast
base = clock() - start
start = clock()
package = importlib.import_module("acp_schema." + version)
facade = clock() - start
start = clock()
fast = importlib.import_module("acp_schema." + version + ".fast")
body = clock() - start
start = clock()
struct = getattr(fast, name)
result = struct.decode_json(line)
first = clock() - start
light = not {"pydantic", "acp_schema." + version + "._models"} & set(sys.modules)
start = clock()
getattr(package, name)
models = clock() - start
print(base, facade, body, first, int(isinstance(result, struct)), int(light), models)
"""

# The same without the package: the fast module loaded from its file on its own (its model
# imports are for type checkers only). A diagnostic: `from acp_schema.vN import fast`
# imports the package first, which costs only its facade since the models load lazily.
STANDALONE_PROBE = """
import sys, time
clock = time.process_time
version, path, name, line = sys.argv[1:]
start = clock()
import importlib.util
import msgspec
import acp_schema._fast
base = clock() - start
start = clock()
spec = importlib.util.spec_from_file_location("acp_schema." + version + ".fast", path)
fast = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = fast
spec.loader.exec_module(fast)
body = clock() - start
start = clock()
struct = getattr(fast, name)
result = struct.decode_json(line)
first = clock() - start
print(base, body, first, int(isinstance(result, struct)), int("pydantic" in sys.modules))
"""


def methods_rows(version: str, label: str, data: list[bytes]) -> tuple[list[Row], float]:
    """`METHODS.decode` of whole messages (the fast path, the models for what it refuses)
    against `json.loads`, discarded and kept; and the share of messages it took fast."""
    table = importlib.import_module(f"acp_schema.{version}.methods").METHODS
    decode, loads = table.decode, json.loads
    decode(data[0])  # builds the decoders outside the timing
    timed = best_of(
        {
            "json.loads, discarded": discard(loads, data),
            "METHODS.decode, discarded": discard(decode, data),
            "json.loads, kept": keep(loads, data),
            "METHODS.decode, kept": keep(decode, data),
        }
    )
    share = sum(isinstance(decode(line).params, _fast.FastStruct) for line in data) / len(data)
    rows = [
        (
            f"{version} {label}: METHODS.decode, {how}",
            len(data) / timed[f"METHODS.decode, {how}"],
            timed[f"json.loads, {how}"] / timed[f"METHODS.decode, {how}"],
            f"json.loads, {how}; {share:.1%} fast",
        )
        for how in ("discarded", "kept")
    ]
    return rows, share


def kind_shares(version: str, data: list[bytes]) -> dict[str, tuple[int, int]]:
    """Per update kind: (messages, messages the fast path took) of a corpus."""
    envelope = ENVELOPES[version]
    found: dict[str, list[int]] = {}
    for line in data:
        kind = json.loads(line)["params"]["update"]["sessionUpdate"]
        counts = found.setdefault(kind, [0, 0])
        counts[0] += 1
        counts[1] += isinstance(envelope.decode_json(line), envelope)
    return {kind: (total, fast) for kind, (total, fast) in sorted(found.items())}
