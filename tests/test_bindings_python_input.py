"""Python data given to the bindings (the constructor, `model_validate`, the builders,
`METHODS.decode` of a dict) holds what JSON text can, under one rule for every entry point:
values JSON cannot hold (a lone surrogate, NaN, a key that is not a string, a value that
contains itself, nesting past `MAX_DEPTH`) refuse the whole input with a one-line
`json_invalid` ValidationError, in bounded time; everything else is accepted as JSON text
spelling it would be, and what is accepted encodes."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from acp_schema import MISSING, v1, v2
from acp_schema._validation.json_values import _DEEP_CONTAINERS, MAX_DEPTH
from acp_schema.v1.methods import METHODS as V1_METHODS

from .budget import examples

MODULES = {"v1": v1, "v2": v2}


def _nested(levels: int) -> Any:
    """A value of exactly `levels` levels of arrays and objects."""
    value: Any = "end"
    for level in range(levels):
        value = {"a": value} if level % 2 else [value]
    return value


def _refusal(error: pytest.ExceptionInfo[ValidationError]) -> str:
    """The one problem of a refused input: a json_invalid error of the whole input."""
    (problem,) = error.value.errors(include_url=False)
    assert problem["type"] == "json_invalid" and problem["loc"] == ()
    message: str = problem["msg"]
    assert "\n" not in message
    return message


# --- cycles and depth: bounded, and said in one line ------------------------------------


def _cycles() -> list[tuple[str, Any, str]]:
    in_dict: dict[str, Any] = {}
    in_dict["a"] = in_dict
    in_list: list[Any] = [1]
    in_list.append(in_list)
    deeper: dict[str, Any] = {"x": [{"y": None}]}
    deeper["x"][0]["y"] = deeper["x"]
    # Branching: a walk that follows every place of it never ends, nor reaches its depth.
    branching: list[Any] = []
    branching += [branching, branching]
    return [
        ("dict", in_dict, "(at /a)"),
        ("list", in_list, "(at /1)"),
        ("deeper", deeper, "(at /x/0/y)"),
        ("branching", branching, "(at /0)"),
    ]


@pytest.mark.parametrize(("shape", "value", "where"), _cycles(), ids=[c[0] for c in _cycles()])
@pytest.mark.parametrize("version", MODULES)
def test_a_value_that_contains_itself_is_refused_at_once(
    version: str, shape: str, value: Any, where: str
) -> None:
    block = MODULES[version].TextContent

    def says(name: str) -> str:  # located from the input's root: the value's key first
        return f"a value that contains itself is not JSON {where.replace('/', f'/{name}/', 1)}"

    with pytest.raises(ValidationError) as meta:
        block(text="t", meta=value)
    assert says("meta") in _refusal(meta)
    with pytest.raises(ValidationError) as validated:
        block.model_validate({"type": "text", "text": "t", "_meta": value})
    assert says("_meta") in _refusal(validated)
    with pytest.raises(ValidationError) as unknown_key:
        block(text="t", unknownKey=value)
    assert says("unknownKey") in _refusal(unknown_key)
    with pytest.raises(ValidationError) as built:
        block(text="t").with_meta(value)
    assert says("meta") in _refusal(built)


def test_depth_is_bounded_at_max_depth() -> None:
    block = v1.TextContent
    value = _nested(MAX_DEPTH)
    deepest = block(text="t", unknownKey=value)
    assert deepest.__pydantic_extra__ == {"unknownKey": value}  # the same object
    with pytest.raises(ValidationError) as error:
        block(text="t", unknownKey=_nested(MAX_DEPTH + 1))
    message = _refusal(error)
    assert f"nested more than {MAX_DEPTH} levels deep" in message
    assert message.endswith(f"(at /unknownKey/0/a/0/.../0/a/0/a, {MAX_DEPTH + 1} steps)")
    with pytest.raises(ValidationError, match="nested more than"):
        block(text="t", meta={"k": _nested(MAX_DEPTH)})  # the dict itself is one level more


def test_a_shared_part_is_json_and_walked_once() -> None:
    # A part held in two places is JSON (it is written twice); 2**60 places in all must
    # not be walked one by one.
    shared: Any = ["leaf"]
    for _ in range(60):
        shared = [shared, shared]
    block = v2.TextContent(text="t", meta={"a": shared, "b": shared})
    assert block.meta is not None and block.meta["a"] is shared
    small = {"k": 1}
    pair = v2.TextContent(text="t", meta={"a": small, "b": small})
    assert json.loads(pair.model_dump_json())["_meta"] == {"a": {"k": 1}, "b": {"k": 1}}


def test_a_shared_part_too_deep_in_one_of_its_places_is_refused() -> None:
    part = _nested(MAX_DEPTH - 1)
    # At the top it fits; one level further down, its second place is one level too deep.
    with pytest.raises(ValidationError, match=f"nested more than {MAX_DEPTH} levels"):
        v2.TextContent(text="t", unknownKey=[part, [part]])


def test_a_shared_part_at_the_depth_limit_is_accepted_by_the_exact_walk() -> None:
    # More containers than the fast walks take (`_DEEP_CONTAINERS`): the exact walk decides,
    # and counts the levels of a part it walked already, without walking it again.
    part = _nested(MAX_DEPTH - 1)
    value = [part] * (_DEEP_CONTAINERS // (MAX_DEPTH - 1) + 1)
    assert v2.TextContent(text="t", unknownKey=value).model_extra == {"unknownKey": value}
    with pytest.raises(ValidationError, match=f"nested more than {MAX_DEPTH} levels"):
        v2.TextContent(text="t", unknownKey=[[part], *value])


def test_a_large_flat_value_is_accepted() -> None:
    # Past the first walk's budget of containers, the walk that counts levels decides.
    many = [{"k": [i]} for i in range(30_000)]
    assert v2.TextContent(text="t", meta={"many": many}).meta == {"many": many}
    many[-1]["k"].append(math.nan)
    with pytest.raises(ValidationError) as error:
        v2.TextContent(text="t", meta={"many": many})
    assert "NaN is not JSON (at /meta/many/29999/k/1)" in _refusal(error)


# --- keys ---------------------------------------------------------------------------------


@pytest.mark.parametrize("key", [1, None, 1.5, ("a",), b"k"], ids=repr)
def test_a_key_that_is_not_a_string_is_refused(key: Any) -> None:
    kind = type(key).__name__
    data = {"type": "text", "text": "t", "_meta": {"ok": {key: 1}}}
    with pytest.raises(ValidationError) as error:
        v1.TextContent.model_validate(data)
    assert f"a key of type {kind} is not JSON (at /_meta/ok)" in _refusal(error)
    with pytest.raises(ValidationError, match=f"a key of type {kind} is not JSON"):
        v1.TextContent(text="t", unknownKey={key: 1})
    with pytest.raises(ValidationError, match=f"a key of type {kind} is not JSON"):
        v1.TextContent(text="t").with_meta({key: 1})


# --- builders: the constructor's checks -----------------------------------------------------


def test_builders_validate_as_the_constructor_does() -> None:
    block = v1.TextContent(text="t")
    with pytest.raises(ValidationError) as nan:
        block.with_meta({"a": math.nan})
    assert "NaN is not JSON (at /meta/a)" in _refusal(nan)
    with pytest.raises(ValidationError) as number:
        block.with_text(5)  # type: ignore[arg-type]
    assert [e["type"] for e in number.value.errors()] == ["string_type"]
    with pytest.raises(ValidationError) as surrogate:
        block.with_text("a\ud800")
    assert "a lone surrogate is not JSON (at /text)" in _refusal(surrogate)
    upsert = v2.SessionMessage(message_id="m")
    with pytest.raises(ValidationError):
        upsert.with_message_id(None)  # type: ignore[arg-type]
    # A malformed value of a default-on-error field reads as omitted, as in the constructor.
    assert block.with_annotations(5).annotations is MISSING  # type: ignore[arg-type]
    assert v1.TextContent(text="t", annotations=5).annotations is MISSING  # type: ignore[arg-type]


def test_a_builder_leaves_its_instance_and_other_fields_alone() -> None:
    block = v2.TextContent.model_validate({"type": "text", "text": "t", "extra": [1]})
    changed = block.with_text("u").with_meta({"k": True})
    assert json.loads(changed.model_dump_json()) == {
        "type": "text",
        "text": "u",
        "extra": [1],
        "_meta": {"k": True},
    }
    assert block.model_dump_json() == '{"type":"text","text":"t","extra":[1]}'
    assert changed.model_fields_set == {"type", "text", "extra", "meta"}
    cleared = changed.with_meta(MISSING)
    assert cleared.model_dump_json() == '{"type":"text","text":"u","extra":[1]}'
    assert cleared.model_fields_set == {"type", "text", "extra"}


def test_errors_of_python_input_are_titled_by_the_class() -> None:
    with pytest.raises(ValidationError) as constructed:
        v1.TextContent(text=5)  # type: ignore[arg-type]
    with pytest.raises(ValidationError) as refused:
        v1.TextContent(text="\ud800")
    with pytest.raises(ValidationError) as built:
        v1.TextContent(text="t").with_meta({"k": math.nan})
    titles = {e.value.title for e in (constructed, refused, built)}
    assert titles == {"TextContent"}


def test_a_nested_model_given_to_a_builder_is_checked_like_a_dict() -> None:
    message = v1.SessionMessageChunk(message_id="m", content=v1.TextContent(text="a"))
    replaced = message.with_content({"type": "text", "text": "b"})  # type: ignore[arg-type]
    assert isinstance(replaced.content, v1.TextContent) and replaced.content.text == "b"
    with pytest.raises(ValidationError):
        message.with_content({"type": "video"})  # type: ignore[arg-type]


# --- MISSING: omitted, for every optional field -------------------------------------------


@pytest.mark.parametrize("version", MODULES)
def test_missing_means_omitted_for_meta_too(version: str) -> None:
    block = MODULES[version].TextContent(text="t", meta=MISSING, annotations=MISSING)
    assert block.meta is MISSING and block.model_fields_set == {"text"}
    assert block.model_dump_json() == '{"type":"text","text":"t"}'
    upsert = MODULES[version].SessionMessage(message_id="m", meta=MISSING, content=MISSING)
    assert upsert.model_dump_json() == '{"sessionUpdate":"session_message","messageId":"m"}'
    # MISSING is not a JSON value: as a free-form value it is refused.
    with pytest.raises(ValidationError, match="a value of type"):
        MODULES[version].TextContent(text="t", meta={"k": MISSING})


# --- lone surrogates: one rule for every entry point ---------------------------------------


def _notification(text: str, meta: Any = MISSING) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "text", "text": text}
    if meta is not MISSING:
        block["_meta"] = meta
    update = {"sessionUpdate": "agent_message_chunk", "content": block}
    params = {"sessionId": "s", "update": update}
    return {"jsonrpc": "2.0", "method": "session/update", "params": params}


def _outcomes(text: str) -> dict[str, str]:
    """How each entry point takes a text block holding `text`: the encoded JSON, or
    `refused` (a ValueError: every refusal must be one, a ValidationError included)."""
    message = _notification(text)
    block = message["params"]["update"]["content"]
    entry_points = {
        "constructor": lambda: v1.TextContent(text=text),
        "model_validate": lambda: v1.TextContent.model_validate(block),
        "builder": lambda: v1.TextContent(text="x").with_text(text),
        "model_validate_json": lambda: v1.TextContent.model_validate_json(
            json.dumps(block, ensure_ascii=True)
        ),
        "decode dict": lambda: V1_METHODS.decode(message).params.update.content,  # type: ignore[union-attr]
        "decode text": lambda: V1_METHODS.decode(json.dumps(message)).params.update.content,  # type: ignore[union-attr]
    }
    out: dict[str, str] = {}
    for name, run in entry_points.items():
        try:
            decoded = run()
        except ValueError:
            out[name] = "refused"
        else:
            out[name] = json.dumps(json.loads(decoded.model_dump_json()), sort_keys=True)
    return out


@pytest.mark.parametrize("text", ["\ud800", "a\udfffb", "\udc00\ud800", "ok \U0001f600"])
def test_lone_surrogates_in_typed_strings_are_refused_everywhere(text: str) -> None:
    outcomes = _outcomes(text)
    assert len(set(outcomes.values())) == 1, outcomes
    accepted = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace") == text
    assert (outcomes["constructor"] != "refused") == accepted


@settings(max_examples=examples(60, 200), deadline=None)
@given(st.text(st.characters(codec=None, exclude_categories=()), max_size=8))
def test_every_entry_point_takes_a_string_alike(text: str) -> None:
    outcomes = _outcomes(text)
    assert len(set(outcomes.values())) == 1, outcomes


def test_a_surrogate_under_default_on_error_refuses_the_whole_input() -> None:
    # `annotations` reads a malformed value as omitted; a lone surrogate is not malformed
    # but not JSON: refused, as JSON text spelling it is.
    data = {"type": "text", "text": "t", "annotations": {"lastModified": "\ud800"}}
    with pytest.raises(ValidationError) as error:
        v2.TextContent.model_validate(data)
    assert "a lone surrogate is not JSON (at /annotations/lastModified)" in _refusal(error)


def test_a_surrogate_in_a_typed_string_is_located_in_the_input() -> None:
    # Numbers, null and lists on the way: the place is the input's own path.
    good = {"type": "text", "text": "ok", "annotations": {"priority": 1.5, "audience": None}}
    bad = {"type": "text", "text": "a\udc00"}
    update = {"sessionUpdate": "session_message", "messageId": "m", "content": [good, bad]}
    with pytest.raises(ValidationError) as error:
        v2.SessionMessage.model_validate(update)
    assert "a lone surrogate is not JSON (at /content/1/text)" in _refusal(error)
    with pytest.raises(ValidationError) as in_key:
        v2.SessionMessage.model_validate({**update, "content": [good], "_meta": {"k\ud800": 1}})
    assert "a lone surrogate is not JSON (in a key at /_meta)" in _refusal(in_key)
    with pytest.raises(ValidationError) as by_constructor:
        v2.SessionMessage(message_id="m", content=[v2.TextContent(text="ok"), bad])
    assert "a lone surrogate is not JSON (at /content/1/text)" in _refusal(by_constructor)


@pytest.mark.parametrize("where", ["meta", "text"])
def test_methods_decode_refuses_with_a_value_error(where: str) -> None:
    # Before: a lone surrogate in `_meta` escaped `METHODS.decode` as NotJsonError, a TypeError.
    message = (
        _notification("t", meta={"k": "\ud800"}) if where == "meta" else _notification("\ud800")
    )
    for given_as in (message, json.dumps(message)):
        with pytest.raises(ValidationError) as error:
            V1_METHODS.decode(given_as)
        assert "a lone surrogate is not JSON" in _refusal(error)
        with pytest.raises(ValidationError):
            V1_METHODS.decode_models(given_as)


def test_nan_in_python_params_is_refused_by_methods_decode() -> None:
    message = _notification("t", meta={"k": math.nan})
    with pytest.raises(ValidationError) as error:
        V1_METHODS.decode(message)
    assert "NaN is not JSON (at /update/content/_meta/k)" in _refusal(error)


# --- generated values: what JSON text can spell is accepted as it is ------------------------

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(st.characters(codec="utf-8")),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(st.characters(codec="utf-8"), max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=examples(60, 200), deadline=None)
@given(JSON_VALUES)
def test_json_values_from_python_decode_as_their_text_does(value: Any) -> None:
    from_python = v2.TextContent(text="t", meta={"v": value}, unknownKey=value)
    text = json.dumps({"type": "text", "text": "t", "_meta": {"v": value}, "unknownKey": value})
    assert v2.TextContent.model_validate_json(text) == from_python
    assert v2.TextContent(text="t").with_meta({"v": value}).meta == from_python.meta


# --- generated values: a builder takes a value exactly as the constructor does --------------

ANY_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(st.characters(codec=None, exclude_categories=()), max_size=4)
    | st.binary(max_size=2)
    | st.just(MISSING),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner)
        | st.dictionaries(st.text(max_size=3) | st.integers(), inner, max_size=3)
    ),
    max_leaves=8,
)
BUILT = [(v2.SessionMessage, {"message_id": "m"}), (v1.TextContent, {"text": "t"})]


def _construct(make: Any) -> str:
    try:
        made = make()
    except ValidationError as error:
        return f"refused: {sorted(str(e['type']) for e in error.errors())}"
    return str(made.model_dump_json())


@settings(max_examples=examples(80, 300), deadline=None)
@given(st.sampled_from(BUILT), st.data())
def test_a_builder_takes_a_value_as_the_constructor_does(
    built: tuple[type[Any], dict[str, Any]], data: st.DataObject
) -> None:
    cls, required = built
    name = data.draw(st.sampled_from(sorted(set(cls.model_fields) - {"session_update", "type"})))
    value = data.draw(ANY_VALUE)
    by_constructor = _construct(lambda: cls(**{**required, name: value}))
    by_builder = _construct(lambda: getattr(cls(**required), f"with_{name}")(value))
    assert by_builder == by_constructor


# --- what a refusal says: the problem and its place ------------------------------------------


@pytest.mark.parametrize(
    ("meta", "says"),
    [
        ({1: "x"}, "a key of type int is not JSON (at /meta)"),
        ({"ok": {"k\ud800": 1}}, "a lone surrogate is not JSON (in a key at /meta/ok)"),
        ({"x": ["ok", "\ud800"]}, "a lone surrogate is not JSON (at /meta/x/1)"),
        ({"x": [1, b"raw"]}, "a value of type bytes is not JSON (at /meta/x/1)"),
        ({"a": 1.5, "b": {1, 2}}, "a value of type set is not JSON (at /meta/b)"),
        ({"a": {"a": {"a": {"a": {"a": {"a": [math.nan]}}}}}}, "(at /meta/a/a/a/a/a/a/0)"),
        ({"a": [[[[[[[math.nan]]]]]]]}, "(at /meta/a/0/0/.../0/0/0/0, 9 steps)"),
        ({"a/b~c": {"~": math.nan}}, "NaN is not JSON (at /meta/a~1b~0c/~0)"),
        ({"": {"/": [math.nan]}}, "NaN is not JSON (at /meta//~1/0)"),
    ],
    ids=[
        "int-key",
        "key",
        "string",
        "bytes",
        "after-a-float",
        "8-steps",
        "9-steps",
        "escaped",
        "empty-key",
    ],
)
def test_a_refusal_names_the_problem_and_its_place(meta: Any, says: str) -> None:
    with pytest.raises(ValidationError) as error:
        v1.TextContent(text="t", meta=meta)
    assert _refusal(error).endswith(says)


def test_the_exact_walk_goes_on_past_a_shared_part() -> None:
    shared = {"k": 1}
    with pytest.raises(ValidationError, match=r"NaN is not JSON \(at /meta/c\)"):
        v1.TextContent(text="t", meta={"a": shared, "b": shared, "c": math.nan})


def test_placing_a_surrogate_in_an_input_that_contains_itself_ends() -> None:
    cycle: dict[str, Any] = {}
    cycle["again"] = cycle
    # The string's refusal comes first (`text` is validated before `_meta`); finding where
    # it is walks the cyclic `_meta` first, and must end.
    with pytest.raises(ValidationError) as error:
        v1.TextContent(meta=cycle, text="\ud800")
    assert _refusal(error).endswith("a lone surrogate is not JSON (at /text)")


def test_a_type_adapter_sees_the_not_json_error_with_its_reason() -> None:
    from pydantic import TypeAdapter

    from acp_schema._runtime import NotJsonError

    adapter: TypeAdapter[Any] = TypeAdapter(v1.ContentBlock)
    with pytest.raises(NotJsonError, match=r"^NaN is not JSON \(at /k\)$"):
        adapter.validate_python({"type": "text", "text": "t", "_meta": {"k": math.nan}})


# --- a free-form value's refusal is located from the input's root ------------------------


def _pointer(keys: list[str | int]) -> str:
    """RFC 6901, written independently of the bindings: `~` is `~0`, `/` is `~1`."""
    return "".join("/" + str(key).replace("~", "~0").replace("/", "~1") for key in keys)


NOT_JSON = st.sampled_from(
    [(math.nan, "NaN is not JSON"), ("a\ud800", "a lone surrogate is not JSON")]
)


@settings(max_examples=examples(60, 200), deadline=None)
@given(
    place=st.sampled_from(
        [["update", "_meta"], ["_meta"], ["update", "rawInput"], ["update", "xUnknown"]]
    ),
    keys=st.lists(st.text(alphabet="ab/~", max_size=3), max_size=4),
    bad=NOT_JSON,
)
def test_a_free_form_refusal_names_the_full_pointer(
    place: list[str], keys: list[str], bad: tuple[Any, str]
) -> None:
    # A lone surrogate or NaN deep in `_meta`, `rawInput` or an unknown key, under keys
    # that need escaping: the pointer starts at the params, not at the free-form value.
    value, says = bad
    for key in reversed(keys):
        value = {key: value}
    params: dict[str, Any] = {
        "sessionId": "s",
        "update": {"sessionUpdate": "tool_call", "toolCallId": "t", "title": "T"},
    }
    holder = params if place == ["_meta"] else params["update"]
    holder[place[-1]] = value if keys or place[-1] != "_meta" else {"k": value}
    full = [*place, *keys] if keys or place[-1] != "_meta" else [*place, "k"]
    with pytest.raises(ValidationError) as error:
        v1.SessionNotification.model_validate(params)
    assert _refusal(error).endswith(f"{says} (at {_pointer(full)})")


def test_a_key_with_a_lone_surrogate_is_located_at_its_object() -> None:
    params = {
        "sessionId": "s",
        "update": {"sessionUpdate": "session_message", "messageId": "m", "_meta": {"\ud800": 1}},
    }
    with pytest.raises(ValidationError) as error:
        v1.SessionNotification.model_validate(params)
    assert _refusal(error).endswith("(in a key at /update/_meta)")


def test_a_free_form_value_held_in_two_places_is_located_at_the_first() -> None:
    # The same `_meta` object in two blocks: the first one validated, the first in the input.
    meta = {"k": math.nan}
    block = {"type": "text", "text": "t", "_meta": meta}
    update = {"sessionUpdate": "session_message", "messageId": "m", "content": [block, block]}
    with pytest.raises(ValidationError) as error:
        v2.SessionMessage.model_validate(update)
    assert _refusal(error).endswith("NaN is not JSON (at /content/0/_meta/k)")
