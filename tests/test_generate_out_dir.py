"""`acp-schema generate` owns only what it wrote (acp_schema.codegen.generate.out_dir).

These tests write prepared files (no rendering), so they run in milliseconds; the command
line cases refuse before anything is rendered.
"""

from __future__ import annotations

import os
import signal
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from acp_schema.cli import main
from acp_schema.codegen import bundled
from acp_schema.codegen.generate import out_dir
from acp_schema.codegen.generate import pipeline as generate
from acp_schema.codegen.generate.out_dir import OutDirError, inspect_out_dir, write_out_dirs
from acp_schema.codegen.generate.package_files import GENERATED_FILES
from acp_schema.codegen.generate.pipeline import GeneratedFile

REPO = Path(__file__).resolve().parents[1]


def generated_text(body: str) -> str:
    return generate.seal(f"{generate.header('schema.json', 'ab' * 32)}\n{body}")


def files(version: str = "new") -> list[GeneratedFile]:
    return [
        GeneratedFile("__init__.py", generated_text(f"FACADE = {version!r}\n")),
        GeneratedFile("_notifications.py", generated_text(f"CARRIED = {version!r}\n")),
        GeneratedFile("_models.py", generated_text(f"MODELS = {version!r}\n")),
        GeneratedFile("methods.py", generated_text(f"METHODS = {version!r}\n")),
        GeneratedFile("fast.py", generated_text(f"FAST = {version!r}\n")),
        GeneratedFile("py.typed", ""),
    ]


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under root with its bytes (None for a directory)."""
    return {
        str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes())
        for p in sorted(root.rglob("*"))
    }


@pytest.fixture
def umask_022() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- a new directory ---------------------------------------------------------------------


@pytest.mark.parametrize(("mask", "expected"), [(0o022, 0o755), (0o027, 0o750)])
def test_a_new_directory_gets_the_usual_permissions(
    tmp_path: Path, mask: int, expected: int
) -> None:
    previous = os.umask(mask)
    try:
        generate.write_files(files(), tmp_path / "deeper" / "pkg")
    finally:
        os.umask(previous)
    out = tmp_path / "deeper" / "pkg"
    assert mode(out) == expected  # not the 0700 of a temporary directory
    assert mode(out / "__init__.py") == expected & 0o666
    assert sorted(p.name for p in out.iterdir()) == sorted(GENERATED_FILES)
    assert sorted(p.name for p in (tmp_path / "deeper").iterdir()) == ["pkg"]  # no leftovers


# --- an earlier output -------------------------------------------------------------------


def test_an_earlier_output_is_replaced_and_python_caches_kept(
    tmp_path: Path, umask_022: None
) -> None:
    out = tmp_path / "pkg"
    generate.write_files(files("old"), out)
    out.chmod(0o750)
    (out / "__pycache__").mkdir()
    (out / "__pycache__" / "methods.cpython-311.pyc").write_bytes(b"cache")
    (out / "models.py").write_text(generated_text("OLD = 1\n"))  # an older generator's file
    generate.write_files(files("new"), out)
    assert sorted(p.name for p in out.iterdir()) == sorted([*GENERATED_FILES, "__pycache__"])
    assert "MODELS = 'new'" in (out / "_models.py").read_text()
    assert (out / "__pycache__" / "methods.cpython-311.pyc").read_bytes() == b"cache"
    assert mode(out) == 0o750  # the directory is kept, with its own mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]


def test_an_empty_directory_is_used(tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    out.mkdir()
    generate.write_files(files(), out)
    assert sorted(p.name for p in out.iterdir()) == sorted(GENERATED_FILES)


# --- what is refused ---------------------------------------------------------------------


def _foreign_entries(out: Path, kind: str) -> None:
    if kind == "other file":
        (out / "notes.txt").write_text("mine")
    elif kind == "hand-written module":
        (out / "__init__.py").write_text("# my package\nx = 1\n")
    elif kind == "py.typed with content":
        (out / "py.typed").write_text("partial\n")
    elif kind == "subdirectory":
        (out / "data").mkdir()
    elif kind == "symlink to a generated file":
        (out / "link.py").symlink_to(out / "methods.py")


@pytest.mark.parametrize(
    "kind",
    [
        "other file",
        "hand-written module",
        "py.typed with content",
        "subdirectory",
        "symlink to a generated file",
    ],
)
def test_a_directory_with_foreign_files_is_refused_and_left_alone(
    tmp_path: Path, kind: str
) -> None:
    out = tmp_path / "pkg"
    generate.write_files(files("old"), out)
    _foreign_entries(out, kind)
    before = snapshot(tmp_path)
    with pytest.raises(OutDirError, match="did not write"):
        generate.write_files(files("new"), out)
    assert snapshot(tmp_path) == before


def test_an_existing_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "pkg"
    target.write_text("a file")
    with pytest.raises(OutDirError, match="exists and is not a directory"):
        generate.write_files(files(), target)
    assert target.read_text() == "a file"


def test_a_path_below_a_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / "afile").write_text("x")
    with pytest.raises(OutDirError, match="afile is not a directory"):
        generate.write_files(files(), tmp_path / "afile" / "pkg")


def _package_dir(name: str) -> Path:
    import importlib

    module = importlib.import_module(name)
    return Path(next(iter(module.__path__)))


@pytest.mark.parametrize(
    "where",
    [
        "generated root",
        "bundled schema folder",
        "bundled schema version",
        "package root",
        "codegen package",
        "inside a bundled version",
        "ancestor of the package",
    ],
)
def test_paths_of_the_installed_package_are_refused(where: str) -> None:
    path = {
        "generated root": lambda: bundled.generated_dir(),
        "bundled schema folder": lambda: bundled.schema_dir(),
        "bundled schema version": lambda: bundled.schema_dir() / "v1",
        "package root": lambda: _package_dir("acp_schema"),
        "codegen package": lambda: _package_dir("acp_schema.codegen"),
        "inside a bundled version": lambda: bundled.default_output("v1") / "sub",
        "ancestor of the package": lambda: bundled.schema_dir().parent.parent,
    }[where]()
    before = snapshot(path) if path.is_dir() and where != "ancestor of the package" else None
    with pytest.raises(OutDirError, match=r"installed acp_schema package|bundled schema folder"):
        inspect_out_dir(path, GENERATED_FILES)
    if before is not None:
        assert snapshot(path) == before


@pytest.mark.parametrize("version", bundled.VERSIONS)
def test_the_bundled_version_directories_are_allowed(version: str) -> None:
    target = inspect_out_dir(bundled.default_output(version), GENERATED_FILES)
    assert target.exists and target.stale == ()


def test_the_installed_package_list_matches_pyproject() -> None:
    if sys.version_info < (3, 11):
        pytest.skip("tomllib is in the standard library from Python 3.11")
    import tomllib

    pyproject = REPO / "pyproject.toml"
    if not pyproject.is_file():
        pytest.skip("not running from a source tree")
    packages = tomllib.loads(pyproject.read_text())["tool"]["setuptools"]["packages"]
    assert sorted(out_dir.INSTALLED_PACKAGES) == sorted(packages)


# --- all or nothing ----------------------------------------------------------------------


def test_a_failed_write_changes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "pkg"
    generate.write_files(files("old"), out)
    before = snapshot(tmp_path)
    broken = [*files("new"), GeneratedFile("missing-dir/x.py", "")]  # cannot be staged
    with pytest.raises(OutDirError, match="cannot write"):
        generate.write_files(broken, out)
    assert snapshot(tmp_path) == before


def test_several_targets_are_refused_before_any_is_written(tmp_path: Path) -> None:
    good, bad = tmp_path / "good", tmp_path / "bad"
    bad.mkdir()
    (bad / "notes.txt").write_text("mine")
    jobs = [([(f.name, f.text) for f in files()], out) for out in (good, bad)]
    with pytest.raises(OutDirError):
        write_out_dirs(jobs)
    assert not good.exists()


def test_ctrl_c_while_staging_leaves_the_old_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "pkg"
    generate.write_files(files("old"), out)
    before = snapshot(tmp_path)
    real_write = Path.write_text

    def interrupted(self: Path, *args: object, **kwargs: object) -> int:
        if self.name == "methods.py":
            raise KeyboardInterrupt
        return real_write(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Path, "write_text", interrupted)
    with pytest.raises(KeyboardInterrupt):
        generate.write_files(files("new"), out)
    assert snapshot(tmp_path) == before


def test_ctrl_c_while_swapping_is_held_until_the_new_output_is_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "pkg"
    generate.write_files(files("old"), out)
    real_replace = os.replace

    def replace_with_ctrl_c(src: str | Path, dst: str | Path) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # a real SIGINT, delivered mid-swap
        real_replace(src, dst)

    monkeypatch.setattr(out_dir.os, "replace", replace_with_ctrl_c)
    with pytest.raises(KeyboardInterrupt):
        generate.write_files(files("new"), out)
    for item in files("new"):
        assert (out / item.name).read_text() == item.text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pkg"]


# --- the command line --------------------------------------------------------------------


def test_generate_refuses_a_foreign_directory_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    schema = bundled.bundled_schema("v1")
    assert main(["generate", "--schema", str(schema), "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1
    assert str(out) in captured.err and "notes.txt" in captured.err
    assert (out / "notes.txt").read_text() == "mine"


def test_help_names_where_plain_generate_writes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from acp_schema.codegen.generate import commands

    assert "generated/v1 and generated/v2 of the checkout" in commands._bundled_place()
    site = Path("/opt/venv/lib/site/acp_schema")  # an installed wheel (no hyphen: argparse
    # may break a line there)
    monkeypatch.setattr(commands, "generated_dir", lambda: site)
    assert main(["generate", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert f"acp_schema.v1 and acp_schema.v2 in {site}" in text
    assert "generated/v1" not in text


def test_checkout_root_is_this_checkout() -> None:
    assert bundled.checkout_root() == REPO


@pytest.mark.parametrize("argv", [["generate"], ["generate", "v2"]])
def test_plain_generate_refuses_an_installed_copy(
    argv: list[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Installed from a wheel, the bundled bindings live in site-packages: rewriting them
    would change an installed distribution, so `generate` without --out says what to do."""
    from acp_schema.codegen.generate import commands

    site = tmp_path / "site-packages" / "acp_schema"
    (site / "v1").mkdir(parents=True)
    monkeypatch.setattr(commands, "generated_dir", lambda: site)
    monkeypatch.setattr(commands, "checkout_root", lambda: None)
    rendered: list[object] = []
    monkeypatch.setattr(generate, "generate_many", lambda *a, **k: rendered.append(a))
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert f"installed copy ({site}/v1, v2)" in err
    assert "pip install -e '.[codegen]'" in err
    assert "--schema PATH --out DIR" in err
    assert rendered == []
    assert sorted(p.name for p in site.iterdir()) == ["v1"]


def test_checkout_root_is_none_for_an_installed_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site-packages" / "acp_schema"
    site.mkdir(parents=True)
    monkeypatch.setattr(bundled, "generated_dir", lambda: site)
    assert bundled.checkout_root() is None
    checkout = tmp_path / "checkout"
    (checkout / "generated").mkdir(parents=True)
    monkeypatch.setattr(bundled, "generated_dir", lambda: checkout / "generated")
    assert bundled.checkout_root() is None  # no pyproject.toml: not a checkout
    (checkout / "pyproject.toml").write_text("", encoding="utf-8")
    assert bundled.checkout_root() == checkout
