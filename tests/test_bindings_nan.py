"""`NaN` in JSON text is refused by the models wherever it stands, in one pass.

pydantic-core's parser reads the token; the models refuse it while validating what was
parsed (docs/bindings.md, "What exact decoding means"). The places where a plain check would
not see it: free-form values, and fields whose malformed values are read as omitted or
skipped (their fallback would swallow the error).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from acp_schema import v1, v2
from acp_schema.v2.methods import METHODS as V2_METHODS

PARAMS: dict[str, Any] = {
    "sessionId": "s1",
    "update": {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t",
        "title": "run",
        "status": "completed",
        "rawInput": {"command": "ls", "args": [1, {"deep": 0}]},
        "locations": [{"path": "/a", "line": 3}],
        "content": [{"type": "content", "content": {"type": "text", "text": "ok"}}],
        "_meta": {"x": 0},
    },
}
MODELS = {"v1": v1.SessionNotification, "v2": v2.UpdateSessionNotification}

# (what is replaced, by what): each spells NaN at a different kind of place.
PLACES = [
    ('"deep": 0', '"deep": NaN'),  # deep in a free-form value (rawInput)
    ('"x": 0', '"x": NaN'),  # in `_meta`, which reads a malformed value as omitted
    ('"line": 3', '"line": NaN'),  # an integer field that reads malformed values as omitted
    ('"title": "run"', '"title": NaN'),  # a string field
    ('"status": "completed"', '"status": NaN'),  # an enum field
    ('"text": "ok"', '"text": NaN'),  # a string inside a nested block
    ('"toolCallId": "t"', '"toolCallId": "t", "xUnknown": [NaN]'),  # an unknown key
]


def text(old: str = "", new: str = "") -> str:
    return json.dumps(PARAMS).replace(old, new)


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_the_message_decodes_without_nan(version: str) -> None:
    decoded = MODELS[version].model_validate_json(text())
    assert json.loads(decoded.model_dump_json()) == PARAMS


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize(("old", "new"), PLACES)
def test_nan_anywhere_refuses_the_whole_text(version: str, old: str, new: str) -> None:
    raw = text(old, new)
    assert raw != text()
    for data in (raw, raw.encode()):
        with pytest.raises(ValidationError) as caught:
            MODELS[version].model_validate_json(data)
        problems = caught.value.errors(include_url=False)
        if new not in ('"title": NaN', '"status": NaN', '"text": NaN'):
            # where nothing else fails first, the one problem is the NaN itself
            assert [p["type"] for p in problems] == ["json_invalid"], problems


@pytest.mark.parametrize(("old", "new"), PLACES)
def test_whole_messages_with_nan_are_refused(old: str, new: str) -> None:
    message = {"jsonrpc": "2.0", "method": "session/update", "params": PARAMS}
    with pytest.raises(ValueError):
        V2_METHODS.decode(json.dumps(message).replace(old, new))


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_nan_as_a_string_and_infinity_in_free_form_values_are_kept(version: str) -> None:
    decoded = MODELS[version].model_validate_json(text('"deep": 0', '"deep": "NaN"'))
    assert decoded.update.raw_input["args"][1] == {"deep": "NaN"}  # type: ignore[union-attr]
    kept = MODELS[version].model_validate_json(text('"x": 0', '"x": 1e400'))
    assert kept.update.meta == {"x": float("inf")}  # type: ignore[union-attr]


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_python_data_refuses_nan_as_json_text_does(version: str) -> None:
    """A caller's own float NaN in `_meta` is no JSON value either: refused the same way
    (the Python-input rule of tests/test_cli_hostile.py, row 14 of the hostile sweep)."""
    data = json.loads(text())
    data["update"]["_meta"] = {"x": float("nan")}
    with pytest.raises(ValidationError, match="NaN is not JSON"):
        MODELS[version].model_validate(data)
