"""Where a chunk-producing expression ends up: the statement it reaches (a send, an
assignment, a yield, a return) and whether that statement is known to deliver what it
is given, in order. A part of the planner (`planner.Planner` mixes it in)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

import libcst as cst

from acp_schema.migrations.chunk_identity.candidates import TAG_KEYS
from acp_schema.migrations.chunk_identity.planning.plan import Failure
from acp_schema.migrations.framework.syntax import chain, code, is_docstring, is_pure, string_value
from acp_schema.migrations.resolution.facts import Facts

# Methods whose call on a chunk serialises it: `send(chunk.model_dump())` still sends it.
SERIALIZERS = frozenset({"model_dump", "model_dump_json"})
# The outermost call of a send statement must be known to deliver what it is given, in
# order: a method or function whose name (leading underscores aside) starts with one of
# these. `outbox.set(key, chunk)` or `pending.append(chunk)` store it instead, and a copy
# with the upsert would be overwritten or never sent.
SEND_VERBS = (
    "session_update",
    "send",
    "notify",
    "emit",
    "publish",
    "write",
    "put",
    "dispatch",
    "deliver",
    "broadcast",
    "relay",
    "forward",
)
# Calls between the chunk and the send that only re-encode it.
ENCODERS = frozenset({"json.dumps", "orjson.dumps"})
# Attributes of a chunk that say nothing about its participants.
BENIGN_ATTRIBUTES = frozenset({"message_id", "content", "meta", "session_update", *SERIALIZERS})


SiteKind = Literal["send", "assign", "yield", "return"]


@dataclass
class Site:
    """Where a chunk-producing expression ends up."""

    kind: SiteKind
    statement: cst.BaseSmallStatement
    root: cst.BaseExpression | None = None  # the value copied for a send
    callees: tuple[cst.BaseExpression, ...] = ()
    target: cst.Name | None = None  # assign


class SiteFinder:
    """Follows a chunk to its statement; needs the planner's `facts`."""

    facts: Facts

    def site(self, expr: cst.BaseExpression) -> Site:
        """Follow `expr` up to its statement: a send, an assignment, a yield or a return."""
        node: cst.CSTNode = expr
        calls: list[cst.BaseExpression] = []
        contained = False  # inside a list, tuple, set or dict on the way up
        facts = self.facts
        while True:
            parent = facts.parent(node)
            if isinstance(parent, cst.Arg) and parent.value is node:
                call = facts.parent(parent)
                assert isinstance(call, cst.Call)
                if parent.star:
                    raise Failure("the chunk is unpacked into a call")
                if chain(call.func) is None:
                    raise Failure(
                        f"the chunk is passed to `{code(call.func)}`, which is not a plain name"
                    )
                if facts.is_builtin(call.func):
                    raise Failure(
                        f"the chunk is passed to the builtin `{code(call.func)}`, not sent"
                    )
                if facts.is_chunk_class(call.func) or _is_chunk_classmethod(facts, call.func):
                    raise Failure("the chunk is passed back into SessionMessageChunk")
                self._require_pure(call.args, skip=parent)
                calls.append(call.func)
                node = call
                continue
            if isinstance(parent, cst.Await):
                node = parent
                continue
            if isinstance(parent, cst.Element) and parent.value is node:
                container = facts.parent(parent)
                assert isinstance(container, cst.List | cst.Tuple | cst.Set)
                if len(container.elements) > 1:
                    # A copy of the send would send the other elements twice.
                    raise Failure(
                        "the chunk is sent together with other values in one "
                        f"{type(container).__name__.lower()}; send a SessionMessage upsert "
                        "for its message_id before that statement"
                    )
                node, contained = container, True
                continue
            if isinstance(parent, cst.DictElement) and parent.value is node:
                container = facts.parent(parent)
                assert isinstance(container, cst.Dict)
                self._require_pure(container.elements, skip=parent)
                if not is_pure(parent.key):
                    raise Failure("a key next to the chunk has side effects")
                node, contained = container, True
                continue
            if isinstance(parent, cst.Attribute) and parent.value is node:
                call = facts.parent(parent)
                if (
                    parent.attr.value in SERIALIZERS
                    and isinstance(call, cst.Call)
                    and call.func is parent
                ):
                    self._require_pure(call.args)
                    node = call
                    continue
                raise Failure(f"`.{parent.attr.value}` is taken from the chunk")
            if isinstance(parent, cst.Expr):
                if calls:
                    self._require_send(calls)
                    return Site("send", parent, root=parent.value, callees=tuple(calls))
                raise Failure("the chunk is evaluated and dropped")
            if isinstance(parent, cst.Yield) and parent.value is node and not calls:
                holder = facts.parent(parent)
                if isinstance(holder, cst.Expr) and isinstance(node, cst.BaseExpression):
                    return Site("yield", holder, root=node)
                raise Failure("the value of the yield is used")
            if isinstance(parent, cst.Assign | cst.AnnAssign | cst.Return) and parent.value is node:
                if calls and self._is_send(calls[-1]):
                    self._require_send(calls)
                    return Site("send", parent, root=parent.value, callees=tuple(calls))
                if calls:
                    # `note = Notification(update=chunk)`, `line = json.dumps(...)`: built,
                    # not sent here; a copy before it would be overwritten.
                    what = "returned" if isinstance(parent, cst.Return) else "assigned"
                    raise Failure(
                        f"the chunk is wrapped by `{code(calls[-1])}(...)` and {what}, not "
                        "sent here; send a SessionMessage upsert for its message_id before "
                        "the wrapped value is sent"
                    )
                if node is not expr and isinstance(node, cst.Call):
                    what = "returned" if isinstance(parent, cst.Return) else "assigned"
                    raise Failure(
                        f"the chunk is {what} serialised, so an upsert could not be sent the "
                        "same way; send a SessionMessage upsert for its message_id where the "
                        "serialised chunk is sent"
                    )
                if contained:
                    raise Failure("the chunk is put in a container that is not sent")
                if isinstance(parent, cst.Return):
                    return Site("return", parent)
                target = _single_name_target(parent)
                if target is None:
                    raise Failure("the chunk is assigned to something other than a plain name")
                return Site("assign", parent, target=target)
            kind = type(parent).__name__ if parent is not None else "nothing"
            raise Failure(f"the chunk is used inside a {kind} expression")

    def _require_send(self, calls: list[cst.BaseExpression]) -> None:
        """The outermost call must deliver in order; the ones below it only wrap the
        chunk (a bindings class, a JSON encoder)."""
        send = chain(calls[-1]) or ""
        if not self._is_send(calls[-1]):
            raise Failure(
                f"`{send}(...)` is not known to send what it is given, in order (it may "
                "store it); send a SessionMessage upsert for the chunk's message_id before it"
            )
        for wrapper in calls[:-1]:
            name = chain(wrapper) or ""
            if (
                name in ENCODERS
                or self.facts.from_bindings(wrapper)
                or self._is_pure_wrapper(wrapper)
            ):
                continue
            raise Failure(
                f"the chunk passes through `{name}(...)` before it is sent, which may do more "
                "than wrap it; send a SessionMessage upsert for its message_id before the send"
            )

    def _is_pure_wrapper(self, func: cst.BaseExpression) -> bool:
        """A module-level function of this module whose body only returns a side-effect
        free expression of its parameters (`def notify(sid, u): return {...}`)."""
        if not isinstance(func, cst.Name):
            return False
        assignment = self.facts.single_assignment(func)
        function = assignment.node if assignment is not None else None
        if not isinstance(function, cst.FunctionDef) or function.decorators:
            return False
        if not isinstance(self.facts.parent(function), cst.Module):
            return False
        body = function.body
        if not isinstance(body, cst.IndentedBlock):
            return False
        statements = [s for s in body.body if not is_docstring(s)]
        if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
            return False
        small = statements[0].body
        return (
            len(small) == 1
            and isinstance(small[0], cst.Return)
            and small[0].value is not None
            and is_pure(small[0].value)
        )

    def _is_send(self, func: cst.BaseExpression) -> bool:
        verb = (chain(func) or "").rpartition(".")[2].lstrip("_").lower()
        return verb.startswith(SEND_VERBS)

    def _require_pure(
        self,
        items: Iterable[cst.Arg | cst.BaseElement | cst.BaseDictElement],
        *,
        skip: cst.CSTNode | None = None,
    ) -> None:
        for item in items:
            if item is skip:
                continue
            values: list[cst.CSTNode] = [item.value]
            if isinstance(item, cst.DictElement):
                values.append(item.key)
            for value in values:
                if not is_pure(value):
                    raise Failure(
                        f"`{code(value)}` next to the chunk would run twice if the send were copied"
                    )
            if self._is_update(item.value):
                raise Failure(
                    f"`{code(item.value)}` is sent by the same call, and a copy of the send "
                    "would send it twice; send a SessionMessage upsert for the chunk's "
                    "message_id before that statement"
                )

    def _is_update(self, value: cst.BaseExpression) -> bool:
        """Whether `value` is (or names) another session update: a payload tagged with
        `sessionUpdate`, or a name the code shows holds a bindings model."""
        if isinstance(value, cst.Dict):
            return any(
                isinstance(e, cst.DictElement) and string_value(e.key) in TAG_KEYS
                for e in value.elements
            )
        if isinstance(value, cst.List | cst.Tuple | cst.Set):
            return any(
                isinstance(e, cst.Element) and self._is_update(e.value) for e in value.elements
            )
        if isinstance(value, cst.Name):
            fact = self.facts.fact(value)
            if fact.kind == "chunk":
                return True
            assigned = fact.value
            if isinstance(assigned, cst.Call):
                return self.facts.from_bindings(assigned.func)
            return isinstance(assigned, cst.Dict) and self._is_update(assigned)
        return False

    # --- placing a source --------------------------------------------------------------


def _single_name_target(statement: cst.Assign | cst.AnnAssign) -> cst.Name | None:
    if isinstance(statement, cst.AnnAssign):
        return statement.target if isinstance(statement.target, cst.Name) else None
    if len(statement.targets) == 1 and isinstance(statement.targets[0].target, cst.Name):
        return statement.targets[0].target
    return None


def _is_chunk_classmethod(facts: Facts, func: cst.BaseExpression) -> bool:
    return isinstance(func, cst.Attribute) and facts.is_chunk_class(func.value) is not None
