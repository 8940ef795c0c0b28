"""Proof `prose`: the name is a word of text in a string, in no position where a program
could read it as a key or a name: the string is not just the name, and this occurrence
is not quoted inside the text (`"senderSessionId"`: JSON or a Python literal), not a
replacement field (`{sender_session_id}`, `%(sender_session_id)s`), not followed by
`:` or `=` (`senderSessionId: ...`, `sender_session_id=...`), and not part of a dotted
path (`chunk.sender_session_id` for `attrgetter`). Log text such as
`"chunk without sender_session_id"` is prose; a JSON template is not (see
`payload-tagged-other`)."""

from __future__ import annotations

import re

import libcst as cst

from acp_schema.migrations.chunk_identity.accounting.occurrences import (
    REMOVED_NAMES,
    names_in_text,
)
from acp_schema.migrations.chunk_identity.accounting.proofs.context import ProofContext, Site
from acp_schema.migrations.framework.examples import Invalid, Valid
from acp_schema.migrations.framework.syntax import code, string_value

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
    return "a word of text in a string: not quoted, not a key, a field or a path"


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
        from acp_schema.v2 import SessionMessageChunk

        def query(chunk) -> str:
            return "sender_session_id=%s" % chunk.message_id
        """,
        lines=(4,),
        why="a key=value pair",
    ),
)
