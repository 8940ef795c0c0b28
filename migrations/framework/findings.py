"""What a codemod reports about a file: one `Finding` per rewrite made, place left for a
person, or such a place a person acknowledged in place (`acknowledge`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from acp_schema.cli_output import shown

Kind = Literal["change", "warning", "acknowledged"]


@dataclass(frozen=True, order=True)
class Finding:
    """One rewrite made (`change`), one place left alone for a person (`warning`), or
    such a place a person has marked as handled (`acknowledged`, see `acknowledge`).

    `line` is 1-based and `column` 0-based, as Python's own tracebacks and most editors
    count them, and both point into the file as it was before the migration.
    """

    line: int
    column: int
    rule: str
    message: str
    kind: Kind = "warning"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def format(self, path: str) -> str:
        return f"{path}:{self.line}:{self.column}: {self.rule}: {shown(self.message)}"
