"""Where a chunk goes and where its upsert goes: the planning shared by the rules.

`Planner.place` follows a chunk-producing expression (a `Source`, recognised by a rule
module) to its statement: a send (any call whose other arguments are free of side
effects, so the call can be made twice), an assignment to a name that is then sent, a
yield, or a return from a helper. For a send it plans the same statement with the
upsert in place of the chunk, before the chunk's statement, or before the loops around
it when nothing the upsert reads changes in them. Everything is planned before anything
is committed: a chunk that cannot be handled at one of its uses is left alone.

Split by responsibility: `sites.SiteFinder` (where a chunk goes, what counts as a send)
and `hoisting.LoopHoisting` (where the upsert goes in loops) are mixed in here;
`stability` proves a message or participant ID unchanged between build and send,
`generators` widens a generator's element type, `placement.Placement` holds one
source's planned edits; this module places them and commits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import libcst as cst

from acp_schema.migrations.chunk_identity.candidates import IMPORTED, MODULE_LEVEL
from acp_schema.migrations.chunk_identity.planning.generators import widen_generator
from acp_schema.migrations.chunk_identity.planning.hoisting import LoopHoisting
from acp_schema.migrations.chunk_identity.planning.placement import Placement
from acp_schema.migrations.chunk_identity.planning.plan import (
    TODO_PREFIX,
    Applier,
    Build,
    Failure,
    HelperTemplate,
    Insertion,
    Plan,
    Source,
)
from acp_schema.migrations.chunk_identity.planning.sites import (
    BENIGN_ATTRIBUTES,
    SERIALIZERS,
    Site,
    SiteFinder,
)
from acp_schema.migrations.chunk_identity.planning.stability import (
    stable_between,
    stable_message_id,
)
from acp_schema.migrations.chunk_identity.planning.upserts import message_ref, upsert_builder
from acp_schema.migrations.framework.acknowledge import NONE
from acp_schema.migrations.framework.findings import Finding
from acp_schema.migrations.framework.syntax import chain, code, is_pure, item_reads, read_chains
from acp_schema.migrations.resolution.bindings import IDENTITY_FIELDS
from acp_schema.migrations.resolution.facts import Facts
from acp_schema.migrations.resolution.value_evidence import ValueEvidence


class Planner(SiteFinder, LoopHoisting):
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
        # The strict value facts the accounting's proofs use (set by the command).
        self.values: ValueEvidence | None = None

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

    def shown_not_chunk(self, expr: cst.BaseExpression) -> bool:
        """Whether the code proves `expr` is not a chunk (`resolution.ValueEvidence`):
        then a read or builder on it is left to the accounting, which gives the proof."""
        return self.values is not None and self.values.holds(expr).other

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

    def place(self, source: Source) -> Placement:
        """Plan the migration of one source; raises Failure when it cannot be done."""
        if not source.identity and source.template is None:
            # Only `None`/MISSING values: nothing to send, the keywords just go.
            placement = Placement(source)
            self._strip(placement)
            return placement
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
            mid = stable_message_id(facts, source, site.statement, use.statement, name)
            for field_name, value in source.identity.items():
                if not stable_between(facts, site.statement, use.statement, value):
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
            items = item_reads(root, skip=expr)
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
            items = item_reads(yielded, skip=expr)
            if yielded is expr:
                widen_generator(self.facts, placement, statement, ref)
        else:  # pragma: no cover - sites are filtered before
            raise Failure(f"cannot send from a {site.kind}")
        upsert_values = self._upsert_values(source)
        for value in upsert_values:
            values |= read_chains(value)
            items |= item_reads(value)
        callees = {c for callee in site.callees if (c := chain(callee)) is not None}
        copied = [site.root] if site.root is not None else []
        hold = None
        if not self._in_loop(statement):
            pass  # nothing to hoist out of
        elif not all(is_pure(v) for v in upsert_values):
            hold = "the upsert computes a value with a call, which must run once per chunk"
        elif self._reads_shared_state([*upsert_values, *copied], skip=expr, at=statement):
            hold = "shared"
        anchor, note = self._hoist(statement, values - callees, callees, hold, items)
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


def _normal(text: str) -> str:
    return "".join(text.split())
