"""GitHub Actions workflow commands (`::error file=...,line=...::message`), the annotations a
workflow log turns into marks on a pull request's files, for the `--format github` output of
`acp-schema diff` and `acp-schema migrate`.

One line per annotation. The runner decodes `%25`, `%0D` and `%0A` in the message, and also
`%3A` and `%2C` in a property value, and nothing else; so exactly `%`, CR and LF (and `:`,
`,` in properties) are encoded, as GitHub's own toolkit does: nothing a file name or a
message holds can end the line or start another command, and everything reads back as given.
"""

from __future__ import annotations

from typing import Literal

Level = Literal["error", "warning", "notice"]


def _encode(text: str, extra: str = "") -> str:
    return "".join(f"%{ord(char):02X}" if char in "%\r\n" + extra else char for char in text)


def annotation(
    level: Level,
    message: str,
    *,
    file: str | None = None,
    line: int | None = None,
    col: int | None = None,
    title: str | None = None,
) -> str:
    """One workflow command line; `line` and `col` are 1-based, as GitHub counts them."""
    properties = [
        f"{name}={_encode(str(value), ':,')}"
        for name, value in (("file", file), ("line", line), ("col", col), ("title", title))
        if value is not None
    ]
    head = f"::{level} {','.join(properties)}" if properties else f"::{level}"
    return f"{head}::{_encode(message)}"
