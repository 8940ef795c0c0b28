"""Decoding for the store: each protocol version's fast Structs and, on first need, its
models (`_model_path`); the params `apply` takes from what it is given; and the skimming
that tells a line of another update kind without decoding it.

JSON text is decoded by the fast path first (msgspec Structs, `acp_schema._fast`) and by
the models only when the Structs refuse it, which is where every error and explanation
comes from.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, cast

import msgspec

from .._fast import REFUSALS
from .errors import METHOD, envelope_problem

if TYPE_CHECKING:
    from ._model_path import ModelCodec
    from .entries import Version

__all__ = ["decode_params", "skim"]

# Both session-message tags contain it; any other update without it is not ours (unless
# its tag is written with JSON escapes, which the skimming reader checks for after parsing).
_TAG_TEXT = "session_message"
_TAG_BYTES = _TAG_TEXT.encode()
_OUR_KINDS = ("session_message", "session_message_chunk")

# Versions whose update union is open: an unknown `sessionUpdate` tag decodes (as the
# union's Other variant). The union of a closed one knows exactly the tags of its fast
# Struct union. (Facts about the models, kept here so that skimming needs no models; the
# tests check them against the models.)
_OPEN_UPDATE_UNIONS = frozenset({"v2"})


class _Codec:
    """The fast Structs of one protocol version; its models (`_model_path`) on first use."""

    def __init__(self, version: Version) -> None:
        self.version = version
        params_name = "SessionNotification" if version == "v1" else "UpdateSessionNotification"
        fast = importlib.import_module(f"acp_schema.{version}.fast")
        self.fast_params_type: type[msgspec.Struct] = getattr(fast, params_name)
        self.fast_message_type: type[msgspec.Struct] = fast.SessionMessage
        self.fast_chunk_type: type[msgspec.Struct] = fast.SessionMessageChunk
        self.fast_decode: Callable[[str | bytes], Any] = msgspec.json.Decoder(
            _fast_envelope(self.fast_params_type)
        ).decode
        self.closed_kinds: frozenset[str] | None = (
            None if version in _OPEN_UPDATE_UNIONS else _update_tags(self.fast_params_type)
        )
        self._models: ModelCodec | None = None

    @property
    def models(self) -> ModelCodec:
        """The model path: imports pydantic and the models of this version the first time."""
        if self._models is None:
            from ._model_path import ModelCodec

            self._models = ModelCodec(self.version)
        return self._models

    def decode(self, message: str | bytes | bytearray | dict[str, Any]) -> Any:
        """The notification params of a raw JSON-RPC message, or a `TranscriptError`."""
        return self.models.decode(message)


def _fast_envelope(params_type: type[msgspec.Struct]) -> type[msgspec.Struct]:
    """A whole `session/update` notification as a Struct: an `id` or any other unknown key
    is refused (the model's path then says why), like everything the params Struct refuses."""
    return msgspec.defstruct(
        f"_FastEnvelope{params_type.__name__}",
        [
            ("jsonrpc", Literal["2.0"]),
            ("method", Literal["session/update"]),
            ("params", params_type),
        ],
        forbid_unknown_fields=True,
        gc=False,
    )


def _update_tags(params_type: type[msgspec.Struct]) -> frozenset[str]:
    """The `sessionUpdate` tags of the fast params Struct's update union."""
    info = cast("msgspec.inspect.StructType", msgspec.inspect.type_info(params_type))
    (update,) = (field.type for field in info.fields if field.encode_name == "update")
    members = update.types if isinstance(update, msgspec.inspect.UnionType) else (update,)
    return frozenset(
        str(member.tag) for member in members if isinstance(member, msgspec.inspect.StructType)
    )


def _spells_nan(line: str | bytes) -> bool:
    """Whether a line holds the token `NaN` outside its strings (searched for first)."""
    suspect = (b"NaN" in line) if isinstance(line, bytes) else ("NaN" in line)
    if not suspect:
        return False
    from .._runtime import _nan_problem  # imports pydantic: only for a suspect line

    return _nan_problem(line) is not None


# Lines with no more brackets than this are nested no deeper than pydantic-core's parser
# goes (it refuses depth 201), so that where msgspec's parser (which goes deeper) reads
# them, pydantic-core would read them alike.
_SHALLOW_BRACKETS = 200


def _skim_parse(line: str | bytes) -> Any:
    """`line` parsed as pydantic-core's `from_json` parses it (raising ValueError where it
    does), by msgspec where that gives the same values, so that skimming imports nothing
    more: msgspec reads every JSON text pydantic-core reads at a depth up to 200, with
    the same values, except non-finite numbers (`NaN`, `Infinity`, `1e400`), which it
    refuses, and pydantic-core then parses."""
    if isinstance(line, bytes):
        shallow = line.count(b"[") + line.count(b"{") <= _SHALLOW_BRACKETS
    else:
        shallow = line.count("[") + line.count("{") <= _SHALLOW_BRACKETS
    if shallow:
        try:
            return _untyped_decode(line)
        except (msgspec.DecodeError, UnicodeError):
            pass  # perhaps what only pydantic-core reads; else its error
    from pydantic_core import from_json

    return from_json(line, cache_strings=False)


_untyped_decode = msgspec.json.Decoder().decode


_CODECS: dict[str, _Codec] = {}


def _codec(version: Version) -> _Codec:
    codec = _CODECS.get(version)
    if codec is None:
        codec = _CODECS[version] = _Codec(version)
    return codec


def decode_params(
    codec: _Codec, fast_decode: Callable[[str | bytes], Any] | None, message: Any
) -> Any:
    """The notification params in `message` (see `TranscriptStore.apply`): raw JSON text
    through `fast_decode` first (None: the models only), then the models."""
    kind = message.__class__
    # Exact type checks first: isinstance on a pydantic class runs Python code.
    if kind is bytes or kind is str:
        raw = cast("str | bytes", message)
        if fast_decode is not None:
            try:
                return fast_decode(raw).params
            except REFUSALS:
                pass  # not exactly what the Structs hold: the models decode it, or say why
        return codec.models.decode_json(raw)
    if kind is codec.fast_params_type:
        return message
    if isinstance(message, (str, bytes, bytearray, dict)):
        return codec.decode(message)
    # A model of the params, or not what a store applies (either way, the models are
    # needed now: to take the one, and to name the type for the other).
    params_type = codec.models.params_type
    if not isinstance(message, params_type):
        raise TypeError(
            f"a {codec.version} store applies {params_type.__name__} or a raw "
            f"JSON-RPC message, not {kind.__name__}"
        )
    return message


def skim(codec: _Codec, line: str | bytes) -> tuple[str | None, Any]:
    """What `TranscriptStore.apply_skimming` does with `line`: `(session ID, None)` for a
    `session/update` of another kind, which needs no decoding (its transcript is loaded),
    else `(None, what to apply)`: the line itself, or its parsed JSON. Raises
    `NotSessionUpdateError` for a parsed message that is no `session/update`."""
    if (_TAG_BYTES in line) if isinstance(line, bytes) else (_TAG_TEXT in line):
        return None, line  # perhaps ours: decode in full, straight from the text
    try:  # what pydantic's parser refuses (bad JSON, or nested past its 200 levels) is
        # left to `apply`
        data = _skim_parse(line)
    except ValueError:
        return None, line  # `apply` says what is wrong with it
    if (
        data.__class__ is dict
        and data.get("method") == METHOD
        and data.get("jsonrpc") == "2.0"
        and "id" not in data
    ):
        params = data.get("params")
        if params.__class__ is dict:
            session_id, update = params.get("sessionId"), params.get("update")
            kind = update.get("sessionUpdate") if update.__class__ is dict else None
            if session_id.__class__ is str and kind.__class__ is str and kind not in _OUR_KINDS:
                closed = codec.closed_kinds
                if closed is None or kind in closed:
                    if _spells_nan(line):  # pydantic's parser reads it; JSON has none
                        return None, line  # `apply` says so
                    return session_id, None
    not_ours = envelope_problem(data)
    if not_ours is not None:
        raise not_ours
    return None, data
