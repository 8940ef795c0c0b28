"""Pre-revision bindings vendored in the run: classes that still declare the participant
IDs the revision took off chunks.

Projects often keep their own copy of the old models (a pydantic model, a dataclass, a
TypedDict, an attrs or plain class) named `SessionMessageChunk`, or tagged
`session_message_chunk` (`session_update: Literal["session_message_chunk"]`), with
`sender_session_id` / `recipient_session_id` fields. Such a class is found by reading
the run's files with `ast` (nothing is imported), reported where it is declared, and
treated as a bindings chunk class for the run, under its own qualified name and under
the names packages re-export it as (`from .models import SessionMessageChunk`, or
`from .models import *` when the star can be resolved within the run).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from acp_schema.migrations.resolution.bindings import (
    CHUNK_CLASS,
    CHUNK_TAG,
    DEFAULT_BINDINGS,
    IDENTITY_FIELDS,
    MESSAGE_CLASS,
    import_source,
    is_generated_bindings,
    statement_names,
)
from acp_schema.migrations.resolution.modules import module_names

IDENTITY_NAMES = frozenset({*IDENTITY_FIELDS, *IDENTITY_FIELDS.values()})
CHUNK_MARKERS = (CHUNK_CLASS.encode(), CHUNK_TAG.encode())
# A line that starts a top-level statement (the end of a class block).
_NEXT_TOP_LEVEL = re.compile(rb"^[^\s#)\]}]", re.MULTILINE)
TAG_FIELDS = frozenset({"session_update", "sessionUpdate"})
HINT = "regenerate or replace with acp_schema.v1/v2"


@dataclass(frozen=True)
class Declaration:
    """One old chunk class found in the run."""

    path: Path
    line: int
    column: int
    module: str
    name: str
    kind: str
    fields: tuple[str, ...]

    @property
    def qualified_name(self) -> str:
        return f"{self.module}.{self.name}"

    def message(self) -> str:
        fields = " and ".join(self.fields)
        return (
            f"{self.kind} `{self.name}` declares {fields}, which chunks no longer have: "
            f"{HINT}; this run treats it as the bindings' SessionMessageChunk"
        )


@dataclass(frozen=True)
class OldBindings:
    """What the run's own files declare: picklable, handed to every file's migration."""

    declarations: tuple[Declaration, ...] = ()
    # (qualified name the code may use, module to take SessionMessage from)
    chunk_classes: tuple[tuple[str, str], ...] = ()
    # Modules that name an old chunk class but define no SessionMessage.
    without_message: tuple[str, ...] = ()
    # The run's own classes with participant-ID fields that are not chunks (look-alikes):
    # reads on them are the application's business, never reported.
    app_classes: tuple[str, ...] = ()
    # Names of module-level constants holding the chunk tag (`CHUNK = "session_message_chunk"`):
    # a file naming one can reach a chunk.
    tag_constants: tuple[str, ...] = ()
    # Names of the run's classes deriving from a chunk class (`class Traced(SessionMessageChunk)`):
    # a file naming one can reach a chunk too.
    chunk_subclasses: tuple[str, ...] = ()
    # Names under which modules of the run re-export the bindings' own chunk (facades).
    facades: tuple[str, ...] = ()


class Parsed(NamedTuple):
    """A module of the run read with `ast`, and the package its relative imports start from."""

    tree: ast.Module
    package: str | None


def find_old_bindings(
    files: Sequence[tuple[Path, bytes]], bindings: Sequence[str] = DEFAULT_BINDINGS
) -> OldBindings:
    """Declarations of old chunk classes in `files`, their re-exports, and the run's own
    look-alike classes.

    Only files that may declare a class with participant-ID fields are parsed first
    (they contain `class` and a field name); then, when there are declarations, the files
    that may re-export them (naming the class or the declaring module's last name in an
    import)."""
    modules: dict[str, Parsed] = {}
    declarations: list[Declaration] = []
    app_classes: set[str] = set()
    candidates = [
        (path, data)
        for path, data in files
        if b"class" in data and any(name.encode() in data for name in IDENTITY_NAMES)
    ]
    for path, data in _worth_parsing(candidates, files):
        if b"class" in data and any(name.encode() in data for name in IDENTITY_NAMES):
            entries = _parse_generated(path, data) if is_generated_bindings(data) else None
            entries = entries if entries is not None else _parse(path, data)
            if not entries:
                continue
            name, parsed = entries[0]
            modules.update(entries)
            found = list(_declarations(path, name, parsed.tree))
            declarations.extend(found)
            chunks = {d.name for d in found}
            app_classes.update(
                f"{alias}.{node.name}"
                for alias, _ in entries
                for node in parsed.tree.body
                if isinstance(node, ast.ClassDef)
                and node.name not in chunks
                and _fields(node) & IDENTITY_NAMES
            )
    # Modules of the run that re-export the bindings' chunk (facades, also by star
    # import and through other facades) are followed too: their chunk is the chunk.
    facade_markers = (b"import *", CHUNK_CLASS.encode(), *(b.encode() for b in bindings))
    facade_files = [
        (p, d) for p, d in files if b"import" in d and any(m in d for m in facade_markers)
    ]
    if not declarations and not facade_files:
        return OldBindings(app_classes=tuple(sorted(app_classes)))
    markers = {d.name.encode() for d in declarations}
    markers |= {d.module.rpartition(".")[2].encode() for d in declarations}
    for path, data in files:
        if b"import" in data and any(m in data for m in markers):
            for entry in _parse(path, data):
                modules.setdefault(*entry)
    for path, data in facade_files:
        if not is_generated_bindings(data):
            for entry in _parse(path, data):
                modules.setdefault(*entry)
    exported = _exports(modules, declarations, bindings)
    chunk_classes = sorted((name, module) for name, (module, _) in exported.items())
    facades = sorted(name for name, (_, origin) in exported.items() if origin is None)
    without = sorted(
        {
            module
            for _, module in chunk_classes
            if MESSAGE_CLASS not in _names_with_stars(modules, module, bindings)
        }
    )
    if not declarations and not chunk_classes:
        return OldBindings(app_classes=tuple(sorted(app_classes)))
    return OldBindings(
        tuple(declarations),
        tuple(chunk_classes),
        tuple(without),
        tuple(sorted(app_classes)),
        facades=tuple(facades),
    )


def reach_names(
    files: Sequence[tuple[Path, bytes]], chunk_names: Iterable[str] = ()
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """(module-level names bound to the chunk tag, names of classes deriving from a chunk
    class, names of the run's classes whose instances may carry a chunk's data: the other
    bases of those classes and their bases, and classes serialised field by field where a
    chunk payload is built) in `files`: a file naming either of the first two can reach a
    chunk. Only files holding the tag or a chunk class name are read, with `ast`."""
    constants: set[str] = set()
    subclasses: set[str] = set()
    chunk_classes = {CHUNK_CLASS, *chunk_names}
    markers = (CHUNK_TAG.encode(), *(n.encode() for n in chunk_classes))
    trees = []
    for _, data in files:
        if not any(m in data for m in markers) or is_generated_bindings(data):
            continue
        try:
            trees.append(ast.parse(data))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
    for tree in trees:
        for statement in tree.body:
            targets: list[ast.expr]
            value: ast.expr | None
            if isinstance(statement, ast.Assign):
                targets, value = statement.targets, statement.value
            elif isinstance(statement, ast.AnnAssign):
                targets, value = [statement.target], statement.value
            else:
                continue
            if isinstance(value, ast.Constant) and value.value == CHUNK_TAG:
                constants.update(t.id for t in targets if isinstance(t, ast.Name))
    # Subclasses of subclasses too, until nothing new appears (by name: a reach test).
    classes = [n for tree in trees for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    changed = True
    while changed:
        changed = False
        for node in classes:
            known = subclasses | chunk_classes
            if node.name not in known and any(_last_name(b) in known for b in node.bases):
                subclasses.add(node.name)
                changed = True
    # The other bases of those classes, and their bases in turn: their methods may get a
    # chunk as `self` (`class MyChunk(Who, SessionMessageChunk)`: `Who.who(self)`).
    known = subclasses | chunk_classes
    by_name = {node.name: node for node in classes}
    pending = [
        name
        for node in classes
        if node.name in subclasses
        for name in (_last_name(b) for b in node.bases)
        if name is not None and name not in known
    ]
    mixins: set[str] = set()
    while pending:
        name = pending.pop()
        if name in mixins:
            continue
        mixins.add(name)
        if name in by_name:
            pending.extend(n for b in by_name[name].bases if (n := _last_name(b)) is not None)
    # Classes serialised field by field where a chunk payload is built: their fields may
    # become the chunk's keys (`for f in fields(d): wire[camel(f.name)] = ...`).
    mixins |= _serialised_near_chunks(trees, chunk_classes)
    return tuple(sorted(constants)), tuple(sorted(subclasses)), tuple(sorted(mixins))


# Calls that turn any object's fields into names or keys.
_GENERIC_SERIALISERS = frozenset(
    {"fields", "asdict", "astuple", "vars", "_asdict", "model_dump", "dict", "__dict__"}
)


def _serialised_near_chunks(trees: Sequence[ast.Module], chunk_classes: set[str]) -> set[str]:
    """Capitalised names used in a function that names the chunk tag or a chunk class
    and serialises some object field by field (`fields(d)`, `asdict(d)`, `vars(d)`,
    `d.__dict__`, `d.model_dump()`): such a class's fields may become a chunk's keys."""
    found: set[str] = set()
    for tree in trees:
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            nodes = list(ast.walk(function))
            names_chunk = any(
                (isinstance(n, ast.Constant) and n.value == CHUNK_TAG)
                or (isinstance(n, ast.Name) and n.id in chunk_classes)
                for n in nodes
            )
            serialises = any(
                (isinstance(n, ast.Call) and _last_name(n.func) in _GENERIC_SERIALISERS)
                or (isinstance(n, ast.Attribute) and n.attr == "__dict__")
                for n in nodes
            )
            if names_chunk and serialises:
                found.update(
                    n.id
                    for n in nodes
                    if isinstance(n, ast.Name) and n.id[:1].isupper() and n.id not in chunk_classes
                )
    return found


def _worth_parsing(
    candidates: Sequence[tuple[Path, bytes]], files: Sequence[tuple[Path, bytes]]
) -> list[tuple[Path, bytes]]:
    """The candidates that can matter: those that may declare a chunk (they name its
    class or tag), and those that only have look-alike classes when a file that can
    reach a chunk names their module (only such files' reads need them)."""
    declaring = [(p, d) for p, d in candidates if any(t in d for t in CHUNK_MARKERS)]
    others = [(p, d) for p, d in candidates if not any(t in d for t in CHUNK_MARKERS)]
    if not others:
        return declaring
    reaching = [d for _, d in files if any(t in d for t in (*CHUNK_MARKERS, b"import *"))]
    named = [(p, d) for p, d in others if any(_last_part(p).encode() in r for r in reaching)]
    return declaring + named


def _last_part(path: Path) -> str:
    return path.parent.name if path.stem == "__init__" else path.stem


def _parse_generated(path: Path, data: bytes) -> list[tuple[str, Parsed]] | None:
    """Generated bindings are not parsed whole (two of them are 10k lines): only their
    `SessionMessageChunk` class, which declares the participant IDs in old ones. None
    when the class is not found where the generator puts it (then the whole file is)."""
    start = data.find(b"\nclass SessionMessageChunk(")
    if start < 0:
        return []
    start += 1
    found = _NEXT_TOP_LEVEL.search(data, data.find(b"\n", start) + 1)
    block = data[start : found.start() if found else len(data)]
    try:
        tree = ast.parse(block)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    ast.increment_lineno(tree, data.count(b"\n", 0, start))
    names = module_names(path)
    if names.name is None:
        return []
    return [(name, Parsed(tree, names.package_of(name))) for name, _ in names.names]


def _parse(path: Path, data: bytes) -> list[tuple[str, Parsed]]:
    """The module under each name it can be imported as (primary first)."""
    names = module_names(path)
    if names.name is None:
        return []
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []  # the migration reports the files it cannot parse
    return [(name, Parsed(tree, names.package_of(name))) for name, _ in names.names]


def _declarations(path: Path, module: str, tree: ast.Module) -> Iterable[Declaration]:
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        fields = _fields(node)
        identity = tuple(sorted(f for f in fields if f in IDENTITY_NAMES))
        if not identity:
            continue
        if node.name != CHUNK_CLASS and not _tagged(node):
            continue
        yield Declaration(
            path, node.lineno, node.col_offset, module, node.name, _kind(node), identity
        )


def _fields(node: ast.ClassDef) -> set[str]:
    """Field names: annotated or assigned class attributes, and `self.x = ...` in
    `__init__` (plain classes)."""
    found: set[str] = set()
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            found.add(statement.target.id)
        elif isinstance(statement, ast.Assign):
            found.update(t.id for t in statement.targets if isinstance(t, ast.Name))
        elif isinstance(statement, ast.FunctionDef) and statement.name == "__init__":
            for inner in ast.walk(statement):
                targets = (
                    inner.targets
                    if isinstance(inner, ast.Assign)
                    else [inner.target]
                    if isinstance(inner, ast.AnnAssign)
                    else []
                )
                for target in targets:
                    if (
                        isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                    ):
                        found.add(target.attr)
    return found


def _tagged(node: ast.ClassDef) -> bool:
    """A `session_update` field whose annotation or default names the chunk tag."""
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            target, parts = statement.target.id, [statement.annotation, statement.value]
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            first = statement.targets[0]
            if not isinstance(first, ast.Name):
                continue
            target, parts = first.id, [statement.value]
        else:
            continue
        if target in TAG_FIELDS and any(
            isinstance(n, ast.Constant) and n.value == CHUNK_TAG
            for part in parts
            if part is not None
            for n in ast.walk(part)
        ):
            return True
    return False


def _last_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _kind(node: ast.ClassDef) -> str:
    bases = {_last_name(b) for b in node.bases}
    decorators = {_last_name(d) for d in node.decorator_list}
    if bases & {"BaseModel", "RootModel"}:
        return "pydantic model"
    if "TypedDict" in bases:
        return "TypedDict"
    if "dataclass" in decorators:
        return "dataclass"
    if decorators & {"s", "attrs", "define", "frozen", "mutable"}:
        return "attrs class"
    return "class"


def _exports(
    modules: dict[str, Parsed], declarations: Sequence[Declaration], bindings: Sequence[str]
) -> dict[str, tuple[str, str | None]]:
    """Qualified name -> (module, declaring qualified name, None for the bindings' own
    chunk) of every name under which an old chunk class, or the bindings' chunk through a
    module of the run, can be imported: declarations and re-exports (followed until
    nothing new appears). The bindings modules themselves are not listed."""
    # module -> {exported name: declaring qualified name ("" for the bindings' chunk)}
    chunk_names: dict[str, dict[str, str]] = {b: {CHUNK_CLASS: ""} for b in bindings}
    for declaration in declarations:
        for name, _ in module_names(declaration.path).names:
            chunk_names.setdefault(name, {})[declaration.name] = declaration.qualified_name
    changed = True
    rounds = 0
    while changed and rounds < 20:
        changed, rounds = False, rounds + 1
        for module, (tree, package) in modules.items():
            for node in tree.body:
                if not isinstance(node, ast.ImportFrom):
                    continue
                source = import_source(node, package)
                found = chunk_names.get(source or "")
                if not found:
                    continue
                own = chunk_names.setdefault(module, {})
                for alias in node.names:
                    if alias.name == "*":
                        public = _star_names(modules, source or "", found, bindings)
                        new = {n: q for n, q in public.items() if n not in own}
                    elif alias.name in found and (alias.asname or alias.name) not in own:
                        new = {alias.asname or alias.name: found[alias.name]}
                    else:
                        continue
                    if new:
                        own.update(new)
                        changed = True
    return {
        f"{module}.{name}": (module, origin or None)
        for module, names in chunk_names.items()
        if module not in bindings
        for name, origin in names.items()
    }


def _star_names(
    modules: dict[str, Parsed], source: str, found: dict[str, str], bindings: Sequence[str]
) -> dict[str, str]:
    """The chunk names `from source import *` brings: `__all__` when it is a literal
    list, else the names without a leading underscore; a bindings module exports its
    chunk."""
    entry = modules.get(source)
    if entry is None:
        return dict(found) if source in bindings else {}
    listed = _literal_all(entry.tree)
    if listed is None:
        return {n: q for n, q in found.items() if not n.startswith("_")}
    return {n: q for n, q in found.items() if n in listed}


def _literal_all(tree: ast.Module) -> set[str] | None:
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
            and isinstance(node.value, ast.List | ast.Tuple)
        ):
            return {
                e.value
                for e in node.value.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            }
    return None


def _names_with_stars(
    modules: dict[str, Parsed], module: str, bindings: Sequence[str] = (), depth: int = 0
) -> set[str]:
    """Top-level names of `module`, with those its star imports bring from modules of
    the run (followed through facades) and from the bindings (their chunk and message)."""
    entry = modules.get(module)
    if entry is None:
        return {CHUNK_CLASS, MESSAGE_CLASS} if module in bindings else set()
    tree, package = entry
    names = _top_level_names(tree)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            source = import_source(node, package) or ""
            if depth >= 20:
                continue
            star = modules.get(source)
            found = _names_with_stars(modules, source, bindings, depth + 1)
            listed = _literal_all(star.tree) if star is not None else None
            names |= found if listed is None else found & listed
    return names


def _top_level_names(tree: ast.Module) -> set[str]:
    return {name for node in tree.body for name in statement_names(node)}
