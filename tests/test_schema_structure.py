"""Behaviour of structure() and structural_diff() (acp_schema.codegen.drift.schema_structure)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_schema.codegen import upstream
from acp_schema.codegen.bundled import bundled_schema
from acp_schema.codegen.drift.schema_structure import structural_diff, structure
from tests.reference_schemas import reference_schema

REPO = Path(__file__).resolve().parents[1]
# The published release whose wire structure the bundled schemas carry (see README).
BUNDLED_RELEASE = "2.4.0"
# The release before the session-message revision.
PRE_REVISION_RELEASE = "2.0.0"


def sample() -> dict[str, Any]:
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "Sample",
        "$defs": {
            "Note": {
                "title": "Note",
                "description": "A note.",
                "$comment": "kept short",
                "examples": [{"text": "hi"}],
                "type": "object",
                "properties": {
                    # Property names that look like keywords are data.
                    "description": {"type": "string", "description": "What it says."},
                    "title": {"type": "string"},
                    "level": {
                        "type": "string",
                        "enum": ["low", "high"],
                        "default": {"title": "kept: a default is data"},
                        "x-deserialize-default-on-error": True,
                    },
                },
                "required": ["description", "level"],
                "anyOf": [{"description": "variant", "type": "object"}],
            }
        },
    }


def test_structure_drops_documentation_keywords_only_in_schema_positions() -> None:
    assert structure(sample()) == {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$defs": {
            "Note": {
                "type": "object",
                "properties": {
                    "description": {"type": "string"},
                    "title": {"type": "string"},
                    "level": {
                        "type": "string",
                        "enum": ["low", "high"],
                        "default": {"title": "kept: a default is data"},
                        "x-deserialize-default-on-error": True,
                    },
                },
                "required": ["description", "level"],
                "anyOf": [{"type": "object"}],
            }
        },
    }


def test_structure_does_not_touch_its_input() -> None:
    doc = sample()
    structure(doc)["$defs"]["Note"]["properties"]["level"]["enum"].append("mid")
    assert doc == sample()


def test_documentation_differences_are_not_structural() -> None:
    other = sample()
    note = other["$defs"]["Note"]
    note["description"] = "Reworded."
    note["title"] = "Another title"
    del note["examples"]
    note["properties"]["description"]["description"] = "Reworded too."
    note["anyOf"][0]["title"] = "Variant"
    assert structural_diff(sample(), other) == []


def changed(edit: Any) -> list[str]:
    other = sample()
    edit(other["$defs"]["Note"])
    return structural_diff(sample(), other)


def test_type_change() -> None:
    def edit(note: dict[str, Any]) -> None:
        note["properties"]["title"]["type"] = "integer"

    assert changed(edit) == ['#/$defs/Note/properties/title/type: "string" vs "integer"']


def test_required_change() -> None:
    def edit(note: dict[str, Any]) -> None:
        note["required"].remove("level")

    assert changed(edit) == ['#/$defs/Note/required/1: "level" vs (absent)']


def test_x_keyword_change() -> None:
    def edit(note: dict[str, Any]) -> None:
        del note["properties"]["level"]["x-deserialize-default-on-error"]
        note["properties"]["title"]["x-deserialize-default-on-null"] = True

    assert changed(edit) == [
        "#/$defs/Note/properties/title/x-deserialize-default-on-null: (absent) vs true",
        "#/$defs/Note/properties/level/x-deserialize-default-on-error: true vs (absent)",
    ]


def test_enum_change() -> None:
    def edit(note: dict[str, Any]) -> None:
        note["properties"]["level"]["enum"] = ["low", "medium", "high"]

    assert changed(edit) == [
        '#/$defs/Note/properties/level/enum/1: "high" vs "medium"',
        '#/$defs/Note/properties/level/enum/2: (absent) vs "high"',
    ]


def test_json_types_are_compared_as_json() -> None:
    left = {"const": True, "minimum": 1}
    right = {"const": 1, "minimum": 1.0}
    assert structural_diff(left, right) == ["#/const: true vs 1"]


def test_pointers_escape_slashes_and_tildes() -> None:
    left = {"$defs": {"a/b~c": {"type": "string"}}}
    right = {"$defs": {"a/b~c": {"type": "number"}}}
    assert structural_diff(left, right) == ['#/$defs/a~1b~0c/type: "string" vs "number"']


def test_limit_caps_the_listing_and_says_how_many_are_hidden() -> None:
    left = {"enum": list(range(10))}
    right = {"enum": [n + 100 for n in range(10)]}
    assert structural_diff(left, right, limit=3) == [
        "#/enum/0: 0 vs 100",
        "#/enum/1: 1 vs 101",
        "#/enum/2: 2 vs 102",
        "... and 7 more difference(s)",
    ]
    assert len(structural_diff(left, right, limit=None)) == 10


def test_long_values_are_truncated() -> None:
    left = {"$defs": {"A": {"enum": ["x" * 200]}}}
    [line] = structural_diff(left, {"$defs": {}})
    assert line.startswith('#/$defs/A: {"enum": ["xxx')
    assert line.endswith("... vs (absent)")
    assert len(line) < 120


def published(release: str, version: str) -> Any:
    """The published schema of `release`: the copy beside the repository or in the npm
    cache if present, else fetched once with npm; skips when none can provide it."""
    path = reference_schema(release, version)
    if path is None:
        try:
            path = upstream.upstream_schema(release, version)
        except upstream.UpstreamError as exc:
            pytest.skip(f"the published {release} {version} schema is not available: {exc}")
    return json.loads(path.read_text(encoding="utf-8"))


def bundled(version: str) -> Any:
    return json.loads(bundled_schema(version).read_text(encoding="utf-8"))


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_bundled_schema_is_the_latest_release_structurally(version: str) -> None:
    assert structural_diff(bundled(version), published(BUNDLED_RELEASE, version)) == []


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_bundled_schema_keeps_the_session_message_revision(version: str) -> None:
    # Against the release before the revision, the chunk lost its identity fields and the
    # message gained the two cross-references.
    lines = structural_diff(published(PRE_REVISION_RELEASE, version), bundled(version), None)
    changed = {line.split(": ", 1)[0] for line in lines}
    assert {
        "#/$defs/SessionMessageChunk/properties/senderSessionId",
        "#/$defs/SessionMessageChunk/properties/recipientSessionId",
        "#/$defs/SessionMessage/properties/senderMessageId",
        "#/$defs/SessionMessage/properties/recipientMessageId",
    } <= changed
    chunk = bundled(version)["$defs"]["SessionMessageChunk"]
    assert set(chunk["properties"]) == {"messageId", "content", "_meta"}
