"""docs/drift.md's recipe for another repository, run as the page writes it.

The commands are taken from the page, not retyped here: the setup block of "In another
repository" (the `acp-schema` lines; `git submodule add` and `pip install` are the reader's,
see below), every `run:` step of the GitHub Actions block after it, and the local hook of
"With pre-commit" through pre-commit itself. They run in a fresh downstream repository laid
out as the page says (`schema/acp.unstable.json`, `src/mypkg/`, `tools/acp-schema` standing
for the submodule), with the schema:

- the bundled v2 schema (always: no network needed);
- the schema of a published `@agentclientprotocol/sdk` release, and the page's `--upstream`
  pair, where this machine holds the release (`tests/reference_schemas.py`); skipped, saying
  where it looked, otherwise.

Not run: `git submodule add URL` (the URL is the reader's) and the `pip install` steps (they
need an index; the suite runs where acp-schema is installed already); the test checks that
each installs `tools/acp-schema` with the extras the later steps need.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from acp_schema.codegen import bundled
from tests.reference_schemas import require_reference

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "drift.md"
RELEASE = "2.4.0"  # the published release the page's --upstream lines name
BIN = Path(sys.executable).parent  # where this environment's `acp-schema` lives


def _section(title: str) -> str:
    text = PAGE.read_text(encoding="utf-8")
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _blocks(section: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", section, re.MULTILINE | re.DOTALL)


def _setup_commands() -> list[str]:
    (setup,) = _blocks(_section("In another repository"), "sh")[:1]
    return [line for line in setup.splitlines() if line.startswith("acp-schema ")]


def _ci_steps() -> list[str]:
    (workflow,) = _blocks(_section("In another repository"), "yaml")
    return [step["run"] for step in yaml.safe_load(workflow) if "run" in step]


def _upstream_pair() -> tuple[str, str]:
    """The page's `generate --upstream` line and its `check --full --upstream` line."""
    section = _section("In another repository")
    generate, check = re.findall(
        r"`(acp-schema (?:generate|check --full) --upstream [^`]*)`", section
    )
    return generate, check


def _environment() -> dict[str, str]:
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def _run(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env=_environment(),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _downstream(tmp_path: Path, schema: Path) -> Path:
    repo = tmp_path / "downstream"
    (repo / "schema").mkdir(parents=True)
    shutil.copyfile(schema, repo / "schema" / "acp.unstable.json")
    (repo / "src" / "mypkg").mkdir(parents=True)
    (repo / "src" / "mypkg" / "__init__.py").write_text("", encoding="utf-8")
    (repo / "tools").mkdir()
    (repo / "tools" / "acp-schema").symlink_to(REPO)  # the submodule's checkout
    return repo


def _follow_the_page(repo: Path) -> None:
    for command in _setup_commands():
        done = _run(command, repo)
        assert done.returncode == 0, f"{command}\n{done.stdout}{done.stderr}"
    for step in _ci_steps():
        if step.startswith("python -m pip install "):
            continue  # needs an index: see the module docstring and the test below
        done = _run(step, repo)
        assert done.returncode == 0, f"{step}\n{done.stdout}{done.stderr}"


def test_the_page_holds_the_recipe() -> None:
    """What the other tests run is there: a generate line, a full check with the same
    arguments, an install of the submodule's folder with the extras the steps use."""
    (generate,) = _setup_commands()
    steps = _ci_steps()
    assert generate.startswith("acp-schema generate --schema ")
    arguments = generate.removeprefix("acp-schema generate ")
    assert f"acp-schema check --full {arguments}" in steps
    (install,) = [s for s in steps if s.startswith("python -m pip install ")]
    (target,) = shlex.split(install)[4:]
    folder, _, extras = target.partition("[")
    assert (REPO / "pyproject.toml").is_file() and folder == "./tools/acp-schema"
    assert {"codegen", "migrate"} <= set(extras.rstrip("]").split(","))
    generate_upstream, check_upstream = _upstream_pair()
    assert check_upstream.removeprefix("acp-schema check --full ") == (
        generate_upstream.removeprefix("acp-schema generate ")
    )
    assert f"--upstream {RELEASE} " in generate_upstream


@pytest.fixture(scope="module")
def followed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A downstream repository of the bundled v2 schema after the page's steps (shared:
    the steps generate and render; tests that change it take a copy)."""
    repo = _downstream(tmp_path_factory.mktemp("bundled"), bundled.bundled_schema("v2"))
    _follow_the_page(repo)
    return repo


def _copy(repo: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "downstream"
    shutil.copytree(repo, copy, symlinks=True)
    return copy


def test_the_recipe_passes_on_a_package_of_the_bundled_schema(followed: Path) -> None:
    assert (followed / "src" / "mypkg" / "acp" / "methods.py").is_file()


def test_the_recipe_fails_when_the_bindings_drift(followed: Path, tmp_path: Path) -> None:
    """The same steps go red on a hand edit: the recipe checks something."""
    repo = _copy(followed, tmp_path)
    models = repo / "src" / "mypkg" / "acp" / "fast.py"
    models.write_text(models.read_text(encoding="utf-8") + "# edited\n", encoding="utf-8")
    (check,) = [s for s in _ci_steps() if s.startswith("acp-schema check")]
    done = _run(check, repo)
    assert done.returncode == 1
    assert "fast.py: edited by hand" in done.stdout
    assert done.stdout.rstrip().endswith(_setup_commands()[0])  # the fix is the setup line


def test_the_recipe_passes_on_a_package_of_a_published_release(tmp_path: Path) -> None:
    published = require_reference(RELEASE, "v2")
    repo = _downstream(tmp_path, published)
    _follow_the_page(repo)
    generate, check = _upstream_pair()
    for command in (
        generate.replace("src/mypkg/acp", "src/mypkg/upstream"),
        check.replace("src/mypkg/acp", "src/mypkg/upstream"),
    ):
        done = _run(command, repo)
        if done.returncode == 2 and "npm" in done.stderr:
            pytest.skip(f"the {RELEASE} schema is not in the cache and npm cannot fetch it")
        assert done.returncode == 0, f"{command}\n{done.stdout}{done.stderr}"


def test_the_local_pre_commit_hook_runs_as_written(followed: Path, tmp_path: Path) -> None:
    if shutil.which("pre-commit", path=str(BIN)) is None:
        pytest.skip("pre-commit is not installed (the dev extra installs it)")
    if shutil.which("git") is None:
        pytest.skip("pre-commit needs git")
    (config,) = _blocks(_section("With pre-commit"), "yaml")
    repo = _copy(followed, tmp_path)
    (repo / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    git = "git -c user.name=t -c user.email=t@t"
    setup = f"git init -q . && {git} add schema src .pre-commit-config.yaml"
    assert _run(setup, repo).returncode == 0
    home = {"PRE_COMMIT_HOME": str(tmp_path / "pre-commit-cache")}
    hook = f"{BIN / 'pre-commit'} run --all-files"
    done = subprocess.run(
        ["bash", "-c", hook],
        cwd=repo,
        env={**_environment(), **home},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "acp-schema check" in done.stdout and "Passed" in done.stdout
    (repo / "src" / "mypkg" / "acp" / "py.typed").unlink()
    done = subprocess.run(
        ["bash", "-c", hook],
        cwd=repo,
        env={**_environment(), **home},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1
    assert "py.typed: missing" in done.stdout
