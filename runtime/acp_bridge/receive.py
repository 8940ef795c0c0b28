"""`UpdateReceiver`: every `session/update` of an acp client connection, decoded by the
bindings, exactly once and in the order the agent sent them.

acp's client router validates `session/update` params with its own `SessionNotification`,
which knows no session messages; each such update fails there and acp logs an "Unhandled
error while handling notification" traceback, and nobody else sees the update. The
receiver stands in front of that router on one connection (`attach`). For each update:

1. the params are decoded with `acp_schema.v1` (the fast Structs first); what the bindings
   refuse becomes an `UndecodableUpdate` (the params as they came, the bindings' error),
   reported by one WARNING line naming the field, without a traceback;
2. a decoded session message is applied to the `TranscriptStore`, if the receiver has one;
3. `on_update` gets the decoding (or the `UndecodableUpdate`), in wire order (`InOrder`);
4. acp's router gets the update if acp's own model reads it, exactly as it would without
   the receiver (the Client's `session_update`, `prompt()`'s waiting); an update acp's
   model refuses never reaches acp, so acp logs nothing for it. One that the bindings
   decode but acp refuses (a kind acp knows, in a shape acp's older copy of the schema
   does not accept) gets one WARNING line saying that the Client's `session_update`
   does not see it.

Everything else (requests, other notifications) goes to acp's router untouched.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeAlias

from pydantic import BaseModel, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError, to_json

from acp_schema import v1
from acp_schema.transcripts import MessageEntry
from acp_schema.v1 import fast as v1_fast

from ._support import ACP_VERSION, AcpSessionNotification, Handler, wrap_handler
from .delivery import InOrder
from .exits import AgentProcess, report_exits
from .send import ACP_UPDATE_KINDS, SESSION_UPDATE
from .undecodable import LOGGER, UndecodableUpdate, first_problem, one_line, quoted

if TYPE_CHECKING:
    from acp_schema.transcripts import TranscriptStore

# The decoded params: the fast Struct when it holds the whole message, else the model.
Notification: TypeAlias = v1_fast.SessionNotification | v1.SessionNotification
# What `on_update` gets for each `session/update`.
ReceivedUpdate: TypeAlias = Notification | UndecodableUpdate
OnUpdate: TypeAlias = Callable[[ReceivedUpdate, MessageEntry | None], Awaitable[None] | None]

__all__ = ["Notification", "OnUpdate", "ReceivedUpdate", "UpdateReceiver"]

_decode_json = v1_fast.SessionNotification.decode_json


class UpdateReceiver:
    """Receives every `session/update` of the acp client connections it is attached to.

    `on_update(update, entry)` is called once for each one, in the order the agent sent
    them, with the decoded params (`v1.fast.SessionNotification`, or
    `v1.SessionNotification` when the fast path refuses the message, see docs/bindings.md)
    or, for params the bindings refuse, an `UndecodableUpdate`; and the `MessageEntry` the
    store touched (None without a store, or for other kinds). It may be a coroutine
    function: each call starts after the previous one has finished.

    The store, if given (a `TranscriptStore("v1")`), applies the decoded updates in
    arrival order.
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

    def attach(self, connection: Any, *, process: AgentProcess | None = None) -> Any:
        """Stand in front of the router of an acp `ClientSideConnection` (as returned by
        `acp.connect_to_agent` or `acp.spawn_agent_process`); returns the connection.

        Attach right after creating the connection, before anything awaits, so that no
        message reaches acp's router first. With the agent's `process` (the second value
        `acp.spawn_agent_process` gives), a request that fails because the process exited
        raises `AgentExitedError` with its exit status instead of acp's "Connection closed".
        """

        def wrap(acp_handler: Handler) -> Handler:
            if isinstance(getattr(acp_handler, "__self__", None), _Dispatch):
                raise ValueError("an UpdateReceiver is attached to this connection already")
            return _Dispatch(self, acp_handler).handle

        wrap_handler(connection, wrap)
        if process is not None:
            report_exits(connection, process)
        return connection

    def decode(self, params: Any) -> ReceivedUpdate:
        """The bindings' `SessionNotification` for the params of a `session/update`, or an
        `UndecodableUpdate` with the bindings' error if they refuse them.

        The params come as acp parsed them (JSON values); they are written back to JSON
        text for the fast path (non-finite numbers as `NaN`/`Infinity`, which the bindings
        refuse, as they refuse them on the wire). What cannot be written back (a string
        with a lone surrogate, nesting deeper than the writer goes) is decoded by the
        models from the values."""
        try:
            text = to_json(params)
        except ValueError:  # what JSON text cannot hold: the models read the values
            return _decode_values(params)
        try:
            notification: Notification = _decode_json(text)
        except ValidationError as error:
            return UndecodableUpdate(params, error)
        return notification


class _Dispatch:
    """One connection's handler: the receiver first, acp's router for what acp reads."""

    __slots__ = ("acp_handler", "in_order", "receiver")

    def __init__(self, receiver: UpdateReceiver, acp_handler: Handler) -> None:
        self.receiver = receiver
        self.acp_handler = acp_handler
        on_update = receiver.on_update
        self.in_order = None if on_update is None else InOrder(on_update)

    async def handle(self, method: str, params: Any, is_notification: bool) -> Any:
        if method != SESSION_UPDATE or not is_notification:
            return await self.acp_handler(method, params, is_notification)
        # Up to the first await, this runs in the order the updates arrived (see InOrder).
        receiver = self.receiver
        update = receiver.decode(params)
        entry = None
        if isinstance(update, UndecodableUpdate):
            LOGGER.warning("%s", update.describe())
            for_acp = _acp_reading(params, update.kind, warn=False)
        else:
            store = receiver.store
            if store is not None:
                entry = store.apply(update)
            for_acp = _acp_reading(params, update.update.session_update, warn=True)
        delivery, failure = None, None
        if self.in_order is not None:
            try:
                delivery = self.in_order.deliver(update, entry)
            except Exception as error:  # acp still gets the update; then acp reports this
                failure = error
        try:
            if for_acp is not None:
                # Nothing awaited before it: acp's bookkeeping (`prompt()` waits for the
                # Client's handlers of its turn) sees the update as without the receiver.
                await self.acp_handler(method, for_acp, is_notification)
        except asyncio.CancelledError:
            if delivery is not None:
                delivery.cancel()
            raise
        finally:
            if delivery is not None and not delivery.cancelled():
                await delivery
        if failure is not None:
            raise failure
        return None


def _acp_reading(params: Any, kind: str | None, *, warn: bool) -> BaseModel | None:
    """acp's `SessionNotification` of the params, to hand to its router in place of the
    params (its router takes it as it is, see `wrap_handler`), or None if acp cannot read
    them: a kind acp does not know, or a shape its copy of the schema refuses (reported
    when `warn`: the bindings read it, and the Client's handler will not see it)."""
    if kind not in ACP_UPDATE_KINDS:
        return None
    try:
        reading: BaseModel = AcpSessionNotification.model_validate(params)
    except ValidationError as error:
        if warn:  # the bindings read it: `params` is an object, the kind one acp knows
            where, problem = first_problem(error)
            LOGGER.warning(
                "session/update for session %s (%s) not read by agent-client-protocol %s: "
                "%s: %s; the Client's session_update does not get it, on_update does",
                quoted(params["sessionId"]),
                kind,
                ACP_VERSION,
                one_line(where),
                one_line(problem),
            )
        return None
    return reading


def _decode_values(params: Any) -> ReceivedUpdate:
    """The models' decoding of params that JSON text cannot hold."""
    try:
        return v1.SessionNotification.model_validate(params)
    except ValidationError as error:
        return UndecodableUpdate(params, error)
    except RecursionError:
        return UndecodableUpdate(params, _too_deep())


def _too_deep() -> ValidationError:
    problem = PydanticCustomError("too_deep", "nested too deeply to decode")
    details = InitErrorDetails(type=problem, loc=(), input=None)
    return ValidationError.from_exception_data("SessionNotification", [details])
