"""Every occurrence of the removed API in a file, found from its tokens alone.

The planner recognises shapes; this scan does not. It lists each place the source names
`sender_session_id`, `recipient_session_id`, their wire names, or their builders: as a
name token (keyword, attribute, parameter, field, pattern key, variable) or inside a
string literal (a dict key, a `getattr` name, prose). `accounting` then gives each one a
verdict, so that nothing the rules do not recognise passes in silence.

An occurrence is identified by where its token starts and, for a string, by its rank
among the names that string holds (`"sender_session_id and recipientSessionId"` holds
two). A string's text is the whole literal as written (an f-string with its
replacement fields), so a name inside an f-string counts once, as text of that string.
Comments are not code and are not listed. Names are compared as Python reads
identifiers, after NFKC normalisation (a fullwidth `s` in `sender_session_id` is still that name).
"""

from __future__ import annotations

import io
import re
import tokenize
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from acp_schema.migrations.resolution.bindings import IDENTITY_BUILDERS, IDENTITY_FIELDS

# Longest first, so a builder is not also counted as the field it ends with.
REMOVED_NAMES: tuple[str, ...] = (
    *IDENTITY_BUILDERS,
    *IDENTITY_FIELDS,
    *IDENTITY_FIELDS.values(),
)
REMOVED_BYTES = tuple(name.encode() for name in IDENTITY_FIELDS) + tuple(
    name.encode() for name in IDENTITY_FIELDS.values()
)
_IN_TEXT = re.compile(r"\b(?:" + "|".join(REMOVED_NAMES) + r")\b")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)  # Python 3.12+
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)


@dataclass(frozen=True, order=True)
class Occurrence:
    line: int  # 1-based
    column: int  # 0-based, in characters
    name: str
    rank: int = 0  # among the removed names of one string literal
    in_string: bool = False


def nfkc(text: str) -> str:
    """An identifier as Python reads it."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def nfkc_bytes(data: bytes) -> bytes:
    """The source with every character NFKC-normalised (identifiers as Python reads
    them, strings too: only for cheap tests, where more matches are safe)."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        text = data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        text = data.decode("utf-8", "replace")
    return unicodedata.normalize("NFKC", text).encode("utf-8", "replace")


def may_hold(data: bytes) -> bool:
    """The cheap test: no removed name in the bytes, no occurrence."""
    if not data.isascii():
        data = nfkc_bytes(data)
    return any(name in data for name in REMOVED_BYTES)


def names_in_text(text: str) -> list[str]:
    return _IN_TEXT.findall(text)


def scan(data: bytes) -> list[Occurrence]:
    """The occurrences in a file's source ([] when it cannot be tokenized: the run
    reports such a file as failed)."""
    if not may_hold(data):
        return []
    try:
        return list(_scan(data))
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, LookupError):
        return []


def _scan(data: bytes) -> Iterator[Occurrence]:
    """The tokens are read as they come (a big module's token list would cost memory)."""
    lines: list[str] | None = None
    depth = 0  # open f-strings (3.12+ splits them into tokens)
    start: tuple[int, int] = (0, 0)
    for token in tokenize.tokenize(io.BytesIO(data).readline):
        if _FSTRING_START is not None and token.type == _FSTRING_START:
            if depth == 0:
                start = token.start
            depth += 1
            continue
        if depth:
            if token.type == _FSTRING_END:
                depth -= 1
                if depth == 0:
                    if lines is None:
                        lines = _source_lines(data)
                    # Identifiers in replacement fields are NFKC-normalised by Python.
                    yield from _in_string(start, nfkc(_slice(lines, start, token.end)))
            continue
        if token.type == tokenize.NAME and nfkc(token.string) in REMOVED_NAMES:
            yield Occurrence(token.start[0], token.start[1], nfkc(token.string))
        elif token.type == tokenize.STRING:
            yield from _in_string(token.start, token.string)


def _in_string(start: tuple[int, int], text: str) -> list[Occurrence]:
    return [
        Occurrence(start[0], start[1], name, rank, True)
        for rank, name in enumerate(names_in_text(text))
    ]


def _source_lines(data: bytes) -> list[str]:
    """The source's lines as the tokenizer reads them (its encoding, its line ends)."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    # Only \r\n, \r and \n end a line for Python (str.splitlines also splits at \f).
    return _LINE.findall(data.decode(encoding))


def _slice(lines: list[str], start: tuple[int, int], end: tuple[int, int]) -> str:
    (first, column), (last, end_column) = start, end
    if first == last:
        return lines[first - 1][column:end_column]
    middle = lines[first : last - 1]
    return "".join([lines[first - 1][column:], *middle, lines[last - 1][:end_column]])
