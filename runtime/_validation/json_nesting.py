"""How deep a JSON text nests, found before parsing it.

`json.loads` recurses once per array or object level and so does everything that walks the
result; a text nested thousands deep ends in RecursionError. Reading only the brackets that
stand outside strings finds the depth without recursion, so a reader can refuse such input
with a message that says where, before any recursion starts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A JSON string (escapes included) or a bracket. Strings are matched whole so the brackets
# inside them are skipped; on invalid JSON the count can only be off after the first error,
# where the parser stops anyway. The closing quote is optional: a string that never closes
# runs to the end of the text in one match, where a required quote would make the engine
# retry from every later quote (quadratic on a text of escaped quotes).
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


@dataclass(frozen=True)
class TooDeep:
    """Where a JSON text first opens level `limit + 1`."""

    limit: int
    line: int  # 1-based, as json.JSONDecodeError counts
    column: int

    def __str__(self) -> str:
        return (
            f"JSON nested deeper than {self.limit} levels "
            f"(at line {self.line}, column {self.column})"
        )


def too_deep(text: str, limit: int) -> TooDeep | None:
    """None if no array or object of `text` sits more than `limit` levels deep."""
    if text.count("[") + text.count("{") <= limit:  # the common short case
        return None
    depth = 0
    for match in _TOKENS.finditer(text):
        char = match.group()
        if char in "[{":
            depth += 1
            if depth > limit:
                offset = match.start()
                line = text.count("\n", 0, offset) + 1
                column = offset - text.rfind("\n", 0, offset)
                return TooDeep(limit, line, column)
        elif char in "]}":
            depth -= 1
    return None
