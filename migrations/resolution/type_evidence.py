"""Can a value of this type be a chunk? Answered from annotations and class definitions,
read with `ast` from the run's modules and the installed bindings (`module_symbols`).

The answer is a `Holds`: `chunk` (it is, or may be: a union such as the bindings'
`SessionUpdate` that has the chunk among its members), `other` with the evidence that
it never is, or `unknown`. Only what the code states counts:

- a class is `other` when it is not a chunk class of the bindings (or an old one of the
  run) and every base is `other`: classes of the run (followed through their modules'
  imports), other bindings classes, builtins, standard-library classes, pydantic,
  msgspec and attrs bases; a `typing.Protocol` is `unknown` (any object with the
  attributes fits it, a chunk too), and so is a base from a package outside the run;
- a type expression is `other` when every member is: `X | Y`, `Optional`, `Union`,
  `Annotated`, `ClassVar`, `Final`, quoted annotations, `Literal[...]` and `None`,
  containers (`dict[str, X]` is a dict; its items are asked for with `item_of`);
  `Any`, `object`, type variables and callables are `unknown`.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

import libcst as cst

from acp_schema.migrations.resolution.bindings import (
    CHUNK_CLASS,
    CHUNK_TAG,
    WIRE_TO_FIELD,
    Bindings,
)
from acp_schema.migrations.resolution.module_symbols import (
    ModuleSymbols,
    RunModules,
    definition,
    installed_symbols,
)

Kind = Literal["chunk", "other", "unknown"]
Resolve = Callable[[str], list[str]]
MAX_DEPTH = 12


@dataclass(frozen=True)
class Holds:
    kind: Kind
    why: str = ""

    @property
    def other(self) -> bool:
        return self.kind == "other"


UNKNOWN = Holds("unknown")


def join(items: Iterable[Holds]) -> Holds:
    """What a union of these may hold: a chunk if any may, unknown if any is."""
    found = list(items)
    if not found:
        return UNKNOWN
    for kind in ("chunk", "unknown"):
        for item in found:
            if item.kind == kind:
                return item
    reasons = list(dict.fromkeys(item.why for item in found if item.why))
    return Holds("other", "; ".join(reasons))


# Wrappers whose first argument is the type (`Annotated[X, ...]`, `Final[X]`).
WRAPPERS = frozenset(
    {"Annotated", "ClassVar", "Final", "Required", "NotRequired", "ReadOnly", "InitVar"}
)
UNIONS = frozenset({"Union", "Optional"})
# Names that say nothing about what a value is not.
OPEN_TYPES = frozenset(
    {
        "builtins.object",
        "typing.Any",
        "typing_extensions.Any",
        "typing.Protocol",
        "typing_extensions.Protocol",
        "typing.Callable",
        "collections.abc.Callable",
        "typing.Self",
        "typing_extensions.Self",
        "typing.Hashable",
        "collections.abc.Hashable",
        "typing.Iterable",
        "collections.abc.Iterable",
        "typing.Iterator",
        "collections.abc.Iterator",
        "typing.Collection",
        "collections.abc.Collection",
        "typing.Container",
        "collections.abc.Container",
        "typing.Sized",
        "collections.abc.Sized",
        "typing.Reversible",
        "collections.abc.Reversible",
        "typing.Awaitable",
        "collections.abc.Awaitable",
        "typing.TypeVar",
        "typing.NewType",
    }
)
# Containers: a value of such a type is the container, never a chunk; `ITEM_LAST`
# containers' items are their last type argument, the others' their first.
CONTAINERS = frozenset(
    {
        "dict",
        "Dict",
        "Mapping",
        "MutableMapping",
        "defaultdict",
        "DefaultDict",
        "OrderedDict",
        "ChainMap",
        "Counter",
        "list",
        "List",
        "Sequence",
        "MutableSequence",
        "set",
        "Set",
        "AbstractSet",
        "MutableSet",
        "frozenset",
        "FrozenSet",
        "tuple",
        "Tuple",
        "deque",
        "Deque",
    }
)
MAPPINGS = frozenset(
    {
        "dict",
        "Dict",
        "Mapping",
        "MutableMapping",
        "defaultdict",
        "DefaultDict",
        "OrderedDict",
        "ChainMap",
    }
)
ITERABLES = frozenset({"Iterable", "Iterator", "Collection", "AsyncIterable", "AsyncIterator"})
LIBRARY_BASES = frozenset(
    {
        "pydantic.BaseModel",
        "pydantic.main.BaseModel",
        "pydantic.RootModel",
        "msgspec.Struct",
        "typing.NamedTuple",
        "typing.Generic",
        "typing_extensions.NamedTuple",
        "typing_extensions.Generic",
        "abc.ABC",
        "enum.Enum",
        "enum.IntEnum",
        "enum.StrEnum",
    }
)
TYPED_DICT = frozenset({"typing.TypedDict", "typing_extensions.TypedDict"})
PROTOCOLS = frozenset({"typing.Protocol", "typing_extensions.Protocol"})
# Standard-library modules whose names are abstract or structural (see OPEN_TYPES).
STRUCTURAL_MODULES = frozenset({"typing", "typing_extensions", "abc", "numbers", "types"})


class TypeOracle:
    """Answers for the classes and type expressions of one run (see module docstring)."""

    def __init__(
        self, bindings: Bindings, run: RunModules | None = None, *, any_binding: bool = False
    ) -> None:
        self.bindings = bindings
        # Asked whether a value may be any class of the bindings (`--impact`), not only
        # the chunk: every bindings class then counts as "chunk" (may be one).
        self.any_binding = any_binding
        self.run = run or RunModules()
        self._classes: dict[str, Holds] = {}
        # The module being migrated, read with `ast` only when a name of it is asked for.
        self.extra_source: dict[str, tuple[cst.Module, str | None]] = {}
        self._extra: dict[str, ModuleSymbols] = {}

    def remember(self, symbols: ModuleSymbols) -> None:
        """The module being migrated, already read with `ast`."""
        self._extra[symbols.name] = symbols

    def symbols(self, module: str) -> ModuleSymbols | None:
        if module in self._extra:
            return self._extra[module]
        if module in self.extra_source:
            if module not in self._extra:
                tree, package = self.extra_source[module]
                self._extra[module] = ModuleSymbols.of(module, _ast_of(tree.code), package)
            return self._extra[module]
        found = self.run.symbols(module)
        if found is None and (self.bindings.owner(module) or _own_runtime(module)):
            found = installed_symbols(module)
        return found

    # --- classes -------------------------------------------------------------------------

    def of_class(self, qualified: str, depth: int = 0) -> Holds:
        """Whether an instance of what `qualified` names may be a chunk."""
        cached = self._classes.get(qualified)
        if cached is not None:
            return cached
        self._classes[qualified] = UNKNOWN  # a cycle of bases proves nothing
        found = self._of_class(qualified, depth)
        self._classes[qualified] = found
        return found

    def _of_class(self, qualified: str, depth: int) -> Holds:
        if self.bindings.class_module(qualified, CHUNK_CLASS) is not None:
            return Holds("chunk", f"`{qualified}` is the chunk class")
        if self.any_binding and self.bindings.owner(qualified.rpartition(".")[0]) is not None:
            return Holds("chunk", f"`{qualified}` is a bindings class")
        if qualified in OPEN_TYPES or depth > MAX_DEPTH:
            return UNKNOWN
        if qualified.startswith("builtins."):
            return Holds("other", f"`{qualified[9:]}` is a builtin")
        if qualified in LIBRARY_BASES:
            return Holds("other", f"`{qualified}` is a library base class")
        found = definition(self.symbols, qualified)
        if found is None:
            return self._outside(qualified)
        node, symbols = found.node, found.symbols
        if isinstance(node, ast.ClassDef):
            return self._class(node, symbols, depth)
        value = _alias_value(node)
        if value is not None:  # `Update = SessionMessageChunk | SessionMessage`
            return self.of_annotation(value, symbols.resolve, depth + 1)
        return UNKNOWN

    def _outside(self, qualified: str) -> Holds:
        module = qualified.rpartition(".")[0]
        top = module.partition(".")[0]
        if self.bindings.owner(module) is not None:
            return UNKNOWN  # a name the bindings' source does not define plainly
        if (
            top in sys.stdlib_module_names
            and top not in STRUCTURAL_MODULES
            and qualified not in OPEN_TYPES
            and module != "collections.abc"
        ):
            return Holds("other", f"`{qualified}` is a standard-library type")
        return UNKNOWN

    def _class(self, node: ast.ClassDef, symbols: ModuleSymbols, depth: int) -> Holds:
        name = f"{symbols.name}.{node.name}"
        if self.bindings.owner(symbols.name) is not None:
            if node.name == CHUNK_CLASS or self.any_binding:
                return Holds("chunk", f"`{name}` is the chunk class or a bindings class")
            return Holds("other", f"`{node.name}` is a bindings class, not the chunk")
        if node.name == CHUNK_CLASS or _tagged_chunk(node):
            return Holds("chunk", f"`{name}` is named or tagged as the chunk")
        opening = _opening(node)
        if opening is not None:
            return Holds("unknown", f"`{node.name}` {opening}")
        if node.name in self.run.chunk_mixins:
            return Holds(
                "unknown",
                f"`{node.name}` is, by name, a base of a class of the run deriving from the "
                "chunk, or serialised field by field where a chunk payload is built",
            )
        reasons = []
        for base in node.bases:
            base_name = _dotted(base.value if isinstance(base, ast.Subscript) else base)
            if base_name is None:
                return UNKNOWN
            qualified = symbols.resolve(base_name)
            if any(q in PROTOCOLS for q in qualified):
                return Holds("unknown", f"`{node.name}` is a Protocol")
            if any(q in TYPED_DICT for q in qualified):
                reasons.append(Holds("other", f"`{node.name}` is a TypedDict (a dict)"))
                continue
            reasons.append(join(self.of_class(q, depth + 1) for q in qualified))
        if not node.bases:
            return Holds("other", f"`{node.name}` is a class of the run with no base")
        found = join(reasons)
        if found.other:
            return Holds("other", f"`{node.name}` is a class of the run, not a chunk")
        return found

    def is_protocol(self, qualified: str) -> bool:
        """A class that lists `typing.Protocol` among its bases (it is never
        instantiated; values typed with it may be anything that fits, chunks too)."""
        found = definition(self.symbols, qualified)
        if found is None or not isinstance(found.node, ast.ClassDef):
            return False
        return any(
            q in PROTOCOLS
            for base in found.node.bases
            for name in [_dotted(base.value if isinstance(base, ast.Subscript) else base)]
            if name is not None
            for q in found.symbols.resolve(name)
        )

    def is_typed_dict(self, qualified: str) -> bool:
        found = definition(self.symbols, qualified)
        if found is None or not isinstance(found.node, ast.ClassDef):
            return False
        return any(
            q in TYPED_DICT or self.is_typed_dict(q)
            for base in found.node.bases
            for name in [_dotted(base)]
            if name is not None
            for q in found.symbols.resolve(name)
        )

    # --- type expressions ----------------------------------------------------------------

    def of_annotation(self, expr: ast.expr, resolve: Resolve, depth: int = 0) -> Holds:
        """Whether a value annotated `expr` may be a chunk."""
        if depth > MAX_DEPTH:
            return UNKNOWN
        if isinstance(expr, ast.Constant):
            if expr.value is None:
                return Holds("other", "None")
            if isinstance(expr.value, str):  # a quoted annotation
                parsed = _parse_annotation(expr.value)
                return UNKNOWN if parsed is None else self.of_annotation(parsed, resolve, depth + 1)
            return UNKNOWN
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            return join(
                self.of_annotation(side, resolve, depth + 1) for side in (expr.left, expr.right)
            )
        if isinstance(expr, ast.Subscript):
            return self._subscript(expr, resolve, depth)
        dotted = _dotted(expr)
        if dotted is None:
            return UNKNOWN
        qualified = resolve(dotted)
        if not qualified:
            return UNKNOWN
        return join(self._named(q, depth) for q in qualified)

    def _named(self, qualified: str, depth: int) -> Holds:
        last = qualified.rpartition(".")[2]
        if last in CONTAINERS and _typing_or_builtin(qualified):
            return Holds("other", f"a `{last}`")
        return self.of_class(qualified, depth + 1)

    def _subscript(self, expr: ast.Subscript, resolve: Resolve, depth: int) -> Holds:
        head = _dotted(expr.value)
        qualified = resolve(head) if head else []
        last = {q.rpartition(".")[2] for q in qualified if _typing_or_builtin(q)}
        arguments = _arguments(expr)
        if last & UNIONS:
            members = [*arguments, ast.Constant(None)] if "Optional" in last else arguments
            return join(self.of_annotation(a, resolve, depth + 1) for a in members)
        if last & WRAPPERS and arguments:
            return self.of_annotation(arguments[0], resolve, depth + 1)
        if "Literal" in last:
            return Holds("other", "a literal value")
        if last & {"type", "Type"}:
            return Holds("other", "a class object, not an instance")
        if not qualified:
            return UNKNOWN
        return join(self._named(q, depth) for q in qualified)  # `Box[T]` is a Box

    def item_of(self, expr: ast.expr, resolve: Resolve, *, iterated: bool = False) -> Holds:
        """What an item of a container annotated `expr` may be: `c[k]` (or, `iterated`,
        `for x in c`). `Optional[...]` and unions of containers are looked through."""
        members = self._members(expr, resolve, 0)
        if members is None:
            return UNKNOWN
        found = []
        for member in members:
            if isinstance(member, ast.Constant) and member.value is None:
                continue
            if not isinstance(member, ast.Subscript):
                return UNKNOWN
            head = _dotted(member.value)
            names = {q.rpartition(".")[2] for q in (resolve(head) if head else [])}
            arguments = _arguments(member)
            if not arguments or not names or not names <= CONTAINERS | ITERABLES:
                return UNKNOWN
            if names & {"tuple", "Tuple"}:
                found += [self.of_annotation(a, resolve) for a in arguments if _not_ellipsis(a)]
                continue
            key_first = iterated or not names & MAPPINGS
            chosen = arguments[0] if key_first else arguments[-1]
            found.append(self.of_annotation(chosen, resolve))
        return join(found)

    def _members(self, expr: ast.expr, resolve: Resolve, depth: int) -> list[ast.expr] | None:
        if depth > MAX_DEPTH:
            return None
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            parsed = _parse_annotation(expr.value)
            return None if parsed is None else self._members(parsed, resolve, depth + 1)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            left = self._members(expr.left, resolve, depth + 1)
            right = self._members(expr.right, resolve, depth + 1)
            return None if left is None or right is None else left + right
        if isinstance(expr, ast.Subscript):
            head = _dotted(expr.value)
            last = {q.rpartition(".")[2] for q in (resolve(head) if head else [])}
            if last & UNIONS:
                found: list[ast.expr] = []
                for argument in _arguments(expr):
                    inner = self._members(argument, resolve, depth + 1)
                    if inner is None:
                        return None
                    found += inner
                return found
            if last & WRAPPERS and _arguments(expr):
                return self._members(_arguments(expr)[0], resolve, depth + 1)
        return [expr]


def _own_runtime(module: str) -> bool:
    """This package's runtime (`acp_schema.transcripts`: `TranscriptStore.entry(...)` is
    where migrated code reads participants), read from its installed source."""
    return module == "acp_schema" or module.startswith("acp_schema.")


def _tagged_chunk(node: ast.ClassDef) -> bool:
    """A class whose body names the chunk tag anywhere (a tag field, an aliased one,
    a default): it may be serialised as a chunk payload."""
    return any(isinstance(n, ast.Constant) and n.value == CHUNK_TAG for n in ast.walk(node))


def _typing_or_builtin(qualified: str) -> bool:
    module = qualified.rpartition(".")[0]
    return module in {"builtins", "typing", "typing_extensions", "collections", "collections.abc"}


def _not_ellipsis(node: ast.expr) -> bool:
    return not (isinstance(node, ast.Constant) and node.value is Ellipsis)


def _arguments(expr: ast.Subscript) -> list[ast.expr]:
    inner = expr.slice
    return list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _alias_value(node: ast.stmt) -> ast.expr | None:
    """The aliased type of `X = A | B`, `X: TypeAlias = ...`, `X = TypeAliasType("X", ...)`
    or `type X = ...`."""
    value: ast.expr | None = None
    if isinstance(node, ast.Assign | ast.AnnAssign):
        value = node.value
    type_alias = getattr(ast, "TypeAlias", None)
    if type_alias is not None and isinstance(node, type_alias):
        value = node.value
    if isinstance(value, ast.Call) and _dotted(value.func) in {
        "TypeAliasType",
        "typing.TypeAliasType",
        "typing_extensions.TypeAliasType",
    }:
        value = value.args[1] if len(value.args) > 1 else None
    if isinstance(value, ast.Name | ast.Attribute | ast.Subscript | ast.BinOp):
        return value
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value
    return None


def _ast_of(source: str) -> ast.Module:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ast.Module(body=[], type_ignores=[])


def _parse_annotation(text: str) -> ast.expr | None:
    try:
        return ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


# --- classes whose instances may carry a chunk's data ----------------------------------

_FORWARDERS = frozenset({"__getattr__", "__getattribute__"})
_OPEN_CONFIG = {"extra": "allow", "from_attributes": True, "orm_mode": True}


def _opening(node: ast.ClassDef) -> str | None:
    """Why instances of a class of the run may hold a chunk's data whatever its bases
    say: it forwards attribute reads (`__getattr__`, a proxy of the chunk), its pydantic
    config keeps unknown keys or reads attributes (`extra="allow"`, `from_attributes`),
    or it declares a field under a chunk's wire key (`senderSessionId`: validated from
    a chunk's payload). None when none of these holds."""
    for keyword in node.keywords:
        if _open_setting(keyword.arg, keyword.value):
            return f"is configured with `{keyword.arg}` (it may be built from a chunk)"
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            if statement.name in _FORWARDERS:
                return f"forwards attribute reads (`{statement.name}`), maybe to a chunk"
        elif isinstance(statement, ast.ClassDef) and statement.name == "Config":
            for inner in statement.body:
                if isinstance(inner, ast.Assign) and any(
                    isinstance(t, ast.Name) and _open_setting(t.id, inner.value)
                    for t in inner.targets
                ):
                    return "is configured to take unknown keys or attributes (`Config`)"
        else:
            target, value = _binding(statement)
            if target == "model_config" and value is not None and _open_config(value):
                return "is configured to take unknown keys or attributes (`model_config`)"
            if target in WIRE_TO_FIELD:
                return f"declares the chunk's wire key `{target}` (it may be validated from one)"
    return None


def _binding(statement: ast.stmt) -> tuple[str | None, ast.expr | None]:
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return statement.target.id, statement.value
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        return statement.targets[0].id, statement.value
    return None, None


def _open_config(value: ast.expr) -> bool:
    """`ConfigDict(extra="allow")`, `{"from_attributes": True}` and the like."""
    if isinstance(value, ast.Call):
        return any(_open_setting(k.arg, k.value) for k in value.keywords)
    if isinstance(value, ast.Dict):
        return any(
            isinstance(k, ast.Constant) and isinstance(k.value, str) and _open_setting(k.value, v)
            for k, v in zip(value.keys, value.values, strict=True)
        )
    return False


def _open_setting(name: str | None, value: ast.expr) -> bool:
    if name not in _OPEN_CONFIG:
        return False
    if isinstance(value, ast.Constant):
        return bool(value.value == _OPEN_CONFIG[name])
    return True  # a value the code does not show: it may be the open one
