"""Reading a schema file: its bytes through the tools' one reader, then strict JSON with
duplicate object keys located as problems (the reading stage every command shares)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

from acp_schema._input import InputError, decode_utf8, parse_json, read_bytes
from acp_schema.cli_common import os_reason

from .schema_problems import Problem, SchemaError
from .schema_walk import escape

# How deep arrays and objects may nest in a schema file. The bundled schemas use 12 levels;
# past about 120 the meta-schema check, datamodel-codegen and the diff run out of Python's
# recursion limit, so deeper files are refused before parsing (README, "Errors and exit
# codes").
MAX_JSON_DEPTH = 64


class _DuplicateKeys:
    """object_pairs_hook that remembers objects which had a key more than once."""

    def __init__(self) -> None:
        # Objects are kept alive here so their ids stay unique until we locate them.
        self.found: list[tuple[dict[str, Any], list[str]]] = []

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        repeated: list[str] = []
        for key, value in pairs:
            if key in obj and key not in repeated:
                repeated.append(key)
            obj[key] = value
        if repeated:
            self.found.append((obj, repeated))
        return obj

    def problems(self, doc: object) -> list[Problem]:
        if not self.found:
            return []
        # The hook runs bottom-up and cannot know where an object sits; find out now.
        where = {id(node): ptr for ptr, node in _iter_json(doc)}
        out = []
        for obj, keys in self.found:
            pointer = where.get(id(obj))
            if pointer is None:
                continue  # inside a value that a later duplicate replaced
            for key in keys:
                out.append(
                    Problem(
                        pointer,
                        f"duplicate key {key!r} in this object (JSON parsers keep only "
                        "the last value)",
                    )
                )
        return out


def _iter_json(node: object, pointer: str = "") -> Iterator[tuple[str, object]]:
    """Every object and array of a JSON value with its pointer."""
    stack = [(pointer, node)]
    while stack:
        ptr, cur = stack.pop()
        if isinstance(cur, dict):
            yield ptr, cur
            stack.extend((f"{ptr}/{escape(k)}", v) for k, v in cur.items())
        elif isinstance(cur, list):
            yield ptr, cur
            stack.extend((f"{ptr}/{i}", v) for i, v in enumerate(cur))


def read_schema_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the schema file, read once through the tools' one reader (regular
    files only, bounded size); SchemaError(unusable=True) if it cannot be read."""
    try:
        return read_bytes(path)
    except (OSError, InputError) as exc:
        reason = os_reason(exc)
        raise SchemaError(
            path, [Problem("", f"cannot read {path}: {reason}")], unusable=True
        ) from None


def parse_schema_bytes(raw: bytes, path: str | os.PathLike[str]) -> tuple[object, list[Problem]]:
    """Parse the bytes read from *path* (UTF-8, strict JSON, duplicate keys located as
    problems); raise SchemaError(unusable=True) if there is nothing to check
    (`loaded_schema.py` also digests the bytes)."""
    duplicates = _DuplicateKeys()
    try:
        text = decode_utf8(raw).replace("\r\n", "\n").replace("\r", "\n")  # as text mode reads
        doc = parse_json(text, max_depth=MAX_JSON_DEPTH, object_pairs_hook=duplicates)
    except InputError as exc:
        message = str(exc)
        if message.startswith("not UTF-8"):
            message = f"cannot read {path}: {message}"
        raise SchemaError(path, [Problem("", message)], unusable=True) from None
    return doc, duplicates.problems(doc)


def parse_schema_file(path: str | os.PathLike[str]) -> tuple[object, list[Problem]]:
    """Read and parse the file; raise SchemaError(unusable=True) if there is nothing to
    check. The reading stage shared by every command that takes a schema file."""
    return parse_schema_bytes(read_schema_bytes(path), path)
