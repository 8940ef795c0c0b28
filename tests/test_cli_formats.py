"""The machine-readable forms of the report commands: `check --format json`, `schema check
--format json`, and GitHub workflow annotations from `diff --format github` and
`migrate --format github` (acp_schema.cli_output)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_schema.cli import main
from acp_schema.cli_output import annotation
from acp_schema.codegen import bundled
from acp_schema.codegen.drift import check as drift
from acp_schema.codegen.generate import pipeline
from tests.bundled_renders import bundled_render

# --- the annotation line ---------------------------------------------------------------------

COMMAND = re.compile(r"::(error|warning|notice)(?: ([^:]*))?::(.*)", re.DOTALL)
_ESCAPES = {"%25": "%", "%0D": "\r", "%0A": "\n", "%3A": ":", "%2C": ","}


def unquote(text: str) -> str:
    """What the GitHub runner reads from an encoded value: these five escapes, no other."""
    return re.sub("%25|%0D|%0A|%3A|%2C", lambda m: _ESCAPES[m.group()], text)


@given(
    message=st.text(),
    file=st.text(min_size=1),
    title=st.text(min_size=1),
    line=st.integers(1, 10**6),
)
def test_an_annotation_is_one_line_that_decodes_to_what_was_given(
    message: str, file: str, title: str, line: int
) -> None:
    text = annotation("warning", message, file=file, line=line, col=3, title=title)
    assert "\n" not in text and "\r" not in text
    parsed = COMMAND.fullmatch(text)
    assert parsed is not None
    level, properties, body = parsed.groups()
    assert level == "warning"
    assert unquote(body) == message
    pairs = dict(item.split("=", 1) for item in properties.split(","))
    assert {key: unquote(value) for key, value in pairs.items()} == {
        "file": file,
        "line": str(line),
        "col": "3",
        "title": title,
    }


def test_an_annotation_without_properties() -> None:
    assert annotation("error", "100% sure\nnext") == "::error::100%25 sure%0Anext"


# --- check --format json -------------------------------------------------------------------


def _check_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:  # type: ignore[type-arg]
    code = main(["check", *args, "--format", "json"])
    captured = capsys.readouterr()
    assert captured.err == ""
    return code, json.loads(captured.out)


def test_check_json_in_sync_and_drift(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copyfile(bundled.bundled_schema("v1"), "s.json")
    command = "acp-schema generate --schema s.json --out pkg"
    pipeline.write_files(list(bundled_render("v1")), Path("pkg"))  # the fast path: no render
    code, document = _check_json(["--schema", "s.json", "--out", "pkg"], capsys)
    assert code == 0
    assert document["exit"] == 0 and document["verdict"] == "in sync"
    (target,) = document["targets"]
    assert target["status"] == "in sync" and target["findings"] == [] and target["fix"] is None
    assert (target["schema"], target["out"]) == ("s.json", "pkg")
    Path("pkg/py.typed").unlink()
    Path("pkg/stray.txt").write_text("", encoding="utf-8")
    code, document = _check_json(["--schema", "s.json", "--out", "pkg"], capsys)
    assert code == 1 and document["verdict"] == "drift"
    (target,) = document["targets"]
    assert target["status"] == "drift"
    assert target["fix"] == command
    assert [(f["path"], f["reason"].split(":")[0]) for f in target["findings"]] == [
        ("pkg/py.typed", "missing"),
        ("pkg/stray.txt", "not written by the generator"),
    ]


def test_check_json_unusable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    code, document = _check_json(["--schema", "missing.json", "--out", "pkg"], capsys)
    assert code == 2
    assert document["verdict"] == "unusable"
    assert document["targets"][0]["unusable"][0].startswith("missing.json: cannot read")


def test_check_json_full_carries_the_diff(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (target,) = drift.version_targets(["v1"], schema_dir=tmp_path / "s", generated_dir=tmp_path)
    rendered = list(bundled_render("v1"))
    monkeypatch.setattr(pipeline, "render", lambda loaded, command: rendered)
    out = tmp_path / "v1"
    pipeline.write_files(rendered, out)
    (tmp_path / "s" / "v1").mkdir(parents=True)
    shutil.copyfile(bundled.bundled_schema("v1"), target.schema)
    init = out / "__init__.py"
    init.write_text(init.read_text(encoding="utf-8") + "EDITED = 1\n", encoding="utf-8")
    args = ["v1", "--schema-dir", str(tmp_path / "s"), "--generated", str(tmp_path), "--full"]
    code, document = _check_json(args, capsys)
    assert code == 1 and document["full"] is True
    (finding,) = document["targets"][0]["findings"]
    assert finding["reason"].startswith("edited by hand")
    assert "-EDITED = 1" in finding["diff"]


# --- schema check --format json --------------------------------------------------------------


def test_schema_check_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"$defs": {"A": {"$ref": "#/$defs/B"}}}', encoding="utf-8")
    not_json = tmp_path / "not.json"
    not_json.write_text("x", encoding="utf-8")
    clean = bundled.bundled_schema("v1")
    code = main(["schema", "check", "--format", "json", str(broken), str(not_json), str(clean)])
    document = json.loads(capsys.readouterr().out)
    assert code == 2 == document["exit"]
    assert document["summary"] == {
        "schemas": 3,
        "clean": 1,
        "with_problems": 1,
        "unusable": 1,
        "problems": 1,
        "warnings": 4,  # the v1 schema's folded definitions (docs/bindings.md)
    }
    assert [(f["path"], f["status"]) for f in document["files"]] == [
        (str(broken), "problems"),
        (str(not_json), "unusable"),
        (str(clean), "clean"),
    ]
    (problem,) = document["files"][0]["problems"]
    assert problem["pointer"] == "/$defs/A" and problem["warning"] is False
    assert main(["schema", "check", "--format", "json", str(broken)]) == 1
    assert json.loads(capsys.readouterr().out)["exit"] == 1


# --- diff --format github ---------------------------------------------------------------------


def test_diff_github_annotates_the_new_schema_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    old = json.loads(bundled.bundled_schema("v2").read_text(encoding="utf-8"))
    new = json.loads(json.dumps(old))
    new["$defs"]["SessionMessage"]["required"].append("senderSessionId")  # breaks
    new["$defs"]["SessionMessage"]["properties"]["extra"] = {"type": "string"}  # compatible
    Path("old.json").write_text(json.dumps(old), encoding="utf-8")
    Path("new.json").write_text(json.dumps(new), encoding="utf-8")
    code = main(["diff", "old.json", "new.json", "--format", "github", "--fail-on", "breaking"])
    lines = capsys.readouterr().out.splitlines()
    assert code == 1
    assert lines[-1].startswith("Schema diff: old.json -> new.json: 2 change(s)")
    annotations = [COMMAND.fullmatch(line) for line in lines[:-1]]
    assert all(annotations)
    by_title = {
        unquote(dict(p.split("=", 1) for p in m.group(2).split(","))["title"]): m
        for m in annotations
        if m
    }
    assert set(by_title) == {"property-added", "property-required"}
    assert by_title["property-required"].group(1) == "error"
    assert by_title["property-added"].group(1) == "notice"
    assert "file=new.json" in by_title["property-added"].group(2)
    assert unquote(by_title["property-required"].group(3)).startswith(
        "SessionMessage.senderSessionId"
    )


# --- migrate --format github -------------------------------------------------------------------


def test_migrate_check_github_annotations(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("use.py").write_text(
        "from acp_schema.v2 import SessionMessageChunk\n\n"
        "def read(chunk: SessionMessageChunk) -> object:\n"
        "    return chunk.sender_session_id\n",
        encoding="utf-8",
    )
    assert main(["migrate", "--check", "--format", "github", "."]) == 1
    lines = capsys.readouterr().out.splitlines()
    first = COMMAND.fullmatch(lines[0])
    assert first is not None
    assert first.group(1) == "error"
    assert first.group(2) == "file=use.py,line=4,col=12,title=chunk-identity/read"
    assert "TranscriptStore.entry" in unquote(first.group(3))
    assert lines[1].startswith("1 files scanned")
    assert main(["migrate", "--diff", "--format", "github", "."]) == 0
    _, err = capsys.readouterr()
    assert err.startswith("::warning file=use.py,line=4,col=12,title=chunk-identity/read::")
