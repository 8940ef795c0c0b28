"""Every place in one module that uses a class or field of interest, found on libcst's
metadata with the name resolution `acp-schema migrate` uses
(`acp_schema.migrations.resolution`: module names as Python resolves them, facades,
vendored copies, qualified names, the class an expression holds).

A use says what the code shows there: the keywords of a constructor call and the
literal value of each, the keys of a dict literal (or of JSON text in a string) next to
a tag, the members a `match` or an `if`/`elif` chain tests. Whether a change breaks it is
decided in `judge`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

import libcst as cst

from acp_schema.migrations.framework.syntax import chain, string_value
from acp_schema.migrations.resolution.bindings import Bindings
from acp_schema.migrations.resolution.class_facts import CONSTRUCTING, ClassFacts
from acp_schema.migrations.resolution.module_facts import METADATA, ModuleFacts
from acp_schema.migrations.resolution.type_evidence import TypeOracle
from acp_schema.migrations.resolution.value_evidence import ValueEvidence

from .guards import guarded
from .literals import MAX_JSON_TEXT, NOTHING, literal, shown_object
from .targets import python_field

UseKind = Literal[
    "import",
    "reference",
    "call",
    "validate",
    "isinstance",
    "pattern",
    "annotation",
    "subclass",
    "keyword",
    "read",
    "write",
    "builder",
    "pattern-keyword",
    "dict",
    "dict-key",
    "method",
    "chain",
]
_VALIDATING = frozenset({"model_validate", "model_validate_json"})


@dataclass(frozen=True)
class Use:
    line: int
    column: int
    kind: UseKind
    cls: str = ""  # class name in the bindings
    field: str | None = None  # Python or wire name
    value: Any = NOTHING  # the literal value the code shows, if any
    names: frozenset[str] = frozenset()  # keywords passed, keys written, members tested
    open: bool = False  # `**kwargs` / `**spread` / a fallback branch
    unshown: bool = False  # a read or write on a receiver whose class the code does not show
    guard: str = ""  # why the code may never run it as written (`guards.guarded`)


class Interest:
    """What to look for: class names, field names, tags, method names."""

    def __init__(
        self,
        classes: set[str],
        fields: set[str],
        tags: dict[tuple[str, str], str],
        methods: set[str],
        values: set[str],
    ) -> None:
        self.classes = classes
        self.fields = fields
        self.tags = {k: v for k, v in tags.items() if v in classes}
        self.tag_keys = {k for k, _ in self.tags}
        self.methods = methods
        self.values = values  # enum values whose chains are noted


class UseFinder(cst.CSTVisitor):
    METADATA_DEPENDENCIES = METADATA

    def __init__(
        self,
        interest: Interest,
        resolve: Callable[[str], str | None],
        module_name: str | None,
        package: str | None,
        bindings: tuple[str, ...] = (),
    ) -> None:
        self.interest = interest
        self.bindings = Bindings.with_extra(bindings)
        self.evidence: ValueEvidence | None = None
        self.resolve_name = resolve
        self.module_name = module_name
        self.package = package
        self.uses: list[Use] = []
        self.module: cst.Module | None = None
        self.facts: ModuleFacts | None = None
        self.classes: ClassFacts | None = None
        self.any_class: ClassFacts | None = None

    # --- setting up --------------------------------------------------------------------

    def visit_Module(self, node: cst.Module) -> None:
        self.module = node
        self.facts = ModuleFacts(node, self, self.bindings, self.module_name, self.package)
        self.classes = ClassFacts(self.facts, self._class)
        self.any_class = ClassFacts(self.facts, self.resolve_name)  # any bindings class
        self.evidence = None  # built on the first receiver whose class is not shown

    def _class(self, qualified: str) -> str | None:
        found = self.resolve_name(qualified)
        if found is None or found.rpartition(".")[2] not in self.interest.classes:
            return None
        return found

    def _name(self, expr: cst.CSTNode) -> str | None:
        assert self.classes is not None
        found = self.classes.class_of(expr)
        return found.rpartition(".")[2] if found is not None else None

    def _add(self, node: cst.CSTNode, kind: UseKind, cls: str = "", **fields: Any) -> None:
        assert self.facts is not None and self.module is not None
        line, column = self.facts.position(node)
        guard = guarded(self.facts, self.module, node, kind, self._name)
        self.uses.append(Use(line, column, kind, cls, guard=guard, **fields))

    # --- imports -----------------------------------------------------------------------

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        assert self.facts is not None
        if isinstance(node.names, cst.ImportStar):
            return False
        source = chain(node.module) if node.module is not None else ""
        if source is None:
            return False
        if node.relative:
            source = self.facts.absolute("." * len(node.relative) + source)
        for alias in node.names:
            name = chain(alias.name)
            found = self._class(f"{source}.{name}") if name else None
            if found is not None:
                self._add(alias, "import", found.rpartition(".")[2])
        return False

    # --- names of classes --------------------------------------------------------------

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        cls = self._name(node)
        if cls is not None:
            self._reference(node, cls)
            return False
        self._member(node)
        return True

    def visit_Name(self, node: cst.Name) -> None:
        assert self.facts is not None
        parent = self.facts.parent(node)
        if isinstance(parent, cst.Attribute) and parent.attr is node:
            return
        cls = self._name(node)
        if cls is not None and not _is_binding_target(parent, node):
            self._reference(node, cls)
        elif isinstance(parent, cst.Call) and parent.func is node:
            assert self.classes is not None
            subclass = self.classes.subclassed(node)  # `class Mine(X)`, then `Mine(...)`
            if subclass is not None:
                self._call(parent, subclass[0].rpartition(".")[2], subclass[1])

    def _reference(self, node: cst.CSTNode, cls: str) -> None:
        assert self.facts is not None
        parent = self.facts.parent(node)
        if isinstance(parent, cst.Call) and parent.func is node:
            self._call(parent, cls)
        elif isinstance(parent, cst.Attribute) and parent.value is node:
            kind: UseKind = "validate" if parent.attr.value in CONSTRUCTING else "reference"
            self._add(node, kind, cls)
            if parent.attr.value in _VALIDATING:
                self._validated(parent, cls)
        elif isinstance(parent, cst.MatchClass) and parent.cls is node:
            self._pattern(parent, cls)
        elif _in_isinstance(self.facts, node):
            self._add(node, "isinstance", cls)
        elif isinstance(parent, cst.Arg) and isinstance(self.facts.parent(parent), cst.ClassDef):
            self._add(node, "subclass", cls)
        elif any(isinstance(a, cst.Annotation) for a in self.facts.ancestors(node)):
            self._add(node, "annotation", cls)
        else:
            self._add(node, "reference", cls)

    def _call(self, call: cst.Call, cls: str, own: set[str] | frozenset[str] = frozenset()) -> None:
        """A constructor call (of a subclass declaring the fields `own` of its own)."""
        keywords = frozenset(a.keyword.value for a in call.args if a.keyword is not None)
        spread = any(a.star for a in call.args)
        self._add(call, "call", cls, names=keywords, open=spread)
        for arg in call.args:
            name = arg.keyword.value if arg.keyword is not None else None
            if name is not None and name in self.interest.fields and name not in own:
                value = self._literal(arg.value)
                self._add(arg, "keyword", cls, field=name, value=value)

    def _validated(self, method: cst.Attribute, cls: str) -> None:
        """`X.model_validate({...})` / `X.model_validate_json('{...}')` with the object
        shown: judged as a constructor call with those keys (they validate the same)."""
        assert self.facts is not None and self.module is not None
        call = self.facts.parent(method)
        if not isinstance(call, cst.Call) or call.func is not method or not call.args:
            return
        found = shown_object(self.module, call.args[0].value)
        if found is None:
            return
        keys, spread = found
        names = frozenset(keys) | frozenset(python_field(k) for k in keys)
        self._add(call, "call", cls, names=names, open=spread)
        for key, value in keys.items():
            if key in self.interest.fields:
                self._add(call.args[0], "keyword", cls, field=python_field(key), value=value)

    def _pattern(self, pattern: cst.MatchClass, cls: str) -> None:
        self._add(pattern, "pattern", cls)
        for item in pattern.kwds:
            if item.key.value in self.interest.fields:
                self._add(item, "pattern-keyword", cls, field=item.key.value)

    # --- fields of instances -----------------------------------------------------------

    def _member(self, node: cst.Attribute) -> None:
        assert self.classes is not None and self.facts is not None
        attr = node.attr.value
        field = attr[len("with_") :] if attr.startswith("with_") else attr
        if field not in self.interest.fields:
            return
        found = self.classes.instance_of(node.value)
        parent = self.facts.parent(node)
        if found is None:
            if not attr.startswith("with_") and not self._never_bindings(node.value):
                kind: UseKind = "write" if _stored(self.facts, node) else "read"
                self._add(node.attr, kind, field=field, unshown=True)
            return
        cls = found.rpartition(".")[2]
        if attr.startswith("with_"):
            value = NOTHING
            if isinstance(parent, cst.Call) and parent.func is node and len(parent.args) == 1:
                value = self._literal(parent.args[0].value)
            self._add(node.attr, "builder", cls, field=field, value=value)
        elif _stored(self.facts, node):
            value = NOTHING
            if isinstance(parent, cst.AssignTarget):
                assign = self.facts.parent(parent)
                if isinstance(assign, cst.Assign):
                    value = self._literal(assign.value)
            self._add(node.attr, "write", cls, field=field, value=value)
        else:
            self._add(node.attr, "read", cls, field=field)

    def _never_bindings(self, receiver: cst.BaseExpression) -> bool:
        """Whether the code proves `receiver` is no class of the bindings (a builtin, a
        literal, the application's own class without bindings bases, ...): the evidence
        `migrate` uses for "never a chunk" (`value_evidence`), asked of every class."""
        assert self.facts is not None and self.any_class is not None
        if self.any_class.instance_of(receiver) is not None:
            return True  # the code shows a bindings class no change touches here
        if self.evidence is None:
            oracle = TypeOracle(self.bindings, any_binding=True)
            self.evidence = ValueEvidence(self.facts, oracle)
        try:
            return self.evidence.holds(receiver).other
        except RecursionError:
            return False

    # --- wire shapes: dicts, JSON text, method names -----------------------------------

    def visit_Dict(self, node: cst.Dict) -> None:
        keys: dict[str, cst.BaseExpression] = {}
        spread = False
        for element in node.elements:
            if not isinstance(element, cst.DictElement):
                spread = True  # `**other`: keys the code does not show
                continue
            key = string_value(element.key)
            if key is not None:
                keys[key] = element.value
        cls = self._tagged({k: self._literal(v) for k, v in keys.items()})
        if cls is None:
            return
        self._add(node, "dict", cls, names=frozenset(keys), open=spread)
        for key, value in keys.items():
            if key in self.interest.fields:
                self._add(value, "dict-key", cls, field=key, value=self._literal(value))

    def _tagged(self, literal: dict[str, Any]) -> str | None:
        for key in self.interest.tag_keys & literal.keys():
            value = literal[key]
            if isinstance(value, str) and (key, value) in self.interest.tags:
                return self.interest.tags[(key, value)]
        return None

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        value = node.evaluated_value
        if not isinstance(value, str):
            return
        if value in self.interest.methods:
            self._add(node, "method", field=value)
        text = value.strip()
        if text.startswith("{") and len(text) <= MAX_JSON_TEXT and self.interest.tag_keys:
            try:
                parsed = json.loads(text)
            except (ValueError, RecursionError):
                return
            for obj in _objects(parsed):
                cls = self._tagged(obj)
                if cls is not None:
                    self._add(node, "dict", cls, names=frozenset(obj))
                    for key in obj.keys() & self.interest.fields:
                        self._add(node, "dict-key", cls, field=key, value=obj[key])

    # --- chains over the members of a union or an enum ---------------------------------

    def visit_Match(self, node: cst.Match) -> None:
        members: set[str] = set()
        fallback = False
        for case in node.cases:
            for pattern in _alternatives(case.pattern):
                if isinstance(pattern, cst.MatchClass):
                    members.add(self._name(pattern.cls) or "")
                elif isinstance(pattern, cst.MatchValue):
                    members.add(self._enum_value(pattern.value) or "")
                elif isinstance(pattern, cst.MatchAs) and pattern.pattern is None:
                    fallback = fallback or case.guard is None
        members.discard("")
        if len(members) >= 2:
            self._add(node, "chain", names=frozenset(members), open=fallback)

    def visit_If(self, node: cst.If) -> None:
        assert self.facts is not None
        parent = self.facts.parent(node)
        if isinstance(parent, cst.If) and parent.orelse is node:
            return  # an `elif`: counted with the chain it belongs to
        members: set[str] = set()
        current: cst.If | cst.Else | None = node
        while isinstance(current, cst.If):
            members |= self._tested(current.test)
            current = current.orelse
        if len(members) >= 2:
            self._add(node, "chain", names=frozenset(members), open=current is not None)

    def _tested(self, test: cst.BaseExpression) -> set[str]:
        if isinstance(test, cst.Call) and chain(test.func) == "isinstance" and len(test.args) == 2:
            second = test.args[1].value
            items = (
                [e.value for e in second.elements] if isinstance(second, cst.Tuple) else [second]
            )
            return {n for n in (self._name(i) for i in items) if n}
        if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
            target = test.comparisons[0]
            if isinstance(target.operator, cst.Equal | cst.Is):
                sides = [test.left, target.comparator]
                return {v for v in (self._enum_value(s) for s in sides) if v}
            if isinstance(target.operator, cst.In) and isinstance(
                target.comparator, cst.Tuple | cst.List | cst.Set
            ):
                values = (self._enum_value(e.value) for e in target.comparator.elements)
                return {v for v in values if v}
        return set()

    def _enum_value(self, node: cst.CSTNode) -> str | None:
        value = string_value(node)
        return value if value is not None and value in self.interest.values else None

    # --- literals ----------------------------------------------------------------------

    def _literal(self, node: cst.BaseExpression) -> Any:
        assert self.module is not None
        return literal(self.module, node)


def _in_isinstance(facts: ModuleFacts, node: cst.CSTNode) -> bool:
    """Whether `node` is the class argument of `isinstance` / `issubclass`."""
    current = facts.parent(node)
    if isinstance(current, cst.Element):  # isinstance(x, (A, B))
        current = facts.parent(facts.parent(current) or current)
    if not isinstance(current, cst.Arg):
        return False
    call = facts.parent(current)
    return (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Name)
        and call.func.value in ("isinstance", "issubclass")
        and len(call.args) == 2
        and call.args[1] is current
    )


def _alternatives(pattern: cst.MatchPattern) -> Iterator[cst.MatchPattern]:
    if isinstance(pattern, cst.MatchOr):
        for element in pattern.patterns:
            yield from _alternatives(element.pattern)
    elif isinstance(pattern, cst.MatchAs) and pattern.pattern is not None:
        yield from _alternatives(pattern.pattern)
    else:
        yield pattern


def _objects(value: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    """Every JSON object in a parsed value, outermost first."""
    if depth > 64:
        return
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _objects(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _objects(item, depth + 1)


def _is_binding_target(parent: cst.CSTNode | None, node: cst.Name) -> bool:
    """A name being bound (a function or class name, a parameter, a keyword's name)."""
    if isinstance(parent, cst.FunctionDef | cst.ClassDef | cst.Param) and parent.name is node:
        return True
    return isinstance(parent, cst.Arg) and parent.keyword is node


def _stored(facts: ModuleFacts, node: cst.Attribute) -> bool:
    parent = facts.parent(node)
    if isinstance(parent, cst.AssignTarget | cst.AugAssign | cst.AnnAssign):
        return getattr(parent, "target", None) is node
    return False
