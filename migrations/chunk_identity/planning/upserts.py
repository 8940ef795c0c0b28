"""Building the metadata-only `SessionMessage` upsert that replaces a chunk's identity.

For a constructor the upsert copies the chunk call's own layout (its argument commas and
line breaks), keeping `message_id` and the moved participant arguments in their order;
for a raw payload it copies the dict the same way, with the tag `session_message`; for a
helper call it is built from the helper's template and the call's arguments. Builders
run at apply time, so edits planned inside the copied values apply to the copies too.
"""

from __future__ import annotations

from typing import TypeVar

import libcst as cst

from acp_schema.migrations.chunk_identity.planning.plan import Applier, Build, Failure, Source
from acp_schema.migrations.framework.syntax import substitute, with_last_comma
from acp_schema.migrations.resolution.bindings import CHUNK_CLASS, MESSAGE_CLASS, MESSAGE_TAG
from acp_schema.migrations.resolution.facts import Facts

N = TypeVar("N", bound=cst.CSTNode)
Import = tuple[str, str, str | None]


def message_ref(
    facts: Facts, source: Source, at: cst.CSTNode
) -> tuple[cst.BaseExpression, set[Import]]:
    """How to name SessionMessage at `at`, and the import that needs (if any).

    In order: the chunk's own module attribute (`schema.SessionMessage`), an existing
    import of SessionMessage, an imported alias of the bindings module, a new import."""
    if source.style == "dict":
        return cst.Name(MESSAGE_CLASS), set()
    module = source.module
    if module is None:
        raise Failure("the bindings module of the chunk is not known here")
    if not facts.bindings.has_message(module):
        raise Failure(
            f"`{module}` declares an old SessionMessageChunk but no {MESSAGE_CLASS} to send "
            "the participant IDs with: regenerate or replace it with acp_schema.v1/v2 first"
        )
    ref = source.class_ref
    if isinstance(ref, cst.Attribute) and facts.class_module(ref, CHUNK_CLASS):
        return cst.Attribute(value=ref.value, attr=cst.Name(MESSAGE_CLASS)), set()
    local = facts.local_name_for(f"{module}.{MESSAGE_CLASS}", at)
    if local is not None:
        return cst.Name(local), set()
    module_alias = facts.local_name_for(module, at)
    if module_alias is not None:
        return cst.Attribute(value=cst.Name(module_alias), attr=cst.Name(MESSAGE_CLASS)), set()
    module_scope = facts.scope(facts.module)
    for name in (MESSAGE_CLASS, f"Acp{MESSAGE_CLASS}"):
        taken_in_module = module_scope is not None and name in module_scope.assignments
        if facts.name_is_free(name, at) and not taken_in_module:
            return cst.Name(name), {
                (module, MESSAGE_CLASS, None if name == MESSAGE_CLASS else name)
            }
    raise Failure(f"the name {MESSAGE_CLASS} is taken in this module")


def upsert_builder(
    source: Source,
    ref: cst.BaseExpression,
    message_id: cst.BaseExpression | None = None,
) -> Build:
    """The upsert expression for `source`. `message_id` replaces the source's own
    message-id expression (when that may have changed before the send)."""
    if source.template is not None:
        return _template_builder(source, ref)
    if source.message_id is None and message_id is None:
        raise Failure("the chunk has no message_id given as a keyword")
    order = _layout_order(source)
    if source.style == "model":
        return _model_builder(source, ref, order, message_id)
    return _dict_builder(source, order, message_id)


def _model_builder(
    source: Source,
    ref: cst.BaseExpression,
    order: list[str],
    message_id: cst.BaseExpression | None,
) -> Build:
    layout = source.layout

    def build(applier: Applier) -> cst.BaseExpression:
        args: list[cst.Arg] = []
        for key in order:
            item = source.layout_items.get(key)
            if key == "message_id" and message_id is not None:
                args.append(keyword(key, message_id.deep_clone()))
            elif isinstance(item, cst.Arg):
                arg = _visit(item, applier)
                args.append(arg.with_changes(keyword=cst.Name(key)))
            else:
                value = source.message_id if key == "message_id" else source.identity[key]
                assert value is not None
                args.append(keyword(key, _visit(value, applier)))
        if isinstance(layout, cst.Call):
            with_last_comma(args, layout.args)
            return layout.with_changes(func=ref, args=args)
        return cst.Call(func=ref, args=args)

    return build


def _dict_builder(source: Source, order: list[str], message_id: cst.BaseExpression | None) -> Build:
    layout = source.layout
    assert isinstance(layout, cst.Dict)
    for key in ["tag", *order]:
        if not isinstance(source.layout_items.get(key), cst.DictElement):
            raise Failure(f"the payload has no plain {key} entry")

    def build(applier: Applier) -> cst.BaseExpression:
        elements: list[cst.BaseDictElement] = []
        for key in ["tag", *order]:
            item = source.layout_items[key]
            assert isinstance(item, cst.DictElement)
            if key == "tag":
                elements.append(item.with_changes(value=_tag_string(item.value, MESSAGE_TAG)))
            elif key == "message_id" and message_id is not None:
                elements.append(item.with_changes(value=message_id.deep_clone()))
            else:
                elements.append(_visit(item, applier))
        with_last_comma(elements, layout.elements)
        return layout.with_changes(elements=elements)

    return build


def _template_builder(source: Source, ref: cst.BaseExpression) -> Build:
    template = source.template
    assert template is not None

    def value_of(text: str, applier: Applier) -> cst.BaseExpression:
        bound = {name: _visit(value, applier) for name, value in source.bound.items()}
        return substitute(cst.parse_expression(text), bound)

    def build(applier: Applier) -> cst.BaseExpression:
        values = [("message_id", value_of(template.message_id, applier))]
        values += [
            (name, value_of(text, applier))
            for name, text in template.identity
            if name in source.identity
        ]
        if template.style == "model":
            return cst.Call(func=ref, args=[keyword(k, v) for k, v in values])
        keys = dict(template.keys)
        tag = cst.DictElement(
            cst.parse_expression(keys["tag"]), cst.SimpleString(f'"{MESSAGE_TAG}"')
        )
        rest = [cst.DictElement(cst.parse_expression(keys[k]), value) for k, value in values]
        return cst.Dict([tag, *rest])

    return build


def keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    """`name=value`, spaced as PEP 8 wants keyword arguments."""
    no_space = cst.SimpleWhitespace("")
    return cst.Arg(
        value=value,
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=no_space, whitespace_after=no_space),
    )


def _visit(node: N, applier: Applier) -> N:
    """An original node with the plan's edits applied (for copies of it)."""
    result = node.visit(applier)
    assert isinstance(result, type(node))
    return result


def _layout_order(source: Source) -> list[str]:
    """message_id and the moved fields, in the order the chunk had them."""
    keys = ["message_id", *source.identity]
    positions = {key: index for index, key in enumerate(source.layout_items)}
    return sorted(keys, key=lambda k: positions.get(k, len(positions)))


def _tag_string(model: cst.BaseExpression, tag: str) -> cst.SimpleString:
    """The string `tag`, quoted like `model`."""
    if isinstance(model, cst.SimpleString):
        return cst.SimpleString(f"{model.prefix}{model.quote}{tag}{model.quote}")
    return cst.SimpleString(f'"{tag}"')
