"""Acknowledgements: a person says in place that a reported occurrence is handled.

    value = update.sender_session_id  # acp-migrate: ok[chunk-identity/read]

    # acp-migrate: ok[chunk-identity/old-bindings]
    class SessionMessageChunk(BaseModel): ...

The marker `acp-migrate: ok[RULE, ...]` in a comment on the reported line, or in a
comment-only line right above it, acknowledges the warnings of those rules on that line
(a family name, `chunk-identity`, covers all its rules). An acknowledged warning does not
fail `migrate --check`, gets no TODO comment, and is listed as acknowledged in the report.
Comments are found with `tokenize`, so a marker inside a string does not count.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Iterable
from dataclasses import dataclass, field

from acp_schema.migrations.framework.rule_catalog import family_of

MARKER = "acp-migrate:"
_MARK = re.compile(r"acp-migrate:\s*ok\[([^\]]*)\]")


@dataclass
class Acknowledgements:
    """Rules acknowledged per line of one file (1-based lines)."""

    by_line: dict[int, set[str]] = field(default_factory=dict)

    def covers(self, line: int, rule: str) -> bool:
        named = self.by_line.get(line, ())
        return rule in named or family_of(rule) in named

    def __bool__(self) -> bool:
        return bool(self.by_line)


NONE = Acknowledgements()


def acknowledgements(source: bytes | str) -> Acknowledgements:
    """The acknowledgements of a file's source (none when it has no marker)."""
    data = source.encode("utf-8", "surrogateescape") if isinstance(source, str) else source
    if MARKER.encode() not in data:
        return NONE
    found = Acknowledgements()
    for line, rules, alone in _marks(data):
        found.by_line.setdefault(line, set()).update(rules)
        if alone:  # a comment-only line speaks for the line below it
            found.by_line.setdefault(line + 1, set()).update(rules)
    return found


def _marks(data: bytes) -> Iterable[tuple[int, list[str], bool]]:
    try:
        tokens = list(tokenize.tokenize(io.BytesIO(data).readline))
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError, LookupError):
        return []  # the migration reports a file it cannot read
    marks = []
    previous_line = 0
    for token in tokens:
        if token.type == tokenize.COMMENT:
            match = _MARK.search(token.string)
            if match:
                rules = [r.strip() for r in match.group(1).split(",") if r.strip()]
                alone = previous_line != token.start[0]
                marks.append((token.start[0], rules, alone))
        if token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE):
            previous_line = token.end[0]
    return marks
