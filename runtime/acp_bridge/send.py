"""`send`: any `acp_schema.v1` session update or agent-side notification, on an acp agent
connection.

A `session/update` whose kind acp knows goes through acp's own
`AgentSideConnection.session_update` (converted as `to_acp` does), so acp validates and writes
it as it always does. Any other kind (`session_message`, `session_message_chunk`, ...), and
every other notification, is written as its wire value by the connection itself.
"""

from __future__ import annotations

from functools import cache
from typing import Any, cast, get_args

from acp import schema as acp_models
from acp.core import AgentSideConnection
from pydantic import BaseModel, ValidationError

from acp_schema import v1
from acp_schema._fast import FastStruct
from acp_schema._runtime import TagDispatch
from acp_schema.v1.methods import METHODS

from ._support import acp_writes, send_raw_notification
from .convert import BINDINGS_MODULES, LossyConversionError, acp_model_of, wire_change

__all__ = ["ACP_UPDATE_KINDS", "send"]

SESSION_UPDATE = "session/update"


def _acp_update_kinds() -> frozenset[str]:
    """The `sessionUpdate` tags acp's `SessionNotification.update` union accepts."""
    annotation = acp_models.SessionNotification.model_fields["update"].annotation
    return frozenset(
        tag
        for variant in get_args(annotation)
        for tag in get_args(variant.model_fields["session_update"].annotation)
    )


# The update kinds acp validates itself; the adapter leaves those to acp on both sides.
ACP_UPDATE_KINDS: frozenset[str] = _acp_update_kinds()
# acp's `session_update(session_id, update, **meta)`: a `_meta` key with one of these names
# cannot travel as a keyword, so such a notification is written as it is.
_ACP_PARAMETERS = frozenset({"self", "session_id", "update"})


async def send(connection: Any, message: Any, *, session_id: str | None = None) -> None:
    """Send `message` through an acp `AgentSideConnection`.

    `message` is an `acp_schema.v1` model or fast Struct: a session update (any variant of
    `v1.SessionUpdate`, with `session_id`), a whole `v1.SessionNotification`, or the params
    of another notification the Agent sends (`v1.CompleteElicitationNotification`, ...; the
    method comes from the bindings' method table).

    What is written is the message's wire value exactly, unknown keys, `null`s and `_meta`
    included. An update kind acp knows goes through `connection.session_update` (acp
    validates it and writes it) when acp writes that very value (see `_as_acp`); anything
    else, every other notification included, through the connection's own writer.
    """
    if not isinstance(connection, AgentSideConnection):
        raise TypeError(f"send needs an acp AgentSideConnection, not {type(connection).__name__}")
    model = message.to_model() if isinstance(message, FastStruct) else message
    if not isinstance(model, BaseModel) or type(model).__module__ not in BINDINGS_MODULES:
        raise TypeError(f"send takes acp_schema.v1 models, not {_qualified(type(message))}")
    if session_id is not None and not isinstance(session_id, str):
        # the bindings' `sessionId` is a string; acp's writer would put anything on the wire
        raise TypeError(f"session_id must be a str, not {type(session_id).__name__}")
    if isinstance(model, v1.SessionNotification):
        if session_id is not None and session_id != model.session_id:
            raise ValueError(
                f"session_id {session_id!r} but the notification is for {model.session_id!r}"
            )
        await _send_update(connection, model.model_dump(mode="json"), model.update)
        return
    if model.__class__ in _update_classes():
        if session_id is None:
            raise TypeError(f"send({type(model).__name__}) needs session_id=")
        params = {"sessionId": session_id, "update": model.model_dump(mode="json")}
        await _send_update(connection, params, model)
        return
    method = _notification_method(type(model))
    await send_raw_notification(connection, method, model.model_dump(mode="json"))


def _qualified(cls: type) -> str:
    """`acp_schema.v2.SessionMessage`: the public package of a bindings class (the facade
    that exports it), else its module; so that v1's and v2's classes of one name differ."""
    module = cls.__module__
    if module == "builtins":
        return cls.__qualname__
    if module.startswith("acp_schema.") and "._" in module:
        module = module.split("._", 1)[0]
    return f"{module}.{cls.__qualname__}"


async def _send_update(connection: Any, params: dict[str, Any], update: BaseModel) -> None:
    acp_update = _as_acp(params, update)
    if acp_update is None:
        await send_raw_notification(connection, SESSION_UPDATE, params)
    else:
        meta = params.get("_meta") or {}
        await connection.session_update(params["sessionId"], acp_update, **meta)


def _as_acp(params: dict[str, Any], update: BaseModel) -> BaseModel | None:
    """The acp model to hand to acp's `session_update`, or None when acp's path cannot carry
    the notification as it is (a kind acp does not know, a top-level key acp's
    `SessionNotification` lacks, a `_meta` key that clashes with its parameters, a value
    acp's copy of the schema refuses or reads differently)."""
    if params["update"].get("sessionUpdate") not in ACP_UPDATE_KINDS:
        return None
    meta = params.get("_meta")
    if params.keys() - {"sessionId", "update", "_meta"}:
        return None
    if meta is not None and not (isinstance(meta, dict) and not meta.keys() & _ACP_PARAMETERS):
        return None
    try:
        acp_update = acp_model_of(type(update), params["update"])
    except (ValidationError, LossyConversionError):
        return None
    # What acp's `session_update` writes is its `SessionNotification` of these arguments
    # through `serialize_params`, which serializes the update by the field's declared class
    # (unknown keys of the open subclass dropped, at every level) and leaves out `null`s and
    # defaults: unless that is the bindings' value exactly, the value goes out as it is.
    as_acp_sends = acp_models.SessionNotification(
        session_id=params["sessionId"],
        update=cast(Any, acp_update),  # one of acp's update classes: `_counterpart` chose it
        field_meta=meta or None,
    )
    written = acp_writes(as_acp_sends)
    return acp_update if wire_change(params, written) is None else None


@cache
def _update_classes() -> frozenset[type]:
    """The model classes of `v1.SessionUpdate`'s variants (from its `TagDispatch` marker)."""
    annotation = v1.SessionNotification.model_fields["update"].annotation
    for marker in getattr(getattr(annotation, "__value__", annotation), "__metadata__", ()):
        if isinstance(marker, TagDispatch):
            return frozenset(marker.variants.values())
    raise RuntimeError("acp_schema.v1.SessionUpdate is not a tagged union")  # generator bug


def _notification_method(params_type: type[BaseModel]) -> str:
    """The method of a notification the Agent may send, from the bindings' method table."""
    for method in METHODS:
        if method.params is params_type and method.is_notification and method.side != "agent":
            return method.name
    raise TypeError(
        f"{params_type.__name__} is not a session update or the params of a notification "
        "an Agent sends"
    )
