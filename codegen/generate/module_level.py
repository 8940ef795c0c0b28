"""Module-level facts and edits of the post-pass: the names each statement defines (where
a class stands decides whether a union must name it as a forward reference), the imports
the post-pass's own code needs (the runtime's markers, `Self`, `Annotated`, `Union`), added
where the generator's output had none to extend; and the literal test behind
`JsonInteger()` on `Literal[...]` types."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from ..class_names import RUNTIME_NAMES

RUNTIME_MODULE = "acp_schema._runtime"


def _import_from(code: str) -> cst.ImportFrom:
    statement = cst.parse_statement(code)  # fixed code, no schema text
    assert isinstance(statement, cst.SimpleStatementLine)
    node = statement.body[0]
    assert isinstance(node, cst.ImportFrom)
    return node


RUNTIME_IMPORT = _import_from(f"from {RUNTIME_MODULE} import {', '.join(RUNTIME_NAMES)}")
# By the name whose import shows it is there already.
_OWN_IMPORTS = (
    (RUNTIME_MODULE, RUNTIME_IMPORT),
    ("Self", _import_from("from typing_extensions import Self")),
    ("Annotated", _import_from("from typing import Annotated")),
)
_UNION_IMPORT = ("Union", _import_from("from typing import Union"))


def _is_import(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, (cst.Import, cst.ImportFrom)) for small in statement.body
    )


def with_own_imports(module: cst.Module, imported: set[str], *, union: bool) -> cst.Module:
    """`module` with the imports the post-pass's code needs and `imported` (the names and
    RUNTIME_MODULE the generator's imports already bring) lacks: a module without optional
    fields has no MISSING import (so no runtime one), one without `typing_extensions` names
    no `Self` for the builders, one without `Annotated` none for the markers; `union` when a
    tagged union names a class defined further down (`Union[A, "B"]`)."""
    own = [*_OWN_IMPORTS, *([_UNION_IMPORT] if union else [])]
    needed = [statement for name, statement in own if name not in imported]
    if not needed:
        return module
    body = list(module.body)
    at = 0  # after the generator's leading imports (`from __future__` must stay first)
    while at < len(body) and _is_import(body[at]):
        at += 1
    lines = [cst.SimpleStatementLine([statement]) for statement in needed]
    return module.with_changes(body=[*body[:at], *lines, *body[at:]])


def literal_of_values(literal: cst.CSTNode) -> bool:
    """A `Literal[...]` with an element other than a string (a number, a boolean)."""
    assert isinstance(literal, cst.Subscript)
    return any(
        isinstance(element.slice, cst.Index)
        and not isinstance(element.slice.value, (cst.SimpleString, cst.ConcatenatedString))
        for element in literal.slice
    )


def defines(statement: cst.CSTNode) -> Iterator[str]:
    """The top-level names a statement of the module defines (a class, an alias)."""
    if isinstance(statement, cst.ClassDef):
        yield statement.name.value
    elif isinstance(statement, cst.SimpleStatementLine):
        for small in statement.body:
            if isinstance(small, cst.Assign):
                yield from (t.target.value for t in small.targets if isinstance(t.target, cst.Name))


def builder_names(field_names: list[str]) -> list[str]:
    """`with_<field>` for each field, with `_` appended while that name is a field of the
    class or an earlier builder's (properties `a` and `with_a`: `with_a_()` sets `a`)."""
    taken = set(field_names)
    names = []
    for field_name in field_names:
        name = f"with_{field_name}"
        while name in taken:
            name += "_"
        taken.add(name)
        names.append(name)
    return names
