"""Readable decode errors for the tagged unions.

pydantic-core reports a failed union once per branch it tried, under locations made of the
branch labels (`update.tagged-union[UserMessageChunk,...].session_message.messageId`), and
an open union adds a second error from its Other variant. `TagDispatch` labels its branches
with the markers made here; `readable` rewrites a `ValidationError` after the fact (only
when decoding failed, so a successful decode pays nothing) into one error per real problem,
located by wire names alone (`update.messageId`), a path into the JSON that was sent.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError
from pydantic_core.core_schema import ErrorType

__all__ = ["known_label", "other_label", "readable"]

_STANDARD_TYPES = frozenset(get_args(ErrorType))
_TAG_PROBLEMS = frozenset({"union_tag_invalid", "union_tag_not_found"})


def known_label(wire_key: str) -> str:
    """The location label of a union's branch that dispatches the known tags."""
    return f"<{wire_key}>"


def other_label(wire_key: str) -> str:
    """The location label of an open union's Other branch (unknown tags)."""
    return f"<{wire_key}:other>"


def _label(item: Any) -> tuple[str, bool] | None:
    """(wire key, is the Other branch) if `item` is one of our branch labels."""
    if not (isinstance(item, str) and item.startswith("<") and item.endswith(">")):
        return None
    inner = item[1:-1]
    if inner.endswith(":other"):
        return inner[: -len(":other")], True
    return inner, False


def _branches(loc: tuple[Any, ...]) -> list[tuple[tuple[Any, ...], bool]]:
    """(the raw location of the union, is the Other branch) for each union the error
    passed through, outermost first."""
    return [(loc[:i], found[1]) for i, item in enumerate(loc) if (found := _label(item))]


def _chosen(problems: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop the errors of the branch that did not apply, union by union. An open union whose
    known branch found the tag (any error other than "no such tag") keeps that branch's
    errors; one that did not keeps its Other branch's, which say what is wrong with the tag."""
    tag_found: dict[tuple[Any, ...], bool] = {}
    for problem in problems:
        for union, is_other in _branches(problem["loc"]):
            if not is_other:
                deeper = len(problem["loc"]) > len(union) + 1
                found = deeper or problem["type"] not in _TAG_PROBLEMS
                tag_found[union] = tag_found.get(union, False) or found
    open_unions = {
        union for problem in problems for union, other in _branches(problem["loc"]) if other
    }
    kept = []
    for problem in problems:
        wanted = True
        for union, is_other in _branches(problem["loc"]):
            if union in open_unions and is_other == tag_found.get(union, False):
                wanted = False
        if wanted:
            kept.append(problem)
    return kept


def _wire_location(problem: dict[str, Any]) -> dict[str, Any]:
    """The error located by wire names: branch labels and tags left out; a missing or
    unknown tag located at the tag's key."""
    loc: tuple[Any, ...] = problem["loc"]
    out: list[Any] = []
    i = 0
    while i < len(loc):
        found = _label(loc[i])
        if found is None:
            out.append(loc[i])
            i += 1
            continue
        wire_key, is_other = found
        if i + 1 < len(loc) and not is_other:
            i += 2  # the label, then the tag pydantic puts before the variant's own path
            continue
        i += 1
        if problem["type"] in _TAG_PROBLEMS and i == len(loc):
            problem = dict(problem)
            out.append(wire_key)
            value = problem["input"]
            if problem["type"] == "union_tag_not_found":
                problem.update(type="missing", ctx=None)
            elif isinstance(value, dict):
                problem["input"] = value.get(wire_key)
    return {**problem, "loc": tuple(out)}


def _details(problem: dict[str, Any]) -> InitErrorDetails:
    kind = problem["type"]
    ctx = problem.get("ctx")
    error_type: Any = (
        kind if kind in _STANDARD_TYPES else PydanticCustomError(kind, problem["msg"], ctx)
    )
    details = InitErrorDetails(type=error_type, loc=problem["loc"], input=problem["input"])
    if ctx and kind in _STANDARD_TYPES:
        details["ctx"] = ctx
    return details


def readable(
    error: ValidationError, input_type: Literal["python", "json"] = "python"
) -> ValidationError:
    """`error` with one error per real problem, located by wire names; the same error when
    no tagged union is involved. `input_type` is what was decoded (messages differ:
    "a valid dictionary" from Python, "an object" from JSON)."""
    problems: list[dict[str, Any]] = [dict(p) for p in error.errors(include_url=False)]
    if not any(_branches(problem["loc"]) for problem in problems):
        return error
    seen: set[tuple[Any, ...]] = set()
    lines: list[InitErrorDetails] = []
    for problem in map(_wire_location, _chosen(problems)):
        key = (problem["loc"], problem["type"], problem["msg"])
        if key not in seen:
            seen.add(key)
            lines.append(_details(problem))
    try:
        return ValidationError.from_exception_data(error.title, lines, input_type=input_type)
    except (TypeError, ValueError, KeyError):  # an error pydantic cannot rebuild: as it was
        return error
