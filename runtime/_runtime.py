"""The small hand-written runtime that the generated bindings import.

Generated modules stay declarative: every decoding rule of the schema's `x-deserialize-*`
keywords is an `Annotated` marker defined here, and every model derives from `AcpModel`.
The markers only rewrite pydantic-core schemas while a class is built, so decoding runs in
pydantic-core and pays no Python call on the common path.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import MISSING, BaseModel, ConfigDict, GetCoreSchemaHandler
from pydantic_core import PydanticCustomError, core_schema

__all__ = [
    "MISSING",
    "AcpModel",
    "DefaultOnError",
    "DefaultOnNull",
    "SkipInvalidItems",
    "TagDispatch",
]


class AcpModel(BaseModel):
    """Base of every generated model.

    Construct with snake_case names (or the wire names); encode with the plain
    `model_dump()` / `model_dump_json()`: wire names are used, omitted fields (`MISSING`)
    stay omitted, `null` stays `null`, and unknown keys are kept and written back.
    """

    model_config = ConfigDict(
        extra="allow",
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
        populate_by_name=True,
        # Validators are built on first use, not at import: most programs touch a small
        # part of the ~200 models (docs/performance.md has the figures).
        defer_build=True,
    )

    # Fields a schema revision removed: their wire keys are dropped on decode; their
    # Python names are refused, so code written for the old field fails loudly.
    __acp_ignored_keys__: ClassVar[frozenset[str]] = frozenset()
    __acp_removed_names__: ClassVar[frozenset[str]] = frozenset()

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
        removed = self.__acp_removed_names__.intersection(extra)
        if removed:
            names = ", ".join(sorted(removed))
            raise TypeError(
                f"{type(self).__name__} no longer has {names}: the revision moved it to the "
                "message upsert (see `acp-schema migrate`)"
            )
        for key in self.__acp_ignored_keys__.intersection(extra):
            del extra[key]


def _unwrap_defaults(schema: core_schema.CoreSchema) -> dict[str, Any]:
    """The schema under default/nullable/MISSING wrappers (a plain dict: we edit it)."""
    node: dict[str, Any] = schema  # type: ignore[assignment]
    while node["type"] in ("default", "nullable", "missing-sentinel"):
        node = node["schema"]
    return node


def _empty_value(schema: core_schema.CoreSchema) -> Any:
    """The empty value of the type a core schema validates (for default-on-null)."""
    inner = _unwrap_defaults(schema)
    kind = inner["type"]
    if kind == "list":
        return []
    if kind == "dict":
        return {}
    if kind == "str":
        return ""
    raise TypeError(f"no empty value is defined for a {kind!r} field")


def _fresh(empty: Any) -> Any:
    """A new empty value each time: decoded models must not share one list."""
    return empty.copy() if isinstance(empty, (list, dict)) else empty


class DefaultOnError:
    """`x-deserialize-default-on-error`: a value that fails to decode becomes the default.

    For an optional field the default is MISSING, so a malformed value reads as omitted and
    is not encoded again. A required field still needs its key; a malformed value becomes
    the empty value of its type, and where the type has none (a tag, a number) the error
    stands, because there is nothing to fall back to.
    """

    def __init__(self, *, required: bool = False) -> None:
        self.required = required

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        inner = handler(source)
        if not self.required:
            return core_schema.with_default_schema(inner, default=MISSING, on_error="default")
        try:
            empty = _empty_value(inner)
        except TypeError:
            return inner

        def fallback(_value: Any) -> Any:
            return _fresh(empty)

        # Not a `default` schema: that would make the key optional. The fallback branch
        # runs (in Python) only when the real type failed.
        return core_schema.union_schema(
            [inner, core_schema.no_info_plain_validator_function(fallback)],
            mode="left_to_right",
        )


class SkipInvalidItems:
    """`x-deserialize-skip-invalid-items`: drop the array items that fail, keep the rest."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        schema = handler(source)
        array = _unwrap_defaults(schema)
        if array["type"] != "list":
            raise TypeError("SkipInvalidItems applies to list fields only")
        items = array.get("items_schema", core_schema.any_schema())
        # pydantic-core's list validator drops an item whose validator says "omit".
        array["items_schema"] = core_schema.with_default_schema(items, on_error="omit")
        return schema


class DefaultOnNull:
    """`x-deserialize-default-on-null`: `null` decodes as the empty value of the type."""

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        inner = handler(source)
        empty = _empty_value(inner)

        def null_to_empty(value: Any) -> Any:
            return _fresh(empty) if value is None else value

        return core_schema.no_info_before_validator_function(null_to_empty, inner)


class TagDispatch:
    """Decode a tagged union by its tag, in pydantic-core.

    `variants` maps each known tag to its type (a class, or a nested union alias). A
    closed union rejects any other tag. An open union (`other` given) first tries the
    known tags and only then the Other variant, which refuses a known tag: an unknown
    tag keeps its whole payload, a known tag with a bad payload stays an error.
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

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        choices: dict[Hashable, core_schema.CoreSchema] = {
            tag: handler.generate_schema(kind) for tag, kind in self.variants.items()
        }
        # Instances are found by attribute (serialisation picks the variant that way, so
        # this path goes first); decoded dicts by their wire key.
        paths: list[list[str | int]] = [[self.field_name], [self.wire_key]]
        tagged = core_schema.tagged_union_schema(choices, discriminator=paths)
        if self.other is None:
            return tagged
        known = frozenset(self.variants)
        wire_key = self.wire_key

        def refuse_known(value: Any) -> Any:
            tag = value.get(wire_key) if isinstance(value, dict) else None
            if tag in known:
                raise PydanticCustomError(
                    "known_tag",
                    "`{key}` '{tag}' names a known variant, whose payload did not validate",
                    {"key": wire_key, "tag": tag},
                )
            return value

        other = core_schema.no_info_before_validator_function(
            refuse_known, handler.generate_schema(self.other)
        )
        return core_schema.union_schema([tagged, other], mode="left_to_right")
