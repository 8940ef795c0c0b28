"""Mutation testing of runtime/, codegen/ and migrations/ with mutmut: `nox -s mutants`.

    python -m tests.mutants [PATHS...]    stage, run mutmut, print the score per module
    python -m tests.mutants --summary     the score of the last run again

mutmut names each mutant after the module path of its file (`acp_schema._jsonrpc`), and the
tests import the package by that name, but the checkout maps `acp_schema` onto several
folders (`runtime/`, `codegen/`, ...; pyproject's `package-dir`). So mutmut runs in a
staged tree, `.mutants/` (rebuilt by each run, gitignored): a copy of the checkout, for the
tests that read the repository's files, plus the package laid out as installed under
`src/acp_schema/`, which is what mutmut copies, mutates and puts first on `sys.path`.
Its settings are `[tool.mutmut]` in pyproject.toml; PATHS (files or folders of the
checkout, e.g. `runtime/_jsonrpc.py migrations/chunk_identity`) narrow the modules mutated.

mutmut runs the test selection once to learn which tests reach which function, and then,
for each mutant, only the tests that reach its function (fastest first, stopping at the
first failure). A mutant is *killed* when a test fails, *survived* when all pass: a
survivor is a change to the code that no test notices. `summary.json` in `.mutants/` holds
the counts per module and the surviving mutants' names; `cd .mutants && mutmut show NAME`
prints a mutant's diff (docs/mutation-testing.md).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[1]
STAGE = REPO / ".mutants"
PACKAGE = "acp_schema"
# The folders whose modules are mutated (the generated bindings are not: they are the
# generator's output, and its tests cover the generator).
MUTATED = ("runtime", "codegen", "migrations")
# mutmut's exit codes per verdict (mutmut.stats.status_by_exit_code, 3.8).
_VERDICTS = {1: "killed", 3: "killed", 0: "survived", 33: "no tests", 5: "no tests", 34: "skipped"}
_TIMEOUTS = (36, -24, 24, 152, 255)


def package_dirs(pyproject: dict[str, object]) -> dict[str, str]:
    """Import name -> folder of the checkout, from `[tool.setuptools] package-dir`."""
    tool = pyproject["tool"]
    assert isinstance(tool, dict)
    mapping = tool["setuptools"]["package-dir"]
    return {str(name): str(folder) for name, folder in mapping.items()}


def staged_path(source: Path, dirs: dict[str, str]) -> Path:
    """Where a module of the checkout sits in the staged `src/` tree (the longest folder of
    `package-dir` that holds it decides its import name)."""
    relative = source.resolve().relative_to(REPO).as_posix()
    holders = [item for item in dirs.items() if f"{relative}/".startswith(f"{item[1]}/")]
    best = max(holders, key=lambda item: len(item[1]), default=None)
    if best is None:
        raise SystemExit(f"{source}: not in a package folder of pyproject.toml's package-dir")
    name, folder = best
    rest = relative[len(folder) :].lstrip("/")
    return Path("src", *name.split("."), rest) if rest else Path("src", *name.split("."))


def modules_of(paths: list[str], dirs: dict[str, str]) -> list[str]:
    """The staged paths of the Python modules under each of `paths`, for `only_mutate`.
    A folder means its own modules, not those of packages mapped from other folders."""
    owned = {folder for folder in dirs.values()}
    found: list[str] = []
    for given in paths:
        path = (Path.cwd() / given).resolve()
        if path.is_file():
            files = [path]
        elif path.is_dir():
            files = [
                p
                for p in sorted(path.rglob("*.py"))
                if "__pycache__" not in p.parts
                and not any(
                    (REPO / folder) != path
                    and (REPO / folder) in p.parents
                    and path in (REPO / folder).parents
                    for folder in owned
                )
            ]
        else:
            raise SystemExit(f"{given}: no such file or folder")
        found += [staged_path(p, dirs).as_posix() for p in files if p.suffix == ".py"]
    if not found:
        raise SystemExit(f"no Python module under {' '.join(paths)}")
    return found


def stage(paths: list[str]) -> None:
    """Build `.mutants/`: the checkout, `src/acp_schema/` as installed, and a pyproject.toml
    whose `[tool.mutmut]` also names the modules to mutate when PATHS narrowed them."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    pyproject = tomllib.loads(text)
    dirs = package_dirs(pyproject)
    shutil.rmtree(STAGE, ignore_errors=True)
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, (os.fsdecode(item) for item in listed)):
        source = REPO / name
        if source.is_file() and not name.startswith(".mutants/"):
            target = STAGE / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    # Each package's folder, outermost first, so that a nested one lands inside its parent.
    for name, folder in sorted(dirs.items(), key=lambda item: item[0].count(".")):
        shutil.copytree(
            REPO / folder,
            STAGE / "src" / Path(*name.split(".")),
            ignore=shutil.ignore_patterns("__pycache__"),
            dirs_exist_ok=True,
        )
    if paths:
        # `[tool.mutmut]` is the last table of pyproject.toml, so lines appended to the file
        # belong to it; the parse below checks that they did.
        text += f"only_mutate = {json.dumps(modules_of(paths, dirs))}\n"
        parsed = tomllib.loads(text)["tool"]["mutmut"]
        if "only_mutate" not in parsed:
            raise SystemExit("pyproject.toml: keep [tool.mutmut] the last table")
    (STAGE / "pyproject.toml").write_text(text, encoding="utf-8")


def summary() -> dict[str, object]:
    """Counts per module from mutmut's result files, and the surviving mutants."""
    per_module: dict[str, Counter[str]] = {}
    survivors: list[str] = []
    root = STAGE / "mutants" / "src"
    for meta in sorted(root.rglob("*.py.meta")):
        data = json.loads(meta.read_text(encoding="utf-8"))
        source = meta.relative_to(root).as_posix().removesuffix(".meta")
        counts: Counter[str] = Counter()
        for name, code in sorted(data.get("exit_code_by_key", {}).items()):
            verdict = "timeout" if code in _TIMEOUTS else _VERDICTS.get(code, "other")
            if code is None:
                verdict = "not checked"
            counts[verdict] += 1
            if verdict in ("survived", "no tests"):
                survivors.append(f"{name} ({verdict})")
        if counts:
            per_module[source] = counts
    rows = []
    for source, counts in per_module.items():
        total = sum(counts.values())
        # Killed (and timed out: a mutant that loops forever is caught) over all mutants.
        caught = counts["killed"] + counts["timeout"]
        rows.append({"module": source, **counts, "total": total, "score": caught / total})
    result = {"modules": rows, "survivors": survivors}
    (STAGE / "summary.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result


def print_summary(result: dict[str, object]) -> None:
    rows = result["modules"]
    assert isinstance(rows, list)
    print(f"{'module':<52} {'killed':>6} {'surv.':>5} {'no t.':>5} {'t/o':>4} {'score':>6}")
    for row in rows:
        print(
            f"{row['module']:<52} {row.get('killed', 0):>6} {row.get('survived', 0):>5} "
            f"{row.get('no tests', 0):>5} {row.get('timeout', 0):>4} {row['score']:>6.1%}"
        )
    total = sum(row["total"] for row in rows)
    caught = sum(row.get("killed", 0) + row.get("timeout", 0) for row in rows)
    if total:
        print(f"{'all':<52} {caught:>6} {'':>5} {'':>5} {'':>4} {caught / total:>6.1%}")
    print(f"survivors and untested mutants: {len(result['survivors'])} (.mutants/summary.json)")


def main(argv: list[str]) -> int:
    if argv == ["--summary"]:
        print_summary(summary())
        return 0
    stage(argv)
    # `mutmut run` exits 0 with survivors too: the score is the result, not the exit code.
    # The console script beside this interpreter (mutmut warns against `python -m mutmut`).
    script = Path(sys.executable).with_name("mutmut")
    command = str(script) if script.exists() else shutil.which("mutmut") or "mutmut"
    done = subprocess.run([command, "run"], cwd=STAGE, check=False)
    print_summary(summary())
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
