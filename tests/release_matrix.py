"""The release matrix: every published `@agentclientprotocol/sdk` schema, generated and used.

For each release, protocol (v1, v2) and flavour (`schema.json`, `schema.unstable.json`):
`schema check` finds no problem (warnings allowed), the bindings generate without numbered
classes (`StateUpdate1`, ...), import, decode a request, notification or response of every
method in the method table (built from minimal valid instances of the schema's own
definitions, round-tripped to the same JSON), and `mypy --strict` passes, run once over all
generated packages. Identical files (same sha256)
are generated once.

    python -m tests.release_matrix      # prints one line per schema and the summary

The schemas come from the npm-backed cache (`acp_schema.codegen.upstream`, fetched once);
`tests/test_release_matrix.py` runs this in the test suite and skips when they cannot be had.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

import acp_schema
from acp_schema._fast import as_model
from acp_schema.codegen.class_names import class_name
from acp_schema.codegen.generate.pipeline import generate_many
from acp_schema.codegen.method_roles import read_method_roles
from acp_schema.codegen.schema_check import check_schema_file
from acp_schema.codegen.upstream import UpstreamError, cache_root, upstream_schema

from .minimal_instances import MinimalInstances

RELEASES = ("2.0.0", "2.0.1", "2.0.2", "2.1.0", "2.2.0", "2.3.0", "2.4.0")
PROTOCOLS = ("v1", "v2")
FLAVOURS = (("unstable", False), ("stable", True))


@dataclass
class Cell:
    """One schema file of the matrix."""

    release: str
    protocol: str
    flavour: str
    path: Path
    digest: str = ""
    package: str = ""  # the generated package that stands for it (shared when identical)
    problems: list[str] = field(default_factory=list)
    decoded: int = 0
    fast: int = 0  # of those, taken by the fast path (and agreeing with the model)


@dataclass
class Matrix:
    cells: list[Cell]
    unique: int = 0
    generated: int = 0
    mypy_clean: int = 0
    seconds: float = 0.0

    @property
    def failed(self) -> list[Cell]:
        return [c for c in self.cells if c.problems]

    def summary(self) -> str:
        passed = len(self.cells) - len(self.failed)
        decoded = sum({c.package: c.decoded for c in self.cells}.values())
        fast = sum({c.package: c.fast for c in self.cells}.values())
        return (
            f"release matrix: {len(RELEASES)} versions x {len(PROTOCOLS)} protocols x "
            f"stable/unstable = {len(self.cells)} schema files, {self.unique} unique, "
            f"{self.generated} generated, {self.mypy_clean} mypy-clean, "
            f"{decoded} messages decoded ({fast} also by the fast path, alike): {passed} passed, "
            f"{len(self.failed)} failed in {self.seconds:.0f} s"
        )


def fetch_all(cache_dir: Path | None = None) -> list[Cell]:
    """The matrix's schema files from the cache (fetched with npm once). UpstreamError when
    they cannot be had (offline, no npm)."""
    cells = []
    for release in RELEASES:
        for protocol in PROTOCOLS:
            for flavour, stable in FLAVOURS:
                path = upstream_schema(release, protocol, cache_dir=cache_dir, stable=stable)
                cells.append(Cell(release, protocol, flavour, path))
    return cells


def run(cells: list[Cell], workdir: Path, progress: Callable[[str], None] | None = None) -> Matrix:
    """Check, generate, import, decode and type-check every cell; problems go on the cell.

    `progress` gets a line as each stage starts and as each package is decoded (the whole
    run takes minutes on a loaded machine: a CI log should not stay silent that long); the
    packages are generated a few at a time, a line for each batch."""
    say = progress or (lambda line: None)
    started = time.monotonic()
    matrix = Matrix(cells)
    by_digest: dict[str, list[Cell]] = {}
    for cell in cells:
        cell.digest = hashlib.sha256(cell.path.read_bytes()).hexdigest()
        by_digest.setdefault(cell.digest, []).append(cell)
    matrix.unique = len(by_digest)
    say(f"{len(cells)} schema files, {matrix.unique} unique: schema check")
    jobs = []
    for same in by_digest.values():
        first = same[0]
        package = f"r{first.release.replace('.', '_')}_{first.protocol}_{first.flavour}"
        for cell in same:
            cell.package = package
        errors = [str(p) for p in check_schema_file(first.path) if not p.warning]
        if errors:
            for cell in same:
                cell.problems += [f"schema check: {e}" for e in errors]
            continue
        (workdir / package).mkdir(parents=True)
        (workdir / package / "__init__.py").write_text("", encoding="utf-8")
        jobs.append((first.path, workdir / package / first.protocol))
    # In batches as wide as the machine (what generate_many runs in parallel anyway), so
    # that progress has a line every few seconds.
    batch = max(1, os.cpu_count() or 1)
    for start in range(0, len(jobs), batch):
        names = ", ".join(out.parent.name for _, out in jobs[start : start + batch])
        say(f"generating {start + 1}-{min(start + batch, len(jobs))} of {len(jobs)}: {names}")
        generate_many(jobs[start : start + batch])
    matrix.generated = len(jobs)
    sys.path.insert(0, str(workdir))
    try:
        for same in by_digest.values():
            if not same[0].problems:
                say(f"decoding a message of every method: {same[0].package}")
                decoded, fast, problems = _decode_all(same[0])
                numbered = numbered_names(same[0], workdir)
                if numbered:
                    problems.append(f"numbered classes: {', '.join(numbered)}")
                for cell in same:
                    cell.decoded, cell.fast = decoded, fast
                    cell.problems += problems
    finally:
        sys.path.remove(str(workdir))
    packages = sorted({c.package for c in cells if not c.problems})
    say(f"mypy --strict over {len(packages)} packages")
    failures = mypy_strict(workdir, packages)
    matrix.mypy_clean = len([p for p in packages if p not in failures])
    for cell in cells:
        if cell.package in failures:
            cell.problems.append(f"mypy --strict: {failures[cell.package]}")
    matrix.seconds = time.monotonic() - started
    return matrix


def numbered_names(cell: Cell, workdir: Path) -> list[str]:
    """Top-level names of the bindings that end in a digit and are no definition of the
    schema: the generator's numbered classes, which the pre-pass exists to prevent."""
    doc = json.loads(cell.path.read_text(encoding="utf-8"))
    declared = {class_name(n) for key in ("$defs", "definitions") for n in doc.get(key, {})}
    folder = workdir / cell.package / cell.protocol
    names = set()
    for part in ("_notifications.py", "_models.py"):  # the models come in two parts
        names.update(_defined(ast.parse((folder / part).read_text(encoding="utf-8"))))
    return sorted(n for n in names if n[-1].isdigit() and n not in declared)


def _defined(tree: ast.Module) -> set[str]:
    names = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def _fast_problem(fast_module: Any, name: str, payload: Any, value: Any) -> str | None:
    """Decode `payload` with the fast Struct named `name`, if there is one: None if it
    refuses, "" if it agrees with the model's `value`, else what differs."""
    struct_type = getattr(fast_module, name, None)
    if not isinstance(struct_type, type) or struct_type.__name__ != name:
        return None
    try:
        struct = msgspec.json.decode(json.dumps(payload), type=struct_type)
    except msgspec.DecodeError:
        return None
    if json.loads(struct.model_dump_json()) != json.loads(value.model_dump_json()):
        return "the fast path decodes it to another JSON value"
    if struct.to_model() != value:
        return "the fast path's to_model() differs from the model"
    return ""


def _decode_all(cell: Cell) -> tuple[int, int, list[str]]:
    """Decode a message of every method-table entry; each must encode back to its JSON,
    and where the fast path takes its params or result, decode to the same content."""
    doc = json.loads(cell.path.read_text(encoding="utf-8"))
    instances = MinimalInstances(doc)
    module = importlib.import_module(f"{cell.package}.{cell.protocol}.methods")
    fast_module = importlib.import_module(f"{cell.package}.{cell.protocol}.fast")
    table = module.METHODS
    roles = read_method_roles(doc)
    problems = []
    if len(table) != len(roles.entries):
        problems.append(f"method table has {len(table)} entries, the schema {len(roles.entries)}")
    decoded = fast = 0
    for method in table:
        kinds: list[tuple[str, Any]] = [("params", method.params)]
        if not method.is_notification:
            kinds.append(("result", method.result))
        for slot, kind in kinds:
            payload = instances.for_def(kind.__name__) if kind is not None else None
            if slot == "result":
                message: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "result": payload}
            else:
                message = {"jsonrpc": "2.0", "method": method.name, "params": payload}
                if not method.is_notification:
                    message["id"] = 1
            try:
                got = table.decode(json.dumps(message), method=method.name, side=method.side)
                value = as_model(got.result if slot == "result" else got.params)
                adapter = method.result_adapter if slot == "result" else method.params_adapter
                back = json.loads(adapter.dump_json(value))
            except Exception as exc:  # any failure is a finding, reported with the message
                problems.append(f"{method.name} ({method.side}) {slot}: {exc!r:.200}")
                continue
            if back != payload:
                problems.append(f"{method.name} ({method.side}) {slot}: re-encodes differently")
            decoded += 1
            if kind is not None:
                problem = _fast_problem(fast_module, kind.__name__, payload, value)
                fast += problem == ""
                if problem:
                    problems.append(f"{method.name} ({method.side}) {slot}: {problem}")
    return decoded, fast, problems


def mypy_strict(workdir: Path, packages: list[str]) -> dict[str, str]:
    """`mypy --strict` once over all packages; package -> first error line of those failing.

    The hand-written runtime the bindings import is copied beside them, as mypy cannot
    follow the editable install. mypy's cache is kept with the fetched schemas: a package
    generated again with the same text is not analysed again (mypy checks each file's hash,
    so a changed generator or runtime is), which makes a repeated run take seconds."""
    if not packages:
        return {}
    runtime = Path(acp_schema.__file__).parent
    shutil.copytree(
        runtime,
        workdir / "acp_schema",
        ignore=shutil.ignore_patterns("__pycache__", "v1", "v2"),
        dirs_exist_ok=True,
    )
    cache = cache_root() / "mypy-matrix"
    command = [sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache)]
    command += [arg for p in packages for arg in ("-p", p)]
    done = subprocess.run(command, cwd=workdir, capture_output=True, text=True, check=False)
    failures: dict[str, str] = {}
    for line in done.stdout.splitlines():
        package = line.split("/", 1)[0]
        if package in packages and ": error:" in line:
            failures.setdefault(package, line)
    if done.returncode != 0 and not failures:
        failures = dict.fromkeys(packages, (done.stdout + done.stderr).strip()[-300:])
    return failures


def main() -> int:
    import tempfile

    try:
        cells = fetch_all()
    except UpstreamError as exc:
        print(f"release matrix skipped: {exc}")
        return 0
    with tempfile.TemporaryDirectory(prefix="acp-matrix-") as tmp:
        matrix = run(cells, Path(tmp), progress=lambda line: print(line, flush=True))
    for cell in matrix.cells:
        status = "ok" if not cell.problems else "; ".join(cell.problems[:3])
        print(f"{cell.release} {cell.protocol} {cell.flavour}: {status}")
    print(matrix.summary())
    return 1 if matrix.failed else 0


if __name__ == "__main__":
    sys.exit(main())
