"""What a migration decides for one module, and how those decisions are applied.

The planner reads a module and records edits keyed by its original nodes; the applier
then rewrites the tree in one pass, applying each edit to the updated node, so edits
nested inside each other (a rewritten read inside a moved value) compose. Statements are
inserted before a statement of a block (or of a one-line statement list), never
removed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import libcst as cst

from acp_schema.migrations.framework.findings import Finding
from acp_schema.migrations.framework.imports import add_from_imports

TODO_PREFIX = "# TODO(acp-schema migrate)"

Edit = Callable[[cst.CSTNode], cst.CSTNode]
Build = Callable[["Applier"], cst.BaseExpression]


@dataclass(frozen=True)
class Param:
    name: str
    kind: Literal["positional", "any", "keyword"]
    default: str | None = None


@dataclass(frozen=True)
class HelperTemplate:
    """How to build the upsert for a call of a helper that returned chunks with identity.

    Plain data (code strings), so that it can cross process boundaries: the CLI collects
    the templates of a whole repository and hands them to the runs of other modules.
    """

    qualified_name: str
    params: tuple[Param, ...]
    style: Literal["model", "dict"]
    module: str | None  # bindings module of SessionMessage, model style
    message_id: str
    identity: tuple[tuple[str, str], ...]  # (field, value code)
    keys: tuple[tuple[str, str], ...] = ()  # dict style: ("tag"|"message_id"|field, key code)
    kind_param: str | None = None  # dict helpers whose `sessionUpdate` is a parameter


@dataclass
class Source:
    """An expression that produces a chunk carrying participant IDs."""

    node: cst.BaseExpression
    rule: str
    style: Literal["model", "dict"]
    module: str | None
    class_ref: cst.BaseExpression | None
    message_id: cst.BaseExpression | None
    identity: dict[str, cst.BaseExpression]
    # The original constructor call or dict whose layout the upsert copies.
    layout: cst.Call | cst.Dict | None = None
    layout_items: dict[str, cst.Arg | cst.DictElement] = field(default_factory=dict)
    # For a call of a helper: the helper's template and the argument bindings.
    template: HelperTemplate | None = None
    bound: dict[str, cst.BaseExpression] = field(default_factory=dict)
    # An upsert may already precede the send (helpers left unchanged): check first.
    guard: bool = False
    changed_rules: tuple[str, ...] = ()
    # Edits that take the participant IDs out of the chunk expression.
    strips: list[tuple[cst.CSTNode, Edit]] = field(default_factory=list)


@dataclass
class Insertion:
    anchor: cst.CSTNode  # a statement in a block, or a small statement in a line
    build: Callable[[Applier], cst.BaseSmallStatement]
    key: str


@dataclass
class Plan:
    edits: dict[int, Edit] = field(default_factory=dict)
    inserts: dict[int, list[Insertion]] = field(default_factory=dict)
    todos: dict[int, list[str]] = field(default_factory=dict)
    imports: set[tuple[str, str, str | None]] = field(default_factory=set)
    findings: list[Finding] = field(default_factory=list)
    exported: list[HelperTemplate] = field(default_factory=list)
    # Helpers of the run (qualified names) that got an upsert at a call here, and those
    # with a use here that cannot get one (with why): the runner leaves those alone.
    called: set[str] = field(default_factory=set)
    blocked: dict[str, str] = field(default_factory=dict)
    # For the occurrence accounting: the nodes edited, and those reported (with the
    # rule and whether a comment acknowledges it).
    edited: dict[int, cst.CSTNode] = field(default_factory=dict)
    warned: list[tuple[cst.CSTNode, str, bool]] = field(default_factory=list)

    def edit(self, node: cst.CSTNode, edit: Edit) -> None:
        self.edited[id(node)] = node
        previous = self.edits.get(id(node))
        if previous is None:
            self.edits[id(node)] = edit
        else:
            self.edits[id(node)] = lambda updated: edit(previous(updated))

    @property
    def changes_tree(self) -> bool:
        return bool(self.edits or self.inserts or self.todos)


class Failure(Exception):
    """A chunk that cannot be migrated where it is; the message says why, for a person."""


GENERIC_STEP = (
    "send a SessionMessage upsert with the participant IDs for its message_id before the "
    "chunk is sent, then drop them from the chunk"
)


def with_next_step(message: str, step: str = GENERIC_STEP) -> str:
    """`message` ending in what a person should do next (unless it already says)."""
    if any(hint in message for hint in ("SessionMessage upsert", "bind it", "pass it")):
        return message
    return f"{message}; {step}"


# --- applying a plan ---------------------------------------------------------------------


class Applier(cst.CSTTransformer):
    """Applies a plan; `override` replaces given original nodes (for copies of a send)."""

    def __init__(self, plan: Plan, override: Mapping[int, Build] | None = None) -> None:
        super().__init__()
        self.plan = plan
        self.override = override or {}

    def plain(self) -> Applier:
        return Applier(self.plan)

    # Edits may change a node's type (a call becomes its receiver), which the generic
    # signature of CSTTransformer.on_leave cannot express.
    def on_leave(  # type: ignore[override]
        self, original_node: cst.CSTNode, updated_node: cst.CSTNode
    ) -> cst.CSTNode:
        build = self.override.get(id(original_node))
        if build is not None:
            return build(self.plain())
        edit = self.plan.edits.get(id(original_node))
        result = edit(updated_node) if edit is not None else updated_node
        if isinstance(original_node, cst.Module | cst.IndentedBlock):
            assert isinstance(result, cst.Module | cst.IndentedBlock)
            result = self._insert_lines(original_node, result)
            if isinstance(result, cst.Module) and self.plan.imports:
                result = add_from_imports(result, self.plan.imports)
            return result
        if isinstance(original_node, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            assert isinstance(result, cst.SimpleStatementLine | cst.SimpleStatementSuite)
            return self._insert_small(original_node, result)
        return result

    def _insert_lines(
        self,
        original: cst.Module | cst.IndentedBlock,
        updated: cst.Module | cst.IndentedBlock,
    ) -> cst.Module | cst.IndentedBlock:
        if not any(id(s) in self.plan.inserts or id(s) in self.plan.todos for s in original.body):
            return updated
        body: list[cst.BaseStatement] = []
        for before, after in zip(original.body, updated.body, strict=True):
            assert isinstance(after, cst.SimpleStatementLine | cst.BaseCompoundStatement)
            statement: cst.SimpleStatementLine | cst.BaseCompoundStatement = after
            todos = self.plan.todos.get(id(before), [])
            if todos:
                statement = _with_todos(statement, todos)
            inserts = self.plan.inserts.get(id(before), [])
            if inserts:
                lines = list(statement.leading_lines)
                blank = 0
                while blank < len(lines) and lines[blank].comment is None:
                    blank += 1
                statement = statement.with_changes(leading_lines=lines[blank:])
                for number, insertion in enumerate(inserts):
                    small = insertion.build(self.plain())
                    leading = lines[:blank] if number == 0 else []
                    body.append(cst.SimpleStatementLine(body=[small], leading_lines=leading))
            body.append(statement)
        return updated.with_changes(body=body)

    def _insert_small(
        self,
        original: cst.SimpleStatementLine | cst.SimpleStatementSuite,
        updated: cst.SimpleStatementLine | cst.SimpleStatementSuite,
    ) -> cst.SimpleStatementLine | cst.SimpleStatementSuite:
        if not any(id(s) in self.plan.inserts for s in original.body):
            return updated
        body: list[cst.BaseSmallStatement] = []
        for before, after in zip(original.body, updated.body, strict=True):
            for insertion in self.plan.inserts.get(id(before), []):
                body.append(insertion.build(self.plain()))
            body.append(after)
        # Every statement but the last needs a separator; the last keeps its own.
        separator = cst.Semicolon(whitespace_after=cst.SimpleWhitespace(" "))
        body = [
            s.with_changes(semicolon=separator)
            if i < len(body) - 1 and isinstance(s.semicolon, cst.MaybeSentinel)
            else s
            for i, s in enumerate(body)
        ]
        return updated.with_changes(body=body)


def _with_todos(
    statement: cst.SimpleStatementLine | cst.BaseCompoundStatement, todos: Sequence[str]
) -> cst.SimpleStatementLine | cst.BaseCompoundStatement:
    lines = list(statement.leading_lines)
    present = {line.comment.value for line in lines if line.comment is not None}
    for todo in todos:
        if todo not in present:
            lines.append(cst.EmptyLine(comment=cst.Comment(todo)))
            present.add(todo)
    return statement.with_changes(leading_lines=lines)
