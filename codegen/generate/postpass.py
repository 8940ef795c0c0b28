"""libcst post-pass over datamodel-code-generator's output.

What the generator cannot express, the post-pass writes into the module, by syntax tree:

- the `x-deserialize-*` keywords, which the generator leaves in `json_schema_extra`, become
  the runtime's `Annotated` markers (`DefaultOnError`, `SkipInvalidItems`, `DefaultOnNull`);
- tagged unions become `Annotated[A | B | Other, TagDispatch(...)]`: the plain union for
  type checkers, a pydantic-core tagged union for decoding (open ones fall back to
  `Other`, which refuses the known tags);
- keys a revision removed from a definition are dropped on decode (`__acp_ignored_keys__`);
- enums derive from the runtime's `WireEnum`;
- constraints move onto the value member of a nullable union (`ge=0` must not see `None`);
- every field or type alias whose type holds an `int` ends with `JsonInteger()`, so integers
  are decoded as JSON Schema has them (bounds included);
- every field gets a typed builder `with_<field>(value)` returning a new instance.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from dataclasses import fields as dataclass_fields
from functools import cache
from typing import TypeGuard

import libcst as cst
from datamodel_code_generator.util import camel_to_snake

from .model_parts import ModelParts, split_models
from .module_level import (
    RUNTIME_IMPORT,
    RUNTIME_MODULE,
    builder_names,
    defines,
    literal_of_values,
    with_own_imports,
)
from .prepass import TaggedUnion

_DECODING_KEYS = {
    "x-deserialize-skip-invalid-items": "SkipInvalidItems",
    "x-deserialize-default-on-null": "DefaultOnNull",
    "x-deserialize-default-on-error": "DefaultOnError",
}


@dataclass
class PostpassPlan:
    unions: Mapping[str, TaggedUnion]
    ignored_keys: Mapping[str, Sequence[str]] = field(default_factory=dict)


def _string_value(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _quoted(text: str) -> str:
    """A string from the schema as a Python literal: `repr` escapes quotes, backslashes,
    newlines and NULs, so schema text is never read as code. Double quotes where that
    needs no escaping, as ruff would write it."""
    literal = repr(text)
    if literal[0] == "'" and '"' not in text:  # no quote inside needed escaping
        return f'"{literal[1:-1]}"'
    return literal


# Node tests by isinstance rather than libcst.matchers: importing the matchers module alone
# cost about 0.14 s of CPU per command, and a matcher call is slower than the test it makes.
def _is_name(node: cst.CSTNode, value: str) -> bool:
    return type(node) is cst.Name and node.value == value  # exact type: fast when not a Name


def _is_call_of(node: cst.CSTNode, function: str) -> bool:
    return isinstance(node, cst.Call) and _is_name(node.func, function)


def _is_subscript_of(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Subscript) and _is_name(node.value, name)


def _is_field_call(node: cst.BaseExpression) -> bool:
    return _is_call_of(node, "Field")


def _annotated_parts(annotation: cst.BaseExpression) -> list[cst.SubscriptElement] | None:
    if isinstance(annotation, cst.Subscript) and _is_name(annotation.value, "Annotated"):
        return list(annotation.slice)
    return None


@cache  # nodes are immutable, so one parsed marker can stand in every annotation
def _marker(name: str, required: bool) -> cst.SubscriptElement:
    code = f"{name}(required=True)" if name == "DefaultOnError" and required else f"{name}()"
    return cst.SubscriptElement(cst.Index(cst.parse_expression(code)))


def _pop_decoding_keys(call: cst.Call) -> tuple[cst.Call, list[str]]:
    """Remove the x-deserialize keys from `json_schema_extra=`; return the markers to add."""
    found: list[str] = []
    args: list[cst.Arg] = []
    for arg in call.args:
        if arg.keyword is None or arg.keyword.value != "json_schema_extra":
            args.append(arg)
            continue
        if not isinstance(arg.value, cst.Dict):
            args.append(arg)
            continue
        kept = []
        for element in arg.value.elements:
            key = _string_value(element.key) if isinstance(element, cst.DictElement) else None
            if key in _DECODING_KEYS:
                found.append(key)
            else:
                kept.append(element)
        if kept:
            args.append(arg.with_changes(value=arg.value.with_changes(elements=kept)))
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    ordered = [marker for key, marker in _DECODING_KEYS.items() if key in found]
    return call.with_changes(args=args), ordered


_CONSTRAINTS = frozenset(
    {"ge", "gt", "le", "lt", "multiple_of", "min_length", "max_length", "pattern"}
)


def _constrain_member(
    call: cst.Call, first: cst.SubscriptElement
) -> tuple[cst.Call, cst.SubscriptElement]:
    """`Annotated[int | None, Field(ge=0)]` -> `Annotated[Annotated[int, Field(ge=0)] | None, ...]`.

    On a union the constraint would be applied to `None` and MISSING too, which pydantic
    refuses, so a valid `null` would be rejected (and, with default-on-error, dropped).
    """
    moved = [a for a in call.args if a.keyword is not None and a.keyword.value in _CONSTRAINTS]
    member = first.slice.value if isinstance(first.slice, cst.Index) else None
    if not moved or not (
        isinstance(member, cst.BinaryOperation) and isinstance(member.operator, cst.BitOr)
    ):
        return call, first
    left = member
    while isinstance(left.left, cst.BinaryOperation):  # the leftmost member of a | b | c
        left = left.left
    inner = cst.Call(
        cst.Name("Field"), [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in moved]
    )
    constrained = cst.Subscript(
        cst.Name("Annotated"),
        [cst.SubscriptElement(cst.Index(left.left)), cst.SubscriptElement(cst.Index(inner))],
    )
    member = member.deep_replace(left.left, constrained)
    assert isinstance(member, cst.BaseExpression)
    kept = [a for a in call.args if a not in moved]
    if kept:
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=kept), first.with_changes(slice=cst.Index(member))


# Whitespace and punctuation nodes: no name can be below them, so walks skip them.
_NO_NAMES = (
    cst.BaseParenthesizableWhitespace,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.Comma,
    cst.AssignEqual,
    cst.Colon,
    cst.Dot,
    cst.BaseBinaryOp,
    cst.BaseUnaryOp,
    cst.BaseBooleanOp,
    cst.BaseCompOp,
)


@cache
def _child_fields(node_type: type[cst.CSTNode]) -> tuple[str, ...]:
    return tuple(f.name for f in dataclass_fields(node_type))


_WALKED: dict[type, bool] = {}  # by the type of a field value


def _is_walked(value: object) -> TypeGuard[cst.CSTNode]:
    """Whether a field value is a node that a walk goes into. Read from the MRO, once per
    type: `issubclass` on libcst's abstract base classes walks all their subclasses."""
    kind = type(value)
    walked = _WALKED.get(kind)
    if walked is None:
        bases = kind.__mro__
        walked = cst.CSTNode in bases and not any(base in bases for base in _NO_NAMES)
        _WALKED[kind] = walked
    return walked


def _nodes(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`root` and every node below it but whitespace and punctuation. A libcst node is a
    dataclass whose node-valued fields are its children; reading them directly is about
    ten times faster than a visitor (`m.findall`), which rebuilds every node it passes."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        for name in _child_fields(type(node)):
            value: object = getattr(node, name)
            if isinstance(value, (list, tuple)):
                stack.extend(v for v in value if _is_walked(v))
            elif _is_walked(value):
                stack.append(value)


def _holds_int(annotation: cst.BaseExpression) -> bool:
    """Whether a type holds an `int`, or a `Literal` of numbers or booleans: `JsonInteger`
    makes both compare as JSON Schema does (`true` is not 1)."""
    return any(
        _is_name(node, "int") or (_is_subscript_of(node, "Literal") and literal_of_values(node))
        for node in _nodes(annotation)
    )


_JSON_INTEGER = cst.SubscriptElement(cst.Index(cst.parse_expression("JsonInteger()")))


def _with_json_integer(annotation: cst.BaseExpression) -> cst.BaseExpression:
    """`T` -> `Annotated[T, JsonInteger()]`; `Annotated[T, ...]` gets it last, after the
    `Field(...)` whose bounds it must see."""
    marker = _JSON_INTEGER
    parts = _annotated_parts(annotation)
    if parts is None:
        return cst.Subscript(
            cst.Name("Annotated"), [cst.SubscriptElement(cst.Index(annotation)), marker]
        )
    assert isinstance(annotation, cst.Subscript)
    parts = [p.with_changes(comma=cst.MaybeSentinel.DEFAULT) for p in parts]
    return annotation.with_changes(slice=[*parts, marker])


def _extra_values_checked(annotation: cst.BaseExpression) -> cst.BaseExpression:
    """`__pydantic_extra__: dict[str, T]` (the type of unknown keys' values): pydantic takes
    no metadata on the dict itself, so `JsonInteger()` goes on `T`, and no builder."""
    if not (_is_subscript_of(annotation, "dict") and isinstance(annotation, cst.Subscript)):
        return annotation
    key, value = annotation.slice
    if not (isinstance(value.slice, cst.Index) and _holds_int(value.slice.value)):
        return annotation
    checked = value.with_changes(slice=cst.Index(_with_json_integer(value.slice.value)))
    return annotation.with_changes(slice=[key, checked])


def _bare_type(annotation: cst.BaseExpression) -> cst.BaseExpression:
    parts = _annotated_parts(annotation)
    if parts is None:
        return annotation
    first = parts[0].slice
    assert isinstance(first, cst.Index)
    return first.value


def _is_literal(annotation: cst.BaseExpression) -> bool:
    return _is_subscript_of(_bare_type(annotation), "Literal")


_BUILDER = cst.parse_statement(
    "def with_FIELD(self, value: VALUE) -> Self:\n"
    '    """Return a copy with `WIRE` set to `value`."""\n'
    '    return self._with("FIELD", value)\n'
)


def _builder(field: str, wire: str, annotation: cst.BaseExpression, method: str) -> cst.FunctionDef:
    """`with_<field>(value) -> Self` (named `method`), from one template parsed once: a
    parse per class was a third of the post-pass time (docs/performance.md)."""
    template = _BUILDER
    assert isinstance(template, cst.FunctionDef) and isinstance(template.body, cst.IndentedBlock)
    this, value = template.params.params
    value = value.with_changes(annotation=cst.Annotation(_bare_type(annotation)))
    doc_line, return_line = template.body.body
    assert isinstance(doc_line, cst.SimpleStatementLine)
    assert isinstance(return_line, cst.SimpleStatementLine)
    doc, give = doc_line.body[0], return_line.body[0]
    assert isinstance(doc, cst.Expr) and isinstance(give, cst.Return)
    assert isinstance(give.value, cst.Call)
    name_arg = give.value.args[0]
    # `wire` is schema text: it only ever appears inside a literal made by `repr`.
    text = f"Return a copy with `{wire}` set to `value`."
    quoted = _quoted(text)
    docstring = f'"""{text}"""' if quoted == f'"{text}"' else quoted  # plain text: as before
    doc = doc.with_changes(value=cst.SimpleString(docstring))
    name_arg = name_arg.with_changes(value=cst.SimpleString(_quoted(field)))
    give = give.with_changes(value=give.value.with_changes(args=[name_arg, *give.value.args[1:]]))
    return template.with_changes(
        name=cst.Name(method),
        params=template.params.with_changes(params=[this, value]),
        body=template.body.with_changes(
            body=[doc_line.with_changes(body=[doc]), return_line.with_changes(body=[give])]
        ),
    )


def _is_pass(statement: cst.CSTNode) -> bool:
    """A class body's lone `pass`, dropped once the class gets members."""
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Pass)
    )


class _Finisher(cst.CSTTransformer):
    def __init__(
        self,
        plan: PostpassPlan,
        field_names: Mapping[str, Mapping[str, str]] | None = None,
        positions: Mapping[str, int] | None = None,
    ) -> None:
        super().__init__()
        self.plan = plan
        self.positions = positions or {}  # top-level name -> index of its statement
        self.field_names = field_names or {}
        self.class_stack: list[str] = []
        self.fields: list[list[tuple[str, str, cst.BaseExpression]]] = []
        self.imported: set[str] = set()  # RUNTIME_MODULE and the names imported
        self.needs_union = False

    # -- imports -------------------------------------------------------------------------
    def leave_ImportFrom(
        self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
    ) -> cst.ImportFrom | cst.RemovalSentinel:
        module = cst.Module([]).code_for_node(updated_node.module) if updated_node.module else ""
        if isinstance(updated_node.names, Sequence):
            self.imported.update(n.evaluated_name for n in updated_node.names)
        if module == "enum":  # every enum derives from WireEnum instead
            return cst.RemovalSentinel.REMOVE
        if module == "pydantic.experimental.missing_sentinel":
            self.imported.add(RUNTIME_MODULE)
            return RUNTIME_IMPORT
        if module == "typing_extensions" and isinstance(updated_node.names, Sequence):
            self.imported.add("Self")
            aliases = list(updated_node.names)
            present = {n.name.value for n in aliases if isinstance(n.name, cst.Name)}
            if "Self" not in present:
                aliases.append(cst.ImportAlias(cst.Name("Self")))
                aliases = [n.with_changes(comma=cst.MaybeSentinel.DEFAULT) for n in aliases]
                return updated_node.with_changes(names=aliases)
        return updated_node

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return with_own_imports(updated_node, self.imported, union=self.needs_union)

    # -- pruning -------------------------------------------------------------------------
    # The edits are made in leave_* from whole statements, so the visitor need not walk
    # into expressions; skipping them halves the post-pass time on a 9,000-line module.
    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Expr(self, node: cst.Expr) -> bool:
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    # -- classes -------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.class_stack.append(node.name.value)
        self.fields.append([])

    def leave_ClassDef(
        self, original_node: cst.ClassDef, updated_node: cst.ClassDef
    ) -> cst.ClassDef:
        name = self.class_stack.pop()
        fields = self.fields.pop()
        bases = updated_node.bases
        if len(bases) == 1 and _is_name(bases[0].value, "Enum"):
            # Enums take their wire values from Python data too (see WireEnum).
            return updated_node.with_changes(bases=[cst.Arg(cst.Name("WireEnum"))])
        # Parsing is the costly part: the rare class-level additions take one parse per
        # class, the builders none (`_builder`).
        added: list[str] = []
        ignored = self.plan.ignored_keys.get(name)
        if ignored:
            keys = ", ".join(_quoted(k) for k in sorted(ignored))
            names = ", ".join(_quoted(camel_to_snake(k)) for k in sorted(ignored))
            added.append(f"__acp_ignored_keys__ = frozenset({{{keys}}})\n")
            added.append(f"__acp_removed_names__ = frozenset({{{names}}})\n")
            added.append(
                "def model_post_init(self, context: Any, /) -> None:\n"
                '    """Drop the wire keys this definition no longer has."""\n'
                "    self._drop_ignored_keys()\n"
            )
        extra: list[cst.BaseStatement] = (
            list(cst.parse_module("".join(added)).body) if added else []
        )
        methods = builder_names([field_name for field_name, _, _ in fields])
        extra += [
            _builder(*parts, method)
            for parts, method in zip(fields, methods, strict=True)
            if not _is_literal(parts[2])
        ]
        if not extra:
            return updated_node
        body = [s for s in updated_node.body.body if not _is_pass(s)]
        return updated_node.with_changes(body=updated_node.body.with_changes(body=[*body, *extra]))

    def leave_AnnAssign(
        self, original_node: cst.AnnAssign, updated_node: cst.AnnAssign
    ) -> cst.AnnAssign:
        if not self.class_stack or not isinstance(updated_node.target, cst.Name):
            return updated_node
        field_name = updated_node.target.value
        if field_name == "model_config":
            return updated_node
        if field_name == "__pydantic_extra__":  # `additionalProperties: {schema}`
            return updated_node.with_changes(
                annotation=updated_node.annotation.with_changes(
                    annotation=_extra_values_checked(updated_node.annotation.annotation)
                )
            )
        annotation = updated_node.annotation.annotation
        parts = _annotated_parts(annotation)
        wire_name = field_name
        # DefaultOnError goes last, so that it also covers the bounds of `Field(...)` and the
        # integer check: a value breaking any of them reads as the default (minItems included).
        last: list[cst.SubscriptElement] = []
        if parts is not None:
            new_parts: list[cst.SubscriptElement] = [parts[0]]
            for part in parts[1:]:
                value = part.slice.value if isinstance(part.slice, cst.Index) else None
                if value is not None and _is_field_call(value):
                    assert isinstance(value, cst.Call)
                    call, markers = _pop_decoding_keys(value)
                    call, new_parts[0] = _constrain_member(call, new_parts[0])
                    for arg in call.args:
                        if arg.keyword is not None and arg.keyword.value == "alias":
                            wire_name = _string_value(arg.value) or wire_name
                    for mk in markers:
                        marker = _marker(mk, updated_node.value is None)
                        (last if mk == "DefaultOnError" else new_parts).append(marker)
                    new_parts.append(part.with_changes(slice=cst.Index(call)))
                else:
                    new_parts.append(part)
            new_parts = [p.with_changes(comma=cst.MaybeSentinel.DEFAULT) for p in new_parts]
            assert isinstance(annotation, cst.Subscript)
            annotation = annotation.with_changes(slice=new_parts)
        if _holds_int(annotation):
            annotation = _with_json_integer(annotation)
        if last:
            assert isinstance(annotation, cst.Subscript)
            kept = [p.with_changes(comma=cst.MaybeSentinel.DEFAULT) for p in annotation.slice]
            annotation = annotation.with_changes(slice=[*kept, *last])
        updated_node = updated_node.with_changes(
            annotation=updated_node.annotation.with_changes(annotation=annotation)
        )
        self.fields[-1].append((field_name, wire_name, annotation))
        return updated_node

    # -- unions --------------------------------------------------------------------------
    def leave_Assign(self, original_node: cst.Assign, updated_node: cst.Assign) -> cst.Assign:
        if self.class_stack or len(updated_node.targets) != 1:
            return updated_node
        target = updated_node.targets[0].target
        call = updated_node.value
        if not isinstance(target, cst.Name) or not isinstance(call, cst.Call):
            return updated_node
        if not _is_name(call.func, "TypeAliasType"):
            return updated_node
        if target.value not in self.plan.unions:
            value = call.args[1].value
            if not _holds_int(value):
                return updated_node
            args = [call.args[0], call.args[1].with_changes(value=_with_json_integer(value))]
            return updated_node.with_changes(value=call.with_changes(args=[*args, *call.args[2:]]))
        union = self.plan.unions[target.value]
        union_type = self._union_type(union, call.args[1].value, self.positions.get(target.value))
        return updated_node.with_changes(
            value=call.with_changes(args=[call.args[0], cst.Arg(union_type)])
        )

    def _tag_field(self, union: TaggedUnion) -> str:
        """The Python name of the tag field, as the generator named it in the variants (its
        snake_case of a wire name that is not an identifier may differ from ours)."""
        for variant in union.variants.values():
            name = self.field_names.get(variant, {}).get(union.tag_property)
            if name is not None:
                return name
        return union.tag_field

    def _union_type(
        self, union: TaggedUnion, old: cst.BaseExpression, position: int | None = None
    ) -> cst.BaseExpression:
        """`Annotated[A | B | Other, TagDispatch(...)]`: the plain union for type checkers,
        the dispatch for pydantic; other metadata (the description) is kept.

        A union defined before one of its members (a recursive union: the member holds
        the union) names that member as a string, `Union[A, "B"]`, and gives TagDispatch
        functions that return the classes, called once the module has defined them."""
        kept = [
            cst.Module([]).code_for_node(part.slice.value)
            for part in (_annotated_parts(old) or [])[1:]
            if isinstance(part.slice, cst.Index)
        ]
        members = [*dict.fromkeys(union.variants.values())]
        if union.other:
            members.append(union.other)
        later = {
            m for m in members if position is not None and self.positions.get(m, -1) > position
        }
        table = ", ".join(f"{_quoted(tag)}: {name}" for tag, name in union.variants.items())
        lazy = "lambda: " if later else ""
        other = f", other={lazy}{union.other}" if union.other else ""
        dispatch = (
            f"TagDispatch({_quoted(union.tag_property)}, {_quoted(self._tag_field(union))}, "
            f"{lazy}{{{table}}}{other})"
        )
        if later:
            self.needs_union = True  # imported in leave_Module if the generator did not
            listed = ", ".join(_quoted(m) if m in later else m for m in members)
            plain = f"Union[{listed}]"
        else:
            plain = " | ".join(members)
        return cst.parse_expression(f"Annotated[{plain}, {', '.join([dispatch, *kept])}]")


def _field_names(module: cst.Module) -> dict[str, dict[str, str]]:
    """Class -> wire name -> Python field name, as the generator wrote them (its own
    mangling of wire names that are not identifiers; `alias=` holds the wire name)."""
    out: dict[str, dict[str, str]] = {}
    for statement in module.body:
        if not isinstance(statement, cst.ClassDef):
            continue
        names = out.setdefault(statement.name.value, {})
        for line in statement.body.body:
            if not isinstance(line, cst.SimpleStatementLine):
                continue
            for small in line.body:
                if not (isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)):
                    continue
                wire = small.target.value
                for part in (_annotated_parts(small.annotation.annotation) or [])[1:]:
                    value = part.slice.value if isinstance(part.slice, cst.Index) else None
                    if isinstance(value, cst.Call) and _is_field_call(value):
                        for arg in value.args:
                            if arg.keyword is not None and arg.keyword.value == "alias":
                                wire = _string_value(arg.value) or wire
                names[wire] = small.target.value
    return out


@dataclass(frozen=True)
class FinishedModule:
    code: str
    names: frozenset[str]  # the classes and aliases it defines at top level
    parts: ModelParts | None = None  # the module in two, where asked (`model_parts`)


def _top_level_names(module: cst.Module) -> frozenset[str]:
    return frozenset(name for statement in module.body for name in defines(statement))


def finish_module(
    source: str, plan: PostpassPlan, split_for: Iterable[str] | None = None
) -> FinishedModule:
    """Apply the post-pass to one generated module's source. The names come from the tree
    at hand: reading them from the formatted text took another whole-module parse; so
    does the split into parts (`split_for`: the notifications' params classes)."""
    with _collector_paused():
        module = cst.parse_module(source)
        positions = {name: i for i, st in enumerate(module.body) for name in defines(st)}
        done = module.visit(_Finisher(plan, _field_names(module), positions))
        parts = None if split_for is None else split_models(done, split_for)
        return FinishedModule(done.code, _top_level_names(done), parts)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for a while (as it was after). A module's syntax
    tree is ~300,000 objects, all alive until the post-pass ends, and the full collections
    that creating them triggers walk every one (about 0.1 s of CPU per module). The little
    cyclic garbage made meanwhile (about 13,000 objects for v2) waits for the next one."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
