"""Open copies of acp's model classes: the same classes, keeping unknown keys at every level.

acp's models ignore keys they do not declare (pydantic's default), so a value read by them
loses its unknown keys and `_meta` contents they do not model. `open_class(C)` is a
subclass of acp's `C` with the same name, `extra="allow"`, and every field that holds acp
models holding their open copies instead; an instance is accepted wherever acp wants a
`C`, and writes the unknown keys back. Built on first use, once per class.
"""

from __future__ import annotations

import copy
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from acp import schema as acp_models
from pydantic import BaseModel, ConfigDict, RootModel
from pydantic.fields import FieldInfo

__all__ = ["open_class"]

_ACP_MODULE = acp_models.__name__

_OPENING = object()  # marks a class whose open copy is being built (a cycle)
_OPEN: dict[type[BaseModel], Any] = {}


def open_class(cls: type[BaseModel]) -> type[BaseModel]:
    """A subclass of acp's `cls` with the same name that keeps unknown keys, at every level:
    each field that holds acp models holds their open subclasses instead."""
    found = _OPEN.get(cls)
    if found is not None and found is not _OPENING:
        return found  # type: ignore[no-any-return]
    _OPEN[cls] = _OPENING
    namespace: dict[str, Any] = {
        "__module__": __name__,  # made here; acp's class is its base
        "__qualname__": cls.__qualname__,
        "__annotations__": {},
    }
    if not issubclass(cls, RootModel):  # a root model has no keys of its own
        namespace["model_config"] = ConfigDict(extra="allow")
    for name, field in cls.model_fields.items():
        annotation = _opened(field.annotation)
        if annotation is not field.annotation:
            namespace["__annotations__"][name] = annotation
            namespace[name] = _with_open_default(field)  # alias, discriminator, constraints
    opened: type[BaseModel] = types.new_class(
        cls.__name__, (cls,), exec_body=lambda body: body.update(namespace)
    )
    _OPEN[cls] = opened
    return opened


def _with_open_default(field: FieldInfo) -> FieldInfo:
    """`field` itself, or a copy whose default (an instance of acp's class, such as
    `AgentCapabilities.prompt_capabilities`) is the same value in the open class: the
    open field does not accept an instance of acp's class, and a default that does not
    equal the value a model holds is written out (`exclude_defaults`, as acp writes)."""
    default = field.default
    if not isinstance(default, BaseModel) or default.__class__.__module__ != _ACP_MODULE:
        return field
    opened = copy.copy(field)
    opened.default = open_class(default.__class__).model_validate(
        default.model_dump(by_alias=True, exclude_unset=True)
    )
    return opened


def _opened(annotation: Any) -> Any:
    """`annotation` with every acp model class replaced by its open subclass."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if annotation.__module__ != _ACP_MODULE or _OPEN.get(annotation) is _OPENING:
            return annotation  # not acp's, or a cycle: the class as it is
        return open_class(annotation)
    origin = get_origin(annotation)
    if origin is None or origin is Literal:
        return annotation
    args = get_args(annotation)
    if origin is Annotated:
        inner = _opened(args[0])
        if inner is args[0]:
            return annotation
        rebuilt = (inner, *annotation.__metadata__)
        return Annotated[rebuilt]
    new = tuple(_opened(arg) for arg in args)
    if all(a is b for a, b in zip(new, args, strict=True)):
        return annotation
    if origin is Union or origin is types.UnionType:
        return Union[new]  # noqa: UP007 - built from a tuple at run time
    return origin[new if len(new) > 1 else new[0]]
