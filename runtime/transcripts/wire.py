"""Content blocks as JSON values (`wire_form`), the same whichever decoding path made them.

Read off the fast Structs themselves, so that printing a block the fast path decoded
never imports the models.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, TypeAlias

from msgspec import UNSET

from .._fast import FastStruct

if TYPE_CHECKING:
    from .entries import ContentBlock

__all__ = ["wire_form"]


def wire_form(block: ContentBlock) -> dict[str, Any]:
    """A content block as JSON values, exactly as its model's `model_dump(mode="json")`
    gives them (same keys, same order), whether `block` is a fast Struct or a model."""
    wire: dict[str, Any] = (
        _struct_wire(block) if isinstance(block, FastStruct) else block.model_dump(mode="json")
    )
    return wire


def _struct_wire(value: Any) -> Any:
    """What the model's JSON-mode dump holds for a Struct's value: keys by alias in the
    model's field order, omitted fields left out. A Struct holds JSON values only (no
    enums, no bytes), so nothing else needs converting."""
    if isinstance(value, FastStruct):
        tag, keys = _dump_keys(type(value))
        wire = {} if tag is None else {tag[0]: tag[1]}
        for name, key in keys:
            item = getattr(value, name)
            if item is not UNSET:
                wire[key] = _struct_wire(item)
        return wire
    if value.__class__ is list:
        return [_struct_wire(item) for item in value]
    if value.__class__ is dict:
        return {key: _struct_wire(item) for key, item in value.items()}
    return value


_DumpKeys: TypeAlias = "tuple[tuple[str, Any] | None, tuple[tuple[str, str], ...]]"
_DUMP_KEYS: dict[type[Any], _DumpKeys] = {}


def _dump_keys(struct_type: type[FastStruct[Any]]) -> _DumpKeys:
    """The (wire key, value) of the tag, and the (attribute, wire key) of each field, in
    the order the model dumps them, read off the Struct so that no model is imported:
    the generator declares a Struct's fields in its model's order, and every tagged Struct
    a content block can hold has its tag first in its model (the tests check both against
    the models)."""
    keys = _DUMP_KEYS.get(struct_type)
    if keys is None:
        config = struct_type.__struct_config__
        tag = None if config.tag_field is None else (config.tag_field, config.tag)
        wire_names = dict(
            zip(struct_type.__struct_fields__, struct_type.__struct_encode_fields__, strict=True)
        )
        # __struct_fields__ lists required fields first; the annotations keep their order.
        order = [name for name in _annotations(struct_type) if name in wire_names]
        keys = _DUMP_KEYS[struct_type] = (tag, tuple((name, wire_names[name]) for name in order))
    return keys


def _annotations(struct_type: type[Any]) -> list[str]:
    """Field names as the classes declare them, base classes first."""
    names: list[str] = []
    for cls in reversed(struct_type.__mro__):
        names.extend(name for name in inspect.get_annotations(cls) if name not in names)
    return names
