"""The fast path (`acp_schema.vN.fast`) against the pydantic bindings, on every input.

The oracle is the model: for any JSON text, the fast Struct may refuse (the message then
takes the model's path), but where it accepts, the model must accept too, and both must
hold the same content: the same JSON value when written back, `to_model()` equal to the
model's own decoding, `from_model()` of that model equal to the Struct. `decode_json`, the
entry point users call, must accept and refuse exactly what the model does.

Inputs: schema instances of every mirrored definition (Hypothesis, checked valid with
jsonschema), the same instances with one value replaced by junk, unknown keys added, tags
changed, integers spelt as floats, `null` put in, and arbitrary JSON; plus hand-picked text
that is hardly JSON at all.
"""

from __future__ import annotations

import json
from functools import cache
from types import ModuleType
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError

from acp_schema import _fast, v1, v2
from acp_schema._jsonrpc import Decoded, Method, MethodTable, UnknownMethodError
from acp_schema.codegen.bundled import bundled_schema
from acp_schema.codegen.class_names import class_name
from acp_schema.v1 import fast as fast_v1
from acp_schema.v1.methods import METHODS as V1_METHODS
from acp_schema.v2 import fast as fast_v2
from acp_schema.v2.methods import METHODS as V2_METHODS
from tests.budget import examples
from tests.minimal_instances import MinimalInstances
from tests.schema_strategies import SchemaStrategies, value_spots
from tests.test_bindings_properties import JSON_VALUES

MODELS: dict[str, ModuleType] = {"v1": v1, "v2": v2}
FAST: dict[str, ModuleType] = {"v1": fast_v1, "v2": fast_v2}
NOTIFICATIONS = {"v1": "SessionNotification", "v2": "UpdateSessionNotification"}
UNKNOWN_KEYS = ("xVendorNote", "futureField", "_vendorData")  # tests/schema_strategies.py
SETTINGS = settings(
    max_examples=examples(50, 150), deadline=None, suppress_health_check=list(HealthCheck)
)


@cache  # read on every check: uncached, the scans were most of this file's time
def structs(version: str) -> dict[str, type[_fast.FastStruct[Any]]]:
    return {
        name: value
        for name, value in vars(FAST[version]).items()
        if isinstance(value, type)
        and issubclass(value, _fast.FastStruct)
        and value.__module__ == FAST[version].__name__
        and value.__name__ == name  # not an alias of one class
    }


@cache
def aliases(version: str) -> dict[str, Any]:
    """The union aliases of the fast module (named as the models' aliases)."""
    models = MODELS[version]
    struct_names = structs(version).keys()
    return {
        name: value
        for name, value in vars(FAST[version]).items()
        if not name.startswith("_")
        and name not in struct_names
        and type(getattr(models, name, None)).__name__ == "TypeAliasType"
    }


@cache
def strategies(version: str) -> SchemaStrategies:
    return SchemaStrategies(json.loads(bundled_schema(version).read_text()))


@cache
def definitions(version: str) -> dict[str, str]:
    """Struct name -> schema definition name, for the mirrored definitions."""
    mirrored = structs(version).keys() | aliases(version).keys()
    return {
        class_name(name): name for name in strategies(version).defs if class_name(name) in mirrored
    }


@cache
def decoder(kind: type[Any]) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(kind)


def canonical(text: str | bytes) -> Any:
    """A JSON text as a value in which 1 and 1.0 differ but `1e22` and `1e+22` do not."""
    return json.loads(text, parse_float=lambda s: ("float", repr(float(s))), parse_int=int)


def check(version: str, name: str, text: str | bytes) -> bool:
    """Decode `text` both ways and compare; True when the fast path took it."""
    if name in aliases(version):
        return check_alias(version, name, text)
    struct_type = structs(version)[name]
    model_type: type[BaseModel] = getattr(MODELS[version], name)
    assert struct_type.model_type() is model_type
    try:
        fast = decoder(struct_type).decode(text)
    except (msgspec.DecodeError, UnicodeError):
        fast = None
    try:
        model: BaseModel | None = model_type.model_validate_json(text)
    except ValidationError:
        model = None
    if fast is not None:
        assert model is not None, f"the fast path took what the model refuses: {text!r}"
        try:
            written = model.model_dump_json()
            assert canonical(fast.model_dump_json()) == canonical(written)
        except PydanticSerializationError:  # deeper than pydantic writes (msgspec can)
            written = None
        assert fast.to_model() == model
        if written is not None:
            assert struct_type.from_model(model) == fast
    # The entry point: the Struct exactly when the fast path takes the text, else the model.
    try:
        result = struct_type.decode_json(text)
    except ValidationError:
        assert model is None
    else:
        assert model is not None
        if fast is not None:
            assert type(result) is struct_type
            assert result == fast
        else:
            assert type(result) is model_type
            assert result == model
    return fast is not None


@cache
def adapter(version: str, name: str) -> TypeAdapter[Any]:
    return TypeAdapter(getattr(MODELS[version], name))


def check_alias(version: str, name: str, text: str | bytes) -> bool:
    """`check` for a union alias: decoded with msgspec and a TypeAdapter of the model's."""
    try:
        fast = decoder(aliases(version)[name]).decode(text)
    except msgspec.DecodeError:
        return False
    try:
        model = adapter(version, name).validate_json(text)
    except ValidationError:
        raise AssertionError(f"the fast path took what the model refuses: {text!r}") from None
    dumped = adapter(version, name).dump_json(model)
    assert canonical(msgspec.json.encode(fast)) == canonical(dumped)
    if isinstance(fast, _fast.FastStruct):
        assert fast.to_model() == model
    return True


# --- inputs ------------------------------------------------------------------------------


def _objects(value: Any) -> list[dict[str, Any]]:
    """Every JSON object in `value`, itself included."""
    inner = [holder[key] for holder, key in value_spots(value)]
    return [node for node in [value, *inner] if isinstance(node, dict)]


EDITS = st.sampled_from(
    ["junk", "null", "float", "unknown_key", "removed_key", "tag", "drop_key", "none"]
)
TAG_VALUES = st.sampled_from(
    ["session_message", "session_message_chunk", "agent_message_chunk", "text", "image",
     "state_update", "_vendor.kind", "future_kind", "", "TEXT"]
)  # fmt: skip


def edited(instance: Any, edit: str, junk: Any, tag: str, pick: int) -> Any:
    """`instance` with one edit of kind `edit` at the spot `pick` chooses."""
    spots, objects = value_spots(instance), _objects(instance)
    if edit == "junk" and spots:
        holder, key = spots[pick % len(spots)]
        holder[key] = junk
    elif edit == "null" and spots:
        holder, key = spots[pick % len(spots)]
        holder[key] = None
    elif edit == "float":
        ints = [(h, k) for h, k in spots if type(h[k]) is int]
        if ints:
            holder, key = ints[pick % len(ints)]
            holder[key] = float(holder[key])
    elif edit in ("unknown_key", "removed_key") and objects:
        target = objects[pick % len(objects)]
        key = "senderSessionId" if edit == "removed_key" else "xFuture"
        target[key] = junk if edit == "unknown_key" else "s-1"
    elif edit == "tag":
        tagged = [o for o in objects if {"type", "sessionUpdate", "state", "method"} & set(o)]
        if tagged:
            target = tagged[pick % len(tagged)]
            for key in ("sessionUpdate", "type", "state", "method"):
                if key in target:
                    target[key] = tag
                    break
    elif edit == "drop_key" and objects:
        target = objects[pick % len(objects)]
        if target:
            del target[sorted(target)[pick % len(target)]]
    return instance


def instances(version: str, name: str) -> st.SearchStrategy[Any]:
    definition = definitions(version)[name]
    return st.builds(
        edited,
        strategies(version).for_def(definition),
        EDITS,
        JSON_VALUES,
        TAG_VALUES,
        st.integers(0, 99),
    )


# --- the properties ---------------------------------------------------------------------


@pytest.mark.parametrize("version", ["v1", "v2"])
@SETTINGS
@given(data=st.data())
def test_notifications_decode_alike(version: str, data: st.DataObject) -> None:
    name = NOTIFICATIONS[version]
    check(version, name, json.dumps(data.draw(instances(version, name))))


@pytest.mark.parametrize("version", ["v1", "v2"])
@settings(max_examples=examples(100, 300), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_mirrored_definition_decodes_alike(version: str, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(definitions(version))))
    check(version, name, json.dumps(data.draw(instances(version, name))))


@pytest.mark.parametrize("version", ["v1", "v2"])
@SETTINGS
@given(value=JSON_VALUES)
def test_arbitrary_json_decodes_alike(version: str, value: Any) -> None:
    check(version, NOTIFICATIONS[version], json.dumps(value))


CHUNK = (
    '{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","messageId":"m",'
    '"content":{"type":"text","text":%s}}%s}'
)
TEXTS = [
    CHUNK % ('"hi"', ""),
    CHUNK % ('"hi"', ',"_meta":{"n":1e400}'),
    CHUNK % ('"hi"', ',"_meta":{"n":NaN}'),
    CHUNK % ('"hi"', ',"_meta":{"n":Infinity}'),
    CHUNK % ('"hi"', ',"_meta":{"n":123456789012345678901234567890}'),
    CHUNK % ('"hi"', ',"_meta":{"n":[1e22,-0.0,5e-324,0.1]}'),
    CHUNK % ('"\\ud800"', ""),
    CHUNK % ('"a\\u0000b\\u2028"', ""),
    CHUNK % ('"hi"', ',"sessionId":"t"'),  # a duplicate key
    CHUNK % ('"hi"', "") + " ",
    CHUNK % ('"hi"', "") + "x",
    CHUNK % ('"hi"', ',"_meta":' + "[" * 300 + "]" * 300),
    CHUNK % ('"hi"', ',"_meta":' + '{"a":' * 300 + "1" + "}" * 300),
    "",
    "null",
    "[]",
    "\ufeff" + CHUNK % ('"hi"', ""),
]


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_edge_texts_decode_alike(version: str, text: str) -> None:
    check(version, NOTIFICATIONS[version], text)
    check(version, NOTIFICATIONS[version], text.encode("utf-8", "surrogatepass"))


def test_a_str_with_a_lone_surrogate_takes_the_models_path() -> None:
    text = CHUNK % ('"hi"', "")
    check("v2", "UpdateSessionNotification", text.replace("hi", "h\ud800i"))


def test_bytes_that_are_not_utf8_take_the_models_path() -> None:
    text = (CHUNK % ('"hi"', "")).encode().replace(b"hi", b"h\xffi")
    check("v2", "UpdateSessionNotification", text)


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_fast_path_takes_schema_instances(version: str) -> None:
    """Coverage, not soundness: most valid notifications without unknown keys take the
    fast path (a fast path that refused everything would pass the properties). The
    strategies add unknown keys on purpose; those always take the model's path."""
    name = NOTIFICATIONS[version]
    gen = strategies(version)
    taken = total = 0

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
    @given(instance=gen.for_def(name))
    def run(instance: Any) -> None:
        nonlocal taken, total
        text = json.dumps(instance)
        if gen.is_valid(name, instance) and not any(key in text for key in UNKNOWN_KEYS):
            total += 1
            taken += check(version, name, text)

    run()
    assert total >= 30
    assert taken >= total // 2, f"{taken} of {total} valid notifications took the fast path"


# --- the generated module itself ----------------------------------------------------------


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_each_struct_mirrors_its_model_field_for_field(version: str) -> None:
    for name, struct_type in structs(version).items():
        model_type = struct_type.model_type()
        assert model_type.__name__ == name
        config = struct_type.__struct_config__
        tag_field = config.tag_field
        wire_names = {
            info.alias or field_name for field_name, info in model_type.model_fields.items()
        }
        struct_names = set(struct_type.__struct_encode_fields__)
        if tag_field is not None:
            struct_names.add(tag_field)
            assert getattr(struct_type, _python_name(model_type, tag_field)) == config.tag
        assert struct_names == wire_names, name
        assert config.forbid_unknown_fields
        msgspec.json.Decoder(struct_type)  # every annotation resolves


def _python_name(model_type: type[BaseModel], wire: str) -> str:
    return next(n for n, info in model_type.model_fields.items() if (info.alias or n) == wire)


def test_tags_are_class_attributes_with_the_model_attribute_name() -> None:
    assert fast_v2.AgentMessageChunk.session_update == "agent_message_chunk"
    assert fast_v2.AgentMessageChunk.__struct_config__.tag == "agent_message_chunk"


def test_a_model_with_an_unknown_key_has_no_fast_form() -> None:
    model = v2.UpdateSessionNotification.model_validate_json(CHUNK % ('"hi"', ',"xFuture":1'))
    with pytest.raises(_fast.NotFastError, match="UpdateSessionNotification"):
        fast_v2.UpdateSessionNotification.from_model(model)


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_sdk_conformance_inputs_decode_alike(version: str) -> None:
    """The inputs the TypeScript SDK oracle judges (tests/conformance: 2,000 drawn and
    mutated notifications per version): where the models agree with the SDK, the fast
    path must agree with the models. It needs no SDK: the comparison is with the models."""
    from tests.conformance.test_sdk_conformance import inputs

    batch = inputs(version)
    taken = sum(check(version, NOTIFICATIONS[version], case.text) for case in batch)
    assert len(batch) >= 1000
    assert 0 < taken < len(batch)


PROBES = ["{}", "[]", "null", '""', "0", '{"type": null}', '{"method": ""}', '{"_meta": {}}']


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_every_mirrored_definition_on_fixed_probes(version: str) -> None:
    """Small texts every definition sees, so that a case like an empty object is never left
    to chance (a one-variant union once took `{}` without its tag; the model refuses it)."""
    for name in sorted(definitions(version)):
        for text in PROBES:
            check(version, name, text)


# --- whole JSON-RPC messages: METHODS.decode -----------------------------------------------

TABLES: dict[str, MethodTable[Any]] = {"v1": V1_METHODS, "v2": V2_METHODS}
MESSAGE_EDITS = st.sampled_from(
    ["none", "none", "none", "unknown_key", "float_id", "bool_id", "drop_id", "drop_params",
     "add_error", "add_result", "old_jsonrpc"]
)  # fmt: skip


def entries(version: str) -> list[Method[Any]]:
    return sorted(TABLES[version], key=lambda m: (m.name, m.side, m.is_notification))


@cache
def definition_names(version: str) -> dict[str, str]:
    """Class (or alias) name -> schema definition name, for every definition."""
    return {class_name(name): name for name in strategies(version).defs}


def envelope(method: Method[Any], response: bool, payload: Any, edit: str) -> dict[str, Any]:
    """A whole message of `method` carrying `payload`, with one envelope edit."""
    if response:
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": 7, "result": payload}
    else:
        message = {"jsonrpc": "2.0", "method": method.name, "params": payload}
        if not method.is_notification:
            message["id"] = "r-1"
    if edit == "unknown_key":
        message["xEnvelope"] = 1
    elif edit in ("float_id", "bool_id") and "id" in message:
        message["id"] = 7.0 if edit == "float_id" else True
    elif edit == "drop_id":
        message.pop("id", None)
    elif edit == "drop_params":
        message.pop("params", None)
    elif edit in ("add_error", "add_result"):
        message[edit.removeprefix("add_")] = {"code": 1, "message": "m"}
    elif edit == "old_jsonrpc":
        message["jsonrpc"] = "1.0"
    return message


def check_message(version: str, method: Method[Any], text: str | bytes, side: Any) -> bool:
    """`METHODS.decode` of a whole message against the models-only decode; True when the
    fast path took it. The rule: the fast path's Decoded where it takes the message (the
    same kind, method and id, params or result with the model's content), else exactly
    what the models give or raise. (The fast path tries the route of the table's last
    message first: the two calls below take either route, the general one and the guess.)"""
    table = TABLES[version]
    options = {"method": method.name, "side": side}
    try:
        expected: Decoded | None = table.decode_models(text, **options)
        refused: Exception | None = None
    except (ValueError, UnknownMethodError) as error:
        expected, refused = None, error
    fast = table._fast_decode(text, method.name, side)
    if fast is not None:
        assert expected is not None, f"the fast path took what the models refuse: {text!r}"
        assert (fast.kind, fast.method, fast.id) == (expected.kind, expected.method, expected.id)
        response = fast.kind == "response"
        got, want = (fast.result, expected.result) if response else (fast.params, expected.params)
        adapter = method.result_adapter if response else method.params_adapter
        assert canonical(msgspec.json.encode(got)) == canonical(adapter.dump_json(want))
        if isinstance(got, _fast.FastStruct):
            assert got.to_model() == want
    try:
        result = table.decode(text, **options)
    except (ValueError, UnknownMethodError) as error:
        assert refused is not None, f"decode refused what the models take: {text!r}"
        assert type(error) is type(refused) and str(error) == str(refused)
    else:
        assert refused is None, f"decode took what the models refuse: {text!r}"
        assert result == (fast if fast is not None else expected)
    return fast is not None


@st.composite
def whole_messages(draw: st.DrawFn, version: str) -> tuple[Method[Any], str]:
    method = draw(st.sampled_from(entries(version)))
    response = not method.is_notification and draw(st.booleans())
    kind = method.result if response else method.params
    if kind is None:
        payload = draw(st.none() | JSON_VALUES)
    else:
        definition = definition_names(version)[kind.__name__]
        gen = strategies(version)
        payload = draw(
            st.builds(edited, gen.for_def(definition), EDITS, JSON_VALUES, TAG_VALUES,
                      st.integers(0, 99))
        )  # fmt: skip
    return method, json.dumps(envelope(method, response, payload, draw(MESSAGE_EDITS)))


@pytest.mark.parametrize("version", ["v1", "v2"])
@SETTINGS
@given(data=st.data())
def test_whole_messages_of_every_method_decode_alike(version: str, data: st.DataObject) -> None:
    method, text = data.draw(whole_messages(version))
    side = None if data.draw(st.booleans()) else method.side
    try:
        TABLES[version].get(method.name, side=side, notification=method.is_notification)
    except UnknownMethodError:
        side = method.side  # ambiguous without a side: the test is about decoding
    check_message(version, method, text, side)
    check_message(version, method, text.encode(), side)


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_minimal_messages_of_every_method_take_the_fast_path(version: str) -> None:
    """Every method's request or notification, and its response, with the smallest valid
    payload: both ways alike, and most of them taken by the fast path (coverage: a fast
    path that refused everything would pass the property above)."""
    instances = MinimalInstances(json.loads(bundled_schema(version).read_text()))
    names = definition_names(version)
    taken = total = 0
    for method in entries(version):
        slots = [(False, method.params)] + (
            [] if method.is_notification else [(True, method.result)]
        )
        for response, kind in slots:
            payload = instances.for_def(names[kind.__name__]) if kind is not None else None
            text = json.dumps(envelope(method, response, payload, "none"))
            total += 1
            taken += check_message(version, method, text, method.side)
    assert taken >= total * 3 // 4, f"{taken} of {total} minimal messages took the fast path"
