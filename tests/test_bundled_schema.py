"""The bundled schemas describe the revised protocol, in the project's own words."""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import pytest

from acp_schema.codegen.bundled import bundled_schema
from acp_schema.codegen.schema_check import iter_subschemas
from tests.reference_schemas import RELEASES, SHARED, available_references

IDENTITY = ("senderSessionId", "recipientSessionId", "senderMessageId", "recipientMessageId")
# Our descriptions may not repeat this many consecutive words of a published description.
RUN = 8


@pytest.fixture(params=["v1", "v2"])
def defs(request: pytest.FixtureRequest) -> dict[str, Any]:
    schema = json.loads(bundled_schema(request.param).read_text(encoding="utf-8"))
    result: dict[str, Any] = schema["$defs"]
    return result


def test_session_message_carries_both_references(defs: dict[str, Any]) -> None:
    message = defs["SessionMessage"]
    assert message["required"] == ["messageId"]
    for name in ("senderMessageId", "recipientMessageId"):
        prop = message["properties"][name]
        assert prop["anyOf"] == [{"$ref": "#/$defs/MessageId"}, {"type": "null"}]
        assert prop["x-deserialize-default-on-error"] is True


def test_chunk_carries_only_content(defs: dict[str, Any]) -> None:
    chunk = defs["SessionMessageChunk"]
    assert set(chunk["properties"]) == {"messageId", "content", "_meta"}
    assert chunk["required"] == ["messageId", "content"]


def test_identity_descriptions_state_the_participant_rule(defs: dict[str, Any]) -> None:
    # The spec page wins over the published text: omitted or null keeps the known value.
    for name in IDENTITY:
        text = defs["SessionMessage"]["properties"][name]["description"]
        assert "not supplied" in text and "`null`" in text, name
        assert "clears" not in text, name
    assert "content only" in defs["SessionMessageChunk"]["description"]


def test_every_definition_has_a_description(defs: dict[str, Any]) -> None:
    undescribed = [name for name, body in defs.items() if not body.get("description")]
    assert undescribed == []


def test_descriptions_carry_no_links_to_the_published_docs(defs: dict[str, Any]) -> None:
    linked = [
        pointer
        for pointer, node in iter_subschemas({"$defs": defs})
        if "agentclientprotocol.com" in str(node.get("description", ""))
    ]
    assert linked == []


def descriptions(schema: object) -> list[str]:
    return [
        node["description"]
        for _, node in iter_subschemas(schema)
        if isinstance(node.get("description"), str)
    ]


def word_runs(text: str) -> set[tuple[str, ...]]:
    """Every run of RUN consecutive words, lowercased; punctuation and markup do not count."""
    words = re.findall(r"\w+", text.lower())
    return {tuple(words[i : i + RUN]) for i in range(len(words) - RUN + 1)}


@functools.cache
def published_runs() -> frozenset[tuple[str, ...]]:
    runs: set[tuple[str, ...]] = set()
    for path in available_references():
        for text in descriptions(json.loads(path.read_text(encoding="utf-8"))):
            runs |= word_runs(text)
    return frozenset(runs)


def test_word_runs_ignore_case_spacing_and_punctuation() -> None:
    assert word_runs("One two three four five six seven") == set()
    assert word_runs("One, two;\n three `four` five six seven EIGHT.") == {
        ("one", "two", "three", "four", "five", "six", "seven", "eight")
    }


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_no_description_repeats_published_wording(version: str) -> None:
    if not published_runs():
        pytest.skip(
            f"no published schema of {', '.join(RELEASES)} beside the repository ({SHARED}) "
            "or in the npm cache; `python3 -m nox -s matrix` fills the cache"
        )
    schema = json.loads(bundled_schema(version).read_text(encoding="utf-8"))
    copied = {
        text[:60]: " ".join(sorted(word_runs(text) & published_runs())[0])
        for text in descriptions(schema)
        if word_runs(text) & published_runs()
    }
    assert copied == {}
