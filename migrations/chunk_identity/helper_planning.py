"""The `chunk-identity` planning of chunks that pass through helper functions: chunks a
helper of this module returns (stripped there, upserts at its calls, all or nothing),
payload helpers whose `sessionUpdate` is a parameter, calls of helpers of other modules
of the run, and the uses of those helpers that are not calls (they keep their IDs then).
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from acp_schema.migrations.chunk_identity import rule_ids as rules
from acp_schema.migrations.chunk_identity.candidates import Candidates
from acp_schema.migrations.chunk_identity.planning.helper_calls import (
    NEXT_STEP,
    kind_template,
    template_for,
)
from acp_schema.migrations.chunk_identity.planning.helper_sources import call_source
from acp_schema.migrations.chunk_identity.planning.placement import Placement
from acp_schema.migrations.chunk_identity.planning.plan import (
    Failure,
    HelperTemplate,
    with_next_step,
)
from acp_schema.migrations.chunk_identity.planning.planner import Planner
from acp_schema.migrations.chunk_identity.rules import chunk_dict
from acp_schema.migrations.framework.syntax import code, string_value


def _call_sites(
    planner: Planner, function: cst.FunctionDef
) -> list[tuple[cst.CSTNode, cst.Call | None]]:
    """Every use of a module-level function in its module: (use, the call or None)."""
    facts = planner.facts
    scope = facts.scope(function)
    uses: list[tuple[cst.CSTNode, cst.Call | None]] = []
    if scope is None:
        return uses
    for assignment in scope.assignments[function.name.value]:
        if getattr(assignment, "node", None) is not function:
            continue
        for access in assignment.references:
            name = access.node
            holder = facts.parent(name)
            uses.append(
                (name, holder if isinstance(holder, cst.Call) and holder.func is name else None)
            )
    return uses


def plan_helper(planner: Planner, function: cst.FunctionDef, placements: list[Placement]) -> None:
    """Chunks returned by `function`: strip them and send upserts at its call sites, all
    or nothing (the runner also withdraws it when a call elsewhere cannot follow)."""
    name = function.name.value
    try:
        template = template_for(planner, function, [p.source for p in placements])
        sites = _helper_sites(planner, function, template)
    except Failure as err:
        for placement in placements:
            planner.warn(
                placement.source.node,
                placement.source.rule,
                with_next_step(
                    f"left unchanged: the chunk is returned by `{name}`, and {err}",
                    NEXT_STEP.format(name=name),
                ),
            )
        return
    for placement in placements:
        planner.commit(placement)
    for placement in sites:
        planner.commit(placement)
    planner.plan.exported.append(template)
    if sites:
        planner.plan.called.add(template.qualified_name)
    if not planner.repository_wide:
        planner.warn(
            function,
            placements[0].source.rule,
            f"`{name}` now returns chunks without participant IDs and its calls in this "
            "module send the upsert; if another module calls it, run `acp-schema migrate` "
            "on the whole repository instead (this runner sees one module at a time)",
        )


def _helper_sites(
    planner: Planner, function: cst.FunctionDef, template: HelperTemplate
) -> list[Placement]:
    """The placements of every call of `function` in its module; Failure if one of its
    uses cannot get the upsert."""
    name = function.name.value
    sites: list[Placement] = []
    calls = 0
    for _use, call in _call_sites(planner, function):
        if call is None:
            raise Failure(f"`{name}` is used without being called")
        calls += 1
        source = call_source(planner, call, template)
        if source is None:
            continue
        placement = planner.place(source)
        if placement.returned_by is not None:
            raise Failure(f"the result of `{name}(...)` is returned again")
        sites.append(placement)
    if not calls and not planner.repository_wide:
        raise Failure(
            f"no call of `{name}` is in this module (callers elsewhere cannot be seen here); "
            + NEXT_STEP.format(name=name)
        )
    return sites


def plan_kind_helpers(planner: Planner, found: Candidates) -> None:
    """Payload helpers whose `sessionUpdate` is a parameter: upserts at chunk calls."""
    selected = planner.selected
    for node in found.tagged_dicts:
        kind = chunk_dict.kind_parameter(planner, node)
        if kind is None:
            continue
        function = planner.facts.function_of(node)
        if function is None:
            continue
        try:
            if planner.site(node).kind != "return":
                raise Failure("the payload is not returned")
            template = kind_template(planner, function, node, kind)
            sites = _helper_sites(planner, function, template) if rules.DICT in selected else []
        except Failure as err:
            planner.warn(
                node,
                rules.DICT,
                with_next_step(
                    f"this payload's kind is the parameter `{kind.value}` and it carries "
                    f"participant IDs, which chunks ignore; not followed because {err}",
                    NEXT_STEP.format(name=function.name.value),
                ),
            )
            continue
        planner.plan.exported.append(template)
        planner.plan.edit(node, chunk_dict.identity_unless_chunk(node, kind))
        planner.changed(
            node, rules.DICT, "participant IDs are now left out when the kind is a chunk"
        )
        for placement in sites:
            planner.commit(placement)
        if _call_sites(planner, function):
            planner.plan.called.add(template.qualified_name)


def plan_imported_helpers(planner: Planner, found: Candidates) -> None:
    """Calls of helpers from other modules of the run (templates given by the CLI)."""
    local = {t.qualified_name for t in planner.plan.exported}
    for call, qualified in found.helper_calls:
        template = planner.helpers.get(qualified)
        if template is None or qualified in local:
            continue
        _plan_helper_call(planner, call, template)


def _plan_helper_call(planner: Planner, call: cst.Call, template: HelperTemplate) -> None:
    rule = rules.DICT if template.style == "dict" else rules.CONSTRUCTOR
    if rule not in planner.selected:
        return
    try:
        source = call_source(planner, call, template)
        if source is None:
            planner.plan.called.add(template.qualified_name)  # another kind: nothing to send
            return
        placement = planner.place(source)
        if placement.returned_by is not None:
            raise Failure("its result is returned again")
    except Failure as err:
        # The helper keeps its IDs then (the runner withdraws it): nothing is lost here.
        line, _ = planner.facts.position(call)
        planner.plan.blocked.setdefault(
            template.qualified_name, f"its call at line {line} cannot get the upsert ({err})"
        )
        planner.warn(
            call,
            rule,
            f"`{template.qualified_name}` is left unchanged because this call cannot send "
            f"the upsert: {err}",
        )
        return
    planner.commit(placement)
    planner.plan.called.add(template.qualified_name)


def helper_local_names(module: cst.Module, helpers: Iterable[str]) -> frozenset[str]:
    """The names a module may call helpers of other modules by: each helper's own name
    and every name an import binds it to (`from app.h import _chunk as mk`)."""
    leaves = {q.rpartition(".")[2] for q in helpers}
    if not leaves:
        return frozenset()
    names = set(leaves)
    for statement in _all_nodes(module, cst.ImportFrom):
        assert isinstance(statement, cst.ImportFrom)
        if isinstance(statement.names, cst.ImportStar):
            continue
        for alias in statement.names:
            if code(alias.name) in leaves and alias.asname is not None:
                names.add(code(alias.asname.name))
    return frozenset(names)


def plan_helper_references(planner: Planner, names: frozenset[str]) -> None:
    """Uses of helpers of other modules that are not calls the run follows (passed as a
    value, re-exported by a package `__init__`, reached through a value the run cannot
    resolve, named in a string): those helpers must keep their IDs. `names` are the
    names this module may reach them by (`helper_local_names`)."""
    helpers = planner.helpers
    if not helpers:
        return
    facts = planner.facts
    is_package = facts.module_name is not None and facts.module_name == facts.package_name
    for statement in _all_nodes(facts.module, cst.ImportFrom):
        assert isinstance(statement, cst.ImportFrom)
        if isinstance(statement.names, cst.ImportStar) or not is_package:
            continue
        dots = "." * len(statement.relative)
        module = code(statement.module) if statement.module is not None else ""
        for alias in statement.names:
            name = code(alias.name)
            qualified = facts.absolute(f"{dots}{module}.{name}" if module else f"{dots}{name}")
            if qualified in helpers:
                line, _ = facts.position(statement)
                planner.plan.blocked.setdefault(
                    qualified,
                    f"it is re-exported by the package `{facts.module_name}` (line {line})",
                )
    by_leaf: dict[str, list[str]] = {}
    for qualified in helpers:
        by_leaf.setdefault(qualified.rpartition(".")[2], []).append(qualified)
    for node in _all_nodes(facts.module, cst.Name, cst.Attribute, cst.SimpleString):
        if isinstance(node, cst.SimpleString):
            for qualified in by_leaf.get(string_value(node) or "", ()):
                line, _ = facts.position(node)
                planner.plan.blocked.setdefault(
                    qualified,
                    f"its name is a string at line {line}, so it may be looked up "
                    "(`getattr`) where the run cannot follow",
                )
            continue
        assert isinstance(node, cst.Name | cst.Attribute)
        leaf = node.attr.value if isinstance(node, cst.Attribute) else node.value
        if leaf not in names:
            continue
        holder = facts.parent(node)
        if isinstance(holder, cst.Attribute) and holder.attr is node:
            continue
        if isinstance(holder, cst.ImportAlias):
            continue
        line, _ = facts.position(node)
        found = facts.qualified_names(node) & set(helpers)
        is_call = isinstance(holder, cst.Call) and holder.func is node
        if found and not is_call:
            for qualified in found:
                planner.plan.blocked.setdefault(
                    qualified, f"it is used without being called at line {line}"
                )
        elif (
            not found
            and isinstance(node, cst.Attribute)
            and leaf in by_leaf
            and not facts.names_import(node)
        ):
            # `x._chunk` on a value the run cannot resolve (a module passed as a
            # parameter, a call's result): it may be the helper, called unseen.
            for qualified in by_leaf[leaf]:
                planner.plan.blocked.setdefault(
                    qualified,
                    f"`{code(node)}` at line {line} may be it, and the run cannot tell",
                )


def _all_nodes(module: cst.Module, *kinds: type[cst.CSTNode]) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []

    class Finder(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if isinstance(node, kinds):
                found.append(node)
            return True

    module.visit(Finder())
    return found
