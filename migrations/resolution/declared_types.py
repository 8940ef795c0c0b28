"""Declared types of names and attributes in the module being migrated: the annotation
a name is declared with, the class an expression is an instance of, an attribute's
annotation in its class (or `self.x: T` / `self.x = T(...)` in `__init__`, or a base's),
and what a method is annotated to return. Mixed into `value_evidence.ValueEvidence`,
which provides `facts`, `oracle`, `resolver`, `class_named` and `method_owner`."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

import libcst as cst
from libcst.metadata import Assignment

from acp_schema.migrations.framework.syntax import chain, code, string_value
from acp_schema.migrations.resolution.module_symbols import definition
from acp_schema.migrations.resolution.type_evidence import UNKNOWN, Holds, Resolve, join

if TYPE_CHECKING:
    from acp_schema.migrations.resolution.module_facts import ModuleFacts
    from acp_schema.migrations.resolution.type_evidence import TypeOracle

MAX_DEPTH = 8


class DeclaredTypes:
    facts: ModuleFacts
    oracle: TypeOracle

    def resolver(self, at: cst.CSTNode) -> Resolve:
        raise NotImplementedError

    def class_named(self, node: cst.BaseExpression) -> tuple[list[str], Holds]:
        raise NotImplementedError

    def method_owner(self, param: cst.Param) -> cst.ClassDef | None:
        raise NotImplementedError

    def _returned(self, qualified: str, method: str, awaited: bool, hops: int = 0) -> Holds:
        """What a method of the class (or of a base) is annotated to return."""
        target = definition(self.oracle.symbols, qualified)
        if target is None or not isinstance(target.node, ast.ClassDef) or hops > MAX_DEPTH:
            return UNKNOWN
        for statement in target.node.body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and (
                statement.name == method
            ):
                if statement.returns is None:
                    return UNKNOWN
                if isinstance(statement, ast.AsyncFunctionDef) != awaited:
                    return UNKNOWN
                return self.oracle.of_annotation(statement.returns, target.symbols.resolve)
        for base in target.node.bases:
            dotted = _ast_dotted(base.value if isinstance(base, ast.Subscript) else base)
            for name in target.symbols.resolve(dotted) if dotted else []:
                found = self._returned(name, method, awaited, hops + 1)
                if found.kind != "unknown":
                    return found
        return UNKNOWN

    # --- declared types ------------------------------------------------------------------

    def declared(self, expr: cst.BaseExpression, depth: int = 0) -> tuple[ast.expr, Resolve] | None:
        """The annotation `expr` (a name or an attribute) is declared with, and how its
        names resolve."""
        if isinstance(expr, cst.Name):
            access = self.facts.access_of(expr)
            referents = list(access.referents) if access is not None else []
            if len(referents) != 1 or not isinstance(referents[0], Assignment):
                return None
            node = referents[0].node
            annotation: cst.BaseExpression | None = None
            if isinstance(node, cst.Param) and node.annotation is not None:
                annotation = node.annotation.annotation
            elif isinstance(node, cst.Name):
                holder = self.facts.parent(node)
                if isinstance(holder, cst.AnnAssign) and holder.target is node:
                    annotation = holder.annotation.annotation
            parsed = to_ast(annotation) if annotation is not None else None
            return (parsed, self.resolver(annotation)) if parsed and annotation else None
        if isinstance(expr, cst.Attribute) and depth <= MAX_DEPTH:
            return self._field(expr, depth)
        return None

    def _field(self, attribute: cst.Attribute, depth: int) -> tuple[ast.expr, Resolve] | None:
        for qualified in self.classes_of(attribute.value, depth + 1):
            found = self._field_in(qualified, attribute.attr.value, 0)
            if found is not None:
                return found
        return None

    def classes_of(self, expr: cst.BaseExpression, depth: int = 0) -> list[str]:
        """The qualified class names `expr` is shown to be an instance of ([]: unknown):
        `self`, a parameter or variable annotated with one class, or built by one."""
        if isinstance(expr, cst.Call) and depth <= MAX_DEPTH:
            return self._one_class(expr.func)  # `Envelope().with_x(...)`
        if not isinstance(expr, cst.Name) or depth > MAX_DEPTH:
            return []
        access = self.facts.access_of(expr)
        referents = list(access.referents) if access is not None else []
        if len(referents) != 1 or not isinstance(referents[0], Assignment):
            return []
        node = referents[0].node
        if isinstance(node, cst.Param):
            if node.annotation is None:
                owner = self.method_owner(node)
                return self.class_named(owner.name)[0] if owner is not None else []
            return self._one_class(node.annotation.annotation)
        if isinstance(node, cst.Name):
            holder = self.facts.parent(node)
            if isinstance(holder, cst.AnnAssign) and holder.target is node:
                return self._one_class(holder.annotation.annotation)
            if isinstance(holder, cst.AssignTarget):
                assign = self.facts.parent(holder)
                if isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Call):
                    return self._one_class(assign.value.func)
        return []

    def _one_class(self, node: cst.BaseExpression) -> list[str]:
        """The class an annotation or a callee names (quoted too), when it is shown to
        be one (not unknown)."""
        dotted = chain(node)
        if isinstance(node, cst.SimpleString):
            value = string_value(node)
            dotted = value.strip() if value else None
        if dotted is None:
            return []
        names = self.resolver(node)(dotted)
        if not names or join(self.oracle.of_class(q) for q in names).kind == "unknown":
            return []
        return names

    def _field_in(self, qualified: str, field: str, hops: int) -> tuple[ast.expr, Resolve] | None:
        if hops > MAX_DEPTH:
            return None
        target = definition(self.oracle.symbols, qualified)
        if target is None or not isinstance(target.node, ast.ClassDef):
            return None
        node, symbols = target.node, target.symbols
        for statement in node.body:
            if (
                isinstance(statement, ast.AnnAssign)
                and isinstance(statement.target, ast.Name)
                and statement.target.id == field
            ):
                return statement.annotation, symbols.resolve
        for assigned in _self_assignments(node, field):
            if isinstance(assigned, ast.AnnAssign):
                return assigned.annotation, symbols.resolve
            if isinstance(assigned.value, ast.Call):  # `self.x = Store()` in __init__
                return assigned.value.func, symbols.resolve
        for base in node.bases:
            dotted = _ast_dotted(base.value if isinstance(base, ast.Subscript) else base)
            for name in symbols.resolve(dotted) if dotted else []:
                found = self._field_in(name, field, hops + 1)
                if found is not None:
                    return found
        return None


def _self_assignments(node: ast.ClassDef, field: str) -> Iterator[ast.Assign | ast.AnnAssign]:
    """`self.<field> = ...` and `self.<field>: T = ...` in `__init__`; annotated ones in
    any method (an annotation declares the attribute for the whole class)."""
    for statement in node.body:
        if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for inner in ast.walk(statement):
            targets: list[ast.expr]
            if isinstance(inner, ast.AnnAssign):
                targets = [inner.target]
            elif isinstance(inner, ast.Assign) and statement.name == "__init__":
                targets = inner.targets
            else:
                continue
            if any(
                isinstance(t, ast.Attribute)
                and isinstance(t.value, ast.Name)
                and t.value.id == "self"
                and t.attr == field
                for t in targets
            ):
                yield inner


def _ast_dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _ast_dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def to_ast(node: cst.BaseExpression) -> ast.expr | None:
    """A libcst expression read again with `ast` (for the type oracle)."""
    try:
        return ast.parse(f"({code(node).strip()})", mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
