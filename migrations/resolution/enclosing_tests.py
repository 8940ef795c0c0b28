"""The places around a use that may narrow what a name holds there: the one walk that the
chunk facts (`facts`), the proofs' narrowing (`narrowing`) and the impact report's class
evidence (`class_facts`) read, each with its own reading of a test.

From the use outwards, up to the enclosing function, lambda or class:
- a comprehension's `if` clauses, for its element;
- each `assert` earlier in the same block, nearest first, unless the name is stored to
  between it and the use;
- the test of an `if` or `while` whose body holds the use;
- the pattern of a `case` whose body holds the use, with the `match` subject.
A site whose guarded body stores to the name again is `voided`: what the test showed no
longer holds everywhere in the body.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import libcst as cst

from acp_schema.migrations.framework.syntax import asserts_before, stores_in
from acp_schema.migrations.resolution.module_facts import ModuleFacts

COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
SiteKind = Literal["filter", "assert", "if", "case"]


@dataclass(frozen=True)
class TestSite:
    """A test (`filter`, `assert`, `if`) or a `case` pattern around the use."""

    kind: SiteKind
    test: cst.BaseExpression | None = None
    pattern: cst.MatchPattern | None = None
    subject: cst.BaseExpression | None = None  # the `match` subject of a `case`
    voided: bool = False


def enclosing_tests(facts: ModuleFacts, expr: cst.CSTNode, dotted: str) -> Iterator[TestSite]:
    """The test sites around `expr`, nearest first, for the name `dotted` it reads."""
    root = dotted.split("[")[0]  # a store to `x` voids what was shown of `x["k"]`
    child: cst.CSTNode = expr
    for current in facts.ancestors(expr):
        if isinstance(current, cst.FunctionDef | cst.Lambda | cst.ClassDef):
            return
        if isinstance(current, COMPREHENSIONS) and child is element(current):
            clause: cst.CompFor | None = current.for_in
            while clause is not None:
                for condition in clause.ifs:
                    yield TestSite("filter", test=condition.test)
                clause = clause.inner_for_in
        elif isinstance(current, cst.IndentedBlock | cst.Module):
            for check, after in asserts_before(current, child):
                if not stores_in(after).rebinds(root):
                    yield TestSite("assert", test=check.test)
        elif isinstance(current, cst.If | cst.While) and child is current.body:
            voided = stores_in([current.body]).rebinds(root)
            yield TestSite("if", test=current.test, voided=voided)
        elif isinstance(current, cst.MatchCase) and child is current.body:
            match = facts.parent(current)
            if isinstance(match, cst.Match):
                voided = stores_in([current.body]).rebinds(root)
                yield TestSite(
                    "case", pattern=current.pattern, subject=match.subject, voided=voided
                )
        child = current


def element(comprehension: cst.CSTNode) -> cst.CSTNode | None:
    """The expression a comprehension makes of each item (a dict's value)."""
    if isinstance(comprehension, cst.DictComp):
        return comprehension.value
    return getattr(comprehension, "elt", None)
