"""Method tables and whole-message decoding for JSON-RPC, shared by every protocol version.

Each generated `methods` module declares its table from the schema's `x-method`/`x-side`
keywords and JSON-RPC envelopes, and its own `Side` type (the sides that schema uses); this
module holds the behaviour, so the generated code stays declarative.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Generic, Literal, TypeVar

from pydantic import TypeAdapter, ValidationError

from ._errors import readable
from ._runtime import AcpModel, loads_wire

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


@dataclass(frozen=True)
class Decoded:
    """A decoded JSON-RPC message: exactly one of params, result or error is set.

    `params` is a model (of the method's params class, or of a member of its params union);
    narrow it with `isinstance`. `result` stays `Any`: a result type may be a free-form
    JSON value (`proxy/successor`), not a model."""

    kind: Kind
    method: str | None
    id: int | str | None
    params: AcpModel | None = None
    result: Any = None
    error: dict[str, Any] | None = None


class UnknownMethodError(LookupError):
    """The message names a method the table does not know."""


class MethodTable(Generic[SideT]):
    """Method name -> `Method`; a name may have one entry per side and kind (e.g.
    `mcp/message`: a request on one side, a notification on the other)."""

    def __init__(self, methods: Iterable[Method[SideT]]) -> None:
        self._by_name: dict[str, list[Method[SideT]]] = {}
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

    def decode(
        self,
        message: str | bytes | dict[str, Any],
        *,
        method: str | None = None,
        side: SideT | None = None,
    ) -> Decoded:
        """Decode one JSON-RPC message. A response names no method: pass the request's `method`.

        Raises `ValueError` for anything that does not decode (a `ValidationError`, which is
        one, for bad JSON or params) and `UnknownMethodError` for a method not in the table.
        """
        data = loads_wire(message) if isinstance(message, (str, bytes, bytearray)) else message
        if not isinstance(data, dict) or data.get("jsonrpc") != "2.0":
            raise ValueError("not a JSON-RPC 2.0 message object")
        ident = data.get("id")
        if "method" in data:
            name = data["method"]
            if not isinstance(name, str):
                raise ValueError("a JSON-RPC `method` must be a string")
            is_notification = "id" not in data
            entry = self.get(name, side=side, notification=is_notification)
            try:
                params = entry.params_adapter.validate_python(data.get("params"))
            except ValidationError as error:
                raise readable(error) from None
            kind: Kind = "notification" if is_notification else "request"
            return Decoded(kind, name, ident, params=params)
        if "error" in data:
            return Decoded("error", method, ident, error=data["error"])
        if "result" not in data:
            raise ValueError("a JSON-RPC message needs `method`, `result` or `error`")
        if method is None:
            raise ValueError("a response names no method: pass method= of the request it answers")
        entry = self.get(method, side=side, notification=False)
        try:
            result = entry.result_adapter.validate_python(data["result"])
        except ValidationError as error:
            raise readable(error) from None
        return Decoded("response", method, ident, result=result)
