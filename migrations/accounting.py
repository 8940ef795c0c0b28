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

from . import rules
from .acknowledge import Acknowledgements
from .bindings import CHUNK_CLASS, CHUNK_TAG
from .candidates import TAG_KEYS
from .examples import Invalid, Valid
from .facts import Facts
from .occurrences import REMOVED_NAMES, Occurrence, names_in_text
from .plan import TODO_PREFIX, Plan
from .rules import Finding
from .syntax import chain, code, is_docstring, string_value

Verdict = Literal["changed", "unrelated", "reported", "unchecked"]
Position = tuple[int, int]

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
        self.nodes: _NodeIndex | None = None

    def _range(self, node: cst.CSTNode) -> CodeRange | None:
        where: CodeRange | None = self.facts._get(PositionProvider, node)
        return where

    def _spans(self) -> Iterator[_Span]:
        for node in self.plan.edited.values():
            where = self._range(node)
            if where is not None:
                yield _Span(_pos(where.start), _pos(where.end), "changed", None, False)
        for node, rule, acknowledged in self.plan.warned:
            where = self._range(node)
            if where is not None:
                yield _Span(_pos(where.start), _pos(where.end), "reported", rule, acknowledged)

    def account(self, found: Iterable[Occurrence]) -> list[Account]:
        occurrences = list(found)
        if not occurrences:
            return []
        self.spans = [*self._spans()]
        self.nodes = _NodeIndex(self.facts, {(o.line, o.column) for o in occurrences})
        return [self._one(o) for o in occurrences]

    @property
    def index(self) -> _NodeIndex:
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
        if _tagged_call(call) == CHUNK_TAG:
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


def _tagged_call(call: cst.Call) -> str | None:
    """The tag a call passes as `sessionUpdate=` / `session_update=`."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in TAG_KEYS:
            return string_value(arg.value)
    return None


def _pos(where: Any) -> Position:
    return (where.line, where.column)


class _NodeIndex:
    """The nodes the occurrences start at (names outside strings, top-level string
    literals), and what the module shows about chunks beyond the rules' facts. Read from
    the position metadata already computed, not by another walk of the tree."""

    def __init__(self, facts: Facts, wanted: set[Position]) -> None:
        self.facts = facts
        self.names: dict[Position, cst.Name] = {}
        self.strings: dict[Position, cst.CSTNode] = {}
        # Names of classes called with the chunk tag (`Payload(sessionUpdate=...)`).
        self.chunk_built: set[str] = set()
        # The module reaches a chunk in ways the planner's facts do not resolve (a chunk
        # name from elsewhere, a star import of the bindings, a tag constant, a subclass).
        self.reaches_beyond_facts = False
        for node, where in facts.positions().items():
            if isinstance(node, cst.Name):
                self._name(node, where)
            elif isinstance(node, cst.SimpleString | cst.FormattedString):
                start = _pos(where.start)
                if start in wanted and not self._in_fstring(node):
                    self.strings[start] = node
            elif isinstance(node, cst.Call):
                if isinstance(node.func, cst.Name) and _tagged_call(node) == CHUNK_TAG:
                    self.chunk_built.add(node.func.value)
            elif isinstance(node, cst.ImportFrom):
                self._star(node)

    def _name(self, node: cst.Name, where: CodeRange) -> None:
        if node.value in REMOVED_NAMES:
            start = _pos(where.start)
            if not self._in_fstring(node):
                self.names[start] = node
        elif node.value in self.facts.bindings.tag_constants:
            # A constant of the run holding the chunk tag, or a subclass of the chunk.
            self.reaches_beyond_facts = True
        elif node.value == CHUNK_CLASS and not self.facts.is_chunk_class(node):
            # `SessionMessageChunk` that does not resolve to the bindings: a facade, a
            # star import, a package this run cannot see. It may well be the chunk.
            holder = self.facts.parent(node)
            if not isinstance(holder, cst.ClassDef | cst.Attribute) or (
                isinstance(holder, cst.Attribute) and holder.attr is node
            ):
                self.reaches_beyond_facts = True

    def _star(self, node: cst.ImportFrom) -> None:
        # A star import of the bindings: what it brings cannot be resolved by name.
        if isinstance(node.names, cst.ImportStar) and node.module is not None:
            module = code(node.module)
            bindings = self.facts.bindings
            if bindings.owner(module) or any(m == module for _, m in bindings.chunk_classes):
                self.reaches_beyond_facts = True

    def _in_fstring(self, node: cst.CSTNode) -> bool:
        """Inside an f-string, whose whole text is the occurrence's literal."""
        for current in self.facts.ancestors(node):
            if isinstance(current, cst.FormattedString):
                return True
            if isinstance(current, cst.BaseStatement):
                return False
        return False

    def node_for(self, occurrence: Occurrence) -> cst.CSTNode | None:
        where = (occurrence.line, occurrence.column)
        if occurrence.in_string:
            return self.strings.get(where)
        return self.names.get(where)

    def inner_node(self, node: cst.CSTNode, occurrence: Occurrence) -> cst.CSTNode | None:
        """The node inside a string literal the occurrence is: the literal itself, or
        for an f-string the name or string of a replacement field (None: its text)."""
        if not isinstance(node, cst.FormattedString):
            return node
        seen = 0
        for part, inner in _fstring_parts(node):
            count = len(names_in_text(code(part) if inner is None else _text(inner)))
            if seen + count > occurrence.rank:
                return inner
            seen += count
        return None

    def inner_position(self, node: cst.CSTNode, occurrence: Occurrence) -> Position | None:
        inner = self.inner_node(node, occurrence)
        if inner is None or inner is node:
            return None
        return self.facts.position(inner)


def _fstring_parts(node: cst.FormattedString) -> Iterator[tuple[cst.CSTNode, cst.CSTNode | None]]:
    """(part, the node an occurrence in it is) in source order; None for text."""
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            yield part, None
            continue
        for inner in _occurrence_nodes(part):
            yield inner, inner


def _occurrence_nodes(node: cst.CSTNode) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []

    class Finder(cst.CSTVisitor):
        def visit_Name(self, name: cst.Name) -> None:
            if name.value in REMOVED_NAMES:
                found.append(name)

        def visit_SimpleString(self, string: cst.SimpleString) -> None:
            if names_in_text(string.value):
                found.append(string)

        def visit_FormattedString(self, string: cst.FormattedString) -> bool:
            if names_in_text(code(string)):
                found.append(string)
            return False

    node.visit(Finder())
    return found


def _text(node: cst.CSTNode) -> str:
    return node.value if isinstance(node, cst.Name) else code(node)


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
