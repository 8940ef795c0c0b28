"""Compare our decode of one input with the TypeScript SDK's, and name the disagreement."""

from __future__ import annotations

import json
import re
from enum import Enum
from typing import Any

from jsonschema import FormatChecker
from pydantic import BaseModel, ValidationError

from acp_schema.codegen.generate.prepass import INTEGER_FORMATS

Path = tuple[str | int, ...]


def unknown_key_paths(value: Any, path: Path = ()) -> set[Path]:
    """Where in the encoded JSON the decoded objects hold keys they kept as unknown."""
    found: set[Path] = set()
    if isinstance(value, BaseModel):
        found.update((*path, key) for key in value.__pydantic_extra__ or {})
        for name, info in type(value).model_fields.items():
            found |= unknown_key_paths(getattr(value, name), (*path, info.alias or name))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found |= unknown_key_paths(item, (*path, index))
    return found


def ours(model: type[BaseModel], text: str) -> tuple[bool, Any, set[Path]]:
    """(accepted, decoded JSON, paths of the unknown keys kept); a ValidationError is a
    rejection, anything else escapes."""
    try:
        decoded = model.model_validate_json(text)
    except ValidationError:
        return False, None, set()
    unknown = unknown_key_paths(decoded)
    try:
        return True, json.loads(decoded.model_dump_json()), unknown
    except ValueError:  # deeper than pydantic-core's serializer goes: encode via Python
        plain = decoded.model_dump()
        encoded = json.dumps(plain, default=lambda v: v.value if isinstance(v, Enum) else v)
        return True, json.loads(encoded), unknown


def _same_number(a: Any, b: Any) -> bool:
    numbers = (int, float)
    if isinstance(a, bool) or isinstance(b, bool):
        return False
    return isinstance(a, numbers) and isinstance(b, numbers) and float(a) == float(b)


def difference(
    mine: Any,
    theirs: Any,
    unknown: set[Path],
    notes: set[str],
    sent: Any = None,
    path: Path = (),
) -> bool:
    """Whether the two decoded values differ beyond the normalisations, which are noted:

    - unknown keys we keep where the SDK strips them ("unknown keys kept");
    - integers past 2**53, which JavaScript rounds ("large integer rounded by JavaScript");
    - a malformed value sent under a default-on-error key, which we read as omitted and the
      SDK replaces by the schema's default `[]` ("malformed value read as omitted").

    `sent` is the input at the same place, to tell the last case from a made-up key.
    """
    if isinstance(mine, dict) and isinstance(theirs, dict):
        sent_here = sent if isinstance(sent, dict) else {}
        only_ours = set(mine) - set(theirs)
        only_theirs = set(theirs) - set(mine)
        filled = {
            k for k in only_theirs if theirs[k] == [] and k in sent_here and sent_here[k] != []
        }
        if any((*path, key) not in unknown for key in only_ours) or only_theirs - filled:
            return True
        if only_ours:
            notes.add("unknown keys kept")
        if filled:
            notes.add("malformed value read as omitted (the SDK writes the schema default)")
        return any(
            difference(mine[k], theirs[k], unknown, notes, sent_here.get(k), (*path, k))
            for k in theirs
            if k in mine
        )
    if isinstance(mine, list) and isinstance(theirs, list):
        # Items may have been skipped (skip-invalid-items), so `sent` no longer lines up.
        return len(mine) != len(theirs) or any(
            difference(a, b, unknown, notes, None, (*path, i))
            for i, (a, b) in enumerate(zip(mine, theirs, strict=True))
        )
    if mine == theirs and type(mine) is type(theirs):
        return False
    if _same_number(mine, theirs):
        if mine != theirs:
            notes.add("large integer rounded by JavaScript")
        return False
    return True


# `format` is an annotation in JSON Schema. The SDK asserts two string formats (zod
# `z.url()`, `z.iso.datetime({offset: true})`): an absolute URI (RFC 3986: a scheme, no
# blanks) and an RFC 3339 date-time with its offset. The bindings assert the integer formats
# (ranges). These checkers tell the inputs that meet every format from those that do not.
STRING_FORMATS = FormatChecker(formats=())
FORMATS = FormatChecker(formats=())
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s]*")
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")


def _is_uri(value: object) -> bool:
    return not isinstance(value, str) or _URI.fullmatch(value) is not None


def _is_date_time(value: object) -> bool:
    return not isinstance(value, str) or _DATE_TIME.fullmatch(value) is not None


for _checker in (STRING_FORMATS, FORMATS):
    _checker.checks("uri")(_is_uri)
    _checker.checks("date-time")(_is_date_time)


def _integer_in(low: int, high: int) -> Any:
    def check(value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return True
        return low <= value <= high

    return check


for _name, (_low, _high) in INTEGER_FORMATS.items():
    FORMATS.checks(_name)(_integer_in(_low, _high))


def string_format_keys(schema: Any) -> set[str]:
    """Property names the schema gives a `uri` or `date-time` format (directly or in a
    nullable alternative)."""
    found: set[str] = set()
    if isinstance(schema, dict):
        for name, sub in (schema.get("properties") or {}).items():
            options = [sub, *(sub.get("anyOf", []) if isinstance(sub, dict) else [])]
            if any(
                isinstance(o, dict) and o.get("format") in ("uri", "date-time") for o in options
            ):
                found.add(name)
        for value in schema.values():
            found |= string_format_keys(value)
    elif isinstance(schema, list):
        for value in schema:
            found |= string_format_keys(value)
    return found


def breaks_string_format(value: Any, keys: set[str]) -> bool:
    """Whether a string under one of `keys` fails the SDK's uri/date-time check."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key in keys and isinstance(item, str) and not (_is_uri(item) or _is_date_time(item)):
                return True
            if breaks_string_format(item, keys):
                return True
    elif isinstance(value, list):
        return any(breaks_string_format(item, keys) for item in value)
    return False


def _not_json(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def schema_valid(validator: Any, text: str) -> bool:
    """Whether `text` is JSON (no `NaN`/`Infinity`) that the schema accepts."""
    try:
        value = json.loads(text, parse_constant=_not_json)
    except (ValueError, RecursionError):
        return False
    return bool(validator.is_valid(value))
