"""Proof `class-member`: a field or method that a class declares, where the class is
shown not to be a chunk (`resolution.TypeOracle`: not a chunk class of the bindings or
an old one of the run, every base shown not to be one) and is no chunk payload: not
called with the chunk tag in its module, and not a TypedDict unless its tag field is a
`Literal` of another kind; or a member a `Protocol` declares (a Protocol is never
instantiated: the values typed with it are judged where they are used). A member of a
class with a base from a package outside the run proves nothing."""

from __future__ import annotations

import ast

import libcst as cst

from acp_schema.migrations.chunk_identity.accounting.proofs.context import (
    TAG_KEYS,
    ProofContext,
    Site,
    other_tag,
)
from acp_schema.migrations.framework.examples import Invalid, Valid
from acp_schema.migrations.resolution.module_symbols import definition

KIND = "class-member"


def owner_of(context: ProofContext, name: cst.Name) -> cst.ClassDef | None:
    """The class whose body declares `name` (a field or a method)."""
    parent = context.parent(name)
    statement: cst.CSTNode | None
    if isinstance(parent, cst.FunctionDef) and parent.name is name:
        statement = parent
    elif isinstance(parent, cst.AnnAssign) and parent.target is name:
        statement = context.parent(parent)
    elif isinstance(parent, cst.AssignTarget) and parent.target is name:
        statement = context.parent(context.parent(parent) or parent)
    else:
        return None
    block = context.parent(statement) if statement is not None else None
    owner = context.parent(block) if block is not None else None
    return owner if isinstance(owner, cst.ClassDef) else None


def prove(context: ProofContext, site: Site) -> str | None:
    if not isinstance(site.inner, cst.Name):
        return None
    owner = owner_of(context, site.inner)
    if owner is None or owner.name.value in context.chunk_built:
        return None
    names, holds = context.values.class_named(owner.name)
    oracle = context.values.oracle
    if names and all(oracle.is_protocol(q) for q in names):
        return f"a member declared by Protocol `{owner.name.value}`, which is never a value"
    if not holds.other:
        return None
    for qualified in names:
        if oracle.is_typed_dict(qualified) and not _tagged_other(context, qualified):
            return None
    return f"a member of class `{owner.name.value}`: {holds.why}"


def _tagged_other(context: ProofContext, qualified: str) -> bool:
    """A TypedDict whose tag field is `Literal["<another kind>"]`."""
    target = definition(context.values.oracle.symbols, qualified)
    if target is None or not isinstance(target.node, ast.ClassDef):
        return False
    for statement in target.node.body:
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and statement.target.id in TAG_KEYS
        ):
            literals = [
                n.value
                for n in ast.walk(statement.annotation)
                if isinstance(n, ast.Constant) and isinstance(n.value, str)
            ]
            return bool(literals) and all(other_tag(v) for v in literals)
    return False


EXAMPLES = (
    Valid(
        """
        from pydantic import BaseModel
        from acp_schema.v2 import SessionMessageChunk

        class Inbox(BaseModel):
            sender_session_id: str

            def with_sender_session_id(self, value: str) -> "Inbox":
                return self.model_copy(update={"sender_session_id": value})
        """,
        why="the application's own pydantic model, with a field and a builder of its own",
    ),
    Invalid(
        """
        from typing import TypedDict
        from acp_schema.v2 import SessionMessageChunk

        class ChunkPayload(TypedDict, total=False):
            sessionUpdate: str
            messageId: str
            senderSessionId: str
        """,
        lines=(7,),
        why="a TypedDict is a payload, and its tag may be the chunk's",
    ),
    Invalid(
        """
        from vendor_sdk import Message
        from acp_schema.v2 import SessionMessageChunk

        class Traced(Message):
            sender_session_id: str | None = None
        """,
        lines=(5,),
        why="a base from a package outside the run may be the chunk",
    ),
    Invalid(
        """
        from pydantic import BaseModel

        class ChatLine(BaseModel):
            messageId: str
            senderSessionId: str | None = None

        def sender(update):
            return ChatLine.model_validate(update.model_dump(by_alias=True)).senderSessionId
        """,
        lines=(5, 8),
        why="a model declaring a chunk's wire keys, validated from a chunk's dump",
    ),
    Invalid(
        """
        from dataclasses import dataclass, fields

        @dataclass
        class Delta:
            text: str
            sender_session_id: str

        def to_wire(d: Delta) -> dict:
            wire = {"sessionUpdate": "session_message_chunk", "content": d.text}
            for f in fields(d):
                wire[f.name] = getattr(d, f.name)
            return wire
        """,
        lines=(6,),
        why="a class serialised field by field into a chunk payload",
    ),
)
