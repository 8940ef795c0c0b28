"""The conservative type facts the migrations need ("this name holds a chunk"), on top
of what the module's metadata says (`module_facts.ModuleFacts`).

A fact is only claimed when the code shows it: an annotation, an `isinstance` test
around the use (in an `if`, an `assert` before it, a comprehension's `if`), a `match`
class pattern, an assignment from a constructor, or a container's item type. Anything
else is `UNKNOWN`, and the rules leave unknown code alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import libcst as cst

from acp_schema.migrations.framework.syntax import (
    chain,
    string_value,
)
from acp_schema.migrations.resolution.bindings import CHUNK_TAG
from acp_schema.migrations.resolution.enclosing_tests import enclosing_tests
from acp_schema.migrations.resolution.module_facts import METADATA, ModuleFacts

__all__ = ["METADATA", "OTHER", "UNKNOWN", "Fact", "Facts"]

# Things an expression can be proven to be.
Kind = Literal["chunk", "other", "unknown"]


@dataclass(frozen=True)
class Fact:
    kind: Kind
    # For a chunk: the bindings module its class comes from and how the code named it.
    module: str | None = None
    class_ref: cst.BaseExpression | None = None
    # For a name assigned once from an expression: that assignment's value.
    value: cst.BaseExpression | None = None
    assignment: cst.CSTNode | None = None


UNKNOWN = Fact("unknown")
# Containers whose last type argument is the type of their items (`dict[str, T]`).
CONTAINERS = frozenset(
    {
        "dict",
        "Dict",
        "Mapping",
        "MutableMapping",
        "defaultdict",
        "OrderedDict",
        "list",
        "List",
        "Sequence",
        "MutableSequence",
        "set",
        "frozenset",
        "Iterable",
    }
)
OTHER = Fact("other")


class Facts(ModuleFacts):
    """What values hold where they are used, on top of the module's metadata."""

    # --- what an expression holds ------------------------------------------------------

    def fact(self, expr: cst.BaseExpression) -> Fact:
        """What `expr` (a name, a dotted name, or an item of a typed container) holds
        where it is used."""
        narrowed = self._narrowed(expr)
        if narrowed is not None:
            return narrowed
        if isinstance(expr, cst.Name):
            return self._declared(expr)
        if isinstance(expr, cst.Subscript) and isinstance(expr.value, cst.Name):
            return self._item(expr.value)
        return UNKNOWN

    def _item(self, container: cst.Name) -> Fact:
        """An item of a container annotated `dict[str, T]`, `list[T]` and the like."""
        annotation = self._annotation_of(container)
        if not isinstance(annotation, cst.Subscript) or not annotation.slice:
            return UNKNOWN
        kind = (chain(annotation.value) or "").rpartition(".")[2]
        if kind not in CONTAINERS:
            return UNKNOWN
        last = annotation.slice[-1].slice
        if not isinstance(last, cst.Index):
            return UNKNOWN
        return self._annotated(last.value)

    def _annotation_of(self, name: cst.Name) -> cst.BaseExpression | None:
        assignment = self.single_assignment(name)
        node = assignment.node if assignment is not None else None
        if isinstance(node, cst.Param) and node.annotation is not None:
            return node.annotation.annotation
        holder = self.parent(node) if isinstance(node, cst.Name) else None
        if isinstance(holder, cst.AnnAssign):
            return holder.annotation.annotation
        return None

    def _declared(self, name: cst.Name) -> Fact:
        assignment = self.single_assignment(name)
        if assignment is None:
            return UNKNOWN
        node = assignment.node
        if isinstance(node, cst.Param):
            if node.annotation is None:
                return self._self_param(node)
            return self._annotated(node.annotation.annotation)
        if isinstance(node, cst.Name):
            holder = self.parent(node)
            if isinstance(holder, cst.AnnAssign):
                return self._annotated(holder.annotation.annotation)
            if isinstance(holder, cst.AssignTarget):
                assign = self.parent(holder)
                if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
                    return self._assigned(assign.value, node)
            if isinstance(holder, cst.MatchAs):
                return self._captured(holder)
        return UNKNOWN

    def _self_param(self, param: cst.Param) -> Fact:
        # The first parameter of a plain method holds an instance of the class.
        params = self.parent(param)
        function = self.parent(params) if params is not None else None
        if (
            isinstance(params, cst.Parameters)
            and params.params
            and params.params[0] is param
            and isinstance(function, cst.FunctionDef)
            and not function.decorators
        ):
            block = self.parent(function)
            owner = self.parent(block) if block is not None else None
            if isinstance(owner, cst.ClassDef) and not any(
                self.is_chunk_class(base.value) for base in owner.bases
            ):
                return OTHER
        return UNKNOWN

    def _annotated(self, annotation: cst.BaseExpression) -> Fact:
        module = self.is_chunk_class(annotation)
        if module is not None:
            return Fact("chunk", module=module, class_ref=annotation)
        if self.names_other_class(annotation):
            return OTHER
        return UNKNOWN

    def _assigned(self, value: cst.BaseExpression, target: cst.Name) -> Fact:
        if isinstance(value, cst.Call):
            module = self.is_chunk_class(value.func)
            if module is not None:
                return Fact(
                    "chunk", module=module, class_ref=value.func, value=value, assignment=target
                )
            if self.names_other_class(value.func):
                return OTHER
        return Fact("unknown", value=value, assignment=target)

    def _captured(self, match_as: cst.MatchAs) -> Fact:
        if isinstance(match_as.pattern, cst.MatchClass):
            module = self.is_chunk_class(match_as.pattern.cls)
            if module is not None:
                return Fact("chunk", module=module, class_ref=match_as.pattern.cls)
            if self.names_other_class(match_as.pattern.cls):
                return OTHER
        return UNKNOWN

    def _narrowed(self, expr: cst.BaseExpression) -> Fact | None:
        """The type an enclosing `if isinstance(...)`, tag test or `case` gives `expr`."""
        dotted = chain(expr)
        if dotted is None:
            return None
        for site in enclosing_tests(self, expr, dotted):
            if site.voided:
                continue
            if site.kind == "case":
                assert site.pattern is not None and site.subject is not None
                if chain(site.subject) != dotted:
                    continue
                fact = self._pattern_fact(site.pattern)
            else:
                assert site.test is not None
                fact = self._test_fact(site.test, dotted)
            if fact is not None:
                return fact
        return None

    def _test_fact(self, test: cst.BaseExpression, dotted: str) -> Fact | None:
        if isinstance(test, cst.Call) and chain(test.func) == "isinstance" and len(test.args) == 2:
            subject, kind = test.args[0].value, test.args[1].value
            if chain(subject) != dotted:
                return None
            module = self.is_chunk_class(kind)
            if module is not None:
                return Fact("chunk", module=module, class_ref=kind)
            if self.names_other_class(kind):
                return OTHER
            return UNKNOWN
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            target = test.comparisons[0]
            if isinstance(target.operator, cst.Equal | cst.Is):
                left, right = test.left, target.comparator
                for attr, literal in ((left, right), (right, left)):
                    if (
                        isinstance(attr, cst.Attribute)
                        and attr.attr.value == "session_update"
                        and chain(attr.value) == dotted
                        and string_value(literal) == CHUNK_TAG
                    ):
                        return Fact("chunk")
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return self._test_fact(test.left, dotted) or self._test_fact(test.right, dotted)
        return None

    def _pattern_fact(self, pattern: cst.MatchPattern) -> Fact | None:
        if isinstance(pattern, cst.MatchAs) and pattern.pattern is not None:
            return self._pattern_fact(pattern.pattern)
        if isinstance(pattern, cst.MatchClass):
            module = self.is_chunk_class(pattern.cls)
            if module is not None:
                return Fact("chunk", module=module, class_ref=pattern.cls)
            if self.names_other_class(pattern.cls):
                return OTHER
        return None
