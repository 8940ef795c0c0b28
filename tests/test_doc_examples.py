"""Every Python example in README.md and docs/*.md is a complete program: it runs as printed,
prints exactly the output the page shows after it, and passes `mypy --strict`.

How a page marks its examples (docs/README conventions, checked here):

- a ```` ```python ```` block is a program. Its first line may name it (`# client.py`): the
  page's other examples can then run it by that name; such a named block is run itself only
  when the page tells the reader to (`` `python client.py` ``), since it may need the others
  (an agent process that a client starts). Every other block runs on its own.
- a ```` ```text ```` block right after a program (no other program in between) is what the
  program prints, byte for byte, after an optional first line `$ python NAME` (which also
  tells the reader to run it); a program without one must print nothing on stderr and
  exit 0 all the same.
- ```` ```python fragment ```` marks the code docs/migration.md shows around the codemod: what a
  migration starts from (written against the old bindings, which no longer type-check), what
  it writes, parts of a user's program; those are only parsed, and only that page has them.

All the programs are written into one folder (where they run) and type-checked together by
one `mypy --strict` run against the package as pip installs it.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
NAMED = re.compile(r"# ([A-Za-z_][A-Za-z0-9_]*\.py)\n")
ILLUSTRATION = "python fragment"  # only in docs/migration.md


@dataclass(frozen=True)
class Example:
    page: Path
    line: int  # of the opening fence
    name: str  # the file it is written to
    code: str
    output: str | None  # the text block after it
    runs: bool

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def _examples() -> tuple[list[Example], list[tuple[Path, int, str]]]:
    programs: list[Example] = []
    illustrations: list[tuple[Path, int, str]] = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        fences = list(FENCE.finditer(text))
        for index, fence in enumerate(fences):
            info, code = fence.group(1).strip(), fence.group(2)
            line = text.count("\n", 0, fence.start()) + 1
            if info == ILLUSTRATION:
                illustrations.append((page, line, code))
                continue
            if not info.startswith("python"):
                continue
            assert info == "python", f"{page.name}:{line}: unknown fence ```{info}"
            named = NAMED.match(code)
            name = named.group(1) if named else f"{page.stem.replace('-', '_')}_{line}.py"
            after = fences[index + 1] if index + 1 < len(fences) else None
            output = after.group(2) if after and after.group(1).strip() == "text" else None
            # An output may start with the command that printed it (`$ python client.py`).
            prompt = f"$ python {name}\n"
            shown_run = output is not None and output.startswith(prompt)
            if shown_run:
                output = output[len(prompt) :]
            runs = named is None or f"`python {name}`" in text or shown_run
            programs.append(Example(page, line, name.lower(), code, output, runs))
    return programs, illustrations


EXAMPLES, ILLUSTRATIONS = _examples()
RUNNABLE = [e for e in EXAMPLES if e.runs]


def _needs(example: Example) -> None:
    """Skip an example that needs an extra this environment lacks (the acp SDK)."""
    imports = re.findall(r"^(?:import|from) (\w+)", example.code, re.MULTILINE)
    for module in imports:
        if module == "acp" and importlib.util.find_spec("acp") is None:
            pytest.skip(f"{example.where} needs agent-client-protocol (the acp extra)")


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every example as a file, in one folder: the programs run there, and mypy checks them."""
    where = tmp_path_factory.mktemp("examples")
    names = [e.name for e in EXAMPLES]
    assert len(set(names)) == len(names), f"two examples write one file: {sorted(names)}"
    for example in EXAMPLES:
        (where / example.name).write_text(example.code, encoding="utf-8")
    return where


def test_the_pages_hold_the_examples_they_should() -> None:
    """The extraction finds what the pages show (a broken fence would hide examples)."""
    by_page: dict[str, list[str]] = {}
    for example in EXAMPLES:
        by_page.setdefault(example.page.name, []).append(example.name)
    assert len(by_page["README.md"]) >= 2  # the quick start and the bindings
    assert {"agent.py", "client.py"} <= set(by_page["acp-sdk.md"])
    assert by_page["session-messages.md"]
    assert all(e.output is not None for e in RUNNABLE if e.page.name == "README.md")
    assert len(ILLUSTRATIONS) >= 5
    assert {page.name for page, _, _ in ILLUSTRATIONS} == {"migration.md"}


@pytest.mark.parametrize("example", RUNNABLE, ids=[e.where for e in RUNNABLE])
def test_the_example_runs_and_prints_what_the_page_shows(example: Example, folder: Path) -> None:
    _needs(example)
    done = subprocess.run(
        [sys.executable, example.name],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    assert done.returncode == 0, f"{example.where}:\n{done.stderr}"
    assert done.stderr == "", f"{example.where} wrote to stderr"
    if example.output is not None:
        assert done.stdout == example.output, f"{example.where} prints otherwise"


def test_every_example_passes_mypy_strict(installed_project: Path, folder: Path) -> None:
    if importlib.util.find_spec("acp") is None:
        pytest.skip("the acp-sdk.md examples need agent-client-protocol (the acp extra)")
    files = sorted(path.name for path in folder.glob("*.py"))
    assert len(files) == len(EXAMPLES)
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *files],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYPATH": str(installed_project)},
        check=False,
    )
    shown = {e.name: e.where for e in EXAMPLES}
    report = re.sub(
        r"^(\w+\.py):", lambda m: f"{shown.get(m.group(1), m.group(1))}+:", done.stdout, flags=re.M
    )
    assert done.returncode == 0, report
    assert done.stdout.startswith(f"Success: no issues found in {len(files)} source files")


@pytest.mark.parametrize(
    ("page", "line", "code"), ILLUSTRATIONS, ids=[f"{p.name}:{n}" for p, n, _ in ILLUSTRATIONS]
)
def test_codemod_illustrations_are_python(page: Path, line: int, code: str) -> None:
    ast.parse(code, filename=f"{page.name}:{line}")
