"""Which names of the run's own modules stand for a name of the bindings (facades), and
which of the run's files are a vendored copy of generated bindings; for any bindings name,
not only the chunk (`old_bindings` follows the chunk alone).

A facade is a module of the run that re-exports from the bindings, explicitly
(`from acp_schema.v2 import ToolCallLocation as Location`), by star import
(`from acp_schema.v2 import *`), or through another facade, however many. The files are
read with `ast`, nothing is imported. A vendored copy is a file `acp-schema generate`
wrote (its header says so) that sits in the run: its module names count as a bindings
module when the caller accepts the schema digest its header records.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from acp_schema.migrations.resolution.bindings import (
    defined_names,
    import_source,
    is_generated_bindings,
)
from acp_schema.migrations.resolution.modules import module_names

# The third header line of a generated file: `# schema-sha256: <hex>`.
SCHEMA_DIGEST_PREFIX = b"# schema-sha256: "
_MAX_HOPS = 32  # facades of facades: far more than any real project chains


def schema_digest(data: bytes) -> str | None:
    """The schema digest a generated file's header records; None for other files."""
    if not is_generated_bindings(data):
        return None
    for line in data.split(b"\n", 4)[2:4]:
        if line.startswith(SCHEMA_DIGEST_PREFIX):
            return line[len(SCHEMA_DIGEST_PREFIX) :].strip().decode("ascii", "replace")
    return None


def vendored_modules(
    files: Iterable[tuple[Path, bytes]], accept: Callable[[str], bool]
) -> tuple[list[str], list[tuple[Path, str]]]:
    """(module names of the run's generated bindings whose schema digest `accept`s, in
    file order; (path, digest) of the generated files it refused). A package's modules
    (`_models`, `methods`) count through their package: the package name is listed."""
    accepted: list[str] = []
    refused: list[tuple[Path, str]] = []
    for path, data in files:
        digest = schema_digest(data)
        if digest is None:
            continue
        if not accept(digest):
            refused.append((path, digest))
            continue
        names = module_names(path)
        for name, _ in names.names:
            package = name if names.is_package else name.rpartition(".")[0]
            for module in (name, package):
                if module and module not in accepted:
                    accepted.append(module)
    return accepted, refused


@dataclass
class Exports:
    """What the run's facades re-export, resolved to the bindings on request."""

    bindings: tuple[str, ...]
    # module of the run -> {name it binds: the qualified name it imports}
    explicit: dict[str, dict[str, str]] = field(default_factory=dict)
    # module of the run -> modules it star-imports, with its literal __all__ (None: none)
    stars: dict[str, list[str]] = field(default_factory=dict)
    listed: dict[str, frozenset[str] | None] = field(default_factory=dict)

    def owner(self, module: str) -> str | None:
        for candidate in self.bindings:
            if module == candidate or module.startswith(f"{candidate}."):
                return candidate
        return None

    def resolve(self, qualified: str, hops: int = 0) -> str | None:
        """The bindings' qualified name that `qualified` stands for, or None: a name in a
        bindings module is itself; a facade's name is followed to its source."""
        module, _, name = qualified.rpartition(".")
        if not module or hops > _MAX_HOPS:
            return None
        if self.owner(module) is not None:
            return qualified
        target = self.explicit.get(module, {}).get(name)
        if target is not None:
            return self.resolve(target, hops + 1)
        listed = self.listed.get(module)
        if (listed is None and name.startswith("_")) or (listed is not None and name not in listed):
            return None
        for source in self.stars.get(module, ()):
            if self.owner(source) is not None:
                found = defined_names(source)
                # An installed module whose names cannot be read may define anything; a
                # vendored one (not installed) the same.
                if found is None or name in found:
                    return f"{source}.{name}"
            else:
                resolved = self.resolve(f"{source}.{name}", hops + 1)
                if resolved is not None:
                    return resolved
        return None


def find_exports(files: Sequence[tuple[Path, bytes]], bindings: Sequence[str]) -> Exports:
    """The re-exports of `files` (only those with an import of something are parsed)."""
    exports = Exports(tuple(bindings))
    for path, data in files:
        if b"import" not in data or is_generated_bindings(data):
            continue
        try:
            tree = ast.parse(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue  # the run reports the file where it reads it
        names = module_names(path)
        for name, _ in names.names:
            _record(exports, name, names.package_of(name), tree)
    return exports


def _record(exports: Exports, module: str, package: str | None, tree: ast.Module) -> None:
    explicit = exports.explicit.setdefault(module, {})
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:  # `import a.b as c` binds c; `import a.b` binds a
                bound = alias.asname or alias.name.partition(".")[0]
                explicit[bound] = alias.name if alias.asname else bound
        elif _is_alias(node):  # `Chunk = acp.SessionMessageChunk`: a re-export by assignment
            assert isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
            head, _, rest = _dotted(node.value).partition(".")
            origin = explicit.get(head, f"{module}.{head}")
            explicit[node.targets[0].id] = f"{origin}.{rest}" if rest else origin
        elif isinstance(node, ast.ImportFrom):
            source = import_source(node, package)
            if source is None:
                continue
            for alias in node.names:
                if alias.name == "*":
                    exports.stars.setdefault(module, []).append(source)
                else:
                    explicit[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.Assign) and [
            t.id for t in node.targets if isinstance(t, ast.Name)
        ] == ["__all__"]:
            value = node.value
            if isinstance(value, ast.List | ast.Tuple) and all(
                isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
            ):
                exports.listed[module] = frozenset(
                    e.value
                    for e in value.elts
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                )


def _is_alias(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Assign)
        and len(node.targets) == 1
        and isinstance(node.targets[0], ast.Name)
        and node.targets[0].id != "__all__"
        and bool(_dotted(node.value))
    )


def _dotted(node: ast.expr) -> str:
    """`a.b.C` as text; "" for anything but a plain dotted name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""
