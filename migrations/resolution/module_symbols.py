"""Top-level definitions of modules, read with `ast` (nothing is imported or run): the
modules of the run (`RunModules`, by the names Python imports them under) and the
installed bindings modules. `resolve` turns a dotted name used in a module into the
qualified names it refers to, through the module's imports, and `definition` finds the
statement that binds a qualified name, following re-exports (`from .models import X`).

The type facts (`type_evidence`) are built on it; the impact report may use it too.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

from acp_schema._input import InputError, read_bytes
from acp_schema.migrations.resolution.bindings import import_source, python_source_spec

BUILTIN_NAMES = frozenset(dir(builtins))
MAX_HOPS = 20  # re-exports followed before giving up (a cycle of facades)


@dataclass(frozen=True)
class ModuleSymbols:
    """One module's top-level statements by the names they bind."""

    name: str
    package: str | None
    bound: dict[str, list[ast.stmt]] = field(default_factory=dict)

    @classmethod
    def of(cls, name: str, tree: ast.Module, package: str | None) -> ModuleSymbols:
        bound: dict[str, list[ast.stmt]] = {}
        for statement in _top_level(tree.body):
            for target in _bound_names(statement):
                bound.setdefault(target, []).append(statement)
        return cls(name, package, bound)

    def only(self, name: str) -> ast.stmt | None:
        """The one statement binding `name` at top level (None: none, or several)."""
        found = self.bound.get(name, [])
        return found[0] if len(found) == 1 else None

    def resolve(self, dotted: str) -> list[str]:
        """Qualified names `dotted` refers to in this module ([] when unbound)."""
        root, _, rest = dotted.partition(".")
        statement = self.only(root)
        if statement is None:
            if root in self.bound:  # bound several times: cannot tell which
                return []
            return [f"builtins.{dotted}"] if root in BUILTIN_NAMES else []
        base = _import_target(statement, root, self.package)
        if base is None:
            base = f"{self.name}.{root}"
        return [f"{base}.{rest}" if rest else base]


def _top_level(body: Iterable[ast.stmt]) -> Iterable[ast.stmt]:
    """Top-level statements, also those under `if TYPE_CHECKING:` / `try:` (imports)."""
    for statement in body:
        if isinstance(statement, ast.If):
            yield from _top_level(statement.body)
            yield from _top_level(statement.orelse)
        elif isinstance(statement, ast.Try):
            yield from _top_level(statement.body)
            for handler in statement.handlers:
                yield from _top_level(handler.body)
        else:
            yield statement


def _bound_names(statement: ast.stmt) -> list[str]:
    if isinstance(statement, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        return [statement.name]
    if isinstance(statement, ast.Assign):
        return [n.id for t in statement.targets for n in _target_names(t)]
    if isinstance(statement, ast.AnnAssign | ast.AugAssign):
        return [n.id for n in _target_names(statement.target)]
    if isinstance(statement, ast.Import):
        return [(a.asname or a.name).split(".")[0] for a in statement.names]
    if isinstance(statement, ast.ImportFrom):
        return [a.asname or a.name for a in statement.names if a.name != "*"]
    type_alias = getattr(ast, "TypeAlias", None)  # `type X = ...`, Python 3.12+
    if type_alias is not None and isinstance(statement, type_alias):
        name = statement.name
        return [name.id] if isinstance(name, ast.Name) else []
    return []


def _target_names(target: ast.expr) -> list[ast.Name]:
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for element in target.elts for n in _target_names(element)]
    return []


def _import_target(statement: ast.stmt, root: str, package: str | None) -> str | None:
    if isinstance(statement, ast.ImportFrom):
        source = import_source(statement, package)
        for alias in statement.names:
            if (alias.asname or alias.name) == root and source is not None:
                return f"{source}.{alias.name}"
        return None
    if isinstance(statement, ast.Import):
        for alias in statement.names:
            if alias.asname == root:
                return alias.name
            if alias.asname is None and alias.name.split(".")[0] == root:
                return root
    return None


@dataclass(frozen=True)
class Definition:
    """The statement that binds a qualified name, and the module it is in."""

    symbols: ModuleSymbols
    node: ast.stmt
    name: str  # the name bound


@dataclass(frozen=True)
class RunModules:
    """The run's modules by import name (picklable: handed to every file's migration)."""

    paths: tuple[tuple[str, str, bool], ...] = ()  # (module name, file, is a package)
    # Names of the run's classes whose instances may carry a chunk's data: those a class
    # deriving from a chunk also derives from (mixins, and their bases: `self` in their
    # methods may be a chunk), and those serialised field by field into chunk payloads.
    chunk_mixins: tuple[str, ...] = ()

    @classmethod
    def of(cls, entries: Iterable[tuple[str, Path, bool]]) -> RunModules:
        return cls(tuple(sorted({(n, str(p), pkg) for n, p, pkg in entries})))

    def symbols(self, module: str) -> ModuleSymbols | None:
        """A module of the run (None: not one)."""
        return _run_symbols(self, module)


@lru_cache(maxsize=16)
def _index(run: RunModules) -> dict[str, tuple[str, bool]]:
    return {name: (path, package) for name, path, package in run.paths}


@lru_cache(maxsize=512)
def _run_symbols(run: RunModules, module: str) -> ModuleSymbols | None:
    entry = _index(run).get(module)
    if entry is None:
        return None
    path, is_package = entry
    tree = _tree(path)
    if tree is None:
        return None
    return ModuleSymbols.of(module, tree, module if is_package else module.rpartition(".")[0])


@lru_cache(maxsize=512)
def _tree(path: str) -> ast.Module | None:
    try:
        return ast.parse(read_bytes(Path(path)))
    except (OSError, InputError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@cache
def installed_symbols(module: str) -> ModuleSymbols | None:
    """An installed module's top-level statements, read from its source without
    importing it (re-exports are followed by `definition`, as the generated packages'
    `if TYPE_CHECKING: from ._models import X as X`). None when it has no Python source."""
    spec = python_source_spec(module)
    if spec is None or spec.origin is None:
        return None
    tree = _tree(spec.origin)
    if tree is None:
        return None
    package = module if spec.submodule_search_locations else module.rpartition(".")[0]
    return ModuleSymbols.of(module, tree, package or None)


Lookup = Callable[[str], "ModuleSymbols | None"]


def definition(lookup: Lookup, qualified: str, hops: int = 0) -> Definition | None:
    """The statement binding `qualified` (`module.Name`) in the modules `lookup` knows,
    re-exports followed; None for anything else (a nested class, an unknown module)."""
    if hops > MAX_HOPS:
        return None
    module, _, name = qualified.rpartition(".")
    symbols = lookup(module) if module else None
    if symbols is None:
        return None
    statement = symbols.only(name)
    if statement is None:
        return None
    if isinstance(statement, ast.ImportFrom | ast.Import):
        target = _import_target(statement, name, symbols.package)
        if target is None or target == qualified:
            return None
        return definition(lookup, target, hops + 1)
    return Definition(symbols, statement, name)
