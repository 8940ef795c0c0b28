"""What JSON Schema allows but the bindings cannot hold faithfully: each such subschema is
an error of `schema check`, so `generate` refuses it, naming the pointer, before it writes
anything (docs/bindings.md, "What generate refuses").

* ``pattern`` (and ``patternProperties`` keys): only what the regex engine of pydantic-core
  compiles. That engine (Rust's `regex` crate) matches in time linear in the input; for a
  pattern it refuses (look-around, backreferences, a compiled size over its limit)
  datamodel-codegen switches the model to Python's backtracking `re`, where 28 characters
  can take half a minute. The checks match patterns with the same engine, for the same
  reason.
* ``enum`` and ``const`` values: strings, integers of 64 bits (`2.0` counts; mypy takes no
  wider integer literal), booleans and null. A
  fraction, an object or an array has no Python literal, and the generator would widen it
  to any `float`, `dict` or `list`.
* Places that allow nothing, which no Python type says: an ``enum`` that is empty or none
  of whose values has the schema's ``type``, an ``anyOf``/``oneOf`` of nothing but
  ``false``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Final, Literal

from pydantic_core import SchemaError as CoreSchemaError
from pydantic_core import SchemaValidator, core_schema

from .schema_problems import Problem, short_json

# The engine pydantic-core uses by default, asked for by name: no fallback.
_ENGINE: Final[Literal["rust-regex"]] = "rust-regex"


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> SchemaValidator | str:
    """A validator that searches `pattern` with the linear-time engine, or why it cannot."""
    try:
        return SchemaValidator(core_schema.str_schema(pattern=pattern, regex_engine=_ENGINE))
    except CoreSchemaError as exc:
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        reason = lines[-1] if lines else "refused"
        return reason.removeprefix("error: ").removeprefix("SchemaError: ")


def pattern_refusal(pattern: str) -> str | None:
    """Why the linear-time engine refuses `pattern`, or None when it compiles it."""
    found = _compiled(pattern)
    return found if isinstance(found, str) else None


def pattern_search(pattern: str, text: str) -> bool | None:
    """Whether `pattern` matches somewhere in `text` (JSON Schema's `pattern` semantics),
    in linear time; None when the engine refuses the pattern."""
    found = _compiled(pattern)
    return None if isinstance(found, str) else found.isinstance_python(text)


def _pattern_problems(pointer: str, schema: dict[str, Any]) -> list[Problem]:
    patterns: list[tuple[str, object]] = [("pattern", schema.get("pattern"))]
    keyed = schema.get("patternProperties")
    if isinstance(keyed, dict):
        patterns += [("patternProperties key", key) for key in keyed]
    out = []
    for where, pattern in patterns:
        if not isinstance(pattern, str):
            continue  # absent, or a meta-schema error
        reason = pattern_refusal(pattern)
        if reason is not None:
            out.append(
                Problem(
                    pointer,
                    f"{where} {short_json(pattern)} cannot be generated: pydantic's "
                    f"linear-time regex engine refuses it ({reason}), and its fallback, "
                    "Python's backtracking re, can take exponential time",
                )
            )
    return out


# mypy refuses a `Literal[...]` integer past 64 bits (and -2**63, read as minus 2**63).
_LITERAL_INT_MAX = 2**63 - 1


def _too_wide(value: Any) -> bool:
    """An integer (or integral number) literal mypy would not take."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return _literal_value(value) and abs(int(value)) > _LITERAL_INT_MAX


def _literal_value(value: Any) -> bool:
    if value is None or isinstance(value, (str, bool, int)):
        return True
    return isinstance(value, float) and value.is_integer()


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "integer" if float(value).is_integer() else "number"
    return "null" if value is None else "string"


def _value_problems(pointer: str, schema: dict[str, Any]) -> list[Problem]:
    out = []
    values = [("const", schema["const"])] if "const" in schema else []
    listed = schema.get("enum")
    if isinstance(listed, list):
        values += [("enum", value) for value in listed]
    for keyword, value in values:
        if _too_wide(value):
            out.append(
                Problem(
                    pointer,
                    f"{keyword} value {short_json(value)} cannot be generated: a type "
                    f"checker takes integer literals of 64 bits at most (|value| <= "
                    f"{_LITERAL_INT_MAX})",
                )
            )
            return out
        if not _literal_value(value):
            out.append(
                Problem(
                    pointer,
                    f"{keyword} value {short_json(value)} cannot be generated: the bindings "
                    "hold enum and const values that are strings, integers, booleans or null",
                )
            )
            return out  # one line per subschema says it
    types = schema.get("type")
    if not isinstance(listed, list):
        return out
    allowed = types if isinstance(types, list) else [types] if types is not None else None
    if not any(
        allowed is None or _kind(v) in allowed or (_kind(v) == "integer" and "number" in allowed)
        for v in listed
    ):
        which = "an empty enum" if not listed else f"no enum value has the type {short_json(types)}"
        out.append(
            Problem(
                pointer,
                f"{which}: nothing is valid here, and no Python type says that; "
                "cannot be generated",
            )
        )
    return out


def _union_problems(pointer: str, schema: dict[str, Any]) -> list[Problem]:
    out = []
    for key in ("anyOf", "oneOf"):
        members = schema.get(key)
        if isinstance(members, list) and members and all(m is False for m in members):
            out.append(
                Problem(
                    pointer,
                    f"every {key} member is false: nothing is valid here, and no Python type "
                    "says that; cannot be generated",
                )
            )
    return out


def check_generation(pointer: str, schema: dict[str, Any]) -> list[Problem]:
    """What in one subschema the bindings cannot hold faithfully (see the module)."""
    return (
        _pattern_problems(pointer, schema)
        + _value_problems(pointer, schema)
        + _union_problems(pointer, schema)
    )
