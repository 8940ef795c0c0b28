"""Widening a generator's return annotation when it now also yields upserts:
`Iterator[SessionMessageChunk]` becomes `Iterator[SessionMessageChunk | SessionMessage]`;
an annotation that cannot be widened is noted for a person."""

from __future__ import annotations

import libcst as cst

from acp_schema.migrations.chunk_identity.planning.placement import Placement
from acp_schema.migrations.resolution.bindings import MESSAGE_CLASS
from acp_schema.migrations.resolution.facts import Facts


def widen_generator(
    facts: Facts, placement: Placement, statement: cst.CSTNode, ref: cst.BaseExpression
) -> None:
    function = facts.function_of(statement)
    if function is None or function.returns is None:
        return
    annotation = function.returns.annotation
    if not isinstance(annotation, cst.Subscript) or not annotation.slice:
        _note_unwidened(placement, function)
        return
    element = annotation.slice[0].slice
    if not isinstance(element, cst.Index):
        _note_unwidened(placement, function)
        return
    item = element.value
    members = _union_members(item)
    if any(facts.class_module(m, MESSAGE_CLASS) for m in members):
        return
    if any(facts.class_module(m, "SessionUpdate") for m in members):
        return
    if not any(facts.is_chunk_class(m) for m in members):
        _note_unwidened(placement, function)
        return

    def widen(updated: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(updated, cst.BaseExpression)
        return cst.BinaryOperation(
            left=updated,
            operator=cst.BitOr(),
            right=ref.deep_clone(),
        )

    placement.widen = (item, widen)


def _note_unwidened(placement: Placement, function: cst.FunctionDef) -> None:
    placement.notes.append(
        (
            function,
            f"`{function.name.value}` now also yields SessionMessage upserts; "
            "its return annotation could not be widened automatically",
        )
    )


def _union_members(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return [*_union_members(node.left), *_union_members(node.right)]
    return [node]
