"""What the metadata of one module proves: parents, scopes, qualified names, positions,
and the conservative type facts the migrations need ("this name holds a chunk").

A fact is only claimed when the code shows it: an annotation, an `isinstance` test
around the use, a `match` class pattern, or an assignment from a constructor. Anything
else is `UNKNOWN`, and the rules leave unknown code alone.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import libcst as cst
from libcst import MetadataDependent
from libcst.metadata import (
    Access,
    Assignment,
    CodeRange,
    ImportAssignment,
    ParentNodeProvider,
    PositionProvider,
    QualifiedName,
    QualifiedNameProvider,
    QualifiedNameSource,
    Scope,
    ScopeProvider,
)
from libcst.metadata.base_provider import ProviderT

from .bindings import CHUNK_CLASS, CHUNK_TAG, Bindings
from .syntax import chain, stores_in, string_value

METADATA: tuple[ProviderT, ...] = (
    ParentNodeProvider,
    ScopeProvider,
    QualifiedNameProvider,
    PositionProvider,
)

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
# Their names (`Any`, `Mapping`, `Protocol`) say nothing about what a value is not.
TYPING_MODULES = frozenset(
    {"typing", "typing_extensions", "collections", "abc", "builtins", "types"}
)
COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def _element(comprehension: cst.CSTNode) -> cst.CSTNode | None:
    if isinstance(comprehension, cst.DictComp):
        return comprehension.value
    return getattr(comprehension, "elt", None)


OTHER = Fact("other")


class Facts:
    """Queries over one module's resolved metadata."""

    def __init__(
        self,
        module: cst.Module,
        metadata: MetadataDependent,
        bindings: Bindings,
        module_name: str | None = None,
        package_name: str | None = None,
    ) -> None:
        self.module = module
        self.bindings = bindings
        self.module_name = module_name
        self.package_name = package_name
        self._metadata = metadata

    # --- plain metadata ----------------------------------------------------------------

    def _get(self, provider: ProviderT, node: cst.CSTNode) -> Any:
        return self._metadata.get_metadata(provider, node, None)

    def parent(self, node: cst.CSTNode) -> cst.CSTNode | None:
        parent: cst.CSTNode | None = self._get(ParentNodeProvider, node)
        return parent

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        current = self.parent(node)
        while current is not None:
            yield current
            current = self.parent(current)

    def scope(self, node: cst.CSTNode) -> Scope | None:
        scope: Scope | None = self._get(ScopeProvider, node)
        return scope

    def positions(self) -> Mapping[cst.CSTNode, CodeRange]:
        """Every node's position (the metadata already resolved for the module)."""
        found: Mapping[cst.CSTNode, CodeRange] = self._metadata.metadata.get(PositionProvider, {})  # type: ignore[assignment]
        return found

    def position(self, node: cst.CSTNode) -> tuple[int, int]:
        where: CodeRange | None = self._get(PositionProvider, node)
        return (where.start.line, where.start.column) if where else (0, 0)

    def qualified_names(self, node: cst.CSTNode) -> set[str]:
        """Qualified names of an imported or module-level name, relative imports resolved."""
        found: Collection[QualifiedName] = self._get(QualifiedNameProvider, node) or ()
        return {
            self.absolute(qname.name)
            for qname in found
            if qname.source is not QualifiedNameSource.BUILTIN
        }

    def is_builtin(self, node: cst.CSTNode) -> bool:
        """Whether a name is Python's builtin of that name (not shadowed)."""
        found: Collection[QualifiedName] = self._get(QualifiedNameProvider, node) or ()
        return any(qname.source is QualifiedNameSource.BUILTIN for qname in found)

    def absolute(self, name: str) -> str:
        """Resolve a relative qualified name (`.helpers.f`) against this module's package;
        left relative (naming nothing) when the package is unknown or the dots climb above
        its top package, where Python refuses the import."""
        if not name.startswith("."):
            return name
        package = self.package_name
        if package is None and self.module_name is not None:
            package = self.module_name.rpartition(".")[0]
        if not package:
            return name
        dots = len(name) - len(name.lstrip("."))
        parts = package.split(".")
        if dots > len(parts):
            return name
        return ".".join([*parts[: len(parts) - (dots - 1)], name[dots:]])

    # --- statements and functions ------------------------------------------------------

    def small_statement(self, node: cst.CSTNode) -> cst.BaseSmallStatement | None:
        for current in (node, *self.ancestors(node)):
            if isinstance(current, cst.BaseSmallStatement):
                return current
            if isinstance(current, cst.BaseCompoundStatement | cst.BaseSuite):
                return None
        return None

    def block_statement(self, node: cst.CSTNode) -> cst.BaseStatement | None:
        """The statement holding `node` that sits directly in a block (module or
        indented body), where a line can be inserted before it."""
        for current in (node, *self.ancestors(node)):
            if isinstance(current, cst.BaseStatement):
                holder = self.parent(current)
                if isinstance(holder, cst.Module | cst.IndentedBlock):
                    return current
        return None

    def function_of(self, node: cst.CSTNode) -> cst.FunctionDef | None:
        for current in self.ancestors(node):
            if isinstance(current, cst.FunctionDef):
                return current
            if isinstance(current, cst.Lambda | cst.ClassDef):
                return None
        return None

    # --- names -------------------------------------------------------------------------

    def access_of(self, name: cst.Name) -> Access | None:
        scope = self.scope(name)
        if scope is None:
            return None
        for access in scope.accesses[name]:
            if access.node is name:
                return access
        return None

    def single_assignment(self, name: cst.Name) -> Assignment | None:
        """The one assignment a name use can see, or None (several, builtin, unknown)."""
        access = self.access_of(name)
        if access is None:
            return None
        referents = list(access.referents)
        if len(referents) != 1 or not isinstance(referents[0], Assignment):
            return None
        return referents[0]

    def assignment_of(self, target: cst.Name) -> Assignment | None:
        """The Assignment record of a stored name."""
        scope = self.scope(target)
        if scope is None:
            return None
        for assignment in scope.assignments[target]:
            if isinstance(assignment, Assignment) and assignment.node is target:
                return assignment
        return None

    def local_name_for(self, qualified: str, at: cst.CSTNode) -> str | None:
        """A name visible at `at` that is an import of exactly `qualified`."""
        scope = self.scope(at)
        if scope is None:
            return None
        global_scope = scope.globals
        for assignment in global_scope.assignments:
            if not isinstance(assignment, ImportAssignment):
                continue
            name = assignment.name
            qnames = {self.absolute(q.name) for q in assignment.get_qualified_names_for(name)}
            if qualified in qnames and self.resolves_to_module_level(name, at):
                return name
        return None

    def resolves_to_module_level(self, name: str, at: cst.CSTNode) -> bool:
        """Whether `name` at `at` means the module-level binding (no local shadow)."""
        scope = self.scope(at)
        if scope is None:
            return False
        current: Scope = scope
        while current is not current.globals:
            if name in current.assignments:
                return False
            current = current.parent
        return True

    def name_is_free(self, name: str, at: cst.CSTNode) -> bool:
        """Whether nothing binds `name` where `at` sees it, module level included."""
        scope = self.scope(at)
        return (
            scope is not None
            and self.resolves_to_module_level(name, at)
            and name not in scope.globals.assignments
        )

    # --- bindings classes --------------------------------------------------------------

    def class_module(self, expr: cst.CSTNode, class_name: str) -> str | None:
        """The bindings module when `expr` names `class_name` of the bindings."""
        if not isinstance(expr, cst.Name | cst.Attribute):
            return None
        for qname in self.qualified_names(expr):
            module = self.bindings.class_module(qname, class_name)
            if module is not None:
                return module
        return None

    def is_chunk_class(self, expr: cst.CSTNode) -> str | None:
        return self.class_module(expr, CHUNK_CLASS)

    def from_bindings(self, expr: cst.CSTNode) -> bool:
        """Whether `expr` names something a bindings module defines (a class, mostly)."""
        for qname in self.qualified_names(expr):
            module = qname.rpartition(".")[0]
            if module and self.bindings.owner(module):
                return True
        return False

    def names_other_class(self, expr: cst.CSTNode) -> bool:
        """Whether a type expression names something that is certainly not the chunk:
        another bindings class, a builtin, or a class defined in this module."""
        if self.is_chunk_class(expr):
            return False
        if isinstance(expr, cst.Name) and expr.value in {"str", "int", "dict", "list", "bytes"}:
            return True
        if chain(expr) is None:  # only plain dotted names name a class here
            return False
        if self.from_bindings(expr):
            return True
        if self.qualified_names(expr) & self.bindings.app_classes:  # a look-alike of the run
            return True
        if self._imported_other_class(expr):
            return True
        if isinstance(expr, cst.Name):
            assignment = self.single_assignment(expr)
            return (
                assignment is not None
                and isinstance(assignment.node, cst.ClassDef)
                and not self.subclasses_chunk(assignment.node)
            )
        return False

    def _imported_other_class(self, expr: cst.CSTNode) -> bool:
        """An imported name (or an attribute of an imported module) that resolves to
        something other than a chunk class, under another name than the chunk's: the
        application's own class (`from app.events import MessageEvent`). A re-export of
        the chunk keeps its name (`from app.facade import SessionMessageChunk`)."""
        root = expr
        while isinstance(root, cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name):
            return False
        assignment = self.access_of(root)
        referents = list(assignment.referents) if assignment is not None else []
        if len(referents) != 1 or not isinstance(referents[0], ImportAssignment):
            return False
        names = self.qualified_names(expr)
        return bool(names) and all(
            q.rpartition(".")[2] != CHUNK_CLASS
            and self.bindings.class_module(q, CHUNK_CLASS) is None
            and q.partition(".")[0] not in TYPING_MODULES
            for q in names
        )

    def subclasses_chunk(self, node: cst.ClassDef, depth: int = 0) -> bool:
        """Whether a class of this module derives from the chunk class (through classes
        of this module too): its instances are chunks."""
        for base in node.bases:
            if self.is_chunk_class(base.value):
                return True
            if isinstance(base.value, cst.Name) and depth < 20:
                assignment = self.single_assignment(base.value)
                if (
                    assignment is not None
                    and isinstance(assignment.node, cst.ClassDef)
                    and self.subclasses_chunk(assignment.node, depth + 1)
                ):
                    return True
        return False

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
        child: cst.CSTNode = expr
        for current in self.ancestors(expr):
            if isinstance(current, cst.FunctionDef | cst.Lambda | cst.ClassDef):
                return None
            if isinstance(current, COMPREHENSIONS) and child is _element(current):
                fact = self._filtered(current.for_in, dotted)
                if fact is not None:
                    return fact
            if isinstance(current, cst.IndentedBlock | cst.Module):
                fact = self._asserted(current, child, dotted)
                if fact is not None:
                    return fact
            if isinstance(current, cst.If | cst.While) and child is current.body:
                fact = self._test_fact(current.test, dotted)
                if fact is not None and not stores_in([current.body]).rebinds(dotted):
                    return fact
            if isinstance(current, cst.MatchCase) and child is current.body:
                match = self.parent(current)
                if isinstance(match, cst.Match) and chain(match.subject) == dotted:
                    fact = self._pattern_fact(current.pattern)
                    if fact is not None and not stores_in([current.body]).rebinds(dotted):
                        return fact
            child = current
        return None

    def _filtered(self, for_in: cst.CompFor, dotted: str) -> Fact | None:
        """`[e.x for e in events if isinstance(e, T)]`: the `if` clauses hold for the
        element."""
        current: cst.CompFor | None = for_in
        while current is not None:
            for clause in current.ifs:
                fact = self._test_fact(clause.test, dotted)
                if fact is not None:
                    return fact
            current = current.inner_for_in
        return None

    def _asserted(self, block: cst.CSTNode, statement: cst.CSTNode, dotted: str) -> Fact | None:
        """`assert isinstance(e, T)` earlier in the same block, with no rebinding of the
        name between it and `statement`."""
        body = block.body if isinstance(block, cst.Module | cst.IndentedBlock) else ()
        before: list[cst.CSTNode] = []
        for item in body:
            if item is statement:
                break
            before.append(item)
        else:
            return None
        for index in range(len(before) - 1, -1, -1):
            line = before[index]
            if isinstance(line, cst.SimpleStatementLine):
                for small in line.body:
                    if isinstance(small, cst.Assert):
                        fact = self._test_fact(small.test, dotted)
                        if fact is not None and not stores_in(before[index + 1 :]).rebinds(dotted):
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
