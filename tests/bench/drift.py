"""Drift tools against one generation: `check` (fast path and --full) and `diff`.

Baseline: one in-memory render of each bundled schema (what `acp-schema generate` costs,
minus writing files), measured in the same run. Targets: the fast path under 5% of a
generation, `diff` under 10%. The in-process figures are the tools' own cost; the CLI
rows add interpreter start-up and imports, which is what a CI step pays.
"""

from __future__ import annotations

import copy
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from acp_schema.codegen.bundled import bundled_schema
from acp_schema.codegen.drift import check as drift
from acp_schema.codegen.drift.schema_diff import SchemaInput, diff_files
from acp_schema.codegen.generate.pipeline import render

VERSIONS = ("v1", "v2")
FAST_TARGET = 0.05
DIFF_TARGET = 0.10


def timed(func: Callable[[], object], repeat: int) -> float:
    """Median wall time of `repeat` calls, after one warm-up call."""
    func()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def modified_copy(version: str, directory: Path) -> Path:
    """The bundled schema with a few edits of the kinds the diff classifies."""
    schema: dict[str, Any] = json.loads(bundled_schema(version).read_text(encoding="utf-8"))
    changed = copy.deepcopy(schema)
    defs = changed["$defs"]
    message = defs["SessionMessage"]
    message["properties"].pop("recipientMessageId")
    message["required"] = [*message.get("required", []), "content"]
    defs["SessionMessageChunk"]["properties"]["priority"] = {"type": ["integer", "null"]}
    defs["Renamed"] = defs.pop("MessageId")
    text = json.dumps(changed).replace('"#/$defs/MessageId"', '"#/$defs/Renamed"')
    path = directory / f"{version}-modified.json"
    path.write_text(text, encoding="utf-8")
    return path


def cli(*args: str) -> Callable[[], object]:
    command = [sys.executable, "-m", "acp_schema", *args]
    return lambda: subprocess.run(command, capture_output=True, check=False)


def main() -> None:
    rows: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="acp-schema-bench-") as tmp:
        for version in VERSIONS:
            schema = bundled_schema(version)
            # Bindings rendered now, so both check paths see an in-sync tree.
            out = Path(tmp) / "generated" / version
            start = time.perf_counter()
            files = render(schema)
            rows.setdefault("generate (render, baseline)", {})[version] = (
                time.perf_counter() - start
            )
            out.mkdir(parents=True)
            for item in files:
                (out / item.name).write_text(item.text, encoding="utf-8", newline="\n")
            (Path(tmp) / "schema" / version).mkdir(parents=True)
            shutil.copyfile(schema, Path(tmp) / "schema" / version / drift.SCHEMA_FILE)
            targets = drift.version_targets(
                [version], schema_dir=Path(tmp) / "schema", generated_dir=Path(tmp) / "generated"
            )
            rows.setdefault("check, fast path", {})[version] = timed(
                partial(drift.check, targets), repeat=20
            )
            start = time.perf_counter()
            reports = drift.check(targets, full=True)
            rows.setdefault("check --full", {})[version] = time.perf_counter() - start
            assert drift.exit_code(reports) == 0, drift.report_lines(reports, bundled=False)

            old = SchemaInput(version, schema)
            new = SchemaInput("modified", modified_copy(version, Path(tmp)))
            rows.setdefault("diff vs modified copy", {})[version] = timed(
                partial(diff_files, old, new), repeat=10
            )
            roots = ["--schema-dir", f"{tmp}/schema", "--generated", f"{tmp}/generated"]
            rows.setdefault("acp-schema check (CLI, cold)", {})[version] = timed(
                cli("check", version, *roots), repeat=3
            )
            rows.setdefault("acp-schema diff (CLI, cold)", {})[version] = timed(
                cli("diff", str(schema), str(new.path)), repeat=3
            )
    baseline = rows["generate (render, baseline)"]
    print(f"{'what':32} {'v1 (s)':>9} {'v2 (s)':>9} {'x generate':>11}  target")
    for name, values in rows.items():
        ratio = max(values[v] / baseline[v] for v in VERSIONS)
        target = {"check, fast path": FAST_TARGET, "diff vs modified copy": DIFF_TARGET}.get(name)
        verdict = (
            "" if target is None else f"< {target:.2f} " + ("met" if ratio < target else "MISSED")
        )
        print(f"{name:32} {values['v1']:9.4f} {values['v2']:9.4f} {ratio:11.4f}  {verdict}")
    print("ratio: the larger of v1 and v2, each against the render of the same version")


if __name__ == "__main__":
    main()
