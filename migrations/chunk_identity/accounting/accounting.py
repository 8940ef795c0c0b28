"""Every occurrence of the removed API ends in exactly one verdict.

`occurrences.scan` lists them from the tokens; here each gets:

- **changed**: it lies in code a rule rewrote (the smallest edited or reported node
  holding it decides);
- **reported**: it lies in code a rule reported, or no rule accounts for it and the code
  does not show it is unrelated: then it is reported here, at its own line, under rule
  `chunk-identity/occurrence` (acknowledged like any warning);
- **unrelated**: the code shows it has nothing to do with a chunk, and the evidence says
  how: a keyword of a class that is not the chunk (`SessionMessage(...)`, an application
  class), an attribute of a value typed, narrowed or built as another class, a field or
  method of a class that is not a chunk, a key of a payload tagged with another kind, a
  variable or parameter of that name, prose in a string or a docstring.

The file's reach (whether it can touch a chunk at all) is decided by the runner: a file
the prefilter skips gets `unrelated` for all its occurrences (see `runner`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import libcst as cst
from libcst.metadata import CodeRange, PositionProvider

from acp_schema.migrations.chunk_identity import rule_ids as rules
from acp_schema.migrations.chunk_identity.accounting.occurrence_nodes import (
    NodeIndex,
    Position,
    pos,
    tagged_call,
)
from acp_schema.migrations.chunk_identity.accounting.occurrences import REMOVED_NAMES, Occurrence
from acp_schema.migrations.chunk_identity.candidates import TAG_KEYS
from acp_schema.migrations.chunk_identity.planning.plan import TODO_PREFIX, Plan
from acp_schema.migrations.framework.acknowledge import Acknowledgements
from acp_schema.migrations.framework.examples import Invalid, Valid
from acp_schema.migrations.framework.findings import Finding
from acp_schema.migrations.framework.syntax import chain, code, is_docstring, string_value
from acp_schema.migrations.resolution.bindings import CHUNK_TAG
from acp_schema.migrations.resolution.facts import Facts

Verdict = Literal["changed", "unrelated", "reported", "unchecked"]

# Methods that take field names as a mapping or as strings.
FIELD_SETTERS = frozenset({"model_copy", "copy", "update", "model_validate", "model_construct"})
NAME_READERS = frozenset({"getattr", "hasattr", "setattr", "delattr", "attrgetter"})
FAR = (
    "far from any chunk: no chunk class, re-export of one or chunk tag in its function, "
    "and the module imports no chunk class"
)
STEP = (
    "if the value is a SessionMessageChunk, its participant IDs now travel on a "
    "SessionMessage upsert for the same message_id; fix it, or acknowledge it with "
    "`# acp-migrate: ok[chunk-identity/occurrence]`"
)


@dataclass(frozen=True)
class Account:
    """One occurrence and its verdict."""

    occurrence: Occurrence
    verdict: Verdict
    rule: str | None = None
    evidence: str = ""
    acknowledged: bool = False

    def as_dict(self) -> dict[str, Any]:
        o = self.occurrence
        data: dict[str, Any] = {
            "line": o.line,
            "column": o.column,
            "name": o.name,
            "verdict": self.verdict,
        }
        if o.in_string:
            data["rank"] = o.rank
        if self.rule:
            data["rule"] = self.rule
        if self.evidence:
            data["evidence"] = self.evidence
        if self.acknowledged:
            data["acknowledged"] = True
        return data


def unrelated_by_reach(found: Iterable[Occurrence], why: str) -> list[Account]:
    return [Account(o, "unrelated", evidence=why) for o in found]


@dataclass(frozen=True)
class _Span:
    start: Position
    end: Position
    verdict: Verdict
    rule: str | None
    acknowledged: bool

    def holds(self, where: Position) -> bool:
        return self.start <= where < self.end

    @property
    def size(self) -> tuple[int, int]:
        return (self.end[0] - self.start[0], self.end[1] - self.start[1])


class Accountant:
    """Gives each occurrence of one module its verdict (see the module docstring)."""

    def __init__(
        self,
        facts: Facts,
        plan: Plan,
        acknowledged: Acknowledgements,
        near: Callable[[cst.CSTNode], bool],
        *,
        report: bool = True,
        todo_comments: bool = False,
    ) -> None:
        self.near = near
        self.todo_comments = todo_comments
        self.facts = facts
        self.plan = plan
        self.acknowledged = acknowledged
        self.report = report
        self.findings: list[Finding] = []
        self.spans: list[_Span] = []
        self.nodes: NodeIndex | None = None

    def _range(self, node: cst.CSTNode) -> CodeRange | None:
        where: CodeRange | None = self.facts._get(PositionProvider, node)
        return where

    def _spans(self) -> Iterator[_Span]:
        for node in self.plan.edited.values():
            where = self._range(node)
            if where is not None:
                yield _Span(pos(where.start), pos(where.end), "changed", None, False)
        for node, rule, acknowledged in self.plan.warned:
            where = self._range(node)
            if where is not None:
                yield _Span(pos(where.start), pos(where.end), "reported", rule, acknowledged)

    def account(self, found: Iterable[Occurrence]) -> list[Account]:
        occurrences = list(found)
        if not occurrences:
            return []
        self.spans = [*self._spans()]
        self.nodes = NodeIndex(self.facts, {(o.line, o.column) for o in occurrences})
        return [self._one(o) for o in occurrences]

    @property
    def index(self) -> NodeIndex:
        assert self.nodes is not None, "account() builds the index"
        return self.nodes

    def _one(self, occurrence: Occurrence) -> Account:
        node = self.index.node_for(occurrence)
        where = (occurrence.line, occurrence.column)
        if node is not None and occurrence.in_string:
            where = self.index.inner_position(node, occurrence) or where
        holding = [s for s in self.spans if s.holds(where)]
        if holding:
            span = min(holding, key=lambda s: s.size)
            return Account(occurrence, span.verdict, span.rule, "", span.acknowledged)
        if node is None:
            return self._reported(occurrence, "not in any code the rules read", None)
        if isinstance(node, cst.Name):
            owner = self._class_of_member(node)
            if owner is not None and self._is_declared_chunk(owner):
                # Reported where the class is declared (rule old-bindings).
                line, _ = self.facts.position(owner)
                handled = self.acknowledged.covers(line, rules.OLD_BINDINGS)
                return Account(occurrence, "reported", rules.OLD_BINDINGS, "", handled)
        evidence, problem = self._classify(node, occurrence)
        if evidence is not None:
            return Account(occurrence, "unrelated", evidence=evidence)
        if not (self.near(node) or self.index.reaches_beyond_facts):
            return Account(occurrence, "unrelated", evidence=FAR)
        return self._reported(occurrence, problem or "a use of a removed name", node)

    def _reported(self, occurrence: Occurrence, problem: str, node: cst.CSTNode | None) -> Account:
        if not self.report:
            return Account(occurrence, "unchecked")
        rule = rules.OCCURRENCE
        handled = self.acknowledged.covers(occurrence.line, rule)
        message = f"`{occurrence.name}` here: {problem}; {STEP}"
        statement = self.facts.block_statement(node) if node is not None else None
        if self.todo_comments and not handled and statement is not None:
            todo = f"{TODO_PREFIX}: {rule}: `{occurrence.name}` here: {problem}"
            todos = self.plan.todos.setdefault(id(statement), [])
            if todo not in todos:
                todos.append(todo)
        self.findings.append(
            Finding(
                occurrence.line,
                occurrence.column,
                rule,
                message,
                "acknowledged" if handled else "warning",
            )
        )
        return Account(occurrence, "reported", rule, "", handled)

    # --- the code's evidence -----------------------------------------------------------

    def _classify(self, node: cst.CSTNode, occurrence: Occurrence) -> tuple[str | None, str]:
        """(evidence that it is unrelated, or None with what the problem is)."""
        if occurrence.in_string:
            inner = self.index.inner_node(node, occurrence)
            if isinstance(inner, cst.Name):
                return self._name(inner)
            if inner is not None:
                return self._string(inner, occurrence.name)
            return "text in an f-string, not a key or a name", ""
        assert isinstance(node, cst.Name)
        return self._name(node)

    def _name(self, name: cst.Name) -> tuple[str | None, str]:
        facts = self.facts
        parent = facts.parent(name)
        if isinstance(parent, cst.Attribute) and parent.attr is name:
            return self._attribute(parent)
        if isinstance(parent, cst.Arg) and parent.keyword is name:
            call = facts.parent(parent)
            if isinstance(call, cst.Call):
                return self._keyword(call)
            return None, "a keyword of something that may build a chunk"
        if isinstance(parent, cst.Param) and parent.name is name:
            return "a parameter of that name: a local value, not a chunk field", ""
        owner = self._class_of_member(name)
        if owner is not None:
            if self._is_chunk_class_def(owner):
                return None, f"the chunk class `{owner.name.value}` still declares it"
            if owner.name.value in self.index.chunk_built:
                return None, f"`{owner.name.value}` is built as a chunk payload and declares it"
            return f"a member of class `{owner.name.value}`, which is not a chunk", ""
        if isinstance(parent, cst.MatchKeywordElement):
            pattern = facts.parent(parent)
            if isinstance(pattern, cst.MatchClass) and facts.names_other_class(pattern.cls):
                return f"a pattern of `{code(pattern.cls)}`, which is not a chunk", ""
            return None, "a class pattern that may match a chunk"
        if isinstance(parent, cst.ImportAlias | cst.Attribute):
            return None, "an import of a removed name"
        if isinstance(parent, cst.FunctionDef):
            return "a function of that name, not a chunk's method", ""
        return "a variable of that name: a local value, not a chunk field", ""

    def _attribute(self, attribute: cst.Attribute) -> tuple[str | None, str]:
        obj = attribute.value
        if self.facts.fact(obj).kind == "other":
            return (
                f"`{code(obj)}` is shown not to be a chunk (annotation, isinstance, "
                "constructor or self)",
                "",
            )
        return (
            None,
            f"cannot tell whether `{code(obj)}` is a SessionMessageChunk",
        )

    def _keyword(self, call: cst.Call) -> tuple[str | None, str]:
        func = call.func
        if self.facts.is_chunk_class(func):
            return None, "a chunk built with a field it no longer has"
        if tagged_call(call) == CHUNK_TAG:
            return None, f"`{code(func)}(...)` builds a chunk payload (its tag says so)"
        if isinstance(func, cst.Name):
            assignment = self.facts.single_assignment(func)
            if isinstance(getattr(assignment, "node", None), cst.ClassDef):
                assert assignment is not None and isinstance(assignment.node, cst.ClassDef)
                if self.facts.subclasses_chunk(assignment.node):
                    return None, f"`{func.value}` subclasses SessionMessageChunk"
        if chain(func) is not None and self.facts.names_other_class(func):
            return f"a keyword of `{code(func)}(...)`, which is not a chunk", ""
        if isinstance(func, cst.Attribute) and func.attr.value in FIELD_SETTERS:
            return self._on_receiver(func.value, f"`.{func.attr.value}(...)` on")
        return None, f"cannot tell whether `{code(func)}(...)` builds a chunk"

    def _on_receiver(self, obj: cst.BaseExpression, what: str) -> tuple[str | None, str]:
        if self.facts.fact(obj).kind == "other":
            return f"{what} `{code(obj)}`, which is shown not to be a chunk", ""
        return None, f"{what} `{code(obj)}`, which may be a chunk"

    def _string(self, node: cst.CSTNode, name: str) -> tuple[str | None, str]:
        facts = self.facts
        statement = facts.parent(facts.parent(node) or node)
        if isinstance(statement, cst.SimpleStatementLine) and is_docstring(statement):
            return "documentation (a docstring)", ""
        if string_value(node) not in REMOVED_NAMES:
            holder = facts.parent(node)
            if isinstance(holder, cst.ConcatenatedString) and string_value(holder) in REMOVED_NAMES:
                node = holder
            else:
                return "text in a string, not a key or a name", ""
        holder = facts.parent(node)
        if isinstance(holder, cst.DictElement) and holder.key is node:
            payload = facts.parent(holder)
            if isinstance(payload, cst.Dict):
                return self._payload_key(payload)
        if isinstance(holder, cst.MatchMappingElement) and holder.key is node:
            mapping = facts.parent(holder)
            if isinstance(mapping, cst.MatchMapping):
                tag = _tag_of(
                    (e.key, e.pattern.value if isinstance(e.pattern, cst.MatchValue) else None)
                    for e in mapping.elements
                )
                if tag is not None and tag != CHUNK_TAG:
                    return f"a key of a `{tag}` pattern, not a chunk", ""
            return None, "a mapping pattern that may match a chunk payload"
        if isinstance(holder, cst.Index):
            subscript = facts.parent(facts.parent(holder) or holder)
            if isinstance(subscript, cst.Subscript):
                return self._on_receiver(subscript.value, "an index into")
        if isinstance(holder, cst.Arg):
            call = facts.parent(holder)
            if isinstance(call, cst.Call):
                called = chain(call.func) or ""
                if called.rpartition(".")[2] in NAME_READERS and call.args:
                    if called.endswith("attrgetter"):
                        return None, "a field getter that may be used on chunks"
                    return self._on_receiver(call.args[0].value, f"`{called}(...)` on")
                if isinstance(call.func, cst.Attribute) and call.func.attr.value == "get":
                    return self._on_receiver(call.func.value, "a lookup in")
        return None, "the name of a removed field as a string value"

    def _payload_key(self, payload: cst.Dict) -> tuple[str | None, str]:
        tag = _tag_of((e.key, e.value) for e in payload.elements if isinstance(e, cst.DictElement))
        if tag is not None and tag != CHUNK_TAG:
            return f"a key of a `{tag}` payload, not a chunk", ""
        holder = self.facts.parent(payload)
        if isinstance(holder, cst.IfExp) and _excludes_chunks(holder, payload):
            return "only used for kinds other than session_message_chunk (the test says so)", ""
        if isinstance(holder, cst.Arg):
            call = self.facts.parent(holder)
            if (
                isinstance(call, cst.Call)
                and isinstance(call.func, cst.Attribute)
                and call.func.attr.value in FIELD_SETTERS
            ):
                return self._on_receiver(call.func.value, f"`.{call.func.attr.value}(...)` on")
        return None, "a payload without a tag this run can read, which may be a chunk"

    def _class_of_member(self, name: cst.Name) -> cst.ClassDef | None:
        """The class whose body declares `name` (a field or a method)."""
        facts = self.facts
        parent = facts.parent(name)
        if isinstance(parent, cst.FunctionDef) and parent.name is name:
            statement: cst.CSTNode | None = parent
        elif isinstance(parent, cst.AnnAssign) and parent.target is name:
            statement = facts.parent(parent)
        elif isinstance(parent, cst.AssignTarget) and parent.target is name:
            statement = facts.parent(facts.parent(parent) or parent)
        else:
            return None
        block = facts.parent(statement) if statement is not None else None
        owner = facts.parent(block) if block is not None else None
        return owner if isinstance(owner, cst.ClassDef) else None

    def _is_declared_chunk(self, node: cst.ClassDef) -> bool:
        """An old chunk class the run found declared here (rule old-bindings)."""
        module = self.facts.module_name
        qualified = f"{module}.{node.name.value}"
        return module is not None and self.facts.bindings.old_chunk_module(qualified) is not None

    def _is_chunk_class_def(self, node: cst.ClassDef) -> bool:
        return self._is_declared_chunk(node) or self.facts.subclasses_chunk(node)


def _tag_of(
    items: Iterable[tuple[cst.BaseExpression | None, cst.BaseExpression | None]],
) -> str | None:
    for key, value in items:
        if key is not None and string_value(key) in TAG_KEYS and value is not None:
            return string_value(value)
    return None


def _excludes_chunks(choice: cst.IfExp, branch: cst.CSTNode) -> bool:
    """`a if kind == "session_message_chunk" else branch` (or `!=` and the body)."""
    test = choice.test
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    tags = {string_value(test.left), string_value(target.comparator)}
    if CHUNK_TAG not in tags:
        return False
    if isinstance(target.operator, cst.Equal | cst.Is):
        return branch is choice.orelse
    if isinstance(target.operator, cst.NotEqual | cst.IsNot):
        return branch is choice.body
    return False


# Examples of rule chunk-identity/occurrence (Fixit style): its documentation and tests.
EXAMPLES = (
    Valid(
        """
        from dataclasses import dataclass
        from acp_schema.v2 import SessionMessageChunk

        @dataclass
        class MessageEvent:
            sender_session_id: str

        def senders(events: list[object]) -> list[str]:
            return [e.sender_session_id for e in events if isinstance(e, MessageEvent)]
        """,
        why="a field of the application's own class, read where isinstance shows it",
    ),
    Valid(
        """
        def audit(record):
            return record.sender_session_id
        """,
        why="the module reaches no chunk",
    ),
    Invalid(
        """
        from acp_schema.v2 import SessionMessageChunk

        def retag(chunk: SessionMessageChunk, me: str) -> SessionMessageChunk:
            return chunk.model_copy(update={"sender_session_id": me})
        """,
        lines=(4,),
        why="model_copy sets a field the chunk no longer has; no other rule sees it",
    ),
    Invalid(
        """
        from app.facade import SessionMessageChunk

        def build(mid, me, block):
            return SessionMessageChunk(message_id=mid, content=block, sender_session_id=me)
        """,
        lines=(4,),
        why="a chunk name that does not resolve to the bindings (a facade): may be the chunk",
    ),
)
