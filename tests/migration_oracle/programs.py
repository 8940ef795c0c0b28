# ruff: noqa: E501 - generated downstream code has long lines too
"""Hypothesis strategies for whole downstream programs that the oracle can run.

A program is a `main.py` (and a `helpers.py`) made of pieces drawn at random: chunks
built in the ways downstream code builds them (keywords by field or wire name, an
alias, a factory, `functools.partial`, `model_construct`, `model_copy(update=...)`,
builders, `**` keywords, raw payloads), sent directly, from loops, helpers and
generators, or handed to readers that take the IDs back (typed, untyped, through
`getattr`, quoted annotations, `SessionUpdate` unions); mixed with the application's
own look-alike classes and `SessionMessage` upserts. Every piece runs against the
recording connection.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

FIELDS = ("sender_session_id", "recipient_session_id")
WIRE = {"sender_session_id": "senderSessionId", "recipient_session_id": "recipientSessionId"}
HEADER = "from acp_schema.v2 import SessionMessage, SessionMessageChunk, SessionUpdate, TextContent\nimport functools\n"


@dataclass(frozen=True)
class Piece:
    main: str  # module-level code of main.py (functions), indented with 4 spaces inside
    call: str  # a statement in main(conn)
    helpers: str = ""  # code for helpers.py
    imports: str = ""  # names main.py imports from helpers


def _keywords(draw: st.DrawFn, value: str = '"s1"') -> str:
    chosen = draw(st.lists(st.sampled_from(FIELDS), min_size=1, max_size=2, unique=True))
    wire = draw(st.booleans())
    return ", ".join(f"{WIRE[f] if wire else f}={value}" for f in chosen)


@st.composite
def built(draw: st.DrawFn, n: int) -> Piece:
    """A chunk with IDs built one way and sent."""
    keywords = _keywords(draw)
    mid = f'"m{n}"'
    content = f'TextContent(text="t{n}")'
    way = draw(
        st.sampled_from(
            [
                "direct",
                "alias",
                "factory",
                "partial",
                "construct",
                "copy",
                "builder",
                "star",
                "loop",
                "helper",
                "generator",
            ]
        )
    )
    name = f"piece{n}"
    if way == "direct":
        body = f"conn.send(SessionMessageChunk(message_id={mid}, content={content}, {keywords}))"
        return Piece(f"def {name}(conn):\n    {body}\n", f"{name}(conn)")
    if way == "alias":
        code = f"Chunk{n} = SessionMessageChunk\n\ndef {name}(conn):\n    conn.send(Chunk{n}(message_id={mid}, content={content}, {keywords}))\n"
        return Piece(code, f"{name}(conn)")
    if way == "factory":
        helpers = "def make_chunk(**fields):\n    return SessionMessageChunk(**fields)\n"
        code = f"def {name}(conn):\n    conn.send(make_chunk(message_id={mid}, content={content}, {keywords}))\n"
        return Piece(code, f"{name}(conn)", helpers, "make_chunk")
    if way == "partial":
        code = f"def {name}(conn):\n    make = functools.partial(SessionMessageChunk, {keywords})\n    conn.send(make(message_id={mid}, content={content}))\n"
        return Piece(code, f"{name}(conn)")
    if way == "construct":
        code = f"def {name}(conn):\n    conn.send(SessionMessageChunk.model_construct(message_id={mid}, content={content}, {keywords}))\n"
        return Piece(code, f"{name}(conn)")
    if way == "copy":
        field = draw(st.sampled_from(FIELDS))
        code = f'def {name}(conn):\n    chunk = SessionMessageChunk(message_id={mid}, content={content})\n    conn.send(chunk.model_copy(update={{"{field}": "s1"}}))\n'
        return Piece(code, f"{name}(conn)")
    if way == "builder":
        field = draw(st.sampled_from(FIELDS))
        code = f'def sign{n}(update, me):\n    return update.with_{field}(me)\n\ndef {name}(conn):\n    conn.send(sign{n}(SessionMessageChunk(message_id={mid}, content={content}), "s1"))\n'
        return Piece(code, f"{name}(conn)")
    if way == "star":
        field = draw(st.sampled_from(FIELDS))
        code = f'def {name}(conn):\n    extra = {{"{field}": "s1"}}\n    conn.send(SessionMessageChunk(message_id={mid}, content={content}, **extra))\n'
        return Piece(code, f"{name}(conn)")
    if way == "loop":
        code = f'def {name}(conn):\n    for text in ["a", "b"]:\n        conn.send(SessionMessageChunk(message_id={mid}, content=TextContent(text=text), {keywords}))\n'
        return Piece(code, f"{name}(conn)")
    if way == "helper":
        private = draw(st.booleans())
        helper = f"{'_' if private else ''}chunk{n}"
        code = f'def {helper}(mid, text, me):\n    return SessionMessageChunk(message_id=mid, content=TextContent(text=text), {_keywords(draw, "me")})\n\ndef {name}(conn):\n    conn.send({helper}({mid}, "h", "s1"))\n'
        return Piece(code, f"{name}(conn)")
    reads = draw(st.booleans())
    use = "conn.log(chunk.content.text)\n        " if reads else ""
    code = (
        f'def stream{n}(me):\n    for text in ["a", "b"]:\n        yield SessionMessageChunk(message_id={mid}, content=TextContent(text=text), {_keywords(draw, "me")})\n\n'
        f'def {name}(conn):\n    for chunk in stream{n}("s1"):\n        {use}conn.send(chunk)\n'
    )
    return Piece(code, f"{name}(conn)")


@st.composite
def read(draw: st.DrawFn, n: int) -> Piece:
    """A chunk with IDs sent, then its IDs read back to pick the receiving session."""
    field = draw(st.sampled_from(FIELDS))
    how = draw(
        st.sampled_from(["attribute", "getattr", "annotated", "quoted", "union", "other-module"])
    )
    mid = f'"m{n}"'
    chunk = f'SessionMessageChunk(message_id={mid}, content=TextContent(text="r{n}"), {field}="s2")'
    reader = f"target{n}"
    if how == "attribute":
        head = f"def {reader}(update):\n    return update.{field}\n"
    elif how == "getattr":
        head = f'def {reader}(update):\n    return getattr(update, "{field}", None) or "s1"\n'
    elif how == "annotated":
        head = f"def {reader}(update: SessionMessageChunk):\n    return update.{field}\n"
    elif how == "quoted":
        head = f'def {reader}(update: "SessionMessageChunk"):\n    return update.{field}\n'
    elif how == "union":
        head = f"def {reader}(update: SessionUpdate):\n    return update.{field}\n"
    else:
        helpers = f"def {reader}(update):\n    return update.{field}\n"
        code = f"def piece{n}(conn):\n    chunk = {chunk}\n    conn.channel({reader}(chunk)).send(chunk)\n"
        return Piece(code, f"piece{n}(conn)", helpers, reader)
    code = f"{head}\ndef piece{n}(conn):\n    chunk = {chunk}\n    conn.channel({reader}(chunk)).send(chunk)\n"
    return Piece(code, f"piece{n}(conn)")


@st.composite
def lookalike(draw: st.DrawFn, n: int) -> Piece:
    """The application's own classes and upserts, which keep their fields."""
    field = draw(st.sampled_from(FIELDS))
    how = draw(st.sampled_from(["dataclass", "upsert", "container", "isinstance", "local"]))
    if how == "dataclass":
        code = f'from dataclasses import dataclass as _dc{n}\n\n@_dc{n}\nclass Event{n}:\n    {field}: str\n\ndef piece{n}(conn):\n    event: Event{n} = Event{n}({field}="s1")\n    conn.log(event.{field})\n'
    elif how == "upsert":
        code = f'def piece{n}(conn):\n    message = SessionMessage(message_id="u{n}", {field}="s1")\n    conn.log(message.{field})\n    conn.send(message)\n'
    elif how == "container":
        code = f'class Box{n}:\n    def __init__(self) -> None:\n        self.items: dict[str, SessionMessage] = {{}}\n\n    def who(self, key: str):\n        return self.items[key].{field}\n\ndef piece{n}(conn):\n    box = Box{n}()\n    box.items["k"] = SessionMessage(message_id="u{n}", {field}="s1")\n    conn.log(box.who("k"))\n'
    elif how == "isinstance":
        code = f'def piece{n}(conn):\n    for item in [SessionMessage(message_id="u{n}", {field}="s1"), 3]:\n        if isinstance(item, SessionMessage):\n            conn.log(item.{field})\n'
    else:
        code = f'def piece{n}(conn):\n    {field} = "s1"\n    conn.log({field})\n'
    return Piece(code, f"piece{n}(conn)")


@st.composite
def programs(draw: st.DrawFn) -> dict[str, str]:
    """The files of one program: main.py and helpers.py."""
    count = draw(st.integers(1, 4))
    pieces = [draw(st.one_of(built(n), read(n), lookalike(n))) for n in range(count)]
    imports = sorted({p.imports for p in pieces if p.imports})
    head = HEADER + (f"from helpers import {', '.join(imports)}\n" if imports else "")
    main = head + "\n\n" + "\n\n".join(p.main for p in pieces)
    main += "\n\ndef main(conn):\n" + "".join(f"    {p.call}\n" for p in pieces)
    helpers = "\n\n".join(p.helpers for p in pieces if p.helpers)
    if "SessionMessageChunk" in helpers:  # a reader alone names no chunk (class 1)
        helpers = "from acp_schema.v2 import SessionMessageChunk, TextContent\n\n\n" + helpers
    return {"main.py": main, "helpers.py": helpers}
