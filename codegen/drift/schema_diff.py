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

Here: the result (`Change`, `DiffReport`), reading the inputs, and `_Differ`, which walks
definitions and references and hands each part of a schema to its rules: `diff_walk.py`
(where the walk is; wire verdicts), `diff_values.py` (types, values, formats, bounds),
`diff_objects.py` (properties, items, the codemod of a removed property),
`diff_unions.py` (members and shapes), `diff_keywords.py` (nullability, `x-` keywords,
methods, defaults, keywords without a rule).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..bundled import VERSIONS, bundled_schema
from ..schema_check import (
    Problem,
    SchemaError,
    escape,
    iter_subschemas,
    json_type,
    parse_schema_file,
)
from ..schema_refs import Index, check_cycles, check_refs
from .diff_bindings import binding_homes
from .diff_keywords import KeywordRules
from .diff_objects import CODEMODS, ObjectRules
from .diff_unions import UnionRules
from .diff_values import ValueRules
from .diff_verdicts import (
    BREAKING,
    COMPATIBLE,
    Compat,
    worst,
)
from .diff_walk import At, Doc, all_unknown, merged
from .schema_structure import structure
from .schema_views import (
    accepts_null,
    as_object,
    dump,
    is_local_ref,
    join_location,
    ref_name,
    ref_of,
    split_null,
    summary,
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
    # (definition, location) of the place where the changes behind this same reference
    # switch are listed (`ref-changed` ... "as at"): they hold here too (`--impact`).
    same_as: tuple[str, str] | None = field(default=None, compare=False)

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
    ``$defs`` that does not resolve, a loop of references that describes no value). The
    full Draft 2020-12 check is ``acp-schema schema check``; it costs more than the whole
    diff, so it is not repeated here.
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
    for key in ("$defs", "definitions"):
        defs = doc.get(key)
        if defs is None:
            continue
        if not isinstance(defs, dict):
            problems.append(Problem(f"/{key}", f"{key} must be an object of schemas"))
            continue
        for name, body in defs.items():
            if not isinstance(body, (dict, bool)):
                problems.append(Problem(f"/{key}/{escape(name)}", "a definition must be a schema"))
    subschemas = list(iter_subschemas(doc))
    index = Index(doc, subschemas)  # refs resolve as `schema check` resolves them
    for pointer, schema in subschemas:
        ref = schema.get("$ref")
        if ref is not None and not isinstance(ref, str):
            problems.append(Problem(pointer, f"$ref must be a string, got {ref!r}"))
        elif isinstance(ref, str) and is_local_ref(ref):
            problems += check_refs(index, pointer, {"$ref": ref})
    if not problems:  # a loop of references describes no value: nothing to compare
        problems += check_cycles(index, subschemas)
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
    differ = _Differ(Doc(old), Doc(new), descriptions)
    differ.run()
    unique = {json.dumps(c.to_json(), sort_keys=True): c for c in differ.changes}
    return sorted(unique.values(), key=Change.sort_key), sorted(set(differ.warnings))


# Where a switch between two references was first compared, and its worst verdicts; per
# absorbing context, shared by every place that makes the same switch.
_Through = dict[
    tuple[tuple[str, str], str | None, str | None],
    tuple[tuple[str, str], tuple[Compat, Compat, Compat]],
]


class _Differ:
    def __init__(
        self,
        old: Doc,
        new: Doc,
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
        # The rules for each part of a schema; they report through `emit` and walk on
        # through `compare`.
        self.value_rules = ValueRules(self.emit)
        self.keyword_rules = KeywordRules(self.emit, depth)
        self.object_rules = ObjectRules(self.emit, self.compare)
        self.union_rules = UnionRules(self.emit, self.compare, self.scratch, old, new, depth)

    def emit(self, at: At, kind: str, /, **fields: Any) -> None:
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
            at = At(name)
            self.emit(
                at,
                "definition-removed",
                old=summary(old_defs[name]),
                api=BREAKING,
                note=f"{name} is no longer generated (uses of it are reported where they are)",
            )
            self.keyword_rules.methods(at, old_defs[name], {})
        for name in sorted(new_defs.keys() - old_defs.keys()):
            at = At(name)
            self.emit(at, "definition-added", new=summary(new_defs[name]))
            self.keyword_rules.methods(at, {}, new_defs[name])
        for name in sorted(old_defs.keys() & new_defs.keys()):
            if old_defs[name] != new_defs[name]:
                self.compare(old_defs[name], new_defs[name], At(name))
        if self.old.root != self.new.root:
            self.compare(self.old.root, self.new.root, At(ROOT))
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
            at = At(definition, (location,) if location else ())
            self.emit(
                at,
                "binding-removed",
                old=name,
                api=BREAKING,
                note=f"the bindings no longer have the class {name}",
            )
        for name in sorted(new_names - old_names - self.new.defs.keys()):
            definition, location = new_where.get(name, (name, ""))
            at = At(definition, (location,) if location else ())
            self.emit(at, "binding-added", new=name, note=f"new class {name} in the bindings")

    # one schema against another

    def compare(self, a: Any, b: Any, at: At, *, other_member: bool = False) -> None:
        if a == b:
            return
        a, b = as_object(a), as_object(b)  # `true` is `{}`: compared by the same rules
        if not isinstance(a, dict) or not isinstance(b, dict):
            self.emit(at, "schema-changed", old=summary(a), new=summary(b), **all_unknown())
            return
        if self.descriptions:
            self.keyword_rules.prose(a, b, at)
        old_null, a = split_null(a)
        new_null, b = split_null(b)
        ref_a, ref_b = ref_of(a), ref_of(b)
        if ref_a != ref_b:
            # Null is one fact of the place, whichever side of a reference it is written
            # on: judged once here, on both sides seen through their references.
            old_behind, a_seen = split_null(merged(a, self.old))
            new_behind, b_seen = split_null(merged(b, self.new))
            old_null, new_null = old_null or old_behind, new_null or new_behind
            if old_null != new_null and not accepts_null(b_seen if old_null else a_seen):
                self.keyword_rules.nullability(at, removed=old_null, old=a_seen, new=b_seen)
            seen = ((a_seen, old_null), (b_seen, new_null))
            self.ref_changed(a, b, ref_a, ref_b, at, seen)
            return
        # A side without the null alternative that constrains no type accepts null anyway.
        if old_null != new_null and not accepts_null(b if old_null else a):
            self.keyword_rules.nullability(at, removed=old_null, old=a, new=b)
        a, b = without_ref(a), without_ref(b)
        if self.union_rules.union(a, b, at):
            return
        if self.value_rules.types(a, b, at):
            return
        self.value_rules.values(a, b, at)
        self.object_rules.objects(a, b, at)
        if isinstance(a.get("items"), dict) or isinstance(b.get("items"), dict):
            self.object_rules.items(a, b, at)
        self.value_rules.formats(a, b, at)
        self.value_rules.bounds(a, b, at)
        self.value_rules.pattern(a, b, at)
        self.value_rules.annotations(a, b, at)
        self.keyword_rules.extensions(a, b, at)
        self.keyword_rules.defaults(a, b, at)
        self.keyword_rules.others(a, b, at, skip_not=other_member)

    def ref_changed(
        self,
        a: dict[str, Any],
        b: dict[str, Any],
        ref_a: str | None,
        ref_b: str | None,
        at: At,
        seen: tuple[tuple[dict[str, Any], bool], tuple[dict[str, Any], bool]],
    ) -> None:
        """A different $ref target (or inline <-> $ref): compare through the references.

        The differences behind one switch are listed once, at the first place (in walk
        order) that makes it; every place's `ref-changed` carries their worst verdicts.
        Renaming many definitions therefore costs, and reports, one comparison per pair.
        """
        old_target = self.old.resolve(ref_a) if ref_a else a
        new_target = self.new.resolve(ref_b) if ref_b else b
        classes = any(
            isinstance(t, dict) and (t.get("type") == "object" or "properties" in t)
            for t in (old_target, new_target)
        )
        fields: dict[str, Any] = {
            "old": ref_name(ref_a) if ref_a else _inline(a, seen[0][1]),
            "new": ref_name(ref_b) if ref_b else _inline(b, seen[1][1]),
        }
        if not all(r is None or is_local_ref(r) for r in (ref_a, ref_b)):
            note = "a reference outside this document: not compared"
            self.emit(at, "ref-changed", **fields, **all_unknown(), note=note)
            return
        notes = ["the field's class changes" if classes else "the Python type keeps its shape"]
        same_as: tuple[str, str] | None = None
        verdicts: tuple[Compat, Compat, Compat] = (COMPATIBLE, COMPATIBLE, COMPATIBLE)
        pair = (ref_a or "inline " + dump(structure(a)), ref_b or "inline " + dump(structure(b)))
        key = (pair, at.old_absorbs, at.new_absorbs)
        if pair in at.chasing:
            notes.append("a cycle: compared further out")
        elif key in self.through:
            same_as, verdicts = self.through[key]
            first = Change(*same_as, "").where
            notes.append(f"through the reference: as at {first}")
        else:
            inner = _Differ(self.old, self.new, self.descriptions, self.through, self.depth)
            deeper = replace(at, chasing=at.chasing | {pair})
            inner.compare(seen[0][0], seen[1][0], deeper)  # their nullability: judged above
            verdicts = _fold(inner.changes)
            self.through[key] = ((at.definition, at.location), verdicts)
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
            same_as=same_as,
        )

    def scratch(
        self, a: dict[str, Any], b: dict[str, Any], at: At, other_member: bool
    ) -> tuple[Compat, Compat, Compat]:
        """The worst verdicts of comparing two union variants one level deeper, without
        reporting their changes (`UnionRules.reads`)."""
        differ = _Differ(self.old, self.new, descriptions=False, depth=self.depth + 1)
        differ.compare(a, b, at, other_member=other_member)
        return _fold(differ.changes)


def _inline(node: dict[str, Any], nullable: bool) -> str:
    return "inline " + summary(node) + (" | null" if nullable else "")


def _fold(changes: Iterable[Change]) -> tuple[Compat, Compat, Compat]:
    """The worst verdicts of some changes: (old reads new, new reads old, api)."""
    changes = list(changes)
    return (
        worst(c.old_reads_new for c in changes),
        worst(c.new_reads_old for c in changes),
        worst(c.api for c in changes),
    )
