"""One render of each bundled schema per test run, shared by the modules that compare with
it (a render takes seconds; the determinism test renders again on purpose)."""

from __future__ import annotations

from functools import cache

from acp_schema.codegen.bundled import bundled_schema
from acp_schema.codegen.generate.pipeline import GeneratedFile, render


@cache
def bundled_render(version: str) -> tuple[GeneratedFile, ...]:
    """The files `acp-schema generate` writes for the bundled `version` (not written)."""
    return tuple(render(bundled_schema(version)))
