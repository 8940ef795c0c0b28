"""Properties of the decode entry points, with Hypothesis.

- decode(encode(x)) == x for model instances decoded from schema instances;
- no JSON value, however malformed, makes any entry point raise anything but its
  documented errors: `ValidationError` from the models, `ValueError` (a ValidationError is
  one) or `UnknownMethodError` from `METHODS.decode`, `TranscriptError` from
  `TranscriptStore.apply`.
"""

from __future__ import annotations

import contextlib
import json
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter, ValidationError

from acp_schema import v1, v2
from acp_schema._jsonrpc import UnknownMethodError
from acp_schema.codegen.bundled import bundled_schema
from acp_schema.transcripts import TranscriptError, TranscriptStore
from acp_schema.v1.methods import METHODS as V1_METHODS
from acp_schema.v2.methods import METHODS as V2_METHODS
from tests.budget import examples
from tests.schema_strategies import SchemaStrategies, value_spots

NOTIFICATIONS: dict[str, type[BaseModel]] = {
    "v1": v1.SessionNotification,
    "v2": v2.UpdateSessionNotification,
}
METHOD_TABLES = {"v1": V1_METHODS, "v2": V2_METHODS}
SETTINGS = settings(
    max_examples=examples(50, 150), deadline=None, suppress_health_check=list(HealthCheck)
)

# Any JSON value, numbers at their edges included (big integers, integral floats).
NUMBERS = (
    st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([0, -1, 2**53 + 1, 2**64, 1.0, -0.0, 1e300])
)
KEYS = st.sampled_from(
    ["sessionUpdate", "messageId", "content", "type", "text", "_meta", "meta", "used",
     "size", "cost", "amount", "session_update", "message_id", "sender_session_id",
     "senderSessionId", "toolCallId", "status", "entries", "x"]
) | st.text(max_size=4)  # fmt: skip
TAGS = st.sampled_from(
    ["session_message", "session_message_chunk", "usage_update", "agent_message_chunk",
     "tool_call", "tool_call_update", "plan", "text", "image", "resource_link", "_x.y"]
)  # fmt: skip
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | NUMBERS | TAGS | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
)


@cache
def strategies(version: str) -> SchemaStrategies:
    return SchemaStrategies(json.loads(bundled_schema(version).read_text()))


def mutated(version: str) -> st.SearchStrategy[Any]:
    """Schema instances of the notification params with one value replaced at random."""

    def replace(pair: tuple[Any, Any, int]) -> Any:
        params, junk, pick = pair
        spots = value_spots(params)
        if spots:
            holder, key = spots[pick % len(spots)]
            holder[key] = junk
        return params

    name = NOTIFICATIONS[version].__name__
    return st.tuples(strategies(version).for_def(name), JSON_VALUES, st.integers(0, 99)).map(
        replace
    )


def any_params(version: str) -> st.SearchStrategy[Any]:
    return (
        mutated(version)
        | JSON_VALUES
        | st.fixed_dictionaries({"sessionId": st.text(max_size=3), "update": JSON_VALUES})
    )


@pytest.mark.parametrize("version", ["v1", "v2"])
@SETTINGS
@given(data=st.data())
def test_decode_encode_decode_is_the_identity(version: str, data: st.DataObject) -> None:
    model = NOTIFICATIONS[version]
    gen = strategies(version)
    instance = data.draw(gen.for_def(model.__name__))
    try:
        decoded = model.model_validate_json(json.dumps(instance))
    except ValidationError:
        return  # not every drawn value is schema-valid (see test_bindings_conformance)
    again = model.model_validate_json(decoded.model_dump_json())
    assert again == decoded
    assert again.model_dump_json() == decoded.model_dump_json()
    assert model.model_validate(json.loads(decoded.model_dump_json())) == decoded


@pytest.mark.parametrize("version", ["v1", "v2"])
@SETTINGS
@given(data=st.data())
def test_models_raise_only_validation_errors(version: str, data: st.DataObject) -> None:
    model = NOTIFICATIONS[version]
    params = data.draw(any_params(version))
    text = json.dumps(params)
    outcomes = []
    for decode in (lambda: model.model_validate_json(text), lambda: model.model_validate(params)):
        try:
            outcomes.append(decode().model_dump_json())
        except ValidationError:
            outcomes.append(None)
    # Python data of the wire decodes as its JSON text does.
    assert outcomes[0] == outcomes[1]
    with pytest.raises(ValidationError):
        TypeAdapter(model).validate_json(text + "}")


@pytest.mark.parametrize("version", ["v1", "v2"])
@SETTINGS
@given(data=st.data())
def test_method_tables_raise_only_documented_errors(version: str, data: st.DataObject) -> None:
    table = METHOD_TABLES[version]
    params = data.draw(any_params(version))
    envelope = data.draw(
        st.fixed_dictionaries(
            {"jsonrpc": st.sampled_from(["2.0", "2.0", "1.0"])},
            optional={
                "method": st.sampled_from([m.name for m in table]) | JSON_VALUES,
                "id": JSON_VALUES,
                "result": JSON_VALUES,
                "error": JSON_VALUES,
            },
        )
    )
    message = {**envelope, "params": params}
    method = data.draw(st.none() | st.sampled_from(sorted({m.name for m in table})))
    for raw in (json.dumps(message), message):
        with contextlib.suppress(ValueError, UnknownMethodError):
            table.decode(raw, method=method)


@pytest.mark.parametrize("version", ["v1", "v2"])
@SETTINGS
@given(data=st.data())
def test_the_store_raises_only_transcript_errors(version: str, data: st.DataObject) -> None:
    store = TranscriptStore(version)  # type: ignore[arg-type]
    params = data.draw(any_params(version))
    message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
    for raw in (json.dumps(message), message):
        with contextlib.suppress(TranscriptError):
            store.apply(raw)
