"""Running one catalogue entry (tests/migration_oracle/catalogue.py) and naming its outcome.

The program runs against the recording connection twice, as the behaviour oracle does:
the original code on the old bindings (the reference), and the tree as `acp-schema
migrate` leaves it on the current bindings. Then `migrate --check` is asked about the
migrated tree (a second run: anything still to change or unacknowledged). Outcomes:

- `sound-migrated`: the tool rewrote the tree, the program behaves as before (the same
  participants, known no later, the same content, nothing else different), and
  `--check` passes;
- `sound-untouched`: nothing needed a change and nothing changed (look-alikes);
- `reported`: `--check` fails on the migrated tree: a person is told;
- `silent`: the program's behaviour changed (IDs lost, a crash, something else sent) and
  `--check` passes. The target is none.

For look-alikes (`noise=True`, code that has nothing to do with chunks) a report is
noise: their outcome must be `sound-untouched`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from acp_schema.migrations.chunk_identity.accounting.accounting import Account
from acp_schema.migrations.chunk_identity.rule_ids import ALL_RULES
from acp_schema.migrations.chunk_identity.run import FileResult, Options, run

from .harness import _write, execute
from .recorder import differences

Outcome = Literal["sound-migrated", "sound-untouched", "reported", "silent"]
# Problems `differences` names when a program sends no chunk with IDs at all (a
# look-alike): not a change of behaviour.
NOT_A_CHANGE = ("the case tests nothing",)


@dataclass(frozen=True)
class Entry:
    name: str
    kind: str  # the catalogue's section: class-1 ... class-4, agent, lookalike
    files: dict[str, str]
    noise: bool = False  # a look-alike: any report is noise
    entry: str = "main"
    verbatim: bool = False  # write the sources as they are (generated programs)


@dataclass
class Result:
    entry: Entry
    outcome: Outcome
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    proofs: Counter[str] = field(default_factory=Counter)
    # The first run's verdicts, by file name relative to the tree (the original code).
    accounts: dict[str, list[Account]] = field(default_factory=dict)

    def explain(self) -> str:
        return "\n".join([f"{self.entry.name}: {self.outcome}", *self.problems, *self.warnings])


def _in_run(root: Path, entry: Entry) -> list[Path]:
    return sorted(root / name for name in entry.files if name.endswith(".py"))


def _pending(results: list[FileResult]) -> list[str]:
    """What keeps `--check` failing: changes still to make, warnings, errors."""
    found = []
    for result in results:
        if result.new is not None:
            found.append(f"  {result.path.name}: would change again")
        if result.error:
            found.append(f"  {result.path.name}: error: {result.error}")
        found += ["  " + f.format(result.path.name) for f in result.warnings]
    return found


def evaluate(entry: Entry, tmp: Path) -> Result:
    old_root, new_root = tmp / "old", tmp / "new"
    for root in (old_root, new_root):
        if entry.verbatim:
            for name, text in entry.files.items():
                (root / name).parent.mkdir(parents=True, exist_ok=True)
                (root / name).write_text(text, encoding="utf-8")
        else:
            _write(root, entry.files)
    first = run(_in_run(new_root, entry), Options(rules=ALL_RULES))
    for result in first:
        if result.new is not None:
            result.path.write_bytes(result.new)
    changed = any(r.new is not None for r in first)
    check = run(_in_run(new_root, entry), Options(rules=ALL_RULES))
    pending = _pending(check)
    proofs: Counter[str] = Counter(
        a.proof or "?" for r in check for a in r.accounts if a.verdict == "unrelated"
    )
    before = execute(old_root, entry.entry, old=True)
    after = execute(new_root, entry.entry, old=False)
    problems = differences(before, after)
    if entry.noise:
        problems = [p for p in problems if not p.endswith(NOT_A_CHANGE)]
    if any(e.kind == "error" for e in before):
        problems.insert(0, f"the old program fails: {before[-1].update}")
    outcome: Outcome
    if pending:
        outcome = "reported"
    elif problems:
        outcome = "silent"
    else:
        outcome = "sound-migrated" if changed else "sound-untouched"
    accounts = {r.path.relative_to(new_root).as_posix(): r.accounts for r in first}
    return Result(entry, outcome, problems, pending, proofs, accounts)
