"""Mutation testing of runtime/, codegen/ and migrations/ with mutmut: `nox -s mutants`.

    python -m tests.mutants [PATHS...]    stage, run mutmut, print the score per module
    python -m tests.mutants --summary     the score of the last (or a running) run
    python -m tests.mutants --recheck [NAMES...]   survivors against every test (below)

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
# The tests each folder's mutants run against (mutmut runs the union once to learn which
# test reaches which function, then each mutant against those that reach it; a survivor
# runs all of them, so the selection is what keeps a run tractable). Left out everywhere:
# tests that only drive other processes (mypy, lint-imports, spawned agents, the release
# matrix), which no mutant reaches, and, for the runtime, the end-to-end CLI sweeps, so
# that a mutant only they kill shows as a weak spot of the runtime's own tests.
AREA_TESTS = {
    "runtime": [
        "tests/test_bindings_*.py",
        "tests/test_fast_*.py",
        "tests/test_transcript*.py",
        "tests/test_jsonrpc_decode.py",
        "tests/test_acp_bridge.py",
        "tests/test_acp_bridge_convert.py",
    ],
    "codegen": [
        "tests/test_bindings_generation.py",
        "tests/test_generation_open_schemas.py",
        "tests/test_generate_out_dir.py",
        "tests/test_loaded_schema.py",
        "tests/test_prepass.py",
        "tests/test_postpass_helpers.py",
        "tests/test_schema_*.py",
        "tests/test_drift_check.py",
        "tests/test_cli_schema_check.py",
        "tests/test_bundled_schema.py",
        "tests/test_fast_target.py",
        "tests/test_upstream.py",
        "tests/test_reference_schemas.py",
    ],
    "migrations": ["tests/test_migrate_*.py"],
}
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


def tests_for(modules: list[str] | None) -> list[str]:
    """The test files for the folders the mutated modules come from (all without PATHS)."""
    areas = set(AREA_TESTS)
    if modules is not None:
        areas = {area for area in AREA_TESTS for module in modules if _area(module) == area}
    patterns = sorted({pattern for area in areas for pattern in AREA_TESTS[area]})
    return sorted({p.relative_to(REPO).as_posix() for g in patterns for p in REPO.glob(g)})


def _area(staged: str) -> str:
    parts = Path(staged).parts  # src/acp_schema/...
    return parts[2] if len(parts) > 3 and parts[2] in ("codegen", "migrations") else "runtime"


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
    # `[tool.mutmut]` is the last table of pyproject.toml, so lines appended to the file
    # belong to it; the parse below checks that they did.
    modules = modules_of(paths, dirs) if paths else None
    if modules is not None:
        text += f"only_mutate = {json.dumps(modules)}\n"
    text += f"pytest_add_cli_args_test_selection = {json.dumps(tests_for(modules))}\n"
    parsed = tomllib.loads(text)["tool"]["mutmut"]
    if "pytest_add_cli_args_test_selection" not in parsed:
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
        checked = total - counts["not checked"]
        # Killed (and timed out: a mutant that loops forever is caught) over the mutants
        # checked (an interrupted run leaves the rest "not checked").
        caught = counts["killed"] + counts["timeout"]
        score = caught / checked if checked else 0.0
        rows.append({"module": source, **counts, "total": total, "score": score})
    result = {"modules": rows, "survivors": survivors}
    (STAGE / "summary.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result


def print_summary(result: dict[str, object]) -> None:
    rows = result["modules"]
    assert isinstance(rows, list)
    columns = ("killed", "survived", "no tests", "timeout", "not checked")
    head = ("killed", "surv.", "no t.", "t/o", "n/c")
    print(f"{'module':<40} " + " ".join(f"{h:>{len(h) + 1}}" for h in head) + "  score")
    for row in rows:
        counts = " ".join(
            f"{row.get(c, 0):>{len(h) + 1}}" for c, h in zip(columns, head, strict=True)
        )
        print(f"{row['module']:<40} {counts} {row['score']:>6.1%}")
    caught = sum(row.get("killed", 0) + row.get("timeout", 0) for row in rows)
    checked = sum(row["total"] - row.get("not checked", 0) for row in rows)
    if checked:
        print(f"all: {caught} of {checked} checked mutants caught, {caught / checked:.1%}")
    print(f"survivors and untested mutants: {len(result['survivors'])} (.mutants/summary.json)")


def recheck(names: list[str]) -> dict[str, str]:
    """Each mutant against its folder's whole test selection, in a fresh interpreter.

    mutmut maps a function to the tests that called it while it ran them all in one
    process; a function that runs once per process (building a validator, filling a cache)
    is mapped to the first test that triggered it only, and a survivor there may be killed
    by tests mutmut never ran against it. This asks every test, stopping at the first
    failure: "killed" then, "survived" when all pass."""
    root = STAGE / "mutants"
    verdicts: dict[str, str] = {}
    # Put the mutated package first on sys.path in the test process only, as mutmut does
    # (spawned processes import the installed package), and leave out what fails unmutated.
    start = f"import sys; sys.path.insert(0, {str(root / 'src')!r}); import pytest; "
    start += "sys.exit(pytest.main(sys.argv[1:]))"
    base = [sys.executable, "-c", start, "-q", "-p", "no:cacheprovider", "-m", "not matrix"]
    deselected: dict[str, list[str]] = {}
    for name in names:
        parts = name.split(".")
        area = parts[1] if parts[1] in ("codegen", "migrations") else "runtime"
        folder = "" if area == "runtime" else f"{area}/"
        tests = tests_for([f"src/acp_schema/{folder}module.py"])
        if area not in deselected:
            clean = subprocess.run([*base, "-rf", *tests], cwd=root, capture_output=True, text=True)
            failing = [
                line.split()[1] for line in clean.stdout.splitlines() if line.startswith("FAILED ")
            ]
            deselected[area] = [f"--deselect={test}" for test in failing]
            print(f"{area}: {len(failing)} test(s) fail unmutated, left out", flush=True)
        env = {**os.environ, "MUTANT_UNDER_TEST": name}
        command = [*base, "-x", *deselected[area], *tests]
        done = subprocess.run(command, cwd=root, env=env, capture_output=True, check=False)
        verdict = {0: "survived", 1: "killed"}.get(done.returncode, f"exit {done.returncode}")
        verdicts[name] = verdict
        print(f"{verdict:<9} {name}", flush=True)
    (STAGE / "recheck.json").write_text(json.dumps(verdicts, indent=1) + "\n", encoding="utf-8")
    return verdicts


def main(argv: list[str]) -> int:
    if argv == ["--summary"]:
        print_summary(summary())
        return 0
    if argv[:1] == ["--recheck"]:
        listed = summary()["survivors"]
        assert isinstance(listed, list)
        names = argv[1:] or [str(entry).split(" ")[0] for entry in listed]
        verdicts = recheck(names)
        left = sum(verdict == "survived" for verdict in verdicts.values())
        print(f"rechecked {len(verdicts)}: {left} still survive (.mutants/recheck.json)")
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
