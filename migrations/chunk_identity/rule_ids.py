"""Rule IDs of the chunk-identity migration and what each one covers.

Every rewrite and every warning names the rule it comes from; `CATALOG` is the family's
entry in the rule selection of `acp-schema migrate` (`framework.rule_catalog`).
"""

from __future__ import annotations

from collections.abc import Iterable

from acp_schema.migrations.framework.findings import Finding
from acp_schema.migrations.framework.rule_catalog import RuleCatalog, UnknownRuleError

__all__ = [
    "ALL_RULES",
    "BUILDER",
    "CATALOG",
    "CHUNK_IDENTITY",
    "CONSTRUCTOR",
    "CONSUMER",
    "DICT",
    "FAMILIES",
    "IMPORT",
    "OCCURRENCE",
    "OLD_BINDINGS",
    "READ",
    "RULES",
    "Finding",
    "UnknownRuleError",
    "expand",
    "select_rules",
]

CHUNK_IDENTITY = "chunk-identity"
CONSTRUCTOR = f"{CHUNK_IDENTITY}/constructor"
BUILDER = f"{CHUNK_IDENTITY}/builder"
DICT = f"{CHUNK_IDENTITY}/dict"
READ = f"{CHUNK_IDENTITY}/read"
IMPORT = f"{CHUNK_IDENTITY}/import"
OLD_BINDINGS = f"{CHUNK_IDENTITY}/old-bindings"
OCCURRENCE = f"{CHUNK_IDENTITY}/occurrence"
CONSUMER = f"{CHUNK_IDENTITY}/consumer"

CATALOG = RuleCatalog(
    {
        CONSTRUCTOR: "participant IDs passed to SessionMessageChunk(...) move to a "
        "SessionMessage upsert sent before the chunk",
        BUILDER: "with_sender_session_id / with_recipient_session_id on a chunk move to the upsert",
        DICT: "senderSessionId / recipientSessionId keys of raw session_message_chunk payloads "
        "move to a raw session_message upsert",
        READ: "participant IDs read from a chunk are taken from the message instead",
        IMPORT: "names imported from the bindings that the installed bindings no longer define",
        OLD_BINDINGS: "classes of the run that still declare the removed chunk fields: "
        "reported, and treated as bindings for the run",
        OCCURRENCE: "every other use of a removed name, unless a proof of a named kind "
        "shows it is unrelated",
        CONSUMER: "code of the run that iterates a generator now yielding an upsert before "
        "the chunks, and uses its items as chunks",
    }
)
RULES: dict[str, str] = CATALOG.rules
FAMILIES: dict[str, tuple[str, ...]] = CATALOG.families
ALL_RULES: frozenset[str] = CATALOG.all


def expand(names: Iterable[str]) -> frozenset[str]:
    """Rule IDs named by `names`, each a rule ID or a family name."""
    return CATALOG.expand(names)


def select_rules(select: Iterable[str] = (), disable: Iterable[str] = ()) -> frozenset[str]:
    """The rules to run: `select` (default: all) minus `disable`."""
    return CATALOG.select(select, disable)
