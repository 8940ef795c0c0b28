"""Walking two schemas side by side: where the walk is, what the decoders on each side do
with a failure there (`wire`), and the views of a node that the walk compares."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ..schema_refs import Index, Unresolvable, ref_target
from ..schema_walk import iter_subschemas
from .diff_verdicts import BREAKING, COMPATIBLE, UNKNOWN, Compat, Effect
from .schema_structure import structure
from .schema_views import as_object, dump, is_local_ref, join_location, ref_of, without_ref

_MAX_PROSE = 80


class Emit(Protocol):
    """Records one change at a place of the walk (`_Differ.emit`)."""

    def __call__(self, at: At, kind: str, /, **fields: Any) -> None: ...


class Compare(Protocol):
    """Compares two schemas at a place of the walk, emitting what differs (`_Differ.compare`)."""

    def __call__(self, a: Any, b: Any, at: At, *, other_member: bool = False) -> None: ...


class Doc:
    def __init__(self, doc: Mapping[str, Any]) -> None:
        self.doc = doc
        self.defs: dict[str, Any] = {}
        for key in ("definitions", "$defs"):
            defs = doc.get(key)
            if isinstance(defs, dict):
                self.defs.update((name, as_object(body)) for name, body in defs.items())
        self.root = {k: v for k, v in doc.items() if k not in ("$defs", "definitions")}
        self._index: Index | None = None

    def resolve(self, ref: str) -> Any:
        """What a local ref points to (`schema_refs`, as `schema check` reads it): a
        definition, the root (without its definitions), a pointer into a definition, an
        anchor; None when it does not resolve."""
        target = ref_target(ref)
        if target is not None:
            return self.defs.get(target[1])
        if self._index is None:  # only for the rarer refs: it walks the whole document
            whole = self.doc if isinstance(self.doc, dict) else dict(self.doc)
            self._index = Index(whole, list(iter_subschemas(whole)))
        try:
            found = self._index.resolve(ref)
        except Unresolvable:
            return None
        return self.root if found is self._index.doc else as_object(found)


@dataclass(frozen=True)
class At:
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
    ) -> At:
        """One level down; `absorbing` is the keyword that absorbs failures below here."""
        old_abs = self.old_absorbs or absorber(old, absorbing)
        new_abs = self.new_absorbs or absorber(new, absorbing)
        return replace(
            self,
            path=(*self.path, segment),
            old_absorbs=old_abs,
            new_absorbs=new_abs,
            on_property=on_property,
        )


def absorber(node: Any, keyword: str) -> str | None:
    return keyword if keyword and isinstance(node, dict) and node.get(keyword) is True else None


def wire(
    effect: Effect,
    at: At,
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


def merged(node: dict[str, Any], doc: Doc) -> dict[str, Any]:
    """`node` with its reference chain resolved and its own keywords on top."""
    seen: set[str] = set()
    while (ref := ref_of(node)) is not None and ref not in seen and is_local_ref(ref):
        seen.add(ref)
        target = doc.resolve(ref)
        own = without_ref(node)
        base = dict(target) if isinstance(target, dict) else {}
        for key, value in own.items():
            if key == "properties" and isinstance(base.get(key), dict) and isinstance(value, dict):
                base[key] = {**base[key], **value}
            elif key == "required" and isinstance(base.get(key), list) and isinstance(value, list):
                base[key] = list(dict.fromkeys([*base[key], *value]))
            else:
                base[key] = value
        node = base
    return node


def conjoin(own: Mapping[str, Any], member: dict[str, Any]) -> dict[str, Any]:
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


def pair_lookalikes(old: dict[str, Any], new: dict[str, Any]) -> None:
    """Pair unmatched members that are structurally the same (say, only a title changed).

    Renames the NEW key to the OLD one in place, so the walk compares them as one member.
    """
    lone_old = {dump(structure(old[k])): k for k in sorted(old.keys() - new.keys())}
    for key in sorted(new.keys() - old.keys()):
        twin = lone_old.pop(dump(structure(new[key])), None)
        if twin is not None:
            new[twin] = new.pop(key)


def all_unknown() -> dict[str, Compat]:
    return {"old_reads_new": UNKNOWN, "new_reads_old": UNKNOWN, "api": UNKNOWN}


def clip(value: Any) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else dump(value)
    text = " ".join(text.split())
    return text if len(text) <= _MAX_PROSE else text[: _MAX_PROSE - 3] + "..."
