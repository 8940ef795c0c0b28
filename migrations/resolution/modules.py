"""Module names of a run's files, as Python would import them.

A name computed from `__init__.py` files alone is wrong for PEP 420 namespace packages
(`src/acme/proto/models.py` with no `src/acme/__init__.py` is `acme.proto.models`, not
`proto.models`) and for `src/` layouts. So a file's names come from the directories
that can be on `sys.path` for it (its *package roots*):

- the roots a `pyproject.toml` (or `setup.cfg`) declares: setuptools `packages.find`
  `where` and `package-dir`, hatch wheel `packages` and `sources`, poetry `packages`
  `from`, pdm `package-dir`, uv's `module-root`, pytest's `pythonpath`;
- a `src` directory (the src-layout convention) and the project directory itself (the
  one holding `pyproject.toml`, `setup.py`, `setup.cfg` or `.git`);
- the directory above the top regular package (the `__init__.py` chain), as before;
- the working directory (`python -m` puts it on `sys.path`).

A file may be importable under several of these; every such name is kept as an alias
(`ModuleNames.aliases`), and the *primary* name is the one from the deepest declared or
conventional root, falling back to the `__init__.py` chain. Only path components that
are identifiers make a name.
"""

from __future__ import annotations

import configparser
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from acp_schema._input import InputError, decode_utf8, read_bytes
from acp_schema.migrations.framework.config import ConfigError, read_toml

PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")


@dataclass(frozen=True)
class ModuleNames:
    """How one file is imported: its primary name, the package its relative imports
    start from, the directory it is imported from, and every other name it has."""

    name: str | None
    package: str | None
    root: Path
    # Every (name, root directory) the file can be imported as, the primary first.
    names: tuple[tuple[str, Path], ...] = ()

    @property
    def aliases(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.names[1:])

    is_package: bool = False  # an `__init__.py`

    def package_of(self, name: str) -> str | None:
        """The package relative imports start from when the file is imported as `name`."""
        return name if self.is_package else name.rpartition(".")[0] or None


def forget() -> None:
    """Drop what was learnt about the file system (a new run may see other files)."""
    _resolve.cache_clear()
    _project_roots.cache_clear()


def module_names(path: Path) -> ModuleNames:
    """The names `path` is imported under (see the module docstring)."""
    return _resolve(path.resolve())


@lru_cache(maxsize=65536)
def _resolve(path: Path) -> ModuleNames:
    stem_parts = [] if path.stem == "__init__" else [path.stem]
    chain_root = _chain_root(path.parent)
    candidates: list[tuple[Path, str]] = []  # (root directory, name prefix), best first
    for directory, prefix in _declared_roots(path.parent):
        candidates.append((directory, prefix))
    candidates.append((chain_root, ""))
    # `python -m` puts the working directory first on sys.path.
    candidates.append((Path.cwd(), ""))
    names: list[tuple[str, Path]] = []
    for directory, prefix in candidates:
        name = _name_under(path, directory, prefix, stem_parts)
        if name and name not in [n for n, _ in names]:
            names.append((name, directory))
    if not names:
        return ModuleNames(None, None, path.parent)
    primary, root = names[0]
    package = primary if path.stem == "__init__" else primary.rpartition(".")[0]
    return ModuleNames(primary, package or None, root, tuple(names), path.stem == "__init__")


def _name_under(path: Path, directory: Path, prefix: str, stem: list[str]) -> str | None:
    try:
        relative = path.parent.relative_to(directory)
    except ValueError:
        return None
    parts = [*(p for p in prefix.split(".") if p), *relative.parts, *stem]
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    return ".".join(parts)


def _chain_root(directory: Path) -> Path:
    """The directory above the top regular package holding `directory`."""
    while (directory / "__init__.py").is_file() and directory.parent != directory:
        directory = directory.parent
    return directory


def _declared_roots(directory: Path) -> list[tuple[Path, str]]:
    """Package roots that apply to files in `directory`, deepest first: those declared by
    the projects above it, their `src` directories, and the project directories."""
    found: list[tuple[Path, str]] = []
    for project in _projects(directory):
        found.extend(_project_roots(project))
    # A `src` directory is a root by convention even where no project file says so.
    found.extend((d, "") for d in (directory, *directory.parents) if d.name == "src")
    # Deepest first, so a file in `src/` takes its name from `src/`, not the project.
    in_reach = [(d, p) for d, p in found if d == directory or d in directory.parents]
    in_reach.sort(key=lambda item: len(item[0].parts), reverse=True)
    return in_reach


def _projects(directory: Path) -> list[Path]:
    """Project directories holding `directory`, nearest first, up to the repository root."""
    projects = []
    for current in (directory, *directory.parents):
        if any((current / marker).is_file() for marker in PROJECT_MARKERS):
            projects.append(current)
        if (current / ".git").exists():
            if current not in projects:
                projects.append(current)
            break
    return projects


@lru_cache(maxsize=1024)
def _project_roots(project: Path) -> tuple[tuple[Path, str], ...]:
    roots: list[tuple[Path, str]] = [(project, "")]
    if (project / "src").is_dir():
        roots.append((project / "src", ""))
    roots.extend(_pyproject_roots(project))
    roots.extend(_setup_cfg_roots(project))
    real = [(_real(d), p) for d, p in roots]
    return tuple(dict.fromkeys((d, p) for d, p in real if d is not None))


def _real(directory: Path) -> Path | None:
    """`directory` with its symlinks resolved; None for what cannot name a directory (a
    NUL in a name a project file gave, a symlink loop): a root no file can be under."""
    try:
        return Path(os.path.realpath(directory, strict=False))
    except (ValueError, OSError, RuntimeError):
        return None


def _pyproject_roots(project: Path) -> list[tuple[Path, str]]:
    data = _toml(project / "pyproject.toml")
    tool = _table(data, "tool")
    roots: list[tuple[Path, str]] = []
    setuptools = _table(tool, "setuptools")
    find = _table(_table(setuptools, "packages"), "find")
    roots += [(project / w, "") for w in _strings(find.get("where"))]
    package_dir = setuptools.get("package-dir")
    if isinstance(package_dir, dict):
        roots += [(project / d, p) for p, d in package_dir.items() if isinstance(d, str)]
    hatch = _table(_table(_table(_table(tool, "hatch"), "build"), "targets"), "wheel")
    # `packages = ["src/acme"]`: the package `acme` lives in `src/`.
    roots += [((project / p).parent, "") for p in _strings(hatch.get("packages"))]
    sources = hatch.get("sources")
    if isinstance(sources, dict):
        roots += [(project / d, str(p).replace("/", ".")) for d, p in sources.items()]
    roots += [(project / d, "") for d in _strings(sources)]
    for entry in _list(_table(tool, "poetry").get("packages")):
        if isinstance(entry, dict) and isinstance(entry.get("from"), str):
            roots.append((project / entry["from"], ""))
    pdm_dir = _table(_table(tool, "pdm"), "build").get("package-dir")
    if isinstance(pdm_dir, str):
        roots.append((project / pdm_dir, ""))
    uv_root = _table(_table(tool, "uv"), "build-backend").get("module-root")
    if isinstance(uv_root, str):
        roots.append((project / uv_root, ""))
    pytest = _table(_table(tool, "pytest"), "ini_options")
    roots += [(project / p, "") for p in _strings(pytest.get("pythonpath"))]
    return roots


def _setup_cfg_roots(project: Path) -> list[tuple[Path, str]]:
    """`[options] package_dir = =src` (and `name = dir` lines) of a setup.cfg."""
    path = project / "setup.cfg"
    if not path.is_file():
        return []
    parser = configparser.ConfigParser()
    try:
        parser.read_string(decode_utf8(read_bytes(path)), str(path))
        value = parser.get("options", "package_dir", fallback="")
    except (configparser.Error, OSError, InputError):
        return []
    roots = []
    for line in value.splitlines():
        package, sep, directory = line.partition("=")
        if sep and directory.strip():
            roots.append((project / directory.strip(), package.strip()))
    return roots


def _toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        return read_toml(path)
    except ConfigError:
        return {}  # the settings reader reports a broken file


def _table(data: object, key: str) -> dict[str, Any]:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def _list(value: object) -> list[Any]:
    """A TOML value that should be an array; anything else (`packages = 5`) holds none."""
    return value if isinstance(value, list) else []


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []
