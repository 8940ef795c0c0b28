"""Deep definition graphs (attack #8): a chain or ring of definitions up to
MAX_DEFINITION_DEPTH generates and decodes; a deeper one is refused by `schema check`,
naming where the deepest chain starts (it made the package raise RecursionError on first
use, or `generate` stop with "maximum recursion depth exceeded")."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from acp_schema.codegen.schema_check import check_schema_document
from acp_schema.codegen.schema_refs import MAX_DEFINITION_DEPTH, definition_depth

from .generated_packages import DRAFT, generate_package


def _nested(links: int, *, ring: bool) -> dict[str, Any]:
    """`Message` (a notification's params) holding D0, each Dn holding D(n+1); the last
    holds D0 again in a ring. The document is `links + 2` deep (the envelope, Message)."""
    defs: dict[str, Any] = {
        f"D{i}": {
            "type": "object",
            "properties": {"v": {"type": "string"}, "n": {"$ref": f"#/$defs/D{i + 1}"}},
        }
        for i in range(links)
    }
    if not ring:
        del defs[f"D{links - 1}"]["properties"]["n"]
    else:
        defs[f"D{links - 1}"]["properties"]["n"] = {"$ref": "#/$defs/D0"}
    defs["Message"] = {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/D0"}},
        "x-method": "x/msg",
        "x-side": "client",
    }
    params = {"anyOf": [{"$ref": "#/$defs/Message"}, {"type": "null"}]}
    defs["Notif"] = {
        "type": "object",
        "properties": {"method": {"type": "string"}, "params": params},
        "required": ["method"],
    }
    return {"$schema": DRAFT, "anyOf": [{"$ref": "#/$defs/Notif"}], "$defs": defs}


def test_depth_counts_a_chain_and_the_members_of_a_ring() -> None:
    assert definition_depth(_nested(10, ring=False))[0] == 12
    assert definition_depth(_nested(10, ring=True)) == (12, ("$defs", "Notif"))
    assert definition_depth({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {}}}) == (2, ("$defs", "A"))
    assert definition_depth({}) == (0, None)


@pytest.mark.parametrize("ring", [False, True], ids=["chain", "ring"])
def test_a_graph_at_the_limit_generates_and_decodes(ring: bool, tmp_path: Path) -> None:
    schema = _nested(MAX_DEFINITION_DEPTH - 2, ring=ring)
    assert definition_depth(schema)[0] == MAX_DEFINITION_DEPTH
    assert check_schema_document(schema) == []
    package = generate_package(schema, tmp_path, f"deep_{'ring' if ring else 'chain'}")
    text = json.dumps({"a": {"v": "x", "n": {"v": "y", "n": {"v": "z"}}}})
    decoded = package.models.Message.model_validate_json(text)
    assert decoded.a.n.n.v == "z"
    assert json.loads(decoded.model_dump_json(exclude_unset=True)) == json.loads(text)


@pytest.mark.parametrize("ring", [False, True], ids=["chain", "ring"])
def test_a_deeper_graph_is_refused_naming_where_it_starts(ring: bool) -> None:
    schema = _nested(MAX_DEFINITION_DEPTH - 1, ring=ring)
    [problem] = check_schema_document(schema)
    assert problem.pointer == "/$defs/Notif"
    assert problem.message.startswith(f"definitions nest {MAX_DEFINITION_DEPTH + 1} deep")
