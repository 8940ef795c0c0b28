"""Generating from schemas this project has not seen: open by default, safe with any text.

The method table comes from the schema's envelopes and `x-method`/`x-side`, never from
definition names; unknown `x-` keywords are carried through; strings from the schema reach
the generated code only as literals.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from acp_schema.codegen.generate.pipeline import generate
from acp_schema.codegen.schema_check import check_schema_document, escape

from .release_matrix import mypy_strict

REPO = Path(__file__).resolve().parents[1]


def ref(name: str, container: str = "$defs") -> dict[str, str]:
    return {"$ref": f"#/{container}/" + quote(escape(name), safe="")}


def envelope(kind: str, params: list[str], container: str = "$defs") -> dict[str, Any]:
    """A JSON-RPC envelope as ACP writes them: what marks the role is the shape."""
    variants = [{"allOf": [ref(n, container)]} for n in params]
    if kind == "response":
        return {
            "anyOf": [
                {
                    "type": "object",
                    "properties": {"id": {"type": "integer"}, "result": {"anyOf": variants}},
                    "required": ["id", "result"],
                }
            ]
        }
    props: dict[str, Any] = {
        "method": {"type": "string"},
        "params": {"anyOf": [{"anyOf": variants}, {"type": "null"}]},
    }
    if kind == "request":
        props = {"id": {"type": "integer"}, **props}
    return {"type": "object", "properties": props, "required": ["method"]}


def method_def(method: str, side: str, **props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "x-method": method, "x-side": side}


def synthetic(container: str = "$defs") -> dict[str, Any]:
    """A new side, a new x- keyword, a result not named `...Response`, a method without
    params, and one method that is both a request and a notification on one side."""
    defs = {
        "OpenDoc": method_def("doc/open", "relay", name={"type": "string"}),
        "DocOpened": method_def("doc/open", "relay", handle={"type": "integer"}),  # the result
        "PingAnswer": method_def("ping", "agent", ok={"type": "boolean"}),  # no params
        "ForwardCall": method_def("forward", "relay", inner={}),
        "ForwardResult": method_def("forward", "relay"),
        "ForwardNote": method_def("forward", "relay", inner={}),
        "Contact": {
            "type": "object",
            "properties": {
                "mail": {"type": "string", "format": "email"},
                "uid": {"type": ["string", "null"], "format": "uuid"},
                "seen": {"type": "string", "format": "date"},
                "count": {"type": "integer", "format": "uint16", "minimum": 0},
                "tags": {
                    "type": "array",
                    "items": {"type": "string"},
                    "x-deserialize-skip-invalid-items": False,
                    "x-deserialize-default-on-error": True,
                },
            },
            "x-unstable": True,
            "x-rollout": {"stage": 2},
        },
        "RelayRequest": envelope("request", ["OpenDoc", "ForwardCall"], container),
        "RelayResponse": envelope(
            "response", ["DocOpened", "PingAnswer", "ForwardResult"], container
        ),
        "RelayNotification": envelope("notification", ["ForwardNote"], container),
    }
    defs["OpenDoc"]["properties"]["contact"] = ref("Contact", container)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", container: defs}


def generate_package(tmp_path: Path, schema: dict[str, Any], name: str) -> Path:
    source = tmp_path / f"{name}.json"
    source.write_text(json.dumps(schema), encoding="utf-8")
    package = tmp_path / name
    generate(source, package / "v9")
    (package / "__init__.py").write_text("", encoding="utf-8")
    return package


def run_python(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("container", ["$defs", "definitions"])
def test_new_side_new_keyword_renamed_result_and_params_less_method(
    tmp_path: Path, container: str
) -> None:
    schema = synthetic(container)
    assert check_schema_document(schema) == []
    warnings = [p.message for p in check_schema_document(schema, warnings=True)]
    assert any("'x-unstable'" in w for w in warnings)
    assert any("new x-side 'relay'" in w for w in warnings)
    package = generate_package(tmp_path, schema, "synthetic_" + container.strip("$"))
    methods = (package / "v9" / "methods.py").read_text(encoding="utf-8")
    assert 'Side = Literal["agent", "relay"]' in methods
    code = f"""
import json
from {package.name}.v9 import Contact, DocOpened, ForwardNote, OpenDoc, PingAnswer
from {package.name}.v9.methods import METHODS
from acp_schema._fast import as_model
rows = sorted((m.name, m.side, m.is_notification, getattr(m.params, "__name__", None),
               getattr(m.result, "__name__", None)) for m in METHODS)
print(json.dumps(rows))
opened = METHODS.decode('{{"jsonrpc":"2.0","id":1,"result":{{"handle":3}}}}', method="doc/open")
assert isinstance(as_model(opened.result), DocOpened) and opened.result.handle == 3
ping = METHODS.decode('{{"jsonrpc":"2.0","id":2,"method":"ping"}}')
assert ping.kind == "request" and ping.params is None
pong = METHODS.decode('{{"jsonrpc":"2.0","id":2,"result":{{"ok":true}}}}', method="ping")
assert isinstance(as_model(pong.result), PingAnswer)
call = METHODS.decode('{{"jsonrpc":"2.0","id":3,"method":"forward","params":{{"inner":1}}}}')
note = METHODS.decode('{{"jsonrpc":"2.0","method":"forward","params":{{"inner":1}}}}')
assert (call.kind, note.kind) == ("request", "notification")
assert isinstance(as_model(note.params), ForwardNote)
assert type(call.params).__name__ == "ForwardCall"
raw = ('{{"mail":"not an address","uid":"A0B1C2D3-0000-0000-0000-00000000000F",'
       '"seen":"x","count":2,"tags":["a"]}}')
contact = Contact.model_validate_json(raw)
assert json.loads(contact.model_dump_json()) == json.loads(raw)
assert type(contact.mail) is str and type(contact.uid) is str
# skip-invalid-items is switched off (false): a bad item is not dropped, the whole value is
# malformed, and default-on-error (true) leaves the field out.
mixed = Contact.model_validate_json('{{"tags":["a",1]}}')
assert "tags" not in mixed.model_fields_set
"""
    done = run_python(tmp_path, code)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [
        ["doc/open", "relay", False, "OpenDoc", "DocOpened"],
        ["forward", "relay", False, "ForwardCall", "ForwardResult"],
        ["forward", "relay", True, "ForwardNote", None],
        ["ping", "agent", False, None, "PingAnswer"],
    ]
    if container == "$defs":  # the Side Literal with a new side passes mypy --strict
        assert mypy_strict(tmp_path, [package.name]) == {}


# Each breaks out of a different quoting context if spliced into source text: it would
# create the marker file and print the marker.
def payloads(marker: Path) -> list[str]:
    # The shell prints PWNED only when it runs this; the text itself never contains it.
    act = f"__import__('os').system('echo PW\"\"NED; touch {marker}')"
    return [
        f'x"); {act} #',
        f"x'); {act} #",
        f'x"""\n{act}\n"""',
        f"x'''\n{act}\n'''",
        f"x\\\n{act}",
        f"x\n{act}\n#",
        f"x\x00{act}",
        f"x}}}}; {act}; {{{{",
    ]


def test_schema_text_never_becomes_code(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    texts = payloads(marker)
    defs: dict[str, Any] = {}
    requests, results, notes = [], [], []
    for i, text in enumerate(texts):
        side = f"side{i}{text}"
        props = {f"p{text}": {"type": "string", "description": text}}
        defs[f"Req{i}{text}"] = {**method_def(f"m{i}{text}", side, **props), "description": text}
        defs[f"Res{i}{text}"] = method_def(f"m{i}{text}", side, ok={"type": "boolean"})
        defs[f"Note{i}{text}"] = method_def(f"n{i}{text}", side, **props)
        requests.append(f"Req{i}{text}")
        results.append(f"Res{i}{text}")
        notes.append(f"Note{i}{text}")
    defs["Tagged"] = {
        "oneOf": [
            {
                "type": "object",
                "properties": {"kind": {"type": "string", "const": f"tag{i}{text}"}},
                "required": ["kind"],
                "description": text,
            }
            for i, text in enumerate(texts)
        ]
    }
    odd = 'kind-"x\\'  # a tag property that is no identifier: the generator renames the field
    defs["OddTag"] = {
        "oneOf": [
            {"type": "object", "properties": {odd: {"const": c}}, "required": [odd]}
            for c in ("first_kind", "second_kind")
        ]
    }
    defs["Requests"] = envelope("request", requests)
    defs["Responses"] = envelope("response", results)
    defs["Notes"] = envelope("notification", notes)
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}
    assert check_schema_document(schema) == []
    package = generate_package(tmp_path, schema, "hostile")
    assert not marker.exists()
    code = f"""
import json
from pydantic import TypeAdapter
from {package.name} import v9
from {package.name}.v9.methods import METHODS
print(json.dumps(sorted([m.name, m.side, m.is_notification] for m in METHODS)))
tagged = TypeAdapter(v9.Tagged)
tags = {[f"tag{i}{t}" for i, t in enumerate(texts)]!r}
print(json.dumps([tagged.validate_python({{"kind": t}}).kind for t in tags]))
odd = TypeAdapter(v9.OddTag)
wire = odd.validate_json(json.dumps({{{odd!r}: "second_kind"}}))
assert type(wire).__name__ == "SecondKind", wire
field = [n for n, f in type(wire).model_fields.items() if f.alias == {odd!r}][0]
assert field.isidentifier(), field
# wire data decodes by the wire key, from JSON and from a Python dict alike
assert type(odd.validate_python({{{odd!r}: "first_kind"}})).__name__ == "FirstKind"
"""
    done = run_python(tmp_path, code)
    assert done.returncode == 0, done.stderr
    assert "PWNED" not in done.stdout + done.stderr
    assert not marker.exists()
    rows, tags = (json.loads(line) for line in done.stdout.splitlines())
    expected = [[f"m{i}{t}", f"side{i}{t}", False] for i, t in enumerate(texts)]
    expected += [[f"n{i}{t}", f"side{i}{t}", True] for i, t in enumerate(texts)]
    assert rows == sorted(expected)  # every string arrived exactly as the schema has it
    assert tags == [f"tag{i}{t}" for i, t in enumerate(texts)]
