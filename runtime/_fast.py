"""The fast path: msgspec Structs that mirror the generated models, for messages that use
nothing but what the schema spells out.

Each `acp_schema.vN.fast` module (generated, `codegen/fast_target.py`) holds one Struct per
model it can mirror exactly, with the model's class name and attribute names. A Struct is
strict where the model is lenient: unknown keys, unknown tags, values the model would
replace (default-on-error, skipped items, `null` read as empty), integral floats for
integers, keys a revision removed, anything not JSON: all of it is refused. Refusal is never
an error for the caller: `decode_json` then decodes with the model, so the result means
exactly what the model's `model_validate_json` returns (docs/performance.md, "Fast path").

The one rule for what a caller gets: `Struct.decode_json(data)` returns the Struct when the
fast path took the message, else the model (or the model's `ValidationError`). The static
type says the same (`fast.X | X`); `to_model` / `from_model` convert between them.

Structs are not tracked by the cyclic garbage collector (`gc=False`), which is where their
speed with results kept comes from; a Struct put into a list it holds itself would leak.
"""

from __future__ import annotations

import importlib
from typing import Any, Generic, TypeVar

import msgspec
from typing_extensions import Self

__all__ = ["REFUSALS", "FastStruct", "NotFastError", "as_model"]

M = TypeVar("M")

_DECODERS: dict[type[Any], msgspec.json.Decoder[Any]] = {}
_ENCODER = msgspec.json.Encoder()
# How msgspec refuses input: not decodable or not valid (DecodeError), too deep, a `str`
# holding a lone surrogate (which it cannot encode to UTF-8), not text at all. The model
# decides every one of them.
REFUSALS = (msgspec.DecodeError, RecursionError, UnicodeError, TypeError)


def _decoder(kind: type[Any]) -> msgspec.json.Decoder[Any]:
    """The decoder of a Struct type, built on first use (annotations resolve then)."""
    decoder = _DECODERS.get(kind)
    if decoder is None:
        decoder = _DECODERS[kind] = msgspec.json.Decoder(kind)
    return decoder


class NotFastError(ValueError):
    """A model holds something its Struct cannot (an unknown key, an unknown variant, ...)."""


class FastStruct(msgspec.Struct, Generic[M], forbid_unknown_fields=True, gc=False, kw_only=True):
    """Base of the generated Structs. `M` is the model the Struct mirrors."""

    def __repr__(self) -> str:
        # `fast.SessionMessage(...)`, not the model's `SessionMessage(...)`: which of the two
        # a decode gave shows in logs and tracebacks.
        return f"fast.{super().__repr__()}"

    @classmethod
    def model_type(cls) -> type[M]:
        """The model class this Struct mirrors: the class of the same name in the package
        of the fast module, imported on first use, so that importing the fast module does
        not import pydantic and the models."""
        model: type[M] | None = cls.__dict__.get("_acp_model")
        if model is None:
            package = importlib.import_module(cls.__module__.rpartition(".")[0])
            model = getattr(package, cls.__name__)
            type.__setattr__(cls, "_acp_model", model)
        return model

    @classmethod
    def decode_json(cls, data: str | bytes | bytearray | memoryview) -> Self | M:
        """Decode JSON text: the Struct if the fast path takes it, else the model.

        Raises what the model's `model_validate_json` raises (a pydantic `ValidationError`)
        when the model refuses the text too.
        """
        decoder = _DECODERS.get(cls) or _decoder(cls)  # the lookup inline: a hot path
        try:
            result: Self = decoder.decode(data)
            return result
        except REFUSALS:
            pass
        if isinstance(data, memoryview):
            data = data.tobytes()
        # The models' configured validation straight away: a text the Struct refused holds
        # an unknown key or value as a rule, which the models' clean pass would refuse too.
        kind: Any = cls.model_type()
        decode = getattr(kind, "_validate_json_as_configured", kind.model_validate_json)
        model: M = decode(data)
        return model

    def model_dump_json(self) -> str:
        """The wire JSON, as the model's `model_dump_json()` writes it (numbers may be
        spelt differently: `1e22` here, `1e+22` there; the values are the same)."""
        return _ENCODER.encode(self).decode()

    def to_model(self) -> M:
        """The model with the same content (decoded by the model from this Struct's JSON)."""
        model: M = self.model_type().model_validate_json(_ENCODER.encode(self))  # type: ignore[attr-defined]
        return model

    @classmethod
    def from_model(cls, model: M) -> Self:
        """The Struct with the same content as `model`; `NotFastError` if the model holds
        what the Struct cannot (unknown keys, an unknown variant, ...)."""
        try:
            result: Self = _decoder(cls).decode(model.model_dump_json())  # type: ignore[attr-defined]
        except msgspec.DecodeError as error:
            raise NotFastError(f"{type(model).__name__} has no fast form: {error}") from None
        return result


def as_model(value: Any) -> Any:
    """The model of a decoded value: `to_model()` of a Struct, anything else as it is (for
    code that wants models from `decode_json` or `METHODS.decode`, which give Structs when
    the fast path takes a message)."""
    return value.to_model() if isinstance(value, FastStruct) else value
