"""`UndecodableUpdate`: a `session/update` the bindings refuse, kept as a value, and the one
log line that reports it.

The receiver never drops an update it cannot decode: the application gets this value in
the update's place, with the params as they came and the bindings' error, and one WARNING
line names the field. Text that came from the peer (keys, tags, session IDs) is written
with its control characters escaped and cut to a bounded length, so that the report stays
one line whatever the peer sent.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

__all__ = ["LOGGER", "UndecodableUpdate", "dotted", "first_problem", "one_line", "quoted"]

LOGGER = logging.getLogger("acp_schema.acp_bridge")

_SHOWN = 200  # characters of peer-controlled text shown in a log line
_UNKNOWN_TAG = "union_tag_invalid"


@dataclass(frozen=True)
class UndecodableUpdate:
    """A `session/update` whose params `acp_schema.v1` refuses, in the place of its decoding.

    `params` are the notification's params as they arrived (parsed JSON: dicts, lists,
    strings, numbers; anything, if the peer sent a non-object); `error` is the bindings'
    `ValidationError`, one error per real problem, located by wire names (docs/bindings.md).
    An update of a kind the v1 bindings do not know (from a newer agent) is one of these,
    with `unknown_kind` true.
    """

    params: Any
    error: ValidationError

    @property
    def session_id(self) -> str | None:
        """`params.sessionId`, if it is a string."""
        value = self.params.get("sessionId") if isinstance(self.params, dict) else None
        return value if isinstance(value, str) else None

    @property
    def kind(self) -> str | None:
        """`params.update.sessionUpdate`, if it is a string."""
        update = self.params.get("update") if isinstance(self.params, dict) else None
        value = update.get("sessionUpdate") if isinstance(update, dict) else None
        return value if isinstance(value, str) else None

    @property
    def field(self) -> str:
        """Where the first problem is, as the `ValidationError` prints it (`update.messageId`,
        `update.content.0.text`); `params` when it is the params as a whole."""
        problem = self.error.errors(include_url=False)[0]
        location = problem["loc"] or _non_finite_location(self.params, problem["type"])
        return dotted(location) or "params"

    @property
    def problem(self) -> str:
        """What is wrong there, as the `ValidationError` says it."""
        return first_problem(self.error)[1]

    @property
    def unknown_kind(self) -> bool:
        """Whether the only problem is an `update.sessionUpdate` string the bindings do not
        know as a tag (a kind added after this schema)."""
        problems = self.error.errors(include_url=False)
        return (
            self.kind is not None
            and len(problems) == 1
            and problems[0]["type"] == _UNKNOWN_TAG
            and problems[0]["loc"] == ("update", "sessionUpdate")
        )

    def describe(self) -> str:
        """One line for a log: where and what, the session and the kind (peer text escaped)."""
        count = self.error.error_count()
        more = f" (and {count - 1} more)" if count > 1 else ""
        if self.unknown_kind:
            what = f"update.sessionUpdate: a kind acp_schema.v1 does not know ({quoted(self.kind)})"
        else:
            what = f"{one_line(self.field)}: {one_line(self.problem)}{more}"
        return (
            f"session/update for session {quoted(self.session_id)} not decoded by "
            f"acp_schema.v1: {what}; on_update gets it as an UndecodableUpdate"
        )


def dotted(location: tuple[Any, ...]) -> str:
    """A `ValidationError` location as the error prints it: `update.content.0.text`."""
    return ".".join(str(part) for part in location)


def first_problem(error: ValidationError) -> tuple[str, str]:
    """(where, what) of an error's first problem; where is `(top level)` for the whole."""
    problem = error.errors(include_url=False)[0]
    return dotted(problem["loc"]) or "(top level)", str(problem["msg"])


def one_line(text: str) -> str:
    """`text` cut to a bounded length, its control and invisible characters escaped."""
    cut = text if len(text) <= _SHOWN else text[:_SHOWN] + "..."
    if cut.isprintable():
        return cut
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in cut)


def quoted(text: str | None) -> str:
    """A peer's string in a log line: quoted and escaped (`repr`), cut; `?` when absent."""
    if text is None:
        return "?"
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "...")


def _non_finite_location(params: Any, problem_type: str) -> tuple[Any, ...]:
    """Where a non-finite number sits in the params (the bindings refuse the JSON text acp's
    parse of it is written back as, without saying where), else ()."""
    if problem_type != "json_invalid":
        return ()
    stack: list[tuple[tuple[Any, ...], Any]] = [((), params)]
    while stack:
        location, value = stack.pop()
        if isinstance(value, float) and not math.isfinite(value):
            return location
        if isinstance(value, dict):
            items = list(value.items())
        elif isinstance(value, list):
            items = list(enumerate(value))
        else:
            continue
        stack.extend(((*location, key), item) for key, item in reversed(items))
    return ()
