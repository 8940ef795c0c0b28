"""Proof `payload-tagged-other`: the name is a key of a payload whose `sessionUpdate` tag
is shown to be another kind than `session_message_chunk`: a string literal, or a
constant or Enum member of the run bound to one (`MESSAGE_KIND`, `Kind.MESSAGE`).

Applies to a dict display's key, a keyword of `dict(...)` or of a TypedDict class, a
mapping pattern's key, a key read or set on a name bound to such a dict
(`payload["senderSessionId"]`, `payload.get(...)`, `payload.update(...)`) or narrowed
by a tag test around the use (`if u["sessionUpdate"] == "session_message":`; not when
the name's dict is copied in its scope, `dict(p, sessionUpdate=...)`, `{**p}`, `p | ...`,
`p.copy()`), a dict
only used when a test of the kind excludes chunks (`x if kind == "session_message_chunk"
else {...}`), and a JSON template whose text carries the tag
(`'{"sessionUpdate": "session_message", "senderSessionId": "%s"}'`). A tag that is a
parameter, a computed value or anything the code does not show proves nothing."""

from __future__ import annotations

import re

import libcst as cst

from acp_schema.migrations.chunk_identity.accounting.occurrences import REMOVED_NAMES
from acp_schema.migrations.chunk_identity.accounting.proofs.context import (
    TAG_KEYS,
    ProofContext,
    Site,
    other_tag,
)
from acp_schema.migrations.framework.examples import Invalid, Valid
from acp_schema.migrations.framework.syntax import chain, code, string_value
from acp_schema.migrations.resolution.bindings import CHUNK_TAG

KIND = "payload-tagged-other"
KEY_METHODS = frozenset({"get", "pop", "setdefault", "update", "__getitem__"})
_WRITES_OR_COPIES = frozenset(
    {"update", "setdefault", "__setitem__", "__ior__", "__or__", "copy", "__copy__"}
)
# Calls that copy a mapping given to them (the copy may be tagged anew).
_COPIERS = frozenset(
    {"dict", "copy.copy", "copy.deepcopy", "copy", "deepcopy", "ChainMap", "collections.ChainMap"}
)
_TEMPLATE_TAG = re.compile(r"""\\?["']session(?:Update|_update)\\?["']\s*:\s*\\?["'](\w+)\\?["']""")


def prove(context: ProofContext, site: Site) -> str | None:
    node = site.inner
    if isinstance(node, cst.Name):
        return _keyword(context, node)
    if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
        if string_value(node) in REMOVED_NAMES:
            return _key(context, node)
        return _template(node)
    if node is None and isinstance(site.node, cst.FormattedString):
        return _template(site.node)
    return None


def _found(tag: str | None) -> str | None:
    return f"a key of a `{tag}` payload, not a chunk" if other_tag(tag) else None


def _keyword(context: ProofContext, name: cst.Name) -> str | None:
    argument = context.parent(name)
    call = context.parent(argument) if argument is not None else None
    if not (isinstance(argument, cst.Arg) and argument.keyword is name):
        return None
    if not isinstance(call, cst.Call):
        return None
    func = call.func
    if isinstance(func, cst.Attribute) and func.attr.value == "update":
        return _receiver(context, func.value)
    dotted = chain(func)
    names = context.values.resolver(func)(dotted) if dotted else []
    oracle = context.values.oracle
    if not names or not all(n == "builtins.dict" or oracle.is_typed_dict(n) for n in names):
        return None
    tags = [a.value for a in call.args if a.keyword is not None and a.keyword.value in TAG_KEYS]
    return _found(context.tag_value(tags[0])) if len(tags) == 1 else None


def _key(context: ProofContext, node: cst.CSTNode) -> str | None:
    holder = context.parent(node)
    if isinstance(holder, cst.DictElement) and holder.key is node:
        payload = context.parent(holder)
        if isinstance(payload, cst.Dict):
            return _dict(context, payload)
    if isinstance(holder, cst.MatchMappingElement) and holder.key is node:
        mapping = context.parent(holder)
        if isinstance(mapping, cst.MatchMapping):
            for entry in mapping.elements:
                if string_value(entry.key) in TAG_KEYS and isinstance(
                    entry.pattern, cst.MatchValue
                ):
                    return _found(context.tag_value(entry.pattern.value))
        return None
    if isinstance(holder, cst.Index):
        element = context.parent(holder)
        subscript = context.parent(element) if element is not None else None
        if isinstance(subscript, cst.Subscript):
            return _receiver(context, subscript.value)
    if isinstance(holder, cst.Arg):
        call = context.parent(holder)
        if (
            isinstance(call, cst.Call)
            and isinstance(call.func, cst.Attribute)
            and call.func.attr.value in KEY_METHODS
            and call.args[0] is holder
        ):
            return _receiver(context, call.func.value)
    if isinstance(holder, cst.ComparisonTarget):
        comparison = context.parent(holder)
        if (
            isinstance(comparison, cst.Comparison)
            and comparison.left is node
            and isinstance(holder.operator, cst.In | cst.NotIn)
        ):
            return _receiver(context, holder.comparator)
    return None


def _dict(context: ProofContext, payload: cst.Dict) -> str | None:
    tags = [
        e.value
        for e in payload.elements
        if isinstance(e, cst.DictElement) and string_value(e.key) in TAG_KEYS
    ]
    if len(tags) == 1:
        if _retagged(context, payload):
            return None
        return _found(context.tag_value(tags[0]))
    holder = context.parent(payload)
    if isinstance(holder, cst.IfExp) and _excludes_chunks(context, holder, payload):
        return "only used when the kind is not session_message_chunk (the test says so)"
    return None


def _retagged(context: ProofContext, payload: cst.Dict) -> bool:
    """A dict bound to a name whose tag may be set again in its scope
    (`p["sessionUpdate"] = ...`, `p.update(...)`, `p |= ...`, `p.setdefault(...)`), or
    that is copied there, where the copy may get another tag (`dict(p, sessionUpdate=
    ...)`, `{**p, ...}`, `p | {...}`, `p.copy()`, `copy.copy(p)`)."""
    holder = context.parent(payload)
    if not (isinstance(holder, cst.Assign) and len(holder.targets) == 1):
        return False
    target = holder.targets[0].target
    if not isinstance(target, cst.Name):
        return False
    name = target
    scope: cst.CSTNode = context.facts.function_of(payload) or context.facts.module
    found = False

    class Writes(cst.CSTVisitor):
        def visit_Subscript(self, node: cst.Subscript) -> None:
            nonlocal found
            index = node.slice[0].slice if len(node.slice) == 1 else None
            key = string_value(index.value) if isinstance(index, cst.Index) else None
            if (
                chain(node.value) == name.value
                and (key is None or key in TAG_KEYS)
                and isinstance(context.parent(node), cst.AssignTarget | cst.AugAssign)
            ):
                found = True

        def visit_Call(self, node: cst.Call) -> None:
            nonlocal found
            func = node.func
            if (
                isinstance(func, cst.Attribute)
                and chain(func.value) == name.value
                and func.attr.value in _WRITES_OR_COPIES
            ):
                found = True
            if chain(func) in _COPIERS and any(chain(a.value) == name.value for a in node.args):
                found = True

        def visit_Arg(self, node: cst.Arg) -> None:
            nonlocal found
            if node.star == "**" and chain(node.value) == name.value:
                found = True

        def visit_StarredDictElement(self, node: cst.StarredDictElement) -> None:
            nonlocal found
            if chain(node.value) == name.value:
                found = True

        def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
            nonlocal found
            if isinstance(node.operator, cst.BitOr) and name.value in {
                chain(node.left),
                chain(node.right),
            }:
                found = True

        def visit_AugAssign(self, node: cst.AugAssign) -> None:
            nonlocal found
            if chain(node.target) == name.value:
                found = True

    scope.visit(Writes())
    return found


def _receiver(context: ProofContext, value: cst.BaseExpression) -> str | None:
    """A dict narrowed by a tag test, or a name bound once to a tagged dict display."""
    narrowed = context.values.tag_narrowed(value)
    if narrowed is not None:
        return f"`{chain(value)}` is not a chunk: {narrowed.why}" if narrowed.other else None
    if isinstance(value, cst.Name):
        assignment = context.facts.single_assignment(value)
        node = assignment.node if assignment is not None else None
        holder = context.parent(node) if isinstance(node, cst.Name) else None
        assign = context.parent(holder) if isinstance(holder, cst.AssignTarget) else None
        if isinstance(assign, cst.Assign) and isinstance(assign.value, cst.Dict):
            return _dict(context, assign.value)
    return None


def _excludes_chunks(context: ProofContext, choice: cst.IfExp, branch: cst.CSTNode) -> bool:
    """`a if kind == "session_message_chunk" else branch` (or `!=` and the body)."""
    test = choice.test
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    tags = {context.tag_value(test.left), context.tag_value(target.comparator)}
    if CHUNK_TAG not in tags:
        return False
    if isinstance(target.operator, cst.Equal | cst.Is):
        return branch is choice.orelse
    if isinstance(target.operator, cst.NotEqual | cst.IsNot):
        return branch is choice.body
    return False


def _template(node: cst.CSTNode) -> str | None:
    """A JSON (or Python-literal) template whose own text names another kind as tag."""
    text = node.value if isinstance(node, cst.SimpleString) else code(node)
    tags = set(_TEMPLATE_TAG.findall(text))
    if len(tags) == 1 and other_tag(next(iter(tags))):
        return f"a key of a `{tags.pop()}` payload template, not a chunk"
    return None


EXAMPLES = (
    Valid(
        """
        from acp_schema.v2 import SessionMessageChunk

        def announce(out, mid, me):
            out.write({"sessionUpdate": "session_message", "messageId": mid,
                       "senderSessionId": me})
        """,
        why="a session_message payload",
    ),
    Valid(
        """
        import json

        TEMPLATE = '{"sessionUpdate": "session_message", "senderSessionId": "%s"}'

        def announce(me: str) -> dict:
            return json.loads(TEMPLATE % me)
        """,
        why="a JSON template whose own text carries another tag",
    ),
    Invalid(
        """
        def payload(kind, mid, me, block):
            return {"sessionUpdate": kind, "messageId": mid, "senderSessionId": me}
        """,
        lines=(2,),
        why="the kind is a parameter: callers elsewhere may pass the chunk tag",
    ),
    Invalid(
        """
        def stream(out, mid, me, parts):
            common = {"sessionUpdate": "session_message", "messageId": mid,
                      "senderSessionId": me}
            for part in parts:
                out.write(dict(common, sessionUpdate="session_message_chunk", content=part))
        """,
        lines=(3,),
        why="a copy of the payload is tagged as a chunk",
    ),
    Invalid(
        """
        BASE = {"sessionUpdate": "session_message", "senderSessionId": "s1"}

        def chunk(part):
            return {**BASE, "sessionUpdate": "session_message_chunk", "content": part}
        """,
        lines=(1, 4),
        why="a spread of the payload is tagged as a chunk",
    ),
    Invalid(
        """
        def template(kind: str) -> str:
            return '{"sessionUpdate": "%s", "senderSessionId": "%s"}' % (kind, "s1")
        """,
        lines=(2,),
        why="a JSON template whose tag is filled in at run time",
    ),
)
