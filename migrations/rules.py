"""Rule IDs of the migrations, rule selection, and what a rule reports about a file.

Every rewrite and every warning names the rule it comes from. Rules are grouped in
families (`chunk-identity`): selecting a family selects all of its rules.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any, Literal

CHUNK_IDENTITY = "chunk-identity"
CONSTRUCTOR = f"{CHUNK_IDENTITY}/constructor"
BUILDER = f"{CHUNK_IDENTITY}/builder"
DICT = f"{CHUNK_IDENTITY}/dict"
READ = f"{CHUNK_IDENTITY}/read"
IMPORT = f"{CHUNK_IDENTITY}/import"
OLD_BINDINGS = f"{CHUNK_IDENTITY}/old-bindings"
OCCURRENCE = f"{CHUNK_IDENTITY}/occurrence"

RULES: dict[str, str] = {
    CONSTRUCTOR: "participant IDs passed to SessionMessageChunk(...) move to a SessionMessage "
    "upsert sent before the chunk",
    BUILDER: "with_sender_session_id / with_recipient_session_id on a chunk move to the upsert",
    DICT: "senderSessionId / recipientSessionId keys of raw session_message_chunk payloads "
    "move to a raw session_message upsert",
    READ: "participant IDs read from a chunk are taken from the message instead",
    IMPORT: "names imported from the bindings that the installed bindings no longer define",
    OLD_BINDINGS: "classes of the run that still declare the removed chunk fields: reported, "
    "and treated as bindings for the run",
    OCCURRENCE: "every other use of a removed name in a file that can reach a chunk, unless "
    "the code shows it is unrelated",
}
FAMILIES: dict[str, tuple[str, ...]] = {
    CHUNK_IDENTITY: tuple(rule for rule in RULES if rule.startswith(f"{CHUNK_IDENTITY}/")),
}
ALL_RULES: frozenset[str] = frozenset(RULES)


class UnknownRuleError(ValueError):
    """A rule or family name that no migration defines."""


def expand(names: Iterable[str]) -> frozenset[str]:
    """Rule IDs named by `names`, each a rule ID or a family name."""
    rules: set[str] = set()
    for name in names:
        if name in FAMILIES:
            rules.update(FAMILIES[name])
        elif name in RULES:
            rules.add(name)
        else:
            known = ", ".join([*FAMILIES, *RULES])
            raise UnknownRuleError(f"unknown rule {name!r} (known: {known})")
    return frozenset(rules)


def select_rules(select: Iterable[str] = (), disable: Iterable[str] = ()) -> frozenset[str]:
    """The rules to run: `select` (default: all) minus `disable`."""
    selected = expand(select) or ALL_RULES
    return selected - expand(disable)


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
        return f"{path}:{self.line}:{self.column}: {self.rule}: {self.message}"
