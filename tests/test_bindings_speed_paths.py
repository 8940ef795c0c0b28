"""The speed-ups of docs/performance.md change nothing a user can observe: the encode
fast path writes what pydantic's own `model_dump_json` writes, validators built on first
use behave as if built at import, and the generated annotations are real types."""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter

from acp_schema import v1, v2
from acp_schema._runtime import MISSING, AcpModel
from acp_schema.codegen.bundled import bundled_schema
from tests.budget import examples
from tests.schema_strategies import SchemaStrategies

MODULES = {"v1": v1, "v2": v2}
# Definitions whose instances are (or contain) models of every common kind.
CASES = [
    ("v1", "SessionNotification"),
    ("v1", "AgentRequest"),
    ("v2", "UpdateSessionNotification"),
    ("v2", "AgentRequest"),
    ("v2", "ClientRequest"),
]
OPTIONS: list[dict[str, Any]] = [
    {"indent": 2},
    {"exclude_none": True},
    {"by_alias": False},
    {"exclude_unset": True, "ensure_ascii": True},
]


@cache
def strategies(version: str) -> SchemaStrategies:
    return SchemaStrategies(json.loads(bundled_schema(version).read_text()))


def pydantic_dump(model: BaseModel, **options: Any) -> str:
    return BaseModel.model_dump_json(model, **options)


@pytest.mark.parametrize(("version", "name"), CASES)
@settings(
    max_examples=examples(20, 40),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_encode_writes_what_pydantic_writes(version: str, name: str, data: st.DataObject) -> None:
    gen = strategies(version)
    instance = data.draw(gen.for_def(name))
    assume(gen.is_valid(name, instance))
    decoded = TypeAdapter(getattr(MODULES[version], name)).validate_json(json.dumps(instance))
    assert isinstance(decoded, AcpModel)
    assert decoded.model_dump_json() == pydantic_dump(decoded)
    options = data.draw(st.sampled_from(OPTIONS))
    assert decoded.model_dump_json(**options) == pydantic_dump(decoded, **options)


def test_encode_of_values_set_in_python() -> None:
    # Not decoded: built by name, a nested model, an unknown key and a MISSING field.
    chunk = v2.SessionMessageChunk(
        message_id="m1", content=v2.TextContent(text="hé", meta=None), **{"xVendor": [1]}
    )
    assert chunk.model_dump_json() == pydantic_dump(chunk)
    assert json.loads(chunk.model_dump_json()) == {
        "sessionUpdate": "session_message_chunk",
        "messageId": "m1",
        "content": {"type": "text", "text": "hé", "_meta": None},
        "xVendor": [1],
    }
    assert chunk.model_dump_json(ensure_ascii=True) == pydantic_dump(chunk, ensure_ascii=True)


def test_a_model_never_validated_still_encodes() -> None:
    # Validators are built on first use; `model_construct` does not build them, so the
    # encoder is built by the first encode.
    class Probe(AcpModel):
        kind: Literal["probe"]
        note: str | None = MISSING  # type: ignore[assignment]

    assert not Probe.__pydantic_complete__
    probe = Probe.model_construct(kind="probe")
    assert probe.model_dump_json() == '{"kind":"probe"}'
    assert Probe.model_validate_json('{"kind": "probe", "note": null}').note is None


def test_bindings_build_validators_on_first_use() -> None:
    probe = (
        "from acp_schema import v2\n"
        "model = v2.TextContent\n"
        "print(model.__pydantic_complete__)\n"
        'print(model.model_validate_json(\'{"text": "x"}\').text)\n'
        "print(model.__pydantic_complete__)\n"
        "print(all(not isinstance(a, str) for a in model.__annotations__.values()))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "x", "True", "True"]
