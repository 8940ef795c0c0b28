"""The planned effect of migrating one chunk source, kept apart until it is committed."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from acp_schema.migrations.chunk_identity.planning.plan import Edit, Insertion, Source


@dataclass
class Placement:
    """The planned effect of migrating one source: all or nothing."""

    source: Source
    insertions: list[Insertion] = field(default_factory=list)
    edits: list[tuple[cst.CSTNode, Edit]] = field(default_factory=list)
    imports: set[tuple[str, str, str | None]] = field(default_factory=set)
    notes: list[tuple[cst.CSTNode, str]] = field(default_factory=list)
    # The return annotation of a generator that now also yields upserts, and its edit.
    widen: tuple[cst.CSTNode, Edit] | None = None
    returned_by: cst.FunctionDef | None = None
