"""Chunks returned from helper functions: the upsert is sent where the helper's result
is sent, built from the call's arguments.

A helper qualifies when it is a module-level function, is not a generator, and its
message-id and participant expressions use only its own parameters (never reassigned).
Every use of the helper in its module must then be a call whose result is sent,
assigned and sent, or yielded, with side-effect-free arguments for those parameters; if
one is not, the helper is left alone and reported. Calls from other modules are found
through the helper templates the CLI collects from the whole run.

This module decides whether a helper qualifies and writes its template;
`helper_sources` turns a call into a source, `helper_planning` plans both sides.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from acp_schema.migrations.chunk_identity.candidates import (
    identity_key,
    message_id_element,
    tag_element,
)
from acp_schema.migrations.chunk_identity.planning.plan import (
    Failure,
    HelperTemplate,
    Param,
    Source,
)
from acp_schema.migrations.chunk_identity.planning.planner import Planner
from acp_schema.migrations.framework.syntax import chain, code, is_pure, string_value


def parameters(function: cst.FunctionDef) -> tuple[Param, ...]:
    params = function.params
    found: list[Param] = []
    for kind, group in (
        ("positional", params.posonly_params),
        ("any", params.params),
        ("keyword", params.kwonly_params),
    ):
        for param in group:
            default = code(param.default) if param.default is not None else None
            found.append(Param(param.name.value, kind, default))  # type: ignore[arg-type]
    return tuple(found)


def load_names(expr: cst.CSTNode) -> Iterable[cst.Name]:
    if isinstance(expr, cst.Name):
        yield expr
    elif isinstance(expr, cst.Attribute | cst.Arg):
        yield from load_names(expr.value)
    else:
        for child in expr.children:
            yield from load_names(child)


def _check_over_params(planner: Planner, function: cst.FunctionDef, expr: cst.CSTNode) -> None:
    """`expr` must be pure and read only parameters of `function` that it never rebinds."""
    if not is_pure(expr):
        raise Failure(f"`{code(expr)}` has side effects")
    facts = planner.facts
    own = {p.name.value: p for p in _all_params(function)}
    for name in load_names(expr):
        if name.value in {"None", "True", "False"}:
            continue
        assignment = facts.single_assignment(name)
        param = own.get(name.value)
        if assignment is None or param is None or assignment.node is not param:
            raise Failure(f"`{code(expr)}` uses `{name.value}`, which is not a parameter")
        scope = facts.scope(name)
        if scope is not None and len(scope.assignments[name.value]) != 1:
            raise Failure(f"parameter `{name.value}` is reassigned")


def _all_params(function: cst.FunctionDef) -> list[cst.Param]:
    params = function.params
    return [*params.posonly_params, *params.params, *params.kwonly_params]


def _is_generator(function: cst.FunctionDef) -> bool:
    class Finder(cst.CSTVisitor):
        found = False

        def visit_Yield(self, node: cst.Yield) -> None:
            self.found = True

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return node is function

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

    finder = Finder()
    function.visit(finder)
    return finder.found


def helper_name(planner: Planner, function: cst.FunctionDef) -> str:
    module = planner.facts.module_name
    return f"{module}.{function.name.value}" if module else function.name.value


NEXT_STEP = (
    "send a SessionMessage upsert with the participant IDs before each chunk it builds "
    "is sent, then drop them from `{name}`"
)


def check_rewritable(planner: Planner, function: cst.FunctionDef) -> None:
    """Failure unless every caller of `function` can be in this run: a private,
    undecorated module-level function that the module does not export, and that the
    run has not found a use of that cannot get the upsert."""
    name = function.name.value
    step = NEXT_STEP.format(name=name)
    if not isinstance(planner.facts.parent(function), cst.Module):
        raise Failure(f"`{name}` is not a module-level function")
    if not name.startswith("_"):
        raise Failure(f"`{name}` is public, so callers outside this run may use it; {step}")
    if name in dunder_all(planner.facts.module):
        raise Failure(f"`{name}` is listed in `__all__`; {step}")
    if function.decorators:
        raise Failure(
            f"`{name}` is decorated, so it may be called from where this run cannot see; {step}"
        )
    refused = planner.refused.get(helper_name(planner, function))
    if refused is not None:
        raise Failure(f"{refused}; {step}")


def dunder_all(module: cst.Module) -> set[str]:
    """The strings assigned or added to a module-level `__all__`."""
    names: set[str] = set()
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for small in statement.body:
            value: cst.BaseExpression | None = None
            if (
                isinstance(small, cst.Assign)
                and any(chain(t.target) == "__all__" for t in small.targets)
            ) or (
                isinstance(small, cst.AugAssign | cst.AnnAssign)
                and chain(small.target) == ("__all__")
            ):
                value = small.value
            if isinstance(value, cst.List | cst.Tuple | cst.Set):
                for element in value.elements:
                    text = string_value(element.value)
                    if text is not None:
                        names.add(text)
    return names


def template_for(
    planner: Planner, function: cst.FunctionDef, sources: list[Source]
) -> HelperTemplate:
    """The template of a helper returning `sources`; Failure if it does not qualify."""
    name = function.name.value
    check_rewritable(planner, function)
    if _is_generator(function):
        raise Failure(f"`{name}` is a generator")
    templates = {_template_of(planner, function, s) for s in sources}
    if len(templates) != 1:
        raise Failure(f"the return statements of `{name}` build different participant IDs")
    return templates.pop()


def _template_of(planner: Planner, function: cst.FunctionDef, source: Source) -> HelperTemplate:
    if source.message_id is None:
        raise Failure("the chunk's message_id is not given as a keyword")
    for expr in (source.message_id, *source.identity.values()):
        _check_over_params(planner, function, expr)
    keys: tuple[tuple[str, str], ...] = ()
    if source.style == "dict":
        keys = tuple(
            (k, code(item.key))
            for k, item in source.layout_items.items()
            if isinstance(item, cst.DictElement)
        )
    return HelperTemplate(
        qualified_name=helper_name(planner, function),
        params=parameters(function),
        style=source.style,
        module=source.module,
        message_id=code(source.message_id),
        identity=tuple((k, code(v)) for k, v in source.identity.items()),
        keys=keys,
    )


def kind_template(
    planner: Planner, function: cst.FunctionDef, node: cst.Dict, kind: cst.Name
) -> HelperTemplate:
    """The template of a payload helper whose `sessionUpdate` is the parameter `kind`."""
    check_rewritable(planner, function)
    mid = message_id_element(node)
    tag = tag_element(node)
    if mid is None or tag is None:
        raise Failure("the payload has no messageId key")
    identity: list[tuple[str, str]] = []
    keys = [("tag", code(tag.key)), ("message_id", code(mid.key))]
    _check_over_params(planner, function, mid.value)
    for element in node.elements:
        if isinstance(element, cst.DictElement):
            field_name = identity_key(element.key)
            if field_name is not None:
                _check_over_params(planner, function, element.value)
                identity.append((field_name, code(element.value)))
                keys.append((field_name, code(element.key)))
    return HelperTemplate(
        qualified_name=helper_name(planner, function),
        params=parameters(function),
        style="dict",
        module=None,
        message_id=code(mid.value),
        identity=tuple(identity),
        keys=tuple(keys),
        kind_param=kind.value,
    )
