"""Structural diff of two ACP schemas, each change classified for the wire and the API.

The two documents are walked side by side. Definitions pair by name, properties by name,
``$ref`` targets by the name they point to, and the members of an ``anyOf``/``oneOf`` by
what identifies them: the tag value of a tagged variant (``sessionUpdate=session_message``),
the ``const`` of an enum-like member, the ``$ref`` or ``title`` of a plain member, ``other``
for the open variant guarded by ``not``, ``null``, or the bare ``type``. In reports a tag
reads ``<type=text>`` and the others ``<const:"read">``, ``<ref:SessionId>``,
``<title:Result>``, ``<type:integer>``. Nullability
(``type: [X, "null"]`` or a ``{"type": "null"}`` member) is one fact, reported on its own.
When a ``$ref`` changes target (or an inline schema becomes a ``$ref``), the two sides are
compared through the reference, so the report says what the change means at that place.

Every change answers three questions (see docs/drift.md for the full table):

* **old reads new**: can a decoder built from OLD read any message valid under NEW?
* **new reads old**: can a decoder built from NEW read any message valid under OLD?
* **api**: does Python code written against the OLD bindings still work with the NEW ones?

Each answer is ``compatible``, ``breaking`` or ``unknown`` (the tool cannot tell, e.g. a
changed ``pattern``). Decoders follow the ACP rules: unknown properties are ignored, a
value that fails under ``x-deserialize-default-on-error`` counts as omitted, and array items
that fail under ``x-deserialize-skip-invalid-items`` are dropped. Such a value is lost but
the message still decodes, so the change is wire-compatible (the note says so). A member
that only one side of an untagged union has is read by a member of the other side that
accepts all its values (a JSON-RPC envelope's extension params take any method's). Only the
keywords inside the changed definition are considered: a definition is judged on its own,
not at each place that uses it.

Description and title changes are kept apart and only reported on request.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from .bundled import VERSIONS, bundled_schema
from .diff_bindings import binding_homes
from .diff_verdicts import (
    ANNOTATIONS,
    BREAKING,
    COMPATIBLE,
    DECODING_KEYWORDS,
    DEFAULT_ON_ERROR,
    DOCS_KEYWORDS,
    INTEGER_FORMATS,
    LOWER_BOUNDS,
    SKIP_INVALID_ITEMS,
    UNKNOWN,
    UPPER_BOUNDS,
    VALIDATION_API,
    Compat,
    Effect,
    bounds_effect,
    exists,
    for_all,
    range_effect,
    types_effect,
    worst,
)
from .schema_check import Problem, SchemaError, iter_subschemas, json_type, parse_schema_file
from .schema_structure import DOC_ONLY_KEYWORDS, structure
from .schema_views import (
    accepts_extra,
    accepts_null,
    dump,
    is_any,
    is_local_ref,
    is_open_for,
    join_location,
    keyed_members,
    member_kind,
    ref_name,
    ref_of,
    split_null,
    summary,
    types_of,
    union_keyword,
    without_ref,
)

__all__ = [
    "CODEMODS",
    "ROOT",
    "Change",
    "DiffReport",
    "SchemaInput",
    "diff_documents",
    "diff_files",
    "read_document",
    "resolve_input",
]


ROOT = "(root)"  # the part of a document outside $defs

# Codemods of acp_schema.migrations that rewrite code for a removed property:
# (definition, wire property name) -> codemod id (run with `acp-schema migrate`).
CODEMODS: Mapping[tuple[str, str], str] = {
    ("SessionMessageChunk", "senderSessionId"): "chunk-identity",
    ("SessionMessageChunk", "recipientSessionId"): "chunk-identity",
}


_MAX_SCRATCH_DEPTH = 4
_MAX_PROSE = 80


# --- the result --------------------------------------------------------------------------


@dataclass(frozen=True)
class Change:
    """One difference between OLD and NEW, and what it means."""

    definition: str  # name in $defs, or ROOT
    location: str  # inside the definition: "senderSessionId", "content[]", "<type=text>", ""
    kind: str
    old: str | None = None  # short description of the OLD side (names and types, no prose)
    new: str | None = None
    old_reads_new: Compat = COMPATIBLE
    new_reads_old: Compat = COMPATIBLE
    api: Compat = COMPATIBLE
    codemod: str | None = None
    note: str = ""

    @property
    def where(self) -> str:
        """Definition and location as one string: `SessionMessageChunk.senderSessionId`."""
        return join_location(self.definition, self.location)

    def sort_key(self) -> tuple[str, ...]:
        return (self.definition, self.location, self.kind, self.old or "", self.new or "")

    def to_json(self) -> dict[str, Any]:
        return {
            "definition": self.definition,
            "location": self.location,
            "kind": self.kind,
            "old": self.old,
            "new": self.new,
            "wire": {"old_reads_new": self.old_reads_new, "new_reads_old": self.new_reads_old},
            "api": self.api,
            "codemod": self.codemod,
            "note": self.note,
        }


@dataclass(frozen=True)
class SchemaInput:
    label: str  # how reports name this side
    path: Path


@dataclass
class DiffReport:
    old: str
    new: str
    changes: list[Change]
    warnings: list[str] = field(default_factory=list)


# --- reading -----------------------------------------------------------------------------


def resolve_input(arg: str) -> SchemaInput:
    """A bundled version (`v1`, `v2`) or a schema file path.

    An unknown version-like name (`v3`) that is not an existing file is an error; a file
    literally named `v1` can be given as `./v1`.
    """
    if arg in VERSIONS:
        return SchemaInput(f"bundled {arg}", bundled_schema(arg))
    path = Path(arg)
    if not path.exists() and arg[:1] == "v" and arg[1:].isdigit():
        raise ValueError(
            f"unknown protocol version {arg!r}: the bundled versions are "
            f"{', '.join(VERSIONS)}; or give the path of a schema file"
        )
    return SchemaInput(arg, path)


def read_document(path: str | os.PathLike[str]) -> tuple[dict[str, Any], list[str]]:
    """Parse a schema file for diffing: the document and warnings.

    Raises SchemaError when the file is unreadable, not JSON, or not a schema the diff can
    walk (top level not an object, a definition that is not a schema, a ``$ref`` into
    ``$defs`` that does not resolve). The full Draft 2020-12 check is ``acp-schema schema
    check``; it costs more than the whole diff, so it is not repeated here.
    """
    doc, duplicates = parse_schema_file(path)
    problems = _walkable(doc)
    if problems:
        raise SchemaError(path, problems)
    assert isinstance(doc, dict)  # _walkable reports anything else
    return doc, [str(p) for p in duplicates]


def _walkable(doc: object) -> list[Problem]:
    if not isinstance(doc, dict):
        kind = json_type(doc)
        return [Problem("", f"top level must be a JSON object (a schema), got {kind}")]
    problems = []
    names: set[str] = set()
    for key in ("$defs", "definitions"):
        defs = doc.get(key)
        if defs is None:
            continue
        if not isinstance(defs, dict):
            problems.append(Problem(f"/{key}", f"{key} must be an object of schemas"))
            continue
        for name, body in defs.items():
            if not isinstance(body, (dict, bool)):
                problems.append(Problem(f"/{key}/{name}", "a definition must be a schema"))
            names.add(f"#/{key}/{name}")
    for pointer, schema in iter_subschemas(doc):
        ref = schema.get("$ref")
        if ref is None:
            continue
        if not isinstance(ref, str):
            problems.append(Problem(pointer, f"$ref must be a string, got {ref!r}"))
        elif is_local_ref(ref) and ref not in names:
            problems.append(Problem(pointer, f"$ref {ref!r} does not resolve"))
    return sorted(set(problems))


def diff_files(old: SchemaInput, new: SchemaInput, *, descriptions: bool = False) -> DiffReport:
    old_doc, old_warnings = read_document(old.path)
    new_doc, new_warnings = read_document(new.path)
    changes, warnings = diff_documents(old_doc, new_doc, descriptions=descriptions)
    labelled = [f"{old.label}: {w}" for w in old_warnings]
    labelled += [f"{new.label}: {w}" for w in new_warnings]
    return DiffReport(old.label, new.label, changes, labelled + warnings)


def diff_documents(
    old: Mapping[str, Any], new: Mapping[str, Any], *, descriptions: bool = False
) -> tuple[list[Change], list[str]]:
    """All changes from `old` to `new`, sorted, and warnings about what was not compared."""
    differ = _Differ(_Doc(old), _Doc(new), descriptions)
    differ.run()
    unique = {json.dumps(c.to_json(), sort_keys=True): c for c in differ.changes}
    return sorted(unique.values(), key=Change.sort_key), sorted(set(differ.warnings))


# --- schema views ------------------------------------------------------------------------


class _Doc:
    def __init__(self, doc: Mapping[str, Any]) -> None:
        self.doc = doc
        self.defs: dict[str, Any] = {}
        for key in ("definitions", "$defs"):
            defs = doc.get(key)
            if isinstance(defs, dict):
                self.defs.update(defs)
        self.root = {k: v for k, v in doc.items() if k not in ("$defs", "definitions")}

    def resolve(self, name: str) -> Any:
        return self.defs.get(name)


def _snake(name: str) -> str:
    from datamodel_code_generator.util import camel_to_snake

    return str(camel_to_snake(name)).lstrip("_")


# --- the walk ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _At:
    """Where the walk is, and what the decoders on each side do with a failure there."""

    definition: str
    path: tuple[str, ...] = ()
    old_absorbs: str | None = None  # keyword that turns an OLD decode failure here into loss
    new_absorbs: str | None = None
    chasing: frozenset[tuple[str, str]] = frozenset()  # ref pairs being compared through
    on_property: bool = False  # the schema of an object property (where defaults sit)

    @property
    def location(self) -> str:
        out = ""
        for segment in self.path:
            out = join_location(out, segment)
        return out

    def child(
        self,
        segment: str,
        old: Any = None,
        new: Any = None,
        absorbing: str = "",
        *,
        on_property: bool = False,
    ) -> _At:
        """One level down; `absorbing` is the keyword that absorbs failures below here."""
        old_abs = self.old_absorbs or _absorber(old, absorbing)
        new_abs = self.new_absorbs or _absorber(new, absorbing)
        return replace(
            self,
            path=(*self.path, segment),
            old_absorbs=old_abs,
            new_absorbs=new_abs,
            on_property=on_property,
        )


def _absorber(node: Any, keyword: str) -> str | None:
    return keyword if keyword and isinstance(node, dict) and node.get(keyword) is True else None


def _wire(
    effect: Effect,
    at: _At,
    *,
    old_open: bool = False,
    new_open: bool = False,
    open_as: str = "the open variant",
) -> tuple[Compat, Compat, list[str]]:
    """Wire compatibility of a change that makes the accepted values move by `effect`."""
    if effect == "unknown":
        return UNKNOWN, UNKNOWN, []
    notes: list[str] = []

    def reader(side: str, affected: bool, is_open: bool, absorbs: str | None) -> Compat:
        """Can `side`'s decoders read values the other side may now send?"""
        if not affected:
            return COMPATIBLE
        if is_open:
            notes.append(f"{side} decoders take it as {open_as}")
        elif absorbs:
            notes.append(f"{side} decoders drop the value ({absorbs})")
        else:
            return BREAKING
        return COMPATIBLE

    # widened: NEW may send what OLD rejects; narrowed: OLD may send what NEW rejects
    old_reads_new = reader("old", effect in ("widened", "changed"), old_open, at.old_absorbs)
    new_reads_old = reader("new", effect in ("narrowed", "changed"), new_open, at.new_absorbs)
    return old_reads_new, new_reads_old, notes


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


# Where a switch between two references was first compared, and its worst verdicts; per
# absorbing context, shared by every place that makes the same switch.
_Through = dict[
    tuple[tuple[str, str], str | None, str | None], tuple[str, tuple[Compat, Compat, Compat]]
]


class _Differ:
    def __init__(
        self,
        old: _Doc,
        new: _Doc,
        descriptions: bool,
        through: _Through | None = None,
        depth: int = 0,
    ) -> None:
        self.old = old
        self.new = new
        self.descriptions = descriptions
        self.depth = depth  # how many shape comparisons this one is nested in
        self.through: _Through = {} if through is None else through
        self.changes: list[Change] = []
        self.warnings: list[str] = []

    def emit(self, at: _At, kind: str, **fields: Any) -> None:
        self.add(Change(at.definition, at.location, kind, **fields))

    def add(self, change: Change) -> None:
        if change.definition == ROOT and change.api != COMPATIBLE:
            # The generator makes no class of the root schema (--skip-root-model).
            note = "; ".join(n for n in (change.note, "the bindings have no root class") if n)
            change = replace(change, api=COMPATIBLE, note=note)
        self.changes.append(change)

    # definitions

    def run(self) -> None:
        old_defs, new_defs = self.old.defs, self.new.defs
        for name in sorted(old_defs.keys() - new_defs.keys()):
            at = _At(name)
            self.emit(
                at,
                "definition-removed",
                old=summary(old_defs[name]),
                api=BREAKING,
                note=f"{name} is no longer generated (uses of it are reported where they are)",
            )
            self.methods(at, old_defs[name], {})
        for name in sorted(new_defs.keys() - old_defs.keys()):
            at = _At(name)
            self.emit(at, "definition-added", new=summary(new_defs[name]))
            self.methods(at, {}, new_defs[name])
        for name in sorted(old_defs.keys() & new_defs.keys()):
            if old_defs[name] != new_defs[name]:
                self.compare(old_defs[name], new_defs[name], _At(name))
        if self.old.root != self.new.root:
            self.compare(self.old.root, self.new.root, _At(ROOT))
        self.bindings()

    def bindings(self) -> None:
        """Classes the generator hoists out of unions (not in $defs) that appear or vanish."""
        old = binding_homes(self.old.doc, self.warnings, "OLD")
        new = binding_homes(self.new.doc, self.warnings, "NEW")
        if old is None or new is None:
            return
        (old_names, old_where), (new_names, new_where) = old, new
        for name in sorted(old_names - new_names - self.old.defs.keys()):
            definition, location = old_where.get(name, (name, ""))
            at = _At(definition, (location,) if location else ())
            self.emit(
                at,
                "binding-removed",
                old=name,
                api=BREAKING,
                note=f"the bindings no longer have the class {name}",
            )
        for name in sorted(new_names - old_names - self.new.defs.keys()):
            definition, location = new_where.get(name, (name, ""))
            at = _At(definition, (location,) if location else ())
            self.emit(at, "binding-added", new=name, note=f"new class {name} in the bindings")

    # one schema against another

    def compare(self, a: Any, b: Any, at: _At, *, other_member: bool = False) -> None:
        if a == b:
            return
        if not isinstance(a, dict) or not isinstance(b, dict):
            self.emit(at, "schema-changed", old=summary(a), new=summary(b), **_all_unknown())
            return
        if self.descriptions:
            self.prose(a, b, at)
        old_null, a = split_null(a)
        new_null, b = split_null(b)
        # A side without the null alternative that constrains no type accepts null anyway.
        if old_null != new_null and not accepts_null(b if old_null else a):
            self.nullability(at, removed=old_null, old=a, new=b)
        ref_a, ref_b = ref_of(a), ref_of(b)
        if ref_a != ref_b:
            self.ref_changed(a, b, ref_a, ref_b, at)
            return
        a, b = without_ref(a), without_ref(b)
        if self.union(a, b, at):
            return
        if self.types(a, b, at):
            return
        self.values(a, b, at)
        self.objects(a, b, at)
        if isinstance(a.get("items"), dict) or isinstance(b.get("items"), dict):
            self.items(a, b, at)
        self.formats(a, b, at)
        self.bounds(a, b, at)
        self.pattern(a, b, at)
        self.annotations(a, b, at)
        self.extensions(a, b, at)
        self.defaults(a, b, at)
        self.others(a, b, at, skip_not=other_member)

    def prose(self, a: Mapping[str, Any], b: Mapping[str, Any], at: _At) -> None:
        for keyword in ("description", "title"):
            if a.get(keyword) != b.get(keyword):
                self.emit(
                    at,
                    f"{keyword}-changed",
                    old=_clip(a.get(keyword)),
                    new=_clip(b.get(keyword)),
                )

    def nullability(self, at: _At, *, removed: bool, old: Any, new: Any) -> None:
        effect: Effect = "narrowed" if removed else "widened"
        onr, nro, notes = _wire(effect, at)
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

    def ref_changed(
        self, a: dict[str, Any], b: dict[str, Any], ref_a: str | None, ref_b: str | None, at: _At
    ) -> None:
        """A different $ref target (or inline <-> $ref): compare through the references.

        The differences behind one switch are listed once, at the first place (in walk
        order) that makes it; every place's `ref-changed` carries their worst verdicts.
        Renaming many definitions therefore costs, and reports, one comparison per pair.
        """
        old_target = self.old.resolve(ref_name(ref_a)) if ref_a else a
        new_target = self.new.resolve(ref_name(ref_b)) if ref_b else b
        classes = any(
            isinstance(t, dict) and (t.get("type") == "object" or "properties" in t)
            for t in (old_target, new_target)
        )
        fields: dict[str, Any] = {
            "old": ref_name(ref_a) if ref_a else "inline " + summary(a),
            "new": ref_name(ref_b) if ref_b else "inline " + summary(b),
        }
        if not all(r is None or is_local_ref(r) for r in (ref_a, ref_b)):
            note = "a reference outside this document: not compared"
            self.emit(at, "ref-changed", **fields, **_all_unknown(), note=note)
            return
        notes = ["the field's class changes" if classes else "the Python type keeps its shape"]
        verdicts: tuple[Compat, Compat, Compat] = (COMPATIBLE, COMPATIBLE, COMPATIBLE)
        pair = (ref_a or "inline " + dump(structure(a)), ref_b or "inline " + dump(structure(b)))
        key = (pair, at.old_absorbs, at.new_absorbs)
        if pair in at.chasing:
            notes.append("a cycle: compared further out")
        elif key in self.through:
            first, verdicts = self.through[key]
            notes.append(f"through the reference: as at {first}")
        else:
            inner = _Differ(self.old, self.new, self.descriptions, self.through, self.depth)
            deeper = replace(at, chasing=at.chasing | {pair})
            inner.compare(self.merged(a, self.old), self.merged(b, self.new), deeper)
            verdicts = _fold(inner.changes)
            where = Change(at.definition, at.location, "").where
            self.through[key] = (where, verdicts)
            self.changes.extend(inner.changes)
            if inner.changes:
                notes.append(f"through the reference: {len(inner.changes)} change(s), listed here")
        self.emit(
            at,
            "ref-changed",
            **fields,
            old_reads_new=verdicts[0],
            new_reads_old=verdicts[1],
            api=worst([verdicts[2], BREAKING if classes else COMPATIBLE]),
            note="; ".join(notes),
        )

    def merged(self, node: dict[str, Any], doc: _Doc) -> dict[str, Any]:
        """`node` with its reference chain resolved and its own keywords on top."""
        seen: set[str] = set()
        while (ref := ref_of(node)) is not None and ref not in seen and is_local_ref(ref):
            seen.add(ref)
            target = doc.resolve(ref_name(ref))
            own = without_ref(node)
            base = dict(target) if isinstance(target, dict) else {}
            for key, value in own.items():
                if (
                    key == "properties"
                    and isinstance(base.get(key), dict)
                    and isinstance(value, dict)
                ):
                    base[key] = {**base[key], **value}
                elif (
                    key == "required"
                    and isinstance(base.get(key), list)
                    and isinstance(value, list)
                ):
                    base[key] = list(dict.fromkeys([*base[key], *value]))
                else:
                    base[key] = value
            node = base
        return node

    # unions

    def union(self, a: dict[str, Any], b: dict[str, Any], at: _At) -> bool:
        """Compare anyOf/oneOf members; True when the shapes differ too much to go on."""
        key_a, key_b = union_keyword(a), union_keyword(b)
        if key_a is None and key_b is None:
            return False
        if key_a is None or key_b is None:
            self.shape_changed(a, b, at)
            return True
        if key_a != key_b:
            self.emit(
                at,
                "union-kind-changed",
                old=key_a,
                new=key_b,
                note="decoders (these bindings too) take a matching variant either way; only "
                "a strict JSON Schema validator rejects a message that matches several "
                "variants under oneOf",
            )
        old_members, new_members = keyed_members(a[key_a]), keyed_members(b[key_b])
        _pair_lookalikes(old_members, new_members)
        for key in sorted(old_members.keys() - new_members.keys()):
            self.member(at, key, old_members[key], new_members, removed=True)
        for key in sorted(new_members.keys() - old_members.keys()):
            self.member(at, key, new_members[key], old_members, removed=False)
        for key in sorted(old_members.keys() & new_members.keys()):
            old_m, new_m = old_members[key], new_members[key]
            self.compare(old_m, new_m, at.child(f"<{key}>"), other_member=key == "other")
        return False

    def shape_changed(self, a: dict[str, Any], b: dict[str, Any], at: _At) -> None:
        """A single shape became a union or the reverse.

        Classified by comparing the single shape with each variant: OLD decoders read NEW
        messages if, for every NEW variant (or the one shape), some OLD variant (or the one
        shape) reads it; the same the other way round.
        """
        old_variants, new_variants = self.variants(a, self.old), self.variants(b, self.new)
        if self.depth >= _MAX_SCRATCH_DEPTH:  # unions of unions of ...: stop judging
            old_reads_new = new_reads_old = UNKNOWN
        else:
            old_reads_new = for_all(
                exists(self.reads(o, n, at, "old_reads_new") for o in old_variants)
                for n in new_variants
            )
            new_reads_old = for_all(
                exists(self.reads(o, n, at, "new_reads_old") for n in new_variants)
                for o in old_variants
            )
        self.emit(
            at,
            "shape-changed",
            old=summary(a),
            new=summary(b),
            old_reads_new=old_reads_new,
            new_reads_old=new_reads_old,
            api=BREAKING,
            note="a single shape became a union or the reverse; wire verdicts compare it "
            "with each variant",
        )

    def variants(self, node: dict[str, Any], doc: _Doc) -> list[tuple[dict[str, Any], bool]]:
        """A union's members, resolved and with the union's own keywords (a value must
        pass both), each with whether it is the open variant; a node that is no union is
        its own one variant."""
        keyword = union_keyword(node)
        if keyword is None:
            return [(node, False)]
        own = {k: v for k, v in node.items() if k != keyword and k not in DOC_ONLY_KEYWORDS}
        return [
            (_conjoin(own, self.merged(member, doc)), key == "other")
            for key, member in keyed_members(node[keyword]).items()
            if isinstance(member, dict)
        ]

    def reads(
        self,
        old: tuple[dict[str, Any], bool],
        new: tuple[dict[str, Any], bool],
        at: _At,
        direction: Literal["old_reads_new", "new_reads_old"],
    ) -> Compat:
        """One direction's verdict between two variants; their changes are not reported."""
        differ = _Differ(self.old, self.new, descriptions=False, depth=self.depth + 1)
        differ.compare(old[0], new[0], at, other_member=old[1] or new[1])
        return worst(getattr(c, direction) for c in differ.changes)

    def member(
        self, at: _At, key: str, member: Any, others: Mapping[str, Any], *, removed: bool
    ) -> None:
        """A union member that only one side has; `others` are the other side's members."""
        kind_of_member = member_kind(member, 0)[0]
        open_ = is_open_for(others, member)
        open_as = "the open variant"
        if not open_ and kind_of_member != "tag":  # tagged unions decode by tag, not by shape
            reader = self.reader_of(member, others, at, removed=removed)
            if reader is not None:
                open_, open_as = True, f"<{reader}>"
        if removed:
            onr, nro, notes = _wire("narrowed", at, new_open=open_, open_as=open_as)
        else:
            onr, nro, notes = _wire("widened", at, old_open=open_, open_as=open_as)
        if kind_of_member == "const":
            kind = "enum-value-removed" if removed else "enum-value-added"
            shown = dump(member["const"])
        else:
            kind = "variant-removed" if removed else "variant-added"
            shown = key if kind_of_member == "tag" else summary(member)
        notes.append(
            "code that builds or matches it breaks"
            if removed
            else "exhaustive matches on this union need a new case"
        )
        self.emit(
            at.child(f"<{key}>"),
            kind,
            old=shown if removed else None,
            new=None if removed else shown,
            old_reads_new=onr,
            new_reads_old=nro,
            api=BREAKING if removed else COMPATIBLE,
            note="; ".join(notes),
        )

    def reader_of(
        self, member: Any, others: Mapping[str, Any], at: _At, *, removed: bool
    ) -> str | None:
        """The first member of the other side that accepts every value of `member`.

        Decoders try an untagged union's members in turn, so such a member reads the
        values of one the other side lacks: an extension's `{}` params read a new method's
        params (the bindings decode that message as `<Envelope>Other`).
        """
        if self.depth >= _MAX_SCRATCH_DEPTH or not isinstance(member, dict):
            return None
        mine_doc, their_doc = (self.old, self.new) if removed else (self.new, self.old)
        mine = (self.merged(member, mine_doc), False)
        resolved = {
            key: self.merged(other, their_doc) if isinstance(other, dict) else other
            for key, other in others.items()
        }
        # A member that takes anything (an extension's) is where decoders put the rest.
        for key in sorted(resolved, key=lambda k: (not is_any(resolved[k]), k)):
            other = resolved[key]
            if is_any(other):
                return key
            if not isinstance(other, dict):
                continue
            theirs = (other, key == "other")
            if removed:
                verdict = self.reads(mine, theirs, at, "new_reads_old")
            else:
                verdict = self.reads(theirs, mine, at, "old_reads_new")
            if verdict == COMPATIBLE:
                return key
        return None

    # scalars

    def types(self, a: Mapping[str, Any], b: Mapping[str, Any], at: _At) -> bool:
        """Report a type change; True when the types share nothing (nothing else to pair)."""
        old, new = types_of(a), types_of(b)
        if old == new:
            return False
        effect = types_effect(old, new)
        onr, nro, notes = _wire(effect, at)
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
        return old is not None and new is not None and not (old & new)

    def values(self, a: Mapping[str, Any], b: Mapping[str, Any], at: _At) -> None:
        if "const" in a or "const" in b:
            old, new = a.get("const"), b.get("const")
            if ("const" in a) != ("const" in b) or dump(old) != dump(new):
                effect: Effect = (
                    "narrowed" if "const" not in a else "widened" if "const" not in b else "changed"
                )
                onr, nro, notes = _wire(effect, at)
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
            onr, nro, notes = _wire(effect, at)
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
            onr, nro, notes = _wire("narrowed", at)
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
            onr, nro, notes = _wire("widened", at)
            self.emit(
                at,
                "enum-value-added",
                new=shown,
                old_reads_new=onr,
                new_reads_old=nro,
                note="; ".join(notes),
            )

    def formats(self, a: Mapping[str, Any], b: Mapping[str, Any], at: _At) -> None:
        old, new = a.get("format"), b.get("format")
        if old == new:
            return
        if (old is None or old in INTEGER_FORMATS) and (new is None or new in INTEGER_FORMATS):
            unbounded = (float("-inf"), float("inf"))
            effect = range_effect(
                INTEGER_FORMATS.get(old, unbounded) if isinstance(old, str) else unbounded,
                INTEGER_FORMATS.get(new, unbounded) if isinstance(new, str) else unbounded,
            )
            onr, nro, notes = _wire(effect, at)
            notes.append("the Python type stays int")
            api = COMPATIBLE
        else:
            from .prepass import TEXT_FORMATS

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

    def bounds(self, a: Mapping[str, Any], b: Mapping[str, Any], at: _At) -> None:
        for keyword in sorted((LOWER_BOUNDS | UPPER_BOUNDS) & (a.keys() | b.keys())):
            old, new = a.get(keyword), b.get(keyword)
            if dump(old) == dump(new):
                continue
            effect = bounds_effect(keyword in LOWER_BOUNDS, old, new)
            onr, nro, notes = _wire(effect, at)
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

    def pattern(self, a: Mapping[str, Any], b: Mapping[str, Any], at: _At) -> None:
        """A pattern that appears narrows the strings accepted, one that goes away widens
        them; whether another pattern accepts more or fewer, the tool cannot tell."""
        old, new = a.get("pattern"), b.get("pattern")
        if old == new:
            return
        effect: Effect = "narrowed" if old is None else "widened" if new is None else "unknown"
        onr, nro, notes = _wire(effect, at)
        if effect == "narrowed":
            notes.append("constructors with strings that do not match now fail validation")
        elif effect == "unknown":
            notes.append("whether the new pattern accepts more or fewer strings: review it")
        self.emit(
            at,
            "constraint-changed",
            old=f"pattern={_clip(dump(old))}" if old is not None else None,
            new=f"pattern={_clip(dump(new))}" if new is not None else None,
            old_reads_new=onr,
            new_reads_old=nro,
            api=VALIDATION_API[effect],
            note="; ".join(notes),
        )

    def annotations(self, a: Mapping[str, Any], b: Mapping[str, Any], at: _At) -> None:
        for keyword in sorted(ANNOTATIONS.keys() & (a.keys() | b.keys())):
            old, new = a.get(keyword), b.get(keyword)
            if keyword in a and keyword in b and dump(old) == dump(new):
                continue
            wire, api, note = ANNOTATIONS[keyword]
            self.emit(
                at,
                "keyword-changed",
                old=f"{keyword}={_clip(dump(old))}" if keyword in a else None,
                new=f"{keyword}={_clip(dump(new))}" if keyword in b else None,
                old_reads_new=wire,
                new_reads_old=wire,
                api=api,
                note=note,
            )

    # objects

    def objects(self, a: Mapping[str, Any], b: Mapping[str, Any], at: _At) -> None:
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
        self, at: _At, here: _At, name: str, schema: Any, required: bool, new: Mapping[str, Any]
    ) -> None:
        # NEW messages lack it: only a problem for OLD decoders that required it.
        onr, _, notes = _wire("widened" if required else "same", at)
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
        self, at: _At, here: _At, name: str, schema: Any, required: bool, old: Mapping[str, Any]
    ) -> None:
        # NEW messages carry it: OLD decoders ignore unknown keys unless closed.
        onr = COMPATIBLE if accepts_extra(old) else BREAKING
        # OLD messages lack it: only a problem for NEW decoders that require it.
        _, nro, notes = _wire("narrowed" if required else "same", at)
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

    def requiredness(self, at: _At, here: _At, name: str, *, required: bool) -> None:
        # Becoming required narrows what the object accepts; becoming optional widens it.
        onr, nro, notes = _wire("narrowed" if required else "widened", at)
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
        self, keyword: str, a: Mapping[str, Any], b: Mapping[str, Any], at: _At
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
        onr, nro, notes = _wire(effect, at)
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

    def items(self, a: Mapping[str, Any], b: Mapping[str, Any], at: _At) -> None:
        old, new = a.get("items", True), b.get("items", True)
        child = replace(
            at.child("[]"),
            old_absorbs=at.old_absorbs or _absorber(a, SKIP_INVALID_ITEMS),
            new_absorbs=at.new_absorbs or _absorber(b, SKIP_INVALID_ITEMS),
        )
        self.compare(old, new, child)

    # keywords

    def extensions(self, a: Mapping[str, Any], b: Mapping[str, Any], at: _At) -> None:
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
                fields.update(_all_unknown(), note="an extension keyword this tool does not know")
            self.emit(at, kind, **fields)

    def methods(self, at: _At, a: Mapping[str, Any], b: Mapping[str, Any]) -> None:
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

    def defaults(self, a: Mapping[str, Any], b: Mapping[str, Any], at: _At) -> None:
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

    def others(
        self, a: Mapping[str, Any], b: Mapping[str, Any], at: _At, *, skip_not: bool
    ) -> None:
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
                old=f"{keyword}={_clip(dump(structure(old)))}" if keyword in a else None,
                new=f"{keyword}={_clip(dump(structure(new)))}" if keyword in b else None,
                **_all_unknown(),
                note=f"no rule for {keyword!r}: review it",
            )
            if self.depth > 0:
                return


def _fold(changes: Iterable[Change]) -> tuple[Compat, Compat, Compat]:
    """The worst verdicts of some changes: (old reads new, new reads old, api)."""
    changes = list(changes)
    return (
        worst(c.old_reads_new for c in changes),
        worst(c.new_reads_old for c in changes),
        worst(c.api for c in changes),
    )


def _conjoin(own: Mapping[str, Any], member: dict[str, Any]) -> dict[str, Any]:
    """A union member together with the keywords beside the union: properties and
    `required` of both; for any other keyword both set, the member's (closer) one."""
    out = dict(member)
    for key, value in own.items():
        if key == "properties" and isinstance(value, dict):
            mine = out.get(key)
            out[key] = {**value, **(mine if isinstance(mine, dict) else {})}
        elif key == "required" and isinstance(value, list):
            mine = out.get(key)
            out[key] = list(dict.fromkeys([*value, *(mine if isinstance(mine, list) else [])]))
        else:
            out.setdefault(key, value)
    return out


def _pair_lookalikes(old: dict[str, Any], new: dict[str, Any]) -> None:
    """Pair unmatched members that are structurally the same (say, only a title changed).

    Renames the NEW key to the OLD one in place, so the walk compares them as one member.
    """
    lone_old = {dump(structure(old[k])): k for k in sorted(old.keys() - new.keys())}
    for key in sorted(new.keys() - old.keys()):
        twin = lone_old.pop(dump(structure(new[key])), None)
        if twin is not None:
            new[twin] = new.pop(key)


def _default_verdict(a: Mapping[str, Any], b: Mapping[str, Any], at: _At) -> dict[str, Any]:
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


def _all_unknown() -> dict[str, Compat]:
    return {"old_reads_new": UNKNOWN, "new_reads_old": UNKNOWN, "api": UNKNOWN}


def _clip(value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else dump(value)
    text = " ".join(text.split())
    return text if len(text) <= _MAX_PROSE else text[: _MAX_PROSE - 3] + "..."
