"""Where a chunk goes and where its upsert goes: the planning shared by the rules.

`Planner.place` follows a chunk-producing expression (a `Source`, recognised by a rule
module) to its statement: a send (any call whose other arguments are free of side
effects, so the call can be made twice), an assignment to a name that is then sent, a
yield, or a return from a helper. For a send it plans the same statement with the
upsert in place of the chunk, before the chunk's statement, or before the loops around
it when nothing the upsert reads changes in them. Everything is planned before anything
is committed: a chunk that cannot be handled at one of its uses is left alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import libcst as cst
from libcst.metadata import Assignment, Scope

from .acknowledge import NONE
from .bindings import IDENTITY_FIELDS, MESSAGE_CLASS
from .candidates import IMPORTED, MODULE_LEVEL, TAG_KEYS
from .facts import Facts
from .plan import (
    TODO_PREFIX,
    Applier,
    Build,
    Edit,
    Failure,
    HelperTemplate,
    Insertion,
    Plan,
    Source,
)
from .rules import Finding
from .syntax import chain, code, is_docstring, is_pure, read_chains, stores_in, string_value
from .upserts import message_ref, upsert_builder

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


@dataclass
class Placement:
    """The planned effect of migrating one source: all or nothing."""

    source: Source
    insertions: list[Insertion] = field(default_factory=list)
    edits: list[tuple[cst.CSTNode, Edit]] = field(default_factory=list)
    imports: set[tuple[str, str, str | None]] = field(default_factory=set)
    notes: list[tuple[cst.CSTNode, str]] = field(default_factory=list)
    # The return annotation of a generator that now also yields upserts, and its edit.
    widen: tuple[cst.CSTNode, Edit] | None = None
    returned_by: cst.FunctionDef | None = None


class Planner:
    """Decides every edit of one module. Rule modules supply the recognisers."""

    def __init__(
        self,
        facts: Facts,
        selected: frozenset[str],
        *,
        helpers: Mapping[str, HelperTemplate] | None = None,
        todo_comments: bool = False,
    ) -> None:
        self.facts = facts
        self.selected = selected
        self.helpers = dict(helpers or {})
        self.todo_comments = todo_comments
        self.plan = Plan()
        # Committed sources by the id of their node, for the read rule.
        self.committed: dict[int, Placement] = {}
        # Ids of the functions that name the chunk class or tag (0: module level).
        self.mentions: set[int] = set()
        self.repository_wide = False
        # Warnings a person marked as handled in place (`# acp-migrate: ok[RULE]`).
        self.acknowledged = NONE
        # Helpers of this module the run found a reason not to rewrite: name -> reason.
        self.refused: dict[str, str] = {}
        self._widened: set[int] = set()
        self._nonlocals: dict[int, set[str]] = {}  # function id -> names nested code rebinds

    def near_chunks(self, node: cst.CSTNode) -> bool:
        """Whether the module imports the chunk class, or the code around `node` (its
        functions, or the module level outside any) names it or its tag: where an object
        of unknown type is worth a warning."""
        if IMPORTED in self.mentions:
            return True
        functions = [a for a in self.facts.ancestors(node) if isinstance(a, cst.FunctionDef)]
        if not functions:
            return MODULE_LEVEL in self.mentions
        return any(id(function) in self.mentions for function in functions)

    # --- findings ----------------------------------------------------------------------

    def warn(self, node: cst.CSTNode, rule: str, message: str) -> None:
        line, column = self.facts.position(node)
        handled = self.acknowledged.covers(line, rule)
        self.plan.warned.append((node, rule, handled))
        if handled:
            self.plan.findings.append(Finding(line, column, rule, message, "acknowledged"))
            return
        self.plan.findings.append(Finding(line, column, rule, message, "warning"))
        if self.todo_comments:
            statement = self.facts.block_statement(node)
            if statement is not None:
                first = message.split("; ")[0].split(". ")[0].rstrip(".")
                todo = f"{TODO_PREFIX}: {rule}: {first}"
                self.plan.todos.setdefault(id(statement), []).append(todo)

    def changed(self, node: cst.CSTNode, rule: str, message: str) -> None:
        line, column = self.facts.position(node)
        self.plan.findings.append(Finding(line, column, rule, message, "change"))

    # --- sites -------------------------------------------------------------------------

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

    def place(self, source: Source) -> Placement:
        """Plan the migration of one source; raises Failure when it cannot be done."""
        facts = self.facts
        site = self.site(source.node)
        if site.kind == "return":
            function = facts.function_of(site.statement)
            if function is None:
                raise Failure("the chunk is returned from code that is not a function")
            placement = Placement(source, returned_by=function)
            self._strip(placement)
            return placement
        if site.kind == "assign":
            assert site.target is not None
            return self._place_assigned(source, site)
        if source.message_id is not None and not is_pure(source.message_id):
            # A copy would compute another ID: the upsert would name another message.
            raise Failure(
                f"the message id `{code(source.message_id)}` is computed where the chunk is "
                "built; bind it to a name first (`mid = ...`) and use that name in the chunk"
            )
        placement = Placement(source)
        ref, imports = message_ref(self.facts, source, site.statement)
        placement.imports |= imports
        self._insert_for(placement, site, source.node, upsert_builder(source, ref), ref)
        self._strip(placement)
        return placement

    def _strip(self, placement: Placement) -> None:
        placement.edits.extend(placement.source.strips)

    def _place_assigned(self, source: Source, site: Site) -> Placement:
        facts = self.facts
        target = site.target
        assert target is not None
        assignment = facts.assignment_of(target)
        if assignment is None:
            raise Failure(f"`{target.value}` cannot be followed")
        placement = Placement(source)
        ref, imports = message_ref(self.facts, source, site.statement)
        placement.imports |= imports
        sinks = 0
        for access in sorted(assignment.references, key=lambda a: facts.position(a.node)):
            name = access.node
            if not isinstance(name, cst.Name):
                raise Failure(f"`{target.value}` is used in a way that cannot be followed")
            if len(access.referents) != 1:
                raise Failure(f"`{target.value}` may hold another value where it is used")
            holder = facts.parent(name)
            call = facts.parent(holder) if isinstance(holder, cst.Arg) else None
            if isinstance(call, cst.Call) and facts.is_builtin(call.func):
                continue  # print(chunk), getattr(chunk, ...): not a send (reads: read rule)
            if isinstance(holder, cst.Attribute) and holder.value is name:
                attr = holder.attr.value
                if attr in IDENTITY_FIELDS or (
                    attr in BENIGN_ATTRIBUTES and attr not in SERIALIZERS
                ):
                    continue  # reads are the read rule's business
            use = self.site(name)
            if use.kind == "assign":
                raise Failure(f"`{target.value}` is assigned on to another name")
            if use.kind == "return":
                function = facts.function_of(use.statement)
                if function is None or function is not facts.function_of(site.statement):
                    raise Failure(f"`{target.value}` is returned from another function")
                placement.returned_by = function
                continue
            mid = self._stable_message_id(source, site.statement, use.statement, name)
            for field_name, value in source.identity.items():
                if not self.stable_between(site.statement, use.statement, value):
                    raise Failure(
                        f"`{code(value)}` ({field_name}) may change before `{target.value}` "
                        "is sent; bind it to a name that stays put"
                    )
            builder = upsert_builder(source, ref, message_id=mid)
            self._insert_for(placement, use, name, builder, ref)
            sinks += 1
        if not sinks and placement.returned_by is None:
            raise Failure(f"`{target.value}` is never sent where this rule can see it")
        self._strip(placement)
        return placement

    def _stable_message_id(
        self,
        source: Source,
        start: cst.CSTNode,
        end: cst.CSTNode,
        name: cst.Name,
    ) -> cst.BaseExpression | None:
        """None when the source's own message-id expression still holds at `end`, else
        `<name>.message_id`."""
        mid = source.message_id
        if source.template is None and mid is not None and self.stable_between(start, end, mid):
            return None
        if source.template is not None and all(
            self.stable_between(start, end, v) for v in source.bound.values()
        ):
            return None
        if source.style == "dict":
            item = source.layout_items.get("message_id")
            if not isinstance(item, cst.DictElement):
                raise Failure("the payload has no messageId entry")
            index = cst.SubscriptElement(cst.Index(item.key.deep_clone()))
            return cst.Subscript(value=cst.Name(name.value), slice=[index])
        return cst.Attribute(value=cst.Name(name.value), attr=cst.Name("message_id"))

    def stable_between(self, start: cst.CSTNode, end: cst.CSTNode, value: cst.CSTNode) -> bool:
        """Whether `value` (pure) evaluates the same at `end` as at `start` (statements of
        one function, `end` after `start` in the same block or nested below a later
        statement of that block)."""
        if not is_pure(value):
            return False
        facts = self.facts
        start_statement = facts.block_statement(start)
        if start_statement is None:
            return False
        block = facts.parent(start_statement)
        assert isinstance(block, cst.Module | cst.IndentedBlock)
        end_top = None
        for current in (end, *facts.ancestors(end)):
            if facts.parent(current) is block:
                end_top = current
                break
        if end_top is None:
            return False
        body: list[cst.CSTNode] = list(block.body)
        first, last = body.index(start_statement), body.index(end_top)
        if last < first:
            return False
        # What runs after `start` and before `end`: the rest of start's line, the
        # statements in between, and the statement around `end` (all of it: in a loop
        # its later part runs again before the next `end`).
        between = body[first + 1 : last]
        if end_top is not end:
            between.append(end_top)
        if isinstance(start, cst.BaseSmallStatement) and isinstance(
            start_statement, cst.SimpleStatementLine
        ):
            later = start_statement.body[start_statement.body.index(start) + 1 :]
            between = [*later, *between]
        stores = stores_in(between, skip=[end])
        return not any(stores.conflicts(read) for read in read_chains(value))

    def _insert_for(
        self,
        placement: Placement,
        site: Site,
        expr: cst.BaseExpression,
        builder: Build,
        ref: cst.BaseExpression,
    ) -> None:
        """Plan `site`'s upsert: the same send (or a yield) with the upsert for `expr`."""
        source = placement.source
        statement = site.statement
        if site.kind == "send":
            assert site.root is not None
            root = site.root

            def build(applier: Applier) -> cst.BaseSmallStatement:
                override = {id(expr): builder}
                value = root.visit(Applier(applier.plan, override))
                assert isinstance(value, cst.BaseExpression)
                return cst.Expr(value=value)

            values = read_chains(root, skip=expr)
        elif site.kind == "yield":
            assert site.root is not None
            yielded = site.root

            def build(applier: Applier) -> cst.BaseSmallStatement:
                # The yielded value copied with the upsert in place of the chunk, so a
                # serialised chunk (`.model_dump_json()`) gives a serialised upsert.
                value = yielded.visit(Applier(applier.plan, {id(expr): builder}))
                assert isinstance(value, cst.BaseExpression)
                return cst.Expr(value=cst.Yield(value=value))

            values = read_chains(yielded, skip=expr)
            if yielded is expr:
                self._widen_generator(placement, statement, ref)
        else:  # pragma: no cover - sites are filtered before
            raise Failure(f"cannot send from a {site.kind}")
        upsert_values = self._upsert_values(source)
        for value in upsert_values:
            values |= read_chains(value)
        callees = {c for callee in site.callees if (c := chain(callee)) is not None}
        copied = [site.root] if site.root is not None else []
        hold = None
        if not self._in_loop(statement):
            pass  # nothing to hoist out of
        elif not all(is_pure(v) for v in upsert_values):
            hold = "the upsert computes a value with a call, which must run once per chunk"
        elif self._reads_shared_state([*upsert_values, *copied], skip=expr, at=statement):
            hold = "shared"
        anchor, note = self._hoist(statement, values - callees, callees, hold)
        if note:
            placement.notes.append((statement, note))
        key = code(build(Applier(Plan())))
        if source.guard and self._already_sent(anchor, key):
            return
        placement.insertions.append(Insertion(anchor, build, key))

    def _upsert_values(self, source: Source) -> list[cst.CSTNode]:
        """The expressions the upsert evaluates: participant IDs, message ID, and the
        arguments bound to a helper's parameters."""
        values: list[cst.CSTNode] = list(source.identity.values())
        if source.message_id is not None:
            values.append(source.message_id)
        return values + list(source.bound.values())

    def _reads_shared_state(
        self, values: list[cst.CSTNode], *, skip: cst.CSTNode, at: cst.CSTNode
    ) -> bool:
        """Whether the upsert reads something a call could change without assigning it
        in the loop: an attribute, an item, a global, or a local that a nested function
        rebinds (`nonlocal`). Plain locals only change by statements the loop shows."""
        function = self.facts.function_of(at)
        scope = self.facts.scope(at)
        rebound: set[str] = set()
        if function is not None:
            if id(function) not in self._nonlocals:
                self._nonlocals[id(function)] = _nonlocal_names(function)
            rebound = self._nonlocals[id(function)]
        finder = _SharedReads(skip)
        for value in values:
            value.visit(finder)
        if finder.shared:
            return True
        for name in finder.names:
            if name in {"None", "True", "False"}:
                continue
            if function is None or scope is None or name not in scope.assignments:
                if scope is not None and self._module_constant(name, scope):
                    continue
                return True  # a global (or builtin): any call may rebind it
            if name in rebound:
                return True
        return False

    def _module_constant(self, name: str, scope: Scope) -> bool:
        """A module-level name bound once by a plain assignment and never again (no
        `global` statement rebinds it: that would be a second assignment here)."""
        found = list(scope.globals.assignments[name])
        if len(found) != 1 or not isinstance(found[0], Assignment):
            return False
        target = found[0].node
        holder = self.facts.parent(target)
        if isinstance(holder, cst.AssignTarget):
            holder = self.facts.parent(holder)
        if not isinstance(holder, cst.Assign | cst.AnnAssign):
            return False
        line = self.facts.parent(holder)
        return isinstance(line, cst.SimpleStatementLine) and isinstance(
            self.facts.parent(line), cst.Module
        )

    def _in_loop(self, node: cst.CSTNode) -> bool:
        for current in self.facts.ancestors(node):
            if isinstance(current, cst.For | cst.While):
                return True
            if isinstance(current, cst.FunctionDef | cst.Lambda | cst.ClassDef):
                return False
        return False

    def _loop_calls_others(self, loop: cst.CSTNode, callees: set[str]) -> str | None:
        """A call in `loop` other than the send itself, a bindings class or a builtin
        ("await" / "yield" when the loop suspends)."""
        finder = _CallFinder()
        loop.visit(finder)
        if finder.suspends:
            # Other code runs at an `await` or `yield` and may change it too.
            return "await" if finder.suspends == "await" else "yield"
        for call in finder.calls:
            func = call.func
            name = chain(func)
            if name is not None and name in callees:
                continue
            if self.facts.from_bindings(func) or self.facts.is_builtin(func):
                continue
            return code(func)
        return None

    def _hoist(
        self,
        statement: cst.BaseSmallStatement,
        values: set[str],
        callees: set[str],
        hold: str | None = None,
    ) -> tuple[cst.CSTNode, str | None]:
        """Where the upsert goes: before `statement`, or before the loops around it when
        nothing it reads changes inside them. Returns (anchor, why it was not hoisted)."""
        facts = self.facts
        holder = facts.parent(statement)
        if not isinstance(holder, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            return statement, None
        if len(holder.body) > 1:
            return statement, self._loop_note(statement)
        current: cst.CSTNode = holder
        anchor: cst.CSTNode = holder if isinstance(holder, cst.SimpleStatementLine) else statement
        note = None
        while True:
            owner: cst.CSTNode | None
            body: cst.CSTNode
            if isinstance(current, cst.SimpleStatementSuite):
                owner, body = facts.parent(current), current
            else:
                block = facts.parent(current)
                if not isinstance(block, cst.IndentedBlock):
                    break
                owner, body = facts.parent(block), block
                # Hoisting is safe only for statements that run on every pass: directly
                # in the loop body, with nothing before them that may `continue`.
                if isinstance(owner, cst.For | cst.While) and _may_skip(block, current):
                    note = "statements before it in the loop may skip it"
                    break
            if not (isinstance(owner, cst.For | cst.While) and owner.body is body):
                break
            if hold is not None and hold != "shared":
                note = hold
                break
            if hold == "shared":
                other = self._loop_calls_others(owner, callees)
                if other in ("await", "yield"):
                    note = (
                        f"other code runs at each `{other}` in the loop and may change what "
                        "the upsert reads (an attribute, an item or a global)"
                    )
                    break
                if other is not None:
                    note = (
                        f"the call `{other}(...)` inside the loop may change what the upsert "
                        "reads (an attribute, an item or a global)"
                    )
                    break
            stores = stores_in([owner])
            changing = sorted(v for v in values if stores.conflicts(v))
            # `for peer in peers: peer.session_update(...)`: the send's receiver changes.
            changing += sorted(c for c in callees if stores.rebinds(c))
            if changing:
                names = ", ".join(f"`{c}`" for c in changing)
                note = f"{names} changes inside the loop"
                break
            current = anchor = owner
        return anchor, note or self._loop_note(anchor)

    def _loop_note(self, anchor: cst.CSTNode) -> str | None:
        """Why an upsert placed at `anchor` inside a loop could not move out of it."""
        for current in self.facts.ancestors(anchor):
            if isinstance(current, cst.For | cst.While):
                return "it is not sent directly from the loop body (it is in a nested block)"
            if isinstance(current, cst.FunctionDef | cst.Lambda | cst.ClassDef):
                return None
        return None

    def _already_sent(self, anchor: cst.CSTNode, key: str) -> bool:
        """Whether the statement just before `anchor` already is this upsert."""
        holder = self.facts.parent(anchor)
        if holder is None:
            return False
        siblings: Sequence[cst.CSTNode]
        if isinstance(
            holder,
            cst.Module | cst.IndentedBlock | cst.SimpleStatementLine | cst.SimpleStatementSuite,
        ):
            siblings = holder.body
        else:
            return False
        index = list(siblings).index(anchor)
        if index == 0:
            return False
        previous = siblings[index - 1]
        if isinstance(previous, cst.SimpleStatementLine) and len(previous.body) == 1:
            previous = previous.body[0]
        if not isinstance(previous, cst.BaseSmallStatement):
            return False
        previous_code = code(previous.with_changes(semicolon=cst.MaybeSentinel.DEFAULT))
        return _normal(previous_code) == _normal(key)

    def _widen_generator(
        self, placement: Placement, statement: cst.CSTNode, ref: cst.BaseExpression
    ) -> None:
        function = self.facts.function_of(statement)
        if function is None or function.returns is None:
            return
        annotation = function.returns.annotation
        if not isinstance(annotation, cst.Subscript) or not annotation.slice:
            self._note_unwidened(placement, function)
            return
        element = annotation.slice[0].slice
        if not isinstance(element, cst.Index):
            self._note_unwidened(placement, function)
            return
        item = element.value
        members = _union_members(item)
        if any(self.facts.class_module(m, MESSAGE_CLASS) for m in members):
            return
        if any(self.facts.class_module(m, "SessionUpdate") for m in members):
            return
        if not any(self.facts.is_chunk_class(m) for m in members):
            self._note_unwidened(placement, function)
            return

        def widen(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.BaseExpression)
            return cst.BinaryOperation(
                left=updated,
                operator=cst.BitOr(),
                right=ref.deep_clone(),
            )

        placement.widen = (item, widen)

    def _note_unwidened(self, placement: Placement, function: cst.FunctionDef) -> None:
        placement.notes.append(
            (
                function,
                f"`{function.name.value}` now also yields SessionMessage upserts; "
                "its return annotation could not be widened automatically",
            )
        )

    # --- committing --------------------------------------------------------------------

    def commit(self, placement: Placement) -> None:
        source = placement.source
        for insertion in placement.insertions:
            # Chunks of one message sent in one loop share the upsert before it.
            planned = self.plan.inserts.setdefault(id(insertion.anchor), [])
            if all(other.key != insertion.key for other in planned):
                planned.append(insertion)
        for node, edit in placement.edits:
            self.plan.edit(node, edit)
        if placement.widen is not None and id(placement.widen[0]) not in self._widened:
            node, edit = placement.widen
            self._widened.add(id(node))
            self.plan.edit(node, edit)
            self.changed(node, source.rule, "the generator's element type now admits the upsert")
        for imported in placement.imports:
            self.plan.imports.add(imported)
        for node, note in placement.notes:
            self.warn(node, source.rule, f"{note}; sent the upsert before each chunk")
        self.committed[id(source.node)] = placement
        fields = ", ".join(f for f in IDENTITY_FIELDS if f in source.identity)
        if source.template is not None:
            if placement.insertions:
                helper = source.template.qualified_name.rpartition(".")[2]
                self.changed(
                    source.node,
                    source.rule,
                    f"sends {fields} in a SessionMessage upsert before the chunk from `{helper}`",
                )
        elif source.identity and placement.returned_by is not None and not placement.insertions:
            helper = placement.returned_by.name.value
            self.changed(
                source.node,
                source.rule,
                f"took {fields} out of the chunk `{helper}` returns; its calls send them "
                "in a SessionMessage upsert",
            )
        elif source.identity:
            upsert = (
                "a SessionMessage upsert"
                if source.style == "model"
                else "a session_message payload"
            )
            self.changed(source.node, source.rule, f"moved {fields} to {upsert}")
        else:
            self.changed(source.node, source.rule, "dropped participant IDs that were not set")
        for rule in source.changed_rules:
            if rule != source.rule:
                self.changed(source.node, rule, "removed identity builders from the chain")


class _SharedReads(cst.CSTVisitor):
    """Names read, and whether an attribute or item is read (callees of calls aside)."""

    def __init__(self, skip: cst.CSTNode) -> None:
        self.skip = skip
        self.names: set[str] = set()
        self.shared = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        if node is self.skip:
            return False
        return super().on_visit(node)

    def visit_Call(self, node: cst.Call) -> bool:
        for arg in node.args:
            arg.visit(self)
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.shared = True
        return False

    def visit_Subscript(self, node: cst.Subscript) -> bool:
        self.shared = True
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


class _CallFinder(cst.CSTVisitor):
    """Calls in a subtree, and whether it suspends (`await`, `yield`: other code runs)."""

    def __init__(self) -> None:
        self.calls: list[cst.Call] = []
        self.suspends: str | None = None

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)

    def visit_Await(self, node: cst.Await) -> None:
        self.suspends = self.suspends or "await"

    def visit_Yield(self, node: cst.Yield) -> None:
        self.suspends = self.suspends or "yield"

    def visit_For(self, node: cst.For) -> None:
        if node.asynchronous is not None:
            self.suspends = self.suspends or "await"

    def visit_With(self, node: cst.With) -> None:
        if node.asynchronous is not None:
            self.suspends = self.suspends or "await"


class _NonlocalFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: set[str] = set()

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.found.update(n.name.value for n in node.names)


def _nonlocal_names(function: cst.FunctionDef) -> set[str]:
    """Names that functions nested in `function` rebind with `nonlocal`."""
    finder = _NonlocalFinder()
    function.visit(finder)
    return finder.found


def _normal(text: str) -> str:
    return "".join(text.split())


def _single_name_target(statement: cst.Assign | cst.AnnAssign) -> cst.Name | None:
    if isinstance(statement, cst.AnnAssign):
        return statement.target if isinstance(statement.target, cst.Name) else None
    if len(statement.targets) == 1 and isinstance(statement.targets[0].target, cst.Name):
        return statement.targets[0].target
    return None


def _is_chunk_classmethod(facts: Facts, func: cst.BaseExpression) -> bool:
    return isinstance(func, cst.Attribute) and facts.is_chunk_class(func.value) is not None


def _union_members(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
        return [*_union_members(node.left), *_union_members(node.right)]
    return [node]


def _may_skip(block: cst.IndentedBlock, statement: cst.CSTNode) -> bool:
    """Whether a statement before `statement` in a loop body may `continue` or `break`."""
    index = list(block.body).index(statement)  # type: ignore[arg-type]
    finder = _JumpFinder()
    for earlier in block.body[:index]:
        earlier.visit(finder)
    return finder.found


class _JumpFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Continue(self, node: cst.Continue) -> None:
        self.found = True

    def visit_Break(self, node: cst.Break) -> None:
        self.found = True

    def visit_Return(self, node: cst.Return) -> None:
        self.found = True

    def visit_Raise(self, node: cst.Raise) -> None:
        self.found = True

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_For(self, node: cst.For) -> bool:
        return False  # jumps inside an inner loop stay there

    def visit_While(self, node: cst.While) -> bool:
        return False
