"""Syntax-only helpers shared by the migrations: no metadata, no rule knowledge.

What counts as a side-effect-free expression, which names a subtree stores to, and
how to drop call arguments or dict entries without breaking the commas around them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TypeVar

import libcst as cst

_EMPTY_MODULE = cst.Module(body=[])

E = TypeVar(
    "E",
    cst.Arg,
    cst.BaseDictElement,
    cst.BaseElement,
    cst.MatchKeywordElement,
    cst.MatchMappingElement,
)


def code(node: cst.CSTNode) -> str:
    return _EMPTY_MODULE.code_for_node(node)


def string_value(node: cst.CSTNode) -> str | None:
    """The value of a plain string literal (no f-string), else None."""
    if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def is_docstring(statement: cst.BaseStatement) -> bool:
    """A statement that is only a string literal (a docstring where it opens a body)."""
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, cst.SimpleString | cst.ConcatenatedString)
    )


def chain(node: cst.CSTNode) -> str | None:
    """`a.b.c` for a dotted name, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = chain(node.value)
        return f"{base}.{node.attr.value}" if base is not None else None
    return None


def is_pure(node: cst.CSTNode) -> bool:
    """True for an expression that can be evaluated again without side effects.

    Names, dotted names, literals, subscripts by such values and operators over them.
    Calls, awaits, yields, walrus and comprehensions are not. Attribute reads are taken
    to be plain reads (a property with side effects would fool this).
    """
    if isinstance(
        node,
        cst.Name | cst.SimpleString | cst.Integer | cst.Float | cst.Imaginary | cst.Ellipsis,
    ):
        return True
    if isinstance(node, cst.Attribute):
        return is_pure(node.value)
    if isinstance(node, cst.ConcatenatedString):
        return is_pure(node.left) and is_pure(node.right)
    if isinstance(node, cst.FormattedString):
        return all(
            isinstance(part, cst.FormattedStringText)
            or (
                isinstance(part, cst.FormattedStringExpression)
                and is_pure(part.expression)
                and all(is_pure(p) for p in part.format_spec or ())
            )
            for part in node.parts
        )
    if isinstance(node, cst.FormattedStringText):
        return True
    if isinstance(node, cst.FormattedStringExpression):
        return is_pure(node.expression)
    if isinstance(node, cst.Subscript):
        return is_pure(node.value) and all(_pure_slice(e.slice) for e in node.slice)
    if isinstance(node, cst.Tuple | cst.List | cst.Set):
        return all(isinstance(e, cst.Element) and is_pure(e.value) for e in node.elements)
    if isinstance(node, cst.Dict):
        return all(
            is_pure(e.key) and is_pure(e.value)
            if isinstance(e, cst.DictElement)
            else is_pure(e.value)
            for e in node.elements
        )
    if isinstance(node, cst.UnaryOperation):
        return is_pure(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return is_pure(node.left) and is_pure(node.right)
    if isinstance(node, cst.BooleanOperation):
        return is_pure(node.left) and is_pure(node.right)
    if isinstance(node, cst.Comparison):
        return is_pure(node.left) and all(is_pure(c.comparator) for c in node.comparisons)
    if isinstance(node, cst.IfExp):
        return is_pure(node.test) and is_pure(node.body) and is_pure(node.orelse)
    return False


def _pure_slice(node: cst.BaseSlice) -> bool:
    if isinstance(node, cst.Index):
        return node.star is None and is_pure(node.value)
    assert isinstance(node, cst.Slice)
    return all(part is None or is_pure(part) for part in (node.lower, node.upper, node.step))


def read_chains(node: cst.CSTNode, *, skip: cst.CSTNode | None = None) -> set[str]:
    """The dotted names an expression reads (`self.peer`, `mid`), longest form only.

    `skip` is a subtree left out (the chunk inside a send call being copied).
    """
    found: set[str] = set()

    def walk(n: cst.CSTNode) -> None:
        if n is skip:
            return
        dotted = chain(n)
        if dotted is not None:
            found.add(dotted)
            return
        if isinstance(n, cst.Attribute):
            walk(n.value)
            return
        if isinstance(n, cst.Arg):
            walk(n.value)
            return
        for child in n.children:
            walk(child)

    walk(node)
    return found


def item_reads(node: cst.CSTNode, *, skip: cst.CSTNode | None = None) -> set[str]:
    """The dotted names an expression reads an item of (`route` in `route["peer"]`)."""
    found: set[str] = set()

    class Finder(cst.CSTVisitor):
        def on_visit(self, n: cst.CSTNode) -> bool:
            if n is skip:
                return False
            if isinstance(n, cst.Subscript):
                dotted = chain(n.value)
                if dotted is not None:
                    found.add(dotted)
            return True

    node.visit(Finder())
    return found


# Methods of the builtin containers that change their items.
ITEM_MUTATORS = frozenset(
    {
        "update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__",
        "append", "extend", "insert", "remove", "add", "discard", "sort", "reverse",
        "__ior__", "__iadd__",
    }
)  # fmt: skip


class StoreCollector(cst.CSTVisitor):
    """What a subtree may change: names and dotted names it assigns or deletes, objects
    whose methods it calls, and dotted names it hands to calls (which may mutate them)."""

    def __init__(self, *, skip: Iterable[cst.CSTNode] = ()) -> None:
        self.stored: set[str] = set()
        self.receivers: set[str] = set()
        self.passed: set[str] = set()
        # Changes to an object whatever name reaches it (an alias `r = self.route` may be
        # the object the upsert reads): items stored, attribute names stored.
        self.item_stores = False
        self.attribute_stores: set[str] = set()
        self._skip = {id(n) for n in skip}

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self._skip:
            return False
        return super().on_visit(node)

    def _target(self, node: cst.CSTNode) -> None:
        if isinstance(node, cst.Attribute):
            self.attribute_stores.add(node.attr.value)
        if isinstance(node, cst.Subscript):
            self.item_stores = True
        if isinstance(node, cst.Name | cst.Attribute):
            dotted = chain(node)
            if dotted is not None:
                self.stored.add(dotted)
            elif isinstance(node, cst.Attribute):
                self._target(node.value)
        elif isinstance(node, cst.Subscript):
            self._target(node.value)
        elif isinstance(node, cst.Tuple | cst.List):
            for element in node.elements:
                self._target(element.value)
        elif isinstance(node, cst.StarredElement):
            self._target(node.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._target(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._target(node.target)

    def visit_AsName(self, node: cst.AsName) -> None:
        self._target(node.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._target(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._target(node.target)

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            if alias.asname is None:
                self.stored.add(code(alias.name).split(".")[0])

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if isinstance(node.names, cst.ImportStar):
            self.stored.add("*")
            return
        for alias in node.names:
            if alias.asname is None:
                self.stored.add(code(alias.name))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stored.add(node.name.value)

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.stored.add(node.name.value)

    def visit_Global(self, node: cst.Global) -> None:
        self.stored.update(n.name.value for n in node.names)

    def visit_Nonlocal(self, node: cst.Nonlocal) -> None:
        self.stored.update(n.name.value for n in node.names)

    def visit_MatchAs(self, node: cst.MatchAs) -> None:
        if node.name is not None:
            self.stored.add(node.name.value)

    def visit_MatchStar(self, node: cst.MatchStar) -> None:
        if node.name is not None:
            self.stored.add(node.name.value)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if node.rest is not None:
            self.stored.add(node.rest.value)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in ITEM_MUTATORS:
            self.item_stores = True
        if chain(node.func) in {"setattr", "delattr", "object.__setattr__"}:
            self.attribute_stores.add("*")
        if isinstance(node.func, cst.Attribute):
            receiver = chain(node.func.value)
            if receiver is not None:
                self.receivers.add(receiver)
        for arg in node.args:
            dotted = chain(arg.value)
            if dotted is not None:
                self.passed.add(dotted)

    def rebinds(self, read: str) -> bool:
        """Whether the dotted name `read` may name another object afterwards (its type
        may change); calls and attribute stores on the object do not do that."""
        if "*" in self.stored:
            return True
        return any(read == s or read.startswith(f"{s}.") for s in self.stored)

    def aliased(self, read: str, *, items: bool) -> bool:
        """Whether the object behind the dotted name `read` may have changed through
        another name for it: an item stored anywhere when `read` is read by item
        (`alias["peer"] = ...` with `alias = route`, read `route["peer"]`), or an
        attribute of the same name stored on any object (`r.peer = ...`, read
        `self.peer`)."""
        if items and self.item_stores:
            return True
        attributes = set(read.split(".")[1:])
        return bool(
            attributes and ("*" in self.attribute_stores or attributes & self.attribute_stores)
        )

    def conflicts(self, read: str) -> bool:
        """Whether the value of the dotted name `read` may differ after this subtree ran."""
        if "*" in self.stored:
            return True
        for stored in self.stored:
            if read == stored or read.startswith(f"{stored}.") or stored.startswith(f"{read}."):
                return True
        for receiver in self.receivers:
            if read == receiver or read.startswith(f"{receiver}."):
                return True
        return any(read.startswith(f"{passed}.") for passed in self.passed)


def stores_in(nodes: Iterable[cst.CSTNode], *, skip: Iterable[cst.CSTNode] = ()) -> StoreCollector:
    collector = StoreCollector(skip=skip)
    for node in nodes:
        node.visit(collector)
    return collector


def drop_items(items: Sequence[E], drop: Callable[[E], bool]) -> list[E]:
    """`items` without the dropped ones, keeping the list's own trailing-comma style.

    Each item owns the comma after it; when the last item goes, the new last one takes
    over the old last comma (none, or a trailing comma followed by the closing line).
    """
    kept = [item for item in items if not drop(item)]
    if kept and items and kept[-1] is not items[-1]:
        kept[-1] = kept[-1].with_changes(comma=_last_comma(kept[-1].comma, items[-1].comma))
    return kept


def _last_comma(
    own: cst.Comma | cst.MaybeSentinel, last: cst.Comma | cst.MaybeSentinel
) -> cst.Comma | cst.MaybeSentinel:
    """The comma of a new last item: the old last one's, keeping the item's own
    end-of-line comment."""
    own_space = own.whitespace_after if isinstance(own, cst.Comma) else None
    if not (
        isinstance(own_space, cst.ParenthesizedWhitespace)
        and own_space.first_line.comment is not None
    ):
        return last
    last_space = last.whitespace_after if isinstance(last, cst.Comma) else None
    if isinstance(last, cst.Comma) and isinstance(last_space, cst.ParenthesizedWhitespace):
        return last.with_changes(
            whitespace_after=last_space.with_changes(first_line=own_space.first_line)
        )
    return own


def with_last_comma(items: list[E], model: Sequence[E]) -> list[E]:
    """Give the last of `items` the comma that the last of `model` has."""
    if items and model:
        items[-1] = items[-1].with_changes(comma=model[-1].comma)
    return items


class _Substitute(cst.CSTTransformer):
    """Replace names (not attribute names) by the expressions bound to them."""

    def __init__(self, bound: Mapping[str, cst.CSTNode]) -> None:
        super().__init__()
        self.bound = bound

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.Attribute:
        return updated_node.with_changes(attr=original_node.attr)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        value = self.bound.get(original_node.value)
        return value if isinstance(value, cst.BaseExpression) else updated_node


def substitute(expr: cst.BaseExpression, bound: Mapping[str, cst.CSTNode]) -> cst.BaseExpression:
    """`expr` with each name in `bound` replaced by its expression."""
    result = expr.visit(_Substitute(bound))
    assert isinstance(result, cst.BaseExpression)
    return result


def asserts_before(
    block: cst.CSTNode, statement: cst.CSTNode
) -> Iterator[tuple[cst.Assert, list[cst.CSTNode]]]:
    """Each `assert` in `block`'s own body before `statement`, nearest first, with the
    statements between it and `statement` (where a rebinding would void what it asserts).
    Nothing when `statement` is not directly in that body."""
    body = block.body if isinstance(block, cst.Module | cst.IndentedBlock) else ()
    before: list[cst.CSTNode] = []
    for item in body:
        if item is statement:
            break
        before.append(item)
    else:
        return
    for index in range(len(before) - 1, -1, -1):
        line = before[index]
        if isinstance(line, cst.SimpleStatementLine):
            for small in line.body:
                if isinstance(small, cst.Assert):
                    yield small, before[index + 1 :]
