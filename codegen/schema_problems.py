"""What a schema check reports: `Problem` (one finding with its JSON pointer, or a
warning) and `SchemaError` (a schema file that cannot be used); and how a message names
and shows the JSON value it is about."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any

from acp_schema.cli_output import shown

# Keep messages readable when the offending value is a whole definition.
MAX_REPR = 60


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong with a schema document, or (`warning`) worth knowing about it.

    A warning never stops generation: it marks what the bindings carry through without
    understanding (an unknown `x-` keyword, a new `x-side` value).
    """

    pointer: str  # RFC 6901 pointer into the document, "" = root
    message: str
    warning: bool = False

    def __str__(self) -> str:
        label = "warning: " if self.warning else ""
        return f"#{shown(self.pointer)}: {label}{shown(self.message)}"


def warn(pointer: str, message: str) -> Problem:
    return Problem(pointer, message, warning=True)


def errors(problems: list[Problem]) -> list[Problem]:
    """The problems that stop generation (everything but warnings)."""
    return [p for p in problems if not p.warning]


class SchemaError(Exception):
    """A schema file that cannot be used: unreadable, not JSON, or with problems."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        problems: list[Problem] | tuple[Problem, ...],
        *,
        unusable: bool = False,
    ) -> None:
        self.path = os.fspath(path)
        self.problems = tuple(problems)
        self.unusable = unusable  # True: nothing could be checked at all
        super().__init__(self.path, self.problems, unusable)

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt by keyword: `generate` renders versions in worker processes and the error
        # has to cross back intact (the default pickling passes `unusable` positionally).
        return (_rebuild_schema_error, (self.path, self.problems, self.unusable))

    def lines(self) -> list[str]:
        """One ``PATH: #/pointer: message`` line per problem (no pointer if unusable)."""
        if self.unusable:
            return [f"{shown(self.path)}: {shown(p.message)}" for p in self.problems]
        return [f"{shown(self.path)}: {p}" for p in self.problems]

    def __str__(self) -> str:
        return "\n".join(self.lines())


def _rebuild_schema_error(path: str, problems: tuple[Problem, ...], unusable: bool) -> SchemaError:
    return SchemaError(path, problems, unusable=unusable)


# --- JSON values in messages -------------------------------------------------------------


def json_type(value: object) -> str:
    """The JSON Schema type name of a parsed JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


_KIND = {"object": "an object", "array": "an array", "integer": "a number", "null": "null"}


def kind_of(value: object) -> str:
    """The JSON type of a parsed value, as a message says it."""
    name = json_type(value)
    return _KIND.get(name, f"a {name}")


def short_json(value: object) -> str:
    """Compact JSON rendering of a value, truncated."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= MAX_REPR else text[: MAX_REPR - 3] + "..."
