"""Property-based conformance: every instance the schema accepts decodes with the bindings
and encodes back to the same JSON value (omitted stays omitted, null stays null, unknown
keys stay)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from acp_schema import v1, v2
from acp_schema._fast import as_model
from acp_schema.codegen.bundled import bundled_schema
from acp_schema.v1.methods import METHODS as V1_METHODS
from acp_schema.v2.methods import METHODS as V2_METHODS
from tests.budget import examples
from tests.schema_strategies import SchemaStrategies

MODULES = {"v1": v1, "v2": v2}
# The session-update, content and JSON-RPC envelope types of each version (the envelopes
# decode params by `method`); whole messages through the method table below.
ENVELOPES = [
    "AgentRequest",
    "AgentNotification",
    "ClientRequest",
    "ClientNotification",
    "ProxyRequest",
    "ProxyNotification",
]
DEFINITIONS = {
    "v1": ["ContentBlock", "SessionUpdate", "SessionNotification", *ENVELOPES],
    "v2": [
        "ContentBlock",
        "SessionUpdate",
        "UpdateSessionNotification",
        *ENVELOPES,
        # Params of `$/cancel_request` (since 2.4.0 its envelope is inline in the root anyOf).
        "CancelRequestNotification",
    ],
}
CASES = [(version, name) for version, names in DEFINITIONS.items() for name in names]
# Keys the revision removed from chunks: accepted, but never part of the decoded value.
IGNORED_ON_CHUNKS = {"senderSessionId", "recipientSessionId"}


@cache
def strategies(version: str) -> SchemaStrategies:
    return SchemaStrategies(json.loads(bundled_schema(version).read_text()))


@cache
def adapter(version: str, name: str) -> TypeAdapter[Any]:
    return TypeAdapter(getattr(MODULES[version], name))


@pytest.mark.parametrize(("version", "name"), CASES)
@settings(
    max_examples=examples(30, 60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_schema_instances_round_trip(version: str, name: str, data: st.DataObject) -> None:
    gen = strategies(version)
    instance = data.draw(gen.for_def(name))
    assume(gen.is_valid(name, instance))
    codec = adapter(version, name)
    decoded = codec.validate_json(json.dumps(instance))
    assert json.loads(codec.dump_json(decoded)) == instance


@pytest.mark.parametrize("version", ["v1", "v2"])
@settings(
    max_examples=examples(40, 120),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_jsonrpc_messages_round_trip_through_the_method_table(
    version: str, data: st.DataObject
) -> None:
    """Requests, notifications and responses of every method, decoded by method name.

    The schema's envelope definitions (`AgentNotification`, ...) say only "one of these
    params", so the method table, which binds params to `method`, is what decodes them.
    """
    methods = {"v1": V1_METHODS, "v2": V2_METHODS}[version]
    gen = strategies(version)
    method = data.draw(st.sampled_from(sorted(methods, key=lambda m: (m.name, m.side))))
    response = not method.is_notification and data.draw(st.booleans())
    kind = method.result if response else method.params
    payload = data.draw(gen.for_def(kind.__name__))
    assume(gen.is_valid(kind.__name__, payload))
    if response:
        message = {"jsonrpc": "2.0", "id": 7, "result": payload}
        decoded = methods.decode(json.dumps(message), method=method.name, side=method.side)
        value, codec = as_model(decoded.result), method.result_adapter
    else:
        message = {"jsonrpc": "2.0", "method": method.name, "params": payload}
        if not method.is_notification:
            message["id"] = "r-1"
        decoded = methods.decode(json.dumps(message), side=method.side)
        value, codec = as_model(decoded.params), method.params_adapter
    assert json.loads(codec.dump_json(value)) == payload


def test_the_strategies_reach_the_revision() -> None:
    """The property above must see session messages with references, not only easy types."""
    gen = strategies("v2")
    seen: set[str] = set()

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(gen.for_def("SessionMessage"))
    def collect(instance: dict[str, Any]) -> None:
        seen.update(k for k in instance if k.endswith("MessageId"))

    collect()
    assert seen == {"senderMessageId", "recipientMessageId"}
