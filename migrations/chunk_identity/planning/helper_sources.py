"""One call of a qualifying helper as a chunk source: the call's arguments bound to the
parameters of the helper's template, and the message ID and participant IDs the
template builds, written with those arguments. The upsert is then placed like any
other chunk's (`Planner.place`)."""

from __future__ import annotations

import libcst as cst

from acp_schema.migrations.chunk_identity import rule_ids as rules
from acp_schema.migrations.chunk_identity.planning.helper_calls import load_names
from acp_schema.migrations.chunk_identity.planning.plan import Failure, HelperTemplate, Source
from acp_schema.migrations.chunk_identity.planning.planner import Planner
from acp_schema.migrations.framework.syntax import code, is_pure, string_value, substitute
from acp_schema.migrations.resolution.bindings import CHUNK_TAG


def bind(call: cst.Call, template: HelperTemplate) -> dict[str, cst.BaseExpression]:
    """The argument each parameter of `template` gets in `call`."""
    if any(arg.star for arg in call.args):
        raise Failure("the call unpacks its arguments")
    positional = [p for p in template.params if p.kind in ("positional", "any")]
    by_name = {p.name: p for p in template.params if p.kind in ("any", "keyword")}
    bound: dict[str, cst.BaseExpression] = {}
    index = 0
    for arg in call.args:
        if arg.keyword is None:
            if index >= len(positional):
                raise Failure("the call passes more positional arguments than the helper takes")
            bound[positional[index].name] = arg.value
            index += 1
        else:
            if arg.keyword.value not in by_name:
                raise Failure(f"the call passes `{arg.keyword.value}`, unknown to the helper")
            bound[arg.keyword.value] = arg.value
    for param in template.params:
        if param.name not in bound and param.default is not None:
            default = cst.parse_expression(param.default)
            if not _is_literal(default):
                # Its names mean something in the helper's module, maybe not here, and
                # the default was computed once, when the helper was defined.
                raise Failure(
                    f"`{param.name}` is not passed and its default `{param.default}` is not "
                    "a literal; pass it explicitly"
                )
            bound[param.name] = default
    return bound


def _is_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Name):
        return node.value in {"None", "True", "False"}
    if isinstance(node, cst.UnaryOperation):
        return _is_literal(node.expression)
    return isinstance(node, cst.SimpleString | cst.ConcatenatedString | cst.Integer | cst.Float)


def call_source(planner: Planner, call: cst.Call, template: HelperTemplate) -> Source | None:
    """The source standing for one call of a helper; None when this call sends no chunk."""
    bound = bind(call, template)
    if template.kind_param is not None:
        kind = bound.get(template.kind_param)
        if kind is None:
            raise Failure(f"`{template.kind_param}` is not passed")
        tag = string_value(kind)
        if tag is None:
            raise Failure(f"cannot tell which kind of update `{code(kind)}` is")
        if tag != CHUNK_TAG:
            return None
    used = _used_params(template)
    for name in used:
        value = bound.get(name)
        if value is None:
            raise Failure(f"`{name}` is not passed")
        if not is_pure(value):
            raise Failure(f"the argument `{code(value)}` would run twice")
    identity: dict[str, cst.BaseExpression] = {}
    for field_name, text in template.identity:
        value = _substitute(text, bound)
        if code(value) not in {"None", "MISSING"}:
            identity[field_name] = value
    return Source(
        node=call,
        rule=_rule_for(template),
        style=template.style,
        module=template.module,
        class_ref=None,
        message_id=_substitute(template.message_id, bound),
        identity=identity,
        template=template,
        bound={name: bound[name] for name in used},
        # The helper may still carry the IDs (a payload helper, a second run with the
        # same templates): an upsert already in place is not sent twice.
        guard=True,
    )


def _rule_for(template: HelperTemplate) -> str:
    return rules.DICT if template.style == "dict" else rules.CONSTRUCTOR


def _used_params(template: HelperTemplate) -> list[str]:
    names = {p.name for p in template.params}
    used: list[str] = []
    for text in (template.message_id, *(t for _, t in template.identity)):
        for name in load_names(cst.parse_expression(text)):
            if name.value in names and name.value not in used:
                used.append(name.value)
    return used


def _substitute(text: str, bound: dict[str, cst.BaseExpression]) -> cst.BaseExpression:
    return substitute(cst.parse_expression(text), bound)
