"""Code that guards against what it uses: a use there that would break is listed as may
break, with the guard as the reason (`judge`): the code shows it may never run as written.

- inside a `try` whose `except` catches the failure (`ImportError`,
  `ModuleNotFoundError`, `AttributeError`, `NameError`, `Exception`, a bare `except`);
- under `if TYPE_CHECKING:` (only type checkers read it);
- an annotation of a function, or of a local name, in a module with
  `from __future__ import annotations` (not evaluated at run time; class-body
  annotations are, by pydantic and the like, and are not guarded);
- in the body of an `if` whose test asks whether the name exists: `hasattr(m, "X")`,
  `getattr(m, "X", None)`, `X is not None` where X names the class itself.
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from acp_schema.migrations.framework.syntax import chain, string_value
from acp_schema.migrations.resolution.module_facts import ModuleFacts

_CATCHING = frozenset(
    {"ImportError", "ModuleNotFoundError", "AttributeError", "NameError", "Exception"}
)


def guarded(
    facts: ModuleFacts,
    module: cst.Module,
    node: cst.CSTNode,
    kind: str,
    class_name: Callable[[cst.CSTNode], str | None],
) -> str:
    """Why the code may never run `node` as written, or ""."""
    test = facts.parent(node)
    if isinstance(test, cst.Comparison) and test.left is node and _tests_none(test):
        return "it tests whether the name exists"
    child: cst.CSTNode = node
    for parent in facts.ancestors(node):
        if isinstance(parent, cst.Try) and child is parent.body and _catches(parent):
            return "inside a try whose except catches the failure"
        if isinstance(parent, cst.If) and child is parent.body:
            if chain(parent.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
                return "only under TYPE_CHECKING"
            if _asks_existence(parent.test, class_name):
                return "behind a test that the name exists"
        if isinstance(parent, cst.Annotation) and kind == "annotation" and _postponed(module):
            holder = facts.parent(parent)
            if not (isinstance(holder, cst.AnnAssign) and _in_class_body(facts, holder)):
                return "annotations are not evaluated (from __future__ import annotations)"
        child = parent
    return ""


def _catches(statement: cst.Try) -> bool:
    for handler in statement.handlers:
        caught = handler.type
        if caught is None:
            return True
        names = [e.value for e in caught.elements] if isinstance(caught, cst.Tuple) else [caught]
        if any((chain(n) or "").rpartition(".")[2] in _CATCHING for n in names):
            return True
    return False


def _asks_existence(
    test: cst.BaseExpression, class_name: Callable[[cst.CSTNode], str | None]
) -> bool:
    if isinstance(test, cst.BooleanOperation):
        return _asks_existence(test.left, class_name) or _asks_existence(test.right, class_name)
    if isinstance(test, cst.Call) and chain(test.func) in ("hasattr", "getattr"):
        return len(test.args) >= 2 and string_value(test.args[1].value) is not None
    if isinstance(test, cst.Comparison) and _tests_none(test):
        return isinstance(test.comparisons[0].operator, cst.IsNot) and (
            class_name(test.left) is not None
        )
    return False


def _tests_none(test: cst.Comparison) -> bool:
    """`X is None` / `X is not None`."""
    if len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    return isinstance(target.operator, cst.Is | cst.IsNot) and chain(target.comparator) == "None"


def _in_class_body(facts: ModuleFacts, node: cst.CSTNode) -> bool:
    for parent in facts.ancestors(node):
        if isinstance(parent, cst.ClassDef):
            return True
        if isinstance(parent, cst.FunctionDef | cst.Lambda):
            return False
    return False


def _postponed(module: cst.Module) -> bool:
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            if (
                isinstance(small, cst.ImportFrom)
                and small.module is not None
                and chain(small.module) == "__future__"
                and not isinstance(small.names, cst.ImportStar)
                and any(chain(a.name) == "annotations" for a in small.names)
            ):
                return True
    return False
