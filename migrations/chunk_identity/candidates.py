"""One read-only pass over a module that gathers every node a chunk-identity rule may
act on, so that the rules themselves never walk the whole tree again."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from acp_schema.migrations.framework.syntax import chain, code, string_value
from acp_schema.migrations.resolution.bindings import (
    CHUNK_CLASS,
    CHUNK_TAG,
    IDENTITY_BUILDERS,
    IDENTITY_FIELDS,
    WIRE_TO_FIELD,
)
from acp_schema.migrations.resolution.facts import Facts

TAG_KEYS = frozenset({"sessionUpdate", "session_update"})
MODULE_LEVEL, IMPORTED = 0, -1  # markers in Candidates.mentions (ids are positive)
MESSAGE_ID_KEYS = frozenset({"messageId", "message_id"})


def identity_key(key: cst.BaseExpression | None) -> str | None:
    """The field named by a dict key or pattern key (`"senderSessionId"` or snake case)."""
    if key is None:
        return None
    value = string_value(key)
    if value is None:
        return None
    if value in IDENTITY_FIELDS:
        return value
    return WIRE_TO_FIELD.get(value)


@dataclass
class Candidates:
    chunk_calls: list[cst.Call] = field(default_factory=list)
    builder_calls: list[cst.Call] = field(default_factory=list)
    tagged_dicts: list[cst.Dict] = field(default_factory=list)
    identity_attributes: list[cst.Attribute] = field(default_factory=list)
    getattr_calls: list[cst.Call] = field(default_factory=list)
    match_classes: list[cst.MatchClass] = field(default_factory=list)
    match_mappings: list[cst.MatchMapping] = field(default_factory=list)
    identity_subscripts: list[cst.CSTNode] = field(default_factory=list)
    import_froms: list[cst.ImportFrom] = field(default_factory=list)
    bindings_attributes: list[cst.Attribute] = field(default_factory=list)
    helper_calls: list[tuple[cst.Call, str]] = field(default_factory=list)
    # Where the chunk class or tag is named: ids of the functions around each mention,
    # MODULE_LEVEL for a mention outside any function, IMPORTED when the module imports
    # the chunk class (then the whole module deals with chunks).
    mentions: set[int] = field(default_factory=set)


class CandidateCollector(cst.CSTVisitor):
    def __init__(self, facts: Facts, helper_names: frozenset[str]) -> None:
        super().__init__()
        self.facts = facts
        self.found = Candidates()
        self.helper_names = helper_names
        self._functions: list[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()

    def _mention(self) -> None:
        self.found.mentions.update(id(f) for f in self._functions)
        if not self._functions:
            self.found.mentions.add(MODULE_LEVEL)

    def visit_Call(self, node: cst.Call) -> None:
        found, facts = self.found, self.facts
        func = node.func
        if isinstance(func, cst.Name | cst.Attribute) and facts.is_chunk_class(func):
            found.chunk_calls.append(node)
            self._mention()
        elif isinstance(func, cst.Attribute) and func.attr.value in IDENTITY_BUILDERS:
            found.builder_calls.append(node)
        elif (
            isinstance(func, cst.Name)
            and func.value == "getattr"
            and len(node.args) >= 2
            and string_value(node.args[1].value) in IDENTITY_FIELDS
        ):
            found.getattr_calls.append(node)
        elif (
            isinstance(func, cst.Attribute)
            and func.attr.value == "get"
            and node.args
            and identity_key(node.args[0].value) is not None
        ):
            found.identity_subscripts.append(node)
        if self.helper_names:
            name = chain(func)
            if name is not None and name.rpartition(".")[2] in self.helper_names:
                for qualified in facts.qualified_names(func):
                    found.helper_calls.append((node, qualified))

    def visit_Dict(self, node: cst.Dict) -> None:
        for element in node.elements:
            if isinstance(element, cst.DictElement) and string_value(element.key) in TAG_KEYS:
                self.found.tagged_dicts.append(node)
                return

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in IDENTITY_FIELDS:
            self.found.identity_attributes.append(node)
        if isinstance(node.value, cst.Name):
            if self.facts.is_chunk_class(node):
                self._mention()
            else:
                self.found.bindings_attributes.append(node)

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == "SessionMessageChunk" and self.facts.is_chunk_class(node):
            self._mention()

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if CHUNK_TAG in node.value and string_value(node) == CHUNK_TAG:
            self._mention()

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if len(node.slice) == 1:
            index = node.slice[0].slice
            if isinstance(index, cst.Index) and identity_key(index.value) is not None:
                self.found.identity_subscripts.append(node)

    def visit_MatchClass(self, node: cst.MatchClass) -> None:
        if any(k.key.value in IDENTITY_FIELDS for k in node.kwds):
            self.found.match_classes.append(node)

    def visit_MatchMapping(self, node: cst.MatchMapping) -> None:
        if any(identity_key(e.key) for e in node.elements):
            self.found.match_mappings.append(node)

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self.found.import_froms.append(node)
        if isinstance(node.names, cst.ImportStar) or node.relative or node.module is None:
            return
        module = code(node.module)
        bindings = self.facts.bindings
        if any(
            (name == CHUNK_CLASS and bindings.owner(module) is not None)
            or bindings.old_chunk_module(f"{module}.{name}") is not None
            for name in (code(alias.name) for alias in node.names)
        ):
            self.found.mentions.add(IMPORTED)


def collect(facts: Facts, helper_names: frozenset[str] = frozenset()) -> Candidates:
    collector = CandidateCollector(facts, helper_names)
    facts.module.visit(collector)
    return collector.found


def message_id_element(node: cst.Dict) -> cst.DictElement | None:
    for element in node.elements:
        if isinstance(element, cst.DictElement) and string_value(element.key) in MESSAGE_ID_KEYS:
            return element
    return None


def tag_element(node: cst.Dict) -> cst.DictElement | None:
    for element in node.elements:
        if isinstance(element, cst.DictElement) and string_value(element.key) in TAG_KEYS:
            return element
    return None
