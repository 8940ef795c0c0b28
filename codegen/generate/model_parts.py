"""The models module in two parts, so that a program pays at import only for what the
notifications carry.

Creating a pydantic class costs about a quarter of a millisecond (its fields collected and
their annotations read), and a version has some 270 of them: more than the import of
pydantic itself. The notifications (`session/update` above all: the stream a client reads,
a per-session agent writes) need about a third of them. So the finished module is split:

- `_notifications.py`: every definition the params of a notification need, in the order
  the generator wrote them (a definition comes after what it refers to);
- `_models.py`: all the other definitions, after an import of the first part's names,
  which it also re-exports: `_models` still holds every name.

The package facade loads `_notifications` alone for one of its names, `_models` (and so
both) for any other. The dependencies come from the finished syntax tree: every name a
definition's statements mention, and every name in a string literal read as a Python
expression (a forward reference: `"B"`, `"list[B]"`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import libcst as cst

from .package_files import NOTIFICATIONS_MODULE

__all__ = ["ModelParts", "split_models"]

_Statement = cst.SimpleStatementLine | cst.BaseCompoundStatement


@dataclass(frozen=True)
class ModelParts:
    notifications: str  # the source of `_notifications.py`
    models: str  # the source of `_models.py`
    names: frozenset[str]  # the definitions of `_notifications.py`


@dataclass
class _Unit:
    """One definition and the statements that follow it (an attribute docstring)."""

    name: str
    statements: list[_Statement]


def _defined_name(statement: _Statement) -> str | None:
    if isinstance(statement, cst.ClassDef):
        return statement.name.value
    if isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1:
                target = small.targets[0].target
                if isinstance(target, cst.Name):
                    return target.value
    return None


def _is_import(statement: _Statement) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
    )


class _Mentions(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.found.add(node.value)

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        # A forward reference is a whole type expression (`TypeAliasType("L1", "list[L2]")`
        # names L2), so the string is read as one; other strings name nothing.
        value = node.evaluated_value
        if not isinstance(value, str):
            return
        try:
            expression = cst.parse_expression(value)
        except cst.ParserSyntaxError:
            return
        expression.visit(self)


def _mentions(unit: _Unit) -> set[str]:
    visitor = _Mentions()
    for statement in unit.statements:
        statement.visit(visitor)
    return visitor.found


def split_models(module: cst.Module, roots: Iterable[str]) -> ModelParts:
    """The two parts of a finished models module; `roots` are the class names of the
    notifications' params (the first part holds what they need, possibly nothing)."""
    header: list[_Statement] = []
    units: list[_Unit] = []
    for statement in module.body:
        name = _defined_name(statement)
        if name is not None:
            units.append(_Unit(name, [statement]))
        elif units:
            units[-1].statements.append(statement)
        elif _is_import(statement):
            header.append(statement)
        else:
            raise ValueError("the models module has a statement before its first definition")
    by_name = {unit.name: unit for unit in units}
    needed: set[str] = set()
    pending = [name for name in roots if name in by_name]
    while pending:
        name = pending.pop()
        if name not in needed:
            needed.add(name)
            pending.extend(by_name.keys() & _mentions(by_name[name]) - needed)
    first = [s for unit in units if unit.name in needed for s in unit.statements]
    rest = [s for unit in units if unit.name not in needed for s in unit.statements]
    names = frozenset(needed)
    if names:
        rest.insert(0, _import_of(sorted(names)))
    return ModelParts(
        notifications=module.with_changes(body=[*header, *first]).code,
        models=module.with_changes(body=[*header, *rest]).code,
        names=names,
    )


def _import_of(names: list[str]) -> cst.SimpleStatementLine:
    """`from ._notifications import (A as A, ...)`: what the rest refers to, and a
    re-export of every name (`as`: explicit for type checkers)."""
    aliases = [cst.ImportAlias(cst.Name(n), asname=cst.AsName(cst.Name(n))) for n in names]
    statement = cst.ImportFrom(cst.Name(NOTIFICATIONS_MODULE), aliases, relative=[cst.Dot()])
    return cst.SimpleStatementLine([statement], leading_lines=[cst.EmptyLine()])
