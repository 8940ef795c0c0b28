"""Behaviour of ``acp-schema check`` (acp_schema.codegen.drift.check, drift.commands).

Every test works on a temporary tree: a copy of the bundled v1 schema and bindings freshly
rendered from it, with the header `generate --schema ... --out ...` writes for the tree (run
from inside it, so the paths and the header are the same in every test). One render is
shared by the module (rendering takes seconds); `--full` reuses it whenever the schema bytes
are the bundled ones.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import shutil
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest

from acp_schema.cli import main
from acp_schema.codegen import bundled
from acp_schema.codegen.drift import check as drift
from acp_schema.codegen.generate import commands as generate_commands
from acp_schema.codegen.generate import package_files
from acp_schema.codegen.generate import pipeline as generate
from acp_schema.codegen.generate.pipeline import GeneratedFile
from acp_schema.codegen.loaded_schema import LoadedSchema


@dataclass(frozen=True)
class Tree:
    schema_dir: Path
    generated: Path

    @property
    def schema(self) -> Path:
        return self.schema_dir / "v1" / drift.SCHEMA_FILE

    @property
    def out(self) -> Path:
        return self.generated / "v1"

    def args(self, *extra: str) -> list[str]:
        roots = ["--schema-dir", str(self.schema_dir), "--generated", str(self.generated)]
        return ["check", "v1", *roots, *extra]


TREE = Tree(Path("schema"), Path("generated"))  # relative: the tests run inside the tree
TREE_COMMAND = package_files.reproducing_command(TREE.out, schema=TREE.schema)


@pytest.fixture(scope="module")
def rendered() -> list[GeneratedFile]:
    return generate.render(bundled.bundled_schema("v1"), TREE_COMMAND)


@pytest.fixture
def tree(tmp_path: Path, rendered: list[GeneratedFile], monkeypatch: pytest.MonkeyPatch) -> Tree:
    source = bundled.bundled_schema("v1")
    monkeypatch.chdir(tmp_path)
    tree = TREE
    tree.schema.parent.mkdir(parents=True)
    shutil.copyfile(source, tree.schema)
    generate.write_files(rendered, tree.out)
    real_render = generate.render
    original = hashlib.sha256(source.read_bytes()).hexdigest()

    def render(schema: LoadedSchema, command: str) -> list[GeneratedFile]:  # `check` renders
        if schema.digest == original and command == TREE_COMMAND:
            return rendered
        return real_render(schema, command)

    monkeypatch.setattr(generate, "render", render)
    return tree


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().out


# --- the header and file lists agree with the generator ----------------------------------


def test_header_written_by_the_generator_parses() -> None:
    digest = "ab" * 32
    parsed = package_files.parse_header(
        generate.header("schema.unstable.json", digest) + "\n\nx = 1\n"
    )
    assert parsed == package_files.Header(
        "schema.unstable.json", metadata.version("datamodel-code-generator"), digest
    )
    assert package_files.parse_header("# just a comment\nx = 1\n") is None


def test_expected_files_are_what_a_render_writes(rendered: list[GeneratedFile]) -> None:
    assert tuple(f.name for f in rendered) == package_files.GENERATED_FILES
    with_header = tuple(f.name for f in rendered if package_files.parse_header(f.text) is not None)
    assert with_header == package_files.HEADERED_FILES


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_default_roots_are_the_generators(version: str) -> None:
    (target,) = drift.version_targets([version])
    assert target.schema == bundled.bundled_schema(version)
    assert target.out == bundled.default_output(version)
    assert target.fix == f"acp-schema generate {version}"


def _generate_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    generate_commands.register(parser.add_subparsers())
    return parser.parse_args(["generate", *argv])


@pytest.mark.parametrize(
    ("schema", "out"),
    [
        ("s.json", "pkg/acp"),
        ("./s.json", "./pkg/acp/"),
        ("{cwd}/s.json", "{cwd}/pkg/acp"),
        ("../elsewhere/s.json", "../elsewhere/pkg"),
        ("/tmp/a b/s.json", "/tmp/a b/p'kg"),
    ],
)
def test_generate_and_check_name_the_same_command(
    schema: str, out: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The header that `generate --schema S --out D` writes is the one `check --full --schema
    S --out D` renders, however the paths are spelled (relative, ./, absolute)."""
    monkeypatch.chdir(tmp_path)
    schema, out = schema.format(cwd=tmp_path), out.format(cwd=tmp_path)
    args = _generate_args("--schema", schema, "--out", out)
    written = generate_commands._reproducing_command(args)
    assert drift.file_target(Path(schema), Path(out)).command == written
    assert written.startswith("acp-schema generate --schema ")
    if schema.startswith(("./", str(tmp_path))):  # inside the working directory: relative
        assert written == "acp-schema generate --schema s.json --out pkg/acp"
    elif not schema.startswith("s.json"):  # outside it: as given, quoted for a shell
        assert written == shlex.join(["acp-schema", "generate", "--schema", schema, "--out", out])


def test_a_command_with_out_needs_a_source() -> None:
    message = r"^a command with --out needs a schema or an upstream release$"
    with pytest.raises(ValueError, match=message):
        package_files.reproducing_command(Path("pkg"))


@pytest.mark.parametrize("stable", [False, True])
def test_generate_and_check_upstream_name_the_same_command(
    stable: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    flags = ["--stable"] if stable else []
    args = _generate_args("--upstream", "2.4.0", "v2", *flags, "--out", str(tmp_path / "p"))
    source = package_files.UpstreamSource("2.4.0", "v2", stable)
    target = drift.upstream_target(source, tmp_path / "s.json", tmp_path / "p")
    assert target.command == generate_commands._reproducing_command(args)
    expected = ["acp-schema generate --upstream 2.4.0 v2", *flags, "--out p"]
    assert target.command == " ".join(expected)
    assert target.fix == target.command


def test_bundled_targets_expect_the_bundled_header() -> None:
    assert {t.command for t in drift.version_targets()} == {"acp-schema generate"}
    assert generate_commands._reproducing_command(_generate_args("v1")) == "acp-schema generate"


# --- in sync and drift, fast path and --full ----------------------------------------------


def test_in_sync_fast_and_full(tree: Tree, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(tree.args(), capsys)
    assert code == 0, out
    assert out.splitlines()[-1] == "acp-schema check: 1 target(s) in sync"
    assert run(tree.args("--full"), capsys)[0] == 0


def test_changed_schema_is_drift_on_both_paths(
    tree: Tree, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = json.loads(tree.schema.read_text(encoding="utf-8"))
    schema["$defs"]["SessionMessage"]["description"] = "Reworded."
    tree.schema.write_text(json.dumps(schema, indent=2), encoding="utf-8")
    for extra in ((), ("--full",)):
        code, out = run(tree.args(*extra), capsys)
        assert code == 1, out
        assert "v1: DRIFT" in out
        assert "__init__.py: generated from another schema" in out
        assert "methods.py: generated from another schema" in out
        assert f"acp-schema generate --schema {tree.schema} --out {tree.out}" in out
    assert "+    Reworded." in out  # --full shows the diff


def test_deleted_file_is_drift_on_both_paths(
    tree: Tree, capsys: pytest.CaptureFixture[str]
) -> None:
    (tree.out / "methods.py").unlink()
    for extra in ((), ("--full",)):
        code, out = run(tree.args(*extra), capsys)
        assert code == 1
        assert f"{tree.out / 'methods.py'}: missing" in out


def test_edited_header_is_drift_on_both_paths(
    tree: Tree, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tree.out / "__init__.py"
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[2] = "# schema-sha256: " + "0" * 64
    path.write_text("\n".join(lines), encoding="utf-8")
    for extra in ((), ("--full",)):
        code, out = run(tree.args(*extra), capsys)
        assert code == 1
        assert "header records sha256 000000000000" in out


def test_hand_edit_below_the_header_is_caught_by_both_paths(
    tree: Tree, capsys: pytest.CaptureFixture[str]
) -> None:
    """The header's content digest lets the fast path see it; --full shows the diff."""
    path = tree.out / "__init__.py"
    path.write_text(path.read_text(encoding="utf-8") + "PATCHED = True\n", encoding="utf-8")
    code, out = run(tree.args(), capsys)
    assert code == 1
    assert "__init__.py: edited by hand: the text no longer matches its header" in out
    code, out = run(tree.args("--full"), capsys)
    assert code == 1
    assert "__init__.py: edited by hand: the text no longer matches its header" in out
    assert "-PATCHED = True" in out


def test_full_diff_is_capped(tree: Tree, capsys: pytest.CaptureFixture[str]) -> None:
    path = tree.out / "__init__.py"
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "".join(f"X{i} = {i}\n" for i in range(200)), encoding="utf-8")
    code, out = run(tree.args("--full"), capsys)
    assert code == 1
    diff_lines = [line for line in out.splitlines() if line.startswith("    ")]
    assert len(diff_lines) == drift.MAX_DIFF_LINES + 1
    assert diff_lines[-1].strip().endswith("more diff line(s)")


def test_generator_upgrade_is_drift(
    tree: Tree, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(drift, "installed_generator", lambda: "99.0")
    code, out = run(tree.args(), capsys)
    assert code == 1
    installed = metadata.version("datamodel-code-generator")
    assert f"generated with datamodel-code-generator {installed}, 99.0 is installed" in out


def test_missing_package_directory_is_drift(tree: Tree, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.rmtree(tree.out)
    code, out = run(tree.args(), capsys)
    assert code == 1
    missing = sum(line.endswith(": missing") for line in out.splitlines())
    assert missing == len(package_files.GENERATED_FILES)
    shutil.rmtree(tree.generated)
    assert run(tree.args(), capsys)[0] == 1


def test_stray_file_is_drift_but_caches_are_not(
    tree: Tree, capsys: pytest.CaptureFixture[str]
) -> None:
    (tree.out / "__pycache__").mkdir()
    (tree.out / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    assert run(tree.args(), capsys)[0] == 0
    (tree.out / "helpers.py").write_text("", encoding="utf-8")
    code, out = run(tree.args(), capsys)
    assert code == 1
    assert "helpers.py: not written by the generator" in out


# --- unusable input ----------------------------------------------------------------------


def test_changed_schema_that_is_broken_is_unusable(
    tree: Tree, capsys: pytest.CaptureFixture[str]
) -> None:
    tree.schema.write_text('{"$defs": ', encoding="utf-8")
    for extra in ((), ("--full",)):
        code, out = run(tree.args(*extra), capsys)
        assert code == 2
        assert "invalid JSON" in out
        assert "unusable input" in out


@pytest.mark.parametrize("lost", ["the package", "one file"])
def test_a_broken_schema_is_unusable_when_files_are_missing_too(
    tree: Tree, lost: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # The printed fix would be `generate`, which cannot succeed on this schema.
    tree.schema.write_text('{"a": NaN}', encoding="utf-8")
    if lost == "the package":
        shutil.rmtree(tree.out)
    else:
        (tree.out / "fast.py").unlink()
    code, out = run(tree.args(), capsys)
    assert code == 2, out
    assert "NaN" in out and "Regenerate with" not in out


def test_missing_schema_is_unusable(tree: Tree, capsys: pytest.CaptureFixture[str]) -> None:
    tree.schema.unlink()
    code, out = run(tree.args(), capsys)
    assert code == 2
    assert "cannot read the schema" in out


def test_package_path_that_is_a_file_is_unusable(
    tree: Tree, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.rmtree(tree.out)
    tree.out.write_text("", encoding="utf-8")
    assert run(tree.args(), capsys)[0] == 2


@pytest.mark.parametrize("flag", ["--generated", "--schema-dir"])
def test_a_root_that_is_a_file_exits_2_in_one_line(
    tmp_path: Path, flag: str, capsys: pytest.CaptureFixture[str]
) -> None:
    afile = tmp_path / "afile"
    afile.write_text("", encoding="utf-8")
    assert main(["check", flag, str(afile)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"acp-schema check: {flag} {afile}: not a directory\n"


def test_generator_not_installed_is_unusable(
    tree: Tree, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(drift, "installed_generator", lambda: None)
    code, out = run(tree.args(), capsys)
    assert code == 2
    assert "[codegen] extra" in out


# --- command line forms ------------------------------------------------------------------


def test_schema_and_out_pair(tree: Tree, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["check", "--schema", str(tree.schema), "--out", str(tree.out)]
    assert run(args, capsys)[0] == 0
    (tree.out / "py.typed").unlink()
    code, out = run(args, capsys)
    assert code == 1
    assert f"acp-schema generate --schema {tree.schema} --out {tree.out}" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", "--schema", "x.json"], "--schema and --out go together"),
        (["check", "v1", "--schema", "x.json", "--out", "d"], "give --schema/--out, or"),
        (["check", "v3"], "unknown protocol version 'v3'"),
    ],
)
def test_usage_errors_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_bundled_roots_suggest_generate_and_nox(tmp_path: Path) -> None:
    (target,) = drift.version_targets(["v2"])
    report = drift.TargetReport(target, findings=[drift.Finding(target.out, "missing")])
    lines = drift.report_lines([report], bundled=True)
    assert lines[-1] == "  acp-schema generate v2    (or: nox -s generate -- v2)"
    assert drift.exit_code([report]) == 1


def test_check_from_another_directory_says_the_paths_differ_not_the_generator(
    tree: Tree, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Generated from the tree's root; checked from inside `generated/`, where the same
    # files are named by other relative paths, so the header's command differs.
    monkeypatch.chdir(tree.generated)
    args = ["check", "--full", "--schema", f"../{tree.schema}", "--out", "v1"]
    code, out = run(args, capsys)
    assert code == 1
    assert "generated with other paths (the header's command differs)" in out
    assert "the generator itself changed" not in out
