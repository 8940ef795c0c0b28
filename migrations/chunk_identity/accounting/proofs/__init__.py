"""The closed list of proofs that an occurrence of a removed name is unrelated to chunks.

An occurrence that no rule rewrote or reported gets `unrelated` only with evidence of
one of these kinds; without one it is reported (rule `chunk-identity/occurrence`).
Each kind is a module with its own `EXAMPLES` (`Valid`: code where it proves every
occurrence it meets, `Invalid`: near misses, reported at the lines given), run by
tests/test_migrate_proofs.py:

- `receiver-not-chunk`: the value whose attribute is named is shown not to be a chunk;
- `not-chunk-class`: a keyword (or key) given to a class shown not to be a chunk that
  declares the field itself, or a keyword of its class pattern;
- `payload-tagged-other`: a key of a payload tagged with another kind;
- `class-member`: a field or method declared by a class shown not to be a chunk;
- `local-name`: a parameter, variable, function or class of that name;
- `unused-string`: text of a docstring or another string statement;
- `prose`: a word of text in a string, in no position a program reads as a key;
- `generated-bindings`: a file the generator wrote, unchanged (checked by the runner).

Not proofs (each was wrong in a held-out audit): distance from a chunk, a file or
function that names no chunk, "the callee is some other function", "it is a string".
"""

from __future__ import annotations

from types import ModuleType

from acp_schema.migrations.chunk_identity.accounting.proofs import (
    class_call,
    docstring,
    generated,
    member,
    names,
    payload,
    prose,
    receiver,
)
from acp_schema.migrations.chunk_identity.accounting.proofs.context import (
    ProofContext,
    Site,
)

# Tried in this order; the first that applies is the verdict's proof.
MODULES: tuple[ModuleType, ...] = (
    receiver,
    class_call,
    payload,
    member,
    names,
    docstring,
    prose,
)
KINDS: tuple[str, ...] = (*(m.KIND for m in MODULES), generated.KIND)


def prove(context: ProofContext, site: Site) -> tuple[str, str] | None:
    """(proof kind, evidence) of the first proof that applies, or None."""
    for module in MODULES:
        evidence = module.prove(context, site)
        if evidence is not None:
            return module.KIND, evidence
    return None


__all__ = ["KINDS", "MODULES", "ProofContext", "Site", "prove"]
