"""Inputs for the conformance run: `session/update` params drawn from the bundled schema
(`tests/schema_strategies.py`), half of them left as drawn and half mutated the ways peers
get things wrong. Deterministic: the same inputs every run."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.schema_strategies import SchemaStrategies

JSON = Any
NOTIFICATION = {"v1": "SessionNotification", "v2": "UpdateSessionNotification"}


@dataclass(frozen=True)
class Case:
    protocol: str  # v1 / v2
    mutation: str  # "none" or the mutation applied
    text: str  # the JSON text both sides decode


def draw_updates(gen: SchemaStrategies, count: int, seed: int) -> list[JSON]:
    """`count` instances of the notification params, drawn by Hypothesis (derandomized)."""
    drawn: list[JSON] = []

    @settings(
        max_examples=count,
        database=None,
        derandomize=True,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def collect(data: st.DataObject) -> None:
        drawn.append(data.draw(gen.for_def("SessionUpdate")))

    collect()
    rng = random.Random(seed)
    rng.shuffle(drawn)
    return drawn[:count]


def _objects(
    value: JSON, path: tuple[Any, ...] = ()
) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    if isinstance(value, dict):
        yield path, value
        for key, item in value.items():
            yield from _objects(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _objects(item, (*path, index))


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name)


def _mistyped(value: JSON, rng: random.Random) -> JSON:
    if isinstance(value, bool):
        return rng.choice([1, 0, "true"])
    if isinstance(value, int):
        return rng.choice([str(value), True, value + 0.5, [value]])
    if isinstance(value, float):
        return rng.choice([str(value), True, None if rng.random() < 0.2 else {"v": value}])
    if isinstance(value, str):
        return rng.choice([7, True, [value], {"s": value}])
    if isinstance(value, list):
        return rng.choice(["[]", {"0": value[:1]}, 3])
    if isinstance(value, dict):
        return rng.choice([[value], "{}", 1])
    return rng.choice([1, "x", False, []])


def _numeric(value: JSON, rng: random.Random) -> JSON:
    return rng.choice(
        [2**64, 2**63, 2**32, 2**16, -1, -(2**63) - 1, 1e300, 7.0, 1e2, -0.0, 3.25, 2**53 + 1]
    )


Mutation = Callable[[dict[str, Any], random.Random], str | None]


def _pick(update: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], str] | None:
    spots = [(obj, key) for _, obj in _objects(update) for key in obj]
    if not spots:
        return None
    return rng.choice(spots)


def m_null(update: dict[str, Any], rng: random.Random) -> str | None:
    spot = _pick(update, rng)
    if spot is None:
        return None
    obj, key = spot
    obj[key] = None
    return "null value"


def m_drop(update: dict[str, Any], rng: random.Random) -> str | None:
    spot = _pick(update, rng)
    if spot is None:
        return None
    obj, key = spot
    del obj[key]
    return "key omitted"


def m_mistype(update: dict[str, Any], rng: random.Random) -> str | None:
    spot = _pick(update, rng)
    if spot is None:
        return None
    obj, key = spot
    obj[key] = _mistyped(obj[key], rng)
    return "mistyped value"


def m_number(update: dict[str, Any], rng: random.Random) -> str | None:
    spots = [
        (obj, key)
        for _, obj in _objects(update)
        for key, value in obj.items()
        if isinstance(value, (int, float)) and not isinstance(value, bool)
    ]
    if not spots:
        return None
    obj, key = rng.choice(spots)
    obj[key] = _numeric(obj[key], rng)
    return "number out of range or integral float"


def m_snake(update: dict[str, Any], rng: random.Random) -> str | None:
    spots = [(obj, key) for _, obj in _objects(update) for key in obj if _snake(key) != key]
    if not spots:
        return None
    obj, key = rng.choice(spots)
    obj[_snake(key)] = obj.pop(key)
    return "Python name instead of wire name"


def m_meta_name(update: dict[str, Any], rng: random.Random) -> str | None:
    update["meta"] = {"k": 1}
    update.pop("_meta", None)
    return "Python name instead of wire name"


def m_unknown_key(update: dict[str, Any], rng: random.Random) -> str | None:
    spots = [obj for _, obj in _objects(update)]
    obj = rng.choice(spots)
    obj[rng.choice(["sender_session_id", "futureKey", "_vendor", "senderSessionId"])] = "A"
    return "unknown key"


def m_unknown_tag(update: dict[str, Any], rng: random.Random) -> str | None:
    spots = [obj for _, obj in _objects(update) if "type" in obj or "sessionUpdate" in obj]
    obj = rng.choice(spots)
    key = "sessionUpdate" if "sessionUpdate" in obj else "type"
    obj[key] = rng.choice(["brand_new", "_vendor.thing", "", 5])
    return "unknown tag"


def m_bad_content(update: dict[str, Any], rng: random.Random) -> str | None:
    bad = rng.choice(
        [{"type": "text"}, {"type": "text", "text": 1}, {"text": "x"}, "text", None, []]
    )
    if "content" in update:
        update["content"] = bad if not isinstance(update["content"], list) else [bad]
        return "bad content item"
    return None


def m_participant(update: dict[str, Any], rng: random.Random) -> str | None:
    key = rng.choice(["senderSessionId", "recipientSessionId", "messageId", "senderMessageId"])
    update[key] = rng.choice([None, 7, "", ["A"], {"id": "A"}, True])
    return "malformed participant ID"


def m_deep(update: dict[str, Any], rng: random.Random) -> str | None:
    deep: JSON = 1
    for _ in range(rng.choice([50, 300])):
        deep = {"k": deep}
    update["_meta"] = {"deep": deep}
    return "deep _meta"


MUTATIONS: list[Mutation] = [
    m_null, m_drop, m_mistype, m_mistype, m_number, m_number, m_snake, m_meta_name,
    m_unknown_key, m_unknown_tag, m_bad_content, m_participant, m_deep,
]  # fmt: skip
NON_JSON = ["NaN", "Infinity", "-Infinity", "1e400"]


def cases(protocol: str, updates: list[JSON], seed: int) -> list[Case]:
    """Every drawn update as it is, and once more mutated (plus a few non-JSON numbers)."""
    rng = random.Random(seed)
    out = []
    for update in updates:
        params = {"sessionId": "s1", "update": update}
        out.append(Case(protocol, "none", json.dumps(params)))
        if not isinstance(update, dict):
            continue
        changed = json.loads(json.dumps(update))
        for _ in range(4):  # the first mutation that applies
            mutation = rng.choice(MUTATIONS)
            label = mutation(changed, rng)
            if label is not None:
                out.append(
                    Case(protocol, label, json.dumps({"sessionId": "s1", "update": changed}))
                )
                break
        if rng.random() < 0.03:
            token = rng.choice(NON_JSON)
            text = json.dumps({"sessionId": "s1", "update": {**update, "_meta": {"n": 0}}})
            out.append(
                Case(
                    protocol, f"non-finite number {token}", text.replace('"n": 0', f'"n": {token}')
                )
            )
    return out
