"""Proof `receiver-not-chunk`: the value whose attribute is named is shown not to be a
chunk (`resolution.ValueEvidence`): its parameter's annotation, `self` of a class that
is not a chunk, an assignment from a constructor or from a function whose return
annotation says so, an `isinstance` or tag test around the use, an item of an annotated
container, an attribute declared with a type in its class.

Applies to `obj.sender_session_id` (read, write, delete), `obj.with_sender_session_id(...)`,
`getattr(obj, "sender_session_id")` (and `hasattr`, `setattr`, `delattr`),
`obj.model_copy(update={"sender_session_id": ...})`, `obj._replace(sender_session_id=...)`,
`dataclasses.replace(obj, sender_session_id=...)` and `copy.replace(obj, ...)`. A union
that may hold a chunk (the bindings' `SessionUpdate`), a `Protocol`, `Any` and anything
the code does not type prove nothing."""

from __future__ import annotations

import libcst as cst

from acp_schema.migrations.chunk_identity.accounting.occurrences import REMOVED_NAMES
from acp_schema.migrations.chunk_identity.accounting.proofs.context import ProofContext, Site
from acp_schema.migrations.framework.examples import Invalid, Valid
from acp_schema.migrations.framework.syntax import chain, code, string_value

KIND = "receiver-not-chunk"
ATTRIBUTE_FUNCTIONS = frozenset(
    {"builtins.getattr", "builtins.hasattr", "builtins.setattr", "builtins.delattr"}
)
REPLACERS = frozenset({"dataclasses.replace", "copy.replace"})
COPY_METHODS = frozenset({"model_copy", "copy"})


def receiver(context: ProofContext, site: Site) -> cst.BaseExpression | None:
    """The value whose attribute (or field) the occurrence names, if it names one."""
    node = site.inner
    parent = context.parent(node) if node is not None else None
    if isinstance(node, cst.Name):
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return parent.value
        if isinstance(parent, cst.Arg) and parent.keyword is node:
            call = context.parent(parent)
            if isinstance(call, cst.Call):
                return _replaced(context, call)
        return None
    if node is None or string_value(node) not in REMOVED_NAMES:
        return None
    if isinstance(parent, cst.Arg):
        call = context.parent(parent)
        if (
            isinstance(call, cst.Call)
            and len(call.args) >= 2
            and call.args[1] is parent
            and _resolves_to(context, call.func, ATTRIBUTE_FUNCTIONS)
        ):
            return call.args[0].value
        return None
    if isinstance(parent, cst.DictElement) and parent.key is node:
        payload = context.parent(parent)
        argument = context.parent(payload) if payload is not None else None
        call = context.parent(argument) if argument is not None else None
        if (
            isinstance(argument, cst.Arg)
            and argument.keyword is not None
            and argument.keyword.value == "update"
            and isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value in COPY_METHODS
        ):
            return call.func.value
    return None


def _replaced(context: ProofContext, call: cst.Call) -> cst.BaseExpression | None:
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "_replace":
        return func.value
    if call.args and call.args[0].keyword is None and _resolves_to(context, func, REPLACERS):
        return call.args[0].value
    return None


def _resolves_to(context: ProofContext, func: cst.BaseExpression, names: frozenset[str]) -> bool:
    dotted = chain(func)
    return dotted is not None and bool(set(context.values.resolver(func)(dotted)) & names)


def prove(context: ProofContext, site: Site) -> str | None:
    value = receiver(context, site)
    if value is None:
        return None
    holds = context.values.holds(value)
    if not holds.other:
        return None
    return f"`{code(value)}` is not a chunk: {holds.why}"


EXAMPLES = (
    Valid(
        """
        from dataclasses import dataclass
        from acp_schema.v2 import SessionMessageChunk

        @dataclass
        class Envelope:
            sender_session_id: str

        def sender(envelope: "Envelope | None") -> str | None:
            return envelope.sender_session_id if envelope else None
        """,
        why="a quoted Optional annotation of the application's own class",
    ),
    Valid(
        """
        from acp_schema.v2 import SessionMessage, SessionMessageChunk

        class Router:
            def __init__(self) -> None:
                self._messages: dict[str, SessionMessage] = {}

            def sender(self, key: str) -> str | None:
                return self._messages[key].sender_session_id
        """,
        why="an item of a container annotated on `self` in `__init__`",
    ),
    Valid(
        """
        from acp_schema.v2 import SessionUpdate

        def sender(update: SessionUpdate) -> str | None:
            if update.session_update == "session_message":
                return update.sender_session_id
            return None
        """,
        why="the tag test narrows the union to `session_message`",
    ),
    Valid(
        """
        from acp_schema.v2 import SessionMessage, SessionMessageChunk

        def sender(message: SessionMessage) -> str | None:
            return getattr(message, "sender_session_id", None)
        """,
        why="getattr on a value annotated as another bindings class",
    ),
    Valid(
        """
        import dataclasses
        from typing import NamedTuple
        from acp_schema.v2 import SessionMessage, SessionMessageChunk

        @dataclasses.dataclass
        class Event:
            sender_session_id: str

        class Hop(NamedTuple):
            recipient_session_id: str

        def moved(event: Event, hop: Hop, message: SessionMessage, me: str) -> object:
            return (
                dataclasses.replace(event, sender_session_id=me),
                hop._replace(recipient_session_id=me),
                message.model_copy(update={"sender_session_id": me}),
            )
        """,
        why="copies with a field changed, of values annotated with other classes",
    ),
    Invalid(
        """
        import copy
        from acp_schema.v2 import SessionMessageChunk

        def moved(update, hop, me):
            return (
                update.model_copy(update={"sender_session_id": me}),
                hop._replace(recipient_session_id=me),
                copy.replace(update, sender_session_id=me),
            )
        """,
        lines=(6, 7, 8),
        why="the same copies of values of unknown type",
    ),
    Invalid(
        """
        from acp_schema.v2 import SessionMessageChunk

        def sender(update) -> str | None:
            return getattr(update, "sender_session_id", None)
        """,
        lines=(4,),
        why="getattr on a value of unknown type",
    ),
    Invalid(
        """
        from acp_schema.v2 import SessionUpdate

        def sender(update: SessionUpdate) -> str | None:
            return update.sender_session_id
        """,
        lines=(4,),
        why="SessionUpdate is a union that holds the chunk",
    ),
    Invalid(
        """
        from typing import Protocol
        from acp_schema.v2 import SessionMessageChunk

        class HasSender(Protocol):
            sender_session_id: str

        def sender(item: HasSender) -> str:
            return item.sender_session_id
        """,
        lines=(8,),
        why="a Protocol is fitted by any object with the attribute, a chunk too",
    ),
    Invalid(
        """
        import dataclasses
        from acp_schema.v2 import SessionMessageChunk

        def resign(chunk, me):
            return dataclasses.replace(chunk, sender_session_id=me)
        """,
        lines=(5,),
        why="`dataclasses.replace` on a value of unknown type",
    ),
    Invalid(
        """
        class UpdateView:
            def __init__(self, update):
                self._update = update

            def __getattr__(self, name):
                return getattr(self._update, name)

        def target(view: UpdateView):
            return view.recipient_session_id
        """,
        lines=(9,),
        why="a proxy class forwards attribute reads, maybe to a chunk",
    ),
    Invalid(
        """
        from pydantic import BaseModel, ConfigDict

        class Incoming(BaseModel):
            model_config = ConfigDict(extra="allow")
            kind: str

        def sender(raw: dict):
            return getattr(Incoming.model_validate(raw), "senderSessionId", None)
        """,
        lines=(8,),
        why="a model that keeps unknown keys, validated from a chunk's payload",
    ),
    Invalid(
        """
        from pydantic import BaseModel

        class ChatLine(BaseModel, from_attributes=True):
            message_id: str

        def sender(update):
            return ChatLine.model_validate(update).sender_session_id
        """,
        lines=(7,),
        why="a model built from a chunk's attributes",
    ),
    Invalid(
        """
        from acp_schema.v2 import SessionMessageChunk

        class Who:
            def who(self):
                return getattr(self, "sender_session_id", None)

        class MyChunk(Who, SessionMessageChunk):
            pass
        """,
        lines=(5,),
        why="a mixin of a chunk subclass: its `self` may be a chunk",
    ),
)
