"""Proof `prose`: the name is a word of text in a string, in no position where a program
could read it as a key or a name: the string is not just the name, and this occurrence
is not quoted inside the text (`"senderSessionId"`: JSON or a Python literal), not a
replacement field (`{sender_session_id}`, `%(sender_session_id)s`), not followed by
`:` or `=` (`senderSessionId: ...`, `sender_session_id=...`), and not part of a dotted
path (`chunk.sender_session_id` for `attrgetter`), and the string goes where only people
read it: a logging call, `print`, `warnings.warn`, a raised exception's message or an
`assert`'s. Log text such as `log.warning("chunk without sender_session_id")` is prose; a
JSON template is not (see `payload-tagged-other`), nor text kept in a name or given to
any other call (`"sender_session_id recipient_session_id".split()` names fields for
`getattr`, a csv header, a JSON pointer)."""

from __future__ import annotations

import re

import libcst as cst

from acp_schema.migrations.chunk_identity.accounting.occurrences import (
    REMOVED_NAMES,
    names_in_text,
)
from acp_schema.migrations.chunk_identity.accounting.proofs.context import ProofContext, Site
from acp_schema.migrations.framework.examples import Invalid, Valid
from acp_schema.migrations.framework.syntax import chain, code, string_value

KIND = "prose"
_WORD = re.compile(r"\b(?:" + "|".join(REMOVED_NAMES) + r")\b")
# Characters around a name that make it a key, a field or a path rather than a word.
_BEFORE = frozenset("\"'{.(`[$")
_AFTER = re.compile(r"""\s*[:=]|[\"'}.\])`]|\\["']""")


def prove(context: ProofContext, site: Site) -> str | None:
    node, occurrence = site.node, site.occurrence
    if not occurrence.in_string:
        return None
    if isinstance(node, cst.SimpleString):
        if string_value(node) in REMOVED_NAMES:
            return None
        text, rank = node.raw_value, occurrence.rank
    elif isinstance(node, cst.FormattedString) and site.inner is None:
        found = _text_part(node, occurrence.rank)
        if found is None:
            return None
        text, rank = found
    else:
        return None
    matches = list(_WORD.finditer(text))
    if rank >= len(matches):
        return None
    match = matches[rank]
    before = text[: match.start()]
    if before.endswith(tuple(_BEFORE)) or before.endswith("%("):
        return None
    if _AFTER.match(text, match.end()):
        return None
    sink = _message_sink(context, node)
    if sink is None:
        return None
    return f"a word of text in a string: not quoted, not a key, a field or a path; {sink}"


# Calls whose string argument is text for people (logging, print, warnings).
_TEXT_CALLS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"}
)


def _message_sink(context: ProofContext, node: cst.CSTNode) -> str | None:
    """Where the string goes, when that is text for people: an argument of a logging
    call, `print` or `warnings.warn`, of the exception a `raise` builds, or an `assert`'s
    message (also once formatted with `%`, `.format` or concatenated). A string kept in a
    name or given to any other call may be data (`"a b".split()` field names for
    `getattr`, csv columns, a JSON pointer), so it proves nothing."""
    current: cst.CSTNode = node
    while True:
        holder = context.parent(current)
        formatted = isinstance(holder, cst.BinaryOperation) and (
            isinstance(holder.operator, cst.Add)
            or (isinstance(holder.operator, cst.Modulo) and holder.left is current)
        )
        if formatted or isinstance(holder, cst.ConcatenatedString | cst.FormattedString):
            assert holder is not None
            current = holder
        elif (
            isinstance(holder, cst.Attribute)
            and holder.value is current
            and holder.attr.value == "format"
        ):
            call = context.parent(holder)
            if not isinstance(call, cst.Call):
                return None
            current = call
        else:
            break
    if isinstance(holder, cst.Assert) and holder.msg is current:
        return "the message of an `assert`"
    if not isinstance(holder, cst.Arg) or holder.keyword is not None:
        return None
    call = context.parent(holder)
    if not isinstance(call, cst.Call):
        return None
    func = call.func
    leaf = func.attr.value if isinstance(func, cst.Attribute) else chain(func)
    if leaf in _TEXT_CALLS or leaf == "print":
        return f"text given to `{code(func)}`"
    if any(isinstance(a, cst.Raise) for a in context.facts.ancestors(call)):
        raised = context.parent(call)
        if isinstance(raised, cst.Raise) and raised.exc is call:
            return "the message of a raised exception"
    return None


def _text_part(node: cst.FormattedString, rank: int) -> tuple[str, int] | None:
    """The text part of an f-string that holds the rank-th name, and its rank there."""
    seen = 0
    for part in node.parts:
        if isinstance(part, cst.FormattedStringText):
            count = len(names_in_text(part.value))
            if seen + count > rank:
                return part.value, rank - seen
        else:
            count = len(names_in_text(code(part)))
            if seen + count > rank:
                return None
        seen += count
    return None


EXAMPLES = (
    Valid(
        """
        import logging
        from acp_schema.v2 import SessionMessageChunk

        log = logging.getLogger(__name__)

        def skip(chunk: SessionMessageChunk) -> None:
            log.warning("chunk %s arrived before its sender_session_id was known", chunk.message_id)
        """,
        why="log text",
    ),
    Invalid(
        """
        from acp_schema.v2 import SessionMessageChunk

        LINE = '{"sessionUpdate": "%s", "messageId": "%s", "senderSessionId": "%s"}'
        """,
        lines=(3,),
        why="a quoted key in a JSON template",
    ),
    Invalid(
        """
        FIELDS = "sender_session_id recipient_session_id".split()

        def ids(update):
            return [getattr(update, f, None) for f in FIELDS]
        """,
        lines=(1,),
        why="field names kept in a string, read with getattr",
    ),
    Invalid(
        """
        def recipient(doc, resolve):
            return resolve(doc, "/params/update/recipientSessionId")
        """,
        lines=(2,),
        why="a JSON pointer given to a call",
    ),
    Invalid(
        """
        from acp_schema.v2 import SessionMessageChunk

        def query(chunk) -> str:
            return "sender_session_id=%s" % chunk.message_id
        """,
        lines=(4,),
        why="a key=value pair",
    ),
)
