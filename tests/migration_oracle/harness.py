"""Running one oracle case: migrate its files with the real runner, run the old and the
migrated program, and classify the outcome."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal
from unittest import mock

import acp_schema
from acp_schema.migrations.chunk_identity.rule_ids import ALL_RULES
from acp_schema.migrations.chunk_identity.run import FileResult, Options, run

from .old_bindings import old_module
from .recorder import Event, Recorder, differences

Outcome = Literal["equivalent", "reported", "unsound"]
UPSERT_MARKS = ("SessionMessage(", 'session_message"', "session_message'")


@dataclass(frozen=True)
class Case:
    name: str
    files: dict[str, str]  # path -> source (dedented)
    expect: Literal["equivalent", "reported"]
    # Files of the program that the migration is not given (callers outside the run).
    outside: tuple[str, ...] = ()
    entry: str = "main"  # module whose `main(conn)` runs the program
    path_root: str = ""  # directory (under the case's root) the program imports from


@dataclass
class Verdict:
    case: Case
    outcome: Outcome
    problems: list[str] = field(default_factory=list)
    results: list[FileResult] = field(default_factory=list)

    def explain(self) -> str:
        lines = [f"{self.case.name}: {self.outcome} (expected {self.case.expect})"]
        lines += self.problems
        for result in self.results:
            for finding in result.findings:
                lines.append("  " + finding.format(result.path.name))
            if result.error:
                lines.append(f"  {result.path.name}: error: {result.error}")
        return "\n".join(lines)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, source in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_dedent(source), encoding="utf-8")


def _dedent(source: str) -> str:
    """A case's source: unindented lines first (a shared import), then an indented body."""
    lines = source.split("\n")
    head = []
    while lines and lines[0] and not lines[0][0].isspace():
        head.append(lines.pop(0))
    body = textwrap.dedent("\n".join(lines)).lstrip("\n")
    return "\n".join(head) + ("\n" if head else "") + body


@contextmanager
def _program(root: Path, old: bool) -> Iterator[None]:
    """Import from `root`, with old-shape bindings when `old`; every module imported
    meanwhile is forgotten afterwards."""
    patches = {}
    if old:
        patches = {f"acp_schema.{v}": old_module(v) for v in ("v1", "v2")}
    with (
        mock.patch.dict(sys.modules, patches),
        mock.patch.object(sys, "path", [str(root), *sys.path]),
    ):
        saved = {v: getattr(acp_schema, v, None) for v in ("v1", "v2")}
        for version, module in patches.items():
            setattr(acp_schema, version.rpartition(".")[2], module)
        importlib.invalidate_caches()
        try:
            yield
        finally:
            for version, module in saved.items():
                if module is not None:
                    setattr(acp_schema, version, module)
            for name in [n for n in sys.modules if _from(sys.modules[n], root)]:
                del sys.modules[name]


def _from(module: object, root: Path) -> bool:
    origin = getattr(module, "__file__", None)
    return isinstance(origin, str) and origin.startswith(str(root))


def execute(root: Path, entry: str, *, old: bool) -> list[Event]:
    recorder = Recorder()
    with _program(root, old):
        try:
            main = importlib.import_module(entry).main
            result = main(recorder)
            if inspect.isawaitable(result):
                asyncio.run(_awaited(result))
        except Exception as err:  # a behaviour like any other: compared between the runs
            recorder.error(err)
    return recorder.events


async def _awaited(result: object) -> None:
    await result  # type: ignore[misc]


def evaluate(case: Case, tmp: Path) -> Verdict:
    old_root, new_root = tmp / "old", tmp / "new"
    _write(old_root, case.files)
    _write(new_root, case.files)
    in_run = sorted(new_root / name for name in case.files if name not in case.outside)
    results = run(in_run, Options(rules=ALL_RULES))
    verdict = Verdict(case, "unsound", results=results)
    for result in results:
        if result.new is not None:
            result.path.write_bytes(result.new)
    changed = [r for r in results if r.new is not None]
    warned = [r for r in results if r.warnings or r.error]
    if any(r.status == "failed" for r in results):
        verdict.problems.append("a file failed")
        return verdict
    moved = [f for r in results for f in r.changes if f.message.startswith(("moved", "sends"))]
    upserts_before = sum(_upserts(r.original) for r in results)
    upserts_after = sum(_upserts(r.new if r.new is not None else r.original) for r in results)
    if moved and upserts_after <= upserts_before:
        verdict.problems.append("the tool says it moved participant IDs but wrote no upsert")
        return verdict
    old_events = execute(old_root / case.path_root, case.entry, old=True)
    if any(e.kind == "error" for e in old_events):
        verdict.problems.append(f"the old program fails: {old_events[-1].update}")
        return verdict
    if not changed:
        if warned:
            verdict.outcome = "reported"
        else:
            verdict.problems.append("nothing changed and nothing was reported")
        return verdict
    again = [r.path for r in run(in_run, Options(rules=ALL_RULES)) if r.new is not None]
    if again:
        verdict.problems.append(f"a second run would change {[p.name for p in again]} again")
    new_events = execute(new_root / case.path_root, case.entry, old=False)
    verdict.problems += differences(old_events, new_events)
    if not verdict.problems:
        verdict.outcome = "equivalent"
    return verdict


def _upserts(data: bytes) -> int:
    text = data.decode("utf-8", "replace")
    return sum(text.count(mark) for mark in UPSERT_MARKS)
