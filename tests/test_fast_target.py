"""The fast target's rules (codegen/fast_target.py), one small models module at a time:
what gets a Struct, what is left out, and how a Struct decodes."""

from __future__ import annotations

import sys
import textwrap
import types
import typing
from typing import Any

import msgspec
import pytest

from acp_schema.codegen.generate.fast_target import fast_module

HEAD = """\
from typing import Annotated, Any, Literal
from pydantic import Field
from typing_extensions import TypeAliasType
from acp_schema._runtime import (
    MISSING, AcpModel, DefaultOnError, DefaultOnNull, JsonInteger, SkipInvalidItems, TagDispatch,
)
"""


def structs(models: str) -> types.ModuleType:
    """The fast module generated for `models`, executed."""
    source = fast_module(HEAD + textwrap.dedent(models), "# header")
    module = types.ModuleType("_fast_target_case")
    sys.modules[module.__name__] = module  # msgspec resolves annotations through it
    exec(compile(source, "<fast>", "exec"), module.__dict__)
    return module


def decode(kind: Any, text: str) -> Any:
    try:
        return msgspec.json.decode(text, type=kind)
    except msgspec.DecodeError:
        return "refused"


def test_fields_keep_python_names_wire_names_and_omitted() -> None:
    fast = structs(
        """
        class Chunk(AcpModel):
            message_id: Annotated[str, Field(alias="messageId")]
            note: Annotated[str | None | MISSING, Field(alias="_note")] = MISSING
        """
    )
    chunk = decode(fast.Chunk, '{"messageId": "m"}')
    assert (chunk.message_id, chunk.note) == ("m", msgspec.UNSET)
    assert decode(fast.Chunk, '{"messageId": "m", "_note": null}').note is None
    assert msgspec.json.encode(chunk) == b'{"messageId":"m"}'
    assert decode(fast.Chunk, '{"messageId": "m", "other": 1}') == "refused"
    assert decode(fast.Chunk, '{"message_id": "m"}') == "refused"


def test_lenient_markers_become_plain_strict_types() -> None:
    fast = structs(
        """
        class Box(AcpModel):
            size: Annotated[
                Annotated[int, Field(ge=0, le=18446744073709551615)] | MISSING,
                JsonInteger(),
                DefaultOnError(),
            ] = MISSING
            count: Annotated[int, Field(ge=0, le=18446744073709551615), JsonInteger()] = 0

            tags: Annotated[list[str] | MISSING, SkipInvalidItems()] = MISSING
            names: Annotated[list[str], DefaultOnNull()] = []
        """
    )
    assert decode(fast.Box, '{"size": 3}').size == 3
    for text in ['{"size": -1}', '{"size": 1.0}', '{"size": "3"}', '{"tags": ["a", 1]}',
                 '{"names": null}', f'{{"size": {2**63}}}']:  # fmt: skip
        assert decode(fast.Box, text) == "refused", text
    assert decode(fast.Box, "{}").names == []
    assert decode(fast.Box, f'{{"count": {2**64 - 1}}}') == "refused"  # narrowed to int64


def test_tagged_unions_keep_known_variants_but_no_nested_union_or_other() -> None:
    fast = structs(
        """
        class Text(AcpModel):
            kind: Literal["text"] = "text"
            text: str
        class Image(AcpModel):
            kind: Literal["image"] = "image"
            data: str
        class Running(AcpModel):
            kind: Literal["state"] = "state"
            state: Literal["running"] = "running"
        State = TypeAliasType(
            "State", Annotated[Running, TagDispatch("state", "state", {"running": Running})]
        )
        class Other(AcpModel):
            kind: str
        Update = TypeAliasType(
            "Update",
            Annotated[
                Text | Image | State | Other,
                TagDispatch(
                    "kind", "kind", {"text": Text, "image": Image, "state": State}, other=Other
                ),
            ],
        )
        class Holder(AcpModel):
            update: Update
        """
    )
    assert (fast.Text.__struct_config__.tag_field, fast.Text.kind) == ("kind", "text")
    held = decode(fast.Holder, '{"update": {"kind": "text", "text": "hi"}}')
    assert type(held.update) is fast.Text
    assert decode(fast.Holder, '{"update": {"kind": "state", "state": "running"}}') == "refused"
    assert decode(fast.Holder, '{"update": {"kind": "future"}}') == "refused"
    assert decode(fast.Holder, '{"update": {"kind": "text"}}') == "refused"
    assert set(typing.get_args(fast.Update)) == {fast.Text, fast.Image}  # mirrored ones only


def test_a_field_without_exact_form_leaves_its_class_out_and_the_classes_that_need_it() -> None:
    fast = structs(
        """
        class Loose(AcpModel):
            value: int | float
        class Outer(AcpModel):
            loose: Loose
        class Fine(AcpModel):
            value: int | str
            again: "Fine | None" = None
        Fine.model_rebuild()
        """
    )
    assert not hasattr(fast, "Loose") and not hasattr(fast, "Outer")
    fine = decode(fast.Fine, '{"value": 1, "again": {"value": "x"}}')
    assert fine.again.value == "x"  # a recursive class stays in
    assert decode(fast.Fine, '{"value": 1.5}') == "refused"


def test_open_string_enums_read_as_str() -> None:
    fast = structs(
        """
        class Who(AcpModel):
            role: Literal["user"] | Literal["assistant"] | str
            mode: Literal["a"] | Literal["b"]
        """
    )
    assert decode(fast.Who, '{"role": "robot", "mode": "a"}').role == "robot"
    assert decode(fast.Who, '{"role": "user", "mode": "c"}') == "refused"


@pytest.mark.parametrize(
    "annotation",
    [
        "Annotated[int | MISSING, Field(ge=0)]",
        "str | int | Any",
        "dict[str, Any] | list[int] | dict[str, int]",
        "list[int] | list[str]",
    ],
)
def test_unions_with_two_members_of_one_json_kind_are_left_out(annotation: str) -> None:
    fast = structs(
        f"""
        class Mixed(AcpModel):
            value: {annotation}
        """
    )
    assert not hasattr(fast, "Mixed")


def test_a_tagged_union_with_one_mirrored_variant_still_requires_its_tag() -> None:
    # msgspec alone would decode `{}` as the one variant (it needs a tag only to choose
    # among Structs); the model's tagged union refuses an object without its tag. The
    # alias carries a sentinel Struct that never decodes, at run time only.
    fast = structs(
        """
        class Only(AcpModel):
            method: Literal["a/b"] = "a/b"
            x: int = 0
        class Loose(AcpModel):
            method: Literal["c/d"] = "c/d"
            value: int | float
        routes = TagDispatch("method", "method", {"a/b": Only, "c/d": Loose})
        Note = TypeAliasType("Note", Annotated[Only | Loose, routes])
        class Holder(AcpModel):
            note: Note | None = None
        """
    )
    assert typing.get_args(fast.Note)[0] is fast.Only
    assert type(decode(fast.Holder, '{"note": {"method": "a/b", "x": 1}}').note) is fast.Only
    assert decode(fast.Holder, '{"note": null}').note is None
    for text in ['{"note": {}}', '{"note": {"x": 1}}', '{"note": {"method": "c/d"}}',
                 '{"note": {"method": "\\u0000", "never": ""}}']:  # fmt: skip
        assert decode(fast.Holder, text) == "refused", text
    assert decode(fast.Note, "{}") == "refused"
    source = fast_module(
        HEAD
        + textwrap.dedent("""
        class Only(AcpModel):
            method: Literal["a/b"] = "a/b"
        routes = TagDispatch("method", "method", {"a/b": Only})
        Note = TypeAliasType("Note", Annotated[Only, routes])
    """),
        "# header",
    )
    assert "if TYPE_CHECKING:\n    Note: TypeAlias = Only\nelse:" in source


DISJOINT = """
class Text(AcpModel):
    uri: str
    text: str

class Blob(AcpModel):
    uri: str
    blob: str

class Loose(AcpModel):
    uri: str
"""


def test_classes_of_one_json_kind_keep_the_first_when_the_others_require_a_key_it_lacks() -> None:
    fast = structs(
        DISJOINT
        + """
class Holder(AcpModel):
    one: Text | Blob
    many: list[Text] | list[Blob] | MISSING = MISSING
"""
    )
    assert decode(fast.Holder, '{"one": {"uri": "u", "text": "t"}}').one == fast.Text(
        uri="u", text="t"
    )
    # The other member's messages, and anything with its key, take the model's path.
    assert decode(fast.Holder, '{"one": {"uri": "u", "blob": "b"}}') == "refused"
    assert decode(fast.Holder, '{"one": {"uri": "u", "text": "t", "blob": "b"}}') == "refused"
    assert decode(fast.Holder, '{"one": {"uri": "u", "text": "t"}, "many": []}').many == []
    assert not hasattr(fast, "Blob") or "Blob" not in str(typing.get_type_hints(fast.Holder))


@pytest.mark.parametrize(
    "annotation",
    [
        "Text | Loose",  # Loose requires nothing Text lacks: a Text object is a Loose too
        "list[Text] | Annotated[list[Blob], SkipInvalidItems()]",  # Blob's list can skip
    ],
)
def test_classes_of_one_json_kind_that_may_overlap_stay_out(annotation: str) -> None:
    fast = structs(DISJOINT + f"\nclass Holder(AcpModel):\n    value: {annotation}\n")
    assert not hasattr(fast, "Holder")
