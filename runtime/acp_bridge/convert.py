"""`to_acp` / `from_acp`: the same wire value as an `acp.schema` model or an `acp_schema.v1` one.

Both packages model ACP v1, each from its own copy of the schema, so a definition is matched
by name. Where one side splits a definition into tagged subclasses (acp's `TextContentBlock`
is its `TextContent` plus `type: "text"`; the bindings' `SessionUpdateToolCallUpdate` is
their `ToolCallUpdate` plus `sessionUpdate`), the tag the value carries picks the subclass.

Conversion goes through the wire value (JSON names, omitted keys omitted, `null` kept), so
nothing the value holds is lost on the way:

- the bindings keep unknown keys by design;
- acp's models drop unknown keys, so `to_acp` builds its model with an *open* subclass of
  acp's class (same name, `extra="allow"` at every level, built once per class): the result
  is an instance of acp's class, accepted wherever acp wants one, and it writes the unknown
  keys back, `_meta` included.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any, Literal, get_args, get_origin

import msgspec
from acp import schema as acp_models
from pydantic import BaseModel, ValidationError

from acp_schema import v1
from acp_schema._fast import FastStruct

from ._support import ACP_VERSION, acp_writes
from .open_classes import open_class
from .undecodable import first_problem

__all__ = [
    "LossyConversionError",
    "NoCounterpartError",
    "acp_class",
    "from_acp",
    "shared_definitions",
    "to_acp",
]

# The modules that define the v1 classes (the generated models come in two parts).
BINDINGS_MODULES = frozenset({"acp_schema.v1._models", "acp_schema.v1._notifications"})
_ACP_MODULE = acp_models.__name__
# acp.schema's own base class of its models, which is no definition.
_NOT_DEFINITIONS = frozenset({"BaseModel"})


class LossyConversionError(ValueError):
    """acp's model of the value would not write the same wire value back."""


class NoCounterpartError(TypeError):
    """The other package has no definition for this value (e.g. acp 0.12 and
    `session_message`, which `acp_bridge.send` carries without conversion)."""


def to_acp(model: Any) -> BaseModel:
    """The acp model of an `acp_schema.v1` model (or fast Struct) with the same wire value.

    Raises `NoCounterpartError` for a definition acp lacks, acp's own `ValidationError`
    when acp's copy of the definition refuses the value (its schema is older), and
    `LossyConversionError` when acp would read the value differently (an enum value its
    copy does not list, which acp replaces or drops).
    """
    if isinstance(model, FastStruct):
        model = model.to_model()
    if not isinstance(model, BaseModel) or type(model).__module__ not in BINDINGS_MODULES:
        raise TypeError(f"to_acp converts acp_schema.v1 models, not {type(model).__name__}")
    return acp_model_of(type(model), model.model_dump(mode="json"))


def acp_model_of(cls: type[BaseModel], wire: Any) -> BaseModel:
    """`to_acp` of the wire value of a model of the bindings' class `cls`."""
    target = _counterpart(cls, wire, "acp")
    result: BaseModel = open_class(target).model_validate(wire)
    # acp reads some values its own way (an enum value it does not know becomes null or
    # is dropped from its list): such a value has no acp model with the same wire value.
    changed = wire_change(wire, result.model_dump(mode="json", by_alias=True, exclude_unset=True))
    if changed is not None:
        raise LossyConversionError(
            f"{_versions()} cannot hold this {cls.__name__} as it is: {changed}"
        )
    return result


def from_acp(acp_model: BaseModel) -> BaseModel:
    """The `acp_schema.v1` model of the wire value acp writes for an acp model: what acp
    sends for it (acp's `serialize_params`: `None` fields and fields equal to their default
    left out, unknown keys `to_acp` kept written), so a value built with acp's helpers
    (`acp.start_tool_call(...)`, which sets unused fields to `None`) converts like the same
    value decoded off the wire. Where the bindings' class of the definition is a union
    variant (`v1.TextContent` for acp's `TextContent`), the value gains the variant's tag
    (`type: "text"`).

    Raises `NoCounterpartError` for a definition the bindings lack, the bindings'
    `ValidationError` when they refuse that value (a required field acp holds as `None`,
    which acp's writer leaves out), and `LossyConversionError` when they would read it
    differently (a value the schema reads as omitted, for instance).
    """
    if not isinstance(acp_model, BaseModel) or not _is_acp_class(type(acp_model)):
        raise TypeError(f"from_acp converts acp.schema models, not {type(acp_model).__name__}")
    wire = acp_writes(acp_model)
    target = _counterpart(type(acp_model), wire, "acp_schema.v1")
    try:
        result: BaseModel = target.model_validate(_tagged(target, wire))
    except ValidationError as error:
        # Refused as acp writes it, but perhaps not as acp holds it (a required field
        # holding `None`, which acp's writer leaves out): then acp's writing loses it.
        held = acp_model.model_dump(mode="json", by_alias=True, exclude_unset=True)
        try:
            target.model_validate(_tagged(target, held))
        except ValidationError:
            raise error from None
        where, problem = first_problem(error)
        raise LossyConversionError(
            f"{_versions()} writes this {type(acp_model).__name__} in a form acp_schema.v1 "
            f"refuses (acp leaves out null values and defaults): {where}: {problem}"
        ) from None
    wire = _tagged(target, wire)
    # The bindings read a few values their own way too (`null` for an object or list that
    # defaults on null, a value that defaults on error, ...).
    changed = wire_change(wire, result.model_dump(mode="json"))
    if changed is not None:
        raise LossyConversionError(
            f"acp_schema.v1 cannot hold this {type(acp_model).__name__} as it is: {changed}"
        )
    return result


def _tagged(target: type[BaseModel], wire: Any) -> Any:
    """The value with the tags of the bindings' class, which may be the variant of a union
    that carries a tag (`v1.TextContent` for acp's `TextContent`)."""
    return {**_tags(target), **wire} if isinstance(wire, dict) else wire


def acp_class(name: str) -> type[BaseModel]:
    """acp's model class of a definition name; `NoCounterpartError` if acp has none."""
    found = _acp_classes().get(name)
    if found is None:
        raise NoCounterpartError(f"agent-client-protocol {ACP_VERSION} has no {name}")
    return found


def shared_definitions() -> list[str]:
    """Names of the model classes both packages define (the definitions `to_acp` and
    `from_acp` convert by name; tagged subclasses are reached through them)."""
    return sorted(_acp_classes().keys() & _binding_classes().keys())


def wire_change(wire: Any, written: Any) -> str | None:
    """What a model changed in the value it was given, or None. The same JSON text (keys
    sorted) settles most calls at C speed; otherwise the values are compared (1 and 1.0 are
    one JSON number)."""
    try:
        if _SORTED.encode(wire) == _SORTED.encode(written):
            return None
    except (TypeError, OverflowError):  # an integer beyond 64 bits: compare the values
        pass
    return first_difference(wire, written)


_SORTED = msgspec.json.Encoder(order="sorted")


def first_difference(expected: Any, actual: Any, path: str = "") -> str | None:
    """Where two JSON values first differ (`a.b[0]: ...`), or None if they are equal."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in [*expected, *(key for key in actual if key not in expected)]:
            where = f"{path}.{key}" if path else str(key)
            if key not in actual:
                return f"{where} would be dropped"
            if key not in expected:
                return f"{where} would be added"
            found = first_difference(expected[key], actual[key], where)
            if found is not None:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"{path or '(top level)'} would have {len(actual)} items, not {len(expected)}"
        for index, (one, other) in enumerate(zip(expected, actual, strict=True)):
            found = first_difference(one, other, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    if (expected == actual and type(expected) is type(actual)) or _same_number(expected, actual):
        return None
    return f"{path or '(top level)'} would be {actual!r}, not {expected!r}"


def _same_number(one: Any, other: Any) -> bool:
    """1 and 1.0 are one JSON number; True is not 1."""
    numbers = (int, float)
    return (
        isinstance(one, numbers)
        and isinstance(other, numbers)
        and not isinstance(one, bool)
        and not isinstance(other, bool)
        and one == other
    )


# --- matching ------------------------------------------------------------------------------


@cache
def _acp_classes() -> dict[str, type[BaseModel]]:
    return _model_classes(vars(acp_models), frozenset({_ACP_MODULE}))


@cache
def _binding_classes() -> dict[str, type[BaseModel]]:
    names = v1.__all__  # the facade lists every class; looking one up loads the models
    return _model_classes({name: getattr(v1, name) for name in names}, BINDINGS_MODULES)


def _model_classes(
    namespace: dict[str, Any], modules: frozenset[str]
) -> dict[str, type[BaseModel]]:
    return {
        name: value
        for name, value in namespace.items()
        if isinstance(value, type)
        and issubclass(value, BaseModel)
        and value.__module__ in modules
        and value.__name__ == name
        and not name.startswith("_")
        and name not in _NOT_DEFINITIONS
    }


def _is_acp_class(cls: type) -> bool:
    return any(base.__module__ == _ACP_MODULE for base in cls.__mro__)


def _counterpart(cls: type[BaseModel], wire: Any, side: str) -> type[BaseModel]:
    """The class on the other side for a value of `cls`: the first class of `cls`'s MRO
    that the other side names, or the tagged subclass of it whose tags the value carries
    (most tags wins; a class whose tag the value contradicts is out)."""
    candidates = _candidates(cls, side)
    # The first of the best: the class named like `cls` when the value carries no tag.
    return max(candidates, key=lambda candidate: _tag_score(candidate[1], wire))[0]


Candidates = tuple[tuple[type[BaseModel], tuple[tuple[str, Any], ...]], ...]


@cache
def _candidates(cls: type[BaseModel], side: str) -> Candidates:
    """The other side's class named like `cls` or its nearest base, then its subclasses
    that add only tags; each with its tags (wire key, value)."""
    others = _acp_classes() if side == "acp" else _binding_classes()
    for base in cls.__mro__:
        if base.__module__ not in BINDINGS_MODULES and base.__module__ != _ACP_MODULE:
            continue  # pydantic's and the bindings' base classes are no definitions
        found = others.get(base.__name__)
        if found is not None:
            family = (found, *_tagged_subclasses(found, others.values()))
            return tuple((member, tuple(_tags(member).items())) for member in family)
    raise NoCounterpartError(
        f"{side} ({_versions()}) has no definition for {cls.__name__}"
        + (": send it with acp_schema.acp_bridge.send" if side == "acp" else "")
    )


def _versions() -> str:
    return f"agent-client-protocol {ACP_VERSION}"


def _tagged_subclasses(
    base: type[BaseModel], classes: Iterable[type[BaseModel]]
) -> tuple[type[BaseModel], ...]:
    return tuple(
        cls
        for cls in classes
        if cls is not base
        and base in cls.__bases__
        and all(
            name in base.model_fields or _tag(field) is not None
            for name, field in cls.model_fields.items()
        )
    )


def _tag_score(tags: tuple[tuple[str, Any], ...], wire: Any) -> int:
    """How many of the tags the value carries; -1 if it carries another value."""
    if not isinstance(wire, dict):
        return 0
    score = 0
    for key, tag in tags:
        if key in wire:
            if wire[key] != tag:
                return -1
            score += 1
    return score


@cache
def _tags(cls: type[BaseModel]) -> dict[str, Any]:
    """The class's tags by wire key."""
    found = {}
    for name, field in cls.model_fields.items():
        tag = _tag(field)
        if tag is not None:
            found[field.alias or name] = tag
    return found


def _tag(field: Any) -> Any:
    """The value of a one-value `Literal` field (a union tag), else None."""
    annotation = field.annotation
    if get_origin(annotation) is Literal and len(get_args(annotation)) == 1:
        return get_args(annotation)[0]
    return None
