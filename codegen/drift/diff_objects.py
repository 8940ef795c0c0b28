"""Object changes: properties removed, added or made (not) required, extra properties,
array items; and the codemod that rewrites code for a removed property."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .diff_verdicts import BREAKING, COMPATIBLE, DEFAULT_ON_ERROR, SKIP_INVALID_ITEMS, Effect
from .diff_walk import At, Compare, Emit, absorber, wire
from .schema_views import accepts_extra, dump, summary

# Codemods of acp_schema.migrations that rewrite code for a removed property:
# (definition, wire property name) -> codemod id (run with `acp-schema migrate`).
CODEMODS: Mapping[tuple[str, str], str] = {
    ("SessionMessageChunk", "senderSessionId"): "chunk-identity",
    ("SessionMessageChunk", "recipientSessionId"): "chunk-identity",
}


def _snake(name: str) -> str:
    from datamodel_code_generator.util import camel_to_snake

    return str(camel_to_snake(name)).lstrip("_")


class ObjectRules:
    def __init__(self, emit: Emit, compare: Compare) -> None:
        self.emit = emit
        self.compare = compare

    def objects(self, a: Mapping[str, Any], b: Mapping[str, Any], at: At) -> None:
        raw_a, raw_b = a.get("properties"), b.get("properties")
        props_a = raw_a if isinstance(raw_a, dict) else {}
        props_b = raw_b if isinstance(raw_b, dict) else {}
        req_a = {r for r in a.get("required") or [] if isinstance(r, str)}
        req_b = {r for r in b.get("required") or [] if isinstance(r, str)}
        for name in sorted(props_a.keys() | props_b.keys() | req_a | req_b):
            here = at.child(name)
            if name in props_a and name not in props_b:
                self.property_removed(at, here, name, props_a[name], name in req_a, b)
            elif name in props_b and name not in props_a:
                self.property_added(at, here, name, props_b[name], name in req_b, a)
            else:
                if name in props_a:
                    child = at.child(
                        name, props_a[name], props_b[name], DEFAULT_ON_ERROR, on_property=True
                    )
                    self.compare(props_a[name], props_b[name], child)
                if (name in req_a) != (name in req_b):
                    self.requiredness(at, here, name, required=name in req_b)
        for keyword in ("additionalProperties", "unevaluatedProperties"):
            self.extra_properties(keyword, a, b, at)

    def property_removed(
        self, at: At, here: At, name: str, schema: Any, required: bool, new: Mapping[str, Any]
    ) -> None:
        # NEW messages lack it: only a problem for OLD decoders that required it.
        onr, _, notes = wire("widened" if required else "same", at)
        # OLD messages still carry it: NEW decoders ignore unknown keys unless closed.
        nro = COMPATIBLE if accepts_extra(new) else BREAKING
        notes.append(
            "new decoders ignore the key" if nro == COMPATIBLE else "the new object is closed"
        )
        snake = _snake(name)
        notes.append(f"field {snake} and builder with_{snake} are gone")
        self.emit(
            here,
            "property-removed",
            old=("required " if required else "optional ") + summary(schema),
            old_reads_new=onr,
            new_reads_old=nro,
            api=BREAKING,
            codemod=CODEMODS.get((at.definition, name)) if not at.path else None,
            note="; ".join(notes),
        )

    def property_added(
        self, at: At, here: At, name: str, schema: Any, required: bool, old: Mapping[str, Any]
    ) -> None:
        # NEW messages carry it: OLD decoders ignore unknown keys unless closed.
        onr = COMPATIBLE if accepts_extra(old) else BREAKING
        # OLD messages lack it: only a problem for NEW decoders that require it.
        _, nro, notes = wire("narrowed" if required else "same", at)
        notes.append(
            "old decoders ignore the key" if onr == COMPATIBLE else "the old object was closed"
        )
        snake = _snake(name)
        notes.append(
            f"new field {snake} and builder with_{snake}"
            + ("; constructors must now pass it" if required else "")
        )
        self.emit(
            here,
            "property-added",
            new=("required " if required else "optional ") + summary(schema),
            old_reads_new=onr,
            new_reads_old=nro,
            api=BREAKING if required else COMPATIBLE,
            note="; ".join(notes),
        )

    def requiredness(self, at: At, here: At, name: str, *, required: bool) -> None:
        # Becoming required narrows what the object accepts; becoming optional widens it.
        onr, nro, notes = wire("narrowed" if required else "widened", at)
        notes.append("constructors must now pass it" if required else "readers must handle MISSING")
        self.emit(
            here,
            "property-required" if required else "property-optional",
            old="optional" if required else "required",
            new="required" if required else "optional",
            old_reads_new=onr,
            new_reads_old=nro,
            api=BREAKING,
            note="; ".join(notes),
        )

    def extra_properties(
        self, keyword: str, a: Mapping[str, Any], b: Mapping[str, Any], at: At
    ) -> None:
        old, new = a.get(keyword, True), b.get(keyword, True)
        if isinstance(old, dict) and isinstance(new, dict):
            self.compare(old, new, at.child("*"))
            return
        if dump(old) == dump(new):
            return
        effect: Effect
        if old is True or new is False:
            effect = "narrowed"
        elif old is False or new is True:
            effect = "widened"
        else:
            effect = "unknown"
        onr, nro, notes = wire(effect, at)
        self.emit(
            at,
            "additional-properties-changed",
            old=f"{keyword}={summary(old)}",
            new=f"{keyword}={summary(new)}",
            old_reads_new=onr,
            new_reads_old=nro,
            api=BREAKING if effect == "narrowed" else COMPATIBLE,
            note="; ".join(notes),
        )

    def items(self, a: Mapping[str, Any], b: Mapping[str, Any], at: At) -> None:
        old, new = a.get("items", True), b.get("items", True)
        child = replace(
            at.child("[]"),
            old_absorbs=at.old_absorbs or absorber(a, SKIP_INVALID_ITEMS),
            new_absorbs=at.new_absorbs or absorber(b, SKIP_INVALID_ITEMS),
        )
        self.compare(old, new, child)
