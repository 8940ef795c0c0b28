"""`to_acp` / `from_acp` over every definition both packages have, with generated values.

Values are instances of the bundled v1 schema (tests/schema_strategies.py, checked with
jsonschema; unknown keys and `_meta` included). acp's copy of the schema is older, so acp
may refuse a value; then the conversion must refuse it too, with acp's own error, and acp's
plain class must refuse it as well (the refusal is acp's, not the adapter's). Every other
value must come through with the same wire value, in both directions.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

pytest.importorskip("acp", reason="agent-client-protocol (the acp extra) is not installed")

from pydantic import BaseModel, TypeAdapter, ValidationError

from acp_schema import v1
from acp_schema._runtime import TagDispatch
from acp_schema.acp_bridge import (
    LossyConversionError,
    NoCounterpartError,
    from_acp,
    shared_definitions,
    to_acp,
)
from acp_schema.acp_bridge.convert import acp_class, first_difference
from acp_schema.codegen.bundled import bundled_schema
from tests.minimal_instances import MinimalInstances, NoInstance
from tests.schema_strategies import SchemaStrategies

SCHEMA = json.loads(bundled_schema("v1").read_text())
SHARED = shared_definitions()
MINIMAL = MinimalInstances(SCHEMA)


def with_tags(cls: type[BaseModel], value: Any) -> Any:
    """`value` with the union tags the bindings' class carries (the class of a definition
    that is also a union variant writes its tag: `TextContent` writes `type: "text"`)."""
    if not isinstance(value, dict):
        return value
    tags = {}
    for name, field in cls.model_fields.items():
        literal = getattr(field.annotation, "__args__", ())
        if "Literal" in str(field.annotation) and len(literal) == 1:
            tags[field.alias or name] = literal[0]
    return {**tags, **value}


def _bindings_hold_alone(name: str) -> bool:
    """Whether the bindings' class of a definition decodes the definition's own values
    (a few classes fold a definition into the variant that uses it, e.g.
    `ElicitationFormMode` holds the `message` of the request it belongs to)."""
    try:
        value = MINIMAL.for_def(name)
    except NoInstance:
        return False
    cls = getattr(v1, name)
    try:
        cls.model_validate(with_tags(cls, value))
    except ValidationError:
        return False
    return True


# Definitions of the schema that both packages model as a class of that name.
BOTH = sorted(set(SHARED) & set(SCHEMA["$defs"]))
CLASSES = [name for name in BOTH if _bindings_hold_alone(name)]
FOLDED = sorted(set(BOTH) - set(CLASSES))


def _variants_are_models(alias: Any) -> bool:
    value = getattr(alias, "__value__", alias)
    markers = [m for m in getattr(value, "__metadata__", ()) if isinstance(m, TagDispatch)]
    return bool(markers) and all(
        isinstance(c, type) and issubclass(c, BaseModel) for c in markers[0].variants.values()
    )


# Unions of the schema whose variants are classes (ContentBlock, SessionUpdate, ...):
# their variants carry a tag, which picks acp's subclass (`TextContentBlock`).
UNIONS = sorted(
    name
    for name in SCHEMA["$defs"]
    if name not in SHARED and hasattr(v1, name) and _variants_are_models(getattr(v1, name))
)
CASES = CLASSES + UNIONS
SETTINGS = settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@cache
def strategies() -> SchemaStrategies:
    return SchemaStrategies(SCHEMA)


@cache
def adapter(name: str) -> TypeAdapter[Any]:
    return TypeAdapter(getattr(v1, name))


def wire(model: BaseModel) -> Any:
    """An acp model's wire value: the keys it holds, by their JSON names."""
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def draw(data: st.DataObject, name: str) -> Any:
    gen = strategies()
    value = data.draw(gen.for_def(name))
    assume(gen.is_valid(name, value))
    return value


def test_the_cases_cover_what_both_packages_model() -> None:
    assert len(SHARED) > 100
    assert len(FOLDED) < 10, FOLDED  # the rest are reached through the unions using them
    assert {"SessionNotification", "ContentChunk", "ToolCallUpdate", "TextContent"} <= set(CASES)
    assert {"SessionUpdate", "ContentBlock", "ToolCallContent"} <= set(CASES)


@pytest.mark.parametrize("name", CASES)
@SETTINGS
@given(data=st.data())
def test_bindings_to_acp_and_back_keep_the_wire_value(name: str, data: st.DataObject) -> None:
    value = draw(data, name)
    if name in CLASSES:
        value = with_tags(getattr(v1, name), value)
    model = adapter(name).validate_json(json.dumps(value))
    expected = model.model_dump(mode="json")
    try:
        converted = to_acp(model)
    except NoCounterpartError:
        assert all(
            base.__name__ not in SHARED for base in type(model).__mro__ if base is not BaseModel
        )
        return
    except (ValidationError, LossyConversionError):
        # acp's own class refuses the value, or reads it differently.
        plain = _plain_acp(type(model).__name__, expected)
        assert plain is None or first_difference(expected, wire(plain)) is not None
        return
    acp_base = type(converted).__mro__[1]  # the open subclass's base is acp's own class
    assert acp_base.__module__ == "acp.schema" and isinstance(converted, acp_base)
    assert wire(converted) == expected
    back = from_acp(converted)
    assert type(back) is type(model)
    assert back.model_dump(mode="json") == expected


@pytest.mark.parametrize("name", CLASSES)
@SETTINGS
@given(data=st.data())
def test_acp_to_bindings_and_back_keep_the_wire_value(name: str, data: st.DataObject) -> None:
    value = draw(data, name)
    try:
        decoded = acp_class(name).model_validate(value)  # as acp reads it off the wire
    except ValidationError:
        return  # acp's copy of the schema refuses it: nothing of acp's to convert
    expected = wire(decoded)
    try:
        model = from_acp(decoded)
    except LossyConversionError:
        # the bindings read acp's value differently themselves (acp keeps a `null` that
        # the schema reads as an empty value, for instance)
        cls = _bindings_class(type(decoded))
        tagged = with_tags(cls, expected)
        assert cls.model_validate(tagged).model_dump(mode="json") != tagged
        return
    ours = model.model_dump(mode="json")
    assert ours == with_tags(type(model), expected)
    again = to_acp(model)
    assert wire(again) == ours


def _bindings_class(acp_type: type) -> type[BaseModel]:
    """The bindings' class named like the acp class or its nearest base."""
    for cls in acp_type.__mro__:
        if cls.__name__ in SHARED:
            found: type[BaseModel] = getattr(v1, cls.__name__)
            return found
    raise AssertionError(acp_type)


def _plain_acp(name: str, value: Any) -> BaseModel | None:
    """acp's class (by the bindings' class name or a base of it) reading the value, or None
    if it refuses it."""
    for cls in getattr(v1, name).__mro__:
        if cls.__name__ in SHARED:
            try:
                return acp_class(cls.__name__).model_validate(value)
            except ValidationError:
                return None
    return None


# --- deterministic: one minimal instance of every shared definition ----------------------

# Definitions whose smallest instance acp's older copy refuses; each is checked to be
# refused by acp's own class, so the list cannot hide an adapter bug or go stale.
ACP_REFUSES_MINIMAL = {"MessageMcpNotification", "MessageMcpRequest"}  # need connectionId


@pytest.mark.parametrize("name", CLASSES)
def test_a_minimal_instance_converts_both_ways(name: str) -> None:
    value = with_tags(getattr(v1, name), MINIMAL.for_def(name))
    model = getattr(v1, name).model_validate(value)
    if name in ACP_REFUSES_MINIMAL:
        with pytest.raises(ValidationError):
            acp_class(name).model_validate(model.model_dump(mode="json"))
        return
    converted = to_acp(model)
    assert isinstance(converted, acp_class(name))
    assert from_acp(converted) == model


def test_a_definition_acp_lacks_is_a_clear_error() -> None:
    message = v1.SessionMessage(message_id="m1", content=[v1.TextContent(text="hi")])
    with pytest.raises(NoCounterpartError, match="no definition for SessionMessage"):
        to_acp(message)
    with pytest.raises(TypeError, match=r"acp_schema\.v1 models"):
        to_acp({"sessionUpdate": "session_message"})


def test_unknown_keys_and_meta_survive_at_every_level() -> None:
    raw = {
        "sessionId": "s1",
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "hi", "xVendor": [1], "_meta": {"k": None}},
            "futureField": {"a": 1},
        },
        "_meta": {"trace": "t1"},
        "extraTop": True,
    }
    model = v1.SessionNotification.model_validate(raw)
    converted = to_acp(model)
    import acp.schema as acp_models

    assert isinstance(converted.update.content, acp_models.TextContentBlock)
    assert wire(converted) == raw
    assert from_acp(converted) == model
    # acp's plain class drops the unknown keys: that is what the open classes prevent.
    assert wire(acp_models.SessionNotification.model_validate(raw)) != raw


def test_a_fast_struct_converts_like_its_model() -> None:
    from acp_schema.v1 import fast

    text = b'{"sessionId":"s1","update":{"sessionUpdate":"usage_update","used":5,"size":9}}'
    struct = fast.SessionNotification.decode_json(text)
    assert isinstance(struct, fast.SessionNotification)
    assert wire(to_acp(struct)) == json.loads(text)


def test_a_value_acp_reads_differently_is_refused_exactly_then() -> None:
    import acp.schema as acp_models

    # acp 0.12.1's copy lists the config option categories and reads another one as null;
    # 0.12.0's keeps it. The conversion refuses the value exactly when acp changes it.
    value = {
        "sessionUpdate": "config_option_update",
        "configOptions": [
            {"id": "o", "name": "n", "type": "boolean", "currentValue": True, "category": "x"}
        ],
    }
    update = v1.ConfigOptionUpdate.model_validate(value)
    if wire(acp_models.ConfigOptionUpdate.model_validate(value)) == value:
        assert wire(to_acp(update)) == value
    else:
        with pytest.raises(LossyConversionError, match=r"configOptions\[0\]\.category"):
            to_acp(update)
