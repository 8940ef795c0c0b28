"""Rule `chunk-identity/import`: names taken from the bindings that the installed
bindings no longer define.

The names are checked against the source of the installed bindings module (read, not
imported). An `ImportError` at start-up, or an `AttributeError` on `schema.Name`, is
what the old code would get; the rule reports each such name with its new name when
the revision renamed it. It changes nothing: a renamed class is not always a drop-in
replacement, so a person decides. The `SessionMessage` imports the other rules need are
added by those rules.
"""

from __future__ import annotations

import libcst as cst

from acp_schema.migrations.chunk_identity import rule_ids as rules
from acp_schema.migrations.chunk_identity.accounting.occurrences import nfkc
from acp_schema.migrations.chunk_identity.candidates import Candidates
from acp_schema.migrations.chunk_identity.planning.planner import Planner
from acp_schema.migrations.framework.examples import Invalid, Valid
from acp_schema.migrations.framework.syntax import code
from acp_schema.migrations.resolution.bindings import KNOWN_RENAMES, defined_names


def _missing(planner: Planner, node: cst.CSTNode, module: str, name: str) -> None:
    known = defined_names(module)
    if known is None or nfkc(name) in known:  # names as Python reads them
        return
    hint = KNOWN_RENAMES.get(name)
    advice = f"; it is now `{hint}`" if hint and hint in known else ""
    planner.warn(node, rules.IMPORT, f"`{module}` does not define `{name}` any more{advice}")


def plan_imports(planner: Planner, found: Candidates) -> None:
    bindings = planner.facts.bindings
    for statement in found.import_froms:
        if statement.relative or statement.module is None:
            continue
        module = code(statement.module)
        if bindings.owner(module) is None or isinstance(statement.names, cst.ImportStar):
            continue
        for alias in statement.names:
            _missing(planner, alias, module, code(alias.name))
    for attribute in found.bindings_attributes:
        for qualified in planner.facts.qualified_names(attribute):
            module, _, name = qualified.rpartition(".")
            if module and bindings.owner(module) == module:
                _missing(planner, attribute, module, name)


# Examples (Fixit style): the rule's documentation and its tests.
EXAMPLES = (
    Valid("from acp_schema.v2 import SessionMessage, SessionMessageChunk\n"),
    Invalid(
        "from acp_schema.v2 import AuthCapabilities\n",
        lines=(1,),
        why="renamed to ClientAuthCapabilities in 2.1.0",
    ),
)
