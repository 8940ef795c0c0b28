"""The impact report checked against what really happens when code is upgraded.

For each release pair, a sample written against the OLD published bindings
(`samples/<old>__<new>.py`, one `probe_*` function per use, imports inside the probes) is
put in a tree beside a vendored copy of the OLD bindings (`acpbind/v2`, generated here from
the cached schema: nothing generated is committed). The impact report is taken on that
tree. Then the probes run twice, in a fresh interpreter each time: against the OLD
bindings (every probe must pass: the sample is right) and against the NEW bindings
generated from the later release (what the upgrade does).

Lines carry the sample's expectations: `# listed` (the report must list this line),
`# breaks` (listed as breaks), `# not listed` (a look-alike: nothing on this line).
Reality decides the rest: a probe that fails must have its failing line listed, and a
probe that runs fine must have nothing listed as "breaks".

    python -m tests.impact_reality      # prints the figures per release pair
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from acp_schema.codegen.drift.impact.judge import Impact
from acp_schema.codegen.drift.impact.run import Settings, scan
from acp_schema.codegen.drift.impact.targets import build_targets
from acp_schema.codegen.drift.schema_diff import diff_documents, read_document
from acp_schema.codegen.generate.pipeline import generate_many
from acp_schema.codegen.upstream import upstream_schema

SAMPLES = Path(__file__).parent / "samples"
PAIRS = (("2.0.0", "2.1.0"), ("2.1.0", "2.2.0"), ("2.2.0", "2.3.0"))
PROTOCOL = "v2"

_RUNNER = """
import importlib, json, sys, traceback
module = importlib.import_module("app.probes")
out = {}
for name in sorted(vars(module)):
    if name.startswith("probe_"):
        try:
            getattr(module, name)()
            out[name] = None
        except Exception as exc:
            frames = [(f.lineno, f.end_lineno or f.lineno)
                      for f in traceback.extract_tb(exc.__traceback__)
                      if f.filename.endswith("probes.py")]
            out[name] = [list(frames[-1]), type(exc).__name__, str(exc)[:160]]
print(json.dumps(out))
"""


@dataclass
class Probe:
    name: str
    first: int
    last: int
    # With NEW: ((first, last) line of the failing expression, exception, message)
    failure: tuple[tuple[int, int], str, str] | None = None


@dataclass
class PairResult:
    old: str
    new: str
    impacts: list[Impact]
    probes: list[Probe]
    problems: list[str] = field(default_factory=list)

    def listed_lines(self, degree: str | None = None) -> set[int]:
        return {i.line for i in self.impacts if degree is None or i.degree == degree}

    @property
    def failing(self) -> list[Probe]:
        return [p for p in self.probes if p.failure is not None]

    @property
    def listed_but_fine(self) -> list[int]:
        """Lines listed as "breaks" inside probes that run fine with NEW."""
        breaks = self.listed_lines("breaks")
        return sorted(
            line
            for p in self.probes
            if p.failure is None
            for line in breaks
            if p.first <= line <= p.last
        )

    @property
    def missed(self) -> list[Probe]:
        """Probes that fail with NEW in an expression none of whose lines is listed (a
        call that spans lines fails at its first line, its keyword may sit on another)."""
        listed = self.listed_lines()
        return [
            p
            for p in self.failing
            if p.failure and not any(p.failure[0][0] <= n <= p.failure[0][1] for n in listed)
        ]

    def figures(self) -> str:
        return (
            f"{self.old} -> {self.new}: {len(self.impacts)} listed "
            f"({len(self.listed_lines('breaks'))} lines breaks), "
            f"{len(self.failing)} of {len(self.probes)} probes failing at run time, "
            f"{len(self.missed)} failing but not listed, "
            f"{len(self.listed_but_fine)} listed as breaks but fine"
        )


def schema(release: str) -> Path:
    """The cached published schema (UpstreamError when it cannot be had)."""
    return upstream_schema(release, PROTOCOL)


def generate(pairs: tuple[tuple[str, str], ...], workdir: Path) -> dict[str, Path]:
    """Bindings of every release of `pairs`, each as `<root>/acpbind/v2`; release -> root."""
    roots: dict[str, Path] = {}
    jobs = []
    for release in sorted({r for pair in pairs for r in pair}):
        root = workdir / f"bindings-{release}"
        (root / "acpbind").mkdir(parents=True)
        (root / "acpbind" / "__init__.py").write_text("", encoding="utf-8")
        jobs.append((schema(release), root / "acpbind" / PROTOCOL))
        roots[release] = root
    generate_many(jobs)
    return roots


def check_pair(old: str, new: str, roots: dict[str, Path], workdir: Path) -> PairResult:
    sample = SAMPLES / f"{old.replace('.', '_')}__{new.replace('.', '_')}.py"
    tree = workdir / f"tree-{old}-{new}"
    (tree / "app").mkdir(parents=True)
    (tree / "pyproject.toml").write_text('[project]\nname = "sample"\n', encoding="utf-8")
    (tree / "app" / "__init__.py").write_text("", encoding="utf-8")
    shutil.copyfile(sample, tree / "app" / "probes.py")
    shutil.copytree(roots[old] / "acpbind", tree / "acpbind")
    old_path, new_path = schema(old), schema(new)
    old_doc, _ = read_document(old_path)
    new_doc, _ = read_document(new_path)
    changes, _ = diff_documents(old_doc, new_doc)
    digests = frozenset(hashlib.sha256(p.read_bytes()).hexdigest() for p in (old_path, new_path))
    result = scan(Settings((tree,), digests=digests), build_targets(changes, old_doc, new_doc))
    probes = _probes(tree / "app" / "probes.py")
    pair = PairResult(old, new, result.impacts, probes)
    pair.problems += [f"{f.path}: {f.error}" for f in result.failed]
    if "acpbind.v2" not in result.vendored:
        pair.problems.append(f"the vendored OLD bindings were not recognised: {result.vendored}")
    before = _run(tree, tree)
    pair.problems += [f"{n} fails with the OLD bindings: {f}" for n, f in before.items() if f]
    after = _run(roots[new], tree)
    for probe in probes:
        failure = after.get(probe.name)
        if failure:
            span = failure[0]
            assert isinstance(span, list)
            probe.failure = ((span[0], span[1]), str(failure[1]), str(failure[2]))
    pair.problems += _expectations(tree / "app" / "probes.py", pair)
    return pair


def _probes(path: Path) -> list[Probe]:
    tree = ast.parse(path.read_bytes())
    return [
        Probe(node.name, node.lineno, node.end_lineno or node.lineno)
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("probe_")
    ]


def _run(bindings_root: Path, tree: Path) -> dict[str, list[object] | None]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(bindings_root), str(tree)])}
    done = subprocess.run(
        [sys.executable, "-c", _RUNNER],
        cwd=bindings_root,  # `python -c` puts the working directory first on sys.path
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the probe runner failed: {done.stderr[-2000:]}")
    # the probes may print: the report is the last line
    found: dict[str, list[object] | None] = json.loads(done.stdout.splitlines()[-1])
    return found


def _expectations(path: Path, pair: PairResult) -> list[str]:
    """The sample's own marks: `# listed`, `# breaks`, `# not listed`."""
    problems = []
    listed, breaks = pair.listed_lines(), pair.listed_lines("breaks")
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        mark = text.partition("#")[2].strip()
        if mark == "not listed" and number in listed:
            problems.append(f"line {number} is listed but is a look-alike: {text.strip()}")
        elif mark == "listed" and number not in listed:
            problems.append(f"line {number} is not listed: {text.strip()}")
        elif mark == "breaks" and number not in breaks:
            problems.append(f"line {number} is not listed as breaks: {text.strip()}")
    return problems


def main() -> int:
    import tempfile

    from acp_schema.codegen.upstream import UpstreamError

    try:
        with tempfile.TemporaryDirectory(prefix="acp-impact-") as tmp:
            roots = generate(PAIRS, Path(tmp))
            results = [check_pair(old, new, roots, Path(tmp)) for old, new in PAIRS]
    except UpstreamError as exc:
        print(f"impact reality check skipped: {exc}")
        return 0
    for result in results:
        print(result.figures())
        for probe in result.missed:
            print(f"  missed: {probe.name} fails at line {probe.failure}")
        for line in result.listed_but_fine:
            print(f"  listed as breaks but fine: line {line}")
        for problem in result.problems:
            print(f"  problem: {problem}")
    return 1 if any(r.problems or r.missed or r.listed_but_fine for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
