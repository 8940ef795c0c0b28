"""`--impact` meets a change wherever the code can: a change of a definition that is no
class (an alias of scalars losing null) at every field that refers to it; the changes behind
a reference switch at every place that makes the switch; `model_validate({...})` and
`model_validate_json('{...}')` with the object shown, judged as a constructor call
(attack on issue 28, findings 1 and 6)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp_schema.codegen.drift.impact.run import Settings, scan
from acp_schema.codegen.drift.impact.targets import build_targets
from acp_schema.codegen.drift.schema_diff import diff_documents

NUMBER_OR_TEXT: list[dict[str, Any]] = [{"type": "integer"}, {"type": "string"}]


def _holder(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties}


OLD: dict[str, Any] = {
    "$defs": {
        "RequestId": {"anyOf": [{"type": "null"}, *NUMBER_OR_TEXT]},
        "Cancel": _holder(requestId={"allOf": [{"$ref": "#/$defs/RequestId"}]}),
        "Reply": _holder(id={"$ref": "#/$defs/RequestId"}),
        "Loose": _holder(id={"anyOf": [{"$ref": "#/$defs/RequestId"}, {"type": "null"}]}),
        "Moved": _holder(id={"$ref": "#/$defs/RequestId"}),
        "Page": _holder(size={"type": "integer"}),
    }
}
NEW: dict[str, Any] = {
    "$defs": {
        "RequestId": {"anyOf": NUMBER_OR_TEXT},
        "Cancel": OLD["$defs"]["Cancel"],
        "Reply": OLD["$defs"]["Reply"],
        "Loose": OLD["$defs"]["Loose"],
        # switched to an inline schema that keeps null: compared on its own
        "Moved": _holder(id={"anyOf": [*NUMBER_OR_TEXT, {"type": "null"}]}),
        "Page": _holder(size={"type": "integer", "minimum": 1}),
    }
}

SOURCE = """\
from mybind import Cancel, Loose, Moved, Page, Reply

Cancel(request_id=None)
Reply(id=None)
Loose(id=None)
Moved(id=None)
Cancel.model_validate({"requestId": None})
Reply.model_validate_json('{"id": null}')
Page.model_validate({"size": 0})
Page.model_validate({"size": 3})
Page.model_validate_json('{"size": 0}')
Cancel(request_id=7)
"""


def _impacts(tmp: Path) -> list[tuple[int, str, str]]:
    (tmp / "use.py").write_text(SOURCE, encoding="utf-8")
    changes, _ = diff_documents(OLD, NEW)
    found = scan(Settings((tmp,), bindings=("mybind",)), build_targets(changes, OLD, NEW))
    assert not found.failed
    return [(i.line, i.degree, i.where) for i in found.impacts]


def test_changes_reach_every_place_that_refers_to_them(tmp_path: Path) -> None:
    assert _impacts(tmp_path) == [
        (3, "breaks", "Cancel.requestId"),
        (4, "breaks", "Reply.id"),
        (7, "breaks", "Cancel.requestId"),
        (8, "breaks", "Reply.id"),
        (9, "breaks", "Page.size"),
        (11, "breaks", "Page.size"),
    ]


def test_changes_behind_a_switch_listed_once_reach_every_place_of_it(tmp_path: Path) -> None:
    old = {
        "$defs": {
            "Size": {"type": "integer"},
            "One": _holder(size={"$ref": "#/$defs/Size"}),
            "Two": _holder(size={"$ref": "#/$defs/Size"}),
        }
    }
    new = {
        "$defs": {
            "Size": {"type": "integer"},
            "Count": {"type": "integer", "minimum": 1},
            "One": _holder(size={"$ref": "#/$defs/Count"}),
            "Two": _holder(size={"$ref": "#/$defs/Count"}),
        }
    }
    changes, _ = diff_documents(old, new)
    listed = [c.where for c in changes if c.kind == "constraint-changed"]
    assert listed == ["One.size"]  # the diff lists it once ...
    (tmp_path / "use.py").write_text(
        "from mybind import One, Two\nOne(size=0)\nTwo(size=0)\nTwo(size=2)\n", encoding="utf-8"
    )
    found = scan(Settings((tmp_path,), bindings=("mybind",)), build_targets(changes, old, new))
    # ... the impact meets it at both places
    assert [(i.line, i.degree, i.where) for i in found.impacts] == [
        (2, "breaks", "One.size"),
        (3, "breaks", "Two.size"),
    ]
