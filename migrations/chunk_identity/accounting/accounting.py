"""Every occurrence of the removed API ends in exactly one verdict.

`occurrences.scan` lists them from the tokens; here each gets:

- **changed**: it lies in code a rule rewrote (the smallest edited or reported node
  holding it decides);
- **reported**: it lies in code a rule reported, or no rule accounts for it and no proof
  shows it unrelated: then it is reported here, at its own line, under rule
  `chunk-identity/occurrence` (acknowledged like any warning);
- **unrelated**: a proof of one of the kinds in `proofs` (a closed list, each kind with
  its own examples) shows it has nothing to do with a chunk; the verdict names the kind
  and the evidence.

Distance from a chunk, a file that names none, "the callee is some other function" and
"it is a string" are not proofs: such occurrences are reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import libcst as cst
from libcst.metadata import CodeRange, PositionProvider

from acp_schema.migrations.chunk_identity import rule_ids as rules
from acp_schema.migrations.chunk_identity.accounting import problems, proofs
from acp_schema.migrations.chunk_identity.accounting.occurrence_nodes import (
    NodeIndex,
    Position,
    pos,
)
from acp_schema.migrations.chunk_identity.accounting.occurrences import Occurrence
from acp_schema.migrations.chunk_identity.accounting.proofs.member import owner_of
from acp_schema.migrations.chunk_identity.planning.plan import TODO_PREFIX, Plan
from acp_schema.migrations.framework.acknowledge import Acknowledgements
from acp_schema.migrations.framework.examples import Invalid, Valid
from acp_schema.migrations.framework.findings import Finding
from acp_schema.migrations.resolution.facts import Facts
from acp_schema.migrations.resolution.type_evidence import TypeOracle
from acp_schema.migrations.resolution.value_evidence import ValueEvidence

Verdict = Literal["changed", "unrelated", "reported", "unchecked"]

STEP = (
    "if the value is a SessionMessageChunk, its participant IDs now travel on a "
    "SessionMessage upsert for the same message_id; fix it, or acknowledge it with "
    "`# acp-migrate: ok[chunk-identity/occurrence]`"
)


@dataclass(frozen=True)
class Account:
    """One occurrence and its verdict; an unrelated one names its proof kind."""

    occurrence: Occurrence
    verdict: Verdict
    rule: str | None = None
    evidence: str = ""
    acknowledged: bool = False
    proof: str | None = None

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
        if self.proof:
            data["proof"] = self.proof
        if self.evidence:
            data["evidence"] = self.evidence
        if self.acknowledged:
            data["acknowledged"] = True
        return data


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
        *,
        values: ValueEvidence | None = None,
        report: bool = True,
        todo_comments: bool = False,
    ) -> None:
        self.todo_comments = todo_comments
        self.facts = facts
        self.plan = plan
        self.acknowledged = acknowledged
        self.report = report
        self.values = values or ValueEvidence(facts, TypeOracle(facts.bindings))
        self.findings: list[Finding] = []
        self.spans: list[_Span] = []
        self.nodes: NodeIndex | None = None
        self.context: proofs.ProofContext | None = None

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
        self.context = proofs.ProofContext(self.facts, self.values, self.nodes.chunk_built)
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
        assert self.context is not None
        if isinstance(node, cst.Name):
            owner = owner_of(self.context, node)
            if owner is not None and self._is_declared_chunk(owner):
                # Reported where the class is declared (rule old-bindings).
                line, _ = self.facts.position(owner)
                handled = self.acknowledged.covers(line, rules.OLD_BINDINGS)
                return Account(occurrence, "reported", rules.OLD_BINDINGS, "", handled)
        inner = self.index.inner_node(node, occurrence) if occurrence.in_string else node
        proof = proofs.prove(self.context, proofs.Site(occurrence, node, inner))
        if proof is not None:
            kind, evidence = proof
            return Account(occurrence, "unrelated", evidence=evidence, proof=kind)
        return self._reported(occurrence, problems.describe(self.context, node, inner), node)

    def _reported(self, occurrence: Occurrence, problem: str, node: cst.CSTNode | None) -> Account:
        if not self.report:
            return Account(occurrence, "unchecked")
        rule = rules.OCCURRENCE
        handled = self.acknowledged.covers(occurrence.line, rule)
        # A string naming several removed names gives each its own line (one position).
        which = f" (removed name {occurrence.rank + 1} in this string)" if occurrence.rank else ""
        message = f"`{occurrence.name}`{which} here: {problem}; {STEP}"
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

    def _is_declared_chunk(self, node: cst.ClassDef) -> bool:
        """An old chunk class the run found declared here (rule old-bindings)."""
        module = self.facts.module_name
        qualified = f"{module}.{node.name.value}"
        return module is not None and self.facts.bindings.old_chunk_module(qualified) is not None


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
    Invalid(
        """
        def audit(record):
            return record.sender_session_id
        """,
        lines=(2,),
        why="a module that names no chunk may still be handed one: distance is no proof",
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
