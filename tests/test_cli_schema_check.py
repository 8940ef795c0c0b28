"""Behaviour of ``acp-schema schema check`` (acp_schema.codegen.commands)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from acp_schema.cli import main

CLEAN = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$defs": {
        "Ping": {
            "type": "object",
            "properties": {"id": {"type": "integer"}},
            "x-side": "agent",
            "x-method": "ping",
        },
        "Notification": {
            "type": "object",
            "properties": {"method": {"type": "string"}, "params": {"$ref": "#/$defs/Ping"}},
        },
    },
}


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def broken(tmp_path: Path) -> Path:
    doc = json.loads(json.dumps(CLEAN))
    doc["$defs"]["Ping"]["x-side"] = ""
    doc["$defs"]["Ping"]["properties"]["id"] = {"$ref": "#/$defs/Id"}
    return write(tmp_path, "broken.json", json.dumps(doc))


def test_clean_file_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "clean.json", json.dumps(CLEAN))
    assert main(["schema", "check", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "1 schema(s) checked: 1 clean, 0 problem(s) in 0, 0 unusable"
    ]


def test_warnings_are_shown_and_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads(json.dumps(CLEAN))
    doc["$defs"]["Ping"]["x-side"] = "relay"
    doc["$defs"]["Ping"]["x-unstable"] = True
    path = write(tmp_path, "new.json", json.dumps(doc))
    assert main(["schema", "check", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"{path}: #/$defs/Ping: warning: new x-side 'relay' (known: agent, client, protocol, "
        "proxy); the generated Side type includes it",
        f"{path}: #/$defs/Ping: warning: unknown extension keyword 'x-unstable', carried "
        "through (known: x-deserialize-default-on-error, x-deserialize-skip-invalid-items, "
        "x-deserialize-default-on-null, x-method, x-side, x-docs-ignore)",
        "1 schema(s) checked: 1 clean, 0 problem(s) in 0, 0 unusable, 2 warning(s)",
    ]


def test_problems_exit_1_one_line_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    clean = write(tmp_path, "clean.json", json.dumps(CLEAN))
    path = broken(tmp_path)
    assert main(["schema", "check", str(path), str(clean)]) == 1
    assert capsys.readouterr().out.splitlines() == [
        f'{path}: #/$defs/Ping: x-side must be a non-empty string, got ""',
        f"{path}: #/$defs/Ping/properties/id: $ref '#/$defs/Id' does not resolve: "
        "there is no 'Id' in #/$defs",
        "2 schema(s) checked: 1 clean, 2 problem(s) in 1, 0 unusable",
    ]


def test_any_unusable_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.json"
    not_json = write(tmp_path, "not.json", "{]")
    path = broken(tmp_path)
    assert main(["schema", "check", str(path), str(missing), str(not_json)]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert lines[2:] == [
        f"{missing}: cannot read {missing}: No such file or directory",
        f"{not_json}: invalid JSON at line 1, column 2: Expecting property name enclosed "
        "in double quotes",
        "3 schema(s) checked: 0 clean, 2 problem(s) in 1, 2 unusable",
    ]


def test_without_paths_checks_the_bundled_schemas(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "check"]) == 0
    *warnings, summary = capsys.readouterr().out.splitlines()
    # the folded unions the bundled schemas use: warned about, not refused (bindings.md)
    assert summary == "2 schema(s) checked: 2 clean, 0 problem(s) in 0, 0 unusable, 7 warning(s)"
    assert len(warnings) == 7
    assert all(": warning: " in w and "beside properties: folded" in w for w in warnings)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("acp-schema ")


@pytest.mark.parametrize("argv", [[], ["schema"], ["schema", "nope"], ["nope"]])
def test_incomplete_or_unknown_commands_exit_2(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert "usage: acp-schema" in capsys.readouterr().err


def test_python_dash_m_runs_the_same_command(tmp_path: Path) -> None:
    path = broken(tmp_path)
    result = subprocess.run(
        [sys.executable, "-m", "acp_schema", "schema", "check", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[-1] == (
        "1 schema(s) checked: 0 clean, 2 problem(s) in 1, 0 unusable"
    )
    assert result.stdout.startswith(f"{path}: #/$defs/Ping: x-side must be a non-empty")
