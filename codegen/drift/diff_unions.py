"""Union changes: members paired by what identifies them, a member only one side has
(and which member of the other side reads its values), a shape that became a union."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from .diff_verdicts import BREAKING, COMPATIBLE, UNKNOWN, Compat, exists, for_all
from .diff_walk import At, Compare, Doc, Emit, conjoin, merged, pair_lookalikes, wire
from .schema_structure import DOC_ONLY_KEYWORDS
from .schema_views import (
    dump,
    is_any,
    is_open_for,
    keyed_members,
    member_kind,
    summary,
    union_keyword,
)

_MAX_SCRATCH_DEPTH = 4

# Compares two variants one level deeper without reporting, and gives the worst verdicts
# (old reads new, new reads old, api) of what differs.
Scratch = Callable[[dict[str, Any], dict[str, Any], At, bool], tuple[Compat, Compat, Compat]]


class UnionRules:
    def __init__(
        self, emit: Emit, compare: Compare, scratch: Scratch, old: Doc, new: Doc, depth: int
    ) -> None:
        self.emit = emit
        self.compare = compare
        self.scratch = scratch
        self.old = old
        self.new = new
        self.depth = depth

    def union(self, a: dict[str, Any], b: dict[str, Any], at: At) -> bool:
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
        pair_lookalikes(old_members, new_members)
        for key in sorted(old_members.keys() - new_members.keys()):
            self.member(at, key, old_members[key], new_members, removed=True)
        for key in sorted(new_members.keys() - old_members.keys()):
            self.member(at, key, new_members[key], old_members, removed=False)
        for key in sorted(old_members.keys() & new_members.keys()):
            old_m, new_m = old_members[key], new_members[key]
            self.compare(old_m, new_m, at.child(f"<{key}>"), other_member=key == "other")
        return False

    def shape_changed(self, a: dict[str, Any], b: dict[str, Any], at: At) -> None:
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

    def variants(self, node: dict[str, Any], doc: Doc) -> list[tuple[dict[str, Any], bool]]:
        """A union's members, resolved and with the union's own keywords (a value must
        pass both), each with whether it is the open variant; a node that is no union is
        its own one variant."""
        keyword = union_keyword(node)
        if keyword is None:
            return [(node, False)]
        own = {k: v for k, v in node.items() if k != keyword and k not in DOC_ONLY_KEYWORDS}
        return [
            (conjoin(own, merged(member, doc)), key == "other")
            for key, member in keyed_members(node[keyword]).items()
            if isinstance(member, dict)
        ]

    def reads(
        self,
        old: tuple[dict[str, Any], bool],
        new: tuple[dict[str, Any], bool],
        at: At,
        direction: Literal["old_reads_new", "new_reads_old"],
    ) -> Compat:
        """One direction's verdict between two variants; their changes are not reported."""
        old_reads_new, new_reads_old, _ = self.scratch(old[0], new[0], at, old[1] or new[1])
        return old_reads_new if direction == "old_reads_new" else new_reads_old

    def member(
        self, at: At, key: str, member: Any, others: Mapping[str, Any], *, removed: bool
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
            onr, nro, notes = wire("narrowed", at, new_open=open_, open_as=open_as)
        else:
            onr, nro, notes = wire("widened", at, old_open=open_, open_as=open_as)
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
        self, member: Any, others: Mapping[str, Any], at: At, *, removed: bool
    ) -> str | None:
        """The first member of the other side that accepts every value of `member`.

        Decoders try an untagged union's members in turn, so such a member reads the
        values of one the other side lacks: an extension's `{}` params read a new method's
        params (the bindings decode that message as `<Envelope>Other`).
        """
        if self.depth >= _MAX_SCRATCH_DEPTH or not isinstance(member, dict):
            return None
        mine_doc, their_doc = (self.old, self.new) if removed else (self.new, self.old)
        mine = (merged(member, mine_doc), False)
        resolved = {
            key: merged(other, their_doc) if isinstance(other, dict) else other
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
