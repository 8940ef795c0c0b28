"""What the metadata of one module says, without any claim about values: parents,
scopes, qualified names, positions, names and their assignments, and which classes are
the bindings' (the chunk), the application's, or something else. `facts.Facts` builds
the value facts ("this name holds a chunk") on top of it."""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import Any

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

from acp_schema.migrations.framework.syntax import chain
from acp_schema.migrations.resolution.bindings import CHUNK_CLASS, Bindings, resolve_relative

METADATA: tuple[ProviderT, ...] = (
    ParentNodeProvider,
    ScopeProvider,
    QualifiedNameProvider,
    PositionProvider,
)
# Their names (`Any`, `Mapping`, `Protocol`) say nothing about what a value is not.
_MAX_ALIAS_HOPS = 16  # aliases of aliases: more than code that names a class needs
TYPING_MODULES = frozenset(
    {"typing", "typing_extensions", "collections", "abc", "builtins", "types"}
)


class ModuleFacts:
    """Queries over one module's resolved metadata."""

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
        self._has_star: bool | None = None

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

    def qualified_names(self, node: cst.CSTNode, depth: int = 0) -> set[str]:
        """Qualified names of an imported or module-level name, relative imports resolved;
        through an alias made by assignment (`Chunk = v2.SessionMessageChunk`, the one
        assignment the name sees, in any scope), and for a name that only a star import
        of this module can bind (`from acp_schema.v2 import *`), this module's name of it
        (`app.use.SessionMessageChunk`, which the facades' resolution follows)."""
        found: Collection[QualifiedName] = self._get(QualifiedNameProvider, node) or ()
        names = {
            self.absolute(qname.name)
            for qname in found
            if qname.source is not QualifiedNameSource.BUILTIN
        }
        if not isinstance(node, cst.Name) or depth > _MAX_ALIAS_HOPS:
            return names
        local = any(q.source is QualifiedNameSource.LOCAL for q in found)
        aliased = self._aliased(node) if local else None  # an import is no alias to follow
        if aliased is not None:
            names |= self.qualified_names(aliased, depth + 1)
        elif not found and self.module_name and self._star_imports():
            access = self.access_of(node)
            if access is not None and not access.referents:
                names.add(f"{self.module_name}.{node.value}")
        return names

    def _aliased(self, name: cst.Name) -> cst.BaseExpression | None:
        """The dotted name that `name` was assigned from, when that is its one assignment."""
        assignment = self.single_assignment(name)
        target = assignment.node if assignment is not None else None
        holder = self.parent(target) if isinstance(target, cst.Name) else None
        assign = self.parent(holder) if isinstance(holder, cst.AssignTarget) else None
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            return None
        value = assign.value
        return value if isinstance(value, cst.Name | cst.Attribute) and chain(value) else None

    def _star_imports(self) -> bool:
        if self._has_star is None:
            self._has_star = any(
                isinstance(small, cst.ImportFrom) and isinstance(small.names, cst.ImportStar)
                for statement in self.module.body
                if isinstance(statement, cst.SimpleStatementLine)
                for small in statement.body
            )
        return self._has_star

    def names_import(self, node: cst.CSTNode) -> bool:
        """Whether a name or dotted name reaches what an import binds (a module or a
        module's member), rather than a local value such as a parameter or `self`."""
        found: Collection[QualifiedName] = self._get(QualifiedNameProvider, node) or ()
        return any(qname.source is QualifiedNameSource.IMPORT for qname in found)

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
        dots = len(name) - len(name.lstrip("."))
        return resolve_relative(package, dots, name[dots:]) or name

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
            and q.rpartition(".")[2] not in self.bindings.tag_constants  # a chunk subclass
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
