"""The small hand-written runtime that the generated bindings import.

Generated modules stay declarative: every decoding rule of the schema's `x-deserialize-*`
keywords is an `Annotated` marker defined here, and every model derives from `AcpModel`.
The markers only rewrite pydantic-core schemas while a class is built, so decoding runs in
pydantic-core and pays no Python call on the common path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Mapping
from contextvars import ContextVar
from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NoReturn, TypeVar, cast, get_args

from pydantic import MISSING, BaseModel, ConfigDict, GetCoreSchemaHandler, ValidationError
from pydantic_core import PydanticCustomError, core_schema
from typing_extensions import Self

from ._errors import known_label, other_label, readable
from ._json_text import (
    _NAN_DONE,
    _json_error,
    _NanToken,
    _refuse_nan,
    _too_deep,
    _with_nan_refused,
    loads_wire,
)
from ._json_text import _nan_problem as _nan_problem  # `transcripts.store` imports it from here
from ._markers import _OPAQUE, DefaultOnError, DefaultOnNull, JsonInteger, SkipInvalidItems

__all__ = [
    "MISSING",
    "AcpModel",
    "DefaultOnError",
    "DefaultOnNull",
    "JsonInteger",
    "SkipInvalidItems",
    "TagDispatch",
    "WireEnum",
    "loads_wire",
]


class NotJsonError(TypeError):
    """A free-form value given from Python (`model_validate(dict)`, the constructor) that
    JSON text cannot hold. Not a ValueError, so that no union tries another variant with
    it. A default-on-error around it (an optional field holding a model) still reads any
    failure as omitted, so the refusal is also noted in `_NOT_JSON`, and `AcpModel`'s
    entry points refuse the whole input (a `json_invalid` ValidationError), as JSON text
    spelling `NaN` is refused. A TypeAdapter of a union raises it as it is."""


# The first free-form value of the running Python-mode validation that is not JSON.
_NOT_JSON: ContextVar[str | None] = ContextVar("acp_schema_not_json", default=None)


def _not_json(message: str) -> NoReturn:
    if _NOT_JSON.get() is None:
        _NOT_JSON.set(message)
    raise NotJsonError(message)


_Validated = TypeVar("_Validated")


def _python_input(title: str, data: Any, validate: Callable[[], _Validated]) -> _Validated:
    """Run a Python-mode validation; refuse the whole input if a free-form value in it
    was not JSON, even where a default-on-error swallowed that value's refusal."""
    token = _NOT_JSON.set(None)
    try:
        try:
            result = validate()
        except (NotJsonError, ValidationError) as error:
            problem = _NOT_JSON.get()
            if problem is not None:
                raise _json_error(title, data, problem) from None
            if isinstance(error, ValidationError):
                raise readable(error) from None  # one error per real problem (`_errors`)
            raise
        problem = _NOT_JSON.get()
        if problem is not None:
            raise _json_error(title, data, problem)
        return result
    finally:
        _NOT_JSON.reset(token)


# Python types a free-form value parsed from JSON text can have. Infinity is allowed: the
# text path reads an overflowing number (`1e400`) in a free-form value as infinity.
_JSON_LEAVES = (str, int, float, type(None))
_EXACT = frozenset({str, dict, list, int, bool, float, type(None)})
_BASES = (str, dict, list, float, int)
# JSON text cannot carry one (pydantic-core refuses the escape), nor can UTF-8 output.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _json_value(value: Any) -> Any:
    """`value` itself if it is made of JSON values only (objects with string keys, arrays,
    strings without lone surrogates, numbers but NaN, booleans, null); else NotJsonError
    naming where. Walked with a stack (depth costs no recursion); where is worked out only
    for a value that is refused."""
    stack = [value]
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        kind = item.__class__
        if kind not in _EXACT:  # a subclass (an OrderedDict, a str enum) counts as its base
            kind = next((base for base in _BASES if isinstance(item, base)), kind)
        if kind is str:
            if not item.isascii() and _SURROGATE.search(item):
                break
        elif kind is dict:
            for key, child in item.items():
                if key.__class__ is not str or (not key.isascii() and _SURROGATE.search(key)):
                    _not_json(_problem(value))
                push(child)
        elif kind is list:
            stack.extend(item)
        elif kind is int or kind is bool or item is None:
            continue
        elif kind is not float or item != item:  # NaN is not equal to itself
            break
    else:
        return value
    _not_json(_problem(value))


def _problem(value: Any) -> str:
    """What in `value` is not JSON, and where: the slow walk, for a refused value only."""
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        where, item = stack.pop()
        at = where or "/"
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return f"a lone surrogate is not JSON (at {at})"
        elif isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    return f"a key of type {type(key).__name__} is not JSON (at {at})"
                if _SURROGATE.search(key):
                    return f"a lone surrogate is not JSON (in a key at {at})"
                stack.append((f"{where}/{key}", child))
        elif isinstance(item, list):
            stack.extend((f"{where}/{i}", child) for i, child in enumerate(item))
        elif isinstance(item, float) and item != item:
            return f"NaN is not JSON (at {at})"
        elif not isinstance(item, _JSON_LEAVES):
            return f"a value of type {type(item).__name__} is not JSON (at {at})"
    return "a value that is not JSON"


# A free-form value: from Python, JSON values only; from JSON text, which is JSON already,
# only the `NaN` token to refuse. Marked done for both rewrites (`_with_json_values`,
# `_with_nan_refused`), so the NaN rewrite does not wrap it a second time.
_FREE_FORM = core_schema.json_or_python_schema(
    json_schema=core_schema.no_info_after_validator_function(_refuse_nan, core_schema.any_schema()),
    python_schema=core_schema.no_info_plain_validator_function(_json_value),
    metadata={"acp_json_value": True, _NAN_DONE: True},
)


def _with_json_values(node: Any) -> Any:
    """A core schema whose free-form (`any`) values, unknown keys included, take JSON values
    only from Python. Nested models are left as built (their own hook did them)."""
    if isinstance(node, list):
        return [_with_json_values(item) for item in node]
    if not isinstance(node, dict) or (node.get("metadata") or {}).get("acp_json_value"):
        return node
    kind = _kind(node)
    if kind == "any":
        return _FREE_FORM
    if kind in _OPAQUE:
        return node
    if kind == "default" and node.get("on_error") == "default" and _free_form_inside(node):
        # Default-on-error would read a value JSON cannot hold as "omitted"; JSON text
        # cannot spell one at all, so it is checked before, outside the fallback.
        return core_schema.json_or_python_schema(
            json_schema=node,
            python_schema=core_schema.chain_schema(
                [core_schema.no_info_plain_validator_function(_json_value), node]
            ),
            metadata={"acp_json_value": True},
        )
    out = {
        key: value if key in _NOT_VALIDATION else _with_json_values(value)
        for key, value in node.items()
    }
    if kind == "model-fields" and "extras_schema" not in out:
        out["extras_schema"] = _FREE_FORM
    return out


# Keys of a core schema node that hold no validation schema.
_NOT_VALIDATION = frozenset({"metadata", "serialization"})


def _kind(node: dict[str, Any]) -> str | None:
    """A core schema node's type; None for a mapping of names (a field named `type`)."""
    kind = node.get("type")
    return kind if isinstance(kind, str) else None


def _free_form_inside(node: Any) -> bool:
    """Whether a schema holds an `any` node (and no model, whose input may be an instance)."""
    stack = [node]
    found = False
    while stack:
        item = stack.pop()
        if isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            if _kind(item) in _OPAQUE:
                return False
            found = found or _kind(item) == "any"
            stack.extend(v for k, v in item.items() if k not in _NOT_VALIDATION)
    return found


class AcpModel(BaseModel):
    """Base of every generated model.

    Decoding (`model_validate_json`, `model_validate`) is exact: wire names only, JSON types
    as they are (no string to number, no boolean to integer, no number to string), finite
    numbers, integers within their format. Construct with snake_case names (or the wire
    names); encode with the plain `model_dump()` / `model_dump_json()`: wire names are used,
    omitted fields (`MISSING`) stay omitted, `null` stays `null`, and unknown keys are kept
    and written back.
    """

    model_config = ConfigDict(
        extra="allow",
        strict=True,
        allow_inf_nan=False,
        validate_by_name=False,
        validate_by_alias=True,
        serialize_by_alias=True,
        # Validators are built on first use, not at import: most programs touch a small
        # part of the ~200 models (docs/performance.md has the figures).
        defer_build=True,
    )

    # Fields a schema revision removed: their wire keys are dropped on decode; their
    # Python names are refused by the constructor, so code written for the old field
    # fails loudly. On the wire a Python name is just an unknown key.
    __acp_ignored_keys__: ClassVar[frozenset[str]] = frozenset()
    __acp_removed_names__: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        # Free-form values (`_meta`, unknown keys) from Python are JSON values, as those
        # parsed from JSON text are: no NaN, bytes, sets or arbitrary objects. From JSON
        # text, a `NaN` token is refused while validating (no pre-scan of the text).
        schema: Any = handler(source)
        if schema.get("type") == "model":  # its fields; nested models did their own
            schema = {**schema, "schema": _with_json_values(schema["schema"])}
        return cast("core_schema.CoreSchema", _with_nan_refused(schema, handler, top=True))

    def __init__(self, /, **data: Any) -> None:
        # The constructor is the Python API: snake_case names as well as wire names.
        removed = self.__acp_removed_names__.intersection(data)
        if removed:
            names = ", ".join(sorted(removed))
            raise TypeError(
                f"{type(self).__name__} no longer has {names}: the revision moved it to the "
                "message upsert (see `acp-schema migrate`)"
            )
        __tracebackhide__ = True
        _python_input(
            type(self).__name__,
            data,
            lambda: self.__pydantic_validator__.validate_python(
                data, self_instance=self, by_alias=True, by_name=True
            ),
        )

    # Tells pydantic this is the plain constructor, not a custom one that decoding must
    # call (it would route every decoded object through Python, with Python names).
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    if not TYPE_CHECKING:  # type checkers keep pydantic's signature, options and all

        @classmethod
        def model_validate(cls, obj, **options):
            # A free-form value JSON cannot hold is a `json_invalid` error of the whole
            # input, as `NaN` in JSON text is; other errors are made readable (`_errors`).
            if options:
                validate = super().model_validate
                return _python_input(cls.__name__, obj, lambda: validate(obj, **options))
            # Without options, the same validator call minus pydantic's wrapper.
            validator = cls.__pydantic_validator__
            return _python_input(cls.__name__, obj, lambda: validator.validate_python(obj))

    @classmethod
    def model_validate_json(
        cls,
        json_data: str | bytes | bytearray,
        *,
        strict: bool | None = None,
        extra: Literal["allow", "ignore", "forbid"] | None = None,
        context: Any | None = None,
        by_alias: bool | None = None,
        by_name: bool | None = None,
    ) -> Self:
        """Decode JSON text. `NaN` is not JSON and is refused, and depth is not limited to
        pydantic-core's 200 levels (deeper input is parsed by `json` and then validated)."""
        # `NaN` is refused while the parsed text is validated: number nodes and free-form
        # values check for it (`_with_nan_refused`), and so do the fallbacks that would drop
        # a malformed value (`_not_nan`). `Infinity` is left to the types, as an overflowing
        # `1e400` is: typed numbers refuse it, a free-form value reads it as infinity.
        try:
            no_options = strict is None and extra is None and context is None
            if no_options and by_alias is None and by_name is None:
                return cls.__pydantic_validator__.validate_json(json_data)  # type: ignore[no-any-return]
            return cls.__pydantic_validator__.validate_json(  # type: ignore[no-any-return]
                json_data,
                strict=strict,
                extra=extra,
                context=context,
                by_alias=by_alias,
                by_name=by_name,
            )
        except _NanToken:
            raise _json_error(cls.__name__, json_data, "NaN is not JSON") from None
        except ValidationError as error:
            if not _too_deep(error):
                raise readable(error, "json") from None
        options: dict[str, Any] = {"strict": strict, "extra": extra, "context": context}
        options.update(by_alias=by_alias, by_name=by_name)
        return cls.model_validate(loads_wire(json_data, cls.__name__), **options)

    @property
    def model_fields_set(self) -> set[str]:
        # A field whose value is MISSING was not supplied, whatever pydantic recorded
        # (default-on-error replaces a malformed value by MISSING after the key was seen).
        values = self.__dict__
        return {name for name in self.__pydantic_fields_set__ if values.get(name) is not MISSING}

    if not TYPE_CHECKING:  # type checkers keep pydantic's signature, options and all

        def model_dump_json(self, **options):
            # Without options this is the same serializer call with the same (default)
            # settings, minus passing 15 keyword arguments, which costs ~30% of encoding a
            # small message (docs/performance.md). Any option takes pydantic's own path.
            if options:
                return super().model_dump_json(**options)
            return self.__pydantic_serializer__.to_json(self).decode()

    def _drop_ignored_keys(self) -> None:
        extra = self.__pydantic_extra__
        if not extra:
            return
        for key in self.__acp_ignored_keys__.intersection(extra):
            del extra[key]


class WireEnum(Enum):
    """Base of the generated enums: a wire value (`"end_turn"`) is accepted in Python data
    as in JSON. Strict mode would take only members from Python, so `model_validate` of a
    dict would refuse what `model_validate_json` of the same JSON accepts."""

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        schema = handler(source)
        # Lax enum validation matches the value only: no coercion of other JSON types.
        return {**schema, "strict": False}


def _variant_classes(kind: Any) -> list[type[BaseModel]]:
    """The model classes a union variant stands for: the class, or a nested union's members."""
    if isinstance(kind, type):
        return [kind] if issubclass(kind, BaseModel) else []
    found: list[type[BaseModel]] = []
    value = getattr(kind, "__value__", kind)  # a TypeAliasType names its union
    for arg in get_args(value):
        found += _variant_classes(arg)
    return found


class TagDispatch:
    """Decode a tagged union by its tag, in pydantic-core.

    `variants` maps each known tag to its type (a class, or a nested union alias). A
    closed union rejects any other tag. An open union (`other` given) first tries the
    known tags and only then the Other variant, which refuses a known tag: an unknown
    tag keeps its whole payload, a known tag with a bad payload stays an error.

    Dispatch is by the wire key alone, for JSON and dicts alike: a dict that carries the
    tag only under its Python name has no tag. Model instances (Python construction, and
    encoding, which picks the variant the same way) are looked up by attribute, so where
    the wire key is not the Python name each variant class answers to the wire key with
    its tag: `AgentMessageChunk.sessionUpdate == "agent_message_chunk"`, a class constant
    set here, once, which costs no Python call per message.
    """

    def __init__(
        self,
        wire_key: str,
        field_name: str,
        variants: Mapping[str, Any],
        *,
        other: type[BaseModel] | None = None,
    ) -> None:
        self.wire_key = wire_key
        self.field_name = field_name
        self.variants = dict(variants)
        self.other = other

    def _label_variants(self) -> None:
        if self.wire_key == self.field_name:
            return  # the tag field itself answers to the wire key
        for tag, kind in self.variants.items():
            for cls in _variant_classes(kind):
                current = cls.__dict__.get(self.wire_key, tag)
                if current != tag or self.wire_key in cls.model_fields:
                    raise TypeError(
                        f"{cls.__name__}.{self.wire_key} cannot name tag {tag!r}: "
                        f"it is already {current!r}"
                    )
                type.__setattr__(cls, self.wire_key, tag)

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        self._label_variants()
        choices: dict[Hashable, core_schema.CoreSchema] = {
            tag: handler.generate_schema(kind) for tag, kind in self.variants.items()
        }
        tagged = core_schema.tagged_union_schema(choices, discriminator=self.wire_key)
        # The branches carry labels that `_errors.readable` recognises (a union of one
        # branch too: it would be collapsed into the branch, and the tag would be lost
        # among the wire names of the location).
        known_branch = (tagged, known_label(self.wire_key))
        if self.other is None:
            return core_schema.union_schema(
                [known_branch], mode="left_to_right", auto_collapse=False
            )
        known = frozenset(self.variants)
        wire_key = self.wire_key

        def refuse_known(value: Any) -> Any:
            tag = value.get(wire_key) if isinstance(value, dict) else None
            if isinstance(tag, str) and tag in known:
                raise PydanticCustomError(
                    "known_tag",
                    "`{key}` '{tag}' names a known variant, whose payload did not validate",
                    {"key": wire_key, "tag": tag},
                )
            return value

        other = core_schema.no_info_before_validator_function(
            refuse_known, handler.generate_schema(self.other)
        )
        other_branch = (other, other_label(self.wire_key))
        return core_schema.union_schema([known_branch, other_branch], mode="left_to_right")
