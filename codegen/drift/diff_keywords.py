"""Changes of the keywords beside a schema's values: nullability, descriptions, `x-`
keywords and method routing, defaults and `deprecated`, and keywords without a rule."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from .diff_verdicts import (
    ANNOTATIONS,
    BREAKING,
    COMPATIBLE,
    DECODING_KEYWORDS,
    DOCS_KEYWORDS,
    LOWER_BOUNDS,
    UNKNOWN,
    UPPER_BOUNDS,
    Effect,
)
from .diff_walk import At, Emit, all_unknown, clip, wire
from .schema_structure import DOC_ONLY_KEYWORDS, structure
from .schema_views import dump, summary

_HANDLED = frozenset(
    {
        "$ref",
        "anyOf",
        "oneOf",
        "type",
        "const",
        "enum",
        "properties",
        "required",
        "items",
        "additionalProperties",
        "unevaluatedProperties",
        "format",
        "default",
        "deprecated",
        "pattern",
        *LOWER_BOUNDS,
        *UPPER_BOUNDS,
        *ANNOTATIONS,
    }
)


class KeywordRules:
    def __init__(self, emit: Emit, depth: int) -> None:
        self.emit = emit
        self.depth = depth  # nested in a shape comparison (see `extensions`)

    def prose(self, a: Mapping[str, Any], b: Mapping[str, Any], at: At) -> None:
        for keyword in ("description", "title"):
            if a.get(keyword) != b.get(keyword):
                self.emit(
                    at,
                    f"{keyword}-changed",
                    old=clip(a.get(keyword)),
                    new=clip(b.get(keyword)),
                )

    def nullability(self, at: At, *, removed: bool, old: Any, new: Any) -> None:
        effect: Effect = "narrowed" if removed else "widened"
        onr, nro, notes = wire(effect, at)
        notes.append("constructors given None now fail" if removed else "readers may now get None")
        self.emit(
            at,
            "nullable-removed" if removed else "nullable-added",
            old=summary(old) + (" | null" if removed else ""),
            new=summary(new) + ("" if removed else " | null"),
            old_reads_new=onr,
            new_reads_old=nro,
            api=BREAKING,
            note="; ".join(notes),
        )

    def extensions(self, a: Mapping[str, Any], b: Mapping[str, Any], at: At) -> None:
        if not self.depth:  # a shape comparison asks which values pass: routing is not one
            self.methods(at, a, b)
        for keyword in sorted(k for k in a.keys() | b.keys() if k.startswith("x-")):
            if keyword in ("x-method", "x-side"):
                continue
            old, new = a.get(keyword), b.get(keyword)
            if keyword in a and keyword in b and dump(old) == dump(new):
                continue
            kind = (
                "x-keyword-added"
                if keyword not in a
                else "x-keyword-removed"
                if keyword not in b
                else "x-keyword-changed"
            )
            fields: dict[str, Any] = {
                "old": f"{keyword}={dump(old)}" if keyword in a else None,
                "new": f"{keyword}={dump(new)}" if keyword in b else None,
            }
            if keyword in DECODING_KEYWORDS:
                fields["note"] = "valid messages decode the same; only malformed values differ"
            elif keyword in DOCS_KEYWORDS:
                fields["note"] = "documentation only"
            else:
                fields.update(all_unknown(), note="an extension keyword this tool does not know")
            self.emit(at, kind, **fields)

    def methods(self, at: At, a: Mapping[str, Any], b: Mapping[str, Any]) -> None:
        old_method, new_method = a.get("x-method"), b.get("x-method")
        old_side, new_side = a.get("x-side"), b.get("x-side")
        old_text = f"{old_method} ({old_side})" if old_method is not None else None
        new_text = f"{new_method} ({new_side})" if new_method is not None else None
        if old_method == new_method and old_side == new_side:
            return
        if old_method is None:
            self.emit(
                at,
                "method-added",
                new=new_text,
                note="a new entry in METHODS; peers that do not know it answer 'method not found'",
            )
        elif new_method is None:
            self.emit(
                at,
                "method-removed",
                old=old_text,
                new_reads_old=BREAKING,
                api=BREAKING,
                note="calls from old peers are no longer understood; its METHODS entry is gone",
            )
        else:
            kind = "method-changed" if old_method != new_method else "side-changed"
            self.emit(
                at,
                kind,
                old=old_text,
                new=new_text,
                old_reads_new=BREAKING,
                new_reads_old=BREAKING,
                api=BREAKING,
                note="the two sides no longer route this message the same way",
            )

    def defaults(self, a: Mapping[str, Any], b: Mapping[str, Any], at: At) -> None:
        for keyword in ("default", "deprecated"):
            old, new = a.get(keyword), b.get(keyword)
            if keyword in a and keyword in b and dump(old) == dump(new):
                continue
            if keyword not in a and keyword not in b:
                continue
            if keyword == "deprecated":
                self.emit(
                    at,
                    "deprecated-changed",
                    old=dump(old) if keyword in a else None,
                    new=dump(new) if keyword in b else None,
                    note="documentation for users; nothing decodes differently",
                )
                continue
            self.emit(
                at,
                "default-changed",
                old=dump(old) if keyword in a else None,
                new=dump(new) if keyword in b else None,
                **_default_verdict(a, b, at),
            )

    def others(self, a: Mapping[str, Any], b: Mapping[str, Any], at: At, *, skip_not: bool) -> None:
        """Keywords without a rule of their own: reported, classified unknown."""
        ignored = _HANDLED | DOC_ONLY_KEYWORDS
        # A scratch comparison (`reads`) keeps only the worst verdict, and each change
        # here is unknown all round: it stops at the first, in any order (a schema with
        # thousands of unknown keywords is compared with every variant of a union).
        keywords = itertools.chain(a, (k for k in b if k not in a))
        for keyword in keywords if self.depth > 0 else sorted(a.keys() | b.keys()):
            if keyword in ignored or keyword.startswith("x-"):
                continue
            if keyword == "not" and skip_not:
                continue  # an open variant's `not` lists the known tags: reported as variants
            old, new = a.get(keyword), b.get(keyword)
            if keyword in a and keyword in b and dump(structure(old)) == dump(structure(new)):
                continue
            self.emit(
                at,
                "keyword-changed",
                old=f"{keyword}={clip(dump(structure(old)))}" if keyword in a else None,
                new=f"{keyword}={clip(dump(structure(new)))}" if keyword in b else None,
                **all_unknown(),
                note=f"no rule for {keyword!r}: review it",
            )
            if self.depth > 0:
                return


def _default_verdict(a: Mapping[str, Any], b: Mapping[str, Any], at: At) -> dict[str, Any]:
    """API verdict and note of a `default` that appeared, went away or changed.

    The pre-pass drops the default of a property (one without `const`): the bindings leave
    an omitted value MISSING, so their API does not depend on it. Elsewhere the generator
    may apply it, and an omitted value would decode differently.
    """
    added, removed = "default" not in a, "default" not in b
    if at.on_property and "const" not in a and "const" not in b:
        missing = "the bindings leave an omitted value MISSING"
        if added:
            return {"note": f"{missing}; the schema now reads it as {dump(b['default'])}"}
        if removed:
            return {"note": f"{missing}; the schema no longer says how to read it"}
        return {
            "api": UNKNOWN,
            "note": f"{missing}; code that reads MISSING as {dump(a['default'])} must now "
            f"read it as {dump(b['default'])}: review it",
        }
    return {
        "api": COMPATIBLE if added else BREAKING,
        "note": "an omitted value now decodes "
        + ("as MISSING" if removed else f"as {dump(b['default'])}"),
    }
