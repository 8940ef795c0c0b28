"""The clean pass of `model_validate_json` (`acp_schema._validation.clean_pass`) against the
configured validation it stands in for.

The oracle is pydantic's own validation of the model as configured (unknown keys kept),
called directly on the model's validator: for any text, `model_validate_json` must accept
and refuse exactly what it does, and give the same content (the same classes, fields, fields
set, unknown keys, the same JSON written back) or the same errors as the configured path of
`model_validate_json`. Inputs: schema instances of every model of both versions, with one
edit each (junk, `null`, unknown keys, removed keys, tags changed, keys dropped), as in
tests/test_fast_equivalence.py; and hand-made unions where forbidding unknown keys would pick
another member.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic.dataclasses import dataclass as pydantic_dataclass

from acp_schema import v1, v2
from acp_schema._runtime import AcpModel
from acp_schema.codegen.class_names import class_name
from tests.budget import examples
from tests.test_bindings_properties import JSON_VALUES
from tests.test_fast_equivalence import (
    EDITS,
    MODELS,
    NOTIFICATIONS,
    TAG_VALUES,
    UNKNOWN_KEYS,
    edited,
)
from tests.test_fast_equivalence import strategies as schema_strategies


@cache
def model_definitions(version: str) -> dict[str, str]:
    """Class name -> schema definition name, for every definition that is a model."""
    found = {}
    for definition in schema_strategies(version).defs:
        kind = getattr(MODELS[version], class_name(definition), None)
        if isinstance(kind, type) and issubclass(kind, AcpModel):
            found[class_name(definition)] = definition
    return found


def same(ours: Any, theirs: Any, where: str = "") -> None:
    """`ours` holds exactly what `theirs` holds: classes, values and their JSON types,
    the fields set and the unknown keys of every model (None and {} alike)."""
    assert type(ours) is type(theirs), where
    if isinstance(ours, BaseModel):
        assert ours.__dict__.keys() == theirs.__dict__.keys(), where
        assert ours.__pydantic_fields_set__ == theirs.__pydantic_fields_set__, where
        assert (ours.__pydantic_extra__ or {}).keys() == (theirs.__pydantic_extra__ or {}).keys()
        for key, value in ours.__dict__.items():
            same(value, theirs.__dict__[key], f"{where}.{key}")
        for key, value in (ours.__pydantic_extra__ or {}).items():
            same(value, theirs.__pydantic_extra__[key], f"{where}.{key}")
    elif isinstance(ours, dict):
        assert ours.keys() == theirs.keys(), where
        for key, value in ours.items():
            same(value, theirs[key], f"{where}.{key}")
    elif isinstance(ours, list):
        assert len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            same(a, b, f"{where}[{i}]")
    else:
        assert ours == theirs or (ours != ours and theirs != theirs), where


def check(model: type[AcpModel], text: str | bytes) -> bool:
    """Decode `text` with the clean pass first and as configured; True when both accept."""
    try:
        theirs = model.__pydantic_validator__.validate_json(text)
    except ValidationError:
        theirs = None
    except Exception:  # `NaN`, too deep: what `model_validate_json` does then is its own
        theirs = None
    try:
        ours = model.model_validate_json(text)
    except ValidationError as error:
        with pytest.raises(ValidationError) as configured:
            model._validate_json_as_configured(text)
        assert error.errors() == configured.value.errors()
        assert theirs is None
        return False
    if theirs is None:  # accepted only past pydantic-core's depth limit: as configured
        same(ours, model._validate_json_as_configured(text))
        return False
    same(ours, theirs)
    assert ours == theirs
    assert ours.model_dump_json() == theirs.model_dump_json()
    return True


SETTINGS = settings(
    max_examples=examples(60, 200), deadline=None, suppress_health_check=list(HealthCheck)
)


def instances(version: str, name: str) -> st.SearchStrategy[Any]:
    return st.builds(
        edited,
        schema_strategies(version).for_def(model_definitions(version)[name]),
        EDITS,
        JSON_VALUES,
        TAG_VALUES,
        st.integers(0, 99),
    )


@pytest.mark.parametrize("version", ["v1", "v2"])
@SETTINGS
@given(data=st.data())
def test_notifications_decode_as_configured(version: str, data: st.DataObject) -> None:
    name = NOTIFICATIONS[version]
    check(getattr(MODELS[version], name), json.dumps(data.draw(instances(version, name))))


@pytest.mark.parametrize("version", ["v1", "v2"])
@settings(max_examples=examples(150, 500), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_model_decodes_as_configured(version: str, data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(model_definitions(version))))
    check(getattr(MODELS[version], name), json.dumps(data.draw(instances(version, name))))


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_clean_messages_take_the_clean_pass(version: str) -> None:
    """Coverage, not soundness: valid messages without unknown keys are decoded by the
    clean pass (one that always gave up would pass the properties), which leaves no dict
    of unknown keys in any model."""
    name = NOTIFICATIONS[version]
    gen, model = schema_strategies(version), getattr(MODELS[version], name)
    taken = total = 0

    @settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
    @given(instance=gen.for_def(model_definitions(version)[name]))
    def run(instance: Any) -> None:
        nonlocal taken, total
        text = json.dumps(instance)
        unknown = any(key in text for key in UNKNOWN_KEYS)  # the strategies add some
        if check(model, text) and gen.is_valid(name, instance) and not unknown:
            total += 1
            decoded = model.model_validate_json(text)
            taken += all(m.__pydantic_extra__ is None for m in models_in(decoded))

    run()
    assert total >= 30, f"only {total} of 250 drawn messages were valid and free of unknown keys"
    assert taken >= total // 2, f"{taken} of {total} valid messages took the clean pass"


def models_in(value: Any) -> list[BaseModel]:
    found: list[BaseModel] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, BaseModel):
            found.append(item)
            stack.extend(item.__dict__.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return found


# --- where forbidding unknown keys alone would change the result ----------------------------


class Inner(AcpModel):
    x: int


class Nested(AcpModel):
    k: str
    inner: Inner


class Loose(AcpModel):
    k: str
    inner: dict[str, Any]


class EitherNested(AcpModel):
    value: Nested | Loose


def test_a_union_member_refused_for_a_nested_unknown_key_still_wins() -> None:
    """With unknown keys forbidden, `Nested` fails on `inner.y` and `Loose` takes the
    object; configured, pydantic's smart mode picks `Nested` (first of two equals)."""
    text = '{"value": {"k": "s", "inner": {"x": 1, "y": 2}}}'
    assert check(EitherNested, text)
    decoded = EitherNested.model_validate_json(text)
    assert isinstance(decoded.value, Nested)
    assert decoded.value.inner.model_extra == {"y": 2}
    forbidding = EitherNested.__pydantic_validator__.validate_json(text, extra="forbid")
    assert isinstance(forbidding.value, Loose)  # what a bare forbidding pass would give


class Link(AcpModel):
    uri: str


class TextLink(AcpModel):
    uri: str
    text: str


class LinkFirst(AcpModel):
    value: Link | TextLink


class TextFirst(AcpModel):
    value: TextLink | Link


@pytest.mark.parametrize("holder", [LinkFirst, TextFirst])
def test_a_union_of_leaf_models_needs_no_guard(holder: type[AcpModel]) -> None:
    """The premise that leaves such unions unguarded: configured, the member that takes
    every key as a field beats one that would keep a key as unknown."""
    text = '{"value": {"uri": "u", "text": "t"}}'
    assert check(holder, text)
    decoded = holder.model_validate_json(text)
    assert type(decoded.value) is TextLink
    assert decoded.__pydantic_extra__ is None  # and the clean pass took it


def test_select_options_with_both_shapes_decode_as_configured() -> None:
    """An item that is both an option and a group, each with unknown keys (the union of
    option lists and group lists is guarded: the configured path decides)."""
    option = {"value": "a", "name": "A", "group": "g", "options": []}
    select = {"type": "select", "name": "Mode", "currentValue": "a", "options": [option]}
    for version, key in ((v1, "id"), (v2, "configId")):
        text = json.dumps({**select, key: "mode"})
        assert check(version.SessionConfigSelect, text)


def test_a_default_on_error_field_keeps_a_model_with_an_unknown_key() -> None:
    """The fallback reads a refused value as omitted; here the refusal was only the clean
    pass's, so the configured path decides and keeps the annotations."""
    text = '{"type": "text", "text": "hi", "annotations": {"priority": 0.5, "xFuture": 1}}'
    for version in (v1, v2):
        assert check(version.TextContent, text)
        decoded = version.TextContent.model_validate_json(text)
        assert decoded.annotations.model_extra == {"xFuture": 1}


def test_a_skipped_item_is_not_an_item_with_an_unknown_key() -> None:
    text = json.dumps(
        {
            "entries": [
                {"content": "a", "priority": "high", "status": "pending", "xFuture": 1},
                {"content": "b", "priority": "nope", "status": "pending"},
            ],
        }
    )
    decoded = v1.Plan.model_validate_json(text)
    assert check(v1.Plan, text)
    assert [entry.content for entry in decoded.entries] == ["a"]
    assert decoded.entries[0].model_extra == {"xFuture": 1}


# --- a model from the clean pass behaves as one from the configured path -----------------


CHUNK = (
    '{"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk",'
    ' "content": {"type": "text", "text": "hi"}}}'
)


def test_unknown_keys_of_a_clean_model_read_and_write_as_configured() -> None:
    decoded = v1.SessionNotification.model_validate_json(CHUNK)
    built = v1.SessionNotification.model_validate(json.loads(CHUNK))
    assert decoded.__pydantic_extra__ is None and built.__pydantic_extra__ == {}
    assert decoded == built
    assert decoded.model_extra == {}
    decoded.model_extra["xNote"] = 1  # the dict the caller gets is the model's
    decoded.update.xFuture = "f"  # an unknown attribute is an unknown key
    written = json.loads(decoded.model_dump_json())
    assert written["xNote"] == 1 and written["update"]["xFuture"] == "f"
    assert decoded.update.model_fields_set >= {"xFuture"}
    again = decoded.model_copy(update={"xOther": 2})
    assert json.loads(again.model_dump_json())["xOther"] == 2
    assert decoded.update.content.with_text("yo").text == "yo"


def test_text_the_fast_path_refuses_skips_the_clean_pass() -> None:
    """The fast path's fallback goes to the configured validation at once; its result is
    the same model as `model_validate_json` gives."""
    from acp_schema.v1 import fast

    text = CHUNK.replace('"hi"}', '"hi", "xFuture": 1}')
    result = fast.SessionNotification.decode_json(text)
    assert type(result) is v1.SessionNotification
    assert result == v1.SessionNotification.model_validate_json(text)
    assert result.update.content.model_extra == {"xFuture": 1}


def test_error_data_with_an_unknown_key_stays_the_known_shape() -> None:
    """v2 `Error.data` is a smart union of two models and any JSON value: with unknown keys
    forbidden, `{"sessionId", "x"}` would become a plain dict."""
    text = json.dumps({"code": -32002, "message": "m", "data": {"sessionId": "s", "x": 1}})
    assert check(v2.Error, text)
    decoded = v2.Error.model_validate_json(text)
    assert isinstance(decoded.data, v2.SessionNotFoundErrorData)
    assert decoded.data.model_extra == {"x": 1}
    forbidding = v2.Error.__pydantic_validator__.validate_json(text, extra="forbid")
    assert type(forbidding.data) is dict  # what a bare forbidding pass would give


# --- the pydantic behaviour the clean pass works around ------------------------------------


class OneField(AcpModel):
    text: str


def _counted_per_result(validate: Any) -> float:
    """What one kept result adds to the collector's count of the young generation."""
    import gc

    gc.collect()
    gc.disable()
    try:
        before = gc.get_count()[0]
        kept = [validate('{"text": "hi"}') for _ in range(200)]
        counted = (gc.get_count()[0] - before) / len(kept)
    finally:
        gc.enable()
    return counted


def test_pydantic_makes_an_extras_dict_per_instance_that_the_clean_pass_does_not() -> None:
    """Why the clean pass exists (docs/performance.md, "Kept decode"): with unknown keys
    allowed, pydantic gives each instance its own (empty) dict for them, one more object
    the collector counts. If this starts failing, pydantic stopped doing so, and the pass
    can go."""
    configured = OneField.__pydantic_validator__.validate_json
    assert _counted_per_result(configured) == pytest.approx(4, abs=0.1)
    assert _counted_per_result(OneField.model_validate_json) == pytest.approx(3, abs=0.1)


class Watched(AcpModel):
    text: str

    @field_validator("text")
    @classmethod
    def _note_context(cls, value: str, info: ValidationInfo) -> str:
        Watched.seen.append(info.context)
        return value

    seen: ClassVar[list[Any]] = []


def test_a_validator_of_a_subclass_sees_an_empty_mapping_as_context() -> None:
    Watched.seen.clear()
    Watched.model_validate_json('{"text": "hi"}')
    Watched.model_validate_json('{"text": "hi", "x": 1}')  # the clean pass, then configured
    context = Watched.seen[0]
    assert isinstance(context, Mapping) and dict(context) == {} and not context
    assert len(context) == 0 and list(context) == [] and context.get("k") is None
    assert repr(context) == "<acp_schema clean pass>"
    assert Watched.seen[1:] == [context, None]


@pydantic_dataclass(config=ConfigDict(extra="allow"))
class Point:
    k: str


class EitherPoint(AcpModel):
    value: Point | dict[str, Any]


def test_a_dataclass_refused_for_an_unknown_key_still_wins() -> None:
    """A dataclass is a class with unknown keys too: with them forbidden, the plain dict
    would take the object; configured, the dataclass does."""
    text = '{"value": {"k": "s", "x": 1}}'
    assert check(EitherPoint, text)
    assert type(EitherPoint.model_validate_json(text).value) is Point
    forbidding = EitherPoint.__pydantic_validator__.validate_json(text, extra="forbid")
    assert type(forbidding.value) is dict


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_which_messages_of_a_stream_take_the_clean_pass(version: str) -> None:
    """Of the realistic corpus (tests/bench/_corpus.py: every update kind an agent streams),
    every message is decoded by the clean pass, no dict of unknown keys made, except the
    config option updates, whose select options are a union of option lists and group
    lists: guarded, they take the configured path."""
    from tests.bench import _corpus

    model = getattr(MODELS[version], NOTIFICATIONS[version])
    for line in _corpus.lines(version, 300):
        kind = json.loads(line)["params"]["update"]["sessionUpdate"]
        params = json.dumps(json.loads(line)["params"])
        decoded = model.model_validate_json(params)
        clean = all(m.__pydantic_extra__ is None for m in models_in(decoded))
        assert clean == (kind != "config_option_update"), kind


class Chain(AcpModel):
    label: str
    next: Chain | dict[str, Any] | None = None


def test_a_recursive_union_is_guarded_while_its_class_is_being_defined() -> None:
    """`Chain` refers to itself before its schema is complete: the union cannot tell yet
    what `Chain` holds, so it is guarded; with unknown keys forbidden, the inner object
    would become a plain dict."""
    text = '{"label": "a", "next": {"label": "b", "x": 1}}'
    assert check(Chain, text)
    assert type(Chain.model_validate_json(text).next) is Chain
    forbidding = Chain.__pydantic_validator__.validate_json(text, extra="forbid")
    assert type(forbidding.next) is dict


class Lenient(AcpModel):
    inner: Inner | None = None

    @field_validator("inner", mode="wrap")
    @classmethod
    def _none_when_refused(cls, value: Any, handler: Any) -> Any:
        try:
            return handler(value)
        except ValidationError:
            return None


def test_a_wrap_validator_that_swallows_a_refusal_is_guarded() -> None:
    text = '{"inner": {"x": 1, "y": 2}}'
    assert check(Lenient, text)
    assert Lenient.model_validate_json(text).inner == Inner(x=1, y=2)
    forbidding = Lenient.__pydantic_validator__.validate_json(text, extra="forbid")
    assert forbidding.inner is None


class LinkFirstInOrder(AcpModel):
    value: Annotated[Link | TextLink, Field(union_mode="left_to_right")]


def test_a_left_to_right_union_of_leaf_models_is_guarded() -> None:
    """In order, the first member that takes the object wins, unknown keys and all: with
    them forbidden, the second would."""
    text = '{"value": {"uri": "u", "text": "t"}}'
    assert check(LinkFirstInOrder, text)
    assert type(LinkFirstInOrder.model_validate_json(text).value) is Link
    forbidding = LinkFirstInOrder.__pydantic_validator__.validate_json(text, extra="forbid")
    assert type(forbidding.value) is TextLink
