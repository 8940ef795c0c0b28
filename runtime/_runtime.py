"""The small hand-written runtime that the generated bindings import.

Generated modules stay declarative: every decoding rule of the schema's `x-deserialize-*`
keywords is an `Annotated` marker, and every model derives from `AcpModel`.
The markers only rewrite pydantic-core schemas while a class is built, so decoding runs in
pydantic-core and pays no Python call on the common path.

This module holds the bases of the generated classes (`AcpModel`, `WireEnum`) and is the
one path the bindings import the runtime from (`from acp_schema._runtime import ...`); the
rest lives by responsibility, re-exported here:

- `_json_text`: reading JSON text (`loads_wire`) and refusing `NaN` in it;
- `_json_values`: free-form values from Python must be JSON values (`NotJsonError`);
- `_markers`: the decoding markers (`DefaultOnError`, `SkipInvalidItems`, `DefaultOnNull`,
  `JsonInteger`);
- `_tag_dispatch`: `TagDispatch`, the tagged-union marker.

`AcpModel` stays here: type checkers show users its full name
(`acp_schema._runtime.AcpModel`), so moving it would change what they print.
"""

# Annotations here are evaluated as written (no `from __future__ import annotations`):
# pydantic reads AcpModel's class annotations again for each of the ~270 generated
# subclasses, and a string annotation costs a `compile` there (about 13 ms per version).

from enum import Enum
from typing import TYPE_CHECKING, Any, ClassVar, Literal, cast

from pydantic import MISSING, BaseModel, ConfigDict, GetCoreSchemaHandler, ValidationError
from pydantic_core import core_schema
from typing_extensions import Self

from ._validation.clean_pass import CLEAN, Unclean, with_unions_guarded
from ._validation.errors import readable
from ._validation.json_text import _json_error, _NanToken, _too_deep, _with_nan_refused, loads_wire
from ._validation.json_text import (
    _nan_problem as _nan_problem,  # `transcripts.store` imports it from here
)
from ._validation.json_values import (
    NotJsonError as NotJsonError,  # raised to callers: importable here too
)
from ._validation.json_values import _python_input, _with_json_values
from ._validation.markers import DefaultOnError, DefaultOnNull, JsonInteger, SkipInvalidItems
from ._validation.tag_dispatch import TagDispatch

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
    # Declared for type checkers only: pydantic reads the class annotations of every base
    # again for each subclass it creates (~270 per version), and these need no reading.
    if TYPE_CHECKING:
        __acp_ignored_keys__: ClassVar[frozenset[str]]
        __acp_removed_names__: ClassVar[frozenset[str]]
    __acp_ignored_keys__ = frozenset()
    __acp_removed_names__ = frozenset()

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        # Free-form values (`_meta`, unknown keys) from Python are JSON values, as those
        # parsed from JSON text are: no NaN, bytes, sets or arbitrary objects. From JSON
        # text, a `NaN` token is refused while validating (no pre-scan of the text).
        schema: Any = handler(source)
        if schema.get("type") == "model":  # its fields; nested models did their own
            fields = with_unions_guarded(_with_json_values(schema["schema"], handler), handler)
            schema = {**schema, "schema": fields}
        schema = _with_nan_refused(schema, handler, top=True)
        if schema.get("type") == "model" and schema["schema"].get("type") == "model-fields":
            extra = (schema.get("config") or {}).get("extra_fields_behavior", "allow")
            if extra != "allow":  # `additionalProperties: false`: no unknown key to check
                schema["schema"] = {
                    k: v for k, v in schema["schema"].items() if k != "extras_schema"
                }
        return cast("core_schema.CoreSchema", schema)

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
        if strict is None and extra is None and context is None and by_alias is by_name is None:
            # The clean pass first: no dict per model for unknown keys (`_clean_pass`).
            try:
                return cls.__pydantic_validator__.validate_json(  # type: ignore[no-any-return]
                    json_data, extra="forbid", context=CLEAN
                )
            except (ValidationError, Unclean):
                pass  # unknown keys, a fallback or an error: decided as configured
            except _NanToken:
                raise _json_error(cls.__name__, json_data, "NaN is not JSON") from None
        options = {"strict": strict, "extra": extra, "context": context}
        options.update(by_alias=by_alias, by_name=by_name)
        return cls._validate_json_as_configured(json_data, **options)

    @classmethod
    def _validate_json_as_configured(
        cls, json_data: str | bytes | bytearray, **options: Any
    ) -> Self:
        """`model_validate_json` without the clean pass (for text already known to be
        refused by a stricter reader: the fast path's fallback)."""
        # `NaN` is refused while the parsed text is validated: number nodes and free-form
        # values check for it (`_with_nan_refused`), and so do the fallbacks that would drop
        # a malformed value (`_not_nan`). `Infinity` is left to the types, as an overflowing
        # `1e400` is: typed numbers refuse it, a free-form value reads it as infinity.
        try:
            if all(value is None for value in options.values()):
                return cls.__pydantic_validator__.validate_json(json_data)  # type: ignore[no-any-return]
            return cls.__pydantic_validator__.validate_json(json_data, **options)  # type: ignore[no-any-return]
        except _NanToken:
            raise _json_error(cls.__name__, json_data, "NaN is not JSON") from None
        except ValidationError as error:
            if not _too_deep(error):
                raise readable(error, "json") from None
        return cls.model_validate(loads_wire(json_data, cls.__name__), **options)

    @property
    def model_extra(self) -> dict[str, Any] | None:
        # The clean pass leaves None where the configured validation makes an empty dict;
        # pydantic treats the two alike, and so does this (a dict the caller may fill).
        extra = self.__pydantic_extra__
        if extra is None and self.model_config.get("extra") == "allow":
            extra = {}
            object.__setattr__(self, "__pydantic_extra__", extra)
        return extra

    if not TYPE_CHECKING:  # type checkers keep pydantic's signature

        def __setattr__(self, name, value):
            # An unknown attribute goes to the unknown keys (`extra="allow"`): their dict
            # first, where the clean pass made none.
            if self.__pydantic_extra__ is None and name not in self.__pydantic_fields__:
                self.model_extra  # noqa: B018 (makes the dict)
            super().__setattr__(name, value)

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

    def _with(self, name: str, value: Any) -> Self:
        """What the generated builders (`with_<field>(value)`) return: a copy with the field
        `name` set to `value`, validated as the constructor validates it (a `model_copy`
        update would store any value as it is, and encode it as it is)."""
        copy = self.model_copy()
        validator = self.__pydantic_validator__
        _python_input(
            type(self).__name__,
            {name: value},
            lambda: validator.validate_assignment(copy, name, value),
        )
        return copy

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
