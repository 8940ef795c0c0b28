"""`TagDispatch`, the marker of a generated tagged union: pydantic-core picks the variant by
its tag; an open union's unknown tags go to its Other variant."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any, get_args

from pydantic import BaseModel, GetCoreSchemaHandler, PydanticUndefinedAnnotation
from pydantic_core import PydanticCustomError, core_schema

from .clean_pass import CLEAN_SAFE
from .errors import known_label, other_label


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
        variants: Mapping[str, Any] | Callable[[], Mapping[str, Any]],
        *,
        other: type[BaseModel] | Callable[[], type[BaseModel]] | None = None,
    ) -> None:
        self.wire_key = wire_key
        self.field_name = field_name
        # A function when the union refers to classes defined after it (a recursive union:
        # a variant holds the union); called when pydantic builds the schema.
        self._variants = variants
        self._other = other

    @property
    def variants(self) -> dict[str, Any]:
        found = self._variants() if callable(self._variants) else self._variants
        return dict(found)

    @property
    def other(self) -> type[BaseModel] | None:
        other = self._other
        if other is None or isinstance(other, type):
            return other
        return other()

    def _label_variants(self, variants: Mapping[str, Any]) -> None:
        if self.wire_key == self.field_name:
            return  # the tag field itself answers to the wire key
        for tag, kind in variants.items():
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
        try:
            variants, other_class = self.variants, self.other
        except NameError as exc:  # a class defined further down: pydantic builds it later
            raise PydanticUndefinedAnnotation(str(exc.name), str(exc)) from None
        self._label_variants(variants)
        choices: dict[Hashable, core_schema.CoreSchema] = {
            tag: handler.generate_schema(kind) for tag, kind in variants.items()
        }
        tagged = core_schema.tagged_union_schema(choices, discriminator=self.wire_key)
        # The branches carry labels that `_errors.readable` recognises (a union of one
        # branch too: it would be collapsed into the branch, and the tag would be lost
        # among the wire names of the location).
        known_branch = (tagged, known_label(self.wire_key))
        if other_class is None:
            safe = {CLEAN_SAFE: True}
            return core_schema.union_schema(
                [known_branch], mode="left_to_right", auto_collapse=False, metadata=safe
            )
        known = frozenset(variants)
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
            refuse_known, handler.generate_schema(other_class)
        )
        other_branch = (other, other_label(self.wire_key))
        # Safe in the clean pass (`_clean_pass`): the Other branch refuses the known tags, so
        # a known variant refused for an unknown key is not read as Other instead.
        return core_schema.union_schema(
            [known_branch, other_branch], mode="left_to_right", metadata={CLEAN_SAFE: True}
        )
