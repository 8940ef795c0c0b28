"""Which modules count as the ACP bindings, and what the installed ones define.

Classes are recognised by qualified name only: `SessionMessageChunk` counts when it
resolves to `<bindings module>.SessionMessageChunk` (or a submodule of a bindings
module, as `acp.schema.SessionMessageChunk` for the `acp` package), never by its bare
name, so a project's own class of that name is left alone.
"""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

DEFAULT_BINDINGS = ("acp_schema.v1", "acp_schema.v2")

CHUNK_CLASS = "SessionMessageChunk"
MESSAGE_CLASS = "SessionMessage"
CHUNK_TAG = "session_message_chunk"
MESSAGE_TAG = "session_message"

# Field name -> wire name of the participant IDs that left the chunk.
IDENTITY_FIELDS: dict[str, str] = {
    "sender_session_id": "senderSessionId",
    "recipient_session_id": "recipientSessionId",
}
WIRE_TO_FIELD: dict[str, str] = {wire: field for field, wire in IDENTITY_FIELDS.items()}
IDENTITY_BUILDERS: dict[str, str] = {f"with_{field}": field for field in IDENTITY_FIELDS}

# Strings without which a file cannot contain anything the chunk-identity rules act on.
TRIGGERS: tuple[str, ...] = (
    CHUNK_CLASS,
    CHUNK_TAG,
    *IDENTITY_FIELDS,
    *IDENTITY_FIELDS.values(),
)

# Names the 2.1.0 bindings renamed, for the hint of the import rule.
KNOWN_RENAMES: dict[str, str] = {
    "AuthCapabilities": "ClientAuthCapabilities",
    "RequestPermissionOutcomeCancelled": "CancelledPermissionOutcome",
}


@dataclass(frozen=True)
class Bindings:
    """The modules whose `SessionMessageChunk` is the ACP chunk, and the old chunk classes
    found in the run's own files (see `old_bindings`)."""

    modules: tuple[str, ...] = DEFAULT_BINDINGS
    # Qualified names of old chunk classes declared (or re-exported) in the run, each
    # with the module the code imports it from (where SessionMessage is looked for).
    chunk_classes: tuple[tuple[str, str], ...] = ()
    # Modules of `chunk_classes` that define no SessionMessage to send an upsert with.
    without_message: frozenset[str] = frozenset()
    # The run's own classes with participant-ID fields that are not chunks.
    app_classes: frozenset[str] = frozenset()

    @classmethod
    def with_extra(
        cls,
        extra: Iterable[str],
        chunk_classes: Iterable[tuple[str, str]] = (),
        without_message: Iterable[str] = (),
        app_classes: Iterable[str] = (),
    ) -> Bindings:
        modules = list(DEFAULT_BINDINGS)
        modules.extend(m for m in extra if m not in modules)
        return cls(
            tuple(modules),
            tuple(chunk_classes),
            frozenset(without_message),
            frozenset(app_classes),
        )

    def has_message(self, module: str) -> bool:
        """Whether an upsert can take SessionMessage from `module`."""
        return module not in self.without_message

    def old_chunk_module(self, qualified_name: str) -> str | None:
        for name, module in self.chunk_classes:
            if name == qualified_name:
                return module
        return None

    def owner(self, module: str) -> str | None:
        """The configured bindings module that `module` is, or is a submodule of."""
        for candidate in self.modules:
            if module == candidate or module.startswith(f"{candidate}."):
                return candidate
        return None

    def class_module(self, qualified_name: str, class_name: str) -> str | None:
        """The module of `qualified_name` when it names `class_name` of the bindings."""
        if class_name == CHUNK_CLASS:
            old = self.old_chunk_module(qualified_name)
            if old is not None:
                return old
        module, _, name = qualified_name.rpartition(".")
        if name != class_name or not module:
            return None
        return module if self.owner(module) is not None else None


@cache
def defined_names(module: str) -> frozenset[str] | None:
    """Top-level names the installed `module` defines, read from its source without
    running it; None when the module is not installed or has no Python source."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return None
    names: set[str] = set()
    if spec.submodule_search_locations:  # a package also exports its submodules
        for location in spec.submodule_search_locations:
            names.update(p.stem for p in Path(location).glob("*.py"))
            names.update(p.name for p in Path(location).iterdir() if p.is_dir())
    tree = ast.parse(Path(spec.origin).read_bytes())
    for node in tree.body:
        # A literal `__all__` names what the module exports, also what it binds only on
        # first use (the generated packages load their models through `__getattr__`).
        names.update(_literal_all(node))
        for name in statement_names(node):
            if name != "*":
                names.add(name)
                continue
            assert isinstance(node, ast.Import | ast.ImportFrom)
            star = _star_source(module, node, spec.submodule_search_locations)
            found = defined_names(star) if star else None
            if found is None:  # cannot tell what the star brings: accept anything
                return None
            names.update(found)
    return frozenset(names)


def _literal_all(node: ast.stmt) -> list[str]:
    """The names of `__all__ = [...]` (or a tuple) of string literals; [] otherwise."""
    if not (
        isinstance(node, ast.Assign)
        and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["__all__"]
        and isinstance(node.value, ast.List | ast.Tuple)
    ):
        return []
    items = node.value.elts
    if not all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in items):
        return []
    return [e.value for e in items if isinstance(e, ast.Constant) and isinstance(e.value, str)]


def statement_names(node: ast.stmt) -> list[str]:
    """The names a top-level statement binds; `*` for a star import (callers resolve it)."""
    if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    return []


def import_source(node: ast.ImportFrom, package: str | None) -> str | None:
    """The module `from ... import` reads, its leading dots taken from `package`; None
    when they climb above the top package."""
    if not node.level:
        return node.module
    base = package or ""
    for _ in range(node.level - 1):
        base = base.rpartition(".")[0]
    if not base:
        return None
    return f"{base}.{node.module}" if node.module else base


def _star_source(
    module: str, node: ast.Import | ast.ImportFrom, locations: list[str] | None
) -> str | None:
    if not isinstance(node, ast.ImportFrom):
        return None
    return import_source(node, module if locations else module.rpartition(".")[0])
