"""The `chunk-identity` migration's planning: every rule of the family for one module.

The revision took `sender_session_id` / `recipient_session_id` off
`SessionMessageChunk`: chunks carry content only, and a message's participants arrive
on `SessionMessage` upserts (often metadata-only: `message_id` plus the IDs). The
rules move the IDs of downstream code onto such an upsert, sent for the same message
before the chunk with the same send call, and take reads from the message.

Rules planned here: chunk-identity/constructor, /builder, /dict, /read, /import (see
docs/migration.md). /old-bindings is found first, over the whole run, by `acp-schema
migrate` (`runner`, `old_bindings`). Chunks that pass through helper functions are
planned in `helper_planning`. The codemod commands calling `plan_module` are in
`commands`.
"""

from __future__ import annotations

import libcst as cst

from acp_schema.migrations.chunk_identity import rule_ids as rules
from acp_schema.migrations.chunk_identity.candidates import collect
from acp_schema.migrations.chunk_identity.helper_planning import (
    helper_local_names,
    plan_helper,
    plan_helper_references,
    plan_imported_helpers,
    plan_kind_helpers,
)
from acp_schema.migrations.chunk_identity.planning.placement import Placement
from acp_schema.migrations.chunk_identity.planning.plan import Failure, Plan, Source, with_next_step
from acp_schema.migrations.chunk_identity.planning.planner import Planner
from acp_schema.migrations.chunk_identity.rules import (
    chunk_builder,
    chunk_constructor,
    chunk_dict,
    chunk_import,
    chunk_read,
)


def plan_module(planner: Planner) -> Plan:
    """Plan every selected chunk-identity rule for one module."""
    facts = planner.facts
    helper_names = helper_local_names(facts.module, planner.helpers)
    found = collect(facts, helper_names)
    planner.mentions = found.mentions
    selected = planner.selected

    sources: list[Source] = []
    if selected & {rules.CONSTRUCTOR, rules.BUILDER}:
        for call in found.chunk_calls:
            source = chunk_constructor.source_from_call(planner, call)
            if source is not None:
                sources.append(source)
    if rules.BUILDER in selected:
        for call in found.builder_calls:
            source = chunk_builder.source_from_builder(planner, call)
            if source is not None:
                sources.append(source)
    if rules.DICT in selected:
        for node in found.tagged_dicts:
            source = chunk_dict.source_from_dict(planner, node)
            if source is not None:
                sources.append(source)

    returned: dict[int, tuple[cst.FunctionDef, list[Placement]]] = {}
    for source in sources:
        try:
            placement = planner.place(source)
        except Failure as err:
            planner.warn(source.node, source.rule, with_next_step(f"left unchanged: {err}"))
            continue
        if placement.returned_by is not None:
            entry = returned.setdefault(id(placement.returned_by), (placement.returned_by, []))
            entry[1].append(placement)
        else:
            planner.commit(placement)

    for function, placements in returned.values():
        plan_helper(planner, function, placements)
    if rules.DICT in selected:
        plan_kind_helpers(planner, found)
    plan_imported_helpers(planner, found)
    plan_helper_references(planner, helper_names)

    if rules.READ in selected:
        chunk_read.plan_reads(planner, found)
    if rules.IMPORT in selected:
        chunk_import.plan_imports(planner, found)
    return planner.plan
