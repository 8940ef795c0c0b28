"""One schema file, read, parsed and checked once: what every later stage reads.

`load_schema_file` reads the bytes once (their sha256 goes into the generated headers),
parses them, derives the method roles once and runs every check but the Draft 2020-12
meta-schema one (the generator runs that beside datamodel-codegen; `meta_schema=True`
runs it here). The stages of `generate` take the `LoadedSchema` instead of a path, so none
of them reads the file or re-derives the method roles again.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .method_roles import MethodRoles, read_method_roles
from .schema_check import (
    Problem,
    SchemaError,
    check_schema_document,
    errors,
    meta_schema_problems,
    parse_schema_bytes,
    read_schema_bytes,
)


@dataclass(frozen=True)
class LoadedSchema:
    path: Path
    digest: str  # sha256 of the file's bytes
    document: dict[str, Any]
    roles: MethodRoles
    warnings: tuple[Problem, ...]  # what the bindings carry through without understanding


def load_schema_file(path: str | os.PathLike[str], *, meta_schema: bool = True) -> LoadedSchema:
    """Read and check the schema at `path` once; raise SchemaError listing every problem
    (the meta-schema's too, even with `meta_schema=False`, once something else failed)."""
    return load_schema_bytes(read_schema_bytes(path), path, meta_schema=meta_schema)


def load_schema_bytes(
    raw: bytes, path: str | os.PathLike[str], *, meta_schema: bool = True
) -> LoadedSchema:
    """`load_schema_file` on the bytes of `path`, read already (`acp-schema check` reads
    them for their digest first)."""
    doc, problems = parse_schema_bytes(raw, path)
    roles = read_method_roles(doc) if isinstance(doc, dict) else MethodRoles()
    found = problems + check_schema_document(
        doc, meta_schema=meta_schema, warnings=True, roles=roles
    )
    if errors(found):
        extra = [] if meta_schema else meta_schema_problems(doc)
        raise SchemaError(path, sorted(set(errors(found) + extra)))
    assert isinstance(doc, dict)  # anything else is a problem above
    warnings = tuple(sorted({p for p in found if p.warning}))
    return LoadedSchema(Path(path), hashlib.sha256(raw).hexdigest(), doc, roles, warnings)
