"""What a value in the module being migrated may hold, as far as the code shows it:
"this expression is never a chunk" needs evidence from the code, never from distance.

`ValueEvidence.holds(expr)` answers with a `type_evidence.Holds` from, in order:
- a narrowing around the use: `isinstance` (in an `if`, an `assert` before it, a
  comprehension's `if`), a test of the update's tag (`u.session_update ==
  "session_message"`, `u["sessionUpdate"] != "session_message_chunk"`), a `case`;
- what the name is bound to: a parameter's annotation (quoted or not, unions, Optional),
  `self` of a method, an annotated assignment, an assignment from a constructor, from a
  function or method whose return annotation says, from a literal, a loop or
  comprehension over an annotated container (`for m in self._messages.values()`);
- an attribute's declared type: the class body annotation, `self.x: T = ...` or
  `self.x = T(...)` in `__init__`, looked up in the class of the receiver and its bases;
- an item of an annotated container (`self._messages[key]` of a `dict[str, Message]`).

Anything else is `unknown`. The classes and annotations themselves are judged by
`type_evidence.TypeOracle`, across the run's modules.
"""

from __future__ import annotations

import ast

import libcst as cst
from libcst.metadata import Assignment, QualifiedNameSource

from acp_schema.migrations.framework.syntax import chain
from acp_schema.migrations.resolution.declared_types import MAX_DEPTH, DeclaredTypes, to_ast
from acp_schema.migrations.resolution.module_facts import ModuleFacts
from acp_schema.migrations.resolution.module_symbols import definition
from acp_schema.migrations.resolution.narrowing import Narrowing
from acp_schema.migrations.resolution.type_evidence import (
    UNKNOWN,
    Holds,
    Resolve,
    TypeOracle,
    join,
)

# Calls that return a copy of their (first) argument or receiver.
COPIES = frozenset({"copy.copy", "copy.deepcopy", "copy.replace", "dataclasses.replace"})
COPY_METHODS = frozenset({"model_copy", "copy", "_replace", "__copy__"})
# Class methods that build an instance of their class.
CONSTRUCTORS = frozenset(
    {"model_validate", "model_validate_json", "model_construct", "parse_obj", "construct"}
)
LITERALS = (
    cst.Dict,
    cst.List,
    cst.Set,
    cst.Tuple,
    cst.SimpleString,
    cst.ConcatenatedString,
    cst.FormattedString,
    cst.Integer,
    cst.Float,
    cst.DictComp,
    cst.ListComp,
    cst.SetComp,
)
PLACEHOLDER_MODULE = "__migrated_module__"


class ValueEvidence(DeclaredTypes):
    """Strict value facts for one module (see the module docstring)."""

    def __init__(self, facts: ModuleFacts, oracle: TypeOracle) -> None:
        self.facts = facts
        self.oracle = oracle
        self.module = facts.module_name or PLACEHOLDER_MODULE
        self.narrowing = Narrowing(facts, lambda node: self.class_named(node)[1])
        oracle.extra_source[self.module] = (facts.module, facts.package_name)

    # --- names in this module ------------------------------------------------------------

    def resolver(self, at: cst.CSTNode) -> Resolve:
        scope = self.facts.scope(at)

        def resolve(dotted: str) -> list[str]:
            if scope is None:
                return []
            found = []
            for qualified in scope.get_qualified_names_for(dotted):
                name = qualified.name
                if qualified.source is QualifiedNameSource.LOCAL:
                    if "<locals>" in name:
                        return []  # a class of a function: not followed
                    name = f"{self.module}.{name}"
                elif qualified.source is QualifiedNameSource.IMPORT:
                    name = self.facts.absolute(name)
                found.append(name)
            return found

        return resolve

    def annotation(self, node: cst.BaseExpression) -> Holds:
        """Whether a value annotated `node` (in this module) may be a chunk."""
        parsed = to_ast(node)
        if parsed is None:
            return UNKNOWN
        return self.oracle.of_annotation(parsed, self.resolver(node))

    def class_named(self, node: cst.BaseExpression) -> tuple[list[str], Holds]:
        """The qualified names of the class `node` names, and whether its instances may
        be chunks."""
        dotted = chain(node)
        if dotted is None:
            return [], UNKNOWN
        names = self.resolver(node)(dotted)
        if not names:
            return [], UNKNOWN
        return names, join(self.oracle.of_class(q) for q in names)

    # --- values --------------------------------------------------------------------------

    def tag_narrowed(self, expr: cst.BaseExpression) -> Holds | None:
        """What an enclosing test of the tag (or a mapping `case`) shows `expr` to be."""
        return self.narrowing.narrowed(expr, tags_only=True)

    def holds(self, expr: cst.BaseExpression, depth: int = 0) -> Holds:
        if depth > MAX_DEPTH:
            return UNKNOWN
        narrowed = self.narrowing.narrowed(expr)
        if narrowed is not None:
            return narrowed
        if isinstance(expr, cst.Name):
            return self._name(expr, depth)
        if isinstance(expr, cst.Attribute):
            declared = self.declared(expr, depth)
            if declared is not None:
                annotation, resolve = declared
                return self.oracle.of_annotation(annotation, resolve)
            return UNKNOWN
        if isinstance(expr, cst.Subscript):
            return self._item(expr, depth)
        if isinstance(expr, cst.Await) and isinstance(expr.expression, cst.Call):
            return self._call(expr.expression, depth, awaited=True)
        if isinstance(expr, cst.Call):
            return self._call(expr, depth, awaited=False)
        if isinstance(expr, LITERALS):
            return Holds("other", f"a literal `{type(expr).__name__.lower()}`")
        return UNKNOWN

    def _name(self, name: cst.Name, depth: int) -> Holds:
        access = self.facts.access_of(name)
        if access is None:
            return UNKNOWN
        referents = list(access.referents)
        if not referents or not all(isinstance(r, Assignment) for r in referents):
            return UNKNOWN
        return join(self._bound(r.node, depth) for r in referents if isinstance(r, Assignment))

    def _bound(self, node: cst.CSTNode, depth: int) -> Holds:
        """What a name holds where `node` binds it."""
        facts = self.facts
        if isinstance(node, cst.Param):
            if node.annotation is not None:
                if self._star(node):
                    return UNKNOWN
                return self.annotation(node.annotation.annotation)
            return self._self(node)
        if not isinstance(node, cst.Name):
            return UNKNOWN
        holder = facts.parent(node)
        if isinstance(holder, cst.AnnAssign) and holder.target is node:
            return self.annotation(holder.annotation.annotation)
        if isinstance(holder, cst.AssignTarget):
            assign = facts.parent(holder)
            if isinstance(assign, cst.Assign) and holder.target is node:
                return self.holds(assign.value, depth + 1)
        if isinstance(holder, cst.For | cst.CompFor) and holder.target is node:
            return self._iterated(holder.iter, depth)
        if isinstance(holder, cst.MatchAs) and isinstance(holder.pattern, cst.MatchClass):
            return self.class_named(holder.pattern.cls)[1]
        return UNKNOWN

    def _star(self, param: cst.Param) -> bool:
        params = self.facts.parent(param)
        return isinstance(params, cst.Parameters) and param in (
            params.star_arg,
            params.star_kwarg,
        )

    def _self(self, param: cst.Param) -> Holds:
        owner = self.method_owner(param)
        if owner is None:
            return UNKNOWN
        return self.class_named(owner.name)[1]

    def method_owner(self, param: cst.Param) -> cst.ClassDef | None:
        """The class whose plain method takes `param` first (`self`)."""
        facts = self.facts
        params = facts.parent(param)
        function = facts.parent(params) if params is not None else None
        if not (
            isinstance(params, cst.Parameters)
            and params.params
            and params.params[0] is param
            and isinstance(function, cst.FunctionDef)
            and not any(
                chain(d.decorator) in {"staticmethod", "classmethod"} for d in function.decorators
            )
        ):
            return None
        block = facts.parent(function)
        owner = facts.parent(block) if block is not None else None
        if not isinstance(owner, cst.ClassDef) or facts.parent(owner) is not facts.module:
            return None
        return owner

    def _iterated(self, iterable: cst.BaseExpression, depth: int) -> Holds:
        """An item of `for x in iterable` (an annotated container, or its `.values()`)."""
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Attribute):
            method = iterable.func.attr.value
            if method in {"values", "keys"} and not iterable.args:
                declared = self.declared(iterable.func.value, depth)
                if declared is None:
                    return UNKNOWN
                annotation, resolve = declared
                return self.oracle.item_of(annotation, resolve, iterated=method == "keys")
            return UNKNOWN
        declared = self.declared(iterable, depth)
        if declared is None:
            return UNKNOWN
        annotation, resolve = declared
        return self.oracle.item_of(annotation, resolve, iterated=True)

    def _item(self, subscript: cst.Subscript, depth: int) -> Holds:
        if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
            return UNKNOWN
        declared = self.declared(subscript.value, depth)
        if declared is None:
            return UNKNOWN
        annotation, resolve = declared
        return self.oracle.item_of(annotation, resolve)

    def _call(self, call: cst.Call, depth: int, *, awaited: bool) -> Holds:
        func = call.func
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in COPY_METHODS:
                return self.holds(func.value, depth + 1)
            if method in CONSTRUCTORS:
                return self.class_named(func.value)[1]
            owners = self.classes_of(func.value, depth + 1)
            if owners:
                return join(self._returned(q, method, awaited) for q in owners)
        dotted = chain(func)
        if dotted is None:
            return UNKNOWN
        names = self.resolver(func)(dotted)
        if any(n in COPIES for n in names) and call.args:
            return self.holds(call.args[0].value, depth + 1)
        found = []
        for qualified in names:
            target = definition(self.oracle.symbols, qualified)
            node = target.node if target is not None else None
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and target is not None:
                if node.returns is None or (isinstance(node, ast.AsyncFunctionDef) != awaited):
                    return UNKNOWN
                found.append(self.oracle.of_annotation(node.returns, target.symbols.resolve))
            else:
                found.append(self.oracle.of_class(qualified))
        return join(found)
