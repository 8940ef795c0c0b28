"""The pre-pass naming rule on small synthetic schemas."""

from __future__ import annotations

from typing import Any

import pytest

from acp_schema.codegen.generate.prepass import NamingError, pascal, prepass


def tagged(tag: str, ref: str, prop: str = "kind") -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {prop: {"type": "string", "const": tag}},
        "required": [prop],
        "allOf": [{"$ref": f"#/$defs/{ref}"}],
    }


def obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {k: {"type": v} for k, v in props.items()}}


def other(prop: str = "kind") -> dict[str, Any]:
    return {
        "title": "other",
        "type": "object",
        "properties": {prop: {"type": "string"}},
        "required": [prop],
        "not": {"anyOf": []},
    }


def test_pascal() -> None:
    assert pascal("agent_message_chunk") == "AgentMessageChunk"
    assert pascal("session/update") == "SessionUpdate"
    assert pascal("$/cancel_request") == "CancelRequest"


def test_a_variant_that_is_one_definition_becomes_that_definition() -> None:
    result = prepass(
        {
            "$defs": {
                "Update": {"anyOf": [tagged("text_part", "TextPart"), tagged("image", "Img")]},
                "TextPart": obj(text="string"),
                "Img": obj(data="string"),
            }
        }
    )
    defs = result.schema["$defs"]
    assert result.unions["Update"].variants == {"text_part": "TextPart", "image": "Img"}
    assert defs["TextPart"]["properties"]["kind"] == {
        "type": "string",
        "const": "text_part",
        "default": "text_part",
    }


def test_shared_bodies_are_named_by_tag_and_single_words_get_the_union_prefix() -> None:
    result = prepass(
        {
            "$defs": {
                "Update": {
                    "anyOf": [
                        tagged("agent_chunk", "Chunk"),
                        tagged("user_chunk", "Chunk"),
                        tagged("stop", "Chunk"),
                        other(),
                    ]
                },
                "Chunk": obj(text="string"),
            }
        }
    )
    union = result.unions["Update"]
    assert union.variants == {
        "agent_chunk": "AgentChunk",
        "user_chunk": "UserChunk",
        "stop": "UpdateStop",  # a single word is too generic alone
    }
    assert union.other == "UpdateOther"
    assert "not" not in result.schema["$defs"]["UpdateOther"]


def test_a_taken_name_gets_the_union_prefix() -> None:
    result = prepass(
        {
            "$defs": {
                "Update": {
                    "anyOf": [tagged("agent_chunk", "Chunk"), tagged("user_chunk", "Chunk")]
                },
                "Chunk": obj(text="string"),
                "AgentChunk": obj(other="string"),
            }
        }
    )
    assert result.unions["Update"].variants["agent_chunk"] == "UpdateAgentChunk"


def test_an_unresolvable_collision_is_an_error() -> None:
    schema = {
        "$defs": {
            "Update": {"anyOf": [tagged("agent_chunk", "Chunk"), tagged("user_chunk", "Chunk")]},
            "Chunk": obj(text="string"),
            "AgentChunk": obj(a="string"),
            "UpdateAgentChunk": obj(b="string"),
        }
    }
    with pytest.raises(NamingError, match="UpdateAgentChunk"):
        prepass(schema)


def test_an_envelope_is_tagged_by_method() -> None:
    params = {
        "anyOf": [
            {
                "anyOf": [
                    {"title": "Ping", "allOf": [{"$ref": "#/$defs/PingParams"}]},
                    {"title": "Ext", "allOf": [{"$ref": "#/$defs/ExtParams"}]},
                ]
            },
            {"type": "null"},
        ]
    }
    result = prepass(
        {
            "$defs": {
                "Note": {
                    "type": "object",
                    "properties": {"method": {"type": "string"}, "params": params},
                    "required": ["method"],
                },
                "PingParams": {**obj(at="integer"), "x-method": "ping/now", "x-side": "agent"},
                "ExtParams": {"type": "object"},
            }
        }
    )
    union = result.unions["Note"]
    assert union.tag_property == "method"
    assert union.variants == {"ping/now": "NotePingNow"}
    assert union.other == "NoteOther"


def test_the_input_schema_is_not_changed() -> None:
    schema = {
        "$defs": {
            "Update": {"anyOf": [tagged("a_b", "X"), tagged("c_d", "Y")]},
            "X": obj(a="string"),
            "Y": obj(b="string"),
        }
    }
    before = repr(schema)
    prepass(schema)
    assert repr(schema) == before
