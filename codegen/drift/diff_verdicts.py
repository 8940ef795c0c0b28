"""The compatibility rules of the schema diff: verdicts, and how a change in the set of
accepted values becomes one.

A change *widens* a place when NEW accepts values OLD rejects (old decoders may then fail on
new messages) and *narrows* it when the reverse holds (new decoders may fail on old
messages); *changed* is both at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from ..generate.prepass import INTEGER_FORMATS as _PREPASS_INTEGER_FORMATS
from ..schema_walk import DECODING_KEYWORDS as _DECODING_KEYWORDS

Compat = Literal["compatible", "breaking", "unknown"]
Effect = Literal["same", "narrowed", "widened", "changed", "unknown"]

COMPATIBLE: Compat = "compatible"
BREAKING: Compat = "breaking"
UNKNOWN: Compat = "unknown"  # no rule applies: review by hand

DEFAULT_ON_ERROR = "x-deserialize-default-on-error"
SKIP_INVALID_ITEMS = "x-deserialize-skip-invalid-items"
# Keywords that only change how malformed values decode; a valid message reads the same.
DECODING_KEYWORDS = frozenset(_DECODING_KEYWORDS)
DOCS_KEYWORDS = frozenset({"x-docs-ignore"})

# Keywords that constrain no value for these bindings: (wire verdict, API verdict, note).
ANNOTATIONS: Mapping[str, tuple[Compat, Compat, str]] = {
    "discriminator": (
        COMPATIBLE,
        COMPATIBLE,
        "an OpenAPI hint: decoders (these bindings too) pick the variant by its tag value",
    ),
    **{
        keyword: (
            UNKNOWN,
            COMPATIBLE,
            "the bindings keep such values as str; decoders that check the content may differ",
        )
        for keyword in ("contentEncoding", "contentMediaType")
    },
}


# Integer formats and the values they allow (what a Rust or TypeScript decoder enforces):
# the pre-pass's table, plus `uint` (a Rust usize), which no ACP schema uses yet.
INTEGER_FORMATS: Mapping[str, tuple[int, int]] = {
    **_PREPASS_INTEGER_FORMATS,
    "uint": (0, 2**64 - 1),
}


# Bounds: a larger lower bound or a smaller upper bound accepts fewer values.
LOWER_BOUNDS = frozenset(
    {"minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"}
)
UPPER_BOUNDS = frozenset(
    {"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"}
)


def bounds_effect(lower: bool, old: Any, new: Any) -> Effect:
    """How a lower (or upper) bound moving from `old` to `new` changes what is accepted."""
    numbers = (int, float)
    if (old is not None and not isinstance(old, numbers)) or (
        new is not None and not isinstance(new, numbers)
    ):
        return "unknown"
    if old == new:
        return "same"
    if old is None or new is None:  # a bound appeared or went away
        return "narrowed" if new is not None else "widened"
    return "narrowed" if (new > old if lower else new < old) else "widened"


def range_effect(old: tuple[float, float], new: tuple[float, float]) -> Effect:
    """The same for an allowed interval (an integer format's range)."""
    if old == new:
        return "same"
    if new[0] >= old[0] and new[1] <= old[1]:
        return "narrowed"
    if new[0] <= old[0] and new[1] >= old[1]:
        return "widened"
    return "changed"


def types_effect(old: frozenset[str] | None, new: frozenset[str] | None) -> Effect:
    """The same for JSON type sets; None is any type, and integers are numbers."""

    def covers(kinds: frozenset[str] | None, kind: str) -> bool:
        return kinds is None or kind in kinds or (kind == "integer" and "number" in kinds)

    old_in_new = new is None or (old is not None and all(covers(new, t) for t in old))
    new_in_old = old is None or (new is not None and all(covers(old, t) for t in new))
    if old_in_new and new_in_old:
        return "same"
    if old_in_new:
        return "widened"
    return "narrowed" if new_in_old else "changed"


# Python code meets bounds and enums through validation: narrowing rejects values it used
# to pass.
VALIDATION_API: Mapping[Effect, Compat] = {
    "same": COMPATIBLE,
    "widened": COMPATIBLE,
    "narrowed": BREAKING,
    "changed": BREAKING,
    "unknown": UNKNOWN,
}


_RANK: Mapping[Compat, int] = {COMPATIBLE: 0, UNKNOWN: 1, BREAKING: 2}


def worst(values: Iterable[Compat]) -> Compat:
    return max(values, key=_RANK.__getitem__, default=COMPATIBLE)


for_all = worst  # every case must be compatible; none at all is fine


def exists(values: Iterable[Compat]) -> Compat:
    """One compatible case is enough; with no case at all nothing can read the message."""
    return min(values, key=_RANK.__getitem__, default=BREAKING)
