"""Examples a rule carries with it (in the style of Fixit's rules): code it must leave
alone and say nothing about (`Valid`), and code it rewrites or reports (`Invalid`).

They are the rule's documentation and its tests at once: every rule module lists its
`EXAMPLES`, and tests/test_migrate_rule_examples.py runs each one through the codemod
with that rule alone selected (module `app.agent`, no other file in the run).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass


@dataclass(frozen=True)
class Valid:
    """Code the rule leaves exactly as it is, without a word."""

    code: str
    why: str = ""

    @property
    def source(self) -> str:
        return textwrap.dedent(self.code).lstrip("\n")


@dataclass(frozen=True)
class Invalid:
    """Code the rule acts on: rewritten to `fixed`, or (`fixed` None) reported and left
    unchanged; `lines` are the lines of the rule's warnings (1-based)."""

    code: str
    fixed: str | None = None
    lines: tuple[int, ...] = ()
    why: str = ""

    @property
    def source(self) -> str:
        return textwrap.dedent(self.code).lstrip("\n")

    @property
    def expected(self) -> str:
        return self.source if self.fixed is None else textwrap.dedent(self.fixed).lstrip("\n")


Example = Valid | Invalid
