"""`[tool.acp-schema.migrate]` settings, found for each file of a run.

A file's settings come from the nearest `pyproject.toml` above it that has the table,
looking no higher than the repository root (the directory holding `.git`), so the
result does not depend on the order of the paths on the command line. A monorepo may
give each project its own table.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_schema._input import InputError, decode_utf8, read_bytes
from acp_schema.cli_common import os_reason

KEYS = ("bindings", "exclude", "select", "disable", "todo-comments")


class ConfigError(Exception):
    """A pyproject.toml that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Config:
    path: Path | None = None  # the pyproject.toml, None for the defaults
    bindings: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    select: tuple[str, ...] = ()
    disable: tuple[str, ...] = ()
    todo_comments: bool = False

    @property
    def directory(self) -> Path | None:
        return None if self.path is None else self.path.parent


DEFAULT = Config()


class ConfigFinder:
    """Finds (and caches, per directory) the settings that apply to a file."""

    def __init__(self) -> None:
        self._by_directory: dict[Path, Config] = {}

    def for_path(self, path: Path) -> Config:
        start = path.resolve()
        return self._for_directory(start if start.is_dir() else start.parent)

    def _for_directory(self, directory: Path) -> Config:
        cached = self._by_directory.get(directory)
        if cached is not None:
            return cached
        config: Config | None = None
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            config = read_config(candidate)
        if config is None:
            at_root = (directory / ".git").exists() or directory.parent == directory
            config = DEFAULT if at_root else self._for_directory(directory.parent)
        self._by_directory[directory] = config
        return config


def read_toml(path: Path) -> dict[str, Any]:
    """The document of a `pyproject.toml` (or any TOML file), read through the tools' one
    reader (a file that is a named pipe does not block); ConfigError when it cannot be read
    or is not TOML, or on Python 3.10 without tomli (which the [migrate] extra installs
    there): settings are never silently ignored."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        try:
            import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]
        except ModuleNotFoundError:
            raise ConfigError(
                f"{path}: cannot read its settings: Python {sys.version_info[0]}."
                f"{sys.version_info[1]} reads TOML with tomli, which is not installed "
                "(install acp-schema's [migrate] extra, or `pip install tomli`)"
            ) from None
    try:
        data: dict[str, Any] = tomllib.loads(decode_utf8(read_bytes(path)))
    except (OSError, InputError) as err:
        raise ConfigError(f"{path}: cannot read: {os_reason(err)}") from None
    except ValueError as err:  # TOMLDecodeError, and an integer of too many digits
        raise ConfigError(f"{path}: not valid TOML: {_first_line(err)}") from None
    except RecursionError:
        raise ConfigError(f"{path}: not valid TOML: nested too deeply") from None
    return data


def _first_line(err: Exception) -> str:
    if not isinstance(err, tomllib_error()) and "digits" in str(err):  # int("9" * 5000)
        most = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
        return f"an integer of more than {most} digits"
    return str(err).splitlines()[0] if str(err) else type(err).__name__


def tomllib_error() -> type[Exception]:
    """The TOML reader's own error class (ValueError where there is no reader)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[import-not-found, no-redef, unused-ignore]
        except ModuleNotFoundError:
            return ValueError
    return tomllib.TOMLDecodeError


def read_config(path: Path) -> Config | None:
    """The table of `path`, or None when it has none; ConfigError when it is broken."""
    data = read_toml(path)
    tool = data.get("tool", {})
    section = tool.get("acp-schema", {}) if isinstance(tool, dict) else {}
    if not isinstance(section, dict) or "migrate" not in section:
        return None
    table = section["migrate"]
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.acp-schema.migrate] must be a table")
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        known = ", ".join(KEYS)
        raise ConfigError(
            f"{path}: [tool.acp-schema.migrate]: unknown key {unknown[0]!r} (known: {known})"
        )
    todo = table.get("todo-comments", False)
    if not isinstance(todo, bool):
        raise ConfigError(f"{path}: [tool.acp-schema.migrate] todo-comments must be true or false")
    return Config(
        path=path,
        bindings=_strings(path, table, "bindings"),
        exclude=_strings(path, table, "exclude"),
        select=_strings(path, table, "select"),
        disable=_strings(path, table, "disable"),
        todo_comments=todo,
    )


def _strings(path: Path, table: dict[str, Any], key: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: [tool.acp-schema.migrate] {key} must be a list of strings")
    return tuple(value)
