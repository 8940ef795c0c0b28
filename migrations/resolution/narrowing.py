"""Narrowing: what a test or a `case` around a use shows a value to be.

`isinstance` (in an `if` or `while`, an `assert` earlier in the block, a comprehension's
`if`), a test of the update's tag (`u.session_update == "session_message"`,
`u["sessionUpdate"] != "session_message_chunk"`, `u.get("sessionUpdate") == ...`), and a
`case` of a `match` on the value (a class pattern, or a mapping pattern with a tag). A
rebinding of the name inside the narrowed block cancels it."""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from acp_schema.migrations.framework.syntax import (
    chain,
    string_value,
)
from acp_schema.migrations.resolution.bindings import CHUNK_TAG
from acp_schema.migrations.resolution.enclosing_tests import enclosing_tests
from acp_schema.migrations.resolution.module_facts import ModuleFacts
from acp_schema.migrations.resolution.type_evidence import Holds, join

TAG_ATTRIBUTES = frozenset({"session_update"})
TAG_KEYS = frozenset({"sessionUpdate", "session_update"})


class Narrowing:
    """The narrowings of one module; `class_holds` judges a class expression."""

    def __init__(
        self, facts: ModuleFacts, class_holds: Callable[[cst.BaseExpression], Holds]
    ) -> None:
        self.facts = facts
        self.class_holds = class_holds

    def narrowed(self, expr: cst.BaseExpression, *, tags_only: bool = False) -> Holds | None:
        """What an enclosing test or `case` shows `expr` to be."""
        dotted = _subject(expr)
        if dotted is None:
            return None
        for site in enclosing_tests(self.facts, expr, dotted):
            if site.voided:
                continue
            if site.kind == "case":
                assert site.pattern is not None and site.subject is not None
                if _subject(site.subject) != dotted:
                    continue
                found = self._pattern(site.pattern, tags_only)
            else:
                assert site.test is not None
                found = self._test(site.test, dotted, tags_only)
            if found is not None:
                return found
        return None

    def _test(self, test: cst.BaseExpression, dotted: str, tags_only: bool) -> Holds | None:
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return self._test(test.left, dotted, tags_only) or self._test(
                test.right, dotted, tags_only
            )
        if (
            not tags_only
            and isinstance(test, cst.Call)
            and chain(test.func) == "isinstance"
            and len(test.args) == 2
        ):
            if _subject(test.args[0].value) != dotted:
                return None
            kinds = test.args[1].value
            members = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
            found = join(self.class_holds(m) for m in members)
            return found if found.kind != "unknown" else None
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            target = test.comparisons[0]
            for side, literal in ((test.left, target.comparator), (target.comparator, test.left)):
                if _tag_of(side) != dotted:
                    continue
                tag = string_value(literal)
                if tag is None:
                    return None
                if isinstance(target.operator, cst.Equal | cst.Is):
                    if tag == CHUNK_TAG:
                        return Holds("chunk", "its tag is tested to be the chunk's")
                    return Holds("other", f"its tag is tested to be `{tag}`")
                if isinstance(target.operator, cst.NotEqual | cst.IsNot) and tag == CHUNK_TAG:
                    return Holds("other", "its tag is tested not to be the chunk's")
        return None

    def _pattern(self, pattern: cst.MatchPattern, tags_only: bool) -> Holds | None:
        if isinstance(pattern, cst.MatchAs) and pattern.pattern is not None:
            return self._pattern(pattern.pattern, tags_only)
        if isinstance(pattern, cst.MatchClass) and not tags_only:
            found = self.class_holds(pattern.cls)
            return found if found.kind != "unknown" else None
        if isinstance(pattern, cst.MatchMapping):
            for element in pattern.elements:
                if string_value(element.key) in TAG_KEYS and isinstance(
                    element.pattern, cst.MatchValue
                ):
                    tag = string_value(element.pattern.value)
                    if tag is not None and tag != CHUNK_TAG:
                        return Holds("other", f"the pattern matches only `{tag}`")
        return None


def _subject(expr: cst.BaseExpression) -> str | None:
    """A dotted name, or a dotted name's item with a literal key (`self._m[k]` is not)."""
    return chain(expr)


def _tag_of(node: cst.BaseExpression) -> str | None:
    """`x.session_update`, `x["sessionUpdate"]` or `x.get("sessionUpdate")`: x's name."""
    if isinstance(node, cst.Attribute) and node.attr.value in TAG_ATTRIBUTES:
        return chain(node.value)
    if isinstance(node, cst.Subscript) and len(node.slice) == 1:
        index = node.slice[0].slice
        if isinstance(index, cst.Index) and string_value(index.value) in TAG_KEYS:
            return chain(node.value)
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "get"
        and node.args
        and string_value(node.args[0].value) in TAG_KEYS
    ):
        return chain(node.func.value)
    return None
