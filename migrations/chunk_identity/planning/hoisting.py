"""Where an upsert goes in loops: before the chunk's statement, or before the loops
around it when nothing the upsert reads (or the send it copies) changes inside them. A
part of the planner (`planner.Planner` mixes it in)."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import Assignment, Scope

from acp_schema.migrations.framework.syntax import chain, code, stores_in
from acp_schema.migrations.resolution.facts import Facts


class LoopHoisting:
    """Hoisting decisions; needs the planner's `facts` and its cache of the names
    nested functions rebind."""

    facts: Facts
    _nonlocals: dict[int, set[str]]

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
        items: set[str] | None = None,
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
            changing = sorted(
                v
                for v in values
                if stores.conflicts(v) or stores.aliased(v, items=v in (items or ()))
            )
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
