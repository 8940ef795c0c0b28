"""`to_acp` / `from_acp` over every definition both packages have, with generated values.

Values are instances of the bundled v1 schema (tests/schema_strategies.py, checked with
jsonschema; unknown keys and `_meta` included). acp's copy of the schema is older, so acp
may refuse a value; then the conversion must refuse it too, with acp's own error, and acp's
plain class must refuse it as well (the refusal is acp's, not the adapter's). `to_acp`
must keep every other value's wire value; `from_acp` must give the bindings' reading of
what acp writes for the value (acp's own `serialize_params`: no nulls, no defaults), or
refuse it exactly when the bindings cannot hold that as it is.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

pytest.importorskip("acp", reason="agent-client-protocol (the acp extra) is not installed")

from acp.utils import serialize_params as acp_writes  # what acp writes for a model
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
    # Back: the bindings' reading of what acp writes for it (no nulls, no defaults).
    written = with_tags(type(model), acp_writes(converted))
    _check_from_acp(converted, type(model), written)
    if written == expected:  # acp writes the whole value: it comes back unchanged
        assert from_acp(converted) == model


@pytest.mark.parametrize("name", CLASSES)
@SETTINGS
@given(data=st.data())
def test_acp_to_bindings_and_back_keep_the_wire_value(name: str, data: st.DataObject) -> None:
    value = draw(data, name)
    try:
        decoded = acp_class(name).model_validate(value)  # as acp reads it off the wire
    except ValidationError:
        return  # acp's copy of the schema refuses it: nothing of acp's to convert
    cls = _bindings_class(type(decoded))
    model = _check_from_acp(decoded, cls, with_tags(cls, acp_writes(decoded)))
    if model is not None:
        assert wire(to_acp(model)) == model.model_dump(mode="json")


def _check_from_acp(acp_model: BaseModel, cls: type[BaseModel], written: Any) -> Any:
    """`from_acp(acp_model)` is the bindings' reading of `written` (what acp writes for
    it, with the class's tags), or a `LossyConversionError` exactly when the bindings
    cannot hold that as it is; the model, or None."""
    try:
        model = from_acp(acp_model)
    except LossyConversionError:
        try:
            held = cls.model_validate(written).model_dump(mode="json")
        except ValidationError:
            return None  # acp writes it in a form the bindings refuse
        assert held != written  # the bindings read it differently
        return None
    assert model.model_dump(mode="json") == written
    assert model == type(model).model_validate(written)
    return model


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
# Definitions whose smallest instance holds a required `null` (a request ID), which acp's
# writer leaves out: from_acp says so, and the bindings do take the value as acp holds it.
ACP_WRITES_WITHOUT_REQUIRED_NULL = {"CancelRequestNotification", "ElicitationRequestScope"}


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
    assert wire(converted) == model.model_dump(mode="json")
    written = with_tags(type(model), acp_writes(converted))
    if name in ACP_WRITES_WITHOUT_REQUIRED_NULL:
        assert written.keys() < value.keys()
        with pytest.raises(LossyConversionError, match=r"in a form acp_schema\.v1 refuses"):
            from_acp(converted)
        return
    assert from_acp(converted) == type(model).model_validate(written)
    if written == value:
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
        from acp_schema.acp_bridge import ACP_VERSION

        with pytest.raises(LossyConversionError) as caught:
            to_acp(update)
        assert str(caught.value) == (
            f"agent-client-protocol {ACP_VERSION} cannot hold this ConfigOptionUpdate as it "
            "is: configOptions[0].category would be None, not 'x'"
        )


# --- values built with acp's helpers, and real loss ------------------------------------------


def _helper_values() -> list[tuple[str, BaseModel]]:
    import acp

    read = acp.start_read_tool_call("t1", "Read", "/src/a.py")
    return [
        ("start_tool_call", acp.start_tool_call("t1", "Run the tests")),
        ("start_read_tool_call", read),
        ("start_edit_tool_call", acp.start_edit_tool_call("t2", "Edit", "/a", {"x": 1})),
        ("update_tool_call", acp.update_tool_call("t1", status="completed")),
        ("session_notification", acp.session_notification("s1", read)),
        ("update_plan", acp.update_plan([acp.plan_entry("step")])),
        ("image_block", acp.image_block("aGk=", "image/png")),
        ("resource_link_block", acp.resource_link_block("a", "file:///a")),
        ("tool_diff_content", acp.tool_diff_content("/a", "new")),
        ("embedded_text_resource", acp.embedded_text_resource("file:///a", "hi")),
    ]


@pytest.mark.parametrize(("helper", "value"), _helper_values())
def test_a_value_built_with_acps_helpers_converts_as_the_wire_decoded_one(
    helper: str, value: BaseModel
) -> None:
    # acp's helpers set every unused field to None, which acp itself never writes.
    written = acp_writes(value)
    assert wire(value) != written or helper == "update_plan"  # it holds nulls acp leaves out
    decoded = type(value).model_validate(written)  # the same value, as a peer receives it
    model = from_acp(value)
    assert model == from_acp(decoded)
    assert model.model_dump(mode="json") == {**_tags_of(model), **written}
    assert None not in model.model_dump(mode="json").values()


def _tags_of(model: BaseModel) -> dict[str, Any]:
    return {
        key: value
        for key, value in model.model_dump(mode="json").items()
        if key in ("type", "sessionUpdate")
    }


def test_a_key_the_bindings_would_drop_is_a_loss() -> None:
    import acp.schema as acp_models

    # acp takes any line number; the bindings' `line` is a uint32 that defaults on error,
    # so they would read 2**40 as omitted: that is a loss, not a conversion.
    location = acp_models.ToolCallLocation(path="/a", line=2**40)
    with pytest.raises(LossyConversionError) as caught:
        from_acp(location)
    assert str(caught.value) == (
        "acp_schema.v1 cannot hold this ToolCallLocation as it is: line would be dropped"
    )
    assert from_acp(acp_models.ToolCallLocation(path="/a", line=2**31)).line == 2**31


def test_a_required_null_acp_would_not_write_is_a_loss() -> None:
    import acp.schema as acp_models

    from acp_schema.acp_bridge import ACP_VERSION

    cancel = acp_models.CancelRequestNotification(request_id=None)
    with pytest.raises(LossyConversionError) as caught:
        from_acp(cancel)
    assert str(caught.value) == (
        f"agent-client-protocol {ACP_VERSION} writes this CancelRequestNotification in a form "
        "acp_schema.v1 refuses (acp leaves out null values and defaults): requestId: "
        "Field required"
    )
    assert from_acp(acp_models.CancelRequestNotification(request_id=7)).request_id == 7


@pytest.mark.parametrize(
    ("expected", "actual", "difference"),
    [
        ({"a": 1}, {"a": 1}, None),
        ({"a": 1}, {"a": 1.0}, None),  # one JSON number
        ({"a": 1}, {}, "a would be dropped"),
        ({}, {"a": None}, "a would be added"),
        ({"a": {"b": [1, 2]}}, {"a": {"b": [1]}}, "a.b would have 1 items, not 2"),
        ({"a": [{"b": 1}]}, {"a": [{"b": 2}]}, "a[0].b would be 2, not 1"),
        ({"a": True}, {"a": 1}, "a would be 1, not True"),  # True is not 1
        ({"a": 1}, {"a": True}, "a would be True, not 1"),
        ({"a": None}, {"a": 0}, "a would be 0, not None"),
        ([1], [1, 2], "(top level) would have 2 items, not 1"),
        ("x", "y", "(top level) would be 'y', not 'x'"),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, None),  # key order is not a difference
        ({"a": 1}, [1], "(top level) would be [1], not {'a': 1}"),
        ([1], {"a": 1}, "(top level) would be {'a': 1}, not [1]"),
        ({"a": [1]}, {"a": "x"}, "a would be 'x', not [1]"),
    ],
)
def test_first_difference_names_the_place(expected: Any, actual: Any, difference: str) -> None:
    assert first_difference(expected, actual) == difference


# --- which class on the other side: the tags the value carries pick it ------------------------


def _acp_base(model: BaseModel) -> type:
    """acp's class of a `to_acp` result (its open subclass's base)."""
    return type(model).__mro__[1]


@pytest.mark.parametrize(
    ("make", "acp_name"),
    [
        (lambda: v1.TextContent(text="hi"), "TextContentBlock"),
        (lambda: v1.ImageContent(data="aGk=", mime_type="image/png"), "ImageContentBlock"),
        (lambda: v1.UserMessageChunk(content=v1.TextContent(text="u")), "UserMessageChunk"),
        (lambda: v1.AgentMessageChunk(content=v1.TextContent(text="a")), "AgentMessageChunk"),
        (lambda: v1.AgentThoughtChunk(content=v1.TextContent(text="t")), "AgentThoughtChunk"),
        (lambda: v1.ContentChunk(content=v1.TextContent(text="c")), "ContentChunk"),
        (lambda: v1.ToolCallUpdate(tool_call_id="t"), "ToolCallUpdate"),
        (lambda: v1.SessionUpdateToolCallUpdate(tool_call_id="t"), "ToolCallProgress"),
    ],
)
def test_to_acp_gives_the_class_whose_tags_the_value_carries(make: Any, acp_name: str) -> None:
    import acp.schema as acp_models

    model = make()
    converted = to_acp(model)
    assert _acp_base(converted) is getattr(acp_models, acp_name)
    assert type(from_acp(converted)) is type(model)  # and back to the same class


def test_from_acp_gives_the_variant_and_its_tag() -> None:
    import acp.schema as acp_models

    text = acp_models.TextContentBlock(type="text", text="x")
    cases: list[tuple[BaseModel, type[BaseModel], dict[str, Any]]] = [
        # acp's TextContent has no `type`; the bindings' class is the union variant
        (acp_models.TextContent(text="x"), v1.TextContent, {"type": "text", "text": "x"}),
        (
            acp_models.AgentThoughtChunk(session_update="agent_thought_chunk", content=text),
            v1.AgentThoughtChunk,
            {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "x"}},
        ),
        (
            acp_models.ToolCallProgress(session_update="tool_call_update", tool_call_id="t"),
            v1.SessionUpdateToolCallUpdate,
            {"sessionUpdate": "tool_call_update", "toolCallId": "t"},
        ),
        (acp_models.ToolCallUpdate(tool_call_id="t"), v1.ToolCallUpdate, {"toolCallId": "t"}),
    ]
    for acp_model, cls, wire_value in cases:
        model = from_acp(acp_model)
        assert type(model) is cls
        assert model.model_dump(mode="json") == wire_value


def test_what_is_not_the_other_packages_model_is_a_type_error() -> None:
    import acp.schema as acp_models
    from pydantic import BaseModel as Plain

    class Other(Plain):
        text: str = "x"

    acp_text = acp_models.TextContentBlock(type="text", text="x")
    with pytest.raises(
        TypeError, match=r"^to_acp converts acp_schema\.v1 models, not TextContentBlock$"
    ):
        to_acp(acp_text)
    with pytest.raises(TypeError, match=r"^to_acp converts acp_schema\.v1 models, not Other$"):
        to_acp(Other())
    with pytest.raises(TypeError, match=r"^from_acp converts acp\.schema models, not TextContent$"):
        from_acp(v1.TextContent(text="x"))
    with pytest.raises(TypeError, match=r"^from_acp converts acp\.schema models, not Other$"):
        from_acp(Other())
    with pytest.raises(TypeError, match=r"not dict$"):
        from_acp({"type": "text"})  # type: ignore[arg-type]


def test_a_definition_the_other_side_lacks_is_named() -> None:
    import acp.schema as acp_models

    from acp_schema.acp_bridge import ACP_VERSION

    message = v1.SessionMessage(message_id="m1")
    with pytest.raises(NoCounterpartError) as to_theirs:
        to_acp(message)
    assert str(to_theirs.value) == (
        f"acp (agent-client-protocol {ACP_VERSION}) has no definition for SessionMessage: "
        "send it with acp_schema.acp_bridge.send"
    )
    nes = acp_models.AcceptNesNotification(session_id="s", id="n")
    with pytest.raises(NoCounterpartError) as to_ours:
        from_acp(nes)
    assert str(to_ours.value) == (
        f"acp_schema.v1 (agent-client-protocol {ACP_VERSION}) has no definition for "
        "AcceptNesNotification"
    )
    with pytest.raises(NoCounterpartError, match=f"^agent-client-protocol {ACP_VERSION} has no X$"):
        acp_class("X")
    with pytest.raises(NoCounterpartError):  # acp.schema's base class is no definition
        acp_class("BaseModel")


def test_the_shared_definitions_are_the_model_classes_both_name() -> None:
    import acp.schema as acp_models

    shared = shared_definitions()
    assert shared == sorted(set(shared))
    for name in shared:
        ours, theirs = getattr(v1, name), getattr(acp_models, name)
        assert issubclass(ours, BaseModel) and issubclass(theirs, BaseModel)
        assert ours.__name__ == theirs.__name__ == name
    assert not {"BaseModel", "RootModel", "SessionMessage", "AcceptNesNotification"} & set(shared)
    assert not [name for name in shared if name.startswith("_")]


def test_integers_beyond_64_bits_are_compared_as_values() -> None:
    # msgspec cannot write them; the loss check compares the values instead.
    big = 2**70
    model = v1.ToolCallUpdate(tool_call_id="t", raw_input={"n": big, "m": [big, 1.0]})
    converted = to_acp(model)
    assert wire(converted)["rawInput"] == {"n": big, "m": [big, 1.0]}
    assert from_acp(converted) == model


def test_a_tag_in_a_base_classs_value_picks_the_subclass_it_names() -> None:
    import acp.schema as acp_models

    # The bindings' ContentChunk keeps an unknown `sessionUpdate` key; acp's ContentChunk
    # family has a subclass per tag, and the one the value names (not the first, whose tag
    # it contradicts) is the class that holds it.
    chunk = v1.ContentChunk.model_validate(
        {"content": {"type": "text", "text": "x"}, "sessionUpdate": "agent_thought_chunk"}
    )
    converted = to_acp(chunk)
    assert _acp_base(converted) is acp_models.AgentThoughtChunk
    assert wire(converted) == chunk.model_dump(mode="json")


def test_a_url_acp_would_rewrite_is_a_loss() -> None:
    from acp_schema.acp_bridge import ACP_VERSION

    def url_mode(url: str) -> BaseModel:
        return v1.ElicitationUrlMode.model_validate(
            {"mode": "url", "elicitationId": "e", "url": url, "message": "m", "sessionId": "s"}
        )

    # acp holds a URL as pydantic's AnyUrl: compared as the JSON it writes, one it keeps
    # as it is converts ...
    kept = url_mode("https://example.com/a")
    assert wire(to_acp(kept))["url"] == "https://example.com/a"
    # ... and one it rewrites (a path added) is refused, not changed.
    with pytest.raises(LossyConversionError) as caught:
        to_acp(url_mode("https://example.com"))
    assert str(caught.value) == (
        f"agent-client-protocol {ACP_VERSION} cannot hold this ElicitationUrlMode as it is: "
        "url would be 'https://example.com/', not 'https://example.com'"
    )
