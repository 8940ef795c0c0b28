"""Proof `unused-string`: the name is text of a string that is a statement of its own
(a docstring, or a bare string in a body): Python evaluates it and drops it, so no code
reads it as a key or a name."""

from __future__ import annotations

import libcst as cst

from acp_schema.migrations.chunk_identity.accounting.proofs.context import ProofContext, Site
from acp_schema.migrations.framework.examples import Invalid, Valid

KIND = "unused-string"


def prove(context: ProofContext, site: Site) -> str | None:
    node: cst.CSTNode | None = site.node
    if not isinstance(node, cst.SimpleString | cst.FormattedString):
        return None
    holder = context.parent(node)
    while isinstance(holder, cst.ConcatenatedString):
        node, holder = holder, context.parent(holder)
    statement = context.parent(holder) if isinstance(holder, cst.Expr) else None
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        return "a string statement (a docstring): its value is never used"
    return None


EXAMPLES = (
    Valid(
        '''
        from acp_schema.v2 import SessionMessageChunk

        def describe(chunk: SessionMessageChunk) -> str:
            """Chunks used to carry senderSessionId; the message does now."""
            return chunk.message_id
        ''',
        why="a docstring",
    ),
    Invalid(
        """
        from acp_schema.v2 import SessionMessageChunk

        FIELD = "sender_session_id"
        """,
        lines=(3,),
        why="a field name held as a value (it may be given to setattr elsewhere)",
    ),
)
