"""One `generate` run loads its schema once (acp_schema.codegen.loaded_schema): the file
is read once and the method roles are derived once, whatever stage needs them."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest

from acp_schema.cli import main
from acp_schema.codegen import method_roles
from acp_schema.codegen.bundled import bundled_schema
from acp_schema.codegen.loaded_schema import load_schema_file
from acp_schema.codegen.schema_check import SchemaError

pytest.importorskip("datamodel_code_generator", reason="generate needs the codegen extra")


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts method-role derivations ("roles") and reads (opens) of each file, by path."""
    counts: Counter[str] = Counter()
    derive = method_roles._Reader.read
    read_bytes, read_text, os_open = Path.read_bytes, Path.read_text, os.open

    def counting_derive(self: method_roles._Reader) -> method_roles.MethodRoles:
        counts["roles"] += 1
        return derive(self)

    def counting_bytes(self: Path) -> bytes:
        counts[str(self)] += 1
        return read_bytes(self)

    def counting_text(self: Path, *args: object, **kwargs: object) -> str:
        counts[str(self)] += 1
        return read_text(self, *args, **kwargs)  # type: ignore[arg-type]

    def counting_open(path: str | os.PathLike[str], *args: object, **kwargs: object) -> int:
        counts[os.fspath(path)] += 1  # the tools' one reader (acp_schema._input) opens so
        return os_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(method_roles._Reader, "read", counting_derive)
    monkeypatch.setattr(os, "open", counting_open)
    monkeypatch.setattr(Path, "read_bytes", counting_bytes)
    monkeypatch.setattr(Path, "read_text", counting_text)
    return counts


def test_generate_reads_the_schema_once_and_derives_its_method_roles_once(
    tmp_path: Path, counted: Counter[str], capsys: pytest.CaptureFixture[str]
) -> None:
    schema = bundled_schema("v1")
    out = tmp_path / "out"
    assert main(["generate", "--schema", str(schema), "--out", str(out)]) == 0
    assert (out / "methods.py").is_file()
    assert counted["roles"] == 1
    assert counted[str(schema)] == 1
    assert "(6 files)" in capsys.readouterr().out


def test_schema_check_derives_the_method_roles_once_per_schema(
    counted: Counter[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["schema", "check"]) == 0
    assert counted["roles"] == 2  # v1 and v2
    assert all(counted[str(bundled_schema(v))] == 1 for v in ("v1", "v2"))


def test_a_loaded_schema_carries_the_digest_of_its_bytes() -> None:
    import hashlib

    schema = bundled_schema("v2")
    loaded = load_schema_file(schema)
    assert loaded.digest == hashlib.sha256(schema.read_bytes()).hexdigest()
    assert loaded.roles.entries  # the ACP schema has methods
    assert loaded.path == schema


def test_loading_a_schema_with_problems_lists_them_all(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"$defs": {"A": {"$ref": "#/$defs/Missing"}}}', encoding="utf-8")
    with pytest.raises(SchemaError) as caught:
        load_schema_file(broken, meta_schema=False)
    assert any("Missing" in line for line in caught.value.lines())


def test_check_full_reads_the_schema_once_and_derives_its_method_roles_once(
    counted: Counter[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "--full", "v1"]) == 0
    assert "in sync" in capsys.readouterr().out
    assert counted["roles"] == 1
    assert counted[str(bundled_schema("v1"))] == 1
