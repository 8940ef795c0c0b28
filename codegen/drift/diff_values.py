"""How a change of the values a schema accepts reads on the wire and in the API: types,
`const` and `enum`, formats, bounds, patterns and annotations."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .diff_verdicts import (
    ANNOTATIONS,
    BREAKING,
    COMPATIBLE,
    INTEGER_FORMATS,
    LOWER_BOUNDS,
    UNKNOWN,
    UPPER_BOUNDS,
    VALIDATION_API,
    Effect,
    bounds_effect,
    range_effect,
    types_effect,
)
from .diff_walk import At, Emit, clip, wire
from .schema_views import dump, summary, types_of


class ValueRules:
    def __init__(self, emit: Emit) -> None:
        self.emit = emit

    def types(self, a: Mapping[str, Any], b: Mapping[str, Any], at: At) -> bool:
        """Report a type change; True when the types share nothing (nothing else to pair)."""
        old, new = types_of(a), types_of(b)
        if old == new:
            return False
        effect = types_effect(old, new)
        onr, nro, notes = wire(effect, at)
        self.emit(
            at,
            "type-changed",
            old=" | ".join(sorted(old)) if old is not None else "any",
            new=" | ".join(sorted(new)) if new is not None else "any",
            old_reads_new=onr,
            new_reads_old=nro,
            api=BREAKING,
            note="; ".join(notes),
        )
        return old is not None and new is not None and not (_numeric(old) & _numeric(new))

    def values(self, a: Mapping[str, Any], b: Mapping[str, Any], at: At) -> None:
        if "const" in a or "const" in b:
            old, new = a.get("const"), b.get("const")
            if ("const" in a) != ("const" in b) or dump(old) != dump(new):
                effect: Effect = (
                    "narrowed" if "const" not in a else "widened" if "const" not in b else "changed"
                )
                onr, nro, notes = wire(effect, at)
                self.emit(
                    at,
                    "const-changed",
                    old=dump(old) if "const" in a else None,
                    new=dump(new) if "const" in b else None,
                    old_reads_new=onr,
                    new_reads_old=nro,
                    api=BREAKING,
                    note="; ".join(notes),
                )
        old_enum, new_enum = a.get("enum"), b.get("enum")
        if old_enum == new_enum:
            return
        if not isinstance(old_enum, list) or not isinstance(new_enum, list):
            # An enum that appears restricts the values, one that goes away frees them.
            effect = (
                "narrowed"
                if old_enum is None and isinstance(new_enum, list)
                else "widened"
                if new_enum is None and isinstance(old_enum, list)
                else "unknown"
            )
            onr, nro, notes = wire(effect, at)
            self.emit(
                at,
                "enum-changed",
                old=summary({"enum": old_enum}) if old_enum is not None else None,
                new=summary({"enum": new_enum}) if new_enum is not None else None,
                old_reads_new=onr,
                new_reads_old=nro,
                api=VALIDATION_API[effect],
                note="; ".join(notes),
            )
            return
        old_values = {dump(v): v for v in old_enum}
        new_values = {dump(v): v for v in new_enum}
        for shown in sorted(old_values.keys() - new_values.keys()):
            onr, nro, notes = wire("narrowed", at)
            self.emit(
                at,
                "enum-value-removed",
                old=shown,
                old_reads_new=onr,
                new_reads_old=nro,
                api=BREAKING,
                note="; ".join(notes),
            )
        for shown in sorted(new_values.keys() - old_values.keys()):
            onr, nro, notes = wire("widened", at)
            self.emit(
                at,
                "enum-value-added",
                new=shown,
                old_reads_new=onr,
                new_reads_old=nro,
                note="; ".join(notes),
            )

    def formats(self, a: Mapping[str, Any], b: Mapping[str, Any], at: At) -> None:
        old, new = a.get("format"), b.get("format")
        if old == new:
            return
        if (old is None or old in INTEGER_FORMATS) and (new is None or new in INTEGER_FORMATS):
            unbounded = (float("-inf"), float("inf"))
            effect = range_effect(
                INTEGER_FORMATS.get(old, unbounded) if isinstance(old, str) else unbounded,
                INTEGER_FORMATS.get(new, unbounded) if isinstance(new, str) else unbounded,
            )
            onr, nro, notes = wire(effect, at)
            notes.append("the Python type stays int")
            api = COMPATIBLE
        else:
            from ..generate.prepass import TEXT_FORMATS

            # A format can only take values away, for decoders that check it at all.
            onr = COMPATIBLE if old is None else UNKNOWN
            nro = COMPATIBLE if new is None else UNKNOWN
            notes = []
            plain = {old, new} <= {None, *TEXT_FORMATS}
            api = COMPATIBLE if plain else UNKNOWN
            if plain:
                notes.append("the bindings keep such values as str")
        self.emit(
            at,
            "format-changed",
            old=old if isinstance(old, str) else None,
            new=new if isinstance(new, str) else None,
            old_reads_new=onr,
            new_reads_old=nro,
            api=api,
            note="; ".join(notes),
        )

    def bounds(self, a: Mapping[str, Any], b: Mapping[str, Any], at: At) -> None:
        for keyword in sorted((LOWER_BOUNDS | UPPER_BOUNDS) & (a.keys() | b.keys())):
            old, new = a.get(keyword), b.get(keyword)
            if dump(old) == dump(new):
                continue
            effect = bounds_effect(keyword in LOWER_BOUNDS, old, new)
            onr, nro, notes = wire(effect, at)
            if effect == "narrowed":
                notes.append("constructors with values outside the new bound fail validation")
            self.emit(
                at,
                "constraint-changed",
                old=f"{keyword}={dump(old)}" if old is not None else None,
                new=f"{keyword}={dump(new)}" if new is not None else None,
                old_reads_new=onr,
                new_reads_old=nro,
                api=VALIDATION_API[effect],
                note="; ".join(notes),
            )

    def pattern(self, a: Mapping[str, Any], b: Mapping[str, Any], at: At) -> None:
        """A pattern that appears narrows the strings accepted, one that goes away widens
        them; whether another pattern accepts more or fewer, the tool cannot tell."""
        old, new = a.get("pattern"), b.get("pattern")
        if old == new:
            return
        effect: Effect = "narrowed" if old is None else "widened" if new is None else "unknown"
        onr, nro, notes = wire(effect, at)
        if effect == "narrowed":
            notes.append("constructors with strings that do not match now fail validation")
        elif effect == "unknown":
            notes.append("whether the new pattern accepts more or fewer strings: review it")
        self.emit(
            at,
            "constraint-changed",
            old=f"pattern={clip(dump(old))}" if old is not None else None,
            new=f"pattern={clip(dump(new))}" if new is not None else None,
            old_reads_new=onr,
            new_reads_old=nro,
            api=VALIDATION_API[effect],
            note="; ".join(notes),
        )

    def annotations(self, a: Mapping[str, Any], b: Mapping[str, Any], at: At) -> None:
        for keyword in sorted(ANNOTATIONS.keys() & (a.keys() | b.keys())):
            old, new = a.get(keyword), b.get(keyword)
            if keyword in a and keyword in b and dump(old) == dump(new):
                continue
            wire, api, note = ANNOTATIONS[keyword]
            self.emit(
                at,
                "keyword-changed",
                old=f"{keyword}={clip(dump(old))}" if keyword in a else None,
                new=f"{keyword}={clip(dump(new))}" if keyword in b else None,
                old_reads_new=wire,
                new_reads_old=wire,
                api=api,
                note=note,
            )


def _numeric(kinds: frozenset[str]) -> frozenset[str]:
    """JSON types with integers counted as numbers: `integer` -> `number` still shares
    values, so the bounds and values beside the types are compared too."""
    return frozenset("number" if kind == "integer" else kind for kind in kinds)
