"""Generation: deterministic, in sync with the committed files, well named, and importable
without the generator's dependencies."""

from __future__ import annotations

import hashlib
import importlib
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from pydantic import BaseModel

from acp_schema import v1, v2
from acp_schema._fast import as_model
from acp_schema.codegen.bundled import bundled_schema, default_output
from acp_schema.codegen.generate.pipeline import GeneratedFile, generate, render
from acp_schema.codegen.schema_check import SchemaError
from acp_schema.v1 import _models as v1_models
from acp_schema.v2 import _models as v2_models
from tests.bundled_renders import bundled_render
from tests.reference_schemas import require_reference

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def fresh() -> dict[str, list[GeneratedFile]]:
    """One render of each bundled version, shared with the other modules that need one."""
    return {version: list(bundled_render(version)) for version in ("v1", "v2")}


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_committed_bindings_equal_a_fresh_run(
    fresh: dict[str, list[GeneratedFile]], version: str
) -> None:
    out = default_output(version)
    for item in fresh[version]:
        committed = (out / item.name).read_text(encoding="utf-8")
        assert committed == item.text, f"{version}/{item.name} is stale: run acp-schema generate"


def test_generation_is_byte_identical_across_runs(fresh: dict[str, list[GeneratedFile]]) -> None:
    again = render(bundled_schema("v2"))
    assert [(f.name, f.text) for f in again] == [(f.name, f.text) for f in fresh["v2"]]


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_header_names_generator_and_schema_digest(
    fresh: dict[str, list[GeneratedFile]], version: str
) -> None:
    digest = hashlib.sha256(bundled_schema(version).read_bytes()).hexdigest()
    for item in fresh[version]:
        if item.name.endswith(".py"):
            lines = item.text.splitlines()
            assert "datamodel-code-generator" in lines[0]
            assert lines[2] == f"# schema-sha256: {digest}"


# The models module itself: the package facade binds its names on first use only.
@pytest.mark.parametrize("module", [v1_models, v2_models], ids=["v1", "v2"])
def test_no_numbered_class_names(module: ModuleType) -> None:
    numbered = [
        name
        for name, value in vars(module).items()
        if isinstance(value, type) and issubclass(value, BaseModel) and re.search(r"\d$", name)
    ]
    assert numbered == []


@pytest.mark.parametrize("module", [v1, v2], ids=["v1", "v2"])
def test_variant_names_follow_the_rule(module: ModuleType) -> None:
    # rule 1: a variant that is exactly one definition is that definition
    assert module.SessionMessage.model_fields["session_update"].default == "session_message"
    assert module.TextContent.model_fields["type"].default == "text"
    # rule 2: otherwise the tag in PascalCase
    assert module.AgentMessageChunk.model_fields["session_update"].default == (
        "agent_message_chunk"
    )
    # rule 3: a single-word tag is prefixed by its union
    if module is v1:
        assert module.RequestPermissionOutcomeCancelled.model_fields["outcome"].default == (
            "cancelled"
        )
    else:
        assert module.DiffChangeAdd.model_fields["operation"].default == "add"
    # rule 4: the open variant
    if module is v2:
        assert module.SessionUpdateOther.model_fields["session_update"].annotation is str


# The models module itself: the package facade binds its names on first use only.
@pytest.mark.parametrize("module", [v1_models, v2_models], ids=["v1", "v2"])
def test_every_field_has_a_builder(module: ModuleType) -> None:
    missing = []
    for name, cls in vars(module).items():
        if (
            isinstance(cls, type)
            and issubclass(cls, BaseModel)
            and cls.__module__ == module.__name__
        ):
            for field, info in cls.model_fields.items():
                is_tag = getattr(info.annotation, "__origin__", None) is not None and str(
                    info.annotation
                ).startswith("typing.Literal")
                if not is_tag and not hasattr(cls, f"with_{field}"):
                    missing.append(f"{name}.with_{field}")
    assert missing == []


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_importing_the_bindings_needs_only_pydantic(version: str) -> None:
    code = (
        f"import sys, acp_schema.{version}, acp_schema.{version}.methods\n"
        "heavy = {'datamodel_code_generator', 'libcst', 'jsonschema', 'ruff'} & set(sys.modules)\n"
        "print(sorted(heavy))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_method_tables_and_whole_message_decoding() -> None:
    from acp_schema.v2.methods import METHODS

    update = METHODS.get("session/update")
    assert update.side == "client"
    assert update.params is v2.UpdateSessionNotification
    assert update.is_notification
    message = (
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s",'
        '"update":{"sessionUpdate":"session_message","messageId":"m"}}}'
    )
    decoded = METHODS.decode(message)
    assert decoded.kind == "notification"
    assert isinstance(as_model(decoded.params).update, v2.SessionMessage)

    initialize = METHODS.get("initialize")
    assert initialize.result is v2.InitializeResponse
    result = '{"protocolVersion":2,"info":{"name":"agent","version":"1.0"}}'
    response = METHODS.decode(f'{{"jsonrpc":"2.0","id":1,"result":{result}}}', method="initialize")
    assert response.kind == "response" and response.id == 1
    assert isinstance(as_model(response.result), v2.InitializeResponse)
    with pytest.raises(ValueError, match="pass method="):
        METHODS.decode('{"jsonrpc":"2.0","id":1,"result":{}}')


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_params_of_gives_the_params_of_the_method_named(version: str) -> None:
    METHODS = importlib.import_module(f"acp_schema.{version}.methods").METHODS
    update = (
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s",'
        '"update":{"sessionUpdate":"session_message","messageId":"m"}}}'
    )
    for decode in (METHODS.decode, METHODS.decode_models):
        decoded = decode(update)
        params = METHODS.params_of(decoded, "session/update")
        assert params is decoded.params
        assert as_model(params).session_id == "s"
        with pytest.raises(ValueError, match=r"^the message is a notification of 'session/upd"):
            METHODS.params_of(decoded, "session/prompt")
    prompt = (
        '{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s",'
        '"prompt":[{"type":"text","text":"hi"}]}}'
    )
    request = METHODS.decode(prompt)
    assert METHODS.params_of(request, "session/prompt") is request.params
    assert as_model(request.params).session_id == "s"
    error = METHODS.decode('{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"no"}}')
    with pytest.raises(ValueError, match=r"^the message is an error of None, not a request or "):
        METHODS.params_of(error, "session/prompt")


def test_the_generated_table_types_params_of_for_every_method_name() -> None:
    """The overloads name each method once, in the table's order, and the general form last."""
    import ast

    from acp_schema.v2.methods import METHODS

    source = (bundled_schema("v2").parents[3] / "generated" / "v2" / "methods.py").read_text()
    table = next(
        node
        for node in ast.parse(source).body
        if isinstance(node, ast.ClassDef) and node.name == "_MethodTable"
    )
    named = [
        ast.literal_eval(fn.args.args[2].annotation.slice)  # type: ignore[union-attr]
        for fn in table.body
        if isinstance(fn, ast.FunctionDef) and isinstance(fn.args.args[2].annotation, ast.Subscript)
    ]
    assert named == list(dict.fromkeys(m.name for m in METHODS))


def test_method_table_covers_every_x_method() -> None:
    import json

    from acp_schema.v1.methods import METHODS

    schema = json.loads(bundled_schema("v1").read_text())
    declared = {(d["x-method"], d["x-side"]) for d in schema["$defs"].values() if "x-method" in d}
    assert {(m.name, m.side) for m in METHODS} == declared


def test_a_broken_schema_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    broken = tmp_path / "schema.json"
    broken.write_text('{"$defs": {"A": {"$ref": "#/$defs/Nope"}}}')
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(SchemaError) as caught:
        generate(broken, out)
    assert "#/$defs/A" in str(caught.value)
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("release", ["acp-sdk-2.0.0", "acp-sdk-2.1.0"])
@pytest.mark.parametrize("version", ["v1", "v2"])
def test_reference_schemas_generate_and_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, release: str, version: str
) -> None:
    schema = require_reference(release.removeprefix("acp-sdk-"), version)
    name = f"ref_{release.replace('-', '_').replace('.', '_')}_{version}"  # one per test
    package = tmp_path / name
    generate(schema, package / version)
    (package / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(f"{name}.{version}")
    methods = importlib.import_module(f"{name}.{version}.methods")
    assert len(methods.METHODS) > 10
    chunk_fields = set(module.SessionMessageChunk.model_fields)
    if release == "acp-sdk-2.0.0":
        assert "sender_session_id" in chunk_fields  # the old API, as migrations expect it
    else:
        assert chunk_fields == {"session_update", "message_id", "content", "meta"}


def test_a_broken_schema_among_several_reports_its_problems(tmp_path: Path) -> None:
    from acp_schema.codegen.generate.pipeline import generate_many

    broken = tmp_path / "broken.json"
    broken.write_text('{"$defs": {"A": {"$ref": "#/$defs/Nope"}}}')
    out_a, out_b = tmp_path / "a", tmp_path / "b"
    with pytest.raises(SchemaError) as caught:
        generate_many([(broken, out_a), (broken, out_b)])
    assert "#/$defs/A" in str(caught.value)
    assert not out_a.exists() and not out_b.exists()


@pytest.mark.parametrize("module", [v1, v2], ids=["v1", "v2"])
def test_every_definition_is_a_class_or_named_alias(module: ModuleType) -> None:
    import json

    version = module.__name__.rsplit(".", 1)[-1]
    definitions = json.loads(bundled_schema(version).read_text())["$defs"]
    missing = [name for name in definitions if not hasattr(module, name)]
    assert missing == []


def test_a_meta_schema_problem_stops_generation_midway(tmp_path: Path) -> None:
    # Only the meta-schema check sees this one; it runs while datamodel-codegen works.
    broken = tmp_path / "schema.json"
    broken.write_text('{"$defs": {"A": {"type": "string", "minLength": -1}}}')
    out = tmp_path / "out"
    with pytest.raises(SchemaError) as caught:
        generate(broken, out)
    assert [p.pointer for p in caught.value.problems] == ["/$defs/A/minLength"]
    assert not out.exists()
