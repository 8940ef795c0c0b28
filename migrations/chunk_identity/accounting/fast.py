"""Proofs read with `ast` alone, for files no rule can act on.

A file that names a removed name but no chunk class, chunk tag, star import or chunk
name of the run cannot be rewritten; it still has to be accounted, and libcst's parse
and metadata cost about a hundred times `ast.parse` there (the application's own
classes with participant-ID fields are one module in ten of a real repository). This
module gives the same proofs, of the same kinds, for the shapes such files mostly hold:

- `class-member`: a field or method of a module-level class the `TypeOracle` shows is
  not a chunk (not a TypedDict);
- `receiver-not-chunk`: `x.name` where `x` is `self` of such a class's plain method, a
  parameter annotated with a type the oracle shows holds no chunk, or the target of a
  loop or comprehension over a parameter annotated as a container of such items, in a
  function that nowhere rebinds it and has no `isinstance`, `match` or `assert`;
- `not-chunk-class`: a keyword of a call of such a class that declares the field;
- `local-name`: a parameter (in a scope without `locals()` / `vars()` / `globals()`);
- `unused-string`: a docstring or another string statement of one literal.

It answers for a whole file or not at all: when one occurrence has no proof here (or
sits on a line with non-ASCII text, where columns differ), the file takes the full
libcst path, which proves it there or reports it. Its answers must equal the full
path's (tests/test_migrate_fast_proofs.py checks that they do).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from acp_schema.migrations.chunk_identity.accounting.accounting import Account
from acp_schema.migrations.chunk_identity.accounting.occurrences import Occurrence
from acp_schema.migrations.chunk_identity.accounting.proofs import (
    class_call,
    docstring,
    member,
    names,
    receiver,
)
from acp_schema.migrations.chunk_identity.accounting.proofs.class_call import declares
from acp_schema.migrations.resolution.bindings import Bindings
from acp_schema.migrations.resolution.module_symbols import ModuleSymbols, RunModules
from acp_schema.migrations.resolution.type_evidence import Holds, TypeOracle

Position = tuple[int, int]
FUNCTIONS = ast.FunctionDef | ast.AsyncFunctionDef
NARROWING = (ast.Match, ast.Assert)
NAME_TABLES = frozenset({"locals", "vars", "globals"})


class FastAccountant:
    """The ast-only proofs of one module (see the module docstring)."""

    def __init__(self, tree: ast.Module, symbols: ModuleSymbols, oracle: TypeOracle) -> None:
        self.tree = tree
        self.symbols = symbols
        self.oracle = oracle
        # One walk: each node's parent, and the nodes an occurrence can start at.
        self.parents: dict[ast.AST, ast.AST] = {}
        self.at: dict[Position, list[ast.AST]] = {}
        stack: list[ast.AST] = [tree]
        while stack:
            node = stack.pop()
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
                stack.append(child)
            for where in _positions(node):
                self.at.setdefault(where, []).append(node)

    def account(self, found: Sequence[Occurrence], lines: Sequence[bytes]) -> list[Account] | None:
        """Every occurrence's verdict, or None when one of them has no proof here."""
        accounts = []
        for occurrence in found:
            if not lines[occurrence.line - 1].isascii():
                return None  # ast columns count bytes, the scan counts characters
            proof = self._prove(occurrence)
            if proof is None:
                return None
            kind, evidence = proof
            accounts.append(Account(occurrence, "unrelated", evidence=evidence, proof=kind))
        return accounts

    def _prove(self, occurrence: Occurrence) -> tuple[str, str] | None:
        for node in self.at.get((occurrence.line, occurrence.column), []):
            if occurrence.in_string:
                if isinstance(node, ast.Constant) and self._alone(node):
                    return (
                        docstring.KIND,
                        "a string statement (a docstring): its value is never used",
                    )
                continue
            found = self._name(node, occurrence.name)
            if found is not None:
                return found
        return None

    def _alone(self, node: ast.Constant) -> bool:
        """A string that is a statement of its own, alone on its line."""
        statement = self.parents.get(node)
        holder = self.parents.get(statement) if statement is not None else None
        if not isinstance(statement, ast.Expr) or holder is None:
            return False
        siblings = [
            s
            for field in ("body", "orelse", "finalbody")
            for s in getattr(holder, field, [])
            if isinstance(s, ast.stmt)
        ]
        return (
            statement in siblings
            and not any(
                s is not statement and statement.lineno <= s.lineno <= (statement.end_lineno or 0)
                for s in siblings
            )
            and not any(
                s is not statement and s.lineno <= statement.lineno <= (s.end_lineno or 0)
                for s in siblings
            )
        )

    def _name(self, node: ast.AST, name: str) -> tuple[str, str] | None:
        if isinstance(node, ast.Attribute) and node.attr == name:
            holds = self._value(node.value)
            if holds is not None and holds.other:
                return receiver.KIND, f"`{ast.unparse(node.value)}` is not a chunk: {holds.why}"
            return None
        if isinstance(node, ast.Name) and node.id == name:
            return self._member(node)
        if isinstance(node, ast.keyword) and node.arg == name:
            return self._keyword(node, name)
        if isinstance(node, ast.arg) and node.arg == name:
            scope = self._function(node)
            if scope is not None and not _name_tables(scope):
                return names.KIND, "a parameter of that name: a local value, not a chunk field"
        return None

    def _member(self, node: ast.Name) -> tuple[str, str] | None:
        statement = self.parents.get(node)
        if not isinstance(statement, ast.AnnAssign | ast.Assign):
            return None
        owner = self.parents.get(statement)
        if not isinstance(owner, ast.ClassDef) or self.parents.get(owner) is not self.tree:
            return None
        qualified = f"{self.symbols.name}.{owner.name}"
        holds = self.oracle.of_class(qualified)
        if not holds.other or self.oracle.is_typed_dict(qualified):
            return None
        return member.KIND, f"a member of class `{owner.name}`: {holds.why}"

    def _keyword(self, node: ast.keyword, name: str) -> tuple[str, str] | None:
        call = self.parents.get(node)
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            return None
        resolved = self.symbols.resolve(call.func.id)
        if len(resolved) != 1 or resolved[0].startswith("builtins."):
            return None
        holds = self.oracle.of_class(resolved[0])
        if not holds.other or self.oracle.is_typed_dict(resolved[0]):
            return None
        if not declares(self.oracle.symbols, resolved[0], name):
            return None
        return class_call.KIND, f"`{call.func.id}` is not a chunk: {holds.why}"

    # --- values ------------------------------------------------------------------------

    def _value(self, value: ast.expr) -> Holds | None:
        """What a plain name holds, when its function shows it (see module docstring)."""
        if not isinstance(value, ast.Name):
            return None
        scope = self._function(value)
        if scope is None or _narrows(scope):
            return None
        bindings = list(_bindings(scope, value.id))
        comprehension = self._comprehension_target(value)
        if comprehension is not None:
            return self._iterated(comprehension, scope)
        if len(bindings) != 1 or not isinstance(bindings[0], ast.arg):
            return self._loop_target(bindings, scope)
        arg = bindings[0]
        if arg.annotation is not None:
            return self.oracle.of_annotation(arg.annotation, self.symbols.resolve)
        owner = self._method_owner(scope, arg)
        if owner is None:
            return None
        return self.oracle.of_class(f"{self.symbols.name}.{owner.name}")

    def _method_owner(self, scope: ast.AST, arg: ast.arg) -> ast.ClassDef | None:
        owner = self.parents.get(scope)
        if (
            not isinstance(scope, FUNCTIONS)
            or not isinstance(owner, ast.ClassDef)
            or self.parents.get(owner) is not self.tree
            or scope.decorator_list
            or not scope.args.args
            or scope.args.args[0] is not arg
        ):
            return None
        return owner

    def _comprehension_target(self, value: ast.Name) -> ast.comprehension | None:
        """The generator of the comprehension around `value` that binds its name."""
        current: ast.AST = value
        while current in self.parents:
            current = self.parents[current]
            if isinstance(current, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
                binding = [
                    g
                    for g in current.generators
                    if isinstance(g.target, ast.Name) and g.target.id == value.id
                ]
                if binding:
                    return (
                        binding[0] if len(binding) == 1 and len(current.generators) == 1 else None
                    )
            if isinstance(current, FUNCTIONS | ast.Lambda | ast.ClassDef):
                return None
        return None

    def _loop_target(self, bindings: list[ast.AST], scope: ast.AST) -> Holds | None:
        if len(bindings) != 1 or not isinstance(bindings[0], ast.For | ast.AsyncFor):
            return None
        if not isinstance(bindings[0].target, ast.Name):
            return None
        return self._iterated(bindings[0], scope)

    def _iterated(
        self, loop: ast.For | ast.AsyncFor | ast.comprehension, scope: ast.AST
    ) -> Holds | None:
        iterable = loop.iter
        if not isinstance(iterable, ast.Name):
            return None
        bound = list(_bindings(scope, iterable.id))
        if len(bound) != 1 or not isinstance(bound[0], ast.arg) or bound[0].annotation is None:
            return None
        return self.oracle.item_of(bound[0].annotation, self.symbols.resolve, iterated=True)

    def _function(self, node: ast.AST) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        current = node
        while current in self.parents:
            current = self.parents[current]
            if isinstance(current, FUNCTIONS):
                return current
            if isinstance(current, ast.Lambda | ast.ClassDef):
                return None
        return None


def _positions(node: ast.AST) -> Iterator[Position]:
    """Where a node's occurrence token starts: a name, an attribute's name, a keyword."""
    if isinstance(node, ast.Attribute) and node.end_lineno is not None:
        end = node.end_col_offset or 0
        yield (node.end_lineno, end - len(node.attr))
    elif isinstance(node, ast.Name | ast.keyword | ast.arg | ast.Constant):
        yield (node.lineno, node.col_offset)


def _bindings(scope: ast.AST, name: str) -> Iterator[ast.AST]:
    """Every place the function binds `name` (nested functions and classes left out;
    comprehensions bind their own names)."""
    arguments = scope.args if isinstance(scope, FUNCTIONS) else None
    if arguments is not None:
        for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
            if arg.arg == name:
                yield arg
        for star in (arguments.vararg, arguments.kwarg):
            if star is not None and star.arg == name:
                yield star
    body = [n for n in ast.iter_child_nodes(scope) if not isinstance(n, ast.arguments)]
    stack = body
    while stack:
        node = stack.pop()
        if isinstance(node, FUNCTIONS | ast.ClassDef | ast.Lambda):
            if getattr(node, "name", None) == name:
                yield node
            continue
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            # Their own targets are theirs; a walrus inside binds in the function.
            yield from (
                n
                for n in ast.walk(node)
                if isinstance(n, ast.NamedExpr) and _targets(n.target, name)
            )
            continue
        if isinstance(node, ast.For | ast.AsyncFor):
            if _targets(node.target, name):
                yield node
            stack.extend([node.iter, *node.body, *node.orelse])
            continue
        if (
            isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load)
        ) or (
            isinstance(
                node, ast.Global | ast.Nonlocal | ast.alias | ast.ExceptHandler | ast.MatchAs
            )
            and name in _bound_by(node)
        ):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _targets(target: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))


def _bound_by(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Global | ast.Nonlocal):
        return set(node.names)
    if isinstance(node, ast.alias):
        return {(node.asname or node.name).split(".")[0]}
    if isinstance(node, ast.ExceptHandler | ast.MatchAs):
        return {node.name} if node.name else set()
    return set()


def _narrows(scope: ast.AST) -> bool:
    """Whether the function holds code that may narrow a name to another type."""
    for node in ast.walk(scope):
        if isinstance(node, NARROWING):
            return True
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id
            in {
                "isinstance",
                "cast",
            }
        ):
            return True
    return False


def _name_tables(scope: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in NAME_TABLES
        for n in ast.walk(scope)
    )


def account_file(
    data: bytes,
    found: Sequence[Occurrence],
    module: str,
    package: str | None,
    bindings: Bindings,
    run_modules: RunModules,
) -> list[Account] | None:
    """Every occurrence's verdict from `ast` alone, or None (the file takes the full
    path): also when it does not parse, which the full path reports."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    symbols = ModuleSymbols.of(module, tree, package)
    oracle = TypeOracle(bindings, run_modules)
    oracle.remember(symbols)
    return FastAccountant(tree, symbols, oracle).account(found, data.splitlines())
