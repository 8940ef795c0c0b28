"""Helpers called across modules, as the runner's second pass sees them: the helpers
the run found (keyed by import root and qualified name), which of them each file can
import and under which names, which files may call one, and the units of files that
must be written together."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from acp_schema.migrations.chunk_identity.file_migration import FileResult
from acp_schema.migrations.chunk_identity.planning.plan import HelperTemplate
from acp_schema.migrations.resolution.modules import ModuleNames

HelperKey = tuple[str, str]  # (import root of the defining module, qualified name)


def templates_of(
    results: Mapping[Path, FileResult], roots: Mapping[Path, str], refused: Mapping[HelperKey, str]
) -> dict[HelperKey, tuple[HelperTemplate, Path]]:
    found: dict[HelperKey, tuple[HelperTemplate, Path]] = {}
    for result in results.values():
        for template in result.helpers:
            key = (roots[result.path], template.qualified_name)
            if key not in refused:
                found[key] = (template, result.path)
    return found


def _visible(
    templates: Mapping[HelperKey, tuple[HelperTemplate, Path]],
    names: Mapping[Path, ModuleNames],
    caller: Path,
) -> dict[str, tuple[HelperKey, HelperTemplate]]:
    """The helpers `caller` can import, under each name it can import them by: the
    defining module's names whose root directory holds the caller (two packages of one
    name in a monorepo do not see each other's). Deeper roots win a name."""
    where = caller.resolve()
    found: dict[str, tuple[HelperKey, HelperTemplate, int]] = {}
    for key, (template, path) in templates.items():
        module = names[path]
        local = template.qualified_name[len(module.name or "") + 1 :]
        for name, root in module.names:
            if root not in where.parents:
                continue
            depth = len(root.parts)
            qualified = f"{name}.{local}"
            if qualified not in found or found[qualified][2] < depth:
                found[qualified] = (key, template, depth)
    return {q: (key, template) for q, (key, template, _) in found.items()}


class Views:
    """What each file sees of the helpers (`_visible`), worked out for the files that
    need it only (a run has thousands of files and a few helpers' callers)."""

    def __init__(
        self,
        templates: Mapping[HelperKey, tuple[HelperTemplate, Path]],
        names: Mapping[Path, ModuleNames],
    ) -> None:
        self.templates = templates
        self.names = names
        self.seen: dict[Path, dict[str, tuple[HelperKey, HelperTemplate]]] = {}

    def __call__(self, path: Path) -> dict[str, tuple[HelperKey, HelperTemplate]]:
        if path not in self.seen:
            self.seen[path] = _visible(self.templates, self.names, path)
        return self.seen[path]


def key_of(
    view: Mapping[str, tuple[HelperKey, HelperTemplate]], root: str, qualified: str
) -> HelperKey:
    """The helper a caller's name for it means (its own module's helpers by their name)."""
    if qualified in view:
        return view[qualified][0]
    for key, template in view.values():
        if template.qualified_name == qualified:
            return key
    return (root, qualified)


def mark_units(
    results: Mapping[Path, FileResult], roots: Mapping[Path, str], refused: Mapping[HelperKey, str]
) -> None:
    for result in results.values():
        root = roots[result.path]
        keys = {(root, t.qualified_name) for t in result.helpers}
        keys |= {(root, q) for q in result.called}
        result.units = frozenset(f"{r}:{q}" for r, q in keys if (r, q) not in refused)


def may_call(result: FileResult, helpers: Iterable[HelperTemplate]) -> bool:
    """Whether a file may call a helper of another module: it names the helper as a
    whole word (`test_text_chunk_sends` does not name `_text_chunk`). The helper's
    module need not be named: `mod._chunk(...)` on a module passed in reaches it too."""
    own = {t.qualified_name for t in result.helpers}
    data = result.original
    for template in helpers:
        if template.qualified_name in own:
            continue
        if _word(template.qualified_name.rpartition(".")[2], data):
            return True
    return False


def _word(name: str, data: bytes) -> bool:
    if name.encode() not in data:  # the cheap test first
        return False
    return re.search(rb"\b" + re.escape(name.encode()) + rb"\b", data) is not None
