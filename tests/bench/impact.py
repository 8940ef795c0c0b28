"""`acp-schema diff OLD NEW --impact` on the large tree of the migrate bench, against
`acp-schema migrate --check` on the same tree, measured interleaved (best of REPEATS).

OLD is the bundled v2 schema with the chunk's participant IDs put back (the schema before
the session-message revision), NEW the bundled v2: the upgrade `migrate` exists for, so
both commands look for the same things in the same 2,000-file tree. Target: the impact
scan within 1.5x of `migrate --check` (the issue asks for a time comparable to it).
"""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import time
from pathlib import Path

from acp_schema.cli import main as cli_main
from acp_schema.codegen.bundled import bundled_schema

from .migrate import REPEATS, write_tree


def old_schema(path: Path) -> None:
    doc = json.loads(bundled_schema("v2").read_text(encoding="utf-8"))
    chunk = doc["$defs"]["SessionMessageChunk"]
    for name in ("senderSessionId", "recipientSessionId"):
        chunk["properties"][name] = {"anyOf": [{"$ref": "#/$defs/SessionId"}, {"type": "null"}]}
    path.write_text(json.dumps(doc), encoding="utf-8")


def _quiet(args: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli_main(args)
    return code, out.getvalue()


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="acp-impact-bench-") as directory:
        root = Path(directory) / "tree"
        root.mkdir()
        paths, lines = write_tree(root)
        old = Path(directory) / "old.json"
        old_schema(old)
        impact = ["diff", str(old), "v2", "--impact", str(root), "--format", "json"]
        check = ["migrate", "--check", "--quiet", str(root)]
        code, report = _quiet(impact)  # warm-up, and the figures of the report
        counts = json.loads(report)["summary"]
        _quiet(check)
        best = {"impact": float("inf"), "check": float("inf")}
        for _ in range(REPEATS):
            for name, args in (("impact", impact), ("check", check)):
                start = time.perf_counter()
                _quiet(args)
                best[name] = min(best[name], time.perf_counter() - start)
    print(
        f"tree: {len(paths)} files, {lines} lines; impact lists {counts['places']} places "
        f"({counts['breaks']} break, {counts['may_break']} may break) in "
        f"{counts['files_with_places']} files, {counts['scanned']} scanned (exit {code})"
    )
    print(f"{'diff --impact':<24}{best['impact']:>8.2f} s")
    print(f"{'migrate --check':<24}{best['check']:>8.2f} s")
    ratio = best["impact"] / best["check"]
    print(
        f"impact / migrate --check: {ratio:.2f}x (target <= 1.5x; best of {REPEATS}, interleaved)"
    )
