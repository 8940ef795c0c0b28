"""The JSON Schema validator the tests judge instances with: jsonschema's Draft 2020-12
validator, with `pattern` and `patternProperties` read as the specification says, as
ECMA-262 regular expressions (the `regress` engine), not as Python's `re`.

Why: the two disagree on inputs Hypothesis finds, e.g. `^(a+)+$` matches "a\\n" in Python
(`$` also matches before a final newline) and not in ECMA-262, where the bindings' engine
agrees with ECMA-262. Judged with `re`, a faithful binding looked wrong.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

import regress
from jsonschema import Draft202012Validator, ValidationError, validators
from jsonschema.protocols import Validator


@cache
def _ecma(pattern: str) -> regress.Regex:
    return regress.Regex(pattern)


def ecma_search(pattern: str, text: str) -> bool:
    """Whether `pattern` matches somewhere in `text`, with ECMA-262 semantics."""
    return _ecma(pattern).find(text) is not None


def _pattern(validator: Validator, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    if validator.is_type(instance, "string") and not ecma_search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Validator, patterns: Mapping[str, Any], instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if ecma_search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties(
    validator: Validator, extra: Any, instance: Any, schema: Mapping[str, Any]
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    named = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [
        key
        for key in instance
        if key not in named and not any(ecma_search(p, key) for p in patterns)
    ]
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif extra is False and extras:
        yield ValidationError(f"additional properties are not allowed: {sorted(extras)}")


EcmaValidator = validators.extend(
    Draft202012Validator,
    validators={
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
    },
)
