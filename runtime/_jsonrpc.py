"""Method tables and whole-message decoding for JSON-RPC, shared by every protocol version.

Each generated `methods` module declares its table from the schema's `x-method`/`x-side`
keywords and JSON-RPC envelopes, and its own `Side` type (the sides that schema uses); this
module holds the behaviour, so the generated code stays declarative.

JSON text is decoded by the fast path first (`acp_schema._fast`): a strict envelope Struct,
then the params or result with the method's Struct from the `fast` module beside the models.
Whatever it refuses takes the models' path, so the one rule of `decode_json` holds for whole
messages: Structs when msgspec takes all of the message, else exactly what the models give.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Generic, Literal, TypeVar

import msgspec
from pydantic import TypeAdapter

from ._fast import REFUSALS, FastStruct
from ._runtime import AcpModel, loads_wire
from ._validation.json_values import _python_input

# The side that handles a method: any string the schema's `x-side` uses. Each generated
# `methods` module narrows it to a Literal of its own sides (`MethodTable[Side]`).
SideT = TypeVar("SideT", bound=str)
Kind = Literal["request", "notification", "response", "error"]


@dataclass(frozen=True)
class Method(Generic[SideT]):
    """One JSON-RPC method: its name, the side that handles it, its params and result types.

    `params` and `result` are model classes or union aliases. `params` is None for a
    method without params (its messages carry none, or `null`); `result` is None for a
    notification. A name may be both a request and a notification on one side.
    """

    name: str
    side: SideT
    params: Any = None
    result: Any = None
    notification: bool = False

    @property
    def is_notification(self) -> bool:
        return self.notification

    @cached_property
    def params_adapter(self) -> TypeAdapter[Any]:
        return TypeAdapter(self.params)

    @cached_property
    def result_adapter(self) -> TypeAdapter[Any]:
        if self.result is None:
            raise TypeError(f"{self.name} is a notification: it has no result")
        return TypeAdapter(self.result)

    @cached_property
    def fast_params(self) -> msgspec.json.Decoder[Any] | None:
        """The fast path's decoder of the params, None where the fast module has no Struct."""
        return _fast_decoder(self.params)

    @cached_property
    def fast_result(self) -> msgspec.json.Decoder[Any] | None:
        return _fast_decoder(self.result)


def _fast_decoder(kind: Any) -> msgspec.json.Decoder[Any] | None:
    """A decoder of the Struct (or union alias) of the same name as `kind` in the `fast`
    module beside the module that defines `kind`, if that module mirrors it."""
    module = getattr(kind, "__module__", None)
    if kind is None or not module:
        return None
    try:
        fast = importlib.import_module(module.rpartition(".")[0] + ".fast")
    except ImportError:
        return None
    mirror = getattr(fast, kind.__name__, None)
    return None if mirror is None else msgspec.json.Decoder(mirror)


class _FastEnvelope(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """Any JSON-RPC 2.0 message, strict: an unknown key, an `id` that is not an integer,
    a string or null, or a `NaN` anywhere is refused (the models' path decides). The params,
    result and error stay raw: each message kind decodes the one it needs, and refuses the
    message when another is present (a raw value is not checked until it is decoded)."""

    jsonrpc: Literal["2.0"]
    id: int | str | msgspec.UnsetType | None = msgspec.UNSET
    method: str | msgspec.UnsetType = msgspec.UNSET
    params: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    result: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET
    error: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET


_ENVELOPE = msgspec.json.Decoder(_FastEnvelope)
_UNSET = msgspec.UNSET


@dataclass(frozen=True)
class Decoded:
    """A decoded JSON-RPC message: exactly one of params, result or error is set.

    `params` is a model (of the method's params class, or of a member of its params union)
    or, from `decode` on JSON text that the fast path took, that model's fast Struct
    (`acp_schema._fast`; `to_model()` converts); narrow it with `isinstance`. `result`
    stays `Any`: a result type may be a free-form JSON value (`proxy/successor`)."""

    kind: Kind
    method: str | None
    id: int | str | None
    params: AcpModel | FastStruct[Any] | None = None
    result: Any = None
    error: dict[str, Any] | None = None


class UnknownMethodError(LookupError, ValueError):
    """The message names a method the table does not know. A `ValueError` like every other
    message `METHODS.decode` refuses (and a `LookupError`, as it has always been)."""


class MethodTable(Generic[SideT]):
    """Method name -> `Method`; a name may have one entry per side and kind (e.g.
    `mcp/message`: a request on one side, a notification on the other)."""

    def __init__(self, methods: Iterable[Method[SideT]]) -> None:
        self._by_name: dict[str, list[Method[SideT]]] = {}
        self._fast_routes: dict[tuple[str, SideT | None, Kind], _Route] = {}
        self._guesses: dict[SideT | None, _Route] = {}  # the last route taken, per side
        for method in methods:
            self._by_name.setdefault(method.name, []).append(method)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[Method[SideT]]:
        return (m for entries in self._by_name.values() for m in entries)

    def __len__(self) -> int:
        return sum(len(entries) for entries in self._by_name.values())

    def get(
        self, name: str, *, side: SideT | None = None, notification: bool | None = None
    ) -> Method[SideT]:
        """The method called `name`, narrowed by side or request/notification when ambiguous."""
        entries = [
            m
            for m in self._by_name.get(name, ())
            if (side is None or m.side == side)
            and (notification is None or m.is_notification == notification)
        ]
        if not entries:
            raise UnknownMethodError(f"unknown method {name!r}")
        if len(entries) > 1:
            kinds = ", ".join(
                f"{m.side} {'notification' if m.is_notification else 'request'}" for m in entries
            )
            raise UnknownMethodError(
                f"{name!r} has several entries ({kinds}); pass side= or notification="
            )
        return entries[0]

    def params_of(self, decoded: Decoded, name: str) -> AcpModel | FastStruct[Any] | None:
        """The params of `decoded`, a request or notification of method `name`, as `decode`
        gave them (a model, or its fast Struct). Each generated table types the answer by
        `name`: `METHODS.params_of(decoded, "session/update")` is the params class of that
        method or its Struct. Raises ValueError when `decoded` is not a request or
        notification of `name`."""
        if decoded.method != name or decoded.kind not in ("request", "notification"):
            raise ValueError(
                f"the message is {_article(decoded.kind)} of {decoded.method!r}, not a request or "
                f"notification of {name!r}"
            )
        return decoded.params

    def decode(
        self,
        message: str | bytes | dict[str, Any],
        *,
        method: str | None = None,
        side: SideT | None = None,
    ) -> Decoded:
        """Decode one JSON-RPC message. A response names no method: pass the request's `method`.

        Raises `ValueError` for anything that does not decode (a `ValidationError`, which is
        one, for bad JSON or params) and `UnknownMethodError`, a `ValueError` too, for a
        method not in the table.

        JSON text takes the fast path first: the params or result are then the `fast`
        module's Struct, when msgspec takes the whole message; otherwise, and for a dict,
        they are what the models decode (`acp_schema._fast` has the rule).
        """
        if not isinstance(message, dict):
            # A stream repeats a method: the route of the last message is tried first, as one
            # Struct for the whole message (one pass over the text), and inline: the calls
            # and the `Decoded` are most of what the fast path adds to msgspec's parse.
            guess = self._guesses.get(side)
            if guess is not None and (guess.kind != "response" or guess.name == method):
                try:
                    whole = guess.whole.decode(message)  # type: ignore[union-attr]
                except REFUSALS:
                    pass
                else:
                    decoded = _new(Decoded)  # its fields filled as `_decoded` says why
                    values = decoded.__dict__
                    values.update(guess.fields)
                    if guess.kind == "response":
                        ident = whole.id
                        values["id"] = None if ident is _UNSET else ident
                        values["result"] = whole.result
                    else:
                        values["params"] = whole.params
                        if guess.kind == "request":
                            values["id"] = whole.id
                    return decoded
            fast = self._fast_decode(message, method, side)
            if fast is not None:
                return fast
        return self.decode_models(message, method=method, side=side)

    def decode_models(
        self,
        message: str | bytes | dict[str, Any],
        *,
        method: str | None = None,
        side: SideT | None = None,
    ) -> Decoded:
        """`decode` with the models only: params and results are always models."""
        data = loads_wire(message) if isinstance(message, (str, bytes, bytearray)) else message
        if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
            raise ValueError("not a JSON-RPC 2.0 message object")
        ident = data.get("id")
        if "method" in data:
            name = data["method"]
            if not isinstance(name, str):
                raise ValueError("a JSON-RPC `method` must be a string")
            is_notification = "id" not in data  # `"id": null` is a request all the same
            entry = self.get(name, side=side, notification=is_notification)
            params = _validated(entry.params_adapter, entry.params, data.get("params"))
            kind: Kind = "notification" if is_notification else "request"
            return Decoded(kind, name, ident, params=params)
        if "error" in data:
            if "result" in data:  # JSON-RPC 2.0: a response carries one or the other
                raise ValueError("a JSON-RPC response carries `result` or `error`, not both")
            return Decoded("error", method, ident, error=data["error"])
        if "result" not in data:
            raise ValueError("a JSON-RPC message needs `method`, `result` or `error`")
        if method is None:
            raise ValueError("a response names no method: pass method= of the request it answers")
        entry = self.get(method, side=side, notification=False)
        result = _validated(entry.result_adapter, entry.result, data["result"])
        return Decoded("response", method, ident, result=result)

    def _fast_decode(
        self, message: str | bytes | bytearray, method: str | None, side: SideT | None
    ) -> Decoded | None:
        """The message decoded by the fast path, or None where the models' path decides
        (anything refused, an error response, a method without a mirrored type).

        This is the general envelope, whose params, result and error are decoded in a second
        pass; `decode` tries the route of the last message first, in one pass."""
        try:
            envelope = _ENVELOPE.decode(message)
        except REFUSALS:
            return None
        if envelope.error is not _UNSET:
            return None  # the error object stays a dict: the models' path reads it
        name = envelope.method
        kind: Kind
        if name is not _UNSET:
            if envelope.result is not _UNSET:
                return None
            kind = "notification" if envelope.id is _UNSET else "request"
            raw = envelope.params
        else:
            if method is None or envelope.params is not _UNSET:
                return None
            name, kind, raw = method, "response", envelope.result
        route = self._fast_routes.get((name, side, kind))
        if route is None:
            route = self._fast_route(name, side, kind)
        if route.decoder is None or raw is _UNSET:
            return None
        try:
            value = route.decoder.decode(raw)
        except REFUSALS:
            return None
        self._guesses[side] = route
        return _decoded(kind, name, envelope.id, value)

    def _fast_route(self, name: str, side: SideT | None, kind: Kind) -> _Route:
        """The fast decoders of (method, side, kind): the params or result alone, and the
        whole message. No decoders for a method the table lacks or the fast module does not
        mirror."""
        notification = kind == "notification"
        fields = {**_FIELDS, "kind": kind, "method": name}
        try:
            entry = self.get(name, side=side, notification=notification)
        except UnknownMethodError:
            route = _Route(kind, name, None, None, fields)  # the models' path raises it
        else:
            decoder = entry.fast_result if kind == "response" else entry.fast_params
            whole = None if decoder is None else _whole_message(entry, kind)
            route = _Route(kind, name, decoder, whole, fields)
        if len(self._fast_routes) < _ROUTES_KEPT:  # names come from the wire: bounded
            self._fast_routes[(name, side, kind)] = route
        return route


def _article(kind: Kind) -> str:
    return f"an {kind}" if kind == "error" else f"a {kind}"


def _validated(adapter: TypeAdapter[Any], kind: Any, value: Any) -> Any:
    """`value` validated as the models validate Python data (`AcpModel.model_validate`): a
    value JSON cannot hold (a lone surrogate, NaN, a cycle) is a `json_invalid`
    ValidationError of the whole value, never the `NotJsonError` (a TypeError) that a bare
    TypeAdapter lets out; other errors are made readable."""
    title = getattr(kind, "__name__", "params")
    return _python_input(title, value, lambda: adapter.validate_python(value))


@dataclass(frozen=True)
class _Route:
    kind: Kind
    name: str
    decoder: msgspec.json.Decoder[Any] | None  # the params or result alone
    whole: msgspec.json.Decoder[Any] | None  # the whole message
    fields: dict[str, Any]  # a `Decoded`'s fields, before the message's own are put in


def _whole_message(entry: Method[Any], kind: Kind) -> msgspec.json.Decoder[Any]:
    """A decoder of a whole message of `entry` as one Struct: what the general envelope and
    the params or result Struct accept together, for this method and kind only."""
    fields: list[Any] = [("jsonrpc", Literal["2.0"])]
    if kind == "response":
        fields += [("id", int | str | msgspec.UnsetType | None, msgspec.UNSET)]
        fields += [("result", _mirror(entry.result))]
    else:
        if kind == "request":
            fields.append(("id", int | str | None))
        fields += [("method", Literal[entry.name]), ("params", _mirror(entry.params))]
    struct = msgspec.defstruct(
        "_WholeMessage", fields, forbid_unknown_fields=True, gc=False, kw_only=True
    )
    return msgspec.json.Decoder(struct)


def _mirror(kind: Any) -> Any:
    """The fast module's Struct (or alias) for a model class (or alias) of the table."""
    module = kind.__module__.rpartition(".")[0] + ".fast"
    return getattr(importlib.import_module(module), kind.__name__)


def _decoded(kind: Kind, name: str, ident: Any, value: Any) -> Decoded:
    """A `Decoded` of the fast path. A frozen dataclass sets each field through
    `object.__setattr__`, about a third of this path's time; filling the instance's dict
    gives the same object."""
    decoded = object.__new__(Decoded)
    if kind == "response":
        ident = None if ident is _UNSET else ident  # as `data.get("id")` reads it
        decoded.__dict__.update(_RESPONSE, method=name, id=ident, result=value)
    elif kind == "notification":
        decoded.__dict__.update(_NOTIFICATION, method=name, params=value)
    else:
        decoded.__dict__.update(_REQUEST, method=name, id=ident, params=value)
    return decoded


_ROUTES_KEPT = 4096
_new = object.__new__
# The fields of a `Decoded`, in its order, for each kind the fast path gives.
_FIELDS = dict.fromkeys(("kind", "method", "id", "params", "result", "error"))
_RESPONSE = {**_FIELDS, "kind": "response"}
_NOTIFICATION = {**_FIELDS, "kind": "notification"}
_REQUEST = {**_FIELDS, "kind": "request"}
