"""Which bindings class an expression of the user's code names, or holds an instance of,
for any class of the bindings (`facts.Facts` answers the same for the chunk alone).

A class is named when the expression's qualified names resolve into a bindings module,
through facades and vendored copies (`exports.Exports`). An instance is only claimed when
the code shows it: a constructor call (`ToolCallLocation(...)`), a `model_validate*` or
`model_construct` call of the class, a builder or `model_copy` call on an instance, a
call of a function of the same module annotated to return the class, an
annotation (`loc: ToolCallLocation`, `X | None`, `Optional[X]`), an enclosing
`if isinstance(x, X)` or an earlier `assert isinstance(x, X)` in the same block, a `match`
class pattern on the subject or its `as` capture, a `for` loop or a comprehension's `for`
over a name annotated `list[X]` (or another container of X), or a name assigned once from
any of these.
Anything else names no class: the impact report then speaks of what may break.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from acp_schema.migrations.framework.syntax import chain
from acp_schema.migrations.resolution.enclosing_tests import enclosing_tests
from acp_schema.migrations.resolution.facts import CONTAINERS
from acp_schema.migrations.resolution.module_facts import ModuleFacts

# Class methods that return an instance of their class.
CONSTRUCTING = frozenset({"model_validate", "model_validate_json", "model_construct"})
# Instance methods that return an instance of the same class.
COPYING = frozenset({"model_copy"})
_MAX_DEPTH = 16  # assignments of assignments: more than code that shows a type needs


class ClassFacts:
    """Class evidence over one module's metadata (`facts`): `resolve` maps a qualified
    name to the bindings' qualified name it stands for, or None."""

    def __init__(self, facts: ModuleFacts, resolve: Callable[[str], str | None]) -> None:
        self.facts = facts
        self.resolve = resolve

    # --- classes -------------------------------------------------------------------------

    def class_of(self, expr: cst.CSTNode) -> str | None:
        """The bindings' qualified class name that a plain or dotted name refers to."""
        if not isinstance(expr, cst.Name | cst.Attribute):
            return None
        for qualified in sorted(self.facts.qualified_names(expr)):
            found = self.resolve(qualified)
            if found is not None:
                return found
        return None

    def subclassed(self, expr: cst.CSTNode, depth: int = 0) -> tuple[str, set[str]] | None:
        """For a class of this module deriving from a bindings class (through classes of
        this module too): that bindings class, and the names the subclasses declare in
        their bodies (a field declared again is the subclass's own)."""
        if not isinstance(expr, cst.Name) or depth > _MAX_DEPTH:
            return None
        assignment = self.facts.single_assignment(expr)
        node = assignment.node if assignment is not None else None
        if not isinstance(node, cst.ClassDef):
            return None
        declared = _declared_names(node)
        for base in node.bases:
            found = self.class_of(base.value)
            if found is not None:
                return found, declared
            deeper = self.subclassed(base.value, depth + 1)
            if deeper is not None:
                return deeper[0], declared | deeper[1]
        return None

    def annotated(self, annotation: cst.BaseExpression) -> str | None:
        """The class of `X`, `X | None`, `Optional[X]`, `"X"` is not read (a string)."""
        if isinstance(annotation, cst.BinaryOperation) and isinstance(
            annotation.operator, cst.BitOr
        ):
            sides = [annotation.left, annotation.right]
            found = [c for c in (self.annotated(s) for s in sides) if c is not None]
            others = [s for s in sides if not (isinstance(s, cst.Name) and s.value == "None")]
            return found[0] if len(found) == 1 and len(others) == 1 else None
        if isinstance(annotation, cst.Subscript):
            kind = (chain(annotation.value) or "").rpartition(".")[2]
            if kind == "Optional" and len(annotation.slice) == 1:
                inner = annotation.slice[0].slice
                return self.annotated(inner.value) if isinstance(inner, cst.Index) else None
            return None
        return self.class_of(annotation)

    def item_annotated(self, annotation: cst.BaseExpression) -> str | None:
        """The item class of `list[X]`, `Sequence[X]`, `dict[str, X]` and the like."""
        if not isinstance(annotation, cst.Subscript) or not annotation.slice:
            return None
        kind = (chain(annotation.value) or "").rpartition(".")[2]
        last = annotation.slice[-1].slice
        if kind not in CONTAINERS or not isinstance(last, cst.Index):
            return None
        return self.annotated(last.value)

    # --- instances -----------------------------------------------------------------------

    def instance_of(self, expr: cst.BaseExpression, depth: int = 0) -> str | None:
        """The bindings class `expr` holds an instance of, where the code shows it."""
        if depth > _MAX_DEPTH:
            return None
        if isinstance(expr, cst.Call):
            return self._called(expr, depth)
        narrowed = self._narrowed(expr)
        if narrowed is not None:
            return narrowed
        if isinstance(expr, cst.Name):
            return self._declared(expr, depth)
        return None

    def _called(self, call: cst.Call, depth: int) -> str | None:
        func = call.func
        direct = self.class_of(func)
        if direct is not None:
            return direct
        subclass = self.subclassed(func)
        if subclass is not None:
            return subclass[0]
        returned = self._returned(func)
        if returned is not None:
            return returned
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in CONSTRUCTING:
                return self.class_of(func.value)
            if method in COPYING or method.startswith("with_"):
                return self.instance_of(func.value, depth + 1)
        return None

    def _returned(self, func: cst.BaseExpression) -> str | None:
        """The class a function of this module says it returns (`def make() -> X`), for a
        plain function (a method's receiver is not followed); not awaited coroutines."""
        if not isinstance(func, cst.Name):
            return None
        assignment = self.facts.single_assignment(func)
        node = assignment.node if assignment is not None else None
        if not isinstance(node, cst.FunctionDef) or node.returns is None:
            return None
        if node.asynchronous is not None:
            return None  # the call gives a coroutine; `await f()` is not read here
        return self.annotated(node.returns.annotation)

    def _declared(self, name: cst.Name, depth: int) -> str | None:
        assignment = self.facts.single_assignment(name)
        node = assignment.node if assignment is not None else None
        if isinstance(node, cst.Param):
            annotation = node.annotation
            return self.annotated(annotation.annotation) if annotation is not None else None
        if not isinstance(node, cst.Name):
            return None
        holder = self.facts.parent(node)
        if isinstance(holder, cst.AnnAssign):
            return self.annotated(holder.annotation.annotation)
        if isinstance(holder, cst.AssignTarget):
            assign = self.facts.parent(holder)
            if isinstance(assign, cst.Assign) and len(assign.targets) == 1:
                return self.instance_of(assign.value, depth + 1)
        if isinstance(holder, cst.For | cst.CompFor) and holder.target is node:
            return self._items_of(holder.iter)
        return None

    def _items_of(self, iterable: cst.BaseExpression) -> str | None:
        if not isinstance(iterable, cst.Name):
            return None
        assignment = self.facts.single_assignment(iterable)
        node = assignment.node if assignment is not None else None
        annotation: cst.Annotation | None = None
        if isinstance(node, cst.Param):
            annotation = node.annotation
        elif isinstance(node, cst.Name):
            holder = self.facts.parent(node)
            if isinstance(holder, cst.AnnAssign):
                annotation = holder.annotation
        return self.item_annotated(annotation.annotation) if annotation is not None else None

    def _narrowed(self, expr: cst.BaseExpression) -> str | None:
        """The class an enclosing `if isinstance(...)`, an earlier `assert isinstance` in
        the block, a comprehension's `if isinstance(...)` or a `case X(...)` on the subject
        gives `expr`."""
        dotted = chain(expr)
        if dotted is None:
            return None
        for site in enclosing_tests(self.facts, expr, dotted):
            if site.voided:
                continue
            if site.kind == "case":
                assert site.pattern is not None and site.subject is not None
                found = self._case(site.pattern, site.subject, dotted)
            else:
                assert site.test is not None
                found = self._isinstance(site.test, dotted)
            if found is not None:
                return found
        return None

    def _case(
        self, pattern: cst.MatchPattern, subject: cst.BaseExpression, dotted: str
    ) -> str | None:
        if isinstance(pattern, cst.MatchAs) and pattern.pattern is not None:
            # `case X(...) as name`: libcst's scopes do not record the capture.
            captured = pattern.name is not None and pattern.name.value == dotted
            pattern = pattern.pattern
            if captured and isinstance(pattern, cst.MatchClass):
                return self.class_of(pattern.cls)
        if chain(subject) == dotted and isinstance(pattern, cst.MatchClass):
            return self.class_of(pattern.cls)
        return None

    def _isinstance(self, test: cst.BaseExpression, dotted: str) -> str | None:
        if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
            return self._isinstance(test.left, dotted) or self._isinstance(test.right, dotted)
        if (
            isinstance(test, cst.Call)
            and isinstance(test.func, cst.Name)
            and test.func.value == "isinstance"
            and self.facts.is_builtin(test.func)
            and len(test.args) == 2
            and chain(test.args[0].value) == dotted
        ):
            return self.class_of(test.args[1].value)
        return None


def _declared_names(node: cst.ClassDef) -> set[str]:
    """Names a class body binds at its top: annotated or assigned attributes, methods."""
    names: set[str] = set()
    for statement in node.body.body:
        if isinstance(statement, cst.FunctionDef):
            names.add(statement.name.value)
        elif isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                targets = (
                    [small.target]
                    if isinstance(small, cst.AnnAssign)
                    else [t.target for t in small.targets]
                    if isinstance(small, cst.Assign)
                    else []
                )
                names.update(t.value for t in targets if isinstance(t, cst.Name))
    return names
