"""`UpdateReceiver`: every `session/update` of an acp client connection, decoded by the bindings.

acp's client router validates `session/update` params with its own `SessionNotification`,
which knows no session messages; each such update fails there and acp logs an "Unhandled
error while handling notification" traceback. The receiver stands in front of that router
on one connection (`attach`):

- it decodes every `session/update` with `acp_schema.v1` (the fast Structs first) and
  applies it to a `TranscriptStore` if it has one;
- a kind acp knows then goes to acp's router as before (the Client's own `session_update`
  gets it as an acp model), and to `on_update` once acp is done with it;
- a kind acp does not know goes to `on_update` only: acp never sees it, so it logs nothing.

Everything else (requests, other notifications, and `session/update` params the bindings
refuse too) goes to acp's router untouched, with acp's own behaviour and errors.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeAlias

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

    `on_update(notification, entry)` is called for each one with the decoded params
    (`v1.fast.SessionNotification`, or `v1.SessionNotification` when the fast path refuses
    the message, see docs/bindings.md) and the `MessageEntry` the store touched (None
    without a store, or for other kinds). It may be a coroutine function.

    Each update is handled in a task of its own, as acp handles every notification. The
    store, if given (a `TranscriptStore("v1")`), applies them in arrival order, before
    anything is awaited. `on_update` is called in arrival order for the kinds acp does not
    know; a kind acp knows reaches it once the Client's `session_update` has returned.
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
        except (ValueError, RecursionError):  # a ValidationError, or nested past Python's limit
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
        if notification.update.session_update not in ACP_UPDATE_KINDS:
            await self.deliver(notification, entry)
            return None
        # A kind acp knows goes to acp's router first, with nothing awaited before it, so
        # that acp's bookkeeping (`prompt` waits for the Client's handlers of its turn)
        # runs exactly as without the receiver; the application gets it next, even when
        # acp refuses it (acp then reports that, as before).
        try:
            return await self.acp_handler(method, params, is_notification)
        finally:
            await self.deliver(notification, entry)

    async def deliver(self, notification: Notification, entry: MessageEntry | None) -> None:
        on_update = self.receiver.on_update
        if on_update is not None:
            result = on_update(notification, entry)
            if inspect.isawaitable(result):
                await result
