"""The second generation target: `fast.py`, msgspec Structs mirroring the generated models.

The Structs are derived from the model classes themselves (the post-pass output, executed
in a scratch module), not from the schema a second time, so the two sets of types cannot
drift apart. A model is mirrored only where a Struct decodes exactly what the model decodes,
to the same values, or refuses; everything else is left out, and the fast path then hands
the message to the model (`acp_schema._fast`). What "exactly" takes:

- Unknown keys, removed keys, unknown tags: the Struct forbids them (the model keeps,
  drops or routes them to `Other`).
- `x-deserialize-*` markers: the Struct takes the plain type, so a value the model would
  replace or skip is refused instead; default-on-null also takes `null` out of the type.
- JSON integers: a plain `int` refuses `1.0`, which the model reads as 1.
- Unions: a tagged union keeps its known variants (a variant that is itself a union, or
  whose tag field is not a defaulted single-value literal, is left out), and needs two of
  them: msgspec requires the tag only to choose among Structs; any other
  union is mirrored only if its members take disjoint JSON kinds, so both decoders pick
  the same member. (msgspec writes a tag as the first key of its object, the model where
  the field is declared: the same JSON value, in another key order.)
- A field whose type cannot be mirrored leaves its whole class out, and with it every
  class that needs it (a greatest fixpoint: recursive types stay in).
"""

from __future__ import annotations

import enum
import hashlib
import keyword
import sys
import types
import typing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import annotated_types
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from acp_schema._runtime import (
    MISSING,
    AcpModel,
    DefaultOnError,
    DefaultOnNull,
    JsonInteger,
    SkipInvalidItems,
    TagDispatch,
)

from .package_files import MODELS_MODULE

# Markers that only make the model more lenient: the Struct's plain type is stricter.
_LENIENT = (DefaultOnError, SkipInvalidItems, JsonInteger)
_BOUNDS = {
    annotated_types.Ge: ("ge", "ge"),
    annotated_types.Le: ("le", "le"),
    annotated_types.Gt: ("gt", "gt"),
    annotated_types.Lt: ("lt", "lt"),
    annotated_types.MinLen: ("min_length", "min_length"),
    annotated_types.MaxLen: ("max_length", "max_length"),
    annotated_types.MultipleOf: ("multiple_of", "multiple_of"),
}
# Attribute names the Struct base class uses.
_TAKEN = frozenset({"decode_json", "model_dump_json", "to_model", "from_model", "model_type"})


class _No(Exception):
    """This type has no exact Struct form."""


@dataclass
class _Type:
    code: str  # the annotation, as source
    kinds: frozenset[str]  # JSON kinds it takes: null, bool, number, string, array, object, any
    tag_field: str | None = None  # set when every object member is a tagged Struct
    strings: tuple[str, ...] | None = None  # the values of a string literal; () for `str`
    static: str | None = None  # what type checkers see, where it differs from `code`


@dataclass
class _Tag:
    wire_key: str
    python_name: str
    value: str


@dataclass
class _Plan:
    models: list[type[AcpModel]]
    aliases: dict[str, Any]  # alias name -> TypeAliasType
    alias_of: dict[int, str] = field(default_factory=dict)  # id(TypeAliasType) -> name
    mirrored: set[type[AcpModel]] = field(default_factory=set)
    tags: dict[type[AcpModel], _Tag] = field(default_factory=dict)


def _wire_name(name: str) -> str:
    """A wire key msgspec can rename a field to (or tag by): it refuses backslashes,
    double quotes and control characters. A model with such a key has no Struct form."""
    if any(char in '"\\' or ord(char) < 0x20 for char in name):
        raise _No(f"wire key {name!r}")
    return name


def _identifier(name: str) -> str:
    if not name.isidentifier() or keyword.iskeyword(name):
        raise RuntimeError(f"{name!r} is not a Python identifier")
    return name


def _unwrap(kind: Any) -> tuple[Any, list[Any]]:
    """The type under `Annotated[...]` layers, and their metadata (FieldInfo flattened)."""
    metadata: list[Any] = []
    while typing.get_origin(kind) is typing.Annotated:
        for item in kind.__metadata__:
            metadata.extend(item.metadata if isinstance(item, FieldInfo) else [item])
        kind = kind.__origin__
    return kind, metadata


def _is_alias(kind: Any) -> bool:
    return type(kind).__name__ == "TypeAliasType"


def _union_members(kind: Any) -> list[Any] | None:
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        return list(typing.get_args(kind))
    return None


class _Translator:
    def __init__(self, plan: _Plan) -> None:
        self.plan = plan
        self.named: set[str] = set()  # the aliases a translation refers to

    def field_type(self, annotation: Any, metadata: list[Any]) -> _Type:
        drop_null = any(isinstance(m, DefaultOnNull) for m in metadata)
        return self.type(annotation, metadata, drop_null=drop_null)

    def type(
        self,
        kind: Any,
        metadata: Sequence[Any] = (),
        *,
        drop_null: bool = False,
        alias_root: bool = False,
    ) -> _Type:
        kind, inner = _unwrap(kind)
        metadata = [*metadata, *inner]
        tag_dispatch = [m for m in metadata if isinstance(m, TagDispatch)]
        bounds: dict[str, Any] = {}
        for item in metadata:
            if isinstance(item, (*_LENIENT, DefaultOnNull, TagDispatch)):
                continue
            bound = _BOUNDS.get(type(item))
            if bound is None:
                raise _No(f"constraint {item!r}")
            bounds[bound[1]] = _int64(bound[1], getattr(item, bound[0]))
        if _is_alias(kind):
            if bounds or tag_dispatch:
                raise _No("constrained alias")
            return self.alias(kind, drop_null=drop_null)
        members = _union_members(kind)
        if members is None and tag_dispatch:
            members = [kind]  # a tagged "union" of one class still requires its tag
        if members is not None:
            if bounds:
                raise _No("constrained union")
            if tag_dispatch:
                return self.tagged(
                    members, tag_dispatch[0], drop_null=drop_null, alias_root=alias_root
                )
            return self.union(members, drop_null=drop_null)
        result = self.single(kind)
        if bounds:
            meta = ", ".join(f"{key}={value!r}" for key, value in sorted(bounds.items()))
            result = _Type(f"Annotated[{result.code}, msgspec.Meta({meta})]", result.kinds)
        return result

    def alias(self, alias: Any, *, drop_null: bool) -> _Type:
        name = self.plan.alias_of.get(id(alias))
        if name is None:
            raise _No(f"alias {alias.__name__} defined elsewhere")
        self.named.add(name)
        inner = self.type(alias.__value__, alias_root=True)
        if drop_null and "null" in inner.kinds:
            raise _No("default-on-null over an alias that takes null")
        return _Type(name, inner.kinds, inner.tag_field)

    def single(self, kind: Any) -> _Type:
        if kind is str:
            return _Type("str", frozenset({"string"}), strings=())
        if kind is bool:
            return _Type("bool", frozenset({"bool"}))
        if kind is int or kind is float:
            return _Type(kind.__name__, frozenset({"number"}))
        if kind is type(None):
            return _Type("None", frozenset({"null"}))
        if kind is Any:
            return _Type("Any", frozenset({"any"}))
        if kind is MISSING:
            return _Type("msgspec.UnsetType", frozenset())
        origin, args = typing.get_origin(kind), typing.get_args(kind)
        if origin is typing.Literal:
            return _literal(args)
        if origin is list and len(args) == 1:
            return _Type(f"list[{self.type(args[0]).code}]", frozenset({"array"}))
        if origin is dict and len(args) == 2 and args[0] is str:
            return _Type(f"dict[str, {self.type(args[1]).code}]", frozenset({"object"}))
        if isinstance(kind, type) and issubclass(kind, enum.Enum):
            return _literal(tuple(member.value for member in kind))
        if isinstance(kind, type) and issubclass(kind, AcpModel):
            if kind not in self.plan.mirrored:
                raise _No(f"{kind.__name__} is not mirrored")
            tag = self.plan.tags.get(kind)
            return _Type(kind.__name__, frozenset({"object"}), tag.wire_key if tag else None)
        raise _No(f"type {kind!r}")

    def union(self, members: list[Any], *, drop_null: bool) -> _Type:
        members = self.disjoint(members)
        parts = _merge_strings([self.type(member) for member in members])
        if drop_null:
            parts = [part for part in parts if part.kinds != {"null"}]
        seen: set[str] = set()
        tagged = {part.tag_field for part in parts if "object" in part.kinds}
        shared_tag = len(tagged) == 1 and None not in tagged
        for part in parts:
            if "any" in part.kinds and len(parts) > 1:
                only_unset = all(p is part or not p.kinds for p in parts)
                if not only_unset:
                    raise _No("Any in a union")
            for kind in part.kinds:
                if kind in seen and not (kind == "object" and shared_tag):
                    raise _No(f"two union members take JSON {kind}")
                seen.add(kind)
        code = " | ".join(part.code for part in parts)
        return _Type(code, frozenset(seen), tagged.pop() if shared_tag else None)

    def disjoint(self, members: list[Any]) -> list[Any]:
        """`members` without those the Struct leaves to the model: where several members
        are classes (or arrays of classes) of one JSON kind, the first mirrored one stays
        when every other one requires a wire key its class does not declare. An object the
        kept Struct accepts (no unknown keys) then lacks that key, so the model's union
        can pick the kept member only (an empty array: the same value either way); the
        other members' messages take the model's path."""
        shapes = [_class_shape(member) for member in members]
        kept: dict[str, type[AcpModel]] = {}
        for shape in shapes:
            if shape is not None and shape[1] in self.plan.mirrored:
                kept.setdefault(shape[0], shape[1])
        result = []
        for member, shape in zip(members, shapes, strict=True):
            first = kept.get(shape[0]) if shape is not None else None
            other = shape[1] if shape is not None and shape[1] is not first else None
            if (
                first is not None
                and other is not None
                and _required_keys(other) - _wire_keys(first)
            ):
                continue  # never accepts what the kept member's Struct accepts
            result.append(member)
        return result

    def tagged(
        self, members: list[Any], dispatch: TagDispatch, *, drop_null: bool, alias_root: bool
    ) -> _Type:
        variants: list[str] = []
        for tag, kind in dispatch.variants.items():
            if not (isinstance(kind, type) and kind in self.plan.mirrored):
                continue  # a nested union or an unmirrored class: the fast path refuses it
            assigned = self.plan.tags.get(kind)
            if assigned and (assigned.wire_key, assigned.value) == (dispatch.wire_key, tag):
                variants.append(kind.__name__)
        if not variants:
            raise _No("no variant of a tagged union is mirrored")
        # msgspec requires the tag only to choose among Structs: one Struct alone (even
        # beside None) decodes an object without its tag, which the model refuses. A lone
        # variant gets a Struct that never decodes beside it (`_tag_required`), at run time
        # only, so an alias's static type stays the variant; elsewhere it is left out.
        static = None
        if len(variants) == 1:
            if not alias_root or dispatch.variants.get(_NEVER_TAG) is not None:
                raise _No("one variant of a tagged union is mirrored")
            static = variants[0]
            variants.append(_tag_required(dispatch.wire_key))
        routed = [*dispatch.variants.values(), dispatch.other]
        others = [m for m in members if not any(m is kind for kind in routed)]
        rest = self.union(others, drop_null=drop_null) if others else None
        if rest and rest.kinds & {"object", "any"}:
            raise _No("a tagged union with other object members")
        code = " | ".join(variants + ([rest.code] if rest else []))
        kinds = frozenset({"object"} | (rest.kinds if rest else set()))
        if static is not None:
            static = " | ".join([static] + ([rest.code] if rest else []))
        return _Type(code, kinds, dispatch.wire_key, static=static)


def _class_shape(kind: Any) -> tuple[str, type[AcpModel]] | None:
    """("object", C) for a model class C, ("array", C) for a list of them (through aliases
    and `Annotated`), else None; None too where a lenient marker sits on the way (a list
    that skips bad items could take what its class refuses)."""
    kind = _plain(kind)
    if kind is not None and typing.get_origin(kind) is list and len(typing.get_args(kind)) == 1:
        item = _plain(typing.get_args(kind)[0])
        return ("array", item) if isinstance(item, type) and issubclass(item, AcpModel) else None
    return ("object", kind) if isinstance(kind, type) and issubclass(kind, AcpModel) else None


def _plain(kind: Any) -> Any:
    """The type under aliases and `Annotated` layers; None if a layer holds a lenient
    marker."""
    while True:
        kind, metadata = _unwrap(kind)
        if any(isinstance(item, _LENIENT) for item in metadata):
            return None
        if not _is_alias(kind):
            return kind
        kind = kind.__value__


def _wire_keys(model: type[AcpModel]) -> set[str]:
    return {info.alias or name for name, info in model.model_fields.items()}


def _required_keys(model: type[AcpModel]) -> set[str]:
    return {info.alias or name for name, info in model.model_fields.items() if info.is_required()}


_NEVER_TAG = "\x00"  # the sentinel's tag: no schema names a variant with it


def _tag_required(wire_key: str) -> str:
    """The name of the sentinel Struct for tag key `wire_key` (see `_sentinel_source`)."""
    if wire_key.isidentifier() and not keyword.iskeyword(wire_key) and wire_key.isascii():
        return f"_TagRequired_{wire_key}"
    return f"_TagRequired_{hashlib.sha256(wire_key.encode()).hexdigest()[:12]}"


def _sentinel_source(wire_key: str) -> str:
    return (
        f"class {_identifier(_tag_required(wire_key))}(\n"
        f"    msgspec.Struct, tag_field={wire_key!r}, tag={_NEVER_TAG!r},"
        " forbid_unknown_fields=True, gc=False\n):\n"
        '    """Never decodes (no string fits its field). Beside the one mirrored variant of'
        " a tagged\n    union it makes msgspec require the tag, as the model's union does."
        '"""\n\n'
        "    never: Annotated[str, msgspec.Meta(min_length=1, max_length=0)]"
    )


_INT64 = (-(2**63), 2**63 - 1)


def _int64(key: str, value: Any) -> Any:
    """msgspec takes integer bounds within int64 only; a wider bound is narrowed to it.
    Narrower is sound: the fast path then refuses values the model may accept, and those
    take the model's path."""
    if isinstance(value, int) and not isinstance(value, bool):
        if key in ("le", "lt") and value > _INT64[1]:
            return _INT64[1]
        if key in ("ge", "gt") and value < _INT64[0]:
            return _INT64[0]
    return value


def _merge_strings(parts: list[_Type]) -> list[_Type]:
    """Open string enums (`Literal["user"] | str`) as one member. Where every string member
    is `str` or a string literal, both decoders give the input string itself whichever
    member takes it, so the union decodes as `str` (or as one literal of all the values)."""
    strings = [part for part in parts if part.strings is not None]
    if len(strings) < 2:
        return parts
    if any(part.strings == () for part in strings):
        merged = _Type("str", frozenset({"string"}), strings=())
    else:
        values = tuple(dict.fromkeys(v for part in strings for v in part.strings or ()))
        merged = _literal(values)
    first = parts.index(strings[0])
    rest = [part for part in parts if part.strings is None]
    return [*rest[:first], merged, *rest[first:]]


def _literal(values: tuple[Any, ...]) -> _Type:
    kinds = set()
    for value in values:
        if isinstance(value, bool):
            kinds.add("bool")
        elif isinstance(value, (int, str)):
            kinds.add("number" if isinstance(value, int) else "string")
        else:
            raise _No(f"literal {value!r}")
    code = f"Literal[{', '.join(repr(v) for v in values)}]"
    strings = values if kinds == {"string"} else None
    return _Type(code, frozenset(kinds), strings=strings)


def _default(info: FieldInfo) -> str | None:
    """The `msgspec.field` keyword for a field's default, as source (`default=...` or
    `default_factory=...`); None for a required field."""
    if info.default_factory is not None:
        raise _No("default factory")
    value = info.default
    if value is PydanticUndefined:
        return None
    if value is MISSING:
        return "default=msgspec.UNSET"
    if value is None or isinstance(value, (bool, int, float, str)):
        return f"default={value!r}"
    if value == [] or value == {}:
        return f"default_factory={type(value).__name__}"
    raise _No(f"default {value!r}")


def _tag_of(model: type[AcpModel], dispatch: TagDispatch, tag: str) -> _Tag | None:
    """How `model` carries `tag`: a field that is a defaulted literal of that one value.
    (msgspec writes the tag as the first key, the model where the field is declared; the
    JSON value is the same.)"""
    for name, info in model.model_fields.items():
        if (info.alias or name) != dispatch.wire_key:
            continue
        kind, _ = _unwrap(info.annotation)
        literal = typing.get_origin(kind) is typing.Literal and typing.get_args(kind) == (tag,)
        return _Tag(dispatch.wire_key, name, tag) if literal and info.default == tag else None
    return None


def _dispatches(plan: _Plan) -> Iterator[TagDispatch]:
    """Every TagDispatch marker of the module, in a stable order: on aliases, on field
    annotations and among a field's own metadata."""
    markers = [_unwrap(alias.__value__)[1] for alias in plan.aliases.values()]
    for model in plan.models:
        for info in model.model_fields.values():
            markers += [info.metadata, _unwrap(info.annotation)[1]]
    seen: set[int] = set()
    for metadata in markers:
        for item in metadata:
            if isinstance(item, TagDispatch) and id(item) not in seen:
                seen.add(id(item))
                yield item


def _assign_tags(plan: _Plan) -> None:
    """A class can carry one tag; where two unions want different ones, the first wins
    and the class is left out of the other (its messages take the model's path)."""
    for dispatch in _dispatches(plan):
        for tag, kind in dispatch.variants.items():
            if not (isinstance(kind, type) and kind in plan.mirrored) or kind in plan.tags:
                continue
            found = _tag_of(kind, dispatch, tag)
            if found is not None:
                plan.tags[kind] = found


def _class_source(model: type[AcpModel], plan: _Plan) -> str:
    translate = _Translator(plan)
    tag = plan.tags.get(model)
    # kw_only is per class in msgspec (not inherited): fields keep the model's order,
    # required or not.
    options = ", kw_only=True"
    options += f", tag_field={_wire_name(tag.wire_key)!r}, tag={tag.value!r}" if tag else ""
    name = _identifier(model.__name__)
    lines = [
        f"class {name}(_fast.FastStruct[{'_m_' + name!r}]{options}):",
        f'    """The fast path\'s `{name}`: the model\'s fields and wire names, omitted is'
        ' `UNSET` (the model\'s docs: `model_type()`)."""',
    ]
    if tag:
        lines.append(f"    {_identifier(tag.python_name)} = {tag.value!r}")
    for python_name, info in model.model_fields.items():
        if tag and python_name == tag.python_name:
            continue
        if python_name in _TAKEN or python_name.startswith("_"):
            raise _No(f"field name {python_name}")
        if info.validation_alias not in (None, info.alias) or info.serialization_alias not in (
            None,
            info.alias,
        ):
            raise _No("split aliases")
        code = translate.field_type(info.annotation, list(info.metadata)).code
        default = _default(info)
        wire = _wire_name(info.alias or python_name)
        keywords = [] if wire == python_name else [f"name={wire!r}"]
        keywords += [default] if default else []
        if default and keywords == [default] and default.startswith("default="):
            value = f" = {default.removeprefix('default=')}"  # a plain default needs no field()
        else:
            value = f" = msgspec.field({', '.join(keywords)})" if keywords else ""
        lines.append(f"    {_identifier(python_name)}: {code}{value}")
    return "\n".join(lines)


def _mirror(plan: _Plan) -> dict[type[AcpModel], str]:
    """The greatest set of models whose every field translates, with their source."""
    plan.mirrored = set(plan.models)
    while True:
        plan.tags = {}
        _assign_tags(plan)
        sources: dict[type[AcpModel], str] = {}
        dropped = set()
        for model in plan.models:
            if model not in plan.mirrored:
                continue
            try:
                sources[model] = _class_source(model, plan)
            except _No:
                dropped.add(model)
        if not dropped:
            return sources
        plan.mirrored -= dropped


def _alias_sources(plan: _Plan) -> list[str]:
    """The aliases that translate, each after the aliases it names, preceded by the
    sentinel Structs they use."""
    translate = _Translator(plan)
    types_: dict[str, _Type] = {}
    needs: dict[str, set[str]] = {}
    for name, alias in plan.aliases.items():
        translate.named = set()
        try:
            types_[name] = translate.type(alias.__value__, alias_root=True)
        except _No:
            continue
        needs[name] = translate.named
    ordered: list[str] = []
    placed: set[str] = set()

    def place(name: str, path: tuple[str, ...] = ()) -> None:
        if name in placed or name in path:
            return
        for other in sorted(needs[name]):
            if other in types_:
                place(other, (*path, name))
        placed.add(name)
        ordered.append(name)

    for name in types_:
        place(name)
    keys = sorted({t.tag_field for t in types_.values() if t.static is not None and t.tag_field})
    lines = [_sentinel_source(key) for key in keys]
    for name in ordered:
        kind = types_[name]
        if kind.static is None:
            lines.append(f"{_identifier(name)}: TypeAlias = {kind.code}")
        else:  # type checkers see the variant, msgspec the variant beside its sentinel
            lines.append(
                f"if TYPE_CHECKING:\n    {_identifier(name)}: TypeAlias = {kind.static}\n"
                f"else:\n    {name}: TypeAlias = {kind.code}"
            )
    return lines


def fast_module(models_source: str, file_header: str) -> str:
    """The source of `fast.py` beside the models module (`_models.py`) whose source is
    `models_source`. Each Struct names its model relatively (the package's own name is not
    known here: `generate --out` writes anywhere), for type checkers only: at run time the
    package's facade imports the models on the fast path's first fallback."""
    scratch = types.ModuleType("_acp_schema_fast_source")
    sys.modules[scratch.__name__] = scratch
    try:
        exec(compile(models_source, "<generated models>", "exec"), scratch.__dict__)
    finally:
        del sys.modules[scratch.__name__]
    namespace = scratch.__dict__
    models = [
        value
        for value in namespace.values()
        if isinstance(value, type)
        and issubclass(value, AcpModel)
        and value.__module__ == scratch.__name__
    ]
    aliases = {name: value for name, value in namespace.items() if _is_alias(value)}
    plan = _Plan(models, aliases, {id(alias): name for name, alias in aliases.items()})
    sources = _mirror(plan)
    kept = [model for model in models if model in sources]
    imports = ", ".join(f"{m.__name__} as _m_{m.__name__}" for m in kept)
    body = [
        '"""msgspec Structs mirroring the models of this package, for the fast path'
        " (`acp_schema._fast`).\n\nOne Struct per model that has an exact Struct form;"
        ' the others take the model\'s path."""',
        "from __future__ import annotations",
        "from typing import TYPE_CHECKING, Annotated, Any, Literal",
        "import msgspec",
        "from typing_extensions import TypeAlias",
        "from acp_schema import _fast",
        *([f"if TYPE_CHECKING:\n    from .{MODELS_MODULE} import ({imports})"] if kept else []),
        *(sources[model] for model in kept),
        *_alias_sources(plan),
    ]
    text = file_header + "\n\n" + "\n\n\n".join(body) + "\n"
    compile(text, "fast.py", "exec")  # a syntax check: every name and literal was checked
    return text
