"""The occurrence oracle's own scan: where a source names the removed API.

Written apart from the tool (it imports nothing from acp_schema.migrations), so that the
accounting test compares two independent listings. One entry per name token equal to a
removed name, and per removed name inside a string literal, keyed by the literal's start
and the rank of the name in it. An f-string is one literal (Python 3.12 splits it into
tokens; they are joined back here). Comments do not count.
"""

from __future__ import annotations

import io
import re
import sys
import tokenize

REMOVED = (
    "with_sender_session_id",
    "with_recipient_session_id",
    "sender_session_id",
    "recipient_session_id",
    "senderSessionId",
    "recipientSessionId",
)
WORD = re.compile("|".join(rf"\b{name}\b" for name in REMOVED))

Key = tuple[int, int, str, int]  # line, column, name, rank within a string


def scan_source(data: bytes) -> set[Key]:
    tokens = list(tokenize.tokenize(io.BytesIO(data).readline))
    source_lines = data.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    keys: set[Key] = set()
    opened = 0
    begin = (0, 0)
    for token in tokens:
        kind = tokenize.tok_name[token.type]
        if kind == "FSTRING_START":
            if not opened:
                begin = token.start
            opened += 1
        elif kind == "FSTRING_END":
            opened -= 1
            if not opened:
                literal = _between(source_lines, begin, token.end)
                keys |= _in_literal(begin, literal)
        elif opened:
            continue
        elif kind == "NAME" and token.string in REMOVED:
            keys.add((token.start[0], token.start[1], token.string, 0))
        elif kind == "STRING":
            keys |= _in_literal(token.start, token.string)
    return keys


def _in_literal(start: tuple[int, int], text: str) -> set[Key]:
    return {(start[0], start[1], m.group(0), i) for i, m in enumerate(WORD.finditer(text))}


def _between(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    if start[0] == end[0]:
        return lines[start[0] - 1][start[1] : end[1]]
    text = lines[start[0] - 1][start[1] :]
    for number in range(start[0] + 1, end[0]):
        text += lines[number - 1]
    return text + lines[end[0] - 1][: end[1]]


if __name__ == "__main__":  # python -m tests.migration_oracle.occurrence_scan FILE...
    for name in sys.argv[1:]:
        with open(name, "rb") as stream:
            for key in sorted(scan_source(stream.read())):
                print(name, *key)
