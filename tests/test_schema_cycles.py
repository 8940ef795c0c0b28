"""`schema check` flags schemas that refer back to themselves before describing any part
of a value: validating against one never ends and datamodel-codegen finds no model in it."""

from __future__ import annotations

from typing import Any

import pytest

from acp_schema.codegen.schema_check import check_schema_document

CYCLE = "refers to itself before describing any part of a value"


def cycle_problems(defs: dict[str, Any]) -> list[tuple[str, str]]:
    doc = {"$defs": defs}
    return [(p.pointer, p.message) for p in check_schema_document(doc) if CYCLE in p.message]


@pytest.mark.parametrize(
    ("defs", "pointer", "chain"),
    [
        ({"A": {"$ref": "#/$defs/A"}}, "/$defs/A", "#/$defs/A -> #/$defs/A"),
        (
            {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},
            "/$defs/A",
            "#/$defs/A -> #/$defs/B -> #/$defs/A",
        ),
        (
            {"A": {"allOf": [{"$ref": "#/$defs/A"}, {"type": "object"}]}},
            "/$defs/A",
            "#/$defs/A -> #/$defs/A/allOf/0 -> #/$defs/A",
        ),
        (
            {"A": {"anyOf": [{"type": "string"}, {"not": {"$ref": "#/$defs/A"}}]}},
            "/$defs/A",
            "#/$defs/A/anyOf/1/not -> #/$defs/A",
        ),
    ],
    ids=["self", "two-step", "allOf", "anyOf-not"],
)
def test_a_loop_through_the_same_value_is_a_problem(
    defs: dict[str, Any], pointer: str, chain: str
) -> None:
    (found,) = cycle_problems(defs)
    assert found[0] == pointer
    assert chain in found[1]


@pytest.mark.parametrize(
    "defs",
    [
        {
            "Tree": {"type": "object", "properties": {"children": {"$ref": "#/$defs/Forest"}}},
            "Forest": {"type": "array", "items": {"$ref": "#/$defs/Tree"}},
        },
        {
            "List": {
                "anyOf": [{"type": "null"}, {"type": "array", "items": {"$ref": "#/$defs/List"}}]
            }
        },
        {
            "A": {"$ref": "#/$defs/B"},
            "B": {"type": "string"},
            "C": {"allOf": [{"$ref": "#/$defs/A"}]},
        },
    ],
    ids=["through-properties-and-items", "through-items", "chain-without-loop"],
)
def test_recursion_through_a_part_of_the_value_is_fine(defs: dict[str, Any]) -> None:
    assert cycle_problems(defs) == []
