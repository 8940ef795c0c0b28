"""`UpdateReceiver`: every `session/update` of an acp client connection, decoded by the bindings.

acp's client router validates `session/update` params with its own `SessionNotification`,
which knows no session messages; each such update fails there and acp logs an "Unhandled
error while handling notification" traceback. The receiver stands in front of that router
on one connection (`attach`):

- it decodes every `session/update` with `acp_schema.v1` (the fast Structs first), applies
  it to a `TranscriptStore` if it has one, and hands it to `on_update`;
- a kind acp knows then goes on to acp's router as before, so the Client's own
  `session_update` gets it as an acp model;
- a kind acp does not know stops there: acp never sees it, so it logs nothing.

Everything else (requests, other notifications, and `session/update` params the bindings
refuse too) goes to acp's router untouched, with acp's own behaviour and errors.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeAlias

from pydantic import ValidationError
from pydantic_core import to_json

from acp_schema.v1 import fast as v1_fast

from ._support import Handler, wrap_handler
from .send import ACP_UPDATE_KINDS, SESSION_UPDATE

if TYPE_CHECKING:
    from acp_schema import v1
    from acp_schema.transcripts import MessageEntry, TranscriptStore

    # The decoded params: the fast Struct when it holds the whole message, else the model.
    Notification: TypeAlias = "v1_fast.SessionNotification | v1.SessionNotification"
    OnUpdate: TypeAlias = Callable[[Notification, "MessageEntry | None"], "Awaitable[None] | None"]

__all__ = ["UpdateReceiver"]

_decode_json = v1_fast.SessionNotification.decode_json


class UpdateReceiver:
    """Receives every `session/update` of the acp client connections it is attached to.

    `on_update(notification, entry)` is called for each one, in arrival order, with the
    decoded params (`v1.fast.SessionNotification`, or `v1.SessionNotification` when the fast
    path refuses the message, see docs/bindings.md) and the `MessageEntry` the store
    touched (None without a store, or for other kinds). It may be a coroutine function. The
    store, if given, is a `TranscriptStore("v1")` that the receiver applies each update to
    before calling `on_update`.
    """

    def __init__(
        self, on_update: OnUpdate | None = None, *, store: TranscriptStore | None = None
    ) -> None:
        if store is not None and store.version != "v1":
            raise ValueError(
                f"acp speaks ACP v1: the store must be a v1 store, not {store.version}"
            )
        self.on_update = on_update
        self.store = store

    def attach(self, connection: Any) -> Any:
        """Stand in front of the router of an acp `ClientSideConnection` (as returned by
        `acp.connect_to_agent` or `acp.spawn_agent_process`); returns the connection.

        Attach right after creating the connection, before anything awaits, so that no
        message reaches acp's router first.
        """

        def wrap(acp_handler: Handler) -> Handler:
            if isinstance(getattr(acp_handler, "__self__", None), _Dispatch):
                raise ValueError("an UpdateReceiver is attached to this connection already")
            return _Dispatch(self, acp_handler).handle

        wrap_handler(connection, wrap)
        return connection

    def decode(self, params: Any) -> Notification | None:
        """The bindings' `SessionNotification` for the params of a `session/update`, or
        None if they refuse them. The params come as acp parsed them (a dict); they are
        written back to JSON text (non-finite numbers as `NaN`/`Infinity`, which the
        bindings then refuse, as they refuse them on the wire) for the fast path."""
        try:
            notification: Notification = _decode_json(to_json(params))
        except ValidationError:
            return None
        return notification


class _Dispatch:
    """One connection's handler: the receiver first, acp's router for the rest."""

    __slots__ = ("acp_handler", "receiver")

    def __init__(self, receiver: UpdateReceiver, acp_handler: Handler) -> None:
        self.receiver = receiver
        self.acp_handler = acp_handler

    async def handle(self, method: str, params: Any, is_notification: bool) -> Any:
        if method != SESSION_UPDATE or not is_notification:
            return await self.acp_handler(method, params, is_notification)
        receiver = self.receiver
        notification = receiver.decode(params)
        if notification is None:  # the bindings refuse it: acp decides, and reports
            return await self.acp_handler(method, params, is_notification)
        store = receiver.store
        # Applied before the first await: the store sees updates in arrival order.
        entry = store.apply(notification) if store is not None else None
        if receiver.on_update is not None:
            result = receiver.on_update(notification, entry)
            if inspect.isawaitable(result):
                await result
        if notification.update.session_update in ACP_UPDATE_KINDS:
            return await self.acp_handler(method, params, is_notification)
        return None
