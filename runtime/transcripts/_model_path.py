"""The store's model path: the pydantic models of one protocol version, which decode what
the fast Structs refuse and say why a line does not decode.

Imported by `decoding` on the first line that needs it, so that a log the fast path reads
whole never loads pydantic and the models (docs/performance.md, "`transcript show`
memory").
"""

from __future__ import annotations

import importlib
import json
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from .._input import InputError, parse_json
from .._runtime import AcpModel, TagDispatch
from .._validation.json_values import MAX_DEPTH
from .errors import (
    METHOD,
    NOT_A_REQUEST,
    TOO_DEEP,
    TranscriptError,
    UpdateDecodeError,
    envelope_problem,
)

ParamsT = TypeVar("ParamsT", bound=BaseModel)


class _Envelope(AcpModel, Generic[ParamsT]):
    """A whole `session/update` message, so that one pydantic-core call decodes a line
    (an AcpModel: decoded exactly as the bindings are, `NaN` and depth included)."""

    jsonrpc: Literal["2.0"]
    method: Literal["session/update"]
    id: Any = None  # only to notice one: a notification has none
    params: ParamsT


class ModelCodec:
    """The binding models of one protocol version, for the notifications they decode."""

    def __init__(self, version: str) -> None:
        module = importlib.import_module(f"acp_schema.{version}")
        params_name = "SessionNotification" if version == "v1" else "UpdateSessionNotification"
        self.params_type: type[BaseModel] = getattr(module, params_name)
        self.message_type: type[BaseModel] = module.SessionMessage
        self.chunk_type: type[BaseModel] = module.SessionMessageChunk
        self.envelope: type[_Envelope[Any]] = _Envelope[self.params_type]  # type: ignore[name-defined]

    def decode_json(self, raw: str | bytes) -> Any:
        """The notification params of a JSON-RPC message as text, or a `TranscriptError`."""
        try:
            envelope = self.envelope.model_validate_json(raw)
        except ValidationError as error:
            problem = self.explain(raw, error)
            raise problem from problem.__cause__
        if "id" in envelope.__pydantic_fields_set__:
            raise UpdateDecodeError(NOT_A_REQUEST)
        return envelope.params

    def decode(self, message: str | bytes | bytearray | dict[str, Any]) -> Any:
        """The notification params of a raw JSON-RPC message, or a `TranscriptError`."""
        try:
            if isinstance(message, dict):
                envelope = self.envelope.model_validate(message)
            else:
                envelope = self.envelope.model_validate_json(message)
        except ValidationError as error:
            problem = self.explain(message, error)
            raise problem from problem.__cause__
        except RecursionError:  # a dict nested deeper than Python can walk
            raise UpdateDecodeError(TOO_DEEP) from None
        if "id" in envelope.__pydantic_fields_set__:
            raise UpdateDecodeError(NOT_A_REQUEST)
        return envelope.params

    def explain(
        self, message: str | bytes | bytearray | dict[str, Any], error: ValidationError
    ) -> TranscriptError:
        """Why a message failed the fast path: not ours at all, or a bad session/update."""
        if isinstance(message, dict):
            data: Any = message
        else:
            if any(_too_deep(p) for p in error.errors(include_url=False)):
                return UpdateDecodeError(TOO_DEEP)
            try:
                text = message if isinstance(message, str) else bytes(message).decode()
                # NaN gets through here, to be refused below where its place is known.
                data = json.loads(text)
            except RecursionError:
                return UpdateDecodeError(TOO_DEEP)
            except UnicodeDecodeError as bad_text:
                return UpdateDecodeError(f"not UTF-8: {bad_text.reason} at byte {bad_text.start}")
            except ValueError:  # the one reader of JSON text says why, in its words
                try:
                    parse_json(text, max_depth=MAX_DEPTH)
                except InputError as bad_json:
                    return UpdateDecodeError(str(bad_json))
                raise
        not_ours = envelope_problem(data)
        if not_ours is not None:
            return not_ours
        if "params" not in data:
            return UpdateDecodeError(f"{METHOD} without params")
        try:
            self.params_type.model_validate(data["params"])
        except ValidationError as params_error:
            error = params_error
        decode_error = UpdateDecodeError(f"{METHOD} does not decode: {_summary(error)}")
        decode_error.__cause__ = error
        return decode_error


def closed_update_kinds(params_type: type[BaseModel]) -> frozenset[str] | None:
    """The update kinds a closed update union knows (v1), None for an open one (v2)."""
    annotation = params_type.model_fields["update"].annotation
    for marker in getattr(getattr(annotation, "__value__", annotation), "__metadata__", ()):
        if isinstance(marker, TagDispatch):
            return None if marker.other is not None else frozenset(marker.variants)
    return frozenset()  # not the expected shape: nothing is skimmed, everything decodes


def _too_deep(problem: Any) -> bool:
    """Whether a decode problem is JSON nested deeper than the decoder can go."""
    message = problem["msg"]
    return problem["type"] == "json_invalid" and ("recursion" in message or "too deep" in message)


def _summary(error: ValidationError) -> str:
    """The first problem of a validation error, with its location, and how many more."""
    problems = error.errors(include_url=False)  # one per problem, located by wire names
    first = problems[0]
    where = ".".join(str(p) for p in first["loc"]) or "(top level)"
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{where}: {first['msg']}{more}"
